/*
 * The run's options as text: what a checkpoint stores (the options database without the options
 * that describe one job, such as -restart or -walltime) and what a restart puts back, under the
 * options given on its own command line.
 */
#define _DEFAULT_SOURCE /* strtok_r */
#include "options_io.h"
#include "../grow.h"
#include <stdlib.h>

/* Options that describe one job, not the run: never stored, never restored. */
static const char *const job_options[] = {"-restart", "-walltime", "-walltime_margin",
                                          "-help",    "-h",        "-checkpoint_test_kill",
                                          NULL};

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
 * Walks "-name [value] -name [value] ..." (PetscOptionsGetAll's format; a token starting with '-'
 * is a value when it is a number), calling fn(name, value or NULL, ctx).
 */
static PetscErrorCode ForEachOption(const char options[], PetscErrorCode (*fn)(const char *, const char *, void *),
                                    void      *ctx)
{
  char *copy, *tok[2] = {NULL, NULL}, *save = NULL, *t;

  PetscFunctionBegin;
  PetscCall(PetscStrallocpy(options, &copy));
  for (t = strtok_r(copy, " \t\n", &save);; t = strtok_r(NULL, " \t\n", &save)) {
    const PetscBool is_name = (PetscBool)(t && t[0] == '-' && !IsNumber(t));
    if (!t || is_name) {
      if (tok[0]) PetscCall(fn(tok[0], tok[1], ctx));
      tok[0] = t, tok[1] = NULL;
      if (!t) break;
    } else if (tok[0] && !tok[1]) tok[1] = t;
  }
  PetscCall(PetscFree(copy));
  PetscFunctionReturn(0);
}

typedef struct {
  char    *buf;
  size_t   len;
  PetscInt cap;
} Text;

static PetscErrorCode KeepRunOption(const char name[], const char value[], void *ctx)
{
  Text  *t    = (Text *)ctx;
  size_t need = strlen(name) + (value ? strlen(value) : 0) + 3;

  PetscFunctionBegin;
  if (IsJobOption(name) || !strncmp(name, "-checkpoint_test", 16)) PetscFunctionReturn(0);
  PetscCall(TalusGrowArray(1, (PetscInt)(t->len + need), &t->cap, &t->buf));
  t->len += (size_t)snprintf(t->buf + t->len, (size_t)t->cap - t->len, "%s%s%s%s", t->len ? " " : "", name,
                             value ? " " : "", value ? value : "");
  PetscFunctionReturn(0);
}

static PetscErrorCode SetUnlessGiven(const char name[], const char value[], void *ctx)
{
  PetscBool given;

  PetscFunctionBegin;
  if (IsJobOption(name)) PetscFunctionReturn(0);
  PetscCall(PetscOptionsHasName(NULL, NULL, name, &given));
  if (!given) PetscCall(PetscOptionsSetValue(NULL, name, value));
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

PetscErrorCode TalusOptionsInsertUnlessGiven(const char text[])
{
  PetscFunctionBegin;
  PetscCall(ForEachOption(text, SetUnlessGiven, NULL));
  PetscFunctionReturn(0);
}
