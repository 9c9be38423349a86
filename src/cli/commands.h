/* Subcommands of the talus executable; argv[0] is the subcommand's name. */
#ifndef TALUS_COMMANDS_H
#define TALUS_COMMANDS_H
#include <talus/checkpoint.h>
#include <talus/output.h>

PetscErrorCode TalusCommandCCP(int argc, char **argv);
/* talus ccp FILE -ccp_problem lcp (cmd_ccp_lcp.c): the problem read, solved as a faceted LCP;
   solution: the file for -ccp_solution, or "" */
PetscErrorCode TalusCommandCCPAsLCP(const char filename[], const TalusFCLibProblem *prob, const char solution[]);
/* One run: a scene (from its file, or from scene_text with scene_file naming it) with its overrides
   ("PATH=VALUE" lines, or NULL), or a checkpoint to go on from (restart); output_dir NULL: -o, by
   default out/<scene>, with the command line's -restart and -overwrite; walltime > 0: the seconds
   left to it (0: -walltime); progress (or NULL) is called after every step. */
typedef struct {
  const char *scene_file, *scene_text, *restart, *overrides, *output_dir;
  PetscReal   walltime;
  PetscErrorCode (*progress)(void *ctx, TalusSim sim);
  void *progress_ctx;
} TalusRunSpec;
/* Collective; the run's objects are destroyed however it ends; *exit_status is 0 (done) or
   TALUS_EXIT_RESUBMIT (stopped after a checkpoint: a signal or the wall-clock limit). */
PetscErrorCode TalusRun(const TalusRunSpec *, int *exit_status);
/* Runs a scene with its overrides ("PATH=VALUE" lines of -set, or NULL), or (restart not empty) goes on
   from a checkpoint; *exit_status is 0 or TALUS_EXIT_RESUBMIT. */
PetscErrorCode TalusCommandRun(const char scene_file[], const char restart[], const char overrides[], int *exit_status);
PetscErrorCode TalusCommandInfo(int argc, char **argv);
/* talus submit CAMPAIGN SCENE (argv[0] "submit"): the jobs of the sweeps ("PATH=V1,V2,..." lines, or
   NULL) with the overrides ("PATH=VALUE" lines, or NULL) added to the campaign's queue (cmd_submit.c) */
PetscErrorCode TalusCommandSubmit(int argc, char **argv, const char overrides[], const char sweeps[]);
/* mpirun -n P talus serve CAMPAIGN (argv[0] "serve"; cmd_serve.c): PETSC_COMM_WORLD is this rank's
   group of group_size ranks of world (main.c splits it before PETSc starts); *exit_status is 0, or
   TALUS_EXIT_RESUBMIT when a signal or the wall-clock limit stopped it with jobs left */
PetscErrorCode TalusCommandServe(int argc, char **argv, MPI_Comm world, PetscInt group_size, int *exit_status);
/* talus status CAMPAIGN [-json] and talus collect CAMPAIGN [-o CSV] (cmd_campaign.c) */
PetscErrorCode TalusCommandStatus(int argc, char **argv);
PetscErrorCode TalusCommandCollect(int argc, char **argv);

/* A subcommand (subcommands.c): talus NAME ARGS... [options]. npositional counts its name and its files;
   overrides and sweeps: it takes -set and -sweep; splits_world: MPI starts before PETSc so that its ranks
   can be split into groups (talus serve). run gets argv from its name on. */
typedef struct {
  const char *overrides, *sweeps; /* "PATH=VALUE" lines of -set and -sweep, or NULL */
  MPI_Comm    world;              /* MPI_COMM_WORLD (PETSC_COMM_WORLD may be a group of it) */
  PetscInt    group_size;         /* -serve_group_size as main.c read it */
} TalusCommandContext;
typedef struct {
  const char *name;
  int         npositional;
  PetscBool   overrides, sweeps, splits_world;
  PetscErrorCode (*run)(int argc, char **argv, const TalusCommandContext *, int *exit_status);
} TalusSubcommand;
/* The subcommand named name, or NULL (a scene file, an option) */
const TalusSubcommand *TalusSubcommandFind(const char name[]);

#endif
