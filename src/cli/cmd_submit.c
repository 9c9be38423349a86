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
#include <talus/campaign.h>
#include "commands.h"
#include <ctype.h>

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
    for (PetscInt k = 0; k < *n; k++) /* the same value twice would make the same job twice */
      PetscCheck(len[k] != (size_t)(v - from) || strncmp(start[k], from, len[k]), PETSC_COMM_WORLD,
                 PETSC_ERR_USER_INPUT, "-sweep %s: the value %.*s is given twice", sweep, (int)len[k], start[k]);
    start[*n] = from, len[(*n)++] = (size_t)(v - from);
    if (!*v) break;
  }
  PetscFunctionReturn(0);
}

/* A job's id, NAME-0001, names its file and its output directory: a plain, short name */
static PetscErrorCode CheckName(const char name[], PetscBool given)
{
  PetscBool plain = (PetscBool)(name[0] && name[0] != '.' && strlen(name) <= 100);

  PetscFunctionBegin;
  for (const char *c = name; *c && plain; c++)
    plain = (PetscBool)(isalnum((unsigned char)*c) || *c == '.' || *c == '_' || *c == '-');
  PetscCheck(plain, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "%s \"%.120s\" cannot name jobs: ids NAME-0001, ... name files and directories, so NAME must be 1 to 100 "
             "letters, digits, '.', '_' or '-', not starting with '.'%s",
             given ? "-name" : "the scene's name", name, given ? "" : " (give another with -name)");
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
  char        name[256] = "", *text, *lines, *all_sweeps = NULL;
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
  PetscCall(TalusSceneReadText(PETSC_COMM_WORLD, scene_file, &text));
  PetscCall(PetscMalloc1((overrides ? strlen(overrides) : 0) + (sweeps ? strlen(sweeps) : 0) + 2, &lines));
  PetscCall(TalusCampaignMakeQueue(PETSC_COMM_WORLD, campaign, PETSC_TRUE));
  for (int pass = 0; pass < 2; pass++) /* every job read (refused before any is written), then written */
    for (PetscInt j = 0; j < njobs; j++) {
      PetscInt   k = j, point[MAX_SWEEPS];
      TalusScene scene;
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
        /* what is kept, checked without making its bodies: a scene larger than this node is for the ranks
           of the server that will run it */
        PetscCall(TalusSceneCheckText(PETSC_COMM_WORLD, scene_file, text, lines, &scene));
        if (j == 0 && !set) PetscCall(PetscStrncpy(name, scene.name, sizeof(name)));
        if (j == 0) PetscCall(CheckName(name, set));
        continue;
      }
      if (rank == 0) PetscCall(TalusCampaignAddJob(campaign, name, &next, scene_file, text, lines, id, sizeof(id)));
      for (char *c = lines; *c; c++)
        if (*c == '\n') *c = ' ';
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus submit: %s%s%s\n", id, lines[0] ? ": " : "", lines));
    }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus submit: %" PetscInt_FMT " job%s added to %s/queue\n", njobs,
                        njobs == 1 ? "" : "s", campaign));
  PetscCall(PetscFree(lines));
  PetscCall(PetscFree(text));
  PetscCall(PetscFree(all_sweeps));
  PetscFunctionReturn(0);
}
