/*
 * A body's shape and size (SceneShapeOf), and the descriptions of a scene's hulls and compounds
 * (docs/scene-format.md, "Hulls and compounds"): a hull's `vertices` as a list of points or {file: PATH} (a text
 * file, three numbers a line), a compound's `parts` as a
 * list of shapes with a position and a rotation in the body's frame. Each is added to the table of
 * include/talus/shape_data.h, and a refused one is reported at its line, naming the body and the field.
 */
#include "scene_reader.h"
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <talus/shape_data.h>
#include <talus/math3.h>

PetscErrorCode SceneRotationOf(SceneReader *r, yaml_node_t *node, PetscReal q[4])
{
  PetscReal axis_angle[4], n;

  PetscFunctionBegin;
  PetscCall(SceneGetVector(r, node, "rotation (axis x, y, z, angle in degrees)", 4, axis_angle));
  n = TalusNorm3(axis_angle);
  if (n == 0.0) SceneError(r, node, "rotation axis must not be zero");
  q[0] = PetscCosReal(0.5 * axis_angle[3] * PETSC_PI / 180.0);
  for (int d = 0; d < 3; d++) q[1 + d] = PetscSinReal(0.5 * axis_angle[3] * PETSC_PI / 180.0) * axis_angle[d] / n;
  PetscFunctionReturn(0);
}

/* A text file of points, three numbers a line (commas or blanks between them; '#' starts a comment), read on
   every rank (the table must be the same on all). A regular file only, read up to one point more than a hull
   takes: a directory, a device or a pipe (which may never end) is refused before it is read. */
static PetscErrorCode ReadPointsFile(SceneReader *r, yaml_node_t *node, const char path[], PetscInt *n,
                                     PetscReal **points)
{
  struct stat st;
  FILE       *fp;
  char        line[1024];
  PetscInt    capacity = 64, lineno = 0;

  PetscFunctionBegin;
  if (stat(path, &st) != 0) SceneError(r, node, "vertices file \"%s\" cannot be opened: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode))
    SceneError(r, node, "vertices file \"%s\" is %s, not a file of points", path,
               S_ISDIR(st.st_mode) ? "a directory" : "not a regular file (a device or a pipe)");
  fp = fopen(path, "r");
  if (!fp) SceneError(r, node, "vertices file \"%s\" cannot be opened: %s", path, strerror(errno));
  *n = 0;
  PetscCall(PetscMalloc1(3 * capacity, points));
  while (fgets(line, sizeof(line), fp)) {
    double x[3];
    int    used = 0;
    char  *hash = strchr(line, '#'), *p = line;
    lineno++;
    if (hash) *hash = 0;
    for (char *c = line; *c; c++)
      if (*c == ',') *c = ' ';
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    if (!*p) continue;
    if (sscanf(p, "%lf %lf %lf %n", &x[0], &x[1], &x[2], &used) != 3 || p[used]) {
      fclose(fp);
      PetscCall(PetscFree(*points));
      SceneError(r, node, "vertices file \"%s\", line %d: expected three numbers x y z%s", path, (int)lineno,
                 used && p[used] ? ", got more" : "");
    }
    if (*n > TALUS_MAX_HULL_VERTICES) {
      fclose(fp);
      PetscCall(PetscFree(*points));
      SceneError(r, node, "vertices file \"%s\": more than %d points (a hull takes 4 to %d vertices)", path,
                 TALUS_MAX_HULL_VERTICES, TALUS_MAX_HULL_VERTICES);
    }
    if (*n == capacity) {
      PetscReal *grown;
      PetscCall(PetscMalloc1(6 * capacity, &grown));
      PetscCall(PetscArraycpy(grown, *points, 3 * capacity));
      PetscCall(PetscFree(*points));
      *points = grown, capacity *= 2;
    }
    for (int d = 0; d < 3; d++) (*points)[3 * *n + d] = x[d];
    (*n)++;
  }
  fclose(fp);
  PetscFunctionReturn(0);
}

/* "body 5", or a generator's (body -1) */
static void Who(PetscInt body, char who[48])
{
  if (body >= 0) snprintf(who, 48, "body %d", (int)body);
  else snprintf(who, 48, "the generator's grains");
}

static PetscErrorCode ReadHull(SceneReader *r, yaml_node_t *node, PetscInt body, PetscReal size[3])
{
  PetscReal *points = NULL;
  PetscInt   n      = 0, index;
  char       why[256], resolved[PETSC_MAX_PATH_LEN], who[48];

  PetscFunctionBegin;
  Who(body, who);
  if (node->type == YAML_MAPPING_NODE) {
    static const char *const keys[] = {"file", NULL};
    yaml_node_t             *file;
    const char              *path;
    PetscCall(SceneCheckKeys(r, node, "a hull's vertices file", keys));
    PetscCall(SceneRequireKey(r, node, "file", "a hull's vertices", &file));
    PetscCall(SceneGetString(r, file, "file", &path));
    if (path[0] != '/' && strrchr(r->file, '/')) { /* relative to the scene file's folder */
      const size_t folder = (size_t)(strrchr(r->file, '/') - r->file) + 1;
      if (folder + strlen(path) >= sizeof(resolved)) SceneError(r, file, "vertices file path \"%s\" is too long", path);
      PetscCall(PetscStrncpy(resolved, r->file, folder + 1));
      PetscCall(PetscStrlcat(resolved, path, sizeof(resolved)));
      path = resolved;
    }
    PetscCall(ReadPointsFile(r, file, path, &n, &points));
  } else if (node->type == YAML_SEQUENCE_NODE) {
    const PetscInt count = (PetscInt)(node->data.sequence.items.top - node->data.sequence.items.start);
    PetscCall(PetscMalloc1(3 * count, &points));
    for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++, n++)
      PetscCall(SceneGetVector(r, yaml_document_get_node(&r->doc, *it), "a vertex [x, y, z]", 3, &points[3 * n]));
  } else SceneError(r, node, "%s: vertices must be a list of points [x, y, z] or {file: PATH}", who);
  PetscCall(TalusShapeDataAddHull(n, points, &index, why, sizeof(why)));
  PetscCall(PetscFree(points));
  if (index < 0) SceneError(r, node, "%s (a hull): vertices: %s", who, why);
  size[0] = (PetscReal)index, size[1] = (PetscReal)TalusShapeDataGet(index)->n;
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadCompound(SceneReader *r, yaml_node_t *node, PetscInt body, PetscReal size[3])
{
  TalusShapePart *parts;
  const char     *keys[3 + 2 * TALUS_NSHAPES + 1];
  PetscInt        n = 0, index, count;
  char            why[256], who[48];

  PetscFunctionBegin;
  Who(body, who);
  keys[0] = "shape", keys[1] = "position", keys[2] = "rotation";
  SceneAddSizeKeys(keys, 3);
  if (node->type != YAML_SEQUENCE_NODE || node->data.sequence.items.top == node->data.sequence.items.start)
    SceneError(r, node, "%s: parts must be a list of {shape, its size, position, rotation}", who);
  count = (PetscInt)(node->data.sequence.items.top - node->data.sequence.items.start);
  PetscCall(PetscCalloc1(count, &parts));
  for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++, n++) {
    yaml_node_t *part = yaml_document_get_node(&r->doc, *it), *rot, *pos;
    if (part->type != YAML_MAPPING_NODE) SceneError(r, part, "%s: part %d must be a mapping", who, (int)n);
    PetscCall(SceneCheckKeys(r, part, "a compound's part", keys));
    PetscCall(SceneShapeOf(r, part, body, n, &parts[n].shape, parts[n].size));
    if (parts[n].shape == TALUS_HULL || parts[n].shape == TALUS_COMPOUND || !TalusShapeTable[parts[n].shape].finite)
      SceneError(r, part, "%s: part %d is a %s: a part is a sphere, box, cylinder or capsule", who, (int)n,
                 TalusShapeTable[parts[n].shape].name);
    parts[n].quaternion[0] = 1.0;
    if ((pos = SceneLookup(r, part, "position"))) PetscCall(SceneGetVector(r, pos, "position", 3, parts[n].position));
    if ((rot = SceneLookup(r, part, "rotation"))) PetscCall(SceneRotationOf(r, rot, parts[n].quaternion));
  }
  PetscCall(TalusShapeDataAddCompound(n, parts, &index, why, sizeof(why)));
  PetscCall(PetscFree(parts));
  if (index < 0) SceneError(r, node, "%s (a compound): parts: %s", who, why);
  size[0] = (PetscReal)index, size[1] = (PetscReal)n;
  PetscFunctionReturn(0);
}

PetscErrorCode SceneReadDescription(SceneReader *r, yaml_node_t *node, TalusShape shape, PetscInt body,
                                    PetscReal size[3])
{
  PetscFunctionBegin;
  if (shape == TALUS_HULL) PetscCall(ReadHull(r, node, body, size));
  else PetscCall(ReadCompound(r, node, body, size));
  PetscFunctionReturn(0);
}

/* The size keys of every shape, s in [0, 2 TALUS_NSHAPES): shape s / 2's first (even s) or second; NULL for none */
static const char *SizeKey(int s)
{
  return s % 2 ? TalusShapeTable[s / 2].size_key2 : TalusShapeTable[s / 2].size_key;
}

void SceneAddSizeKeys(const char *keys[], PetscInt n)
{
  for (int s = 0; s < 2 * TALUS_NSHAPES; s++) {
    const char *key  = SizeKey(s);
    PetscBool   seen = (PetscBool)!key;
    for (PetscInt k = 0; k < n && !seen; k++) seen = (PetscBool)!strcmp(keys[k], key);
    if (!seen) keys[n++] = key;
  }
  keys[n] = NULL;
}

/* A body's shape and size from the keys of its mapping: the shape's table entry names its size key. */
PetscErrorCode SceneShapeOf(SceneReader *r, yaml_node_t *map, PetscInt body, PetscInt part, TalusShape *shape,
                            PetscReal size[3])
{
  yaml_node_t         *node, *size_node;
  const char          *name, *invalid;
  const TalusShapeOps *ops;
  char                 names[128], who[64] = ""; /* a compound's part: which */

  PetscFunctionBegin;
  if (part >= 0) {
    Who(body, who);
    PetscCall(PetscSNPrintf(who + strlen(who), sizeof(who) - strlen(who), ", part %d: ", (int)part));
  }
  PetscCall(SceneRequireKey(r, map, "shape", "a body", &node));
  PetscCall(SceneGetString(r, node, "shape", &name));
  if (!TalusShapeFromName(name, shape)) {
    PetscCall(TalusShapeNames(names, sizeof(names)));
    SceneError(r, node, "%sunknown shape \"%s\" (expected %s)", who, name, names);
  }
  ops     = &TalusShapeTable[*shape];
  size[0] = size[1] = size[2] = 0.0;
  for (int s = 0; s < 2 * TALUS_NSHAPES; s++) { /* another shape's size key: a mistake, not a key to ignore */
    const char  *key = SizeKey(s);
    yaml_node_t *other;
    if (!key || !strcmp(key, ops->size_key) || (ops->size_key2 && !strcmp(key, ops->size_key2))) continue;
    if ((other = SceneLookup(r, map, key)))
      SceneError(r, other, "%sa %s takes %s%s%s, not %s", who, ops->name, ops->size_key, ops->size_key2 ? " and " : "",
                 ops->size_key2 ? ops->size_key2 : "", key);
  }
  PetscCall(SceneRequireKey(r, map, ops->size_key, ops->name, &size_node));
  if (ops->size_len == 0) { /* a description: a hull's vertices, a compound's parts */
    PetscReal reach;
    PetscCall(SceneReadDescription(r, size_node, *shape, body, size));
    /* SI units, as a size below: a body reaching beyond 1e12 m overflows its mass and inertia, and its gaps are
       rounded by metres (a hull 1e20 m across "overlapped" a plane it touched by 24,576 m) */
    if (!((reach = ops->bounding_radius(size)) <= 1e12))
      SceneError(r, size_node, "%sthe %s reaches %g m from its centroid, beyond 1e12 (talus works in SI units)", who,
                 ops->name, (double)reach);
    PetscFunctionReturn(0);
  }
  if (ops->size_len == 3) PetscCall(SceneGetVector(r, size_node, ops->size_key, 3, size));
  else PetscCall(SceneGetNumber(r, size_node, ops->size_key, &size[0]));
  if (ops->size_len == 2) { /* a second number under its own key (a cylinder's half_length) */
    yaml_node_t *second;
    PetscCall(SceneRequireKey(r, map, ops->size_key2, ops->name, &second));
    PetscCall(SceneGetNumber(r, second, ops->size_key2, &size[1]));
  }
  /* SI units: an entry beyond 1e12 (or a nonzero one below 1e-12) overflows or underflows a mass, an
     inertia or a normal's length, which would be reported as something else further on */
  for (int d = 0; d < ops->size_len; d++)
    if (size[d] != 0.0 && !(PetscAbsReal(size[d]) >= 1e-12 && PetscAbsReal(size[d]) <= 1e12))
      SceneError(r, size_node, "%s%s %g is outside 1e-12 .. 1e12 (talus works in SI units%s)", who,
                 ops->size_len == 2 && d == 1 ? ops->size_key2 : ops->size_key, (double)size[d], ops->size_hint);
  if ((invalid = ops->check_size(size))) {
    if (ops->size_len == 1) SceneError(r, size_node, "%s%s, got %g", who, invalid, (double)size[0]);
    if (ops->size_len == 2)
      SceneError(r, size_node, "%s%s, got %g and %g", who, invalid, (double)size[0], (double)size[1]);
    SceneError(r, size_node, "%s%s, got (%g, %g, %g)", who, invalid, (double)size[0], (double)size[1], (double)size[2]);
  }
  PetscFunctionReturn(0);
}
