/*
 * Scene files (YAML, read with libyaml's document API so every node keeps its line): gravity,
 * time step, end time, envelope, domain, materials, friction pairs, bodies, generators (lattice and
 * seeded random fill) and an options block for the PETSc options database. The format is in
 * docs/scene-format.md. Every mistake is reported as FILE:LINE: what is wrong and what is
 * expected, before anything runs.
 */
#include <talus/scene.h>
#include <talus/options.h>
#include "scene_reader.h"
#include <talus/shape_data.h>
#include <unistd.h>

/* A hull or a compound was given in the frame of its description; the body is its centroid in its principal axes
   (include/talus/shape_data.h), its angular velocity turned into them */
static void PlaceDescribed(TalusBodies *b, PetscInt k)
{
  const TalusShapeData *e = TalusShapeDataGet((PetscInt)b->size[3 * k]);
  PetscReal             position[3], quaternion[4], R[9], w[3];

  TalusShapeDataPlace(e, &b->position[3 * k], &b->quaternion[4 * k], position, quaternion);
  TalusQuatToMatrix(e->rotation, R);
  TalusRotateBack(R, &b->omega[3 * k], w);
  for (int d = 0; d < 3; d++) b->position[3 * k + d] = position[d], b->omega[3 * k + d] = w[d];
  for (int d = 0; d < 4; d++) b->quaternion[4 * k + d] = quaternion[d];
}

static PetscErrorCode SetState(SceneReader *r, yaml_node_t *map, TalusBodies *b, PetscInt k)
{
  yaml_node_t *rot = SceneLookup(r, map, "rotation");

  PetscFunctionBegin;
  PetscCall(SceneOptionalVector(r, map, "velocity", &b->velocity[3 * k]));
  PetscCall(SceneOptionalVector(r, map, "angular_velocity",
                                &b->omega[3 * k])); /* given in the world frame = body frame at t = 0 */
  if (rot) {                                        /* [axis x, y, z, angle in degrees] */
    PetscCall(SceneRotationOf(r, rot, &b->quaternion[4 * k]));
    if (TalusBodiesIsFinite(b, k)) {
      /* angular velocity was given in the world frame: express it in the body frame */
      PetscReal A[9], w[3];
      TalusQuatToMatrix(&b->quaternion[4 * k], A);
      TalusRotateBack(A, &b->omega[3 * k], w);
      for (int d = 0; d < 3; d++) b->omega[3 * k + d] = w[d];
    } else b->quaternion[4 * k] = 1, b->quaternion[4 * k + 1] = b->quaternion[4 * k + 2] = b->quaternion[4 * k + 3] = 0;
  }
  if (TalusShapeTable[b->shape[k]].size_len == 0) PlaceDescribed(b, k);
  if (b->fixed[k])
    b->velocity[3 * k] = b->velocity[3 * k + 1] = b->velocity[3 * k + 2] = b->omega[3 * k] = b->omega[3 * k + 1] =
      b->omega[3 * k + 2]                                                                  = 0.0;
  PetscFunctionReturn(0);
}

static const char *const body_keys[] = {"shape",    "mass",     "inertia",          "material",
                                        "position", "velocity", "angular_velocity", "rotation",
                                        "fixed",    "name",     "motion",           "surface_velocity",
                                        "planar",   NULL};

/* A body's keys: body_keys, then every shape's size keys (one or two per shape, in table order). */
static void BodyKeys(const char *keys[])
{
  PetscInt n = 0;
  for (; body_keys[n]; n++) keys[n] = body_keys[n];
  SceneAddSizeKeys(keys, n);
}

static PetscErrorCode ReadBody(SceneReader *r, yaml_node_t *map, TalusBodies *b)
{
  TalusShape   shape = TALUS_SPHERE; /* set by ShapeOf; the initialiser quiets -Wmaybe-uninitialized */
  PetscReal    size[3], mass = 0.0, position[3] = {0, 0, 0};
  PetscInt     material, k;
  PetscBool    fixed = PETSC_FALSE;
  yaml_node_t *node;

  const char *keys[sizeof(body_keys) / sizeof(body_keys[0]) + 2 * TALUS_NSHAPES];

  PetscFunctionBegin;
  BodyKeys(keys);
  PetscCall(SceneCheckKeys(r, map, "a body", keys));
  PetscCall(SceneShapeOf(r, map, b->n, -1, &shape, size));
  PetscCall(SceneMaterialOf(r, map, b, &material));
  if (TalusShapeTable[shape].finite || SceneLookup(r, map, "mass"))
    PetscCall(SceneMassOf(r, map, b, material, "a body needs", &mass));
  if ((node = SceneLookup(r, map, "fixed"))) PetscCall(SceneGetBool(r, node, "fixed", &fixed));
  if (SceneLookup(r, map, "motion")) fixed = PETSC_TRUE; /* a prescribed body: fixed in the CCP (scene_drives.c) */
  PetscCall(SceneRequireKey(r, map, "position", "a body", &node));
  PetscCall(SceneGetVector(r, node, "position", 3, position));
  PetscCall(SceneReadBodyName(r, map, b->n));
  PetscCall(TalusBodiesAdd(b, b->n, shape, size, mass, material, fixed, position, &k));
  if ((node = SceneLookup(r, map, "inertia"))) { /* principal moments given instead of the shape's */
    PetscReal J[3];
    PetscCall(SceneGetVector(r, node, "inertia (principal moments)", 3, J));
    if (!(J[0] > 0 && J[1] > 0 && J[2] > 0)) SceneError(r, node, "inertia must be three positive principal moments");
    if (!b->fixed[k])
      for (int d = 0; d < 3; d++) b->inertia[3 * k + d] = J[d];
  }
  PetscCall(SetState(r, map, b, k));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadMaterials(SceneReader *r, yaml_node_t *list, TalusBodies *b)
{
  static const char *const keys[] = {"name", "mu", "density", "relaxation", "compliance", NULL};

  PetscFunctionBegin;
  if (list->type != YAML_SEQUENCE_NODE)
    SceneError(r, list, "materials must be a list of {name, mu, density}, got %s", SceneNodeKind(list));
  for (yaml_node_item_t *it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
    yaml_node_t *m = yaml_document_get_node(&r->doc, *it), *node;
    const char  *name;
    PetscReal    mu, density = 0.0;
    PetscInt     existing;
    PetscCall(SceneCheckKeys(r, m, "a material", keys));
    PetscCall(SceneRequireKey(r, m, "name", "a material", &node));
    PetscCall(SceneGetString(r, node, "name", &name));
    if (strlen(name) >= sizeof(b->materials[0].name) || !name[0])
      SceneError(r, node, "a material's name must have 1 to %d characters, \"%.40s...\" has %d",
                 (int)sizeof(b->materials[0].name) - 1, name, (int)strlen(name));
    PetscCall(TalusBodiesFindMaterial(b, name, &existing));
    if (existing >= 0) SceneError(r, node, "material \"%s\" is defined twice", name);
    PetscCall(SceneRequireKey(r, m, "mu", "a material", &node));
    PetscCall(SceneGetNumber(r, node, "mu", &mu));
    if (mu < 0.0) SceneError(r, node, "friction coefficient mu must be >= 0, got %g", (double)mu);
    if ((node = SceneLookup(r, m, "density"))) {
      PetscCall(SceneGetNumber(r, node, "density", &density));
      if (!(density > 0.0)) SceneError(r, node, "density must be positive, got %g", (double)density);
    }
    PetscCall(TalusBodiesAddMaterial(b, name, mu, density, NULL));
  }
  if (b->nmaterials == 0) SceneError(r, list, "materials must define at least one material");
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadFrictionPairs(SceneReader *r, yaml_node_t *list, TalusBodies *b)
{
  static const char *const keys[] = {"materials", "mu", NULL};
  const PetscInt           nm     = b->nmaterials;

  PetscFunctionBegin;
  if (list->type != YAML_SEQUENCE_NODE)
    SceneError(r, list, "friction_pairs must be a list of {materials: [a, b], mu}, got %s", SceneNodeKind(list));
  PetscCall(PetscMalloc1(nm * nm, &b->mu_pair));
  for (PetscInt i = 0; i < nm * nm; i++) b->mu_pair[i] = -1.0; /* not given (yet): a second would silently win */
  for (yaml_node_item_t *it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
    yaml_node_t *p = yaml_document_get_node(&r->doc, *it), *node, *names[2];
    PetscInt     idx[2], k = 0;
    PetscReal    mu;
    PetscCall(SceneCheckKeys(r, p, "a friction pair", keys));
    PetscCall(SceneRequireKey(r, p, "materials", "a friction pair", &node));
    if (node->type != YAML_SEQUENCE_NODE || node->data.sequence.items.top - node->data.sequence.items.start != 2)
      SceneError(r, node, "materials of a friction pair must be a list of two names");
    for (yaml_node_item_t *n = node->data.sequence.items.start; n < node->data.sequence.items.top; n++, k++) {
      const char *name;
      names[k] = yaml_document_get_node(&r->doc, *n);
      PetscCall(SceneGetString(r, names[k], "material", &name));
      PetscCall(TalusBodiesFindMaterial(b, name, &idx[k]));
      if (idx[k] < 0) SceneError(r, names[k], "material \"%s\" is not defined under materials:", name);
    }
    PetscCall(SceneRequireKey(r, p, "mu", "a friction pair", &node));
    PetscCall(SceneGetNumber(r, node, "mu", &mu));
    if (mu < 0.0) SceneError(r, node, "friction coefficient mu must be >= 0, got %g", (double)mu);
    if (b->mu_pair[idx[0] * nm + idx[1]] >= 0.0)
      SceneError(r, p, "the friction pair of materials \"%s\" and \"%s\" is given twice: give each pair once",
                 b->materials[idx[0]].name, b->materials[idx[1]].name);
    b->mu_pair[idx[0] * nm + idx[1]] = b->mu_pair[idx[1] * nm + idx[0]] = mu;
  }
  for (PetscInt i = 0; i < nm; i++) /* the pairs not given: the lower of the two materials' mu */
    for (PetscInt j = 0; j < nm; j++)
      if (b->mu_pair[i * nm + j] < 0.0) b->mu_pair[i * nm + j] = PetscMin(b->materials[i].mu, b->materials[j].mu);
  PetscFunctionReturn(0);
}

/* options: {name: value} into the PETSc options database, unless the command line set it (or its
   alternative) already. */
static PetscErrorCode ReadOptions(SceneReader *r, yaml_node_t *map)
{
  PetscFunctionBegin;
  if (map->type != YAML_MAPPING_NODE)
    SceneError(r, map, "options must be a mapping of PETSc option names (without the dash) to values, got %s",
               SceneNodeKind(map));
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *key = yaml_document_get_node(&r->doc, p->key), *value = yaml_document_get_node(&r->doc, p->value);
    char         name[256];
    PetscBool    set;
    if (key->type != YAML_SCALAR_NODE || value->type != YAML_SCALAR_NODE)
      SceneError(r, key, "options must map names to single values");
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s", (const char *)key->data.scalar.value));
    PetscCall(TalusOptionsGiven(name, &set));
    if (!set) {
      char origin[PETSC_MAX_PATH_LEN + 32];
      PetscCall(PetscOptionsSetValue(NULL, name, (const char *)value->data.scalar.value));
      PetscCall(PetscSNPrintf(origin, sizeof(origin), "%s:%d, options:", r->file, SCENE_LINE(key)));
      PetscCall(TalusOptionsNoteOrigin(name, origin));
    }
  }
  PetscFunctionReturn(0);
}

/*
 * What the scene will hold, before it is made: bodies beyond the 32-bit indices, or more than this
 * node's memory holds while stepping (about TALUS_BYTES_PER_BODY a body;
 * docs/notes/2026-11-performance-records.md measures 1.9 to 2.2 KB at 10^6), are refused with both numbers.
 * Each rank makes and keeps its share only.
 */
#define TALUS_BYTES_PER_BODY 2200.0

static PetscErrorCode CheckSceneSize(SceneReader *r, yaml_node_t *node, double total, PetscInt nlisted)
{
  MPI_Comm     shared;
  PetscMPIInt  local, size;
  const long   pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  const double memory = pages > 0 && page > 0 ? (double)pages * (double)page : -1.0;
  double       per_rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(r->comm, &size));
  PetscCallMPI(MPI_Comm_split_type(r->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared));
  PetscCallMPI(MPI_Comm_size(shared, &local));
  PetscCallMPI(MPI_Comm_free(&shared));
  if (total > (double)PETSC_MAX_INT / 8)
    SceneError(r, node, "%.4g bodies: more than talus's 32-bit indices can count (at most %.4g)", total,
               (double)PETSC_MAX_INT / 8);
  per_rank = (total / size + nlisted) * TALUS_BYTES_PER_BODY;
  if (memory > 0.0 && per_rank * local > memory && !r->check_only) /* check_only: the ranks to run it are not known */
    SceneError(r, node,
               "%.4g bodies on %d rank%s would need about %.3g GB a rank (about %.0f B a body while stepping), %.3g "
               "GB for this node's %d rank%s, and this node has %.3g GB: use more ranks on more nodes",
               total, (int)size, size > 1 ? "s" : "", per_rank / 1e9, TALUS_BYTES_PER_BODY, per_rank * local / 1e9,
               (int)local, local > 1 ? "s" : "", memory / 1e9);
  PetscFunctionReturn(0);
}

/* Two generators (or a generator and bodies_file) whose boxes meet could place bodies into each other
   on different ranks, where no rank would see the overlap: refused (put them apart, or make one). The
   last of g[0 .. n-1] against the others. */
static PetscErrorCode CheckGeneratorsApart(SceneReader *r, PetscInt n, const SceneGenerator g[])
{
  const SceneGenerator *a = &g[n - 1];

  PetscFunctionBegin;
  for (PetscInt c = 0; c < n - 1; c++) {
    PetscBool meet = PETSC_TRUE;
    for (int d = 0; d < 3; d++) meet &= (PetscBool)(a->box_lo[d] < g[c].box_hi[d] && g[c].box_lo[d] < a->box_hi[d]);
    if (meet)
      SceneError(r, a->node,
                 "the bodies made here could reach into those made at line %d (their boxes, radius and jitter "
                 "included, meet): move them apart",
                 SCENE_LINE(g[c].node));
  }
  PetscFunctionReturn(0);
}

/* The generators, each checked and counted, and bodies_file's rows counted: total (with the listed
   bodies) checked against the indices and the memory before anything is made */
static PetscErrorCode CountBodies(SceneReader *r, yaml_node_t *root, const TalusScene *scene, TalusBodies *b,
                                  SceneGenerator g[], PetscInt *ngen, SceneBodiesFile *file, PetscBool *has_file)
{
  yaml_node_t *list = SceneLookup(r, root, "bodies"), *gens = SceneLookup(r, root, "generators"), *node;
  double       total = 0.0;

  PetscFunctionBegin;
  if (list) total = (double)(list->data.sequence.items.top - list->data.sequence.items.start);
  for (yaml_node_item_t *it = gens ? gens->data.sequence.items.start : NULL; gens && it < gens->data.sequence.items.top;
       it++) {
    PetscCall(SceneReadGenerator(r, yaml_document_get_node(&r->doc, *it), scene, b, &g[*ngen]));
    PetscCall(CheckSceneSize(r, g[*ngen].node, total + g[*ngen].count, r->nlisted));
    PetscCall(CheckGeneratorsApart(r, ++*ngen, g));
    total += g[*ngen - 1].count;
  }
  if ((*has_file = (PetscBool) !!(node = SceneLookup(r, root, "bodies_file")))) {
    PetscCall(SceneReadBodiesFile(r, node, b, file));
    PetscCall(CheckSceneSize(r, node, total + file->rows, r->nlisted));
  }
  PetscFunctionReturn(0);
}

/* bodies: (read whole on every rank), generators: (each rank makes its share) and bodies_file: (each rank
   reads its slice), sized first */
static PetscErrorCode ReadBodies(SceneReader *r, yaml_node_t *root, TalusSim sim, TalusScene *scene)
{
  yaml_node_t    *list = SceneLookup(r, root, "bodies"), *gens = SceneLookup(r, root, "generators");
  TalusBodies    *b;
  SceneGenerator *g    = NULL;
  PetscInt        ngen = 0, first, made;
  SceneBodiesFile file;
  PetscBool       has_file;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  if (list && list->type != YAML_SEQUENCE_NODE)
    SceneError(r, list, "bodies must be a list, got %s", SceneNodeKind(list));
  if (gens && gens->type != YAML_SEQUENCE_NODE)
    SceneError(r, gens, "generators must be a list, got %s", SceneNodeKind(gens));
  r->nlisted = list ? (PetscInt)(list->data.sequence.items.top - list->data.sequence.items.start) : 0;
  /* one more place: bodies_file's box, checked against the generators' once read */
  PetscCall(PetscCalloc1((size_t)(gens ? gens->data.sequence.items.top - gens->data.sequence.items.start : 0) + 1, &g));
  ierr = CountBodies(r, root, scene, b, g, &ngen, &file, &has_file);
  for (yaml_node_item_t *it = list ? list->data.sequence.items.start : NULL;
       !ierr && list && it < list->data.sequence.items.top; it++)
    ierr = ReadBody(r, yaml_document_get_node(&r->doc, *it), b);
  if (!ierr) ierr = TalusSimSetReplicatedBodies(sim, b->n);
  if (!ierr) ierr = PetscLogEventBegin(TALUS_EventSceneGenerate, 0, 0, 0, 0);
  first = r->nlisted;
  for (PetscInt k = 0; !ierr && k < ngen; first += (PetscInt)g[k++].count)
    if (!r->check_only) ierr = SceneGenerate(r, &g[k], first, b);
  if (!ierr && has_file && !r->check_only) {
    ierr         = SceneReadBodiesFileRows(r, &file, scene, first, b);
    g[ngen].node = file.node;
    for (int d = 0; d < 3; d++) g[ngen].box_lo[d] = file.box_lo[d], g[ngen].box_hi[d] = file.box_hi[d];
    if (!ierr) ierr = CheckGeneratorsApart(r, ngen + 1, g);
  }
  if (!ierr) ierr = PetscLogEventEnd(TALUS_EventSceneGenerate, 0, 0, 0, 0);
  PetscCall(PetscFree(g));
  PetscCall(ierr);
  /* the listed, the generated, and the file's (its rows, when they are only counted) */
  if (!has_file) made = first;
  else made = first + (r->check_only ? (PetscInt)file.rows : file.bodies);
  if (made == 0) SceneError(r, root, "the scene has no bodies (give bodies:, generators: or bodies_file:)");
  PetscFunctionReturn(0);
}

static const char *const top_keys[] = {
  "name",      "gravity",        "time_step", "end_time",   "envelope", "domain", "overlap_tolerance",
  "materials", "friction_pairs", "bodies",    "generators", "joints",   "forces", "springs",
  "options",   "bodies_file",    NULL};

/* The scene from its YAML document (scene_load.c reads it, with its overrides applied) */
PetscErrorCode SceneRead(SceneReader *rp, yaml_node_t *root, TalusSim sim, TalusScene *scene)
{
  SceneReader  r = *rp;
  yaml_node_t *node;
  TalusBodies *b;
  PetscReal    g[3] = {0, 0, -9.81}, dt = 0.01, t_final = 1.0, envelope = 0.0;

  PetscFunctionBegin;
  PetscCall(SceneCheckKeys(&r, root, "the scene", top_keys));
  PetscCall(TalusSimGetBodies(sim, &b));

  if ((node = SceneLookup(&r, root, "name"))) {
    const char *name;
    PetscCall(SceneGetString(&r, node, "name", &name));
    /* it names the output directory out/NAME: a plain name, so that the outputs stay under out/ */
    if (!name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
        strlen(name) >= sizeof(scene->name))
      SceneError(&r, node,
                 "name \"%.60s\" must be a plain name of 1 to %d characters without '/' (not . or ..): it names the "
                 "output directory out/NAME",
                 name, (int)sizeof(scene->name) - 1);
    PetscCall(PetscStrncpy(scene->name, name, sizeof(scene->name)));
  }
  PetscCall(SceneOptionalVector(&r, root, "gravity", g));
  if ((node = SceneLookup(&r, root, "time_step"))) {
    PetscCall(SceneGetNumber(&r, node, "time_step", &dt));
    if (!(dt > 0.0)) SceneError(&r, node, "time_step must be positive, got %g", (double)dt);
  }
  if ((node = SceneLookup(&r, root, "end_time"))) {
    PetscCall(SceneGetNumber(&r, node, "end_time", &t_final));
    if (t_final < 0.0) SceneError(&r, node, "end_time must be >= 0, got %g", (double)t_final);
  }
  if ((node = SceneLookup(&r, root, "envelope"))) {
    PetscCall(SceneGetNumber(&r, node, "envelope", &envelope));
    if (envelope < 0.0) SceneError(&r, node, "envelope must be >= 0, got %g", (double)envelope);
  }
  if ((node = SceneLookup(&r, root, "overlap_tolerance"))) {
    PetscCall(SceneGetNumber(&r, node, "overlap_tolerance", &scene->overlap_tolerance));
    if (scene->overlap_tolerance < 0.0) SceneError(&r, node, "overlap_tolerance must be >= 0");
  }
  if ((node = SceneLookup(&r, root, "domain"))) {
    static const char *const keys[] = {"min", "max", NULL};
    yaml_node_t             *v;
    PetscCall(SceneCheckKeys(&r, node, "domain", keys));
    PetscCall(SceneRequireKey(&r, node, "min", "domain", &v));
    PetscCall(SceneGetVector(&r, v, "domain min", 3, scene->domain_min));
    PetscCall(SceneRequireKey(&r, node, "max", "domain", &v));
    PetscCall(SceneGetVector(&r, v, "domain max", 3, scene->domain_max));
    for (int d = 0; d < 3; d++)
      if (!(scene->domain_max[d] > scene->domain_min[d]))
        SceneError(&r, node, "domain max must exceed min in every direction");
  }
  PetscCall(SceneRequireKey(&r, root, "materials", "the scene", &node));
  PetscCall(ReadMaterials(&r, node, b));
  if ((node = SceneLookup(&r, root, "friction_pairs"))) PetscCall(ReadFrictionPairs(&r, node, b));
  PetscCall(ReadBodies(&r, root, sim, scene));
  PetscCall(PetscLogEventBegin(TALUS_EventScenePlacement, 0, 0, 0, 0));
  PetscCall(SceneCheckPlacement(&r, root, sim, scene));
  PetscCall(PetscLogEventEnd(TALUS_EventScenePlacement, 0, 0, 0, 0));
  PetscCall(TalusSimSetGravity(sim, g));
  PetscCall(TalusSimSetTimeStep(sim, dt)); /* springs check their stability with it */
  PetscCall(TalusSimSetFinalTime(sim, t_final));
  PetscCall(TalusSimSetEnvelope(sim, envelope));
  PetscCall(SceneReadRelaxations(&r, SceneLookup(&r, root, "materials"), sim)); /* with the time step */
  if ((node = SceneLookup(&r, root, "bodies"))) PetscCall(SceneReadBodyDrives(&r, node, sim));
  if ((node = SceneLookup(&r, root, "joints"))) PetscCall(SceneReadJoints(&r, node, sim));
  if ((node = SceneLookup(&r, root, "forces"))) PetscCall(SceneReadForces(&r, node, sim));
  if ((node = SceneLookup(&r, root, "springs"))) PetscCall(SceneReadSprings(&r, node, sim));
  if ((node = SceneLookup(&r, root, "options"))) PetscCall(ReadOptions(&r, node));
  PetscFunctionReturn(0);
}
