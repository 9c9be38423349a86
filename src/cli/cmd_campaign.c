/*
 * talus status CAMPAIGN [-json] and talus collect CAMPAIGN [-o results.csv] (docs/campaigns.md):
 * what a campaign's jobs are doing, and their results as one table. Both read the campaign (on
 * rank 0) and change nothing in it.
 */
#define _POSIX_C_SOURCE 200809L /* gethostname, nanosleep, strdup */
#include <talus.h>
#include <talus/campaign.h>
#include <talus/options.h>
#include "commands.h"
#include <errno.h>
#include <jansson.h>

/* The campaign's status as JSON (rank 0; NULL elsewhere) */
static PetscErrorCode LoadStatus(const char campaign[], json_t **root)
{
  PetscMPIInt rank;
  char       *text  = NULL;
  int         fault = 0;

  PetscFunctionBegin;
  *root = NULL;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    char      queue[PETSC_MAX_PATH_LEN];
    PetscBool is_dir;
    PetscCall(PetscSNPrintf(queue, sizeof(queue), "%s/queue", campaign));
    PetscCall(PetscTestDirectory(queue, 'r', &is_dir));
    fault = !is_dir;
    if (!fault) {
      PetscCall(TalusCampaignStatusJSON(campaign, &text));
      *root = json_loads(text, 0, NULL);
      PetscCall(PetscFree(text));
    }
  }
  PetscCallMPI(MPI_Bcast(&fault, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCheck(!fault, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN,
             "%s is not a campaign (no %s/queue): make one with talus submit %s SCENE.yaml", campaign, campaign,
             campaign);
  PetscFunctionReturn(0);
}

/* "1h02m", "3m05s", "12.3s", or "-" */
static void Duration(json_t *v, char out[], size_t size)
{
  const double s = json_is_number(v) ? json_number_value(v) : -1.0;
  if (s < 0.0) snprintf(out, size, "-");
  else if (s < 60.0) snprintf(out, size, "%.1fs", s);
  else if (s < 3600.0) snprintf(out, size, "%dm%02ds", (int)(s / 60), (int)s % 60);
  else snprintf(out, size, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

/* The overrides {"PATH": value} as "PATH=VALUE PATH=VALUE" */
static void OverridesText(json_t *overrides, char out[], size_t size)
{
  const char *path;
  json_t     *value;
  size_t      at = 0;

  out[0] = 0;
  json_object_foreach(overrides, path, value)
  {
    char *v = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(15));
    if (at < size) at += (size_t)snprintf(out + at, size - at, "%s%s=%s", at ? " " : "", path, v ? v : "?");
    free(v);
  }
}

static PetscErrorCode PrintTable(json_t *root)
{
  json_t     *jobs = json_object_get(root, "jobs"), *counts = json_object_get(root, "counts"), *job;
  size_t      k;
  char        eta[32], line[96] = "";
  const char *state;
  json_t     *n;

  PetscFunctionBegin;
  json_object_foreach(counts, state, n) if (json_integer_value(n))
  {
    const size_t at = strlen(line);
    snprintf(line + at, sizeof(line) - at, "%s%d %s", at ? ", " : "", (int)json_integer_value(n), state);
  }
  Duration(json_object_get(root, "eta_s"), eta, sizeof(eta));
  printf("campaign %s: %d job%s%s%s; ETA %s\n", json_string_value(json_object_get(root, "campaign")),
         (int)json_array_size(jobs), json_array_size(jobs) == 1 ? "" : "s", line[0] ? ": " : "", line, eta);
  if (!json_array_size(jobs)) PetscFunctionReturn(0);
  printf("%-20s %-11s %5s %8s %19s %9s %9s  %s\n", "id", "state", "group", "step", "t / end (s)", "wall", "ETA",
         "overrides, or why it stopped");
  json_array_foreach(jobs, k, job)
  {
    char        wall[32], left[32], what[1024], times[64], gid[16] = "-";
    const char *message = json_string_value(json_object_get(job, "message"));
    json_t     *group   = json_object_get(job, "group");
    if (json_is_integer(group)) snprintf(gid, sizeof(gid), "%d", (int)json_integer_value(group));
    Duration(json_object_get(job, "wall_s"), wall, sizeof(wall));
    Duration(json_object_get(job, "eta_s"), left, sizeof(left));
    if (message && message[0]) snprintf(what, sizeof(what), "%s", message);
    else OverridesText(json_object_get(job, "overrides"), what, sizeof(what));
    snprintf(times, sizeof(times), "%.4g / %.4g", json_number_value(json_object_get(job, "t")),
             json_number_value(json_object_get(job, "t_final")));
    printf("%-20s %-11s %5s %8d %19s %9s %9s  %s\n", json_string_value(json_object_get(job, "id")),
           json_string_value(json_object_get(job, "state")), gid, (int)json_integer_value(json_object_get(job, "step")),
           times, wall, left, what);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCommandStatus(int argc, char **argv)
{
  PetscBool as_json = PETSC_FALSE;
  json_t   *root;

  PetscFunctionBegin;
  PetscCheck(argc >= 2 && argv[1][0] != '-', PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "talus status CAMPAIGN [-json]: give the campaign's directory");
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "A campaign's status (talus status)", "talus");
  PetscCall(PetscOptionsBool("-json", "Print the status as JSON, for scripts", "", as_json, &as_json, NULL));
  PetscOptionsEnd();
  PetscCall(TalusOptionsCheckUnused(PETSC_COMM_WORLD));
  PetscCall(LoadStatus(argv[1], &root));
  if (root) {
    if (as_json) {
      char *text = json_dumps(root, JSON_INDENT(1));
      printf("%s\n", text ? text : "{}");
      free(text);
    } else PetscCall(PrintTable(root));
    fflush(stdout);
    json_decref(root);
  }
  PetscFunctionReturn(0);
}

/* A CSV field: a JSON value as its compact text, quoted where it holds a comma, a quote or a newline */
static void WriteField(FILE *fp, json_t *value, PetscBool first)
{
  char *text = NULL;

  if (!first) fputc(',', fp);
  if (!value || json_is_null(value)) return;
  if (json_is_string(value)) text = strdup(json_string_value(value));
  else if (json_is_real(value)) { /* 2, not jansson's 2.0; 0.1, not 0.10000000000000001 */ char number[32];
    snprintf(number, sizeof(number), "%.15g", json_real_value(value));
    text = strdup(number);
  } else text = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(15));
  if (!text) return;
  if (strpbrk(text, ",\"\n")) {
    fputc('"', fp);
    for (const char *c = text; *c; c++) {
      if (*c == '"') fputc('"', fp);
      fputc(*c, fp);
    }
    fputc('"', fp);
  } else fputs(text, fp);
  free(text);
}

/* The figures of a job's summary.json that a sweep is plotted against */
static const char *const figures[] = {"steps",
                                      "steps_not_converged",
                                      "iterations_mean",
                                      "iterations_max",
                                      "residual_max",
                                      "support_force_over_weight",
                                      "kinetic_energy_final",
                                      "max_penetration_final",
                                      "contacts_mean",
                                      "bodies",
                                      "bodies_lost",
                                      "t",
                                      NULL};

/*
 * The figures of the whole run from its stats.csv (one row a step, kept whole across restarts), where a
 * resumed job's summary.json counts only the steps since its last restart: steps, steps_not_converged,
 * iterations_mean, iterations_max, residual_max, contacts_mean. NULL without a stats.csv.
 */
static json_t *WholeRun(const char dir[])
{
  enum {
    ITERATIONS,
    RESIDUAL,
    CONTACTS,
    CONVERGED,
    NCOLUMNS
  };
  static const char *const names[NCOLUMNS] = {"iterations", "residual", "contacts", "converged"};
  char                     path[PETSC_MAX_PATH_LEN + 16], line[8192];
  int                      column[NCOLUMNS] = {-1, -1, -1, -1};
  long long                steps = 0, unconverged = 0, iterations_max = 0;
  double                   iterations = 0.0, contacts = 0.0, residual_max = 0.0;
  json_t                  *whole;
  FILE                    *fp;

  snprintf(path, sizeof(path), "%s/stats.csv", dir);
  if (!(fp = fopen(path, "r"))) return NULL;
  if (fgets(line, sizeof(line), fp)) {
    int k = 0;
    for (char *save = NULL, *f = strtok_r(line, ",\n", &save); f; f = strtok_r(NULL, ",\n", &save), k++)
      for (int c = 0; c < NCOLUMNS; c++)
        if (!strcmp(f, names[c])) column[c] = k;
  }
  for (int c = 0; c < NCOLUMNS; c++)
    if (column[c] < 0) {
      fclose(fp);
      return NULL;
    }
  while (fgets(line, sizeof(line), fp)) {
    double v[NCOLUMNS] = {0, 0, 0, 1};
    int    k           = 0;
    for (char *save = NULL, *f = strtok_r(line, ",\n", &save); f; f = strtok_r(NULL, ",\n", &save), k++)
      for (int c = 0; c < NCOLUMNS; c++)
        if (k == column[c]) v[c] = strtod(f, NULL);
    steps++, unconverged += v[CONVERGED] == 0.0;
    iterations += v[ITERATIONS], contacts += v[CONTACTS];
    iterations_max = PetscMax(iterations_max, (long long)v[ITERATIONS]);
    residual_max   = PetscMax(residual_max, v[RESIDUAL]);
  }
  fclose(fp);
  whole = json_object();
  json_object_set_new(whole, "steps", json_integer(steps));
  json_object_set_new(whole, "steps_not_converged", json_integer(unconverged));
  json_object_set_new(whole, "iterations_mean", json_real(steps ? iterations / (double)steps : 0.0));
  json_object_set_new(whole, "iterations_max", json_integer(iterations_max));
  json_object_set_new(whole, "residual_max", json_real(residual_max));
  json_object_set_new(whole, "contacts_mean", json_real(steps ? contacts / (double)steps : 0.0));
  return whole;
}

static PetscErrorCode WriteResults(const char campaign[], json_t *root, FILE *fp)
{
  json_t     *jobs = json_object_get(root, "jobs"), *job, *paths = json_object(), *value;
  size_t      k;
  const char *path;

  PetscFunctionBegin;
  json_array_foreach(jobs, k, job) /* every override path of any job, in the order first met */
    json_object_foreach(json_object_get(job, "overrides"), path, value) json_object_set(paths, path, json_true());
  fputs("id,state", fp);
  json_object_foreach(paths, path, value)
  {
    json_t *name = json_string(path);
    WriteField(fp, name, PETSC_FALSE);
    json_decref(name);
  }
  for (int f = 0; figures[f]; f++) fprintf(fp, ",%s", figures[f]);
  fputs(",wall_s,message\n", fp);
  json_array_foreach(jobs, k, job)
  {
    char    summary_path[PETSC_MAX_PATH_LEN], dir[PETSC_MAX_PATH_LEN];
    json_t *summary, *overrides = json_object_get(job, "overrides");
    PetscCall(TalusCampaignJobDirectory(campaign, json_string_value(json_object_get(job, "id")), dir, sizeof(dir)));
    PetscCall(PetscSNPrintf(summary_path, sizeof(summary_path), "%s/summary.json", dir));
    summary = json_load_file(summary_path, 0, NULL);
    if (summary) { /* a resumed job's summary counts from its restart: the whole run's figures instead */
      json_t *whole = WholeRun(dir);
      if (whole) json_object_update(summary, whole);
      json_decref(whole);
    }
    WriteField(fp, json_object_get(job, "id"), PETSC_TRUE);
    WriteField(fp, json_object_get(job, "state"), PETSC_FALSE);
    json_object_foreach(paths, path, value) WriteField(fp, json_object_get(overrides, path), PETSC_FALSE);
    for (int f = 0; figures[f]; f++) WriteField(fp, summary ? json_object_get(summary, figures[f]) : NULL, PETSC_FALSE);
    WriteField(fp, json_object_get(job, "wall_s"), PETSC_FALSE);
    WriteField(fp, json_object_get(job, "message"), PETSC_FALSE);
    fputc('\n', fp);
    json_decref(summary);
  }
  json_decref(paths);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCommandCollect(int argc, char **argv)
{
  char        out[PETSC_MAX_PATH_LEN] = "";
  json_t     *root;
  int         err = 0;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCheck(argc >= 2 && argv[1][0] != '-', PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "talus collect CAMPAIGN [-o results.csv]: give the campaign's directory");
  PetscCall(PetscSNPrintf(out, sizeof(out), "%s/results.csv", argv[1]));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "A campaign's results as one table (talus collect)", "talus");
  PetscCall(
    PetscOptionsString("-o", "The CSV file written (- for the standard output)", "", out, out, sizeof(out), NULL));
  PetscOptionsEnd();
  PetscCheck(out[0], PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-o needs a file, e.g. -o results.csv");
  PetscCall(TalusOptionsCheckUnused(PETSC_COMM_WORLD));
  PetscCall(LoadStatus(argv[1], &root));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    char  tmp[PETSC_MAX_PATH_LEN + 16];
    FILE *fp = stdout;
    PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", out));
    if (strcmp(out, "-") && !(fp = fopen(tmp, "w"))) err = errno;
    if (fp) {
      PetscCall(WriteResults(argv[1], root, fp));
      if (fp != stdout) {
        if (ferror(fp)) err = EIO;
        if (fclose(fp) != 0 && !err) err = errno;
        if (!err && rename(tmp, out) != 0) err = errno;
        if (err) (void)remove(tmp);
      }
    }
    json_decref(root);
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCheck(!err, PETSC_COMM_WORLD, PETSC_ERR_FILE_WRITE, "cannot write %s: %s", out, strerror(err));
  if (strcmp(out, "-")) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus collect: %s\n", out));
  PetscFunctionReturn(0);
}
