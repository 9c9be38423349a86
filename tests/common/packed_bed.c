/* The packed bed of the benchmarks (see packed_bed.h). */
#include "packed_bed.h"

PetscErrorCode TestPackedBedCreate(MPI_Comm comm, PetscInt *n, TalusSim *sim)
{
  TalusBodies    *b;
  const PetscInt  side = PetscMax(2, (PetscInt)(PetscPowReal(*n / 2.0, 1.0 / 3.0) + 0.5));
  const PetscInt  nx = side, ny = side, nz = PetscMax(1, *n / (side * side));
  const PetscReal g[3] = {0.0, 0.0, -9.81}, r[3] = {0.5, 0.0, 0.0};
  const PetscReal normals[5][3] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
  const PetscReal points[5][3]  = {{0, 0, 0}, {0, 0, 0}, {(PetscReal)nx, 0, 0}, {0, 0, 0}, {0, (PetscReal)ny, 0}};
  PetscInt        material, id = 0;

  PetscFunctionBegin;
  PetscCall(TalusSimCreate(comm, sim));
  PetscCall(TalusSimGetBodies(*sim, &b));
  PetscCall(TalusBodiesAddMaterial(b, "grain", 0.25, 0.0, &material));
  for (int p = 0; p < 5; p++) PetscCall(TalusBodiesAdd(b, id++, TALUS_PLANE, normals[p], 0.0, material, PETSC_TRUE, points[p], NULL));
  for (PetscInt k = 0; k < nz; k++)
    for (PetscInt j = 0; j < ny; j++)
      for (PetscInt i = 0; i < nx; i++) {
        const PetscReal x[3] = {0.5 + i, 0.5 + j, 0.5 + k};
        PetscCall(TalusBodiesAdd(b, id++, TALUS_SPHERE, r, 1.0, material, PETSC_FALSE, x, NULL));
      }
  PetscCall(TalusSimSetGravity(*sim, g));
  PetscCall(TalusSimSetTimeStep(*sim, 0.01));
  PetscCall(TalusSimSetEnvelope(*sim, 0.05));
  PetscCall(TalusSimSetFinalTime(*sim, 1e9));
  *n = nx * ny * nz;
  PetscFunctionReturn(0);
}
