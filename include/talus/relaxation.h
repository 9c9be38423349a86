/*
 * Seed 003's Baumgarte-like relaxation of contacts (Kikuuwe & Brogliato, eq. 63-70; the
 * formulations note, sec. 3.4; docs/relaxation.md): a material's contacts obey
 *
 *   J u^{l+1} + (2 zeta h / delta - 1) J u^l + (h / delta^2) Phi  in  -N(gamma),
 *
 * a damped spring of time constant delta and damping ratio zeta in the normal direction and a
 * velocity relaxation in the tangential ones. zeta = 1/2, delta = h is seed 000's b_n = Phi / h
 * (talus's rigid contact, the default: delta = 0 in a material means it).
 */
#ifndef TALUS_RELAXATION_H
#define TALUS_RELAXATION_H
#include <talus/bodies.h>
#include <talus/contacts.h>

/* Eq. 104: the exit/entry speed ratio of an impact, exp(-zeta acos(2 zeta^2 - 1) / sqrt(1 - zeta^2))
   for zeta < 1, e^-2 at 1, exp(-2 beta coth beta) with zeta = cosh beta above. */
PETSC_EXTERN PetscReal TalusRestitutionOfDamping(PetscReal zeta);
/* The zeta >= 0 whose eq. 104 restitution is e (0 < e <= 1), by bisection to 1e-14. */
PETSC_EXTERN PetscReal TalusDampingOfRestitution(PetscReal e);
/* Whether the discrete normal recurrence is stable at this time step: (h/delta)^2 + 4 zeta h/delta < 4
   and zeta h / delta < 1 (the formulations note, sec. 3.4). */
PETSC_EXTERN PetscBool TalusRelaxationStable(PetscReal zeta, PetscReal delta, PetscReal h);
/* The delta at this zeta and h below which it is not: h / min(2 (sqrt(zeta^2 + 1) - zeta), 1 / zeta). */
PETSC_EXTERN PetscReal TalusRelaxationMinDelta(PetscReal zeta, PetscReal h);
/* The relaxation of a contact between bodies ka and kb: that of their material with the larger delta
   (the softer; delta = 0: rigid). */
PETSC_EXTERN void TalusContactRelaxation(const TalusBodies *, PetscInt ka, PetscInt kb, PetscReal *zeta,
                                         PetscReal *delta);

/* Seed 004's compliance of a contact between bodies ka and kb (eq. 53-62; docs/compliance.md): its
   materials' linear stiffnesses and dampings in series (one compliant material: its own; none: K = 0;
   a Hertzian material's damping counts, its stiffness is the contact's: TalusContactNormalLaw). */
PETSC_EXTERN void TalusContactCompliance(const TalusBodies *, PetscInt ka, PetscInt kb, PetscReal *K, PetscReal *B);
/* Seed 004's Hertz contact (eq. 121-123, TalusBodiesSetMaterialHertz): the pair's modulus E*, its
   materials' in series (one Hertzian material: its own; none: 0), and its radius r = 1 / (1/r_a + 1/r_b)
   (a plane's is infinite; 0 when a side is a box, which has no curvature there). */
PETSC_EXTERN PetscReal TalusContactHertzModulus(const TalusBodies *, PetscInt ka, PetscInt kb);
PETSC_EXTERN PetscReal TalusContactHertzRadius(const TalusBodies *, PetscInt ka, PetscInt kb);
/* The foundation grid of a box-plane pair (TalusBodiesSetMaterialFoundation): the larger of its materials'; 0: none. */
PETSC_EXTERN PetscInt TalusContactFoundationGrid(const TalusBodies *, PetscInt ka, PetscInt kb);
/* Whether any material's contacts are compliant (then the step's problem has N + E). */
PETSC_EXTERN PetscBool TalusBodiesAnyCompliant(const TalusBodies *);

/* relaxation.c: contact ct's normal stiffness K (N/m; 0: rigid) and damping B this step, seed 004's
   linear law or Hertz's secant at h (its impulse: the warm start), of which a foundation's point has
   the share (1 / grid^2; else 1) (K / (h K + B) needs no share); PETSC_FALSE for a Hertzian contact
   that carries no force this step (no depth now, none at the step's end, no load last step), which the
   step drops after its warm start. */
PETSC_EXTERN PetscBool TalusContactNormalLaw(const TalusBodies *, const TalusContact *ct, PetscReal h, PetscReal *K,
                                             PetscReal *B, PetscReal *share);
/* relaxation.c: drops, in order, the Hertzian contacts that carry no force this step (TalusContactNormalLaw), and
   gives in *flat id * TALUS_NSHAPES + shape of the body of lowest id in a Hertzian contact whose shape has no
   radius of curvature (a box's corners), else PETSC_MAX_INT: the caller stops the run naming it. PETSC_FALSE
   (and nothing done) when no material is Hertzian. */
PETSC_EXTERN PetscBool TalusContactsDropSlackHertz(const TalusBodies *, PetscReal h, TalusContactList *,
                                                   PetscInt *flat);

#endif
