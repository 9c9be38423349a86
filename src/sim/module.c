/*
 * The modules' registry and their states in a simulation (include/talus/module.h): the step calls
 * TalusSimRunHook at its fixed points, TalusSimDestroy TalusSimDestroyModules. The registry is
 * global (like PETSc's type lists); each simulation keeps one state per registered module, indexed
 * as the registry is, made when first used.
 */
#include "sim_impl.h"
#include <talus/module.h>

#define MAX_MODULES 64

static const TalusSimModuleOps *modules[MAX_MODULES];
static PetscInt                 nmodules = 0;

PetscErrorCode TalusSimModuleRegister(const TalusSimModuleOps *ops)
{
  PetscFunctionBegin;
  PetscCheck(ops && ops->name, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "A module needs its record and its name");
  for (PetscInt m = 0; m < nmodules; m++) {
    if (modules[m] == ops) PetscFunctionReturn(0); /* registered already (TalusRegisterAll may run twice) */
    PetscCheck(strcmp(modules[m]->name, ops->name), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
               "A module named %s is registered already", ops->name);
  }
  PetscCheck(nmodules < MAX_MODULES, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "Too many modules (%d): raise MAX_MODULES in src/sim/module.c", MAX_MODULES);
  modules[nmodules++] = ops;
  PetscFunctionReturn(0);
}

/* Module m's state in sim, made zeroed on first use with the module's defaults (the array grows with the registry) */
static PetscErrorCode ModuleState(TalusSim sim, PetscInt m, void **state)
{
  PetscFunctionBegin;
  if (m >= sim->nmodule_states) {
    PetscCall(PetscRealloc(sizeof(void *) * nmodules, &sim->module_states));
    for (PetscInt k = sim->nmodule_states; k < nmodules; k++) sim->module_states[k] = NULL;
    sim->nmodule_states = nmodules;
  }
  if (!sim->module_states[m]) {
    PetscCall(PetscCalloc(PetscMax(modules[m]->state_size, 1), &sim->module_states[m]));
    if (modules[m]->create) PetscCall(modules[m]->create(sim, sim->module_states[m]));
  }
  *state = sim->module_states[m];
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetModuleState(TalusSim sim, const TalusSimModuleOps *ops, void **state)
{
  PetscFunctionBegin;
  for (PetscInt m = 0; m < nmodules; m++)
    if (modules[m] == ops) {
      PetscCall(ModuleState(sim, m, state));
      PetscFunctionReturn(0);
    }
  SETERRQ(sim->comm, PETSC_ERR_ORDER, "The module %s is not registered (TalusSimModuleRegister)",
          ops && ops->name ? ops->name : "(unnamed)");
}

PetscErrorCode TalusSimModulesSetFromOptions(TalusSim sim, PetscOptionItems *PetscOptionsObject)
{
  PetscFunctionBegin;
  for (PetscInt m = 0; m < nmodules; m++) {
    void *state;
    if (!modules[m]->set_from_options) continue;
    PetscCall(ModuleState(sim, m, &state));
    PetscCall(modules[m]->set_from_options(sim, state, PetscOptionsObject));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimRunHook(TalusSim sim, TalusSimHook hook)
{
  PetscFunctionBegin;
  for (PetscInt m = 0; m < nmodules; m++) {
    void *state;
    if (!modules[m]->hook[hook]) continue;
    PetscCall(ModuleState(sim, m, &state));
    PetscCall(modules[m]->hook[hook](sim, state));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimDestroyModules(TalusSim sim)
{
  PetscFunctionBegin;
  for (PetscInt m = 0; m < sim->nmodule_states; m++) {
    if (!sim->module_states[m]) continue;
    if (modules[m]->destroy) PetscCall(modules[m]->destroy(sim, sim->module_states[m]));
    PetscCall(PetscFree(sim->module_states[m]));
  }
  PetscCall(PetscFree(sim->module_states));
  sim->nmodule_states = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimModulesEnergy(TalusSim sim, PetscReal *energy)
{
  PetscFunctionBegin;
  *energy = 0.0;
  for (PetscInt m = 0; m < nmodules; m++) {
    void     *state;
    PetscReal e;
    if (!modules[m]->energy) continue;
    PetscCall(ModuleState(sim, m, &state));
    PetscCall(modules[m]->energy(sim, state, &e));
    *energy += e;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimModulesLinks(TalusSim sim, PetscInt *n, PetscInt (*pairs)[2])
{
  PetscFunctionBegin;
  *n = 0;
  for (PetscInt m = 0; m < nmodules; m++) {
    void    *state;
    PetscInt k;
    if (!modules[m]->links) continue;
    PetscCall(ModuleState(sim, m, &state));
    PetscCall(modules[m]->links(sim, state, &k, pairs ? pairs + *n : NULL));
    *n += k;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimModulesDescribe(TalusSim sim, PetscInt id, char what[], size_t size)
{
  PetscFunctionBegin;
  what[0] = 0;
  for (PetscInt m = 0; m < nmodules && !what[0]; m++) {
    void *state;
    if (!modules[m]->describe) continue;
    PetscCall(ModuleState(sim, m, &state));
    PetscCall(modules[m]->describe(sim, state, id, what, size));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimModulesBodySpace(TalusSim sim, const TalusSimBodySpace *space)
{
  PetscFunctionBegin;
  for (PetscInt m = 0; m < nmodules; m++) {
    void *state;
    if (!modules[m]->body_space) continue;
    PetscCall(ModuleState(sim, m, &state));
    PetscCall(modules[m]->body_space(sim, state, space));
  }
  PetscFunctionReturn(0);
}

/* The sections in the registry's order: the tables of time are read before the links that name them */
static PetscErrorCode ModulesCheckpoint(TalusSim sim, TalusModuleSection *section, PetscBool write)
{
  PetscFunctionBegin;
  for (PetscInt m = 0; m < nmodules; m++) {
    PetscErrorCode (*op)(TalusSim, void *, TalusModuleSection *) = write ? modules[m]->checkpoint_write
                                                                         : modules[m]->checkpoint_read;
    void *state;
    if (!op) continue;
    PetscCall(ModuleState(sim, m, &state));
    PetscCall(op(sim, state, section));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimModulesCheckpointWrite(TalusSim sim, TalusModuleSection *section)
{
  PetscFunctionBegin;
  PetscCall(ModulesCheckpoint(sim, section, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimModulesCheckpointRead(TalusSim sim, TalusModuleSection *section)
{
  PetscFunctionBegin;
  PetscCall(ModulesCheckpoint(sim, section, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/* The module of table k (those whose table_name gives a name, in the registry's order) and the name, or -1 */
static PetscErrorCode FindTable(TalusSim sim, PetscInt k, PetscInt *module, const char **name)
{
  PetscFunctionBegin;
  *module = -1, *name = NULL;
  for (PetscInt m = 0; m < nmodules && *module < 0; m++) {
    void       *state;
    const char *n = NULL;
    if (!modules[m]->table_name) continue;
    PetscCall(ModuleState(sim, m, &state));
    PetscCall(modules[m]->table_name(sim, state, &n));
    if (n && k-- == 0) *module = m, *name = n;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimModulesGetTable(TalusSim sim, PetscInt k, const char **name)
{
  PetscInt m;

  PetscFunctionBegin;
  PetscCall(FindTable(sim, k, &m, name));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimModulesWriteTable(TalusSim sim, PetscInt k, FILE *file, PetscBool header)
{
  PetscInt    m;
  const char *name;
  void       *state;

  PetscFunctionBegin;
  PetscCall(FindTable(sim, k, &m, &name));
  PetscCheck(m >= 0, sim->comm, PETSC_ERR_ARG_OUTOFRANGE, "no module table %" PetscInt_FMT, k);
  PetscCall(ModuleState(sim, m, &state));
  PetscCall(modules[m]->table_row(sim, state, file, header));
  PetscFunctionReturn(0);
}
