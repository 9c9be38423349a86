/*
 * The matrix-free builder of B (jacobian_builder.h): per block a record of jacobian_shell.c, per
 * owned dynamic body its block-diagonal M^-1 in the world frame, and body-space vectors with the
 * angular velocities in the world frame (omega_world = A omega_body, M^-1 = (1/m, A J^-1 A^T)).
 * The record and M^-1 arrays are kept in the simulator from step to step: fresh memory every step
 * costs page faults.
 */
#include "jacobian_builder.h"

/*
 * The body-space vector with these ghosts (global block indices): the last step's when no rank's ghosts or dofs
 * changed (a mechanism's never do), else a new one. Making one is a reduction and gathers for its layout, two
 * index sets on the communicator and a scatter that finds its partners (about 7 waits for every rank a step); the
 * check is one. Its entries are the last step's until the step writes them: v_free's own are all written
 * (FreeVelocity), its ghosts refreshed before each product with B.
 */
static PetscErrorCode BodyVector(TalusSim sim, PetscInt nghost, const PetscInt ghosts[], Vec *v)
{
  PetscInt *scalar_ghosts, same = 0; /* an integer: reduced with MPI_MIN */

  PetscFunctionBegin;
  if (sim->body_vector) { /* its dofs: this rank's range of its layout */
    PetscInt start, n;
    PetscCall(VecGetOwnershipRange(sim->body_vector, &start, NULL));
    PetscCall(VecGetLocalSize(sim->body_vector, &n));
    same = n == 6 * sim->ndynamic && start == sim->dof_start && nghost == sim->body_vector_nghost &&
           (nghost == 0 || !memcmp(ghosts, sim->body_vector_ghosts, (size_t)nghost * sizeof(PetscInt)));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPIU_INT, MPI_MIN, sim->comm));
  if (same) {
    *v               = sim->body_vector; /* the step's now: TalusSimKeepBodyVector hands it back */
    sim->body_vector = NULL;
    PetscFunctionReturn(0);
  }
  PetscCall(VecDestroy(&sim->body_vector));
  /* the ghosts as 6 scalars each, not blocks of 6: PETSc's SF compares a block's MPI datatype by unwrapping it
     (MPI_Type_get_contents) on every scatter, which cost a 1-body pendulum step more than its solve; the
     vector keeps block size 6 */
  PetscCall(PetscMalloc1(6 * nghost + 1, &scalar_ghosts));
  for (PetscInt g = 0; g < nghost; g++)
    for (PetscInt i = 0; i < 6; i++) scalar_ghosts[6 * g + i] = 6 * ghosts[g] + i;
  PetscCall(VecCreateGhost(sim->comm, 6 * sim->ndynamic, PETSC_DETERMINE, 6 * nghost, scalar_ghosts, v));
  PetscCall(VecSetBlockSize(*v, 6));
  PetscCall(PetscFree(scalar_ghosts));
  PetscCall(TalusGrowArray(sizeof(PetscInt), nghost, &sim->body_vector_capacity, &sim->body_vector_ghosts));
  if (nghost) PetscCall(PetscArraycpy(sim->body_vector_ghosts, ghosts, nghost));
  sim->body_vector_nghost = nghost;
  PetscFunctionReturn(0);
}

/* The step's body vector back to the simulator for the next step (the matrix-free form's; the assembled one's is
   plain and goes with the step) */
PetscErrorCode TalusSimKeepBodyVector(TalusSim sim, TalusStepCCP *ccp)
{
  PetscFunctionBegin;
  if (sim->builder != &TalusJacobianBuilderMatrixFree || !ccp->v_free) PetscFunctionReturn(0);
  PetscCall(VecDestroy(&sim->body_vector));
  sim->body_vector = ccp->v_free;
  ccp->v_free      = NULL;
  PetscFunctionReturn(0);
}

/*
 * The body-space vector: this rank's dynamic bodies, then, as ghosts (block 6), the other ranks'
 * dynamic bodies that its contacts and joint rows touch. slot[k] is body k's place in the local form (-1: fixed
 * or untouched ghost).
 */
static PetscErrorCode MatrixFreeBeginBodies(TalusJacobianBuilder *jb, TalusStepCCP *ccp)
{
  TalusSim     sim = jb->sim;
  TalusBodies *b   = sim->bodies;
  PetscInt    *ghosts, nghost = 0, *slot;

  PetscFunctionBegin;
  /* kept in the simulator after the assembly: the screened pairs' check reads v+ through it (step_screen.c) */
  PetscCall(TalusGrowArray(sizeof(PetscInt), b->n + 1, &sim->body_slot_capacity, &sim->body_slot));
  PetscCall(PetscMalloc1(b->n - b->nowned + 1, &ghosts));
  slot = jb->slot = sim->body_slot;
  for (PetscInt k = 0; k < b->n; k++)
    slot[k] = (k < b->nowned && b->dof[k] >= 0) ? (b->dof[k] - sim->dof_start) / 6 : -1;
  /* contacts, the screened ones too (their check reads v+ of both bodies), then joint rows */
  for (PetscInt c = 0; c < sim->contacts.n + sim->njoint_rows_local; c++) {
    const PetscBool joint   = (PetscBool)(c >= sim->contacts.n);
    const PetscInt  pair[2] = {joint ? sim->joint_rows[c - sim->contacts.n].a : sim->contacts.c[c].a,
                              joint ? sim->joint_rows[c - sim->contacts.n].b : sim->contacts.c[c].b};
    for (int side = 0; side < 2; side++) {
      const PetscInt k = pair[side];
      if (k < b->nowned || b->dof[k] < 0 || slot[k] >= 0) continue; /* owned, the world, fixed, or seen */
      slot[k]          = sim->ndynamic + nghost;
      ghosts[nghost++] = b->dof[k] / 6; /* global block index */
    }
  }
  PetscCall(BodyVector(sim, nghost, ghosts, &ccp->v_free));
  ccp->bytes_per_product = 48.0 * nghost;
  PetscCall(PetscFree(ghosts));
  /* M^-1 of the owned bodies (add_body) and of the ghosts, whose masses and orientations this rank
     holds: a block's diagonal block of N and Gauss-Seidel on body velocities need both */
  PetscCall(TalusGrowArray(TALUS_INVERSE_MASS * sizeof(PetscReal), sim->ndynamic + nghost, &sim->inverse_mass_capacity,
                           &sim->inverse_mass));
  for (PetscInt k = b->nowned; k < b->n; k++) {
    PetscReal A[9];
    if (slot[k] < 0) continue;
    TalusQuatToMatrix(&b->quaternion[4 * k], A);
    TalusInverseMassRecord(b->mass[k], &b->inertia[3 * k], A, &sim->inverse_mass[TALUS_INVERSE_MASS * slot[k]]);
  }
  PetscFunctionReturn(0);
}

static void MatrixFreeAddBody(TalusJacobianBuilder *jb, PetscInt k, PetscInt d, PetscScalar v[6])
{
  const TalusBodies *b = jb->sim->bodies;
  PetscReal          A[9], w[3] = {v[3], v[4], v[5]};

  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  TalusRotate(A, w, &v[3]);
  TalusInverseMassRecord(b->mass[k], &b->inertia[3 * k], A, &jb->sim->inverse_mass[TALUS_INVERSE_MASS * (d / 6)]);
}

/* the modules' changes of the body space (the planar bodies' free velocities and M^-1), once every body's
   is in place */
static PetscErrorCode MatrixFreeEndBodies(TalusJacobianBuilder *jb, TalusStepCCP *ccp)
{
  TalusSimBodySpace space = {.slot = jb->slot, .inverse_mass = jb->sim->inverse_mass, .wrench = jb->sim->wrench};

  PetscFunctionBegin;
  PetscCall(VecGetArray(ccp->v_free, &space.v_free));
  PetscCall(TalusSimModulesBodySpace(jb->sim, &space));
  PetscCall(VecRestoreArray(ccp->v_free, &space.v_free));
  PetscFunctionReturn(0);
}

/* Room for the blocks of a kind: the contacts' records and kinds (their lengths), or the free
   rows' records, each kept in the simulator from step to step. */
static PetscErrorCode MatrixFreeBeginBlocks(TalusJacobianBuilder *jb, const TalusConstraintKind *kind, PetscInt nblocks)
{
  TalusSim sim = jb->sim;

  PetscFunctionBegin;
  jb->nblocks[kind->form] = nblocks;
  jb->nrows += kind->rows * nblocks;
  if (kind->form == TALUS_BLOCK_ROW) {
    if (nblocks > sim->joint_record_capacity) {
      PetscCall(PetscFree2(sim->joint_record, sim->joint_record_slot));
      sim->joint_record_capacity = TalusGrowCapacity(sim->joint_record_capacity, nblocks);
      PetscCall(PetscMalloc2(kind->max_record * sim->joint_record_capacity, &sim->joint_record,
                             2 * sim->joint_record_capacity, &sim->joint_record_slot));
    }
    PetscFunctionReturn(0);
  }
  if (nblocks > sim->jacobian_capacity) {
    PetscCall(PetscFree3(sim->jacobian_slot, sim->jacobian_kind, sim->jacobian));
    sim->jacobian_capacity = TalusGrowCapacity(sim->jacobian_capacity, nblocks);
    PetscCall(PetscMalloc3(2 * sim->jacobian_capacity, &sim->jacobian_slot, sim->jacobian_capacity, &sim->jacobian_kind,
                           kind->max_record * sim->jacobian_capacity, &sim->jacobian));
  }
  jb->offset = 0;
  PetscFunctionReturn(0);
}

static void MatrixFreeAddBlock(TalusJacobianBuilder *jb, const TalusConstraintKind *kind, PetscInt index,
                               const void *block, PetscInt row)
{
  TalusSim sim = jb->sim;

  (void)row;
  if (kind->form == TALUS_BLOCK_ROW) {
    (void)kind->record(sim->bodies, block, jb->slot, &sim->joint_record_slot[2 * index],
                       &sim->joint_record[TALUS_JACOBIAN_ROW * index]);
    return;
  }
  {
    const PetscInt length     = kind->record(sim->bodies, block, jb->slot, &sim->jacobian_slot[2 * index],
                                             &sim->jacobian[jb->offset]);
    sim->jacobian_kind[index] = (char)length;
    jb->offset += length;
  }
}

static PetscErrorCode MatrixFreeEnd(TalusJacobianBuilder *jb, TalusStepCCP *ccp)
{
  TalusSim    sim = jb->sim;
  PetscLayout rows, columns; /* q's and the body vector's: set up already, without communication */

  PetscFunctionBegin;
  PetscCall(VecGetLayout(ccp->q, &rows));
  PetscCall(VecGetLayout(ccp->v_free, &columns));
  PetscCall(TalusJacobianCreateShell(rows, columns, jb->nblocks[TALUS_BLOCK_CONE], jb->nblocks[TALUS_BLOCK_ROW],
                                     sim->ndynamic, sim->jacobian_slot, sim->jacobian_kind, sim->jacobian,
                                     sim->joint_record_slot, sim->joint_record, sim->inverse_mass, &ccp->B));
  if (sim->rank_order) PetscCall(TalusJacobianSetFaces(ccp->B, sim->contacts.c, sim->body_vector_ghosts));
  {
    const TalusSimBodySpace space = {.B = ccp->B}; /* the modules' changes of M^-1 (planar bodies) */
    PetscCall(TalusSimModulesBodySpace(sim, &space));
  }
  jb->slot                = NULL; /* the simulator's (body_slot) */
  ccp->apply_inverse_mass = TalusJacobianApplyInverseMass, ccp->inverse_mass_ctx = ccp->B;
  PetscFunctionReturn(0);
}

/* back to the body frame of seed 000: omega_body = A^T omega_world */
static void MatrixFreeGetBody(TalusBodies *b, PetscInt k, const PetscScalar v[6])
{
  PetscReal A[9];

  for (int j = 0; j < 3; j++) b->velocity[3 * k + j] = v[j];
  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  TalusRotateBack(A, &v[3], &b->omega[3 * k]);
}

/* body k's velocity at S (world) from v+'s local form, ghosts included: the entries are world-frame */
static void MatrixFreePointVelocity(TalusSim sim, const PetscScalar *v_local, PetscInt k, const PetscReal S[3],
                                    PetscReal out[3])
{
  const PetscScalar *v    = &v_local[6 * sim->body_slot[k]];
  const PetscReal    w[3] = {PetscRealPart(v[3]), PetscRealPart(v[4]), PetscRealPart(v[5])};
  PetscReal          wxS[3];

  TalusCross3(w, S, wxS);
  for (int d = 0; d < 3; d++) out[d] = PetscRealPart(v[d]) + wxS[d];
}

const TalusJacobianBuilderOps TalusJacobianBuilderMatrixFree = {
  .begin_bodies   = MatrixFreeBeginBodies,
  .add_body       = MatrixFreeAddBody,
  .end_bodies     = MatrixFreeEndBodies,
  .begin_blocks   = MatrixFreeBeginBlocks,
  .add_block      = MatrixFreeAddBlock,
  .end            = MatrixFreeEnd,
  .get_body       = MatrixFreeGetBody,
  .point_velocity = MatrixFreePointVelocity,
};
