/*
 * A campaign's status (include/talus/campaign.h): every job's state gathered into one JSON
 * document, printed by talus status -json and kept as CAMPAIGN/status.json by the servers.
 */
#define _GNU_SOURCE /* F_OFD_SETLKW */
#include <talus/campaign.h>
#include "../scene/scene_reader.h"
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

/* A job's state, with a "running" job whose lock nobody holds (its server died) shown as interrupted */
static PetscErrorCode EffectiveState(const char campaign[], const char id[], TalusJobStatus *s)
{
  PetscBool held;

  PetscFunctionBegin;
  PetscCall(TalusCampaignReadState(campaign, id, s));
  if (s->state == TALUS_JOB_RUNNING) {
    PetscCall(TalusCampaignJobLocked(campaign, id, &held));
    if (!held) {
      s->state = TALUS_JOB_INTERRUPTED;
      PetscCall(PetscStrncpy(s->reason, "server gone", sizeof(s->reason)));
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCampaignCountStates(const char campaign[], PetscInt count[5])
{
  PetscInt n;
  char   **ids;

  PetscFunctionBegin;
  PetscCall(TalusCampaignListJobs(campaign, &n, &ids));
  for (int k = 0; k < 5; k++) count[k] = 0;
  for (PetscInt k = 0; k < n; k++) {
    TalusJobStatus s;
    PetscCall(EffectiveState(campaign, ids[k], &s));
    count[s.state]++;
  }
  PetscCall(PetscFree(ids));
  PetscFunctionReturn(0);
}

/* One job's entry */
static PetscErrorCode JobEntry(const char campaign[], const char id[], json_t **entry, TalusJobStatus *s)
{
  TalusJob job = {0};
  char     fault[512];

  PetscFunctionBegin;
  PetscCall(EffectiveState(campaign, id, s));
  PetscCall(TalusCampaignReadJob(campaign, id, &job, fault, sizeof(fault)));
  *entry = json_object();
  json_object_set_new(*entry, "id", json_string(id));
  json_object_set_new(*entry, "state", json_string(TalusJobStates[s->state]));
  json_object_set_new(*entry, "group", s->group >= 0 ? json_integer(s->group) : json_null());
  json_object_set_new(*entry, "ranks", json_integer(s->ranks));
  json_object_set_new(*entry, "attempts", json_integer(s->attempts));
  json_object_set_new(*entry, "step", json_integer(s->step));
  json_object_set_new(*entry, "t", json_real(s->t));
  json_object_set_new(*entry, "t_final", json_real(s->t_final));
  json_object_set_new(*entry, "wall_s", json_real(s->wall_s));
  json_object_set_new(*entry, "eta_s",
                      s->eta_s >= 0.0 && s->state == TALUS_JOB_RUNNING ? json_real(s->eta_s) : json_null());
  json_object_set_new(*entry, "reason", json_string(s->reason));
  json_object_set_new(*entry, "message", json_string(fault[0] && !s->message[0] ? fault : s->message));
  json_object_set_new(*entry, "overrides", SceneOverridesJSON(job.overrides));
  PetscCall(TalusJobReset(&job));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCampaignStatusJSON(const char campaign[], char **text)
{
  PetscInt  n, count[5] = {0}, done = 0;
  char    **ids, now[32], *dumped;
  json_t   *root = json_object(), *jobs = json_array(), *counts = json_object();
  PetscReal running_eta = 0.0, done_wall = 0.0;
  PetscBool eta_known = PETSC_TRUE;
  time_t    clock     = time(NULL);

  PetscFunctionBegin;
  PetscCall(TalusCampaignListJobs(campaign, &n, &ids));
  for (PetscInt k = 0; k < n; k++) {
    TalusJobStatus s;
    json_t        *entry = NULL;
    PetscCall(JobEntry(campaign, ids[k], &entry, &s));
    json_array_append_new(jobs, entry);
    count[s.state]++;
    if (s.state == TALUS_JOB_DONE) done++, done_wall += s.wall_s;
    if (s.state == TALUS_JOB_RUNNING) {
      if (s.eta_s >= 0.0) running_eta += s.eta_s;
      else eta_known = PETSC_FALSE;
    }
  }
  PetscCall(PetscFree(ids));
  for (int k = 0; k < 5; k++) json_object_set_new(counts, TalusJobStates[k], json_integer(count[k]));
  strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime(&clock));
  json_object_set_new(root, "campaign", json_string(campaign));
  json_object_set_new(root, "updated", json_string(now));
  json_object_set_new(root, "total", json_integer(n));
  json_object_set_new(root, "counts", counts);
  { /* the running jobs' ETAs, and the jobs still to start at the done ones' mean wall time, spread over
       as many jobs at a time as are running now */
    const PetscInt waiting = count[TALUS_JOB_QUEUED] + count[TALUS_JOB_INTERRUPTED];
    const PetscInt slots   = PetscMax(1, count[TALUS_JOB_RUNNING]);
    if (waiting && !done) eta_known = PETSC_FALSE;
    json_object_set_new(root, "eta_s",
                        eta_known ? json_real((running_eta + (done ? waiting * done_wall / done : 0.0)) / slots)
                                  : json_null());
  }
  json_object_set_new(root, "jobs", jobs);
  dumped = json_dumps(root, JSON_INDENT(1));
  json_decref(root);
  PetscCheck(dumped, PETSC_COMM_SELF, PETSC_ERR_MEM, "cannot print the status of %s", campaign);
  PetscCall(PetscStrallocpy(dumped, text));
  free(dumped);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCampaignWriteStatus(const char campaign[])
{
  char         path[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN], *text;
  struct flock l;
  int          fd, err = 0;
  FILE        *fp;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/.status.lock", campaign));
  fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  PetscCheck(fd >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s: %s", path, strerror(errno));
  memset(&l, 0, sizeof(l));
  l.l_type = F_WRLCK, l.l_whence = SEEK_SET;
  if (fcntl(fd, F_OFD_SETLKW, &l) != 0) err = errno; /* one writer at a time: the last one holds every change */
  if (!err) {
    PetscErrorCode ierr = TalusCampaignStatusJSON(campaign, &text);
    if (ierr) {
      close(fd);
      PetscCall(ierr);
    }
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/status.json", campaign));
    PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s/.status.json.%d.tmp", campaign, (int)getpid()));
    if (!(fp = fopen(tmp, "w"))) err = errno;
    else {
      if (fputs(text, fp) < 0 || fputc('\n', fp) == EOF) err = errno ? errno : EIO;
      if (fclose(fp) != 0 && !err) err = errno;
      if (!err && rename(tmp, path) != 0) err = errno;
      if (err) (void)unlink(tmp);
    }
    PetscCall(PetscFree(text));
  }
  close(fd);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s/status.json: %s", campaign, strerror(err));
  PetscFunctionReturn(0);
}
