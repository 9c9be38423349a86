/* Subcommands of the talus executable; argv[0] is the subcommand's name. */
#ifndef TALUS_COMMANDS_H
#define TALUS_COMMANDS_H
#include <talus.h>

PetscErrorCode TalusCommandCCP(int argc, char **argv);
PetscErrorCode TalusCommandRun(const char scene_file[]);

#endif
