/*
 * frames.h5's datasets as frames.c, frame_parts.c and frame_meshes.c write them: rows at given places, written
 * collectively by every rank (parallel HDF5), the Polyvertex connectivity, a glyph's shape tensor and a body's points,
 * and the table of the bodies that have rows of their own in a frame's group.
 */
#include "output_impl.h"
#include <talus/math3.h>

/* A group of a frame (or of every_frame) that every rank has made, or the ranks stop together */
PetscErrorCode TalusFramesCreateGroup(TalusOutput out, TalusH5Writer *w, hid_t parent, const char name[], hid_t *group)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", out->dir, out->frames_name));
  *group = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  TalusH5Note(w, *group, name);
  PetscCall(TalusH5Agree(w, path));
  PetscFunctionReturn(0);
}

/* A group of a frame with these datasets of `total` rows, this rank's n rows at rows[k] */
PetscErrorCode TalusFramesWriteGroup(TalusOutput out, TalusH5Writer *w, hid_t frame, const char name[], PetscInt total,
                                     PetscInt n, const PetscInt rows[], size_t nsets, const TalusFrameDataset sets[])
{
  hid_t group;

  PetscFunctionBegin;
  PetscCall(TalusFramesCreateGroup(out, w, frame, name, &group));
  for (size_t s = 0; s < nsets; s++)
    PetscCall(
      TalusFramesWriteRows(out, w, group, sets[s].name, sets[s].type, total, n, rows, sets[s].width, sets[s].data));
  H5Gclose(group);
  PetscFunctionReturn(0);
}

/* the collective write of a dataset made by the caller (a failure noted in w), and the release of its spaces */
static void WriteAndClose(TalusH5Writer *w, hid_t dset, hid_t type, hid_t memspace, hid_t filespace, const void *data,
                          const char name[])
{
  hid_t xfer = H5Pcreate(H5P_DATASET_XFER);

  H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
  if (dset >= 0) {
    TalusH5Note(w, H5Dwrite(dset, type, memspace, filespace, xfer, data), name);
    H5Dclose(dset);
  }
  H5Sclose(memspace);
  H5Sclose(filespace);
  H5Pclose(xfer);
}

static hid_t FileType(hid_t memtype)
{
  if (H5Tequal(memtype, H5T_NATIVE_DOUBLE) > 0) return H5T_IEEE_F64LE;
  if (H5Tequal(memtype, H5T_NATIVE_FLOAT) > 0) return H5T_IEEE_F32LE;
  if (H5Tequal(memtype, H5T_NATIVE_INT32) > 0) return H5T_STD_I32LE;
  return H5T_STD_I64LE;
}

/*
 * One dataset of a frame: `total` rows of `width`, this rank writing its n rows at rows slot[k];
 * rows nobody writes (bodies removed from the run) keep the fill value (-1 for integers, NaN for
 * reals). The ranks agree on the outcome before the next collective call.
 */
PetscErrorCode TalusFramesWriteRows(TalusOutput out, TalusH5Writer *w, hid_t group, const char name[], hid_t type,
                                    PetscInt total, PetscInt n, const PetscInt slot[], PetscInt width, const void *data)
{
  hsize_t dims[2] = {(hsize_t)total, (hsize_t)width}, count = (hsize_t)(n * width), one = 1;
  hid_t   filespace = H5Screate_simple(width > 1 ? 2 : 1, dims, NULL), memspace, dcpl = H5Pcreate(H5P_DATASET_CREATE),
        dset;
  hsize_t         *coords;
  char             path[PETSC_MAX_PATH_LEN];
  const PetscInt64 fill_i64 = -1;
  const int32_t    fill_i32 = -1;
  const double     fill_f64 = NAN;
  const float      fill_f32 = NAN;
  const hid_t      filetype = FileType(type);

  PetscFunctionBegin;
  H5Pset_fill_value(dcpl, type,
                    filetype == H5T_IEEE_F64LE   ? (const void *)&fill_f64
                    : filetype == H5T_IEEE_F32LE ? (const void *)&fill_f32
                    : filetype == H5T_STD_I32LE  ? (const void *)&fill_i32
                                                 : (const void *)&fill_i64);
  dset = H5Dcreate2(group, name, filetype, filespace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  TalusH5Note(w, dset, name);
  PetscCall(PetscMalloc1(2 * n * width + 1, &coords));
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt c = 0; c < width; c++) {
      if (width > 1) {
        coords[2 * (k * width + c)]     = (hsize_t)slot[k];
        coords[2 * (k * width + c) + 1] = (hsize_t)c;
      } else coords[k] = (hsize_t)slot[k];
    }
  memspace = H5Screate_simple(1, n ? &count : &one, NULL);
  if (n) H5Sselect_elements(filespace, H5S_SELECT_SET, (size_t)(n * width), coords);
  else {
    H5Sselect_none(filespace);
    H5Sselect_none(memspace);
  }
  WriteAndClose(w, dset, type, memspace, filespace, data, name);
  H5Pclose(dcpl);
  PetscCall(PetscFree(coords));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", out->dir, out->frames_name));
  PetscCall(TalusH5Agree(w, path));
  PetscFunctionReturn(0);
}

/* every_frame/NAME = 0, 1, ..., total - 1: the Polyvertex connectivity of every frame (vertices: the bodies'). Each
   rank writes its share as one hyperslab (no rank holds the whole list: 3e7 bodies are 120 MB); the ranks agree on
   the outcome. */
PetscErrorCode TalusFramesWriteVertices(TalusOutput out, TalusH5Writer *w, hid_t every, const char name[],
                                        PetscInt total)
{
  PetscMPIInt size;
  hsize_t     dims = (hsize_t)total, start, count;
  int32_t    *v;
  hid_t       filespace, memspace, dset;
  char        path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(out->comm, &size));
  start = (hsize_t)(total * (PetscInt64)out->rank / size);
  count = (hsize_t)(total * (PetscInt64)(out->rank + 1) / size) - start;
  PetscCall(PetscMalloc1(count + 1, &v));
  for (hsize_t k = 0; k < count; k++) v[k] = (int32_t)(start + k);
  filespace = H5Screate_simple(1, &dims, NULL);
  memspace  = H5Screate_simple(1, count ? &count : &dims, NULL);
  if (count) H5Sselect_hyperslab(filespace, H5S_SELECT_SET, &start, NULL, &count, NULL);
  else {
    H5Sselect_none(filespace);
    H5Sselect_none(memspace);
  }
  dset = H5Dcreate2(every, name, H5T_STD_I32LE, filespace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  TalusH5Note(w, dset, name);
  WriteAndClose(w, dset, H5T_NATIVE_INT32, memspace, filespace, v, name);
  PetscCall(PetscFree(v));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", out->dir, out->frames_name));
  PetscCall(TalusH5Agree(w, path));
  PetscFunctionReturn(0);
}

/*
 * The shape tensor of a glyph of this shape, size and orientation q, column-major as VTK reads a tensor: column j
 * is the body's axis j in the world frame times the body's full extent along it (a box's edge, a sphere's diameter), so
 * that a Tensor Glyph of a unit cube or a unit-diameter sphere, with eigenvalue extraction off,
 * is the body in place.
 */
void TalusFramesShapeTensor(const PetscReal q[4], TalusShape shape, const PetscReal size[3], float T[9])
{
  PetscReal A[9], extent[3];

  TalusQuatToMatrix(q, A);
  TalusShapeTable[shape].glyph_extent(size, extent);
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++) T[3 * j + i] = (float)(A[3 * i + j] * extent[j]);
}

/* Every rank learns the slots of the bodies with rows of their own in a frame's group (a compound's parts, a hull's
   corners and faces) and where each one's rows start: one gather of (slot, counts) at the start of a run (slots and
   shapes do not change in it) */
PetscErrorCode TalusFrameRowsSetUp(TalusOutput out, const TalusBodies *b, PetscInt width,
                                   void (*count)(const TalusBodies *, PetscInt k, PetscInt c[]), TalusFrameRows *rows)
{
  const PetscInt rec = 1 + width;
  PetscInt      *mine, nmine = 0, *all, *perm, c[TALUS_FRAME_ROWS_MAX_WIDTH];
  PetscMPIInt   *counts, *displs, nrec;

  PetscFunctionBegin;
  PetscCheck(width >= 1 && width <= TALUS_FRAME_ROWS_MAX_WIDTH, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "row sets: %" PetscInt_FMT, width);
  PetscCall(TalusFrameRowsDestroy(rows));
  rows->width = width;
  PetscCall(PetscMalloc1(rec * b->nowned + 1, &mine));
  for (PetscInt k = 0; k < b->nowned; k++) {
    PetscBool any = PETSC_FALSE;
    for (PetscInt j = 0; j < width; j++) c[j] = 0;
    if (TalusBodiesIsFinite(b, k)) count(b, k, c);
    for (PetscInt j = 0; j < width; j++) any = (PetscBool)(any || c[j] > 0);
    if (!any) continue;
    mine[rec * nmine] = b->slot[k];
    for (PetscInt j = 0; j < width; j++) mine[rec * nmine + 1 + j] = c[j];
    nmine++;
  }
  PetscCall(PetscMalloc2(out->size, &counts, out->size + 1, &displs));
  PetscCall(PetscMPIIntCast(rec * nmine, &nrec));
  PetscCallMPI(MPI_Allgather(&nrec, 1, MPI_INT, counts, 1, MPI_INT, out->comm));
  displs[0] = 0;
  for (PetscMPIInt r = 0; r < out->size; r++) {
    PetscCheck(displs[r] <= PETSC_MPI_INT_MAX - counts[r], out->comm, PETSC_ERR_SUP,
               "frames.h5: more bodies drawn by parts or faces than one gather holds");
    displs[r + 1] = displs[r] + counts[r];
  }
  rows->nbodies = displs[out->size] / rec;
  PetscCall(PetscMalloc1(displs[out->size] + 1, &all));
  PetscCallMPI(MPI_Allgatherv(mine, nrec, MPIU_INT, all, counts, displs, MPIU_INT, out->comm));
  PetscCall(PetscMalloc2(rows->nbodies + 1, &rows->slot, width * (rows->nbodies + 1), &rows->first));
  PetscCall(PetscMalloc1(rows->nbodies + 1, &perm));
  for (PetscInt i = 0; i < rows->nbodies; i++) rows->slot[i] = all[rec * i], perm[i] = i;
  PetscCall(PetscSortIntWithArray(rows->nbodies, rows->slot, perm));
  for (PetscInt j = 0; j < width; j++) {
    PetscInt total = 0; /* each body's first row: the counts of the bodies before it */
    for (PetscInt i = 0; i < rows->nbodies; i++) {
      rows->first[width * i + j] = total;
      total += all[rec * perm[i] + 1 + j];
    }
    rows->first[width * rows->nbodies + j] = total;
  }
  PetscCall(PetscFree(perm));
  PetscCall(PetscFree(all));
  PetscCall(PetscFree2(counts, displs));
  PetscCall(PetscFree(mine));
  PetscFunctionReturn(0);
}

/* the size of row set j (0 before the set-up) */
PetscInt TalusFrameRowsTotal(const TalusFrameRows *rows, PetscInt j)
{
  return rows->first ? rows->first[rows->width * rows->nbodies + j] : 0;
}

/* Body k's place among rows' bodies (*at), checked against its counts c[] now: a body whose rows were not counted at
   the run's start (a shape that changed) is an error of the program */
PetscErrorCode TalusFrameRowsPlace(const TalusFrameRows *rows, const TalusBodies *b, PetscInt k, const PetscInt c[],
                                   PetscInt *at)
{
  PetscBool same;

  PetscFunctionBegin;
  PetscCall(PetscFindInt(b->slot[k], rows->nbodies, rows->slot, at));
  same = (PetscBool)(*at >= 0);
  for (PetscInt j = 0; same && j < rows->width; j++)
    same = (PetscBool)(rows->first[rows->width * (*at + 1) + j] - rows->first[rows->width * *at + j] == c[j]);
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "frames.h5: body %" PetscInt64_FMT " does not have the rows it had at the run's start",
             (PetscInt64)b->id[k]);
  PetscFunctionReturn(0);
}

/* Point p of body k (p in the body's frame, A its rotation): where it is and how fast it moves, in the world */
void TalusFramesBodyPoint(const TalusBodies *b, PetscInt k, const PetscReal A[9], const PetscReal p[3], PetscReal x[3],
                          PetscReal v[3])
{
  PetscReal offset[3];

  TalusRotate(A, p, offset);
  TalusBodyPointVelocity(b, k, offset, v);
  for (int d = 0; d < 3; d++) x[d] = b->position[3 * k + d] + offset[d];
}

PetscErrorCode TalusFrameRowsDestroy(TalusFrameRows *rows)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(rows->slot, rows->first));
  rows->nbodies = 0;
  PetscFunctionReturn(0);
}
