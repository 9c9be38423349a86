/*
 * The checkpoint's materials (docs/checkpoint-format.md): names, mu and density, seed 003's
 * relaxation (format 3), compliance (format 4), the Hertz modulus (format 5) and the pair friction
 * table, written by rank 0 and read whole by every rank, checked as a scene's are.
 */
#include "checkpoint_sections.h"

PetscErrorCode TalusCheckpointWriteMaterials(TalusH5Writer *w, const TalusBodies *b)
{
  const PetscInt nm = b->nmaterials, mine_m = w->rank == 0 ? nm : 0;
  PetscReal     *props;
  char          *names;
  hid_t          group;

  PetscFunctionBegin;
  group = H5Gcreate2(w->file, "materials", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  TalusH5Note(w, group, "materials");
  PetscCall(PetscMalloc2(8 * nm + 1, &props, 64 * nm + 1, &names)); /* mu, density; zeta, delta; K, B, grid; E* */
  for (PetscInt m = 0; m < nm; m++) {
    props[2 * m] = b->materials[m].mu, props[2 * m + 1] = b->materials[m].density;
    props[2 * (nm + m)] = b->materials[m].zeta, props[2 * (nm + m) + 1] = b->materials[m].delta;
    props[4 * nm + 3 * m] = b->materials[m].stiffness, props[4 * nm + 3 * m + 1] = b->materials[m].damping;
    props[4 * nm + 3 * m + 2] = (PetscReal)b->materials[m].grid;
    props[7 * nm + m]         = b->materials[m].modulus;
    PetscCall(PetscStrncpy(&names[64 * m], b->materials[m].name, 64));
  }
  if (group >= 0) {
    PetscCall(TalusH5WriteDataset(w, group, "mu_density", TALUS_H5_REAL, nm, 2, 0, mine_m, props));
    PetscCall(TalusH5WriteDataset(w, group, "relaxation", TALUS_H5_REAL, nm, 2, 0, mine_m, &props[2 * nm]));
    PetscCall(TalusH5WriteDataset(w, group, "compliance", TALUS_H5_REAL, nm, 3, 0, mine_m, &props[4 * nm]));
    PetscCall(TalusH5WriteDataset(w, group, "hertz", TALUS_H5_REAL, nm, 1, 0, mine_m, &props[7 * nm]));
    if (b->mu_pair)
      PetscCall(TalusH5WriteDataset(w, group, "mu_pair", TALUS_H5_REAL, nm, (int)nm, 0, mine_m, b->mu_pair));
    H5Gclose(group);
  }
  PetscCall(TalusH5WriteText(w, "materials/names", names, (size_t)(64 * nm)));
  PetscCall(PetscFree2(props, names));
  PetscFunctionReturn(0);
}

/* A stored material's values (what a scene checks): NULL, or the fault */
static const char *MaterialFault(const TalusMaterial *m)
{
  const PetscReal values[] = {m->mu, m->density, m->zeta, m->delta, m->stiffness, m->damping, m->modulus};

  for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
    if (!(values[i] >= 0.0 && values[i] < PETSC_INFINITY))
      return "a material's mu or density, or its relaxation or compliance, is not a finite number >= 0";
  if (m->grid < 0 || m->grid > TALUS_MAX_FOUNDATION_GRID || (m->grid > 0 && m->stiffness == 0.0) ||
      ((m->stiffness > 0.0 || m->modulus > 0.0) && m->delta > 0.0) || (m->stiffness > 0.0 && m->modulus > 0.0))
    return "a material's compliance is not valid (its foundation grid, or with a relaxation)";
  return NULL;
}

PetscErrorCode TalusCheckpointReadMaterials(TalusH5Reader *r, const TalusCheckpointInfo *info, TalusMaterial **out,
                                            PetscReal **mu_pair)
{
  const PetscInt nm = info->nmaterials;
  PetscReal     *props;
  char          *names = NULL;
  TalusMaterial *materials;
  const char    *fault;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(8 * nm + 1, &props)); /* mu, density; zeta, delta (3); K, B, grid (4); E* (5) */
  PetscCall(PetscCalloc1(nm * nm + 1, mu_pair));
  PetscCall(PetscCalloc1(nm + 1, &materials));
  PetscCall(TalusH5ReadDataset(r, "materials/mu_density", TALUS_H5_REAL, nm, 2, 0, nm, props, PETSC_FALSE));
  if (info->version >= 3)
    PetscCall(TalusH5ReadDataset(r, "materials/relaxation", TALUS_H5_REAL, nm, 2, 0, nm, &props[2 * nm], PETSC_FALSE));
  if (info->version >= 4)
    PetscCall(TalusH5ReadDataset(r, "materials/compliance", TALUS_H5_REAL, nm, 3, 0, nm, &props[4 * nm], PETSC_FALSE));
  if (info->version >= 5)
    PetscCall(TalusH5ReadDataset(r, "materials/hertz", TALUS_H5_REAL, nm, 1, 0, nm, &props[7 * nm], PETSC_FALSE));
  if (!r->bad && H5Lexists(r->file, "materials/mu_pair", H5P_DEFAULT) > 0)
    PetscCall(TalusH5ReadDataset(r, "materials/mu_pair", TALUS_H5_REAL, nm, (int)nm, 0, nm, *mu_pair, PETSC_FALSE));
  else PetscCall(PetscFree(*mu_pair));
  PetscCall(TalusH5ReadText(r, "materials/names", &names));
  for (PetscInt m = 0; m < nm && !r->bad; m++) {
    const PetscReal grid = props[4 * nm + 3 * m + 2];
    PetscCall(PetscStrncpy(materials[m].name, &names[64 * m], sizeof(materials[m].name)));
    materials[m].mu = props[2 * m], materials[m].density = props[2 * m + 1];
    materials[m].zeta = props[2 * (nm + m)], materials[m].delta = props[2 * (nm + m) + 1];
    materials[m].stiffness = props[4 * nm + 3 * m], materials[m].damping = props[4 * nm + 3 * m + 1];
    materials[m].grid = grid == PetscFloorReal(grid) && PetscAbsReal(grid) <= TALUS_MAX_FOUNDATION_GRID ? (PetscInt)grid
                                                                                                        : -1;
    materials[m].modulus = props[7 * nm + m];
    if ((fault = MaterialFault(&materials[m]))) TalusH5Fault(r, "%s", fault);
  }
  PetscCall(PetscFree(props));
  PetscCall(PetscFree(names));
  if (r->bad) {
    PetscCall(PetscFree(materials));
    PetscCall(PetscFree(*mu_pair));
  }
  *out = materials;
  PetscFunctionReturn(0);
}
