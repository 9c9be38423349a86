/* The packed and flowing beds of the benchmarks (see packed_bed.h). */
#include "packed_bed.h"

/* nx x ny x nz spheres of radius 0.5 at spacing 1 from (0.5, 0.5, 0.5): each touches its neighbours */
static PetscErrorCode Lattice(MPI_Comm comm, PetscInt *n, PetscInt *nx, PetscInt *ny, TalusSim *sim, TalusBodies **b,
                              PetscInt *id)
{
  const PetscInt  side = PetscMax(2, (PetscInt)(PetscPowReal(*n / 2.0, 1.0 / 3.0) + 0.5));
  const PetscInt  nz   = PetscMax(1, *n / (side * side));
  const PetscReal r[3] = {0.5, 0.0, 0.0};
  PetscInt        material;

  PetscFunctionBegin;
  *nx = *ny = side;
  PetscCall(TalusSimCreate(comm, sim));
  PetscCall(TalusSimGetBodies(*sim, b));
  PetscCall(TalusBodiesAddMaterial(*b, "grain", 0.25, 0.0, &material));
  for (PetscInt k = 0; k < nz; k++)
    for (PetscInt j = 0; j < side; j++)
      for (PetscInt i = 0; i < side; i++) {
        const PetscReal x[3] = {0.5 + i, 0.5 + j, 0.5 + k};
        PetscCall(TalusBodiesAdd(*b, (*id)++, TALUS_SPHERE, r, 1.0, material, PETSC_FALSE, x, NULL));
      }
  PetscCall(TalusSimSetTimeStep(*sim, 0.01));
  PetscCall(TalusSimSetEnvelope(*sim, 0.05));
  PetscCall(TalusSimSetFinalTime(*sim, 1e9));
  *n = side * side * nz;
  PetscFunctionReturn(0);
}

PetscErrorCode TestPackedBedCreate(MPI_Comm comm, PetscInt *n, TalusSim *sim)
{
  const PetscReal g[3]          = {0.0, 0.0, -9.81};
  const PetscReal normals[5][3] = {
    {0,  0,  1},
    {1,  0,  0},
    {-1, 0,  0},
    {0,  1,  0},
    {0,  -1, 0}
  };
  TalusBodies *b;
  PetscInt     nx, ny, id = 5; /* the planes take ids 0-4 */

  PetscFunctionBegin;
  PetscCall(Lattice(comm, n, &nx, &ny, sim, &b, &id));
  {
    const PetscReal points[5][3] = {
      {0,             0,             0},
      {0,             0,             0},
      {(PetscReal)nx, 0,             0},
      {0,             0,             0},
      {0,             (PetscReal)ny, 0}
    };
    for (int p = 0; p < 5; p++)
      PetscCall(TalusBodiesAdd(b, p, TALUS_PLANE, normals[p], 0.0, 0, PETSC_TRUE, points[p], NULL));
  }
  PetscCall(TalusSimSetGravity(*sim, g));
  PetscFunctionReturn(0);
}

PetscErrorCode TestFlowingBedCreate(MPI_Comm comm, PetscInt *n, const PetscReal velocity[3], TalusSim *sim)
{
  const PetscReal g[3] = {0.0, 0.0, 0.0};
  TalusBodies    *b;
  PetscInt        nx, ny, id = 0;

  PetscFunctionBegin;
  PetscCall(Lattice(comm, n, &nx, &ny, sim, &b, &id));
  for (PetscInt k = 0; k < b->n; k++)
    for (int d = 0; d < 3; d++) b->velocity[3 * k + d] = velocity[d];
  PetscCall(TalusSimSetGravity(*sim, g));
  PetscFunctionReturn(0);
}
