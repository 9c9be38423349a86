/*
 * A campaign job's state file and lock (include/talus/campaign.h). The lock is an open file
 * description lock (F_OFD_SETLK): the kernel drops it when its holder dies, however it dies, and
 * unlike a POSIX record lock it is not dropped when the same process closes another descriptor of
 * the file (status.json's writer probes every job's lock, the job it runs included).
 */
#define _GNU_SOURCE /* F_OFD_SETLK, F_OFD_GETLK */
#include <talus/campaign.h>
#include "../io/files.h"
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <time.h>
#include <unistd.h>

const char *const TalusJobStates[] = {"queued", "running", "interrupted", "done", "failed", NULL};

PetscErrorCode TalusCampaignJobDirectory(const char campaign[], const char id[], char dir[], size_t size)
{
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(dir, size, "%s/jobs/%s", campaign, id));
  PetscFunctionReturn(0);
}

static PetscErrorCode StatePath(const char campaign[], const char id[], const char name[], char path[], size_t size)
{
  char dir[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(TalusCampaignJobDirectory(campaign, id, dir, sizeof(dir)));
  PetscCall(PetscSNPrintf(path, size, "%s/%s", dir, name));
  PetscFunctionReturn(0);
}

static PetscReal Number(json_t *root, const char key[], PetscReal dflt)
{
  json_t *v = json_object_get(root, key);
  return json_is_number(v) ? (PetscReal)json_number_value(v) : dflt;
}

static PetscErrorCode CopyString(json_t *root, const char key[], char out[], size_t size)
{
  json_t *v = json_object_get(root, key);

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(out, json_is_string(v) ? json_string_value(v) : "", size));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCampaignReadState(const char campaign[], const char id[], TalusJobStatus *s)
{
  char    path[PETSC_MAX_PATH_LEN], state[32];
  json_t *root;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  s->state = TALUS_JOB_QUEUED, s->eta_s = -1.0, s->group = -1;
  PetscCall(StatePath(campaign, id, "state.json", path, sizeof(path)));
  root = json_load_file(path, 0, NULL);
  if (!root) PetscFunctionReturn(0); /* never started (or a state file lost: the job is run again) */
  PetscCall(CopyString(root, "state", state, sizeof(state)));
  for (int k = 0; TalusJobStates[k]; k++)
    if (!strcmp(state, TalusJobStates[k])) s->state = (TalusJobState)k;
  s->group    = (PetscInt)Number(root, "group", -1);
  s->ranks    = (PetscInt)Number(root, "ranks", 0);
  s->attempts = (PetscInt)Number(root, "attempts", 0);
  s->step     = (PetscInt)Number(root, "step", 0);
  s->pid      = (PetscInt)Number(root, "pid", 0);
  s->t        = Number(root, "t", 0.0);
  s->t_final  = Number(root, "t_final", 0.0);
  s->wall_s   = Number(root, "wall_s", 0.0);
  s->eta_s    = Number(root, "eta_s", -1.0);
  PetscCall(CopyString(root, "reason", s->reason, sizeof(s->reason)));
  PetscCall(CopyString(root, "message", s->message, sizeof(s->message)));
  PetscCall(CopyString(root, "host", s->host, sizeof(s->host)));
  json_decref(root);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCampaignWriteState(const char campaign[], const char id[], const TalusJobStatus *s)
{
  char    path[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN], now[32];
  json_t *root  = json_object();
  time_t  clock = time(NULL);
  int     err   = 0;

  PetscFunctionBegin;
  strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime(&clock));
  json_object_set_new(root, "id", json_string(id));
  json_object_set_new(root, "state", json_string(TalusJobStates[s->state]));
  json_object_set_new(root, "group", s->group >= 0 ? json_integer(s->group) : json_null());
  json_object_set_new(root, "ranks", json_integer(s->ranks));
  json_object_set_new(root, "attempts", json_integer(s->attempts));
  json_object_set_new(root, "step", json_integer(s->step));
  json_object_set_new(root, "t", json_real(s->t));
  json_object_set_new(root, "t_final", json_real(s->t_final));
  json_object_set_new(root, "wall_s", json_real(s->wall_s));
  json_object_set_new(root, "eta_s", s->eta_s >= 0.0 ? json_real(s->eta_s) : json_null());
  json_object_set_new(root, "reason", json_string(s->reason));
  json_object_set_new(root, "message", json_string(s->message));
  json_object_set_new(root, "host", json_string(s->host));
  json_object_set_new(root, "pid", json_integer(s->pid));
  json_object_set_new(root, "updated", json_string(now));
  PetscCall(StatePath(campaign, id, "state.json", path, sizeof(path)));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()));
  if (json_dump_file(root, tmp, JSON_INDENT(1)) != 0) err = errno ? errno : EIO;
  else if (rename(tmp, path) != 0) err = errno;
  json_decref(root);
  if (err) (void)unlink(tmp);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: %s", path, strerror(err));
  PetscFunctionReturn(0);
}

static struct flock WholeFile(short type)
{
  struct flock l;
  memset(&l, 0, sizeof(l));
  l.l_type = type, l.l_whence = SEEK_SET, l.l_start = 0, l.l_len = 0;
  return l;
}

PetscErrorCode TalusCampaignLockJob(const char campaign[], const char id[], int *fd)
{
  char         path[PETSC_MAX_PATH_LEN];
  struct flock l = WholeFile(F_WRLCK);

  PetscFunctionBegin;
  *fd = -1;
  PetscCall(StatePath(campaign, id, "", path, sizeof(path)));
  PetscCall(TalusMakeDirectory(PETSC_COMM_SELF, path));
  PetscCall(StatePath(campaign, id, ".lock", path, sizeof(path)));
  *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  PetscCheck(*fd >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s: %s", path, strerror(errno));
  if (fcntl(*fd, F_OFD_SETLK, &l) != 0) {
    const int err = errno;
    close(*fd);
    *fd = -1;
    PetscCheck(err == EAGAIN || err == EACCES, PETSC_COMM_SELF, PETSC_ERR_LIB, "cannot lock %s: %s", path,
               strerror(err));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCampaignUnlockJob(int *fd)
{
  PetscFunctionBegin;
  if (*fd >= 0) close(*fd); /* the lock goes with its description */
  *fd = -1;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCampaignJobLocked(const char campaign[], const char id[], PetscBool *locked)
{
  char         path[PETSC_MAX_PATH_LEN];
  struct flock l = WholeFile(F_WRLCK);
  int          fd;

  PetscFunctionBegin;
  *locked = PETSC_FALSE;
  PetscCall(StatePath(campaign, id, ".lock", path, sizeof(path)));
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) PetscFunctionReturn(0); /* never taken */
  /* an OFD probe sees every other description's lock, this process's own included */
  if (fcntl(fd, F_OFD_GETLK, &l) == 0) *locked = (PetscBool)(l.l_type != F_UNLCK);
  close(fd);
  PetscFunctionReturn(0);
}
