/*
 * Shapes described by more than a body's three size numbers: convex hulls (their vertices) and compound bodies
 * (their parts). Each description is an entry of one table per process, and a body of such a shape carries its
 * entry's number in size[0]. Every rank holds the same table in the same order: a scene's bodies are read whole on
 * every rank, and a checkpoint's entries by every rank, so the number means the same body on any rank a body
 * migrates to. Entries are never removed; adding one equal to an existing entry gives the existing number.
 *
 * Each entry is stored about its centroid in its principal axes, so that a body's mass, inertia[3] and the
 * integrator's Euler equations hold for it as for a box (seed 000 sec. 1). The frame the scene gave it ("given")
 * differs from the stored ("principal") one by `centroid` and `rotation`: a point x of the given frame is
 * rotation^T (x - centroid) in the principal one.
 */
#ifndef TALUS_SHAPE_DATA_H
#define TALUS_SHAPE_DATA_H
#include <talus/bodies.h>

/* the most vertices of a hull, and parts of a compound */
#define TALUS_MAX_HULL_VERTICES  1024
#define TALUS_MAX_COMPOUND_PARTS 64

/* One part of a compound body: a shape of its own (not a hull or a compound), placed in the body's frame */
typedef struct {
  TalusShape shape;
  PetscReal  size[3];
  PetscReal  position[3], quaternion[4]; /* its centre and orientation in the body's (principal) frame */
} TalusShapePart;

typedef struct {
  TalusShape      shape;              /* TALUS_HULL or TALUS_COMPOUND */
  PetscInt        n;                  /* vertices or parts */
  PetscReal      *vertex;             /* a hull's 3 n vertices (principal frame); only the hull's corners are kept */
  PetscInt        nfaces, *face;      /* a hull's nfaces triangles (3 corners, outward) */
  TalusShapePart *part;               /* a compound's n parts (principal frame) */
  PetscReal       volume, inertia[3]; /* at unit density: principal moments about the centroid */
  PetscReal       radius;             /* of the ball about the centroid that holds it */
  PetscReal       extent[3];          /* of the box about the centroid that holds it, along each principal axis */
  PetscReal       centroid[3], rotation[4]; /* the principal frame in the given one */
  /* what was given, to compare entries and to write them to checkpoints */
  PetscInt   ngiven;
  PetscReal *given; /* hull: 3 ngiven vertices; compound: 11 numbers a part (shape, size, position, quaternion) */
} TalusShapeData;

#define TALUS_SHAPE_PART_NUMBERS 11

/* A hull of n >= 4 vertices (3 n numbers, given frame). Refused, with why[] saying so and naming the vertex, when
   fewer than 4 are given, when they span no volume, or when one lies inside the hull of the others (not convex):
   *index is -1 then. Errors only on failures of the machine. */
PETSC_EXTERN PetscErrorCode TalusShapeDataAddHull(PetscInt n, const PetscReal vertex[], PetscInt *index, char why[],
                                                  size_t why_size);
/* A compound of n parts placed in the given frame. Refused (why[], *index -1) when a part is a hull or a compound,
   has a size its shape does not allow, or no volume (a plane). */
PETSC_EXTERN PetscErrorCode TalusShapeDataAddCompound(PetscInt n, const TalusShapePart part[], PetscInt *index,
                                                      char why[], size_t why_size);
/* Entry `index`, or NULL when there is none */
PETSC_EXTERN const TalusShapeData *TalusShapeDataGet(PetscInt index);
PETSC_EXTERN PetscInt              TalusShapeDataCount(void);
/* A body of shape TALUS_HULL or TALUS_COMPOUND, given in the frame (position, quaternion) of its description:
   its centre and orientation as stored (its centroid and principal axes). */
PETSC_EXTERN void TalusShapeDataPlace(const TalusShapeData *, const PetscReal given_position[3],
                                      const PetscReal given_quaternion[4], PetscReal position[3],
                                      PetscReal quaternion[4]);
/* Frees every entry (at the end of a program; a later add starts numbering from 0 again) */
PETSC_EXTERN PetscErrorCode TalusShapeDataReset(void);

#endif
