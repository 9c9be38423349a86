/*
 * Options nobody reads: a misspelt -checkpoint_evry or a scene's tao_gatoll would otherwise be ignored
 * and the run go on without it. PETSc records which options were read (PetscOptionsLeftGet); the
 * names talus knows, for "did you mean", are generated from its sources at build time
 * (scripts/option-names).
 */
#include <talus/options.h>
#include "../grow.h"

#include <errno.h>
#include <stdlib.h>
#include <math.h>
#include <strings.h>

extern const char *const TalusKnownOptionNames[], *const TalusIntegerOptionNames[], *const TalusRealOptionNames[],
                                                                                      *const TalusBoolOptionNames[];

typedef struct {
  char     *name, *origin;
  PetscBool stored; /* from a checkpoint's stored options: checked when that run started */
} Origin;

static Origin  *origins  = NULL;
static PetscInt norigins = 0, origins_cap = 0;

static PetscErrorCode OriginsFree(void)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < norigins; k++) {
    PetscCall(PetscFree(origins[k].name));
    PetscCall(PetscFree(origins[k].origin));
  }
  PetscCall(PetscFree(origins));
  norigins = origins_cap = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOptionsForgetOrigins(void)
{
  PetscFunctionBegin;
  PetscCall(OriginsFree());
  PetscFunctionReturn(0);
}

static PetscErrorCode NoteOrigin(const char name[], const char origin[], PetscBool stored)
{
  PetscFunctionBegin;
  if (!origins_cap) PetscCall(PetscRegisterFinalize(OriginsFree));
  PetscCall(TalusGrowArray(sizeof(Origin), norigins + 1, &origins_cap, &origins));
  PetscCall(PetscStrallocpy(name[0] == '-' ? name + 1 : name, &origins[norigins].name));
  PetscCall(PetscStrallocpy(origin, &origins[norigins].origin));
  origins[norigins].stored = stored;
  norigins++;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOptionsNoteOrigin(const char name[], const char origin[])
{
  PetscFunctionBegin;
  PetscCall(NoteOrigin(name, origin, PETSC_FALSE));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOptionsNoteStoredOrigin(const char name[], const char origin[])
{
  PetscFunctionBegin;
  PetscCall(NoteOrigin(name, origin, PETSC_TRUE));
  PetscFunctionReturn(0);
}

static const Origin *FindOrigin(const char name[])
{
  for (PetscInt k = norigins - 1; k >= 0; k--)
    if (!strcmp(origins[k].name, name)) return &origins[k];
  return NULL;
}

static const char *OriginOf(const char name[])
{
  const Origin *o = FindOrigin(name);
  return o ? o->origin : "the command line";
}

/* Options that had another name: the new option, and its value for the old one's true (or no value)
   and false, where the old one is translated (checkpoints store options); the message naming it. */
static const struct {
  const char *old, *now, *if_true, *if_false, *message;
} Renamed[] = {
  /* before talus 0.1.0 of 2026-11-25 */
  {"ccp_anti_relax", "-ccp_problem", "coulomb", "relaxed", "-ccp_problem coulomb|relaxed"},
  {NULL,             NULL,           NULL,      NULL,      NULL                          }
};

PetscErrorCode TalusOptionsTranslateRenamed(const char origin[])
{
  PetscFunctionBegin;
  for (int k = 0; Renamed[k].old; k++) {
    char        old[64];
    const char *given;
    PetscBool   set, on = PETSC_TRUE;
    PetscCall(PetscSNPrintf(old, sizeof(old), "-%s", Renamed[k].old));
    PetscCall(PetscOptionsFindPair(NULL, NULL, old, &given, &set));
    if (!set || strcmp(OriginOf(Renamed[k].old), origin)) continue;
    if (given) PetscCall(PetscOptionsStringToBool(given, &on));
    PetscCall(PetscOptionsHasName(NULL, NULL, Renamed[k].now, &set));
    if (!set) {
      PetscCall(PetscOptionsSetValue(NULL, Renamed[k].now, on ? Renamed[k].if_true : Renamed[k].if_false));
      PetscCall(TalusOptionsNoteOrigin(Renamed[k].now, origin));
    }
    PetscCall(PetscOptionsClearValue(NULL, old));
  }
  PetscFunctionReturn(0);
}

static const char *RenamedTo(const char name[])
{
  for (int k = 0; Renamed[k].old; k++)
    if (!strcmp(Renamed[k].old, name)) return Renamed[k].message;
  return NULL;
}

/* Options PETSc reads only at a solve's end or at PetscFinalize: unread before the run, not unknown. */
static PetscBool ReadLater(const char name[])
{
  static const char *const prefixes[] = {"log",    "options_", "malloc", "memory_", "objects_", "on_error",
                                         "viewer", "draw",     "info",   "history", "fp_trap",  "error_output",
                                         "mpi_",   "saws",     "nox",    "python",  NULL};
  const size_t             len        = strlen(name);

  for (int k = 0; prefixes[k]; k++)
    if (!strncmp(name, prefixes[k], strlen(prefixes[k]))) return PETSC_TRUE;
  if (len >= 5 && !strcmp(name + len - 5, "_view")) return PETSC_TRUE;
  if (strstr(name, "_view_")) return PETSC_TRUE;
  /* a direct solver's own options, read when it factors (e.g. -tao_ipm_mat_mumps_icntl_14) */
  if (strstr(name, "mat_mumps_") || strstr(name, "mat_cholmod_") || strstr(name, "mat_superlu") ||
      strstr(name, "mat_umfpack_"))
    return PETSC_TRUE;
  if (len >= 17 && !strcmp(name + len - 17, "_converged_reason")) return PETSC_TRUE;
  /* a preconditioner's inner solvers (block Jacobi's and ASM's blocks, multigrid's levels, GAMG's eigenvalue
     estimate) of a Tao type's linear systems (-tao_newton_sub_pc_type icc), read when the PC is set up */
  if (!strncmp(name, "tao_", 4) &&
      (strstr(name, "_sub_") || strstr(name, "_mg_levels_") || strstr(name, "_mg_coarse_") || strstr(name, "_esteig_")))
    return PETSC_TRUE;
  return PETSC_FALSE;
}

/* Optimal string alignment distance (edits, with swaps of neighbours), capped at 9 */
static int Distance(const char a[], const char b[])
{
  const size_t la = PetscMin(strlen(a), 63), lb = PetscMin(strlen(b), 63);
  int          d[64][64];

  for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      const int cost = a[i - 1] != b[j - 1];
      int       best = PetscMin(d[i - 1][j] + 1, d[i][j - 1] + 1);
      best           = PetscMin(best, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) best = PetscMin(best, d[i - 2][j - 2] + 1);
      d[i][j] = best;
    }
  return PetscMin(d[la][lb], 9);
}

#define KNOWN_ELSEWHERE ": talus reads it only with other settings (another -tao_type, for example)"

static PetscBool IsKnown(const char name[])
{
  for (int k = 0; TalusKnownOptionNames[k]; k++)
    if (!strcmp(name, TalusKnownOptionNames[k] + 1)) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* The known option closest to name (without its dash), if close enough to be the one meant */
static const char *Closest(const char name[])
{
  const char *best  = NULL;
  int         bestd = 10;
  const int   limit = PetscMax(2, (int)strlen(name) / 4);

  for (int k = 0; TalusKnownOptionNames[k]; k++) {
    const int d = Distance(name, TalusKnownOptionNames[k] + 1);
    if (d < bestd) best = TalusKnownOptionNames[k], bestd = d;
  }
  return bestd <= limit ? best : NULL;
}

/* PETSc's words for a default, which its parsers take in place of a number */
static PetscBool IsDefaultWord(const char v[])
{
  static const char *const words[] = {"PETSC_DEFAULT", "DEFAULT", "PETSC_DECIDE", "DECIDE", "PETSC_DETERMINE",
                                      "DETERMINE",     NULL};
  for (int k = 0; words[k]; k++)
    if (!strcasecmp(v, words[k])) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* An integer in 64 bits, all of text: 0 and *v, or errno-like: EINVAL (not one), ERANGE */
static int ParseInteger(const char text[], size_t len, long long *v)
{
  char buf[64], *end;
  if (!len || len >= sizeof(buf)) return len ? ERANGE : EINVAL;
  memcpy(buf, text, len);
  buf[len] = 0;
  errno    = 0;
  *v       = strtoll(buf, &end, 10);
  if (end == buf || *end) return EINVAL;
  return errno == ERANGE || *v < PETSC_MIN_INT || *v > PETSC_MAX_INT ? ERANGE : 0;
}

/* The words PETSc's PetscOptionsStringToBool takes, in any case (no value at all means true) */
static PetscBool IsLogicalWord(const char v[])
{
  static const char *const words[] = {"true", "yes", "on", "1", "false", "no", "off", "0", NULL};
  for (int k = 0; words[k]; k++)
    if (!strcasecmp(v, words[k])) return PETSC_TRUE;
  return PETSC_FALSE;
}

static PetscBool InList(const char *const list[], const char name[])
{
  for (int k = 0; list[k]; k++)
    if (!strcmp(list[k] + 1, name)) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* -name value of an integer option (an integer list, 1,2,7 or a range 3-5, item by item) */
static PetscErrorCode CheckInteger(MPI_Comm comm, const char name[], const char value[])
{
  PetscFunctionBegin;
  if (!value || IsDefaultWord(value)) PetscFunctionReturn(0);
  for (const char *item = value; *item;) {
    size_t      len  = strcspn(item, ",");
    const char *dash = memchr(item + 1, '-', len > 1 ? len - 1 : 0); /* a range a-b (not a sign) */
    long long   v;
    int         err = ParseInteger(item, dash ? (size_t)(dash - item) : len, &v);
    if (dash && !err) err = ParseInteger(dash + 1, len - (size_t)(dash - item) - 1, &v);
    PetscCheck(err != EINVAL, comm, PETSC_ERR_USER_INPUT, "-%s %s (from %s): not an integer", name, value,
               OriginOf(name));
    PetscCheck(err != ERANGE, comm, PETSC_ERR_USER_INPUT,
               "-%s %s (from %s) is out of the range of an integer here, %d to %d", name, value, OriginOf(name),
               (int)PETSC_MIN_INT, (int)PETSC_MAX_INT);
    item += len + (item[len] == ',');
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckReal(MPI_Comm comm, const char name[], const char value[])
{
  char  *end;
  double v;

  PetscFunctionBegin;
  if (!value || IsDefaultWord(value)) PetscFunctionReturn(0);
  errno = 0;
  v     = strtod(value, &end);
  PetscCheck(end != value && !*end, comm, PETSC_ERR_USER_INPUT, "-%s %s (from %s): not a number", name, value,
             OriginOf(name));
  PetscCheck(errno != ERANGE || v == 0.0, comm, PETSC_ERR_USER_INPUT,
             "-%s %s (from %s) is beyond the range of a double", name, value, OriginOf(name));
  PetscCheck(isfinite(v), comm, PETSC_ERR_USER_INPUT, "-%s %s (from %s): must be a finite number", name, value,
             OriginOf(name));
  PetscFunctionReturn(0);
}

/*
 * Every numeric or logical option given and not read yet is parsed here first, so that a bad value is refused
 * naming the option and where it came from. PETSc's own parsers would say "Input string abc has no numeric value"
 * or "Unknown logical value: maybe" without naming either, read an integer into a 32-bit PetscInt wrapping what
 * does not fit (4294967296 reads as 0, 3000000000 as -1294967296), and take 1e400 as inf (a time step of inf ran
 * no step and exited 0). The values come from PetscOptionsLeftGet, which does not mark them read (looking each
 * name up would, and the check of options that nothing reads would then miss them); an option read already has
 * been parsed by its reader.
 */
PetscErrorCode TalusOptionsCheckNumbers(MPI_Comm comm)
{
  PetscInt n;
  char   **names, **values;

  PetscFunctionBegin;
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt k = 0; k < n; k++) {
    if (InList(TalusIntegerOptionNames, names[k])) PetscCall(CheckInteger(comm, names[k], values[k]));
    if (InList(TalusRealOptionNames, names[k])) PetscCall(CheckReal(comm, names[k], values[k]));
    PetscCheck(!InList(TalusBoolOptionNames, names[k]) || !values[k] || !*values[k] || IsLogicalWord(values[k]), comm,
               PETSC_ERR_USER_INPUT,
               "-%s %s (from %s): not a truth value (true or false, yes or no, on or off, 1 or 0)", names[k], values[k],
               OriginOf(names[k]));
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOptionsCheckUnused(MPI_Comm comm)
{
  PetscInt  n, unknown = 0;
  char    **names, **values, message[4096] = "";
  size_t    len   = 0;
  PetscBool allow = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(TalusOptionsCheckNumbers(comm));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-options_allow_unknown", &allow, NULL));
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt k = 0; k < n; k++) {
    const char   *meant, *now;
    const Origin *o = FindOrigin(names[k]);
    if (ReadLater(names[k])) continue;
    if (o && o->stored && !RenamedTo(names[k])) {
      /* it was read when the checkpoint's run started: this restart chose another setting (another
         -tao_type, say) that does not read it. Not the user's mistake, and nothing is lost. */
      PetscCall(
        PetscPrintf(comm, "talus: -%s (from %s) is not read by this run's settings: not used\n", names[k], o->origin));
      continue;
    }
    meant = Closest(names[k]);
    if (meant && !strcmp(meant + 1, names[k])) meant = NULL; /* a known option, read only in other settings */
    now = RenamedTo(names[k]);
    unknown++;
    if (len < sizeof(message) - 256) {
      PetscCall(
        PetscSNPrintf(message + len, sizeof(message) - len, "%s-%s (from %s)%s%s%s", unknown > 1 ? "; " : "", names[k],
                      OriginOf(names[k]),
                      now ? ": it is now " : (meant ? ": did you mean " : (IsKnown(names[k]) ? KNOWN_ELSEWHERE : "")),
                      now ? now : (meant ? meant : ""), now ? "" : (meant ? "?" : "")));
      PetscCall(PetscStrlen(message, &len));
    }
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  if (!unknown) PetscFunctionReturn(0);
  if (allow) {
    PetscCall(PetscPrintf(comm, "talus: warning: %" PetscInt_FMT " option%s that nothing reads: %s\n", unknown,
                          unknown > 1 ? "s" : "", message));
    PetscFunctionReturn(0);
  }
  SETERRQ(comm, PETSC_ERR_USER_INPUT,
          "%" PetscInt_FMT " option%s that nothing reads: %s (-options_allow_unknown runs anyway, with a warning)",
          unknown, unknown > 1 ? "s" : "", message);
}
