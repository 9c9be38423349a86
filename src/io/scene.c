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
#include <unistd.h>

static PetscErrorCode MaterialOf(SceneReader *r, yaml_node_t *map, TalusBodies *b, PetscInt *material)
{
  yaml_node_t *node = SceneLookup(r, map, "material");
  const char  *name;

  PetscFunctionBegin;
  if (!node) {
    if (b->nmaterials == 1) {
      *material = 0;
      PetscFunctionReturn(0);
    }
    SceneError(r, map, "\"material\" is needed when the scene defines %" PetscInt_FMT " materials", b->nmaterials);
  }
  PetscCall(SceneGetString(r, node, "material", &name));
  PetscCall(TalusBodiesFindMaterial(b, name, material));
  if (*material < 0) SceneError(r, node, "material \"%s\" is not defined under materials:", name);
  PetscFunctionReturn(0);
}

/* A body's shape and size from the keys of its mapping: the shape's table entry names its size key. */
static PetscErrorCode ShapeOf(SceneReader *r, yaml_node_t *map, TalusShape *shape, PetscReal size[3])
{
  yaml_node_t         *node, *size_node;
  const char          *name, *invalid;
  const TalusShapeOps *ops;
  char                 names[128];

  PetscFunctionBegin;
  PetscCall(SceneRequireKey(r, map, "shape", "a body", &node));
  PetscCall(SceneGetString(r, node, "shape", &name));
  if (!TalusShapeFromName(name, shape)) {
    PetscCall(TalusShapeNames(names, sizeof(names)));
    SceneError(r, node, "unknown shape \"%s\" (expected %s)", name, names);
  }
  ops     = &TalusShapeTable[*shape];
  size[0] = size[1] = size[2] = 0.0;
  PetscCall(SceneRequireKey(r, map, ops->size_key, ops->name, &size_node));
  if (ops->size_len == 1) PetscCall(SceneGetNumber(r, size_node, ops->size_key, &size[0]));
  else PetscCall(SceneGetVector(r, size_node, ops->size_key, 3, size));
  /* SI units: an entry beyond 1e12 (or a nonzero one below 1e-12) overflows or underflows a mass, an
     inertia or a normal's length, which would be reported as something else further on */
  for (int d = 0; d < ops->size_len; d++)
    if (size[d] != 0.0 && !(PetscAbsReal(size[d]) >= 1e-12 && PetscAbsReal(size[d]) <= 1e12))
      SceneError(r, size_node, "%s %g is outside 1e-12 .. 1e12 (talus works in SI units%s)", ops->size_key,
                 (double)size[d], *shape == TALUS_PLANE ? "; a normal is a direction: e.g. [0, 0, 1]" : "");
  if ((invalid = ops->check_size(size))) {
    if (ops->size_len == 1) SceneError(r, size_node, "%s, got %g", invalid, (double)size[0]);
    SceneError(r, size_node, "%s, got (%g, %g, %g)", invalid, (double)size[0], (double)size[1], (double)size[2]);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode SetState(SceneReader *r, yaml_node_t *map, TalusBodies *b, PetscInt k)
{
  PetscReal    axis_angle[4] = {0, 0, 1, 0};
  yaml_node_t *rot           = SceneLookup(r, map, "rotation");

  PetscFunctionBegin;
  PetscCall(SceneOptionalVector(r, map, "velocity", &b->velocity[3 * k]));
  PetscCall(SceneOptionalVector(r, map, "angular_velocity",
                                &b->omega[3 * k])); /* given in the world frame = body frame at t = 0 */
  if (rot) {                                        /* [axis x, y, z, angle in degrees] */
    PetscReal n;
    PetscCall(SceneGetVector(r, rot, "rotation (axis x, y, z, angle in degrees)", 4, axis_angle));
    n = TalusNorm3(axis_angle);
    if (n == 0.0) SceneError(r, rot, "rotation axis must not be zero");
    b->quaternion[4 * k] = PetscCosReal(0.5 * axis_angle[3] * PETSC_PI / 180.0);
    for (int d = 0; d < 3; d++)
      b->quaternion[4 * k + 1 + d] = PetscSinReal(0.5 * axis_angle[3] * PETSC_PI / 180.0) * axis_angle[d] / n;
    if (TalusBodiesIsFinite(b, k)) {
      /* angular velocity was given in the world frame: express it in the body frame */
      PetscReal A[9], w[3];
      TalusQuatToMatrix(&b->quaternion[4 * k], A);
      TalusRotateBack(A, &b->omega[3 * k], w);
      for (int d = 0; d < 3; d++) b->omega[3 * k + d] = w[d];
    } else b->quaternion[4 * k] = 1, b->quaternion[4 * k + 1] = b->quaternion[4 * k + 2] = b->quaternion[4 * k + 3] = 0;
  }
  if (b->fixed[k])
    b->velocity[3 * k] = b->velocity[3 * k + 1] = b->velocity[3 * k + 2] = b->omega[3 * k] = b->omega[3 * k + 1] =
      b->omega[3 * k + 2]                                                                  = 0.0;
  PetscFunctionReturn(0);
}

static const char *const body_keys[] = {"shape",    "mass",     "inertia",          "material",
                                        "position", "velocity", "angular_velocity", "rotation",
                                        "fixed",    "name",     "motion",           "surface_velocity",
                                        "planar",   NULL};

/* A body's keys: body_keys, then every shape's size key (one per shape, in table order). */
static void BodyKeys(const char *keys[])
{
  PetscInt n = 0;
  for (; body_keys[n]; n++) keys[n] = body_keys[n];
  for (int s = 0; s < TALUS_NSHAPES; s++) {
    PetscBool seen = PETSC_FALSE;
    for (PetscInt k = 0; k < n; k++) seen = (PetscBool)(seen || !strcmp(keys[k], TalusShapeTable[s].size_key));
    if (!seen) keys[n++] = TalusShapeTable[s].size_key;
  }
  keys[n] = NULL;
}

static PetscErrorCode ReadBody(SceneReader *r, yaml_node_t *map, TalusBodies *b)
{
  TalusShape   shape = TALUS_SPHERE; /* set by ShapeOf; the initialiser quiets -Wmaybe-uninitialized */
  PetscReal    size[3], mass = 0.0, position[3] = {0, 0, 0};
  PetscInt     material, k;
  PetscBool    fixed = PETSC_FALSE;
  yaml_node_t *node;

  const char *keys[sizeof(body_keys) / sizeof(body_keys[0]) + TALUS_NSHAPES];

  PetscFunctionBegin;
  BodyKeys(keys);
  PetscCall(SceneCheckKeys(r, map, "a body", keys));
  PetscCall(ShapeOf(r, map, &shape, size));
  PetscCall(MaterialOf(r, map, b, &material));
  if ((node = SceneLookup(r, map, "mass"))) {
    PetscCall(SceneGetNumber(r, node, "mass", &mass));
    if (!(mass > 0.0)) SceneError(r, node, "mass must be positive, got %g", (double)mass);
  } else if (TalusShapeTable[shape].finite && !(b->materials[material].density > 0.0))
    SceneError(r, map, "a body needs a mass, or a material with a positive density");
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

/* Generated spheres: a lattice, or a seeded random fill of a region without overlaps. */
static const char *const lattice_keys[]     = {"shape", "radius", "mass", "material", "origin", "spacing",
                                               "count", "jitter", "seed", "velocity", NULL};
static const char *const random_fill_keys[] = {"shape", "radius", "mass", "material", "min",
                                               "max",   "count",  "seed", "velocity", NULL};

/* splitmix64: the same sequence on every platform, so a seed reproduces a scene */
static PetscReal Uniform(unsigned long long *state)
{
  unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);
  z                    = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z                    = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (PetscReal)((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * Every rank builds the whole scene (about TALUS_BYTES_PER_BODY a body while it does), so a generator's
 * count is checked against this node's memory shared by its ranks before anything is allocated: a
 * lattice of 10^10 bodies is refused with the arithmetic instead of allocating until the machine
 * runs out.
 */
#define TALUS_BYTES_PER_BODY 512.0

static PetscErrorCode CheckBodyCount(SceneReader *r, yaml_node_t *node, PetscInt have, double more)
{
  MPI_Comm     shared;
  PetscMPIInt  local;
  const long   pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  const double memory = pages > 0 && page > 0 ? (double)pages * (double)page : -1.0, total = (double)have + more;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_split_type(r->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared));
  PetscCallMPI(MPI_Comm_size(shared, &local));
  PetscCallMPI(MPI_Comm_free(&shared));
  if (total > (double)PETSC_MAX_INT / 8)
    SceneError(r, node, "%.3g bodies: more than talus's 32-bit indices can count (at most %.3g)", total,
               (double)PETSC_MAX_INT / 8);
  if (memory > 0.0 && total * TALUS_BYTES_PER_BODY * local > memory)
    SceneError(r, node,
               "%.3g bodies would need about %.3g GB on each of this node's %d ranks (every rank builds the whole "
               "scene, about %.0f B a body), %.3g GB in all, and this node has %.3g GB",
               total, total * TALUS_BYTES_PER_BODY / 1e9, (int)local, TALUS_BYTES_PER_BODY,
               total * TALUS_BYTES_PER_BODY * local / 1e9, memory / 1e9);
  PetscFunctionReturn(0);
}

/*
 * Random sequential addition with the spheres placed so far hashed by cells of one diameter: a
 * candidate is checked against the 27 cells around it, not against every sphere (which made large
 * counts run for minutes). Buckets chain the spheres through next[]; the table has twice count slots.
 */
typedef struct {
  PetscInt *head, *next, nslots;
  PetscReal lo[3], cell;
} FillGrid;

static PetscInt FillSlot(const FillGrid *g, long long i, long long j, long long k)
{
  const unsigned long long h = (unsigned long long)i * 73856093ULL ^ (unsigned long long)j * 19349663ULL ^
                               (unsigned long long)k * 83492791ULL;
  return (PetscInt)(h % (unsigned long long)g->nslots);
}

static void FillCell(const FillGrid *g, const PetscReal x[3], long long c[3])
{
  for (int d = 0; d < 3; d++) c[d] = (long long)PetscFloorReal((x[d] - g->lo[d]) / g->cell);
}

static PetscBool FillIsFree(const FillGrid *g, const TalusBodies *b, PetscInt first, const PetscReal x[3],
                            PetscReal radius)
{
  long long c[3];

  FillCell(g, x, c);
  for (int di = -1; di <= 1; di++)
    for (int dj = -1; dj <= 1; dj++)
      for (int dk = -1; dk <= 1; dk++)
        for (PetscInt o = g->head[FillSlot(g, c[0] + di, c[1] + dj, c[2] + dk)]; o >= 0; o = g->next[o - first]) {
          PetscReal d2 = 0.0;
          for (int d = 0; d < 3; d++) d2 += PetscSqr(x[d] - b->position[3 * o + d]);
          if (d2 < 4.0 * radius * radius) return PETSC_FALSE;
        }
  return PETSC_TRUE;
}

static PetscErrorCode ReadGenerator(SceneReader *r, yaml_node_t *entry, TalusBodies *b, TalusScene *scene)
{
  yaml_node_t *map, *node, *lattice = SceneLookup(r, entry, "lattice"), *fill = SceneLookup(r, entry, "random_fill");
  PetscReal    size[3] = {0, 0, 0}, mass = 0.0, velocity[3] = {0, 0, 0};
  PetscInt     material, seed = 1;
  TalusShape   shape = TALUS_SPHERE;
  unsigned long long state;

  PetscFunctionBegin;
  {
    static const char *const kinds[] = {"lattice", "random_fill", NULL};
    PetscCall(SceneCheckKeys(r, entry, "a generator", kinds));
  }
  if (!!lattice == !!fill) SceneError(r, entry, "a generator is either lattice: or random_fill:");
  map = lattice ? lattice : fill;
  PetscCall(SceneCheckKeys(r, map, lattice ? "lattice" : "random_fill", lattice ? lattice_keys : random_fill_keys));
  if ((node = SceneLookup(r, map, "shape"))) {
    const char *name;
    PetscCall(SceneGetString(r, node, "shape", &name));
    if (strcmp(name, "sphere")) SceneError(r, node, "generators make spheres only, got \"%s\"", name);
  }
  PetscCall(SceneRequireKey(r, map, "radius", "a generator", &node));
  PetscCall(SceneGetNumber(r, node, "radius", &size[0]));
  if (!(size[0] > 0.0)) SceneError(r, node, "radius must be positive, got %g", (double)size[0]);
  PetscCall(MaterialOf(r, map, b, &material));
  if ((node = SceneLookup(r, map, "mass"))) {
    PetscCall(SceneGetNumber(r, node, "mass", &mass));
    if (!(mass > 0.0)) SceneError(r, node, "mass must be positive, got %g", (double)mass);
  } else if (!(b->materials[material].density > 0.0))
    SceneError(r, map, "generated spheres need a mass, or a material with a positive density");
  PetscCall(SceneOptionalVector(r, map, "velocity", velocity));
  if ((node = SceneLookup(r, map, "seed"))) PetscCall(SceneGetInt(r, node, "seed", &seed));
  state = (unsigned long long)seed;
  if (lattice) {
    PetscReal origin[3], spacing, jitter = 0.0, count_r[3];
    PetscInt  count[3];
    PetscCall(SceneRequireKey(r, map, "origin", "lattice", &node));
    PetscCall(SceneGetVector(r, node, "origin", 3, origin));
    PetscCall(SceneRequireKey(r, map, "spacing", "lattice", &node));
    PetscCall(SceneGetNumber(r, node, "spacing", &spacing));
    if (!(spacing > 0.0)) SceneError(r, node, "spacing must be positive, got %g", (double)spacing);
    PetscCall(SceneRequireKey(r, map, "count", "lattice", &node));
    PetscCall(SceneGetVector(r, node, "count (nx, ny, nz)", 3, count_r));
    for (int d = 0; d < 3; d++) {
      if (count_r[d] != PetscFloorReal(count_r[d]) || count_r[d] < 1 || count_r[d] > 1e4)
        SceneError(r, node, "count must be three integers in 1..10000, got %g", (double)count_r[d]);
      count[d] = (PetscInt)count_r[d];
    }
    PetscCall(CheckBodyCount(r, node, b->n, count_r[0] * count_r[1] * count_r[2]));
    PetscCall(SceneOptionalNumber(r, map, "jitter", &jitter));
    if ((node = SceneLookup(r, map, "jitter")) && jitter < 0.0)
      SceneError(r, node, "jitter must be >= 0 (the largest shift of a centre along each axis), got %g",
                 (double)jitter);
    if ((node = SceneLookup(r, map, "jitter")) && 2.0 * (size[0] + jitter) > spacing + scene->overlap_tolerance)
      SceneError(r, node,
                 "jitter %g lets neighbours of radius %g overlap at spacing %g (need 2 (radius + jitter) <= spacing)",
                 (double)jitter, (double)size[0], (double)spacing);
    if (2.0 * size[0] > spacing + scene->overlap_tolerance)
      SceneError(r, map, "spheres of radius %g overlap at spacing %g", (double)size[0], (double)spacing);
    for (PetscInt k = 0; k < count[2]; k++)
      for (PetscInt j = 0; j < count[1]; j++)
        for (PetscInt i = 0; i < count[0]; i++) {
          PetscReal x[3] = {origin[0] + i * spacing, origin[1] + j * spacing, origin[2] + k * spacing};
          PetscInt  id;
          for (int d = 0; d < 3; d++) x[d] += jitter * (2.0 * Uniform(&state) - 1.0);
          PetscCall(TalusBodiesAdd(b, b->n, shape, size, mass, material, PETSC_FALSE, x, &id));
          for (int d = 0; d < 3; d++) b->velocity[3 * id + d] = velocity[d];
        }
  } else {
    PetscReal lo[3], hi[3];
    PetscInt  count, placed = 0, first = b->n;
    PetscCall(SceneRequireKey(r, map, "min", "random_fill", &node));
    PetscCall(SceneGetVector(r, node, "min", 3, lo));
    PetscCall(SceneRequireKey(r, map, "max", "random_fill", &node));
    PetscCall(SceneGetVector(r, node, "max", 3, hi));
    for (int d = 0; d < 3; d++)
      if (!(hi[d] - lo[d] > 2.0 * size[0]))
        SceneError(r, node, "the region from min to max must be wider than a sphere's diameter in every direction");
    PetscCall(SceneRequireKey(r, map, "count", "random_fill", &node));
    PetscCall(SceneGetInt(r, node, "count", &count));
    if (count < 1)
      SceneError(r, node, "count must be >= 1 (a generator that adds nothing is a mistake), got %" PetscInt_FMT, count);
    PetscCall(CheckBodyCount(r, node, b->n, (double)count));
    { /* random sequential addition jams near 38 % of the volume: beyond 35 % it would search for minutes */
      const double volume = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
      const double filled = (double)count * 4.0 / 3.0 * PETSC_PI * size[0] * size[0] * size[0] / volume;
      if (filled > 0.35)
        SceneError(r, node,
                   "%" PetscInt_FMT " spheres of radius %g would fill %.0f %% of the region's volume, and random "
                   "placement cannot go beyond about 35 %%: enlarge the region or lower count (a lattice packs denser)",
                   count, (double)size[0], 100.0 * filled);
    }
    {
      /* random sequential addition: draw a centre, keep it if it overlaps nobody placed so far; give up
         after 1000 draws a sphere (counted in 64 bits: 1000 count overflows a PetscInt) */
      const long long max_tries = 1000LL * count + 1000;
      long long       tries     = 0, c[3];
      FillGrid        g         = {.nslots = 2 * count + 1, .cell = 2.0 * size[0]};
      for (int d = 0; d < 3; d++) g.lo[d] = lo[d];
      PetscCall(PetscMalloc2(g.nslots, &g.head, count + 1, &g.next));
      for (PetscInt k = 0; k < g.nslots; k++) g.head[k] = -1;
      while (placed < count) {
        PetscReal x[3];
        PetscInt  id, slot;
        if (++tries > max_tries) {
          PetscCall(PetscFree2(g.head, g.next));
          SceneError(r, node,
                     "could place only %" PetscInt_FMT " of %" PetscInt_FMT
                     " spheres of radius %g without overlap in the region: enlarge it or lower count",
                     placed, count, (double)size[0]);
        }
        for (int d = 0; d < 3; d++) x[d] = lo[d] + size[0] + (hi[d] - lo[d] - 2.0 * size[0]) * Uniform(&state);
        if (!FillIsFree(&g, b, first, x, size[0])) continue;
        PetscCall(TalusBodiesAdd(b, b->n, shape, size, mass, material, PETSC_FALSE, x, &id));
        for (int d = 0; d < 3; d++) b->velocity[3 * id + d] = velocity[d];
        FillCell(&g, x, c);
        slot               = FillSlot(&g, c[0], c[1], c[2]);
        g.next[id - first] = g.head[slot];
        g.head[slot]       = id;
        placed++;
      }
      PetscCall(PetscFree2(g.head, g.next));
    }
  }
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
  for (PetscInt i = 0; i < nm; i++)
    for (PetscInt j = 0; j < nm; j++) b->mu_pair[i * nm + j] = PetscMin(b->materials[i].mu, b->materials[j].mu);
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
    b->mu_pair[idx[0] * nm + idx[1]] = b->mu_pair[idx[1] * nm + idx[0]] = mu;
  }
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

/* Bodies must start inside the domain and, for generated ones, without overlapping each other. */
static PetscErrorCode CheckPlacement(SceneReader *r, yaml_node_t *where, TalusSim sim, TalusScene *scene)
{
  TalusBodies *b;
  PetscInt     npairs, *pairs;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  for (PetscInt k = 0; k < b->n; k++) {
    if (!TalusBodiesIsFinite(b, k)) continue;
    for (int d = 0; d < 3; d++)
      if (b->position[3 * k + d] < scene->domain_min[d] || b->position[3 * k + d] > scene->domain_max[d])
        SceneError(r, where,
                   "body %" PetscInt_FMT " (a %s at %g, %g, %g) is outside the domain [%g, %g] x [%g, %g] x [%g, %g]",
                   b->id[k], TalusShapeTable[b->shape[k]].name, (double)b->position[3 * k],
                   (double)b->position[3 * k + 1], (double)b->position[3 * k + 2], (double)scene->domain_min[0],
                   (double)scene->domain_max[0], (double)scene->domain_min[1], (double)scene->domain_max[1],
                   (double)scene->domain_min[2], (double)scene->domain_max[2]);
  }
  /* overlaps beyond the tolerance: the narrow phase over the broad phase's pairs */
  PetscCall(TalusBroadPhasePairs(b, 0.0, &npairs, &pairs));
  for (PetscInt p = 0; p < npairs; p++) {
    TalusContactList list = {0};
    const PetscInt   i = pairs[2 * p], j = pairs[2 * p + 1];
    PetscErrorCode   ierr = 0;
    if (b->fixed[i] && b->fixed[j]) continue;
    if (!TalusShapePairSupported(b->shape[i], b->shape[j])) {
      const char *si = TalusShapeTable[b->shape[i]].name, *sj = TalusShapeTable[b->shape[j]].name;
      PetscCall(PetscFree(pairs));
      SceneError(r, where,
                 "bodies %" PetscInt_FMT " and %" PetscInt_FMT
                 " (a %s and a %s) start within reach of each other: %s-%s contact is not supported",
                 b->id[i], b->id[j], si, sj, si, sj);
    }
    PetscCall(TalusCollidePair(b, i, j, 0.0, &list));
    for (PetscInt c = 0; c < list.n && !ierr; c++)
      if (list.c[c].phi < -scene->overlap_tolerance) ierr = 1;
    PetscCall(TalusContactListDestroy(&list));
    if (ierr) {
      PetscCall(PetscFree(pairs));
      SceneError(r, where,
                 "bodies %" PetscInt_FMT " and %" PetscInt_FMT " overlap by more than the tolerance %g at the start",
                 b->id[i], b->id[j], (double)scene->overlap_tolerance);
    }
  }
  PetscCall(PetscFree(pairs));
  PetscFunctionReturn(0);
}

static const char *const top_keys[] = {"name",           "gravity", "time_step",         "end_time",
                                       "envelope",       "domain",  "overlap_tolerance", "materials",
                                       "friction_pairs", "bodies",  "generators",        "joints",
                                       "forces",         "springs", "options",           NULL};

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
  if ((node = SceneLookup(&r, root, "bodies"))) {
    if (node->type != YAML_SEQUENCE_NODE) SceneError(&r, node, "bodies must be a list, got %s", SceneNodeKind(node));
    for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++)
      PetscCall(ReadBody(&r, yaml_document_get_node(&r.doc, *it), b));
  }
  if ((node = SceneLookup(&r, root, "generators"))) {
    if (node->type != YAML_SEQUENCE_NODE)
      SceneError(&r, node, "generators must be a list, got %s", SceneNodeKind(node));
    for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++)
      PetscCall(ReadGenerator(&r, yaml_document_get_node(&r.doc, *it), b, scene));
  }
  if (b->n == 0) SceneError(&r, root, "the scene has no bodies (give bodies: or generators:)");
  PetscCall(CheckPlacement(&r, root, sim, scene));
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
