/* Subcommands of the talus executable; argv[0] is the subcommand's name. */
#ifndef TALUS_COMMANDS_H
#define TALUS_COMMANDS_H
#include <talus/checkpoint.h>
#include <talus/output.h>

PetscErrorCode TalusCommandCCP(int argc, char **argv);
/* talus ccp FILE -ccp_problem lcp (cmd_ccp_lcp.c): the problem read, solved as a faceted LCP;
   solution: the file for -ccp_solution, or "" */
PetscErrorCode TalusCommandCCPAsLCP(const char filename[], const TalusFCLibProblem *prob, const char solution[]);
/* Runs a scene with its overrides ("PATH=VALUE" lines of -set, or NULL), or (restart not empty) goes on
   from a checkpoint; *exit_status is 0 or TALUS_EXIT_RESUBMIT. */
PetscErrorCode TalusCommandRun(const char scene_file[], const char restart[], const char overrides[], int *exit_status);
PetscErrorCode TalusCommandInfo(int argc, char **argv);
/* talus submit CAMPAIGN SCENE (argv[0] "submit"): the jobs of the sweeps ("PATH=V1,V2,..." lines, or
   NULL) with the overrides ("PATH=VALUE" lines, or NULL) added to the campaign's queue (cmd_submit.c) */
PetscErrorCode TalusCommandSubmit(int argc, char **argv, const char overrides[], const char sweeps[]);

#endif
