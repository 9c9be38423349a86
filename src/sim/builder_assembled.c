/*
 * The assembled builder of B (jacobian_builder.h), for cross-checking the matrix-free one: COO
 * triplets of every block assembled into an MPIAIJ matrix (TalusMatCreateCOO), the body-frame
 * angular velocities of seed 000 and a diagonal M^-1.
 */
#include "jacobian_builder.h"

static PetscErrorCode AssembledBeginBodies(TalusJacobianBuilder *jb, TalusStepCCP *ccp)
{
  const TalusSimBodySpace space = {
    .assembled = "the assembled B (-ccp_matrix_free false, -tao_type ipm or newton_ccp, FCLib step dumps)"};

  PetscFunctionBegin;
  PetscCall(TalusSimModulesBodySpace(jb->sim, &space)); /* a module that changes M^-1 refuses it */
  PetscCall(VecCreateMPI(jb->sim->comm, 6 * jb->sim->ndynamic, PETSC_DETERMINE, &ccp->inverse_mass));
  PetscCall(VecDuplicate(ccp->inverse_mass, &ccp->v_free));
  PetscCall(VecGetArray(ccp->inverse_mass, &jb->minv));
  PetscFunctionReturn(0);
}

static void AssembledAddBody(TalusJacobianBuilder *jb, PetscInt k, PetscInt d, PetscScalar v[6])
{
  const TalusBodies *b = jb->sim->bodies;

  (void)v;
  for (int j = 0; j < 3; j++) {
    jb->minv[d + j]     = 1.0 / b->mass[k];
    jb->minv[d + 3 + j] = 1.0 / b->inertia[3 * k + j];
  }
}

static PetscErrorCode AssembledEndBodies(TalusJacobianBuilder *jb, TalusStepCCP *ccp)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArray(ccp->inverse_mass, &jb->minv));
  PetscFunctionReturn(0);
}

/* Room for the COO entries of nblocks more blocks (the entries of the kinds before are kept). */
static PetscErrorCode AssembledBeginBlocks(TalusJacobianBuilder *jb, const TalusConstraintKind *kind, PetscInt nblocks)
{
  const PetscInt n = jb->ncoo + kind->max_entries * nblocks;
  PetscInt      *coo_i, *coo_j;
  PetscScalar   *coo_v;

  PetscFunctionBegin;
  jb->nblocks[kind->form] = nblocks;
  jb->nrows += kind->rows * nblocks;
  PetscCall(PetscMalloc3(n, &coo_i, n, &coo_j, n, &coo_v));
  if (jb->ncoo) {
    PetscCall(PetscArraycpy(coo_i, jb->coo_i, jb->ncoo));
    PetscCall(PetscArraycpy(coo_j, jb->coo_j, jb->ncoo));
    PetscCall(PetscArraycpy(coo_v, jb->coo_v, jb->ncoo));
  }
  PetscCall(PetscFree3(jb->coo_i, jb->coo_j, jb->coo_v));
  jb->coo_i = coo_i, jb->coo_j = coo_j, jb->coo_v = coo_v;
  PetscFunctionReturn(0);
}

static void AssembledAddBlock(TalusJacobianBuilder *jb, const TalusConstraintKind *kind, PetscInt index,
                              const void *block, PetscInt row)
{
  (void)index;
  jb->ncoo += kind->entries(jb->sim->bodies, block, row, &jb->coo_i[jb->ncoo], &jb->coo_j[jb->ncoo],
                            &jb->coo_v[jb->ncoo]);
}

static PetscErrorCode AssembledEnd(TalusJacobianBuilder *jb, TalusStepCCP *ccp)
{
  TalusSim sim = jb->sim;

  PetscFunctionBegin;
  PetscCall(TalusMatCreateCOO(sim->comm, jb->nrows, 6 * sim->ndynamic, PETSC_DETERMINE, PETSC_DETERMINE, jb->ncoo,
                              jb->coo_i, jb->coo_j, jb->coo_v, INSERT_VALUES, &ccp->B));
  PetscCall(PetscFree3(jb->coo_i, jb->coo_j, jb->coo_v));
  ccp->apply_inverse_mass = TalusInverseMassDiagonal, ccp->inverse_mass_ctx = ccp->inverse_mass;
  if (sim->size > 1) { /* off-rank columns of B: the velocities each product gathers from other ranks */
    Mat             Ad, Ao;
    const PetscInt *garray;
    PetscInt        nghost_columns;
    PetscCall(MatMPIAIJGetSeqAIJ(ccp->B, &Ad, &Ao, &garray));
    PetscCall(MatGetSize(Ao, NULL, &nghost_columns));
    ccp->bytes_per_product = 8.0 * nghost_columns;
  }
  PetscFunctionReturn(0);
}

static void AssembledGetBody(TalusBodies *b, PetscInt k, const PetscScalar v[6])
{
  for (int j = 0; j < 3; j++) b->velocity[3 * k + j] = v[j], b->omega[3 * k + j] = v[3 + j];
}

const TalusJacobianBuilderOps TalusJacobianBuilderAssembled = {
  .begin_bodies = AssembledBeginBodies,
  .add_body     = AssembledAddBody,
  .end_bodies   = AssembledEndBodies,
  .begin_blocks = AssembledBeginBlocks,
  .add_block    = AssembledAddBlock,
  .end          = AssembledEnd,
  .get_body     = AssembledGetBody,
};
