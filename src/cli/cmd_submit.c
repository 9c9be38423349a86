/*
 * talus submit CAMPAIGN SCENE.yaml [-set PATH=VALUE]... [-sweep PATH=V1,V2,...]... [-name NAME]
 * (docs/campaigns.md): adds to the campaign directory CAMPAIGN one job per point of the Cartesian
 * product of the sweeps, each with the -set overrides and its point's. Each job is read as talus
 * would read it (the scene and all its overrides, every check) before any is written, so a scene that
 * cannot be run is refused here, not when a server reaches it. A job is one self-contained file,
 * CAMPAIGN/queue/ID.json: the scene's text, its overrides (the -set ones first) and where it came
 * from. It is written under a temporary name and linked to its final one, which fails if that exists:
 * a server never reads half a job, and two submits never take one id. Ids are NAME-0001, NAME-0002, ...
 * (NAME: -name, or the scene's name).
 */
#include <talus.h>
#include <talus/options.h>
#include <talus/scene.h>
#include "commands.h"
#include <errno.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

/* The values of "PATH=V1,V2,..." split at the commas outside brackets and quotes: the i-th value's
   start and length, n of them (a list value [1,2] is one) */
static PetscErrorCode SplitSweep(const char sweep[], PetscInt *n, const char **start, size_t *len, PetscInt max)
{
  const char *eq    = strchr(sweep, '='), *v;
  int         depth = 0;
  char        quote = 0;

  PetscFunctionBegin;
  PetscCheck(eq && eq > sweep && eq[1], PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "-sweep %s: give PATH=V1,V2,... (at least one value)", sweep);
  *n = 0;
  for (v = eq + 1;; v++) {
    const char *from = v;
    for (; *v && (depth || quote || *v != ','); v++) {
      if (quote) quote = *v == quote ? 0 : quote;
      else if (*v == '"' || *v == '\'') quote = *v;
      else if (*v == '[' || *v == '{') depth++;
      else if (*v == ']' || *v == '}') depth--;
    }
    PetscCheck(v > from, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-sweep %s: an empty value in the list", sweep);
    PetscCheck(*n < max, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-sweep %s: more than %" PetscInt_FMT " values", sweep,
               max);
    start[*n] = from, len[(*n)++] = (size_t)(v - from);
    if (!*v) break;
  }
  PetscFunctionReturn(0);
}

/* CAMPAIGN/queue, made if absent (by rank 0, the verdict shared); refused when CAMPAIGN is not a
   directory or cannot be written */
static PetscErrorCode QueueDirectory(const char campaign[], char queue[], size_t size)
{
  struct stat st;
  PetscMPIInt rank;
  char        fault[PETSC_MAX_PATH_LEN + 128] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscSNPrintf(queue, size, "%s/queue", campaign));
  if (rank == 0) {
    if (stat(campaign, &st) == 0 && !S_ISDIR(st.st_mode))
      PetscCall(PetscSNPrintf(fault, sizeof(fault),
                              "campaign %s is a file, not a directory: give a directory (made "
                              "if absent)",
                              campaign));
    else if (mkdir(campaign, 0777) != 0 && errno != EEXIST)
      PetscCall(PetscSNPrintf(fault, sizeof(fault), "campaign %s: cannot make it: %s", campaign, strerror(errno)));
    else if (mkdir(queue, 0777) != 0 && errno != EEXIST)
      PetscCall(
        PetscSNPrintf(fault, sizeof(fault), "campaign %s: cannot make %s: %s", campaign, queue, strerror(errno)));
    else if (access(queue, W_OK) != 0)
      PetscCall(PetscSNPrintf(fault, sizeof(fault), "campaign %s: %s cannot be written", campaign, queue));
  }
  PetscCallMPI(MPI_Bcast(fault, (PetscMPIInt)sizeof(fault), MPI_CHAR, 0, PETSC_COMM_WORLD));
  PetscCheck(!fault[0], PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "%s", fault);
  PetscFunctionReturn(0);
}

/* The job as JSON written to QUEUE/NAME-k.json for the first free k from *next on (rank 0); *next
   moves past it. The job's id in id. */
static PetscErrorCode WriteJob(const char queue[], const char name[], PetscInt *next, const char scene_file[],
                               const char text[], const char overrides[], char id[], size_t size)
{
  json_t *job = json_object(), *list = json_array();
  char    tmp[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN], abs_scene[PETSC_MAX_PATH_LEN];
  int     linked;

  PetscFunctionBegin;
  for (const char *line = overrides; line && *line;) {
    const char *end = strchr(line, '\n');
    json_array_append_new(list, json_stringn(line, end ? (size_t)(end - line) : strlen(line)));
    line = end ? end + 1 : NULL;
  }
  PetscCall(PetscGetFullPath(scene_file, abs_scene, sizeof(abs_scene)));
  json_object_set_new(job, "scene_file", json_string(abs_scene));
  json_object_set_new(job, "overrides", list);
  json_object_set_new(job, "scene", json_string(text));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s/.submit-%d.tmp", queue, (int)getpid()));
  PetscCheck(json_dump_file(job, tmp, JSON_INDENT(1)) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE,
             "cannot write %s: %s", tmp, strerror(errno));
  json_decref(job);
  do { /* link() refuses an existing name: another submit's job is never overwritten */
    PetscCall(PetscSNPrintf(id, size, "%s-%04" PetscInt_FMT, name, (*next)++));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s.json", queue, id));
    linked = link(tmp, path);
  } while (linked != 0 && errno == EEXIST);
  (void)unlink(tmp);
  PetscCheck(linked == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: %s", path, strerror(errno));
  PetscFunctionReturn(0);
}

/* The scene file's text (every rank) */
static PetscErrorCode ReadText(const char file[], char **text)
{
  FILE *fp = fopen(file, "rb");
  long  n  = -1;

  PetscFunctionBegin;
  PetscCheck(fp, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "%s: cannot open the scene file", file);
  if (fseek(fp, 0, SEEK_END) == 0) n = ftell(fp);
  rewind(fp);
  PetscCall(PetscCalloc1(n > 0 ? n + 1 : 1, text));
  if (n > 0 && fread(*text, 1, (size_t)n, fp) != (size_t)n) n = -1;
  fclose(fp);
  PetscCheck(n >= 0, PETSC_COMM_WORLD, PETSC_ERR_FILE_READ, "%s: cannot read the scene file", file);
  PetscFunctionReturn(0);
}

#define MAX_SWEEPS 16
#define MAX_VALUES 1000

PetscErrorCode TalusCommandSubmit(int argc, char **argv, const char overrides[], const char sweeps[])
{
  const char *campaign = argc >= 2 ? argv[1] : NULL, *scene_file = argc >= 3 ? argv[2] : NULL;
  const char *value[MAX_SWEEPS][MAX_VALUES], *path_end[MAX_SWEEPS], *sweep[MAX_SWEEPS];
  size_t      len[MAX_SWEEPS][MAX_VALUES];
  PetscInt    nvalues[MAX_SWEEPS], nsweeps = 0, njobs = 1, next = 1;
  char        name[256] = "", queue[PETSC_MAX_PATH_LEN], *text, *lines, *all_sweeps = NULL;
  PetscBool   set;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCheck(scene_file && scene_file[0] != '-', PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "talus submit CAMPAIGN SCENE.yaml [-set PATH=VALUE]... [-sweep PATH=V1,V2,...]... [-name NAME]: give "
             "the campaign's directory and the scene");
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Adding jobs to a campaign (talus submit)", "talus");
  PetscCall(PetscOptionsString("-name", "The jobs' name: ids NAME-0001, ... (default: the scene's name)", "", name,
                               name, sizeof(name), &set));
  PetscOptionsEnd();
  PetscCall(TalusOptionsCheckUnused(PETSC_COMM_WORLD)); /* the command line's, before scenes add theirs */
  if (sweeps) PetscCall(PetscStrallocpy(sweeps, &all_sweeps));
  for (char *s = all_sweeps; s && *s; nsweeps++) { /* the sweeps' lines, each split into its values */
    char *end = strchr(s, '\n');
    if (end) *end = 0;
    PetscCheck(nsweeps < MAX_SWEEPS, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "more than %d -sweep", MAX_SWEEPS);
    sweep[nsweeps] = s, path_end[nsweeps] = strchr(s, '=');
    PetscCall(SplitSweep(s, &nvalues[nsweeps], value[nsweeps], len[nsweeps], MAX_VALUES));
    njobs *= nvalues[nsweeps];
    s = end ? end + 1 : NULL;
  }
  PetscCheck(njobs <= 100000, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "the sweeps make %" PetscInt_FMT " jobs: more than 100,000 in one submit", njobs);
  PetscCall(ReadText(scene_file, &text));
  PetscCall(PetscMalloc1((overrides ? strlen(overrides) : 0) + (sweeps ? strlen(sweeps) : 0) + 2, &lines));
  PetscCall(QueueDirectory(campaign, queue, sizeof(queue)));
  for (int pass = 0; pass < 2; pass++) /* every job read (refused before any is written), then written */
    for (PetscInt j = 0; j < njobs; j++) {
      PetscInt   k = j, point[MAX_SWEEPS];
      TalusScene scene;
      TalusSim   sim;
      char       id[300] = "";
      for (PetscInt s = nsweeps - 1; s >= 0; s--) point[s] = k % nvalues[s], k /= nvalues[s]; /* the last fastest */
      PetscCall(PetscStrncpy(lines, overrides ? overrides : "", strlen(overrides ? overrides : "") + 1));
      for (PetscInt s = 0; s < nsweeps; s++) { /* after the -set ones, the point's value of each sweep */
        const PetscInt i  = point[s];
        size_t         at = strlen(lines);
        if (at) lines[at++] = '\n';
        memcpy(lines + at, sweep[s], (size_t)(path_end[s] - sweep[s]) + 1), at += (size_t)(path_end[s] - sweep[s]) + 1;
        memcpy(lines + at, value[s][i], len[s][i]), lines[at + len[s][i]] = 0;
      }
      if (pass == 0) {
        PetscCall(TalusSimCreate(PETSC_COMM_WORLD, &sim));
        PetscCall(TalusSceneLoad(PETSC_COMM_WORLD, scene_file, lines, sim, &scene));
        PetscCall(TalusSimDestroy(&sim));
        if (j == 0 && !name[0]) PetscCall(PetscStrncpy(name, scene.name, sizeof(name)));
        continue;
      }
      if (rank == 0) PetscCall(WriteJob(queue, name, &next, scene_file, text, lines, id, sizeof(id)));
      for (char *c = lines; *c; c++)
        if (*c == '\n') *c = ' ';
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus submit: %s%s%s\n", id, lines[0] ? ": " : "", lines));
    }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus submit: %" PetscInt_FMT " job%s added to %s\n", njobs,
                        njobs == 1 ? "" : "s", queue));
  PetscCall(PetscFree(lines));
  PetscCall(PetscFree(text));
  PetscCall(PetscFree(all_sweeps));
  PetscFunctionReturn(0);
}
