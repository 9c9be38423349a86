/* The talus command: dispatches to its subcommands. */
#include <talus.h>
#include "commands.h"

static const char help[] =
  "talus: rigid bodies with frictional contact, solved as cone complementarity problems.\n"
  "\n"
  "Usage:\n"
  "  talus SCENE.yaml [options]      run a scene (docs/scene-format.md); outputs in -o DIR (default out/<scene>)\n"
  "  talus SCENE.yaml -set PATH=VALUE ...  the same with values of the scene changed before it is read\n"
  "                                  (repeatable): -set end_time=2 -set materials.rough.mu=0.3\n"
  "  talus submit CAMPAIGN SCENE.yaml [-set P=V]... [-sweep P=V1,V2,...]... [-name NAME]\n"
  "                                  add a job per point of the sweeps to a campaign (docs/campaigns.md)\n"
  "  mpirun -n P talus serve CAMPAIGN [-serve_group_size G] [-walltime HH:MM:SS] [-serve_idle_exit S]\n"
  "                                  run a campaign's jobs, P/G at a time, each on G ranks\n"
  "  talus status CAMPAIGN [-json]   each job's state, counts and ETA\n"
  "  talus collect CAMPAIGN [-o results.csv]  one row per job: its overrides, then its summary's figures\n"
  "  talus -restart CKPT.h5 [opts]   go on from a checkpoint, on any number of ranks (docs/checkpoint-format.md)\n"
  "  talus info FILE.h5              describe a checkpoint or a frames file\n"
  "  talus ccp FILE.hdf5 [options]   solve one FCLib local contact problem (see docs/ccp.md)\n"
  "  talus ... -help                 this text and the options of what runs, talus's first (not running it);\n"
  "                                  -help_petsc adds PETSc's general ones (debugging, profiling, memory)\n"
  "  talus -version                  talus's version and commit, then PETSc's\n"
  "\n"
  "Positional arguments come first, PETSc options (-name value) after them.\n"
  "Exit status: 0 done, 1 error, 75 stopped after a checkpoint (signal or -walltime): restart it.\n"
  "Run on P ranks with mpirun -n P talus ...\n\n";

/* A token that PETSc reads as an option's name (a dash, not a negative number) */
static PetscBool IsOptionName(const char t[])
{
  char *end;
  if (t[0] != '-') return PETSC_FALSE;
  (void)strtod(t, &end);
  return (PetscBool)(end == t || *end);
}

/*
 * After the command's npositional arguments, every token is an option's name or the one value that
 * follows a name: anything else (a second value, an extra file) PETSc would drop without a word.
 */
static PetscErrorCode CheckArguments(int argc, char **argv, int npositional)
{
  PetscFunctionBegin;
  for (int k = 1 + npositional; k < argc; k++) {
    if (IsOptionName(argv[k])) continue;
    PetscCheck(k > 1 + npositional && IsOptionName(argv[k - 1]), PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
               "unexpected argument \"%s\" (%s): talus takes %s, then options as -name [value] (a value with blanks "
               "in quotes)",
               argv[k],
               k > 1 + npositional ? "a second value after an option's value" : "after the command's arguments",
               npositional == 2 ? "a subcommand and its file"
                                : (npositional == 1 ? "one scene file" : "no file with -restart"));
  }
  PetscFunctionReturn(0);
}

/*
 * Takes the arguments spelt as one of names (NULL-terminated) out of argv; whether there was one.
 * -version is taken out before PETSc sees it (PETSc would print its own version first and go on):
 * talus prints its own, then PETSc's, and stops. -help likewise (PETSc would print its general
 * options and its devices' first, some 60 lines), and is given back once PETSc is up, so that the
 * options listed are those the run reads, talus's groups first; -help_petsc is PETSc's -help, as
 * PETSc has it.
 */
static PetscBool TakeArgument(int *argc, char **argv, const char *const names[])
{
  PetscBool found = PETSC_FALSE;
  int       kept  = 1;
  for (int k = 1; k < *argc; k++) {
    PetscBool match = PETSC_FALSE;
    for (int n = 0; names[n]; n++) match = (PetscBool)(match || !strcmp(argv[k], names[n]));
    if (match) found = PETSC_TRUE;
    else argv[kept++] = argv[k];
  }
  *argc = kept;
  return found;
}

/*
 * Takes every "OPTION PATH=VALUE" out of argv (PETSc's options database keeps one value a name, and
 * -set and -sweep are given many times) into "PATH=VALUE" lines (malloc'd; NULL when there is none).
 * An OPTION with no value after it is left in *bad; a value that holds a line break (which the lines would read
 * as two changes) in *broken.
 */
static char *TakeRepeated(int *argc, char **argv, const char option[], const char **bad, const char **broken)
{
  char  *all  = NULL;
  size_t len  = 0;
  int    kept = 1;

  *bad = NULL;
  for (int k = 1; k < *argc; k++) {
    if (strcmp(argv[k], option)) {
      argv[kept++] = argv[k];
      continue;
    }
    if (k + 1 >= *argc || argv[k + 1][0] == 0 || (argv[k + 1][0] == '-' && !strchr(argv[k + 1], '='))) {
      *bad = argv[k];
      continue;
    }
    if (strpbrk(argv[k + 1], "\n\r")) {
      if (!*broken) *broken = argv[k + 1];
      k++;
      continue;
    }
    {
      const size_t add   = strlen(argv[k + 1]) + 1;
      char        *grown = realloc(all, len + add + 1);
      if (!grown) break;
      all = grown;
      memcpy(all + len, argv[k + 1], add - 1);
      all[len + add - 1] = '\n', all[len + add] = 0;
      len += add;
      k++;
    }
  }
  *argc = kept;
  if (all && len) all[len - 1] = 0; /* no newline after the last */
  return all;
}

/* -set or -sweep with no PATH=VALUE after it or with a line break in it, -set where no scene file is read, -sweep
   but in submit */
static PetscErrorCode CheckOverrides(const char bad[], const char broken[], const char overrides[],
                                     PetscBool reads_scene, const char sweeps[], PetscBool submit)
{
  PetscFunctionBegin;
  PetscCheck(!broken, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "-set or -sweep %s: a value may not hold a line break (it would be read as two changes)", broken);
  PetscCheck(!bad, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "%s needs PATH=VALUE after it (e.g. %s materials.rough.mu=%s)", bad, bad,
             bad && strcmp(bad, "-set") ? "0.1,0.2,0.3" : "0.3");
  PetscCheck(!sweeps || submit, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "-sweep makes the jobs of a campaign: talus submit CAMPAIGN SCENE.yaml -sweep PATH=V1,V2,...");
  PetscCheck(!overrides || reads_scene, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "-set changes a scene file before it is read: give one (a restart goes on with the overrides its "
             "checkpoint holds)");
  PetscFunctionReturn(0);
}

/*
 * talus serve: MPI starts before PETSc, so that each group of -serve_group_size ranks (default 1) can be
 * PETSc's world (PETSC_COMM_WORLD is set before PetscInitialize). A group size that is not a number
 * or does not divide the ranks leaves one group of all of them, and talus serve refuses it with the
 * reason once PETSc is up. *group_size is what was asked for (0: not a number).
 */
static int SplitForServe(int *argc, char ***argv, PetscInt *group_size, MPI_Comm *group)
{
  int size, rank;

  *group_size = 1, *group = MPI_COMM_NULL;
  for (int k = 1; k + 1 < *argc; k++)
    if (!strcmp((*argv)[k], "-serve_group_size")) {
      char *end;
      long  g     = strtol((*argv)[k + 1], &end, 10);
      *group_size = *end || end == (*argv)[k + 1] || g < 1 || g > 1 << 30 ? 0 : (PetscInt)g;
    }
  if (MPI_Init(argc, argv) != MPI_SUCCESS) return 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (*group_size >= 1 && size % *group_size == 0) {
    if (MPI_Comm_split(MPI_COMM_WORLD, rank / (int)*group_size, rank, group) != MPI_SUCCESS) return 1;
    PETSC_COMM_WORLD = *group;
  }
  return 0;
}

/* talus serve started MPI (SplitForServe), so it ends it, after PETSc */
static void EndServe(PetscBool serve, MPI_Comm *group)
{
  if (!serve) return;
  if (*group != MPI_COMM_NULL) MPI_Comm_free(group);
  MPI_Finalize();
}

static PetscErrorCode PrintVersion(void)
{
  char petsc[256];

  PetscFunctionBegin;
  PetscCall(PetscGetVersion(petsc, sizeof(petsc)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus %s (commit %s)\n%s\n", TalusVersion(), TalusCommit(), petsc));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscErrorCode           ierr;
  int                      status          = 0;
  static const char *const version_names[] = {"-version", "--version", NULL};
  static const char *const help_names[]    = {"-help", "--help", "-h", NULL};
  const PetscBool          version         = TakeArgument(&argc, argv, version_names),
                  asked_help               = TakeArgument(&argc, argv, help_names);
  const char *bad_set = NULL, *bad_sweep = NULL, *broken = NULL;
  char       *overrides = TakeRepeated(&argc, argv, "-set", &bad_set, &broken);
  char       *sweeps    = TakeRepeated(&argc, argv, "-sweep", &bad_sweep, &broken);

  const TalusSubcommand *command    = argc >= 2 ? TalusSubcommandFind(argv[1]) : NULL;
  const PetscBool        serve      = (PetscBool)(command && command->splits_world);
  PetscInt               group_size = 1;
  MPI_Comm               group      = MPI_COMM_NULL;

  if (serve && SplitForServe(&argc, &argv, &group_size, &group)) return 1;
  for (int k = 1; k < argc; k++) /* PETSc's own -help (a string literal: PETSc never writes to argv) */
    if (!strcmp(argv[k], "-help_petsc")) argv[k] = (char *)"-help";

  ierr = TalusInitialize(&argc, &argv, help);
  if (ierr) {
    free(overrides), free(sweeps);
    return 1;
  }
  if (asked_help) {
    ierr = PetscPrintf(PETSC_COMM_WORLD, "%s", help);
    if (!ierr) ierr = PetscOptionsSetValue(NULL, "-help", NULL);
    if (ierr) return 1;
  }
  if (version) {
    free(overrides), free(sweeps);
    ierr   = PrintVersion();
    status = TalusFinalize() || ierr ? 1 : 0;
    EndServe(serve, &group);
    return status;
  }
  ierr = PetscPushErrorHandler(TalusErrorHandler, NULL);
  if (!ierr) {
    char      restart[PETSC_MAX_PATH_LEN] = "";
    PetscBool has_restart                 = PETSC_FALSE;
    PetscBool has_scene                   = (PetscBool)(argc >= 2 && argv[1][0] != '-');
    ierr = PetscOptionsGetString(NULL, NULL, "-restart", restart, sizeof(restart), &has_restart);
    if (!ierr && (has_scene || has_restart))
      ierr = CheckArguments(argc, argv, command ? PetscMin(argc - 1, command->npositional) : (has_scene ? 1 : 0));
    if (!ierr)
      ierr = CheckOverrides(bad_set ? bad_set : bad_sweep, broken, overrides,
                            (PetscBool)(has_scene && (!command || command->overrides)), sweeps,
                            (PetscBool)(command && command->sweeps));
    if (!ierr && command) {
      const TalusCommandContext ctx = {overrides, sweeps, MPI_COMM_WORLD, group_size};
      ierr                          = command->run(argc - 1, argv + 1, &ctx, &status);
    } else if (!ierr && (has_restart || has_scene))
      ierr = TalusCommandRun(has_scene ? argv[1] : NULL, has_restart ? restart : NULL, overrides, &status);
    else if (!ierr) { /* with -help, the usage has been printed already */ PetscBool asked = PETSC_FALSE;
      ierr = PetscOptionsHasHelp(NULL, &asked);
      if (!ierr && !asked) ierr = PetscPrintf(PETSC_COMM_WORLD, "%s", help);
    }
  }
  if (ierr) {
    /* A collective error has reached every rank; anything else may leave ranks waiting in a
       collective call, so on several ranks abort the job rather than hang it. */
    TalusAbortUnlessCollective(ierr);
    free(overrides), free(sweeps);
    PetscPopErrorHandler();
    TalusFinalize();
    EndServe(serve, &group);
    return 1;
  }
  free(overrides), free(sweeps);
  PetscCall(PetscPopErrorHandler());
  ierr = TalusFinalize();
  EndServe(serve, &group);
  return ierr ? 1 : status;
}
