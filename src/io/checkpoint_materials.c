/*
 * The checkpoint's materials (docs/checkpoint-format.md): names, mu and density, seed 003's
 * relaxation (format 3), compliance (format 4) and the pair friction table, written by rank 0.
 */
#include "checkpoint_impl.h"

PetscErrorCode TalusCheckpointWriteMaterials(TalusH5Writer *w, const TalusBodies *b)
{
  const PetscInt nm = b->nmaterials, mine_m = w->rank == 0 ? nm : 0;
  PetscReal     *props;
  char          *names;
  hid_t          group;

  PetscFunctionBegin;
  group = H5Gcreate2(w->file, "materials", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  TalusH5Note(w, group, "materials");
  PetscCall(PetscMalloc2(7 * nm + 1, &props, 64 * nm + 1, &names)); /* mu, density; zeta, delta; K, B, grid */
  for (PetscInt m = 0; m < nm; m++) {
    props[2 * m] = b->materials[m].mu, props[2 * m + 1] = b->materials[m].density;
    props[2 * (nm + m)] = b->materials[m].zeta, props[2 * (nm + m) + 1] = b->materials[m].delta;
    props[4 * nm + 3 * m] = b->materials[m].stiffness, props[4 * nm + 3 * m + 1] = b->materials[m].damping;
    props[4 * nm + 3 * m + 2] = (PetscReal)b->materials[m].grid;
    PetscCall(PetscStrncpy(&names[64 * m], b->materials[m].name, 64));
  }
  if (group >= 0) {
    PetscCall(TalusH5WriteDataset(w, group, "mu_density", TALUS_H5_REAL, nm, 2, 0, mine_m, props));
    PetscCall(TalusH5WriteDataset(w, group, "relaxation", TALUS_H5_REAL, nm, 2, 0, mine_m, &props[2 * nm]));
    PetscCall(TalusH5WriteDataset(w, group, "compliance", TALUS_H5_REAL, nm, 3, 0, mine_m, &props[4 * nm]));
    if (b->mu_pair)
      PetscCall(TalusH5WriteDataset(w, group, "mu_pair", TALUS_H5_REAL, nm, (int)nm, 0, mine_m, b->mu_pair));
    H5Gclose(group);
  }
  PetscCall(TalusH5WriteText(w, "materials/names", names, (size_t)(64 * nm)));
  PetscCall(PetscFree2(props, names));
  PetscFunctionReturn(0);
}
