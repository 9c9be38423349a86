/*
 * The run's options as text: what a checkpoint stores (the options database without the options
 * that describe one job, such as -restart or -walltime) and what a restart puts back, under the
 * options given on its own command line.
 */
#include <talus/options.h>
#include "../grow.h"
#include <stdlib.h>

/* Options that describe one job, not the run: never stored, never restored. */
static const char *const job_options[] = {"-restart", "-walltime", "-walltime_margin", "-help", "-h",
                                          "-checkpoint_test_kill", "-overwrite",
                                          /* talus serve's own: a server's, given to none of its jobs */
                                          "-serve_group_size", "-serve_idle_exit", "-serve_status_interval",
                                          "-serve_checkpoint_interval", NULL};

static PetscBool IsNumber(const char s[])
{
  char *end;
  (void)strtod(s, &end);
  return (PetscBool)(end != s && *end == 0);
}

static PetscBool IsJobOption(const char name[])
{
  for (int k = 0; job_options[k]; k++)
    if (!strcmp(name, job_options[k])) return PETSC_TRUE;
  return PETSC_FALSE;
}

/*
 * The next token of text from *pos: a double-quoted string (\" and \\ inside stand for " and \), which
 * is always a value, or a run of characters other than blanks. Written into out (as long as text),
 * NULL at the end.
 */
static const char *NextToken(const char **pos, char out[], PetscBool *quoted)
{
  const char *p = *pos;
  size_t      n = 0;

  while (*p == ' ' || *p == '\t' || *p == '\n') p++;
  if (!*p) return NULL;
  *quoted = (PetscBool)(*p == '"');
  if (*quoted) {
    for (p++; *p && *p != '"'; p++) out[n++] = (*p == '\\' && (p[1] == '"' || p[1] == '\\')) ? *++p : *p;
    if (*p) p++;
  } else
    while (*p && *p != ' ' && *p != '\t' && *p != '\n') out[n++] = *p++;
  out[n] = 0;
  *pos   = p;
  return out;
}

/*
 * Walks "-name [value] -name [value] ..." (PetscOptionsGetAll's format, with values quoted where they
 * hold blanks or quotes; an unquoted token starting with '-' is a value when it is a number), calling
 * fn(name, value or NULL, ctx).
 */
static PetscErrorCode ForEachOption(const char options[], PetscErrorCode (*fn)(const char *, const char *, void *),
                                    void      *ctx)
{
  const char *pos = options;
  char       *buf[3], *name = NULL, *value = NULL, *t;
  size_t      len = strlen(options) + 1;
  int         free_slot;
  PetscBool   quoted = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(len, &buf[0], len, &buf[1], len, &buf[2]));
  for (;;) {
    free_slot = 0; /* a slot neither the name nor the value occupies */
    while (buf[free_slot] == name || buf[free_slot] == value) free_slot++;
    t = (char *)NextToken(&pos, buf[free_slot], &quoted);
    if (!t || (!quoted && t[0] == '-' && !IsNumber(t))) {
      if (name) PetscCall(fn(name, value, ctx));
      name = t, value = NULL;
      if (!t) break;
    } else if (name && !value) value = t;
  }
  PetscCall(PetscFree3(buf[0], buf[1], buf[2]));
  PetscFunctionReturn(0);
}

/* A value as the walk above reads it back: quoted where it is empty, holds blanks or quotes, or
   would read as a name */
static PetscBool NeedsQuotes(const char value[])
{
  if (!value[0] || (value[0] == '-' && !IsNumber(value))) return PETSC_TRUE;
  for (const char *p = value; *p; p++)
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '"' || *p == '\\') return PETSC_TRUE;
  return PETSC_FALSE;
}

typedef struct {
  char    *buf;
  size_t   len;
  PetscInt cap;
} Text;

/* Appends "-name [value]" with the value as the database holds it (PetscOptionsGetAll's text cuts a value
   at its first blank), quoted where needed. */
static PetscErrorCode KeepRunOption(const char name[], const char value[], void *ctx)
{
  Text       *t = (Text *)ctx;
  const char *stored;
  PetscBool   set;
  size_t      need;

  PetscFunctionBegin;
  if (IsJobOption(name) || !strncmp(name, "-checkpoint_test", 16)) PetscFunctionReturn(0);
  PetscCall(PetscOptionsFindPair(NULL, NULL, name, &stored, &set));
  if (!set) PetscFunctionReturn(0); /* a word of another option's value that looked like a name */
  value = stored;                   /* NULL for a flag */
  need  = strlen(name) + (value ? 2 * strlen(value) + 2 : 0) + 3;
  PetscCall(TalusGrowArray(1, (PetscInt)(t->len + need), &t->cap, &t->buf));
  t->len += (size_t)snprintf(t->buf + t->len, (size_t)t->cap - t->len, "%s%s", t->len ? " " : "", name);
  if (!value) PetscFunctionReturn(0);
  if (!NeedsQuotes(value)) {
    t->len += (size_t)snprintf(t->buf + t->len, (size_t)t->cap - t->len, " %s", value);
    PetscFunctionReturn(0);
  }
  t->buf[t->len++] = ' ';
  t->buf[t->len++] = '"';
  for (const char *p = value; *p; p++) {
    if (*p == '"' || *p == '\\') t->buf[t->len++] = '\\';
    t->buf[t->len++] = *p;
  }
  t->buf[t->len++] = '"';
  t->buf[t->len]   = 0;
  PetscFunctionReturn(0);
}

typedef struct {
  const char *name;
  PetscBool   found;
} Lookup;

static PetscErrorCode MatchName(const char name[], const char value[], void *ctx)
{
  Lookup *l = (Lookup *)ctx;

  (void)value;
  if (!strcmp(name, l->name)) l->found = PETSC_TRUE;
  return 0;
}

/* Whether the database holds name, without marking it used as PetscOptionsHasName would (an option
   given on the command line and also stored in a checkpoint must still be reported if nothing reads it) */
static PetscErrorCode InDatabase(const char name[], PetscBool *found)
{
  char  *all;
  Lookup l = {name, PETSC_FALSE};

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetAll(NULL, &all));
  PetscCall(ForEachOption(all, MatchName, &l));
  PetscCall(PetscFree(all));
  *found = l.found;
  PetscFunctionReturn(0);
}

/* Options that set the same thing in two ways: at most one of each pair may be given. */
static const char *const Alternatives[][2] = {
  {"-tao_gatol", "-ccp_force_rtol"},
};

PetscErrorCode TalusOptionsGiven(const char name[], PetscBool *given)
{
  PetscFunctionBegin;
  PetscCall(InDatabase(name, given));
  for (size_t k = 0; k < sizeof(Alternatives) / sizeof(Alternatives[0]) && !*given; k++)
    for (int side = 0; side < 2; side++)
      if (!strcmp(name, Alternatives[k][side])) PetscCall(InDatabase(Alternatives[k][1 - side], given));
  PetscFunctionReturn(0);
}

static PetscErrorCode SetUnlessGiven(const char name[], const char value[], void *ctx)
{
  PetscBool given;

  PetscFunctionBegin;
  if (IsJobOption(name)) PetscFunctionReturn(0);
  PetscCall(TalusOptionsGiven(name, &given));
  if (!given) PetscCall(PetscOptionsSetValue(NULL, name, value));
  if (!given && ctx) PetscCall(TalusOptionsNoteStoredOrigin(name, (const char *)ctx));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOptionsGetRunOptions(char **text)
{
  char *all;
  Text  kept = {NULL, 0, 0};

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetAll(NULL, &all));
  PetscCall(ForEachOption(all, KeepRunOption, &kept));
  PetscCall(PetscFree(all));
  if (!kept.buf) PetscCall(PetscCalloc1(1, &kept.buf));
  *text = kept.buf;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOptionsInsertUnlessGiven(const char text[], const char origin[])
{
  PetscFunctionBegin;
  PetscCall(ForEachOption(text, SetUnlessGiven, (void *)origin));
  PetscFunctionReturn(0);
}
