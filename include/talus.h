/*
 * talus: distributed rigid-body dynamics with frictional contact posed as a cone
 * complementarity problem (CCP) and solved by accelerated projected gradient descent.
 *
 * The solver-level API: it names no body, shape or simulator, and the solver layer (src/solver/)
 * is built against it alone. The simulator's API is in include/talus/ (sim.h, scene.h, output.h,
 * checkpoint.h, bodies.h, contacts.h, math3.h), each of which includes what it needs. The pieces
 * declared here:
 *   - TalusInitialize / TalusFinalize: PETSc start-up plus registration of what talus adds.
 *   - The Tao type "apgd" (TAOAPGD) and its TaoAPGD* setters; the Tao type "nbgs" (TAONBGS).
 *   - The feasible set of a contact problem (friction cones, non-negative and free rows) and its projection.
 *   - TalusCCP: one cone complementarity problem u = N r + q over that set, solved by any Tao type
 *     registered for it (apgd for friction; TAO's bound-constrained types for frictionless sets).
 *   - FCLib local problems read and written with parallel HDF5.
 */
#ifndef TALUS_H
#define TALUS_H

#include <petsctao.h>
#include <talus/lcp.h>

PETSC_EXTERN PetscErrorCode TalusInitialize(int *argc, char ***argv, const char help[]);
PETSC_EXTERN PetscErrorCode TalusFinalize(void);
/* Registers everything talus adds to PETSc (TalusInitialize calls it); the solver layer alone: */
PETSC_EXTERN PetscErrorCode TalusRegisterAll(void);
/* the Tao type apgd, the contact problem's variants and solver attachments, the solver's log events */
PETSC_EXTERN PetscErrorCode TalusSolverRegisterAll(void);

/*
 * The vector instructions of the kernels (the cone projection, apgd's passes, the matrix-free B's products):
 * 8 lanes with AVX-512, 4 with AVX2 (the projection, apgd's passes and the Coulomb shift), 1 for scalar code, as
 * the processor has them and `-simd` allows (read by TalusCCPSetFromOptions; false: scalar code only). Every
 * kernel's wide form gives the scalar code's bits, so the switch changes times, never results. TalusSIMDEnable
 * sets it from a program.
 */
PETSC_EXTERN PetscInt TalusSIMDWidth(void);
PETSC_EXTERN void     TalusSIMDEnable(PetscBool);
/* At most this many lanes (8, 4 or 1): an AVX-512 processor runs the AVX2 code, as a processor without AVX-512
   would (the tests compare it with the scalar code) */
PETSC_EXTERN void TalusSIMDSetWidth(PetscInt);

/* ---------------------------------------------------------------- the Tao type "apgd" */

#define TAOAPGD "apgd"

/*
 * Projection onto the feasible set, which must be a product of sets that each lie within one
 * rank's rows, in blocks of bs consecutive rows (friction cones: bs = 3): the solver hands over
 * the local entries [start, start + n) of a vector, start a multiple of bs, n a multiple of bs or
 * reaching the end of the local rows, and out[i] = Pi_C(in)[i] must come back. out may be in.
 * Local sets are what let apgd fuse each projection into the vector pass that needs it.
 */
typedef PetscErrorCode (*TaoAPGDProjectionFn)(Tao tao, PetscInt start, PetscInt n, const PetscScalar in[],
                                              PetscScalar out[], void *ctx);

/*
 * Change of the linear term between iterations (the anti-relaxation of seed 001, lines 33-37).
 * Called for each accepted iterate x with its gradient g = N x + r, in the same blocks as the
 * projection: the callback changes the linear term r of its own objective on the local entries
 * [start, start + n) and writes the change (r_new - r_old) of every one of them into dr, so that
 * the solver keeps its gradients consistent without another product with N.
 */
typedef PetscErrorCode (*TaoAPGDLinearTermUpdateFn)(Tao tao, PetscInt start, PetscInt n, const PetscScalar x[],
                                                    const PetscScalar g[], PetscScalar dr[], void *ctx);

PETSC_EXTERN PetscErrorCode TaoCreate_APGD(Tao);
PETSC_EXTERN PetscErrorCode TaoAPGDSetProjection(Tao, PetscInt bs, TaoAPGDProjectionFn, void *);
PETSC_EXTERN PetscErrorCode TaoAPGDSetLinearTermUpdate(Tao, TaoAPGDLinearTermUpdateFn, void *);
PETSC_EXTERN PetscErrorCode TaoAPGDSetResidualStep(Tao, PetscReal);
PETSC_EXTERN PetscErrorCode TaoAPGDSetResidualWeights(Tao, Vec);
PETSC_EXTERN PetscErrorCode TaoAPGDGetStatistics(Tao, PetscInt *restarts, PetscInt *backtracks,
                                                 PetscInt *best_iteration, PetscReal *lipschitz);
PETSC_EXTERN PetscErrorCode TaoAPGDGetResidualStep(Tao, PetscReal *);
/* Frees apgd's work vectors (6 of the problem's size) until the next solve makes them again: for a
   solver kept between problems whose size changes anyway, e.g. the time steps of a simulation. */
PETSC_EXTERN PetscErrorCode TaoAPGDReleaseWorkVectors(Tao);

/* ---------------------------------------------------------------- the residual's norm */

/*
 * The norm of seed 001 eq. 39's residual that talus's Tao types (apgd, nbgs, ipm, newton_ccp) report and
 * stop on (-tao_residual_norm): MAX, the largest of the row blocks' 2-norms (a contact's triplet, a
 * joint's row), so that -tao_gatol bounds every contact whatever their number (the default); 2, the
 * 2-norm over all rows (seed 001's). TAO's own types are left as they are (their gradient's 2-norm).
 */
typedef enum {
  TAO_RESIDUAL_NORM_MAX,
  TAO_RESIDUAL_NORM_2
} TaoResidualNorm;
PETSC_EXTERN const char *const TaoResidualNorms[];
PETSC_EXTERN PetscErrorCode    TalusTaoSetResidualNorm(Tao, TaoResidualNorm);
PETSC_EXTERN PetscErrorCode    TalusTaoGetResidualNorm(Tao, TaoResidualNorm *);

/* ---------------------------------------------------------------- the feasible set */

/*
 * The feasible set of a contact problem as row blocks, in this order among each rank's rows:
 *   - friction cones of 3 rows (normal, tangent u, tangent w), K_i = {||(u, w)|| <= mu_i n}
 *     (seed 000 eq. 10a), one entry of mu per cone, mu distributed like the cones;
 *   - nnonneg_local rows that must be >= 0 (unilateral constraints, e.g. joint limits);
 *   - nfree_local rows left free (bilateral constraints, e.g. joints: their cone is R, seed 000 eq. 12).
 */
typedef struct {
  Vec      mu;
  PetscInt nnonneg_local;
  PetscInt nfree_local;
} TalusFeasibleSet;

/* The rows the set spans on this rank: 3 per cone plus the non-negative and free rows. */
PETSC_EXTERN PetscErrorCode TalusFeasibleSetGetLocalSize(const TalusFeasibleSet *, PetscInt *);
/* Euclidean projection of every row block of in onto its set; out may be in. */
PETSC_EXTERN PetscErrorCode TalusFeasibleSetProject(const TalusFeasibleSet *, Vec in, Vec out);
PETSC_EXTERN void           TalusProjectTriplet(PetscReal mu, const PetscReal in[3], PetscReal out[3]);
/* Seed 001 eq. 39's residual ||r - Pi_K(r - g_d v)|| / g_d of r and u = N r + q, all ranks; v = u, or on
   the cones De Saxce's u + mu ||u_t|| e_n (desaxce: the Coulomb problem); in the norm given (MAX: the largest
   cone's or row's). */
PETSC_EXTERN PetscErrorCode TalusFeasibleSetResidual(const TalusFeasibleSet *, Vec r, Vec u, PetscReal gd,
                                                     PetscBool desaxce, TaoResidualNorm, PetscReal *residual);
/* The norm of a vector of the set's rows: a cone's three rows as one block, every other row alone. */
PETSC_EXTERN PetscErrorCode TalusFeasibleSetNorm(const TalusFeasibleSet *, Vec v, TaoResidualNorm, PetscReal *norm);
/* apgd's projection (block size 3): ctx is a TalusFeasibleSet*. */
PETSC_EXTERN PetscErrorCode TalusFeasibleSetProjectTao(Tao, PetscInt start, PetscInt n, const PetscScalar in[],
                                                       PetscScalar out[], void *ctx);

/*
 * One contact's Coulomb problem (De Saxce's form) with its 3 x 3 SPD block W and linear term q, solved
 * exactly (coulomb_local.c): r in K, u = W r + q, u + mu ||u_t|| e_n in K*, complementary. Returns
 * which of the three cases the solution is.
 */
typedef enum {
  TALUS_CONTACT_SEPARATE,
  TALUS_CONTACT_STICK,
  TALUS_CONTACT_SLIDE
} TalusContactState;
PETSC_EXTERN TalusContactState TalusCoulombLocalSolve(const PetscReal W[9], const PetscReal q[3], PetscReal mu,
                                                      PetscReal r[3]);

/* ---------------------------------------------------------------- the Tao type "nbgs" */

/* Nonsmooth block Gauss-Seidel for the Coulomb problem with an assembled W (src/solver/nbgs.c). */
#define TAONBGS "nbgs"
PETSC_EXTERN PetscErrorCode TaoCreate_NBGS(Tao);
PETSC_EXTERN PetscErrorCode TaoNBGSSetProblem(Tao, Mat W, Vec q, const TalusFeasibleSet *);
PETSC_EXTERN PetscErrorCode TaoNBGSGetStates(Tao, PetscInt states[3]);

/* ---------------------------------------------------------------- the Tao type "ipm" */

/* Primal-dual interior point for the contact problem with an assembled W (src/solver/ipm.c). */
#define TAOIPM "ipm"
PETSC_EXTERN PetscErrorCode TaoCreate_IPM(Tao);
PETSC_EXTERN PetscErrorCode TaoIPMSetProblem(Tao, Mat W, Vec q, const TalusFeasibleSet *, PetscBool coulomb);

/* ---------------------------------------------------------------- the Tao type "newton_ccp" */

/* Newton with an exact line search on the primal form of the compliant relaxed problem (src/solver/newton_ccp.c):
   N = B diag(inverse_mass) B^T with B assembled, E > 0 the rows' regularisation. */
#define TAONEWTONCCP "newton_ccp"
PETSC_EXTERN PetscErrorCode TaoCreate_NewtonCCP(Tao);
PETSC_EXTERN PetscErrorCode TaoNewtonCCPSetProblem(Tao, Mat B, Vec inverse_mass, Vec E, Vec q,
                                                   const TalusFeasibleSet *);

/* ---------------------------------------------------------------- the Tao type "faceted_lcp" */

/* Seed 002's faceted-cone LCP of the Coulomb problem (W assembled, q, the feasible set's cones and rows), solved
   whole on rank 0 by Lemke's method or PETSc's ssfls/asfls (-lcp_ options; src/solver/faceted_lcp_tao.c). Chosen
   by -ccp_problem lcp. An LCP it cannot solve stops the run with the reason. */
#define TAOFACETEDLCP "faceted_lcp"
PETSC_EXTERN PetscErrorCode TaoCreate_FacetedLCP(Tao);
PETSC_EXTERN PetscErrorCode TaoFacetedLCPSetProblem(Tao, Mat W, Vec q, const TalusFeasibleSet *);
/* Why the last solve of a type with no partial answer (faceted_lcp) failed, in words, or NULL (not failed, or a type
   that says no more than its converged reason): a simulation stops on it, naming the step. */
PETSC_EXTERN PetscErrorCode TalusTaoGetFailure(Tao, const char **why);

/* ---------------------------------------------------------------- one CCP */

/*
 * The problem variants, registered in a PetscFunctionList (TalusCCPRegister) and chosen with
 * TalusCCPSetType() or -ccp_problem:
 *   relaxed   seed 000 eq. 14: r in K, u = N r + q in K*, r.u = 0;
 *   coulomb   FCLib/De Saxce: u + mu||u_t|| e_n in K*, by anti-relaxation (seed 001 eq. 28);
 *   lcp       the Coulomb problem with its cones faceted (seed 002), solved by the Tao type faceted_lcp.
 */
typedef const char *TalusCCPType;
#define TALUSCCPRELAXED "relaxed"
#define TALUSCCPCOULOMB "coulomb"
#define TALUSCCPLCP     "lcp"

typedef struct _p_TalusCCP *TalusCCP;

/* A variant's constructor: sets the variant's operations on a TalusCCP (src/ccp_impl.h). */
PETSC_EXTERN PetscErrorCode TalusCCPRegister(const char name[], PetscErrorCode (*create)(TalusCCP));

/*
 * How a Tao type takes a TalusCCP: it gives the Tao the problem's objective and gradient and the
 * feasible set in the form the type understands, or fails with a message saying why it cannot
 * (for example a box-constrained type and friction cones with mu > 0). Registered per Tao type
 * name with TalusCCPSolverTypeRegister(); TalusCCPSetUp() looks up the type the Tao has.
 */
typedef PetscErrorCode (*TalusCCPSolverAttachFn)(TalusCCP, Tao);
/* The refusals that the options alone decide (the problem's variant, -ccp_scale), before any problem:
   TalusCCPSetFromOptions and each attachment call it, so that a run stops before its first step. */
typedef PetscErrorCode (*TalusCCPSolverCheckFn)(TalusCCP);
/* What a solver needs of N: the operator as it is (any Mat, the simulator's shell), its factors B and
   M^-1 (TalusCCPSetOperatorFactors: the primal solvers), or N assembled (a factorisation of it). */
typedef enum {
  TALUS_CCP_OPERATOR,
  TALUS_CCP_OPERATOR_FACTORS,
  TALUS_CCP_OPERATOR_ASSEMBLED
} TalusCCPOperatorForm;
/* A solver of contact problems, one record: the Tao type's name, its constructor (registered with
   TaoRegister; NULL for a type PETSc has), the refusals its options decide (or NULL), how it takes a
   TalusCCP, what it needs of N, whether a scene's problem is scaled per contact for it by default
   (TalusCCPSetScalingForAPGD; its residual is then weighted back to the problem's units, so the type must
   take TaoAPGDSetResidualWeights), and whether it is a pivoting method, exact to rounding, which no
   tolerance stops (the faceted LCP's Lemke). */
typedef struct {
  const char *name;
  PetscErrorCode (*create)(Tao);
  TalusCCPSolverCheckFn  check;
  TalusCCPSolverAttachFn attach;
  TalusCCPOperatorForm   operator_form;
  PetscBool              scaled;
  PetscBool              pivoting;
} TalusCCPSolverType;
/* Registers a solver (the record is copied); a name given again replaces its record. */
PETSC_EXTERN PetscErrorCode TalusCCPSolverTypeRegister(const TalusCCPSolverType *);
/* The record of Tao type `name`, or NULL when none is registered. */
PETSC_EXTERN PetscErrorCode TalusCCPSolverTypeFind(const char name[], const TalusCCPSolverType **);

/* Complementarity measures of a solution (all global maxima over row blocks). */
typedef struct {
  PetscReal primal;          /* max distance of r_i from its set K_i */
  PetscReal dual;            /* max distance of u_i (Coulomb: u_i + mu||u_t|| e_n) from K*_i */
  PetscReal complementarity; /* max |r_i . u_i| (Coulomb: with the De Saxce term) */
  PetscReal objective;       /* 1/2 r.N r + q.r */
} TalusCCPChecks;

PETSC_EXTERN PetscErrorCode TalusCCPCreate(MPI_Comm, TalusCCP *);
PETSC_EXTERN PetscErrorCode TalusCCPSetOperator(TalusCCP, Mat N);
PETSC_EXTERN PetscErrorCode TalusCCPSetLinearTerm(TalusCCP, Vec q);
/* The row blocks: one friction cone per entry of mu, then nnonneg_local rows >= 0, then nfree_local free rows. */
PETSC_EXTERN PetscErrorCode TalusCCPSetFeasibleSet(TalusCCP, Vec mu, PetscInt nnonneg_local, PetscInt nfree_local);
PETSC_EXTERN PetscErrorCode TalusCCPSetType(TalusCCP, TalusCCPType);
PETSC_EXTERN PetscErrorCode TalusCCPGetType(TalusCCP, TalusCCPType *);
PETSC_EXTERN PetscErrorCode TalusCCPSetOptionsPrefix(TalusCCP, const char[]);
/* Solve the problem scaled per contact from the diagonal of N (-ccp_scale; ccp_scaling.c): N must
   give its diagonal (MatGetDiagonal; for the Delassus shell, TalusDelassusSetDiagonal). Without a
   choice (this call or -ccp_scale), the problem is scaled when TalusCCPSetScalingForAPGD says so and the
   Tao type is apgd at the solve; TalusCCPGetScaling says whether the next solve is scaled. */
PETSC_EXTERN PetscErrorCode TalusCCPSetScaling(TalusCCP, PetscBool);
PETSC_EXTERN PetscErrorCode TalusCCPSetScalingForAPGD(TalusCCP, PetscBool);
PETSC_EXTERN PetscErrorCode TalusCCPGetScaling(TalusCCP, PetscBool *);
/* Whether the next solve's residual (what -tao_gatol is tested against) is in the given problem's units: unscaled,
   or scaled and solved by apgd with its residual weighted back (-ccp_scale_residual, the default). */
PETSC_EXTERN PetscErrorCode TalusCCPResidualInProblemUnits(TalusCCP, PetscBool *);
/* N's factors, N = B diag(inverse_mass) B^T + diag(E) with B assembled (E NULL: rigid rows), for the Tao
   types that solve the primal form in the bodies' velocities (newton_ccp); N (TalusCCPSetOperator) is still
   the problem's operator for the checks. */
PETSC_EXTERN PetscErrorCode TalusCCPSetOperatorFactors(TalusCCP, Mat B, Vec inverse_mass, Vec E);
/* A problem whose N = B M^-1 B^T + E can be made in several forms (a simulator's: the matrix-free shell, the
   shell with its factors B and M^-1, the formed matrix) gives a maker instead of N: TalusCCPMakeOperator asks it
   for the form the chosen Tao type's record names (TalusCCPOperatorForm; for TALUS_CCP_OPERATOR_FACTORS the maker
   also gives the factors, TalusCCPSetOperatorFactors), with N's diagonal known to the Mat when the next solve is
   scaled (with_diagonal), and sets the N it makes (a new reference, released here) as the operator. So the caller
   never asks which solver it has. */
typedef PetscErrorCode (*TalusCCPOperatorMaker)(TalusCCP, TalusCCPOperatorForm, PetscBool with_diagonal, void *ctx,
                                                Mat *N);
PETSC_EXTERN PetscErrorCode TalusCCPMakeOperator(TalusCCP, TalusCCPOperatorMaker, void *ctx);
PETSC_EXTERN PetscErrorCode TalusCCPSetFromOptions(TalusCCP);
PETSC_EXTERN PetscErrorCode TalusCCPSetUp(TalusCCP);
PETSC_EXTERN PetscErrorCode TalusCCPSolve(TalusCCP, Vec r);
/* -ccp_finish's solver (NULL: none) */
PETSC_EXTERN PetscErrorCode TalusCCPGetFinish(TalusCCP, Tao *finish);
/* The last solve's iterations (both solvers'), residual and reason (the finisher's where its answer is kept), and
   the finisher's sweeps among the iterations */
PETSC_EXTERN PetscErrorCode TalusCCPGetSolveStatus(TalusCCP, PetscInt *iterations, PetscReal *residual,
                                                   TaoConvergedReason *, PetscInt *finish_iterations);
/* Lets go of the problem (operator, linear term, feasible set: the caller's objects and what they
   hold) and of the solver's work vectors, and keeps the solver and its settings, e.g. between the
   time steps of a simulation. */
PETSC_EXTERN PetscErrorCode TalusCCPReset(TalusCCP);
PETSC_EXTERN PetscErrorCode TalusCCPComputeVelocity(TalusCCP, Vec r, Vec u);
PETSC_EXTERN PetscErrorCode TalusCCPCheck(TalusCCP, Vec r, TalusCCPChecks *);
PETSC_EXTERN PetscErrorCode TalusCCPGetTao(TalusCCP, Tao *);
PETSC_EXTERN PetscErrorCode TalusCCPView(TalusCCP, PetscViewer);
PETSC_EXTERN PetscErrorCode TalusCCPDestroy(TalusCCP *);

/* An AIJ matrix (local m x n of global M x N) from COO triplets, which may hold other ranks' rows;
   ADD_VALUES sums duplicates. */
PETSC_EXTERN PetscErrorCode TalusMatCreateCOO(MPI_Comm, PetscInt m, PetscInt n, PetscInt M, PetscInt N, PetscInt ncoo,
                                              PetscInt coo_i[], PetscInt coo_j[], const PetscScalar coo_v[], InsertMode,
                                              Mat *);

/* ---------------------------------------------------------------- the Delassus operator */

/* A MATSHELL with context ctx on row and column layouts set up already (another Mat's or Vec's): no reduction
   or gather of its own, as MatCreateShell with local sizes makes. */
PETSC_EXTERN PetscErrorCode TalusMatCreateShellOnLayouts(PetscLayout rows, PetscLayout columns, void *ctx, Mat *A);
/* N = B M^-1 B^T as a MATSHELL (never formed) or assembled; inverse_mass is diag(M^-1), 6 per body. */
PETSC_EXTERN PetscErrorCode TalusDelassusCreateShell(Mat B, Vec inverse_mass, Mat *N);
/* M^-1 applied in place to the owned entries of a body-space vector, e.g. a block-diagonal one. */
typedef PetscErrorCode (*TalusInverseMassFn)(Vec v, void *ctx);
/* The TalusInverseMassFn of a diagonal M^-1: ctx is the Vec diag(M^-1). */
PETSC_EXTERN PetscErrorCode TalusInverseMassDiagonal(Vec v, void *inverse_mass);
/* N = B M^-1 B^T as a MATSHELL with M^-1 given by fn; body is a body-space vector to duplicate. */
PETSC_EXTERN PetscErrorCode TalusDelassusCreateShellWithMass(Mat B, Vec body, TalusInverseMassFn fn, void *ctx, Mat *N);
PETSC_EXTERN PetscErrorCode TalusDelassusAssemble(Mat B, Vec inverse_mass, Mat *N);
/* diag(N), computed by the shell's creator, for MatGetDiagonal (and so for -ccp_scale). */
PETSC_EXTERN PetscErrorCode TalusDelassusSetDiagonal(Mat N, Vec diagonal);
/* The shell applies N + diag(E) from now on (seed 004's compliant rows, eq. 60; E >= 0, one entry per row),
   and its diagonal (MatGetDiagonal) is diag(N) + E. */
PETSC_EXTERN PetscErrorCode TalusDelassusSetCompliance(Mat N, Vec E);
/*
 * Row blocks of B (3 rows: a contact) and their products with M^-1, one block at a time, for solvers
 * that work on body velocities (nbgs: Gauss-Seidel on w = M^-1 B^T r, so that (N r)_c = B_c w). w is
 * the local form of a body-space vector made like the operator's (VecCreateGhostBlock, block 6:
 * owned bodies, then the ghosts the blocks touch). A matrix offers them by composing
 * "TalusMatGetBlockRows_C" (the matrix-free B; the Delassus shell forwards to its B); the struct
 * stays valid while the matrix lives.
 */
typedef struct {
  PetscInt nblocks; /* this rank's row blocks, 3 rows each */
  void    *ctx;
  /* u = (B w)_c */
  void (*gather)(void *ctx, PetscInt c, const PetscScalar *w, PetscScalar u[3]);
  /* w += M^-1 B_c^T f, on owned and ghost slots */
  void (*scatter)(void *ctx, PetscInt c, const PetscScalar f[3], PetscScalar *w);
  /* W_cc = B_c M^-1 B_c^T, 3 x 3 row by row */
  void (*block)(void *ctx, PetscInt c, PetscReal W[9]);
  /* the two bodies' slots in w's local form (-1: a fixed body) */
  void (*slots)(void *ctx, PetscInt c, PetscInt slot[2]);
  /* this rank's free (bilateral) rows after the blocks, one row each (joints), and the same four
     for row r: (B w)_r; w += M^-1 B_r^T f; W_rr; the slots */
  PetscInt nrows;
  PetscScalar (*row_gather)(void *ctx, PetscInt r, const PetscScalar *w);
  void (*row_scatter)(void *ctx, PetscInt r, PetscScalar f, PetscScalar *w);
  PetscReal (*row_diagonal)(void *ctx, PetscInt r);
  void (*row_slots)(void *ctx, PetscInt r, PetscInt slot[2]);
} TalusBlockRows;
/* The row blocks of A if it offers them (found = PETSC_FALSE otherwise). */
PETSC_EXTERN PetscErrorCode TalusMatGetBlockRows(Mat A, TalusBlockRows *rows, PetscBool *found);
/* The body-space vector of the Delassus shell (a duplicate of the one it was made with). */
PETSC_EXTERN PetscErrorCode TalusDelassusGetBodyVector(Mat N, Vec *body);
/* The shell's E (TalusDelassusSetCompliance; NULL: none), still owned by the shell. */
PETSC_EXTERN PetscErrorCode TalusDelassusGetCompliance(Mat N, Vec *E);
/*
 * y = A x + z (z may be NULL), plus shift[c] on local row 3c for each local entry c of shift: the
 * normal rows of the contacts, which come first in their triplets (the anti-relaxation shift of
 * seed 001 eq. 28, kept per contact instead of in a full linear-term vector). shift may be NULL.
 * Matrices that compose "TalusMatMultAddNormalShift_C" (the Delassus shell, the matrix-free B) add
 * the shift in their own last pass; for others it is one more pass over y.
 * A Delassus shell whose B scales its rows in its own passes ("TalusMatMultTransposeScaled_C": B^T D g;
 * "TalusMatMultAddCompliance_C" with d: D (B w + E D x) + z + shift) composes "TalusMatCreateScaled_C",
 * which makes D (N + E) D as a shell of its own (TalusCCP's -ccp_scale takes it, src/solver/ccp_scaling.c).
 */
PETSC_EXTERN PetscErrorCode TalusMatMultAddNormalShift(Mat A, Vec x, Vec z, Vec shift, Vec y);

/* ---------------------------------------------------------------- FCLib problems */

/*
 * A 3D frictional contact problem in FCLib's "local" form: u = W r + q, with per-contact
 * unknowns ordered (normal, tangent, tangent). W is distributed by whole contacts. A file in the
 * global form (M v = H r + f, u = H^T v + w, with a diagonal M) is reduced on reading to
 * W = H^T M^-1 H, q = w + H^T M^-1 f.
 */
typedef struct {
  Mat      W;
  Vec      q;
  Vec      mu;
  PetscInt ncontacts; /* global */
  PetscInt ndofs;     /* the size of M of the global form it was read from or comes with; 0 if none */
} TalusFCLibProblem;

/* The global form as written: M (diagonal), H = B^T (degrees of freedom x 3 per contact), f, w, mu. */
typedef struct {
  Mat M, H;
  Vec f, w, mu;
} TalusFCLibGlobal;

/* Which form to read from a file that may hold both (talus's dumps do): any prefers the local one. */
typedef enum {
  TALUS_FCLIB_ANY,
  TALUS_FCLIB_LOCAL,
  TALUS_FCLIB_GLOBAL
} TalusFCLibForm;
PETSC_EXTERN const char *const TalusFCLibForms[];

PETSC_EXTERN PetscErrorCode TalusFCLibRead(MPI_Comm, const char filename[], TalusFCLibProblem *);
PETSC_EXTERN PetscErrorCode TalusFCLibReadForm(MPI_Comm, const char filename[], TalusFCLibForm, TalusFCLibProblem *);
/* How W is stored in a file: FCLib's nz = -2 (compressed rows), -1 (compressed columns), >= 0 (triplets). */
typedef enum {
  TALUS_FCLIB_CSR,
  TALUS_FCLIB_CSC,
  TALUS_FCLIB_TRIPLET
} TalusFCLibStorage;

PETSC_EXTERN PetscErrorCode TalusFCLibWrite(const char filename[], const TalusFCLibProblem *, TalusFCLibStorage);
/* Adds the global form of the same problem to a file written by TalusFCLibWrite. */
PETSC_EXTERN PetscErrorCode TalusFCLibAppendGlobal(const char filename[], const TalusFCLibGlobal *, TalusFCLibStorage);
PETSC_EXTERN PetscErrorCode TalusFCLibWriteSolution(const char filename[], Vec r, Vec u);
/* FCLib's first guess /guesses/1/r (a dump's warm start) into r; found false if the file has none. */
PETSC_EXTERN PetscErrorCode TalusFCLibReadGuess(const char filename[], Vec r, PetscBool *found);
PETSC_EXTERN PetscErrorCode TalusFCLibProblemDestroy(TalusFCLibProblem *);
PETSC_EXTERN PetscErrorCode TalusFCLibGlobalDestroy(TalusFCLibGlobal *);

/* Prints only the first line of an error: what went wrong, for users rather than developers. */
PETSC_EXTERN PetscErrorCode TalusErrorHandler(MPI_Comm, int, const char *, const char *, PetscErrorCode, PetscErrorType,
                                              const char *, void *);

PETSC_EXTERN PetscBool TalusErrorWasCollective(void);
/* On several ranks, ends the job after an error (ierr non-zero) that was not raised on every rank together */
PETSC_EXTERN void TalusAbortUnlessCollective(PetscErrorCode ierr);
/* The first line of the last error the handler saw ("" if none): for summary.json's "error". */
PETSC_EXTERN const char *TalusErrorLastMessage(void);

/* talus's version ("0.1.0") and the git commit it was built from ("1a2b3c4d5e6f", "-dirty" appended
   when built with uncommitted changes, "unknown" outside git). */
PETSC_EXTERN const char *TalusVersion(void);
PETSC_EXTERN const char *TalusCommit(void);

/* Log events of the solver phases (registered by TalusSolverRegisterAll). */
PETSC_EXTERN PetscLogEvent TALUS_EventProject, TALUS_EventAPGDStep, TALUS_EventAPGDTest, TALUS_EventRead;

#endif
