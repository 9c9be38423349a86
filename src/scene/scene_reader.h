/*
 * Reading a scene's YAML document (src/scene/scene_reader.c): numbers, integers, booleans, names and
 * vectors from nodes, the keys of a mapping, each mistake reported as FILE:LINE: what is wrong.
 */
#ifndef TALUS_SCENE_READER_H
#define TALUS_SCENE_READER_H
#include <petscsys.h>
#include <yaml.h>
#include <jansson.h>
#include <talus/scene.h>

/* The names bodies are given in a scene (joints name their bodies), with their global ids. */
typedef struct {
  PetscInt n;
  struct {
    char     name[64];
    PetscInt id;
  } * entry;
} SceneBodyNames;

typedef struct {
  const char     *file;
  yaml_document_t doc;
  MPI_Comm        comm;
  SceneBodyNames *names;      /* the reader's owner frees it */
  PetscInt        noverrides; /* -set PATH=VALUE, applied to doc before it is read (scene_overrides.c) */
  char          **override;
  PetscInt        nlisted;    /* bodies listed under bodies: (every rank reads them), which links may name */
  PetscBool       check_only; /* bodies counted, not made, and no memory check (TalusSceneCheckText) */
} SceneReader;

/* A generator, read and checked (scene_generators.c): its spheres and, for random_fill, its cells */
typedef struct {
  PetscBool          lattice; /* or random_fill */
  yaml_node_t       *node;
  PetscReal          radius, mass, velocity[3];
  PetscInt           material;
  PetscInt           clump; /* -1: spheres; else the grains are compounds of this description (`parts`) */
  unsigned long long seed;
  double             count;                      /* its spheres (a double until checked against the indices) */
  PetscReal          box_lo[3], box_hi[3];       /* a box that holds every sphere whole */
  PetscReal          origin[3], spacing, jitter; /* lattice */
  PetscInt           n[3];
  PetscReal          cell[3]; /* random_fill: cells of the box, ncell[d] along each axis */
  unsigned long long ncell[3], ncells, keys[4];
  int                half_bits;
} SceneGenerator;

/* A node an override made has this line and up (its index added), so that its mistakes name the override */
#define SCENE_OVERRIDE_LINE ((size_t)1 << 40)
#define SCENE_LINE(node)    ((int)(node)->start_mark.line + 1)
#define SceneError(r, node, ...) \
  do { \
    char msg_[512]; \
    PetscCall(PetscSNPrintf(msg_, sizeof(msg_), __VA_ARGS__)); \
    if ((node)->start_mark.line >= SCENE_OVERRIDE_LINE) \
      SETERRQ((r)->comm, PETSC_ERR_USER_INPUT, "-set %s: %s", SceneOverrideOf(r, node), msg_); \
    SETERRQ((r)->comm, PETSC_ERR_USER_INPUT, "%s:%d: %s", (r)->file, SCENE_LINE(node), msg_); \
  } while (0)

/* scene_overrides.c: the overrides ("PATH=VALUE" lines, or NULL) kept in kept (size bytes: refused when
   longer) and applied to r's document, each mistake "-set PATH=VALUE: ..."; r's copies of them freed
   (on errors too); overrides as a JSON object {PATH: value} */
/* The scene from its document (scene.c) */
PETSC_INTERN PetscErrorCode SceneRead(SceneReader *r, yaml_node_t *root, TalusSim sim, TalusScene *scene);
PETSC_INTERN PetscErrorCode SceneApplyOverrides(SceneReader *r, const char overrides[], char kept[], size_t size);
PETSC_INTERN PetscErrorCode SceneDestroyOverrides(SceneReader *r);
PETSC_INTERN json_t        *SceneOverridesJSON(const char overrides[]);

/* the override ("PATH=VALUE") a node came from (scene_reader.c, for SceneError) */
PETSC_INTERN const char *SceneOverrideOf(SceneReader *r, yaml_node_t *node);
/* "a scalar", "a list", "a mapping": for messages */
PETSC_INTERN const char    *SceneNodeKind(yaml_node_t *node);
PETSC_INTERN PetscErrorCode SceneGetNumber(SceneReader *r, yaml_node_t *node, const char what[], PetscReal *value);
PETSC_INTERN PetscErrorCode SceneGetInt(SceneReader *r, yaml_node_t *node, const char what[], PetscInt *value);
PETSC_INTERN PetscErrorCode SceneGetBool(SceneReader *r, yaml_node_t *node, const char what[], PetscBool *value);
PETSC_INTERN PetscErrorCode SceneGetString(SceneReader *r, yaml_node_t *node, const char what[], const char **value);
PETSC_INTERN PetscErrorCode SceneGetVector(SceneReader *r, yaml_node_t *node, const char what[], PetscInt n,
                                           PetscReal *v);
PETSC_INTERN PetscErrorCode SceneCheckKeys(SceneReader *r, yaml_node_t *map, const char what[],
                                           const char *const allowed[]);
PETSC_INTERN yaml_node_t   *SceneLookup(SceneReader *r, yaml_node_t *map, const char key[]);
PETSC_INTERN PetscErrorCode SceneRequireKey(SceneReader *r, yaml_node_t *map, const char key[], const char what[],
                                            yaml_node_t **value);
PETSC_INTERN PetscErrorCode SceneOptionalNumber(SceneReader *r, yaml_node_t *map, const char key[], PetscReal *value);
PETSC_INTERN PetscErrorCode SceneOptionalVector(SceneReader *r, yaml_node_t *map, const char key[], PetscReal v[3]);
/* Each entry of the list `what` (joints, forces, springs) read by read(r, entry, ctx) */
/* map[key], when given, as a table of time with `columns` values a point ([[t, y1, ...], ...], times
   increasing) added to the simulation: *handle is its handle (TalusSimAddTable), or 0 without key. */
PETSC_INTERN PetscErrorCode SceneOptionalTable(SceneReader *r, yaml_node_t *map, const char key[], PetscInt columns,
                                               TalusSim sim, PetscInt *handle);
PETSC_INTERN PetscErrorCode SceneReadList(SceneReader *r, yaml_node_t *list, const char what[],
                                          PetscErrorCode (*read)(SceneReader *, yaml_node_t *, void *), void *ctx);

/* A body's (or a compound's part's) shape and size from the keys of its mapping (scene_shapes.c); body: its number,
   part: the part's (-1: a body), for messages. A hull's or a compound's description is added to
   include/talus/shape_data.h's table and size[0] is its number there (scene_shapes.c: SceneReadDescription, from
   the shape's size key's node). */
PETSC_INTERN PetscErrorCode SceneShapeOf(SceneReader *r, yaml_node_t *map, PetscInt body, PetscInt part,
                                         TalusShape *shape, PetscReal size[3]);
PETSC_INTERN PetscErrorCode SceneReadDescription(SceneReader *r, yaml_node_t *node, TalusShape shape, PetscInt body,
                                                 PetscReal size[3]);
/* keys[n..] := every shape's size keys (each once), then NULL: a body's or a part's allowed keys */
PETSC_INTERN void SceneAddSizeKeys(const char *keys[], PetscInt n);
/* A rotation [axis x, y, z, angle in degrees] as Euler parameters */
PETSC_INTERN PetscErrorCode SceneRotationOf(SceneReader *r, yaml_node_t *node, PetscReal q[4]);

/* bodies_file: (scene_bodies_file.c) */
typedef struct {
  yaml_node_t *node;
  char         path[PETSC_MAX_PATH_LEN], group[64];
  PetscInt     frame; /* of a frames file; -1: the last */
  PetscInt     material;
  PetscReal    mass;                 /* 0: the material's density */
  double       rows;                 /* the table's rows (some may be empty) */
  PetscInt     bodies;               /* the bodies read, over all ranks (the rows not empty) */
  PetscReal    box_lo[3], box_hi[3]; /* of all the bodies read, over the ranks */
} SceneBodiesFile;
/* The file checked and its rows counted (collective); then this rank's slice of the rows read into b,
   ids from first_id in row order over the ranks */
PETSC_INTERN PetscErrorCode SceneReadBodiesFile(SceneReader *r, yaml_node_t *map, TalusBodies *b, SceneBodiesFile *f);
PETSC_INTERN PetscErrorCode SceneReadBodiesFileRows(SceneReader *r, SceneBodiesFile *f, const TalusScene *scene,
                                                    PetscInt first_id, TalusBodies *b);

/* scene_generators.c: a generator checked and counted; then the spheres of it this rank makes, with ids
   from first_id (the same for every number of ranks) */
PETSC_INTERN PetscErrorCode SceneReadGenerator(SceneReader *r, yaml_node_t *entry, const TalusScene *scene,
                                               TalusBodies *b, SceneGenerator *g);
PETSC_INTERN PetscErrorCode SceneGenerate(SceneReader *r, const SceneGenerator *g, PetscInt first_id, TalusBodies *b);
/* scene_placement.c: every body inside the domain and none overlapping another (collective) */
PETSC_INTERN PetscErrorCode SceneCheckPlacement(SceneReader *r, yaml_node_t *where, TalusSim sim,
                                                const TalusScene *scene);
/* scene.c: a body's material (the only one may be left out) */
PETSC_INTERN PetscErrorCode SceneMaterialOf(SceneReader *r, yaml_node_t *map, TalusBodies *b, PetscInt *material);
/* scene.c: map's mass (positive), or 0 where the material's density gives it (else an error: "WHO a mass, ...") */
PETSC_INTERN PetscErrorCode SceneMassOf(SceneReader *r, yaml_node_t *map, TalusBodies *b, PetscInt material,
                                        const char who[], PetscReal *mass);

/* scene_joints.c: the joints: list, once every body has its id (names from r->names) */
PETSC_INTERN PetscErrorCode SceneReadJoints(SceneReader *r, yaml_node_t *list, TalusSim sim);
/* A body's name: key (unique; not world, not a number), registered with its id */
PETSC_INTERN PetscErrorCode SceneReadBodyName(SceneReader *r, yaml_node_t *map, PetscInt id);
/* A body named in a joint, a spring or a force: "world" (TALUS_WORLD), a body's name, or its id (a listed
   body's: generated spheres are on one rank each and cannot be linked) */
PETSC_INTERN PetscErrorCode SceneBodyRef(SceneReader *r, yaml_node_t *node, PetscInt *id);
/* scene_drives.c: the bodies' motion and surface_velocity keys (bodies:, whose ids are their
   places in it), the forces: and springs: lists */
PETSC_INTERN PetscErrorCode SceneReadBodyDrives(SceneReader *r, yaml_node_t *bodies, TalusSim sim);
PETSC_INTERN PetscErrorCode SceneReadForces(SceneReader *r, yaml_node_t *list, TalusSim sim);
PETSC_INTERN PetscErrorCode SceneReadSprings(SceneReader *r, yaml_node_t *list, TalusSim sim);
/* scene_relaxation.c: the materials' relaxation: keys, once the time step is known; one relaxation: */
PETSC_INTERN PetscErrorCode SceneReadRelaxations(SceneReader *r, yaml_node_t *materials, TalusSim sim);
PETSC_INTERN PetscErrorCode SceneReadRelaxation(SceneReader *r, yaml_node_t *node, TalusSim sim, PetscReal *zeta,
                                                PetscReal *delta);
/* A material's or joint's `compliance: {stiffness, damping}` (seed 004; docs/compliance.md): K > 0, B >= 0;
   for a material (grid and modulus not NULL) its grid (an elastic foundation's points per side, 0 when
   absent) and, instead of K, the Hertz modulus E* > 0 (0 when absent) */
PETSC_INTERN PetscErrorCode SceneReadCompliance(SceneReader *r, yaml_node_t *node, PetscReal *stiffness,
                                                PetscReal *damping, PetscInt *grid, PetscReal *modulus);

#endif
