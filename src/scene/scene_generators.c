/*
 * Generators (docs/scene-format.md, "Generators"): a lattice of spheres, or spheres placed at random
 * in a box, made in parallel. A generator's spheres are numbered 0 .. count-1 (their ids follow the
 * scene's earlier bodies). Each rank makes the spheres of one block of the lattice's points or of
 * the fill's cells, cut as the first partition's recursive coordinate bisection will cut the bed,
 * so that few spheres move when it sends them to their owners (TalusSimDistribute). Every random
 * number is a function of the seed and the sphere's number (a counter-based generator), so a
 * sphere is the same, bitwise, however many ranks make the scene, and no rank passes over the
 * spheres of the others.
 *
 * Reading is in two passes: SceneReadGenerator checks a generator and counts its spheres, so that the
 * scene's size is known (and refused when it cannot fit) before anything is allocated;
 * SceneGenerate then makes this rank's part.
 */
#include "scene_reader.h"
#include <talus/shape_data.h>

static const char *const lattice_keys[]     = {"shape", "radius", "mass", "material", "origin", "spacing",
                                               "count", "jitter", "seed", "velocity", "parts",  NULL};
static const char *const random_fill_keys[] = {"shape", "radius", "mass",     "material", "min", "max",
                                               "count", "seed",   "velocity", "parts",    NULL};

static const unsigned long long golden = 0x9e3779b97f4a7c15ULL;

static unsigned long long Mix64(unsigned long long z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/*
 * The n-th number (n = 1, 2, ...) of splitmix64 started at seed, in [0, 1): splitmix64's state after
 * n draws is seed + n golden, so any draw is computed on its own. Lattices draw sphere p's jitter as
 * draws 3p+1 .. 3p+3: the numbers one sequential stream gave them before generators ran in parallel.
 */
static PetscReal UniformAt(unsigned long long seed, unsigned long long n)
{
  return (PetscReal)(Mix64(seed + n * golden) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * A random permutation of 0 .. m-1 that maps one number without the others: a four-round Feistel
 * network on 2h bits (2^2h >= m) keyed by the seed, walked again while the result is >= m (each
 * walk leaves the range with probability below 3/4).
 */
static unsigned long long Permute(const SceneGenerator *g, unsigned long long x)
{
  const unsigned long long mask = (1ULL << g->half_bits) - 1;

  do {
    unsigned long long left = x >> g->half_bits, right = x & mask;
    for (int round = 0; round < 4; round++) {
      const unsigned long long next = left ^ (Mix64(right ^ g->keys[round]) & mask);
      left                          = right;
      right                         = next;
    }
    x = (left << g->half_bits) | right;
  } while (x >= g->ncells);
  return x;
}

/* Its inverse: the rounds undone in reverse order, walking back along the same cycle */
static unsigned long long Unpermute(const SceneGenerator *g, unsigned long long x)
{
  const unsigned long long mask = (1ULL << g->half_bits) - 1;

  do {
    unsigned long long left = x >> g->half_bits, right = x & mask;
    for (int round = 3; round >= 0; round--) {
      const unsigned long long previous = right ^ (Mix64(left ^ g->keys[round]) & mask);
      right                             = left;
      left                              = previous;
    }
    x = (left << g->half_bits) | right;
  } while (x >= g->ncells);
  return x;
}

/*
 * The block [lo, hi) of an n[0] x n[1] x n[2] grid (of lattice points or of cells) that this rank
 * makes: the grid cut across its longest side in proportion to the ranks on each side, and again in
 * each part, as the first partition's recursive coordinate bisection cuts the spheres' centres.
 */
static void RankBlock(const long long n[3], PetscMPIInt rank, PetscMPIInt size, long long lo[3], long long hi[3])
{
  PetscMPIInt first = 0, last = size; /* the ranks sharing [lo, hi) */

  for (int d = 0; d < 3; d++) lo[d] = 0, hi[d] = n[d];
  while (last - first > 1) {
    const PetscMPIInt below = (last - first) / 2;
    int               d     = 0;
    long long         cut;
    for (int e = 1; e < 3; e++)
      if (hi[e] - lo[e] > hi[d] - lo[d]) d = e; /* the first of equal sides, as Zoltan's RCB picks */
    cut = lo[d] + ((hi[d] - lo[d]) * below + (last - first) / 2) / (last - first); /* rounded, as RCB's median */
    if (rank < first + below) hi[d] = cut, last = first + below;
    else lo[d] = cut, first += below;
  }
}

static PetscErrorCode ReadLattice(SceneReader *r, yaml_node_t *map, const TalusScene *scene, SceneGenerator *g)
{
  yaml_node_t *node;
  PetscReal    count_r[3];

  PetscFunctionBegin;
  PetscCall(SceneRequireKey(r, map, "origin", "lattice", &node));
  PetscCall(SceneGetVector(r, node, "origin", 3, g->origin));
  PetscCall(SceneRequireKey(r, map, "spacing", "lattice", &node));
  PetscCall(SceneGetNumber(r, node, "spacing", &g->spacing));
  if (!(g->spacing > 0.0)) SceneError(r, node, "spacing must be positive, got %g", (double)g->spacing);
  PetscCall(SceneRequireKey(r, map, "count", "lattice", &node));
  PetscCall(SceneGetVector(r, node, "count (nx, ny, nz)", 3, count_r));
  g->count = 1;
  for (int d = 0; d < 3; d++) {
    if (count_r[d] != PetscFloorReal(count_r[d]) || count_r[d] < 1 || count_r[d] > 1e4)
      SceneError(r, node, "count must be three integers in 1..10000, got %g", (double)count_r[d]);
    g->n[d] = (PetscInt)count_r[d];
    g->count *= (double)g->n[d];
  }
  PetscCall(SceneOptionalNumber(r, map, "jitter", &g->jitter));
  if ((node = SceneLookup(r, map, "jitter")) && g->jitter < 0.0)
    SceneError(r, node, "jitter must be >= 0 (the largest shift of a centre along each axis), got %g",
               (double)g->jitter);
  if ((node = SceneLookup(r, map, "jitter")) && 2.0 * (g->radius + g->jitter) > g->spacing + scene->overlap_tolerance)
    SceneError(r, node,
               "jitter %g lets neighbours of radius %g overlap at spacing %g (need 2 (radius + jitter) <= spacing)",
               (double)g->jitter, (double)g->radius, (double)g->spacing);
  if (2.0 * g->radius > g->spacing + scene->overlap_tolerance)
    SceneError(r, map, "spheres of radius %g overlap at spacing %g", (double)g->radius, (double)g->spacing);
  for (int d = 0; d < 3; d++) {
    g->box_lo[d] = g->origin[d] - g->radius - g->jitter;
    g->box_hi[d] = g->origin[d] + (g->n[d] - 1) * g->spacing + g->radius + g->jitter;
  }
  PetscFunctionReturn(0);
}

/*
 * random_fill: the box is cut into cells of equal size, as large as leaves at least count of them
 * and never narrower than a sphere's diameter; count cells are picked by a seeded permutation
 * (sphere i takes cell Permute(i)) and each sphere is put at a seeded random place in its cell, at
 * least a radius from the cell's walls, so that no two spheres overlap by construction.
 */
static PetscErrorCode ReadRandomFill(SceneReader *r, yaml_node_t *map, SceneGenerator *g)
{
  yaml_node_t *node, *count_node;
  PetscInt     count;
  PetscReal    side, room[3], most = 1.0;

  PetscFunctionBegin;
  PetscCall(SceneRequireKey(r, map, "min", "random_fill", &node));
  PetscCall(SceneGetVector(r, node, "min", 3, g->box_lo));
  PetscCall(SceneRequireKey(r, map, "max", "random_fill", &node));
  PetscCall(SceneGetVector(r, node, "max", 3, g->box_hi));
  for (int d = 0; d < 3; d++) {
    room[d] = g->box_hi[d] - g->box_lo[d];
    if (!(room[d] >= 2.0 * g->radius))
      SceneError(r, node, "the region from min to max must be wider than a sphere's diameter in every direction");
    most *= PetscFloorReal(room[d] / (2.0 * g->radius));
  }
  PetscCall(SceneRequireKey(r, map, "count", "random_fill", &count_node));
  PetscCall(SceneGetInt(r, count_node, "count", &count));
  if (count < 1)
    SceneError(r, count_node, "count must be >= 1 (a generator that adds nothing is a mistake), got %" PetscInt_FMT,
               count);
  if ((double)count > most)
    SceneError(r, count_node,
               "%" PetscInt_FMT " spheres of radius %g do not fit in the region: it holds at most %.0f, one in each "
               "cube of one diameter (a lattice packs denser)",
               count, (double)g->radius, most);
  g->count = (double)count;
  /* the largest cells that are at least count: start from the volume's share and shrink */
  side = PetscCbrtReal(room[0] * room[1] * room[2] / g->count);
  for (;;) {
    double cells = 1.0;
    for (int d = 0; d < 3; d++) cells *= PetscFloorReal(room[d] / side);
    if (cells >= g->count || side <= 2.0 * g->radius) break;
    side = PetscMax(0.99 * side, 2.0 * g->radius);
  }
  g->ncells = 1;
  for (int d = 0; d < 3; d++) {
    const double n = PetscFloorReal(room[d] / side);
    if (n > 1e15 / (double)g->ncells)
      SceneError(r, map, "the region is too long and thin for %" PetscInt_FMT " spheres: more than 1e15 cells", count);
    g->ncell[d] = (unsigned long long)n;
    g->cell[d]  = room[d] / n; /* stretched to fill the box: at least side */
    g->ncells *= g->ncell[d];
  }
  for (g->half_bits = 1; (1ULL << (2 * g->half_bits)) < g->ncells;) g->half_bits++;
  for (int k = 0; k < 4; k++) g->keys[k] = Mix64(g->seed + (unsigned long long)(k + 1) * golden);
  PetscFunctionReturn(0);
}

PetscErrorCode SceneReadGenerator(SceneReader *r, yaml_node_t *entry, const TalusScene *scene, TalusBodies *b,
                                  SceneGenerator *g)
{
  yaml_node_t *map, *node, *lattice = SceneLookup(r, entry, "lattice"), *fill = SceneLookup(r, entry, "random_fill");
  PetscInt     seed = 1;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(g, sizeof(*g)));
  {
    static const char *const kinds[] = {"lattice", "random_fill", NULL};
    PetscCall(SceneCheckKeys(r, entry, "a generator", kinds));
  }
  if (!!lattice == !!fill) SceneError(r, entry, "a generator is either lattice: or random_fill:");
  map        = lattice ? lattice : fill;
  g->lattice = (PetscBool) !!lattice;
  g->node    = map;
  PetscCall(SceneCheckKeys(r, map, lattice ? "lattice" : "random_fill", lattice ? lattice_keys : random_fill_keys));
  g->clump = -1;
  if ((node = SceneLookup(r, map, "shape"))) {
    const char *name;
    PetscCall(SceneGetString(r, node, "shape", &name));
    if (strcmp(name, "sphere") && strcmp(name, "compound"))
      SceneError(r, node, "generators make spheres or compounds (with parts:), got \"%s\"", name);
  }
  PetscCall(SceneRequireKey(r, map, "radius", "a generator", &node));
  PetscCall(SceneGetNumber(r, node, "radius", &g->radius));
  if (!(g->radius > 0.0)) SceneError(r, node, "radius must be positive, got %g", (double)g->radius);
  if ((node = SceneLookup(r, map, "parts"))) { /* clumps: each grain a compound, turned at random, radius holding it */
    PetscReal size[3];
    PetscCall(SceneReadDescription(r, node, TALUS_COMPOUND, -1, size));
    g->clump = (PetscInt)size[0];
    if (TalusShapeDataGet(g->clump)->radius > g->radius * (1.0 + 1e-12))
      SceneError(r, node,
                 "the parts reach %g from their centroid, beyond the generator's radius %g (the ball each grain "
                 "is placed in)",
                 (double)TalusShapeDataGet(g->clump)->radius, (double)g->radius);
  }
  PetscCall(SceneMaterialOf(r, map, b, &g->material));
  PetscCall(SceneMassOf(r, map, b, g->material, "generated spheres need", &g->mass));
  PetscCall(SceneOptionalVector(r, map, "velocity", g->velocity));
  if ((node = SceneLookup(r, map, "seed"))) PetscCall(SceneGetInt(r, node, "seed", &seed));
  g->seed = (unsigned long long)seed;
  if (lattice) PetscCall(ReadLattice(r, map, scene, g));
  else PetscCall(ReadRandomFill(r, map, g));
  PetscFunctionReturn(0);
}

/* Sphere p of a generator (0 <= p < count): its centre */
static void Centre(const SceneGenerator *g, PetscInt p, PetscReal x[3])
{
  const unsigned long long n = 3ULL * (unsigned long long)p;

  if (g->lattice) {
    const PetscInt i = p % g->n[0], j = (p / g->n[0]) % g->n[1], k = p / (g->n[0] * g->n[1]);
    x[0] = g->origin[0] + i * g->spacing;
    x[1] = g->origin[1] + j * g->spacing;
    x[2] = g->origin[2] + k * g->spacing;
    for (int d = 0; d < 3; d++) x[d] += g->jitter * (2.0 * UniformAt(g->seed, n + 1 + d) - 1.0);
  } else {
    unsigned long long cell = Permute(g, (unsigned long long)p), c[3];
    c[0]                    = cell % g->ncell[0];
    c[1]                    = (cell / g->ncell[0]) % g->ncell[1];
    c[2]                    = cell / (g->ncell[0] * g->ncell[1]);
    for (int d = 0; d < 3; d++)
      x[d] = g->box_lo[d] + (PetscReal)c[d] * g->cell[d] + g->radius +
             (g->cell[d] - 2.0 * g->radius) * UniformAt(g->seed, n + 1 + d);
  }
}

/* Grain p of a clump generator: the compound with its centroid at x, its principal axes turned by a uniformly
   random rotation (Shoemake's, from draws of a stream of its own: the seed's bits flipped, so the places stay those
   a generator of spheres gives) */
static PetscErrorCode AddClump(const SceneGenerator *g, PetscInt p, PetscInt id, const PetscReal x[3], TalusBodies *b,
                               PetscInt *k)
{
  const unsigned long long n = 3ULL * (unsigned long long)p, seed = ~g->seed;
  const PetscReal          size[3] = {(PetscReal)g->clump, (PetscReal)TalusShapeDataGet(g->clump)->n, 0};
  const PetscReal          u1 = UniformAt(seed, n + 1), u2 = 2 * PETSC_PI * UniformAt(seed, n + 2),
                  u3 = 2 * PETSC_PI * UniformAt(seed, n + 3);

  PetscFunctionBegin;
  PetscCall(TalusBodiesAdd(b, id, TALUS_COMPOUND, size, g->mass, g->material, PETSC_FALSE, x, k));
  b->quaternion[4 * *k]     = PetscSqrtReal(1 - u1) * PetscSinReal(u2);
  b->quaternion[4 * *k + 1] = PetscSqrtReal(1 - u1) * PetscCosReal(u2);
  b->quaternion[4 * *k + 2] = PetscSqrtReal(u1) * PetscSinReal(u3);
  b->quaternion[4 * *k + 3] = PetscSqrtReal(u1) * PetscCosReal(u3);
  PetscFunctionReturn(0);
}

PetscErrorCode SceneGenerate(SceneReader *r, const SceneGenerator *g, PetscInt first_id, TalusBodies *b)
{
  const PetscReal size[3] = {g->radius, 0.0, 0.0};
  PetscMPIInt     rank, nranks;
  long long       n[3], lo[3], hi[3], points = 1;
  PetscInt       *made, nmade = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(r->comm, &rank));
  PetscCallMPI(MPI_Comm_size(r->comm, &nranks));
  for (int d = 0; d < 3; d++) n[d] = g->lattice ? (long long)g->n[d] : (long long)g->ncell[d];
  RankBlock(n, rank, nranks, lo, hi);
  for (int d = 0; d < 3; d++) points *= hi[d] - lo[d];
  /* the spheres of this block, by number: a lattice point is its sphere; a cell holds the sphere the
     permutation sends to it, when that number is below count */
  PetscCall(PetscMalloc1(points + 1, &made));
  for (long long k = lo[2]; k < hi[2]; k++)
    for (long long j = lo[1]; j < hi[1]; j++)
      for (long long i = lo[0]; i < hi[0]; i++) {
        const unsigned long long at = (unsigned long long)(i + n[0] * (j + n[1] * k));
        const unsigned long long p  = g->lattice ? at : Unpermute(g, at);
        if ((double)p < g->count) made[nmade++] = (PetscInt)p;
      }
  if (!g->lattice) PetscCall(PetscSortInt(nmade, made)); /* in id order, as a lattice's are already */
  /* and room for the spheres the first distribution brings from other ranks: growing the arrays then
     would copy them all (pages never written take no memory) */
  PetscCall(TalusBodiesReserve(b, b->n + nmade + nmade / 4));
  for (PetscInt m = 0; m < nmade; m++) {
    PetscReal x[3];
    PetscInt  k;
    Centre(g, made[m], x);
    if (g->clump >= 0) PetscCall(AddClump(g, made[m], first_id + made[m], x, b, &k));
    else PetscCall(TalusBodiesAdd(b, first_id + made[m], TALUS_SPHERE, size, g->mass, g->material, PETSC_FALSE, x, &k));
    for (int d = 0; d < 3; d++) b->velocity[3 * k + d] = g->velocity[d];
  }
  PetscCall(PetscFree(made));
  PetscFunctionReturn(0);
}
