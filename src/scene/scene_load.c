/*
 * Reading a scene: its YAML text (a file, or a campaign job's copy of one) into one libyaml document,
 * checked for nesting and repeated keys, changed by its -set overrides (scene_overrides.c), then read
 * into the simulation (SceneRead, scene.c).
 */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include <talus/scene.h>
#include "scene_reader.h"
#include <stdio.h>

/* Deeper than any scene needs: libyaml's loader takes time quadratic in the depth (80,000 brackets:
   13 s), so the events are read first, which stops at the first level too deep. */
#define TALUS_SCENE_MAX_DEPTH 64

static PetscErrorCode CheckNesting(MPI_Comm comm, const char file[], FILE *fp)
{
  yaml_parser_t parser;
  yaml_event_t  event;
  int           depth = 0, line = 0, ok = 1, done = 0;

  PetscFunctionBegin;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_file(&parser, fp);
  while (!done && depth <= TALUS_SCENE_MAX_DEPTH) {
    if (!yaml_parser_parse(&parser, &event)) {
      ok = 0; /* the loader below reports the syntax error with its line */
      break;
    }
    if (event.type == YAML_SEQUENCE_START_EVENT || event.type == YAML_MAPPING_START_EVENT) depth++;
    if (event.type == YAML_SEQUENCE_END_EVENT || event.type == YAML_MAPPING_END_EVENT) depth--;
    line = (int)event.start_mark.line + 1;
    done = event.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&event);
  }
  yaml_parser_delete(&parser);
  rewind(fp);
  PetscCheck(!ok || depth <= TALUS_SCENE_MAX_DEPTH, comm, PETSC_ERR_USER_INPUT,
             "%s:%d: lists and mappings nested deeper than %d levels: not a scene", file, line, TALUS_SCENE_MAX_DEPTH);
  PetscFunctionReturn(0);
}

/* A key given twice in one mapping (time_step: 0.01, then time_step: 0.5) is an error, not the first
   value silently used. Every mapping of the document, once. */
static PetscErrorCode CheckDuplicateKeys(SceneReader *r)
{
  PetscFunctionBegin;
  for (yaml_node_t *map = r->doc.nodes.start; map < r->doc.nodes.top; map++) {
    if (map->type != YAML_MAPPING_NODE) continue;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
      yaml_node_t *key = yaml_document_get_node(&r->doc, p->key);
      if (key->type != YAML_SCALAR_NODE) continue;
      for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
        yaml_node_t *earlier = yaml_document_get_node(&r->doc, q->key);
        if (earlier->type == YAML_SCALAR_NODE &&
            !strcmp((const char *)earlier->data.scalar.value, (const char *)key->data.scalar.value))
          SceneError(r, key, "key \"%s\" given twice in one mapping (first at line %d)",
                     (const char *)key->data.scalar.value, SCENE_LINE(earlier));
      }
    }
  }
  PetscFunctionReturn(0);
}

/* The scene in fp (a file, or a job's text in memory), named file in messages */
static PetscErrorCode SceneLoadStream(MPI_Comm comm, const char file[], FILE *fp, const char overrides[], TalusSim sim,
                                      TalusScene *scene, PetscBool check_only)
{
  SceneBodyNames names = {0};
  SceneReader    r     = {.file = file, .comm = comm, .names = &names, .check_only = check_only};
  yaml_parser_t  parser;
  yaml_node_t   *root;
  int            loaded;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(scene, sizeof(*scene)));
  scene->overlap_tolerance = 1e-6;
  PetscCall(PetscStrncpy(scene->file, file, sizeof(scene->file)));
  for (int d = 0; d < 3; d++) scene->domain_min[d] = -PETSC_MAX_REAL, scene->domain_max[d] = PETSC_MAX_REAL;
  {
    const char *base = strrchr(file, '/'), *dot;
    base             = base ? base + 1 : file;
    PetscCall(PetscStrncpy(scene->name, base, sizeof(scene->name)));
    dot = strrchr(scene->name, '.');
    if (dot) scene->name[dot - scene->name] = 0;
  }
  PetscCall(CheckNesting(comm, file, fp));
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_file(&parser, fp);
  loaded = yaml_parser_load(&parser, &r.doc);
  if (!loaded) {
    char msg[512];
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s:%d: not valid YAML: %s", file, (int)parser.problem_mark.line + 1,
                            parser.problem ? parser.problem : "parse error"));
    yaml_parser_delete(&parser);
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s", msg);
  }
  yaml_parser_delete(&parser);
  root = yaml_document_get_root_node(&r.doc);
  if (!root) {
    yaml_document_delete(&r.doc);
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s: the scene file is empty", file);
  }
  ierr = CheckDuplicateKeys(&r); /* the file's own, before the overrides change it */
  if (!ierr) ierr = SceneApplyOverrides(&r, overrides, scene->overrides, sizeof(scene->overrides));
  if (!ierr) ierr = SceneRead(&r, yaml_document_get_root_node(&r.doc), sim, scene); /* nodes may have moved */
  yaml_document_delete(&r.doc);                                                     /* on errors too */
  PetscCall(PetscFree(names.entry));
  PetscCall(SceneDestroyOverrides(&r));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSceneLoad(MPI_Comm comm, const char file[], const char overrides[], TalusSim sim, TalusScene *scene)
{
  FILE          *fp = fopen(file, "rb");
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCheck(fp, comm, PETSC_ERR_FILE_OPEN, "%s: cannot open the scene file", file);
  ierr = SceneLoadStream(comm, file, fp, overrides, sim, scene, PETSC_FALSE);
  fclose(fp);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

static PetscErrorCode SceneLoadText(MPI_Comm comm, const char file[], const char text[], const char overrides[],
                                    TalusSim sim, TalusScene *scene, PetscBool check_only)
{
  FILE          *fp = text[0] ? fmemopen((void *)text, strlen(text), "r") : NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCheck(text[0], comm, PETSC_ERR_USER_INPUT, "%s: the scene file is empty", file);
  PetscCheck(fp, comm, PETSC_ERR_MEM, "%s: cannot read the scene's text", file);
  ierr = SceneLoadStream(comm, file, fp, overrides, sim, scene, check_only);
  fclose(fp);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSceneLoadText(MPI_Comm comm, const char file[], const char text[], const char overrides[],
                                  TalusSim sim, TalusScene *scene)
{
  PetscFunctionBegin;
  PetscCall(SceneLoadText(comm, file, text, overrides, sim, scene, PETSC_FALSE));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSceneCheckText(MPI_Comm comm, const char file[], const char text[], const char overrides[],
                                   TalusScene *scene)
{
  TalusSim       sim;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(TalusSimCreate(comm, &sim));
  ierr = SceneLoadText(comm, file, text, overrides, sim, scene, PETSC_TRUE);
  PetscCall(TalusSimDestroy(&sim));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSceneReadText(MPI_Comm comm, const char file[], char **text)
{
  long        len = -1;
  FILE       *fp  = NULL;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && (fp = fopen(file, "rb"))) {
    if (fseek(fp, 0, SEEK_END) == 0) len = ftell(fp);
    rewind(fp);
  }
  PetscCallMPI(MPI_Bcast(&len, 1, MPI_LONG, 0, comm));
  if (len < 0 && fp) fclose(fp);
  PetscCheck(len >= 0, comm, PETSC_ERR_FILE_OPEN, "%s: cannot open the scene file", file);
  PetscCall(PetscCalloc1(len + 1, text));
  if (fp) {
    if (len > 0 && fread(*text, 1, (size_t)len, fp) != (size_t)len) len = -1;
    fclose(fp);
  }
  PetscCallMPI(MPI_Bcast(&len, 1, MPI_LONG, 0, comm));
  if (len < 0) PetscCall(PetscFree(*text));
  PetscCheck(len >= 0, comm, PETSC_ERR_FILE_READ, "%s: cannot read the scene file", file);
  PetscCallMPI(MPI_Bcast(*text, (PetscMPIInt)len, MPI_CHAR, 0, comm));
  PetscFunctionReturn(0);
}
