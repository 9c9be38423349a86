/* Subcommands of the talus executable; argv[0] is the subcommand's name. */
#ifndef TALUS_COMMANDS_H
#define TALUS_COMMANDS_H
#include <talus/checkpoint.h>
#include <talus/output.h>

PetscErrorCode TalusCommandCCP(int argc, char **argv);
/* Runs a scene, or (restart not empty) goes on from a checkpoint; *exit_status is 0 or TALUS_EXIT_RESUBMIT. */
PetscErrorCode TalusCommandRun(const char scene_file[], const char restart[], int *exit_status);
PetscErrorCode TalusCommandInfo(int argc, char **argv);

#endif
