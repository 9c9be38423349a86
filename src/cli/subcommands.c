/*
 * The talus executable's subcommands, one record each: its name, how many positional arguments it
 * takes (its name, its files), which of -set and -sweep it takes, and the function that runs it.
 * main.c finds a subcommand here by its name; a new one is a function in its cmd_*.c and a line here.
 */
#include "commands.h"

static PetscErrorCode RunSubmit(int argc, char **argv, const TalusCommandContext *ctx, int *status)
{
  PetscFunctionBegin;
  (void)status;
  PetscCall(TalusCommandSubmit(argc, argv, ctx->overrides, ctx->sweeps));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunServe(int argc, char **argv, const TalusCommandContext *ctx, int *status)
{
  PetscFunctionBegin;
  PetscCall(TalusCommandServe(argc, argv, ctx->world, ctx->group_size, status));
  PetscFunctionReturn(0);
}

/* The subcommands whose function takes only its arguments */
#define PLAIN_RUNNER(Name, Command) \
  static PetscErrorCode Name(int argc, char **argv, const TalusCommandContext *ctx, int *status) \
  { \
    PetscFunctionBegin; \
    (void)ctx, (void)status; \
    PetscCall(Command(argc, argv)); \
    PetscFunctionReturn(0); \
  }
PLAIN_RUNNER(RunStatus, TalusCommandStatus)
PLAIN_RUNNER(RunCollect, TalusCommandCollect)
PLAIN_RUNNER(RunCCP, TalusCommandCCP)
PLAIN_RUNNER(RunInfo, TalusCommandInfo)

/* name, positional arguments, takes -set, takes -sweep, splits MPI's world, runner */
static const TalusSubcommand subcommands[] = {
  {"submit",  3, PETSC_TRUE,  PETSC_TRUE,  PETSC_FALSE, RunSubmit },
  {"serve",   2, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE,  RunServe  },
  {"status",  2, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, RunStatus },
  {"collect", 2, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, RunCollect},
  {"ccp",     2, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, RunCCP    },
  {"info",    2, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, RunInfo   },
};

const TalusSubcommand *TalusSubcommandFind(const char name[])
{
  for (size_t i = 0; name && i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
    if (!strcmp(subcommands[i].name, name)) return &subcommands[i];
  return NULL;
}
