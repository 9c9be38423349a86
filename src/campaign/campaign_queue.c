/*
 * A campaign's queue (include/talus/campaign.h, docs/campaigns.md): one JSON file per job,
 * CAMPAIGN/queue/ID.json, holding the scene's text and file and the job's overrides.
 */
#define _DEFAULT_SOURCE /* link, scandir */
#include <talus/campaign.h>
#include "../io/files.h"
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

PetscErrorCode TalusCampaignMakeQueue(MPI_Comm comm, const char campaign[], PetscBool make_campaign)
{
  struct stat st;
  PetscMPIInt rank;
  char        queue[PETSC_MAX_PATH_LEN], fault[PETSC_MAX_PATH_LEN + 128] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscSNPrintf(queue, sizeof(queue), "%s/queue", campaign));
  if (rank == 0) {
    const PetscBool exists = (PetscBool)(stat(campaign, &st) == 0);
    if (!exists && !make_campaign)
      PetscCall(PetscSNPrintf(fault, sizeof(fault),
                              "campaign %s does not exist: make it and its jobs with talus submit %s SCENE.yaml",
                              campaign, campaign));
    else if (exists && !S_ISDIR(st.st_mode))
      PetscCall(PetscSNPrintf(fault, sizeof(fault),
                              "campaign %s is a file, not a directory: give a directory (made if absent)", campaign));
    else if (mkdir(campaign, 0777) != 0 && errno != EEXIST)
      PetscCall(PetscSNPrintf(fault, sizeof(fault), "campaign %s: cannot make it: %s", campaign, strerror(errno)));
    else if (mkdir(queue, 0777) != 0 && errno != EEXIST)
      PetscCall(
        PetscSNPrintf(fault, sizeof(fault), "campaign %s: cannot make %s: %s", campaign, queue, strerror(errno)));
    else if (access(queue, W_OK) != 0)
      PetscCall(PetscSNPrintf(fault, sizeof(fault), "campaign %s: %s cannot be written", campaign, queue));
  }
  PetscCallMPI(MPI_Bcast(fault, (PetscMPIInt)sizeof(fault), MPI_CHAR, 0, comm));
  PetscCheck(!fault[0], comm, PETSC_ERR_FILE_OPEN, "%s", fault);
  PetscFunctionReturn(0);
}

/* "PATH=VALUE" lines as a JSON list of strings */
static json_t *LinesJSON(const char lines[])
{
  json_t *list = json_array();
  for (const char *line = lines; line && *line;) {
    const char *end = strchr(line, '\n');
    json_array_append_new(list, json_stringn(line, end ? (size_t)(end - line) : strlen(line)));
    line = end ? end + 1 : NULL;
  }
  return list;
}

PetscErrorCode TalusCampaignAddJob(const char campaign[], const char name[], PetscInt *next, const char scene_file[],
                                   const char text[], const char overrides[], char id[], size_t size)
{
  json_t *job = json_object();
  char    tmp[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN], abs_scene[PETSC_MAX_PATH_LEN];
  int     linked;

  PetscFunctionBegin;
  PetscCall(PetscGetFullPath(scene_file, abs_scene, sizeof(abs_scene)));
  json_object_set_new(job, "scene_file", json_string(abs_scene));
  json_object_set_new(job, "overrides", LinesJSON(overrides));
  json_object_set_new(job, "scene", json_string(text));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s/queue/.submit-%d.tmp", campaign, (int)getpid()));
  linked = json_dump_file(job, tmp, JSON_INDENT(1));
  json_decref(job);
  PetscCheck(linked == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: %s", tmp, strerror(errno));
  do { /* link() refuses an existing name: another submit's job is never overwritten */
    PetscCall(PetscSNPrintf(id, size, "%s-%04" PetscInt_FMT, name, (*next)++));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/queue/%s.json", campaign, id));
    linked = link(tmp, path);
  } while (linked != 0 && errno == EEXIST);
  (void)unlink(tmp);
  PetscCheck(linked == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: %s", path, strerror(errno));
  PetscFunctionReturn(0);
}

static int IsJobFile(const struct dirent *e)
{
  const size_t n = strlen(e->d_name);
  return e->d_name[0] != '.' && n > 5 && n - 5 < TALUS_JOB_ID_LEN && !strcmp(e->d_name + n - 5, ".json");
}

static int CompareNames(const struct dirent **a, const struct dirent **b)
{
  return strcmp((*a)->d_name, (*b)->d_name);
}

PetscErrorCode TalusCampaignListJobs(const char campaign[], PetscInt *n, char ***ids)
{
  char            queue[PETSC_MAX_PATH_LEN];
  struct dirent **list = NULL;
  int             count;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(queue, sizeof(queue), "%s/queue", campaign));
  count = scandir(queue, &list, IsJobFile, CompareNames);
  PetscCheck(count >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "campaign %s: cannot read %s: %s", campaign, queue,
             strerror(errno));
  *n = count;
  PetscCall(PetscMalloc(sizeof(char *) * (size_t)(count + 1) + (size_t)count * TALUS_JOB_ID_LEN, ids));
  for (int k = 0; k < count; k++) {
    (*ids)[k] = (char *)(*ids + count + 1) + (size_t)k * TALUS_JOB_ID_LEN;
    PetscCall(PetscStrncpy((*ids)[k], list[k]->d_name, strlen(list[k]->d_name) - 4)); /* without .json */
    free(list[k]);
  }
  (*ids)[count] = NULL;
  free(list);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCampaignReadJob(const char campaign[], const char id[], TalusJob *job, char fault[], size_t size)
{
  char         path[PETSC_MAX_PATH_LEN];
  json_error_t error;
  json_t      *root, *file, *scene, *overrides;
  size_t       len = 0, k;
  json_t      *line;

  PetscFunctionBegin;
  PetscCall(TalusJobReset(job));
  fault[0] = 0;
  PetscCall(PetscStrncpy(job->id, id, sizeof(job->id)));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/queue/%s.json", campaign, id));
  root = json_load_file(path, 0, &error);
  if (!root) {
    PetscCall(PetscSNPrintf(fault, size, "%s:%d: not a job file: %s", path, error.line, error.text));
    PetscFunctionReturn(0);
  }
  file = json_object_get(root, "scene_file"), scene = json_object_get(root, "scene");
  overrides = json_object_get(root, "overrides");
  if (!json_is_string(file) || !json_is_string(scene) || !json_is_array(overrides))
    PetscCall(PetscSNPrintf(fault, size,
                            "%s: not a job file: it needs \"scene_file\" and \"scene\" (strings) and \"overrides\" (a "
                            "list of PATH=VALUE strings)",
                            path));
  json_array_foreach(overrides, k, line)
  {
    if (!json_is_string(line) || !strchr(json_string_value(line), '=') || strchr(json_string_value(line), '\n')) {
      PetscCall(PetscSNPrintf(fault, size, "%s: overrides[%zu] is not a PATH=VALUE string", path, k));
      break;
    }
    len += strlen(json_string_value(line)) + 1;
  }
  if (!fault[0]) {
    PetscCall(PetscStrncpy(job->scene_file, json_string_value(file), sizeof(job->scene_file)));
    PetscCall(PetscStrallocpy(json_string_value(scene), &job->scene_text));
    PetscCall(PetscCalloc1(len + 1, &job->overrides));
    size_t at = 0;
    json_array_foreach(overrides, k, line)
    {
      const size_t n = strlen(json_string_value(line));
      if (k) job->overrides[at++] = '\n';
      memcpy(job->overrides + at, json_string_value(line), n), at += n;
    }
  }
  json_decref(root);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusJobReset(TalusJob *job)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(job->scene_text));
  PetscCall(PetscFree(job->overrides));
  PetscCall(PetscMemzero(job, sizeof(*job)));
  PetscFunctionReturn(0);
}
