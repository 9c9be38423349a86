/*
 * The glyphs of bodies that frames.h5 draws as several (the shape table's glyph_parts: a compound's parts), in the
 * group frameNNNNNN/parts with the bodies' datasets (docs/outputs.md): each glyph's centre, orientation-and-size
 * tensor, shape, diameter and its point's velocity in the world frame, with its body's id and fixed flag. Rows are in
 * the order of the bodies' slots, each body's glyphs in the order of its description, so a frame is the same on any
 * number of ranks. A body that is drawn by its parts has a row of its own in the bodies' datasets too (its box about
 * the centroid), which scripts/view leaves out.
 */
#include "output_impl.h"
#include <talus/math3.h>

static PetscInt GlyphParts(const TalusBodies *b, PetscInt k)
{
  const TalusShapeOps *ops = &TalusShapeTable[b->shape[k]];

  return ops->glyph_parts ? ops->glyph_parts(&b->size[3 * k], -1, NULL, NULL, NULL, NULL) : 0;
}

static void CountParts(const TalusBodies *b, PetscInt k, PetscInt c[])
{
  c[0] = GlyphParts(b, k);
}

PetscErrorCode TalusFramePartsSetUp(TalusOutput out, const TalusBodies *b)
{
  PetscFunctionBegin;
  PetscCall(TalusFrameRowsSetUp(out, b, 1, CountParts, &out->parts));
  PetscFunctionReturn(0);
}

/* every_frame/part_vertices, the parts' Polyvertex connectivity, when there are parts */
PetscErrorCode TalusFramePartsWriteStatics(TalusOutput out, TalusH5Writer *w, hid_t every)
{
  const PetscInt nparts = TalusFrameRowsTotal(&out->parts, 0);

  PetscFunctionBegin;
  if (nparts > 0) PetscCall(TalusFramesWriteVertices(out, w, every, "part_vertices", nparts));
  PetscFunctionReturn(0);
}

/* frameNNNNNN/parts: this rank's bodies' glyphs at their rows */
PetscErrorCode TalusFramePartsWrite(TalusOutput out, TalusH5Writer *w, hid_t frame, const TalusBodies *b)
{
  const PetscInt nparts = TalusFrameRowsTotal(&out->parts, 0);
  PetscInt       n = 0, mine = 0, *row;
  PetscInt64    *id;
  PetscReal     *pos, *vel, *omega;
  float         *tensor, *diameter;
  int32_t       *shape, *fixed;

  PetscFunctionBegin;
  if (nparts == 0) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < b->nowned; k++) mine += GlyphParts(b, k);
  PetscCall(PetscMalloc5(mine + 1, &row, mine + 1, &id, 3 * mine + 1, &pos, 3 * mine + 1, &vel, 3 * mine + 1, &omega));
  PetscCall(PetscMalloc4(9 * mine + 1, &tensor, mine + 1, &diameter, mine + 1, &shape, mine + 1, &fixed));
  for (PetscInt k = 0; k < b->nowned; k++) {
    PetscInt  parts = GlyphParts(b, k), at;
    PetscReal A[9], w_world[3];

    if (parts == 0) continue;
    PetscCall(TalusFrameRowsPlace(&out->parts, b, k, &parts, &at));
    TalusQuatToMatrix(&b->quaternion[4 * k], A);
    TalusBodiesGetAngularVelocityWorld(b, k, w_world);
    for (PetscInt i = 0; i < parts; i++, n++) {
      TalusShape s;
      PetscReal  size[3], centre[3], q_part[4], q[4];

      TalusShapeTable[b->shape[k]].glyph_parts(&b->size[3 * k], i, &s, size, centre, q_part);
      TalusFramesBodyPoint(b, k, A, centre, &pos[3 * n], &vel[3 * n]);
      TalusQuatMultiply(&b->quaternion[4 * k], q_part, q);
      row[n] = out->parts.first[at] + i;
      id[n]  = b->id[k];
      for (int d = 0; d < 3; d++) omega[3 * n + d] = w_world[d];
      TalusFramesShapeTensor(q, s, size, &tensor[9 * n]);
      diameter[n] = (float)(2.0 * TalusShapeTable[s].bounding_radius(size));
      shape[n]    = (int32_t)TalusShapeTable[s].code;
      fixed[n]    = (int32_t)(b->fixed[k] != 0);
    }
  }
  {
    const TalusFrameDataset sets[] = {
      {"id",               H5T_NATIVE_INT64,  1, id      },
      {"position",         H5T_NATIVE_DOUBLE, 3, pos     },
      {"velocity",         H5T_NATIVE_DOUBLE, 3, vel     },
      {"angular_velocity", H5T_NATIVE_DOUBLE, 3, omega   },
      {"shape",            H5T_NATIVE_INT32,  1, shape   },
      {"fixed",            H5T_NATIVE_INT32,  1, fixed   },
      {"diameter",         H5T_NATIVE_FLOAT,  1, diameter},
      {"shape_tensor",     H5T_NATIVE_FLOAT,  9, tensor  },
    };
    PetscCall(TalusFramesWriteGroup(out, w, frame, "parts", nparts, n, row, sizeof(sets) / sizeof(sets[0]), sets));
  }
  PetscCall(PetscFree5(row, id, pos, vel, omega));
  PetscCall(PetscFree4(tensor, diameter, shape, fixed));
  PetscFunctionReturn(0);
}
