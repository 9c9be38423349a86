/*
 * Where a scene's bodies start (docs/scene-format.md): inside the domain, and not overlapping by
 * more than overlap_tolerance, checked on each rank over the bodies it holds, every fault agreed
 * over the ranks so that all report the same one, whatever their number.
 */
#include "scene_reader.h"
#include <limits.h>

/*
 * A fault that only the ranks holding some bodies see (generated spheres are on one rank each):
 * every rank raises the one with the lowest key, in the words of the rank that found it, so the
 * message is the same whatever the number of ranks. key < 0: none here.
 */
static PetscErrorCode AgreeFault(SceneReader *r, yaml_node_t *where, long key, char msg[], size_t len)
{
  struct {
    long key;
    int  rank;
  } mine = {key < 0 ? LONG_MAX : key, 0}, first;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(r->comm, &mine.rank));
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_LONG_INT, MPI_MINLOC, r->comm));
  if (first.key == LONG_MAX) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)len, MPI_CHAR, first.rank, r->comm));
  SceneError(r, where, "%s", msg);
  PetscFunctionReturn(0);
}

/* "7 (the cylinder \"wheel\")": a body's id, shape and name (when it has one) for messages */
static void Describe(SceneReader *r, const TalusBodies *b, PetscInt k, char text[], size_t len)
{
  const char *name = NULL;

  for (PetscInt e = 0; r->names && e < r->names->n && !name; e++)
    if (r->names->entry[e].id == b->id[k]) name = r->names->entry[e].name;
  if (name) snprintf(text, len, "%d (the %s \"%s\")", (int)b->id[k], TalusShapeTable[b->shape[k]].name, name);
  else snprintf(text, len, "%d (a %s)", (int)b->id[k], TalusShapeTable[b->shape[k]].name);
}

/* The size of the numbers a gap between bodies i and j is computed from: their finite positions and reaches */
static PetscReal RoundingScale(const TalusBodies *b, PetscInt i, PetscInt j)
{
  PetscReal scale = 0.0;

  for (int s = 0; s < 2; s++) {
    const PetscInt k = s ? j : i;
    if (TalusShapeTable[b->shape[k]].finite) /* a plane reaches everywhere */
      scale = PetscMax(scale, TalusShapeTable[b->shape[k]].bounding_radius(&b->size[3 * k]));
    for (int d = 0; d < 3; d++) scale = PetscMax(scale, PetscAbsReal(b->position[3 * k + d]));
  }
  return scale;
}

/* Bodies i and j of b (not both fixed) as a fault with key, unless they may start where they are */
static PetscErrorCode PairFault(SceneReader *r, TalusBodies *b, PetscInt i, PetscInt j, PetscReal tolerance, long key,
                                long *fault, char msg[], size_t len)
{
  const char      *si = TalusShapeTable[b->shape[i]].name, *sj = TalusShapeTable[b->shape[j]].name;
  const PetscInt   lo      = PetscMin(b->id[i], b->id[j]);
  TalusContactList list    = {0};
  PetscReal        deepest = 0.0;
  char             first[128], second[128];

  PetscFunctionBegin;
  if (*fault >= 0 && *fault <= key) PetscFunctionReturn(0);
  if (!TalusShapePairSupported(b->shape[i], b->shape[j])) {
    *fault = key;
    PetscCall(PetscSNPrintf(msg, len,
                            "bodies %" PetscInt_FMT " and %" PetscInt_FMT
                            " (a %s and a %s) start within reach of each other: %s-%s contact is not supported",
                            b->id[i], b->id[j], si, sj, si, sj));
    PetscFunctionReturn(0);
  }
  PetscCall(TalusCollidePair(b, i, j, 0.0, &list));
  for (PetscInt c = 0; c < list.n; c++) deepest = PetscMin(deepest, list.c[c].phi);
  PetscCall(TalusContactListDestroy(&list));
  /* a gap computed from coordinates of size S is only known to a few eps S: two bodies 1e20 m across that touch
     "overlap" by 1e4 m of rounding, which is no overlap to report */
  if (!(deepest < -(tolerance + 64.0 * PETSC_MACHINE_EPSILON * RoundingScale(b, i, j)))) PetscFunctionReturn(0);
  *fault = key;
  Describe(r, b, b->id[i] == lo ? i : j, first, sizeof(first));
  Describe(r, b, b->id[i] == lo ? j : i, second, sizeof(second));
  PetscCall(PetscSNPrintf(msg, len,
                          "bodies %s and %s overlap by %g m, more than the tolerance %g, at the start: move one (its "
                          "position; a rig's wheel starts above its bed) or raise the scene key overlap_tolerance (a "
                          "bed settled with the contacts' near-rigid floor rests about h^2 |g| / (4 pi^2) deeper per "
                          "weight carried)",
                          first, second, (double)-deepest, (double)tolerance));
  PetscFunctionReturn(0);
}

/*
 * Bodies must start inside the domain and without overlapping each other, checked on each rank over
 * the bodies it holds: the listed ones (every rank has them: ids 0 .. nlisted-1, first in b) with each
 * other and with the generated spheres that come near the listed finite ones (a broad phase over
 * those only), and every listed plane with every generated sphere directly. Two generated spheres
 * cannot overlap: a generator places its own apart, and generators whose boxes meet are refused.
 */
PetscErrorCode SceneCheckPlacement(SceneReader *r, yaml_node_t *where, TalusSim sim, const TalusScene *scene)
{
  TalusBodies    *b, *near;
  PetscInt        npairs, *pairs, *place, nplanes = 0, *planes;
  long            fault = -1;
  char            msg[400];
  const long      pair_faults = 1L << 62, span = 1L << 31; /* outside the domain first, then by ids */
  const PetscReal tol     = scene->overlap_tolerance;
  PetscReal       lo[3]   = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL},
            hi[3]         = {-PETSC_MAX_REAL, -PETSC_MAX_REAL, -PETSC_MAX_REAL};
  PetscBool listed_finite = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  for (PetscInt k = 0; k < b->n; k++) {
    PetscBool inside = PETSC_TRUE;
    if (!TalusBodiesIsFinite(b, k) || (fault >= 0 && fault <= b->id[k])) continue;
    for (int d = 0; d < 3; d++)
      inside &= (PetscBool)(b->position[3 * k + d] >= scene->domain_min[d] &&
                            b->position[3 * k + d] <= scene->domain_max[d]);
    if (inside) continue;
    fault = b->id[k];
    PetscCall(PetscSNPrintf(msg, sizeof(msg),
                            "body %" PetscInt_FMT
                            " (a %s at %g, %g, %g) is outside the domain [%g, %g] x [%g, %g] x [%g, %g]",
                            b->id[k], TalusShapeTable[b->shape[k]].name, (double)b->position[3 * k],
                            (double)b->position[3 * k + 1], (double)b->position[3 * k + 2],
                            (double)scene->domain_min[0], (double)scene->domain_max[0], (double)scene->domain_min[1],
                            (double)scene->domain_max[1], (double)scene->domain_min[2], (double)scene->domain_max[2]));
  }
  PetscCall(AgreeFault(r, where, fault, msg, sizeof(msg)));
  /* the box of the listed finite bodies, and the listed planes */
  PetscCall(PetscMalloc2(b->n + 1, &place, r->nlisted + 1, &planes));
  for (PetscInt k = 0; k < r->nlisted; k++) {
    const PetscReal reach = TalusBodiesBoundingRadius(b, k) + tol;
    if (!TalusBodiesIsFinite(b, k)) planes[nplanes++] = k;
    if (!TalusBodiesIsFinite(b, k)) continue;
    listed_finite = PETSC_TRUE;
    for (int d = 0; d < 3; d++) {
      lo[d] = PetscMin(lo[d], b->position[3 * k + d] - reach);
      hi[d] = PetscMax(hi[d], b->position[3 * k + d] + reach);
    }
  }
  /* near: the listed bodies and the generated spheres within that box; each generated sphere against
     each plane (its centre nearer the plane than its radius) */
  PetscCall(TalusBodiesCreate(&near)); /* its geometry only: the narrow phase runs on b, at place[] */
  for (PetscInt k = 0; k < b->n; k++) {
    const PetscReal *y = &b->position[3 * k], radius = TalusBodiesBoundingRadius(b, k);
    PetscBool        meets = (PetscBool)(k < r->nlisted || listed_finite);
    for (int d = 0; d < 3 && k >= r->nlisted && meets; d++)
      meets = (PetscBool)(y[d] + radius >= lo[d] && y[d] - radius <= hi[d]);
    if (meets) {
      TalusBodyRecord record;
      TalusBodiesPack(b, k, &record);
      place[near->n] = k;
      PetscCall(TalusBodiesAppendRecord(near, &record));
    }
    for (PetscInt p = 0; p < nplanes && k >= r->nlisted; p++) {
      const PetscReal *n = &b->size[3 * planes[p]], *x = &b->position[3 * planes[p]];
      if (n[0] * (y[0] - x[0]) + n[1] * (y[1] - x[1]) + n[2] * (y[2] - x[2]) - radius < -tol)
        PetscCall(
          PairFault(r, b, planes[p], k, tol, pair_faults + planes[p] * span + b->id[k], &fault, msg, sizeof(msg)));
    }
  }
  PetscCall(TalusBroadPhasePairs(near, 0.0, &npairs, &pairs));
  for (PetscInt p = 0; p < npairs; p++) {
    const PetscInt i = pairs[2 * p], j = pairs[2 * p + 1];
    const PetscInt a = PetscMin(near->id[i], near->id[j]), c = PetscMax(near->id[i], near->id[j]);
    /* two generated spheres, or a plane and a generated sphere (checked above): skipped */
    if ((near->fixed[i] && near->fixed[j]) || (c >= r->nlisted && (a >= r->nlisted || !TalusBodiesIsFinite(b, a))))
      continue;
    PetscCall(PairFault(r, b, place[i], place[j], tol, pair_faults + a * span + c, &fault, msg, sizeof(msg)));
  }
  PetscCall(PetscFree(pairs));
  PetscCall(PetscFree2(place, planes));
  PetscCall(TalusBodiesDestroy(&near));
  PetscCall(AgreeFault(r, where, fault, msg, sizeof(msg)));
  PetscFunctionReturn(0);
}
