/*
 * Private to the TalusCCP object (ccp_problem.c), its problem variants (ccp_variants.c) and the
 * attachments of Tao types to it (ccp_solvers.c). A new variant or a new solver attachment is a
 * file that includes this header plus one registration line in TalusSolverRegisterAll (register.c).
 */
#ifndef TALUS_CCP_IMPL_H
#define TALUS_CCP_IMPL_H
#include <talus.h>

/* What a problem variant changes in the problem: set by its constructor (TalusCCPRegister). */
typedef struct {
  /* The change of the linear term between iterations (seed 001 eq. 28 for the Coulomb problem), in
     apgd's blocks; ctx is the TalusCCP. NULL: the linear term stays q. A variant that sets it keeps
     its per-cone shift of the normal rows in ccp->shift, which the gradient adds. */
  TaoAPGDLinearTermUpdateFn update_linear_term;
  /* The velocity v of one cone whose distance from K* the checks measure, from u = N r + q, in
     place (the De Saxce term of the Coulomb problem). NULL: v = u. */
  void (*dual_velocity)(PetscReal mu, PetscReal v[3]);
  /* The Tao type that solves this variant, set on the Tao when the variant is chosen (NULL: any, apgd first) */
  const char *tao_type;
} TalusCCPOps;

struct _p_TalusCCP {
  MPI_Comm comm;
  /* the problem as given (TalusCCPSetOperator, SetLinearTerm, SetFeasibleSet): checks and velocities use it */
  Mat              user_N;
  Vec              user_q;
  TalusFeasibleSet user_set;
  /* the problem the solver sees: the given one, or with -ccp_scale the scaled one (ccp_scaling.c) */
  Mat N;
  Vec q;
  /* N's factors (TalusCCPSetOperatorFactors), for the primal solvers: B assembled, diag(M^-1), E or NULL */
  Mat              factor_B;
  Vec              factor_inverse_mass, factor_E;
  TalusFeasibleSet set;
  Vec              shift;       /* per cone, while ops.update_linear_term is set: the shift of the normal linear term */
  PetscBool        scale;       /* the solve is scaled (-ccp_scale, or as scale_for_apgd says) */
  PetscBool        scale_given; /* TalusCCPSetScaling or -ccp_scale chose */
  PetscBool        scale_for_apgd;  /* without a choice: scaled when the Tao type is apgd */
  PetscBool        scale_residual;  /* apgd's residual of the scaled problem weighted back to the problem's units */
  Vec              scaling;         /* with scale: d, r = d .* r_solver (3 per cone, 1 per other row) */
  Vec              residual_weight; /* with scale: 1 / d, so that apgd's residual stays in the problem's units */
  char            *type_name;
  TalusCCPOps      ops;
  Tao              tao;
  Tao              finish;      /* -ccp_finish: the solver that goes on where tao stopped short (ccp_finish.c) */
  PetscBool        finish_used; /* and the answer is its own */
  char            *prefix;
  PetscBool        setup;
};

/* -ccp_finish (ccp_finish.c): its option inside the problem's options, the finishing Tao's own after the problem's
   Tao's; the finish of a solve that stopped short (r in the problem's units) */
PETSC_INTERN PetscErrorCode TalusCCPFinishSetFromOptions(TalusCCP, PetscOptionItems *);
PETSC_INTERN PetscErrorCode TalusCCPFinishSetUpFromOptions(TalusCCP);
PETSC_INTERN PetscErrorCode TalusCCPFinishSolve(TalusCCP, Vec r);

/* -simd (simd.c), read with the problem's options */
PETSC_INTERN PetscErrorCode TalusSIMDSetFromOptions(MPI_Comm);
/* The names in a PetscFunctionList, joined by ", " (for messages that list the choices; type_options.c). */
PETSC_INTERN PetscErrorCode TalusFunctionListNames(PetscFunctionList, char names[], size_t size);
/* An option naming a type (-tao_type, a KSP's -pc_type) that is not in list: refused with the option's full name
   and the choices, before PETSc's own message ("Unable to find requested ...") would name neither. */
PETSC_INTERN PetscErrorCode TalusCheckTypeOption(MPI_Comm, const char prefix[], const char option[], PetscFunctionList);

/* The problem variants by name (TalusCCPRegister) and the variants talus registers (ccp_variants.c). */
PETSC_EXTERN PetscFunctionList TalusCCPList;
PETSC_INTERN PetscErrorCode    TalusCCPCreate_Relaxed(TalusCCP);
PETSC_INTERN PetscErrorCode    TalusCCPCreate_Coulomb(TalusCCP);
PETSC_INTERN PetscErrorCode    TalusCCPCreate_FacetedLCP(TalusCCP);

/* The problem the solver sees from the given one (ccp_scaling.c): the same objects, or with
   ccp->scale the scaled N, q and set and the scaling d; their release. */
PETSC_INTERN PetscErrorCode TalusCCPSetUpSolverProblem(TalusCCP);
/* ccp_solvers.c: whether the next solve is scaled (ccp->scale): as chosen, else as scale_for_apgd and the Tao type's
   record say */
PETSC_INTERN PetscErrorCode TalusCCPResolveScaling(TalusCCP);
PETSC_INTERN PetscErrorCode TalusCCPResetSolverProblem(TalusCCP);

/* The Tao type's attachment (ccp_solvers.c): found by the Tao's type, called by TalusCCPSetUp; its
   release, called by TalusCCPReset. And the attachments talus registers. */
PETSC_INTERN PetscErrorCode TalusCCPSolverAttach(TalusCCP);
/* the refusals the options decide (ccp_solvers.c): TalusCCPSetFromOptions and TalusCCPSolverAttach call it; the
   Tao type's record found (or pass NULL) */
PETSC_INTERN PetscErrorCode TalusCCPCheckSolver(TalusCCP, const TalusCCPSolverType **);
/* the solvers' checks (their records' check) */
PETSC_INTERN PetscErrorCode TalusCCPRefuseScaling(TalusCCP);
PETSC_INTERN PetscErrorCode TalusCCPCheck_NBGS(TalusCCP);
PETSC_INTERN PetscErrorCode TalusCCPCheck_NewtonCCP(TalusCCP);
PETSC_INTERN PetscErrorCode TalusCCPCheck_FacetedLCP(TalusCCP);
/* the record of the Tao type the problem's Tao has now, or NULL */
PETSC_INTERN PetscErrorCode TalusCCPGetSolverType(TalusCCP, const TalusCCPSolverType **);
PETSC_INTERN PetscErrorCode TalusCCPSolverRelease(TalusCCP);
/* The solver records (ccp_solver_types.c): their names joined by ", ", and their release. */
PETSC_INTERN PetscErrorCode TalusCCPSolverTypeNames(char names[], size_t size);
PETSC_INTERN PetscErrorCode TalusCCPSolverTypesDestroy(void);
PETSC_INTERN PetscErrorCode TalusCCPAttach_APGD(TalusCCP, Tao);
PETSC_INTERN PetscErrorCode TalusCCPAttach_Bounds(TalusCCP, Tao);
PETSC_INTERN PetscErrorCode TalusCCPAttach_NBGS(TalusCCP, Tao);
PETSC_INTERN PetscErrorCode TalusCCPAttach_IPM(TalusCCP, Tao);
PETSC_INTERN PetscErrorCode TalusCCPAttach_NewtonCCP(TalusCCP, Tao);
PETSC_INTERN PetscErrorCode TalusCCPAttach_FacetedLCP(TalusCCP, Tao);

/* The objective and gradient callbacks of a TalusCCP (ctx), for the Tao types' attachments (ccp_objective.c). */
PETSC_INTERN PetscErrorCode TalusCCPGradient(Tao, Vec x, Vec g, void *ctx);
PETSC_INTERN PetscErrorCode TalusCCPObjectiveAndGradient(Tao, Vec x, PetscReal *f, Vec g, void *ctx);

#endif
