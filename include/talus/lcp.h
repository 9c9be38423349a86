/*
 * Linear complementarity problems, dense and serial (docs/lcp.md): find z with
 *
 *     w = M z + q >= 0,   z >= 0,   w^T z = 0,
 *
 * by Lemke's complementary pivoting (covering vector e = 1, a lexicographic ratio test so that
 * degenerate problems do not cycle, a cap on pivots); and seed 002's faceted-cone LCP (eq. 34-35)
 * built from a frictional contact problem (W, q, mu) of talus's CCP layout, so that the two can be
 * compared on the same data.
 */
#ifndef TALUS_LCP_H
#define TALUS_LCP_H
#include <petsctao.h>

typedef enum {
  TALUS_LEMKE_SOLVED          = 1,  /* a complementary basis: z solves the LCP */
  TALUS_LEMKE_TRIVIAL         = 2,  /* q >= 0: z = 0 */
  TALUS_LEMKE_RAY             = -1, /* a secondary ray: no entering column bounded (the LCP may have no solution) */
  TALUS_LEMKE_PIVOT_CAP       = -2, /* more pivots than allowed */
  TALUS_LEMKE_ILL_CONDITIONED = -3  /* the basis lost its accuracy: w = M z + q off by more than the tolerance */
} TalusLemkeReason;
PETSC_EXTERN const char *TalusLemkeReasonName(TalusLemkeReason);

typedef struct {
  TalusLemkeReason reason;
  PetscInt         pivots;
  PetscReal        complementarity; /* max |min(w_i, z_i)| for the z returned (0 on failure) */
  PetscReal        residual;        /* max |w - (M z + q)| with w as the basis gives it */
  PetscReal        perturbation;    /* 0, or the size of the perturbation of q a degenerate problem needed */
} TalusLemkeInfo;

/*
 * Lemke's method on the n x n LCP (M row-major): z (n) on success; info says how it ended. max_pivots
 * <= 0: 50 n. It fails only on allocation; a problem it cannot solve is a reason in info, not an error.
 */
PETSC_EXTERN PetscErrorCode TalusLemkeSolve(PetscInt n, const PetscReal M[], const PetscReal q[], PetscInt max_pivots,
                                            PetscReal z[], TalusLemkeInfo *info);

/*
 * Seed 002's faceted LCP (eq. 34-35, the velocities eliminated) of nc contacts and nl one-sided rows
 * with W ((3 nc + nl)^2, row-major, rows n, t1, t2 of each contact as talus's CCP orders them, then
 * the one-sided rows), q (3 nc + nl) and mu (nc), with nd >= 2 friction directions
 * d_j = cos(2 pi j / nd) t1 + sin(2 pi j / nd) t2 per contact. Unknowns z = (p_n (nc), p_f (nd nc),
 * sigma (nc), z_l (nl)), size n = (nd + 2) nc + nl:
 *
 *     [ T_n^T W T_n   T_n^T W D    0   T_n^T W_l ]        [ q_n     ]
 *     [ D^T W T_n     D^T W D      E   D^T W_l   ] z   +  [ D^T q_t ]
 *     [ U            -E^T          0   0         ]        [ 0       ]
 *     [ W_l^T T_n     W_l^T D      0   W_ll      ]        [ q_l     ]
 *
 * (U = diag(mu), E the block-diagonal ones). M (n x n row-major) and b (n) are allocated here (PetscFree).
 */
PETSC_EXTERN PetscErrorCode TalusFacetedLCPBuild(PetscInt nc, PetscInt nd, PetscInt nl, const PetscReal W[],
                                                 const PetscReal q[], const PetscReal mu[], PetscInt *n, PetscReal **M,
                                                 PetscReal **b);
/* The impulses (n, t1, t2 of each contact, 3 nc, then the one-sided rows', nl) of a faceted LCP's solution z. */
PETSC_EXTERN void TalusFacetedLCPImpulses(PetscInt nc, PetscInt nd, PetscInt nl, const PetscReal z[], PetscReal r[]);

/* How a contact problem is solved as a faceted LCP (TalusFacetedLCPSettingsFromOptions: -lcp_facets,
   -lcp_solver, -lcp_max_pivots, -lcp_max_size). */
typedef enum {
  TALUS_LCP_LEMKE, /* the reference: Lemke's method (TalusLemkeSolve) */
  TALUS_LCP_SSFLS, /* cross-checks: PETSc's semismooth Fischer-Burmeister solvers (full, active set) */
  TALUS_LCP_ASFLS
} TalusLCPSolver;
PETSC_EXTERN const char *const TalusLCPSolvers[];

typedef struct {
  PetscInt       facets; /* friction directions per contact, nd >= 2 (default 8) */
  TalusLCPSolver solver;
  PetscInt       max_pivots; /* Lemke's cap (0: 50 n); the iterations of ssfls and asfls */
  PetscInt
    max_size; /* the most LCP unknowns, (nd + 2) nc, accepted (default 2000: O(n^3) work, 2 n^2 doubles, on one rank) */
} TalusFacetedLCPSettings;

PETSC_EXTERN PetscErrorCode TalusFacetedLCPSettingsFromOptions(MPI_Comm, TalusFacetedLCPSettings *);
/* Its pieces, for an object that reads them in its own options block (the Tao type faceted_lcp): the defaults, the
   options, and the check of what was read. */
PETSC_EXTERN void           TalusFacetedLCPSettingsDefault(TalusFacetedLCPSettings *);
PETSC_EXTERN PetscErrorCode TalusFacetedLCPSettingsOptions(PetscOptionItems *, TalusFacetedLCPSettings *);
PETSC_EXTERN PetscErrorCode TalusFacetedLCPSettingsCheck(MPI_Comm, const TalusFacetedLCPSettings *);

/* What a faceted LCP solve did: its size, the solver's reason (Lemke's, or a Tao type's as text) and
   counts, and the measures of its answer. */
typedef struct {
  PetscInt       n; /* LCP unknowns */
  PetscBool      solved;
  TalusLemkeInfo lemke;       /* reason, pivots (Tao types: iterations), complementarity, residual */
  char           reason[160]; /* the reason in words */
} TalusFacetedLCPResult;

/*
 * The contact problem (W, q, mu; distributed by whole contacts, W assembled; on each rank its contacts'
 * rows, then nl_local one-sided rows, then nf_local free rows: talus's CCP layout with joints) as seed
 * 002's faceted LCP: gathered to rank 0, the free rows eliminated (their block of W must be positive
 * definite: joints that are not redundant), solved there, the impulses r (layout of q) scattered back.
 * Refused above settings->max_size unknowns with a message. Collective; result on every rank.
 */
PETSC_EXTERN PetscErrorCode TalusFacetedLCPSolve(Mat W, Vec q, Vec mu, PetscInt nl_local, PetscInt nf_local,
                                                 const TalusFacetedLCPSettings *, Vec r, TalusFacetedLCPResult *);

#endif
