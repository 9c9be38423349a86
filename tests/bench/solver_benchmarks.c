/*
 * Every solver on real contact problems, to a tolerance: the "problem x solver" instrument of issue
 * 14. The problems are the FCLib files shipped in inputs/fclib, plus any listed in the environment
 * variable TALUS_BENCH_PROBLEMS (colon-separated paths: FCLib files, dumps of a run's steps made with
 * -ccp_dump_step). Each is solved as the Coulomb problem from r = 0 by apgd, apgd with -ccp_scale and
 * nbgs, to -tao_gatol 1e-8 (TALUS_BENCH_GATOL overrides it) in at most 20,000 iterations, and
 * reports, besides the time of a solve: iterations, converged (1/0), the solver's residual, and the
 * distance of u from K* and the largest |r.u| (TalusCCPCheck, the same measure for every solver).
 *
 *   build/tests/bench/talus_bench --benchmark_filter=solve/ --benchmark_counters_tabular=true
 */
#include <talus.h>
#include "harness.h"

#define MAX_PROBLEMS 64

typedef struct {
  char              path[PETSC_MAX_PATH_LEN];
  char              name[128];
  PetscBool         loaded;
  TalusFCLibProblem problem;
} Problem;

static Problem           problems[MAX_PROBLEMS];
static int               nproblems      = 0;
static const int         nsolvers       = 3;
static const char *const solver_names[] = {"apgd", "apgd_scaled", "nbgs"};

static void AddProblem(const char *path)
{
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  Problem    *p;

  if (nproblems == MAX_PROBLEMS) return;
  p = &problems[nproblems++];
  PetscStrncpy(p->path, path, sizeof(p->path));
  PetscStrncpy(p->name, base, sizeof(p->name));
  if (strrchr(p->name, '.')) *strrchr(p->name, '.') = 0;
}

static void BenchSolve(TalusBench *b)
{
  const long         index = TalusBenchArg(b, 0);
  Problem           *p     = &problems[index / nsolvers];
  const int          s     = (int)(index % nsolvers);
  TalusCCP           ccp;
  Tao                tao;
  Vec                r;
  TaoConvergedReason reason;
  PetscInt           its      = 0;
  PetscReal          residual = 0.0, gatol = 1e-8;
  TalusCCPChecks     checks;
  const char        *env = getenv("TALUS_BENCH_GATOL");

  if (env) gatol = atof(env);
  if (!p->loaded) {
    if (TalusFCLibRead(PETSC_COMM_WORLD, p->path, &p->problem)) {
      TalusBenchFail(b, "cannot read the problem");
      return;
    }
    p->loaded = PETSC_TRUE;
  }
  TalusCCPCreate(PETSC_COMM_WORLD, &ccp);
  TalusCCPSetOperator(ccp, p->problem.W);
  TalusCCPSetLinearTerm(ccp, p->problem.q);
  TalusCCPSetFeasibleSet(ccp, p->problem.mu, 0, 0);
  TalusCCPSetType(ccp, TALUSCCPCOULOMB);
  TalusCCPSetScaling(ccp, s == 1 ? PETSC_TRUE : PETSC_FALSE);
  TalusCCPGetTao(ccp, &tao);
  TaoSetType(tao, s == 2 ? TAONBGS : TAOAPGD);
  TaoSetTolerances(tao, gatol, 0.0, 0.0);
  TaoSetMaximumIterations(tao, 20000);
  VecDuplicate(p->problem.q, &r);
  while (TalusBenchKeepRunning(b)) {
    VecSet(r, 0.0);
    if (TalusCCPSolve(ccp, r)) {
      TalusBenchFail(b, "the solve failed");
      break;
    }
  }
  TaoGetSolutionStatus(tao, &its, NULL, &residual, NULL, NULL, &reason);
  TalusCCPCheck(ccp, r, &checks);
  TalusBenchSetItems(b, (double)p->problem.ncontacts);
  TalusBenchReportValue(b, "contacts", (double)p->problem.ncontacts);
  TalusBenchReportValue(b, "iterations", (double)its);
  TalusBenchReportValue(b, "converged", reason > 0 ? 1.0 : 0.0);
  TalusBenchReportValue(b, "residual", residual);
  TalusBenchReportValue(b, "u_outside_dual_cone", checks.dual);
  TalusBenchReportValue(b, "max_r_dot_u", checks.complementarity);
  VecDestroy(&r);
  TalusCCPDestroy(&ccp);
}

void TalusBenchRegisterSolvers(void)
{
  static const char *const shipped[] = {"Box_Stacks-i0122-82-5.hdf5", "Capsules-i125-1213.hdf5",
                                        "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", "Spheres-i099-356-679.hdf5",
                                        "spheres-in-a-box-98-i10000-256-10.hdf5"};
  static long              args[MAX_PROBLEMS * 3];
  const char              *extra = getenv("TALUS_BENCH_PROBLEMS");

  for (size_t k = 0; k < sizeof(shipped) / sizeof(shipped[0]); k++) {
    char path[PETSC_MAX_PATH_LEN];
    PetscSNPrintf(path, sizeof(path), "%s/%s", TALUS_FCLIB_DIR, shipped[k]);
    AddProblem(path);
  }
  if (extra) { /* colon-separated paths */
    char list[8192], *start = list;
    PetscStrncpy(list, extra, sizeof(list));
    while (start && *start) {
      char *colon = strchr(start, ':');
      if (colon) *colon = 0;
      if (*start) AddProblem(start);
      start = colon ? colon + 1 : NULL;
    }
  }
  for (int k = 0; k < nproblems; k++)
    for (int s = 0; s < nsolvers; s++) {
      static char names[MAX_PROBLEMS * 3][192];
      const int   i = k * nsolvers + s;
      args[i]       = i;
      PetscSNPrintf(names[i], sizeof(names[i]), "solve/%s/%s", problems[k].name, solver_names[s]);
      TalusBenchRegister(names[i], BenchSolve, &args[i], 1);
    }
}

void TalusBenchCleanupSolvers(void)
{
  for (int k = 0; k < nproblems; k++)
    if (problems[k].loaded) TalusFCLibProblemDestroy(&problems[k].problem);
  nproblems = 0;
}
