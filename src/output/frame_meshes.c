/*
 * The faces of bodies that frames.h5 draws as a surface (the shape table's glyph_mesh: a hull's triangulated faces):
 * every frame's group `faces` holds the corners in the world frame (`position`), each one's velocity (v + w x r), its
 * body's id and fixed flag, and every_frame/face_triangles the triangles (3 corner rows each, counterclockwise seen
 * from outside), written once. Rows are in the order of the bodies' slots, each body's corners and triangles in the
 * order of its description, so a frame is the same on any number of ranks.
 */
#include "output_impl.h"
#include <talus/math3.h>

static void CountMesh(const TalusBodies *b, PetscInt k, PetscInt c[])
{
  const TalusShapeOps *ops = &TalusShapeTable[b->shape[k]];
  const PetscReal     *v;
  const PetscInt      *t;

  if (ops->glyph_mesh) ops->glyph_mesh(&b->size[3 * k], &c[0], &v, &c[1], &t);
}

PetscErrorCode TalusFrameMeshesSetUp(TalusOutput out, const TalusBodies *b)
{
  PetscFunctionBegin;
  PetscCall(TalusFrameRowsSetUp(out, b, 2, CountMesh, &out->meshes));
  PetscFunctionReturn(0);
}

/* this rank's bodies with faces, and their rows: at[] their places among out->meshes' bodies */
static PetscErrorCode MeshBodies(TalusOutput out, const TalusBodies *b, PetscInt *n, PetscInt **body, PetscInt **at)
{
  PetscFunctionBegin;
  *n = 0;
  PetscCall(PetscMalloc2(b->nowned + 1, body, b->nowned + 1, at));
  for (PetscInt k = 0; k < b->nowned; k++) {
    PetscInt c[2] = {0, 0};
    CountMesh(b, k, c);
    if (c[1] == 0) continue;
    PetscCall(TalusFrameRowsPlace(&out->meshes, b, k, c, &(*at)[*n]));
    (*body)[(*n)++] = k;
  }
  PetscFunctionReturn(0);
}

/* every_frame/face_triangles, when there are faces: each rank writes its bodies' */
PetscErrorCode TalusFrameMeshesWriteStatics(TalusOutput out, TalusH5Writer *w, hid_t every, const TalusBodies *b)
{
  const PetscInt ntotal = TalusFrameRowsTotal(&out->meshes, 1);
  PetscInt       nbody, *body, *at, mine = 0, n = 0, *row;
  int32_t       *corner;

  PetscFunctionBegin;
  if (ntotal == 0) PetscFunctionReturn(0);
  PetscCall(MeshBodies(out, b, &nbody, &body, &at));
  for (PetscInt i = 0; i < nbody; i++) mine += out->meshes.first[2 * at[i] + 3] - out->meshes.first[2 * at[i] + 1];
  PetscCall(PetscMalloc2(mine + 1, &row, 3 * mine + 1, &corner));
  for (PetscInt i = 0; i < nbody; i++) {
    const PetscReal *v;
    const PetscInt  *t;
    PetscInt         nv, nt, k = body[i];

    TalusShapeTable[b->shape[k]].glyph_mesh(&b->size[3 * k], &nv, &v, &nt, &t);
    for (PetscInt f = 0; f < nt; f++, n++) {
      row[n] = out->meshes.first[2 * at[i] + 1] + f;
      for (int c = 0; c < 3; c++) corner[3 * n + c] = (int32_t)(out->meshes.first[2 * at[i]] + t[3 * f + c]);
    }
  }
  PetscCall(TalusFramesWriteRows(out, w, every, "face_triangles", H5T_NATIVE_INT32, ntotal, n, row, 3, corner));
  PetscCall(PetscFree2(row, corner));
  PetscCall(PetscFree2(body, at));
  PetscFunctionReturn(0);
}

/* frameNNNNNN/faces: this rank's bodies' corners at their rows */
PetscErrorCode TalusFrameMeshesWrite(TalusOutput out, TalusH5Writer *w, hid_t frame, const TalusBodies *b)
{
  const PetscInt nvtotal = TalusFrameRowsTotal(&out->meshes, 0);
  PetscInt       nbody, *body, *at, mine = 0, n = 0, *row;
  PetscInt64    *id;
  PetscReal     *pos, *vel;
  int32_t       *fixed;

  PetscFunctionBegin;
  if (TalusFrameRowsTotal(&out->meshes, 1) == 0) PetscFunctionReturn(0);
  PetscCall(MeshBodies(out, b, &nbody, &body, &at));
  for (PetscInt i = 0; i < nbody; i++) mine += out->meshes.first[2 * at[i] + 2] - out->meshes.first[2 * at[i]];
  PetscCall(PetscMalloc5(mine + 1, &row, mine + 1, &id, 3 * mine + 1, &pos, 3 * mine + 1, &vel, mine + 1, &fixed));
  for (PetscInt i = 0; i < nbody; i++) {
    const PetscReal *v;
    const PetscInt  *t;
    PetscInt         nv, nt, k = body[i];
    PetscReal        A[9];

    TalusShapeTable[b->shape[k]].glyph_mesh(&b->size[3 * k], &nv, &v, &nt, &t);
    TalusQuatToMatrix(&b->quaternion[4 * k], A);
    for (PetscInt c = 0; c < nv; c++, n++) {
      TalusFramesBodyPoint(b, k, A, &v[3 * c], &pos[3 * n], &vel[3 * n]);
      row[n]   = out->meshes.first[2 * at[i]] + c;
      id[n]    = b->id[k];
      fixed[n] = (int32_t)(b->fixed[k] != 0);
    }
  }
  {
    const TalusFrameDataset sets[] = {
      {"id",       H5T_NATIVE_INT64,  1, id   },
      {"position", H5T_NATIVE_DOUBLE, 3, pos  },
      {"velocity", H5T_NATIVE_DOUBLE, 3, vel  },
      {"fixed",    H5T_NATIVE_INT32,  1, fixed},
    };
    PetscCall(TalusFramesWriteGroup(out, w, frame, "faces", nvtotal, n, row, sizeof(sets) / sizeof(sets[0]), sets));
  }
  PetscCall(PetscFree5(row, id, pos, vel, fixed));
  PetscCall(PetscFree2(body, at));
  PetscFunctionReturn(0);
}
