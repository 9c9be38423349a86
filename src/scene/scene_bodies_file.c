/*
 * bodies_file: a scene's bodies from an HDF5 table (docs/scene-format.md, "Bodies from a file"): a
 * frame of an earlier run's frames.h5, the bodies of a checkpoint, or any file with a group in the
 * same layout. Each rank reads one slice of the rows by hyperslabs (rows N r / P .. N (r+1) / P - 1)
 * and the first partition sends the bodies to their owners, so no rank holds more than its share.
 * The file gives shapes, sizes, poses and velocities; the scene gives the material and the mass (or
 * the material's density). Read in two passes, as generators are: the rows are counted first, so that
 * the scene's size is checked before anything is allocated.
 */
#include "scene_reader.h"
#include "../io/h5shapes.h"
#include "../io/h5io.h"
#include <talus/math3.h>

/* A row no body fills: a checkpoint's removed body (id -1), or a frame's row never written (zeros) */
static PetscBool EmptyRow(PetscBool has_id, const PetscInt64 id[], const PetscReal size[], PetscInt k)
{
  return (PetscBool)((has_id && id[k] < 0) || (size[3 * k] == 0.0 && size[3 * k + 1] == 0.0 && size[3 * k + 2] == 0.0));
}

static const char *const file_keys[] = {"file", "frame", "group", "material", "mass", NULL};

typedef struct {
  PetscInt last;
} LastFrame;

static herr_t FindLastFrame(hid_t group, const char *name, const H5L_info_t *info, void *ctx)
{
  LastFrame *f = (LastFrame *)ctx;
  char      *end;
  long       k;

  (void)group, (void)info;
  if (strncmp(name, "frame", 5) || !name[5]) return 0;
  k = strtol(name + 5, &end, 10);
  if (!*end && k > f->last) f->last = (PetscInt)k;
  return 0;
}

/* The group of the file holding the table: `group:`, frame `frame:` (default the last) of a frames
   file, or a checkpoint's (or a table's) "bodies" */
static void FindGroup(TalusH5Reader *h, PetscInt frame, char group[], size_t len)
{
  LastFrame last = {-1};
  char      what[160];

  if (h->bad || group[0]) return;
  (void)H5Literate(h->file, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, FindLastFrame, &last);
  if (last.last >= 0) {
    if (frame > last.last) {
      snprintf(what, sizeof(what), "frame %d asked for, and the file's frames are 0 to %d", (int)frame, (int)last.last);
      TalusH5Fault(h, "%s", what);
    }
    snprintf(group, len, "frame%06d", (int)(frame >= 0 ? frame : last.last));
  } else if (H5Lexists(h->file, "bodies", H5P_DEFAULT) > 0) snprintf(group, len, "bodies");
  else TalusH5Fault(h, "%s", "no frameNNNNNN groups (a frames.h5) and no group bodies (a checkpoint)");
}

/* Rows [offset, offset + count) of dataset `name` of group g, `width` values a row, as memtype; total
   rows are expected. *found says whether the file has the dataset (a fault when it is required). */
static void ReadRows(TalusH5Reader *h, hid_t g, const char name[], hid_t memtype, PetscInt total, int width,
                     PetscInt offset, PetscInt count, void *buf, PetscBool required, PetscBool *found)
{
  hsize_t dims[2] = {0, 0}, start[2] = {(hsize_t)offset, 0}, rows[2] = {(hsize_t)count, (hsize_t)width};
  hid_t   set, space, mem;
  int     ndims;
  char    what[200];

  *found = PETSC_FALSE;
  if (h->bad) return;
  if (H5Lexists(g, name, H5P_DEFAULT) <= 0) {
    snprintf(what, sizeof(what), "no dataset %s (the layout is in docs/scene-format.md)", name);
    if (required) TalusH5Fault(h, "%s", what);
    return;
  }
  set   = H5Dopen2(g, name, H5P_DEFAULT);
  space = set >= 0 ? H5Dget_space(set) : -1;
  ndims = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
  if (ndims < 1 || ndims > 2 || dims[0] != (hsize_t)total || (ndims == 2 ? dims[1] : 1) != (hsize_t)width) {
    snprintf(what, sizeof(what), "dataset %s is not %d rows of %d value%s", name, (int)total, width,
             width > 1 ? "s" : "");
    TalusH5Fault(h, "%s", what);
  } else {
    mem = H5Screate_simple(ndims, rows, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, rows, NULL);
    if (H5Dread(set, memtype, mem, space, H5P_DEFAULT, buf) < 0) {
      snprintf(what, sizeof(what), "cannot read dataset %s (damaged?)", name);
      TalusH5Fault(h, "%s", what);
    } else *found = PETSC_TRUE;
    H5Sclose(mem);
  }
  if (space >= 0) H5Sclose(space);
  if (set >= 0) H5Dclose(set);
}

static void ReaderInit(SceneReader *r, SceneBodiesFile *f, TalusH5Reader *h, char action[], size_t len)
{
  snprintf(action, len, "%s:%d: bodies_file: cannot read bodies from", r->file, SCENE_LINE(f->node));
  memset(h, 0, sizeof(*h));
  h->comm   = r->comm;
  h->path   = f->path;
  h->kind   = "frames file or checkpoint";
  h->action = action;
  MPI_Comm_rank(r->comm, &h->rank);
  MPI_Comm_size(r->comm, &h->size);
}

PetscErrorCode SceneReadBodiesFile(SceneReader *r, yaml_node_t *map, TalusBodies *b, SceneBodiesFile *f)
{
  yaml_node_t  *node;
  const char   *path;
  TalusH5Reader h;
  char          action[PETSC_MAX_PATH_LEN + 64];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(f, sizeof(*f)));
  f->node  = map;
  f->frame = -1;
  if (map->type != YAML_MAPPING_NODE)
    SceneError(r, map, "bodies_file must be a mapping {file, frame, group, material, mass}, got %s",
               SceneNodeKind(map));
  PetscCall(SceneCheckKeys(r, map, "bodies_file", file_keys));
  PetscCall(SceneRequireKey(r, map, "file", "bodies_file", &node));
  PetscCall(SceneGetString(r, node, "file", &path));
  if (strlen(path) >= sizeof(f->path))
    SceneError(r, node, "the file's path is longer than %d characters", (int)sizeof(f->path) - 1);
  PetscCall(PetscStrncpy(f->path, path, sizeof(f->path)));
  if ((node = SceneLookup(r, map, "frame"))) {
    PetscCall(SceneGetInt(r, node, "frame", &f->frame));
    if (f->frame < 0)
      SceneError(r, node, "frame must be >= 0 (a frame's number in frames.h5), got %" PetscInt_FMT, f->frame);
  }
  if ((node = SceneLookup(r, map, "group"))) {
    const char *group;
    PetscCall(SceneGetString(r, node, "group", &group));
    if (!group[0] || strlen(group) >= sizeof(f->group))
      SceneError(r, node, "group must be a name of 1 to %d characters", (int)sizeof(f->group) - 1);
    if (f->frame >= 0) SceneError(r, node, "give frame (of a frames file) or group, not both");
    PetscCall(PetscStrncpy(f->group, group, sizeof(f->group)));
  }
  PetscCall(SceneMaterialOf(r, map, b, &f->material));
  PetscCall(SceneMassOf(r, map, b, f->material, "the bodies of a file need", &f->mass));
  /* the rows: the length of the group's position dataset */
  ReaderInit(r, f, &h, action, sizeof(action));
  PetscCall(TalusH5Open(&h));
  FindGroup(&h, f->frame, f->group, sizeof(f->group));
  if (!h.bad) {
    hid_t   g = H5Gopen2(h.file, f->group, H5P_DEFAULT), set = -1, space = -1;
    hsize_t dims[2] = {0, 0};
    if (g < 0) TalusH5Fault(&h, "no group %s", f->group);
    else if (H5Lexists(g, "position", H5P_DEFAULT) <= 0) TalusH5Fault(&h, "no dataset position in group %s", f->group);
    else {
      set   = H5Dopen2(g, "position", H5P_DEFAULT);
      space = set >= 0 ? H5Dget_space(set) : -1;
      if (space < 0 || H5Sget_simple_extent_ndims(space) != 2 || H5Sget_simple_extent_dims(space, dims, NULL) < 0 ||
          dims[1] != 3)
        TalusH5Fault(&h, "dataset position of group %s is not rows of 3 values", f->group);
      f->rows = (double)dims[0];
    }
    if (space >= 0) H5Sclose(space);
    if (set >= 0) H5Dclose(set);
    if (g >= 0) H5Gclose(g);
  }
  PetscCall(TalusH5Verdict(&h));
  TalusH5Close(&h);
  if (f->rows < 1) SceneError(r, map, "%s has no rows in group %s", f->path, f->group);
  PetscFunctionReturn(0);
}

PetscErrorCode SceneReadBodiesFileRows(SceneReader *r, SceneBodiesFile *f, const TalusScene *scene, PetscInt first_id,
                                       TalusBodies *b)
{
  const PetscInt total = (PetscInt)f->rows;
  TalusH5Reader  h;
  char           action[PETSC_MAX_PATH_LEN + 64];
  PetscInt       offset, count, nmade = 0, first;
  PetscReal     *x, *size, *q, *v, *w;
  PetscInt64    *id;
  int           *shape, *fixed;
  PetscBool      has_q, has_v, has_w, has_omega, has_id, has_fixed, found;
  hid_t          g = -1;
  PetscInt       ndescribed, *described;
  PetscReal      extent = 0.0; /* the domain's largest side */

  PetscFunctionBegin;
  for (int d = 0; d < 3; d++) extent = PetscMax(extent, scene->domain_max[d] - scene->domain_min[d]);
  ReaderInit(r, f, &h, action, sizeof(action));
  offset = (PetscInt)((long long)total * h.rank / h.size);
  count  = (PetscInt)((long long)total * (h.rank + 1) / h.size) - offset;
  PetscCall(
    PetscMalloc5(3 * count + 1, &x, 3 * count + 1, &size, 4 * count + 1, &q, 3 * count + 1, &v, 3 * count + 1, &w));
  PetscCall(PetscMalloc3(count + 1, &id, count + 1, &shape, count + 1, &fixed));
  PetscCall(TalusH5Open(&h));
  if (!h.bad && (g = H5Gopen2(h.file, f->group, H5P_DEFAULT)) < 0) TalusH5Fault(&h, "no group %s", f->group);
  ReadRows(&h, g, "position", H5T_NATIVE_DOUBLE, total, 3, offset, count, x, PETSC_TRUE, &found);
  ReadRows(&h, g, "size", H5T_NATIVE_DOUBLE, total, 3, offset, count, size, PETSC_TRUE, &found);
  ReadRows(&h, g, "shape", H5T_NATIVE_INT, total, 1, offset, count, shape, PETSC_TRUE, &found);
  ReadRows(&h, g, "quaternion", H5T_NATIVE_DOUBLE, total, 4, offset, count, q, PETSC_FALSE, &has_q);
  ReadRows(&h, g, "velocity", H5T_NATIVE_DOUBLE, total, 3, offset, count, v, PETSC_FALSE, &has_v);
  ReadRows(&h, g, "angular_velocity", H5T_NATIVE_DOUBLE, total, 3, offset, count, w, PETSC_FALSE, &has_w);
  has_omega = PETSC_FALSE; /* a checkpoint's: in the body frame */
  if (!has_w) ReadRows(&h, g, "omega", H5T_NATIVE_DOUBLE, total, 3, offset, count, w, PETSC_FALSE, &has_omega);
  ReadRows(&h, g, "id", H5T_NATIVE_INT64, total, 1, offset, count, id, PETSC_FALSE, &has_id);
  ReadRows(&h, g, "fixed", H5T_NATIVE_INT, total, 1, offset, count, fixed, PETSC_FALSE, &has_fixed);
  if (g >= 0) H5Gclose(g);
  { /* a checkpoint's hulls and compounds: its descriptions, added here, and the rows' numbers of them mapped */
    TalusModuleSection section = {.r = &h, .version = PETSC_MAX_INT};
    PetscCall(TalusH5ReadShapeData(&section, &ndescribed, &described));
  }
  for (PetscInt k = 0; k < count && !h.bad; k++) { /* what the rows say, before any body is made */
    TalusShape  s;
    const char *why;
    char        what[200];
    if (EmptyRow(has_id, id, size, k)) continue;
    nmade++;
    if (!TalusShapeFromCode(shape[k], &s) || !TalusShapeTable[s].finite) {
      snprintf(what, sizeof(what), "row %d has shape code %d, not a finite shape's", (int)(offset + k), shape[k]);
      TalusH5Fault(&h, "%s", what);
    } else if (TalusShapeTable[s].size_len == 0 && /* its size names a description the file's run held */
               !TalusH5MapShapeNumber(ndescribed, described, &size[3 * k])) {
      snprintf(what, sizeof(what),
               "row %d is a %s whose description the file does not hold (a frames file's hulls and compounds: read "
               "them from a checkpoint of the run)",
               (int)(offset + k), TalusShapeTable[s].name);
      TalusH5Fault(&h, "%s", what);
    }
    if (!h.bad && TalusShapeFromCode(shape[k], &s) && TalusShapeTable[s].finite &&
        (why = TalusShapeTable[s].check_size(&size[3 * k]))) {
      snprintf(what, sizeof(what), "row %d: %s", (int)(offset + k), why);
      TalusH5Fault(&h, "%s", what);
    } else if (!h.bad && TalusShapeTable[s].size_len > 0 && !(has_fixed && fixed[k])) {
      /* a dynamic body that could not fit the domain: a size in other units (mm for m), or a row not a body's */
      const PetscReal reach = TalusShapeTable[s].bounding_radius(&size[3 * k]);
      if (PetscIsInfOrNanReal(reach)) {
        snprintf(what, sizeof(what), "row %d: a %s whose size is not finite", (int)(offset + k),
                 TalusShapeTable[s].name);
        TalusH5Fault(&h, "%s", what);
      } else if (!(reach <= 0.5 * extent)) {
        snprintf(what, sizeof(what), "row %d: a %s of bounding radius %g m, larger than the domain (%g m across)",
                 (int)(offset + k), TalusShapeTable[s].name, (double)reach, (double)extent);
        TalusH5Fault(&h, "%s", what);
      }
    }
    if (PetscIsInfOrNanReal(x[3 * k]) || PetscIsInfOrNanReal(x[3 * k + 1]) || PetscIsInfOrNanReal(x[3 * k + 2])) {
      snprintf(what, sizeof(what), "row %d: the position is not finite", (int)(offset + k));
      TalusH5Fault(&h, "%s", what);
    }
    if (has_q) { /* a zero or NaN turn is no orientation (it was taken as none, or reached the solver as NaN) */
      const PetscReal qq = q[4 * k] * q[4 * k] + q[4 * k + 1] * q[4 * k + 1] + q[4 * k + 2] * q[4 * k + 2] +
                           q[4 * k + 3] * q[4 * k + 3];
      if (!(qq > 1e-24) || PetscIsInfOrNanReal(qq)) {
        snprintf(what, sizeof(what), "row %d: the quaternion is zero or not finite", (int)(offset + k));
        TalusH5Fault(&h, "%s", what);
      }
    }
    for (int d = 0; d < 3; d++) /* a NaN speed was blamed on the solver's operator, steps later */
      if ((has_v && PetscIsInfOrNanReal(v[3 * k + d])) || ((has_w || has_omega) && PetscIsInfOrNanReal(w[3 * k + d]))) {
        snprintf(what, sizeof(what), "row %d: the velocity or the angular velocity is not finite", (int)(offset + k));
        TalusH5Fault(&h, "%s", what);
        break;
      }
  }
  {
    PetscErrorCode ierr = TalusH5Verdict(&h);
    TalusH5Close(&h);
    PetscCall(PetscFree(described));
    if (ierr) {
      PetscCall(PetscFree5(x, size, q, v, w));
      PetscCall(PetscFree3(id, shape, fixed));
    }
    PetscCall(ierr);
  }
  /* ids in row order over the ranks, the empty rows (a checkpoint's removed bodies) skipped */
  PetscCallMPI(MPI_Scan(&nmade, &first, 1, MPIU_INT, MPI_SUM, r->comm));
  first += first_id - nmade;
  f->bodies = first - first_id + nmade; /* on the last rank: all of them */
  PetscCallMPI(MPI_Bcast(&f->bodies, 1, MPIU_INT, h.size - 1, r->comm));
  PetscCall(TalusBodiesReserve(b, b->n + nmade + nmade / 4)); /* room for what the first distribution brings */
  for (PetscInt k = 0; k < count; k++) {
    TalusShape s;
    PetscInt   at;
    if (EmptyRow(has_id, id, size, k)) continue;
    (void)TalusShapeFromCode(shape[k], &s);
    PetscCall(TalusBodiesAdd(b, first++, s, &size[3 * k], f->mass, f->material, (PetscBool)(has_fixed && fixed[k]),
                             &x[3 * k], &at));
    if (has_q) {
      const PetscReal n = PetscSqrtReal(q[4 * k] * q[4 * k] + q[4 * k + 1] * q[4 * k + 1] +
                                        q[4 * k + 2] * q[4 * k + 2] + q[4 * k + 3] * q[4 * k + 3]);
      /* a run's quaternions are unit to rounding: kept as stored, so a saved state goes on bit for bit */
      const PetscReal scale = PetscAbsReal(n - 1.0) > 1e-12 ? n : 1.0;
      for (int d = 0; d < 4 && n > 0.0; d++) b->quaternion[4 * at + d] = q[4 * k + d] / scale;
    }
    if (b->fixed[at]) continue;
    for (int d = 0; d < 3 && has_v; d++) b->velocity[3 * at + d] = v[3 * k + d];
    if (has_omega)
      for (int d = 0; d < 3; d++) b->omega[3 * at + d] = w[3 * k + d];
    else if (has_w) { /* given in the world frame: into the body frame */ PetscReal A[9];
      TalusQuatToMatrix(&b->quaternion[4 * at], A);
      TalusRotateBack(A, &w[3 * k], &b->omega[3 * at]);
    }
  }
  /* the box of the bodies read, over all ranks (refused where it meets a generator's) */
  { /* lo and -hi, in one reduction */
    PetscReal box[6] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL};
    for (PetscInt k = b->n - nmade; k < b->n; k++)
      for (int d = 0; d < 3; d++) {
        box[d]     = PetscMin(box[d], b->position[3 * k + d] - TalusBodiesBoundingRadius(b, k));
        box[3 + d] = PetscMin(box[3 + d], -b->position[3 * k + d] - TalusBodiesBoundingRadius(b, k));
      }
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, box, 6, MPIU_REAL, MPIU_MIN, r->comm));
    for (int d = 0; d < 3; d++) f->box_lo[d] = box[d], f->box_hi[d] = -box[3 + d];
  }
  PetscCall(PetscFree5(x, size, q, v, w));
  PetscCall(PetscFree3(id, shape, fixed));
  if (!f->bodies) /* a run that silently goes on without its bed is worse than none */
    SceneError(r, f->node, "%s: all %.0f rows of group %s are empty (ids below 0 or sizes of zeros): no body to read",
               f->path, f->rows, f->group);
  PetscFunctionReturn(0);
}
