/*
 * B^T g for the bodies at the ranks' faces in the order one rank adds it (issue 55, item 2: the same bits on any
 * number of ranks).
 *
 * A contact is kept by the owner of its lower-id dynamic body (distribute.c), so an owned body's contacts may lie
 * on other ranks. Adding each rank's partial sum of them to the owner's (VecGhostUpdate reverse, as before) sums
 * the same terms in another order than one rank's, which adds each body's contacts in the
 * contacts' order, (id_a, id_b, feature) (TalusFindContacts; the screened ones that join the problem are merged
 * into it, step_screen.c). Here every contact side whose body is a ghost sends its term (f, S x f) to the body's
 * owner (a PetscSF gather: 6 scalars a side, each product), and the owner adds the terms of each such "face"
 * body, its own contacts' and the others', in the contacts' order. The other bodies' sums are the products' own.
 */
#include "jacobian_faces.h"
#include "jacobian_record.h"

typedef struct {
  PetscInt source; /* >= 0: this rank's contact; < 0: -1 - its place among the gathered terms */
  PetscInt offset; /* a local contact's record */
  char     b_side; /* the body is the contact's b (its term is added) or a (taken away) */
  PetscInt key[3]; /* id_a, id_b, feature: the contacts' order */
  PetscInt face;   /* while sorting */
} FaceEntry;

struct _TalusJacobianFaces {
  PetscSF      sf;           /* a leaf a ghost side -> its body on the owner */
  MPI_Datatype term_unit;    /* 6 scalars: a side's term */
  PetscInt     nleaves;      /* the sides of this rank's contacts whose body is a ghost */
  PetscInt    *leaf_contact; /* their contacts, */
  PetscInt    *leaf_offset;  /* records */
  char        *leaf_b_side;  /* and sides */
  PetscScalar *leaf_terms;   /* 6 a side */
  PetscScalar *gathered;     /* 6 a side that reaches an owned body, body by body in the gather's order */
  PetscInt     nface;        /* owned bodies with a term from another rank */
  PetscInt    *face_slot, *face_start;
  FaceEntry   *entry; /* face f's terms: face_start[f] .. face_start[f + 1], in the contacts' order */
};

static int CompareEntries(const void *x, const void *y)
{
  const FaceEntry *a = (const FaceEntry *)x, *b = (const FaceEntry *)y;

  if (a->face != b->face) return a->face < b->face ? -1 : 1;
  return TalusContactKeyCompare(a->key[0], a->key[1], a->key[2], b->key[0], b->key[1], b->key[2]);
}

static void KeyOf(const TalusContact *c, PetscInt key[3])
{
  key[0] = c->id_a, key[1] = c->id_b, key[2] = c->feature;
}

/* the ghost sides: their contacts, records and sides, and the SF to their bodies' owners */
static PetscErrorCode GhostSides(TalusJacobianFaces f, MPI_Comm comm, PetscLayout columns, PetscInt n,
                                 const PetscInt *slot, const char *kind, PetscInt ndynamic, const PetscInt *ghost_block)
{
  PetscSFNode *remote;
  PetscInt     offset = 0, l = 0;

  PetscFunctionBegin;
  for (PetscInt e = 0; e < 2 * n; e++) f->nleaves += slot[e] >= ndynamic;
  PetscCall(PetscMalloc4(f->nleaves, &f->leaf_contact, f->nleaves, &f->leaf_offset, f->nleaves, &f->leaf_b_side,
                         6 * f->nleaves, &f->leaf_terms));
  PetscCall(PetscMalloc1(f->nleaves + 1, &remote));
  for (PetscInt c = 0; c < n; offset += kind[c++])
    for (int side = 0; side < 2; side++) {
      const PetscInt s = slot[2 * c + side];
      PetscMPIInt    owner;
      PetscInt       dof;
      if (s < ndynamic) continue;
      dof = 6 * ghost_block[s - ndynamic];
      PetscCall(PetscLayoutFindOwner(columns, dof, &owner));
      f->leaf_contact[l] = c, f->leaf_offset[l] = offset, f->leaf_b_side[l] = (char)side;
      remote[l].rank = owner, remote[l].index = (dof - columns->range[owner]) / 6;
      l++;
    }
  PetscCall(PetscSFCreate(comm, &f->sf));
  PetscCall(PetscSFSetGraph(f->sf, ndynamic, f->nleaves, NULL, PETSC_COPY_VALUES, remote, PETSC_COPY_VALUES));
  PetscCallMPI(MPI_Type_contiguous(6, MPIU_SCALAR, &f->term_unit));
  PetscCallMPI(MPI_Type_commit(&f->term_unit));
  PetscCall(PetscSFSetUp(f->sf));
  PetscCall(PetscFree(remote));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusJacobianFacesCreate(MPI_Comm comm, PetscLayout columns, PetscInt n, const PetscInt *slot,
                                        const char *kind, const TalusContact *contacts, PetscInt ndynamic,
                                        const PetscInt *ghost_block, TalusJacobianFaces *faces)
{
  TalusJacobianFaces f;
  const PetscInt    *degree;
  PetscInt          *face_of, *start, *keys, *gathered_keys, ngathered = 0, nentries = 0, offset = 0;
  MPI_Datatype       key_unit;

  PetscFunctionBegin;
  PetscCall(PetscNew(&f));
  PetscCall(GhostSides(f, comm, columns, n, slot, kind, ndynamic, ghost_block));
  /* the faces: owned bodies that receive terms */
  PetscCall(PetscSFComputeDegreeBegin(f->sf, &degree));
  PetscCall(PetscSFComputeDegreeEnd(f->sf, &degree));
  PetscCall(PetscMalloc2(ndynamic + 1, &face_of, ndynamic + 1, &start));
  for (PetscInt b = 0; b < ndynamic; b++) {
    face_of[b] = degree[b] ? f->nface++ : -1;
    start[b]   = ngathered; /* the first of body b's terms in the gathered ones */
    ngathered += degree[b];
  }
  /* each ghost side's key and side, gathered as its terms will be */
  PetscCallMPI(MPI_Type_contiguous(4, MPIU_INT, &key_unit));
  PetscCallMPI(MPI_Type_commit(&key_unit));
  PetscCall(PetscMalloc2(4 * f->nleaves, &keys, 4 * ngathered, &gathered_keys));
  PetscCall(PetscMalloc1(6 * ngathered + 1, &f->gathered));
  for (PetscInt l = 0; l < f->nleaves; l++) {
    KeyOf(&contacts[f->leaf_contact[l]], &keys[4 * l]);
    keys[4 * l + 3] = f->leaf_b_side[l];
  }
  PetscCall(PetscSFGatherBegin(f->sf, key_unit, keys, gathered_keys));
  PetscCall(PetscSFGatherEnd(f->sf, key_unit, keys, gathered_keys));
  PetscCallMPI(MPI_Type_free(&key_unit));
  /* the faces' terms: the gathered ones, and those of this rank's contacts */
  nentries = ngathered;
  for (PetscInt e = 0; e < 2 * n; e++) nentries += slot[e] >= 0 && slot[e] < ndynamic && face_of[slot[e]] >= 0;
  PetscCall(PetscMalloc3(nentries, &f->entry, f->nface, &f->face_slot, f->nface + 1, &f->face_start));
  nentries = 0;
  for (PetscInt b = 0; b < ndynamic; b++) {
    if (face_of[b] < 0) continue;
    f->face_slot[face_of[b]] = b;
    for (PetscInt j = start[b]; j < start[b] + degree[b]; j++) {
      FaceEntry *en = &f->entry[nentries++];
      for (int k = 0; k < 3; k++) en->key[k] = gathered_keys[4 * j + k];
      en->b_side = (char)gathered_keys[4 * j + 3], en->source = -1 - j, en->offset = -1, en->face = face_of[b];
    }
  }
  for (PetscInt c = 0; c < n; offset += kind[c++])
    for (int side = 0; side < 2; side++) {
      const PetscInt s = slot[2 * c + side];
      FaceEntry     *en;
      if (s < 0 || s >= ndynamic || face_of[s] < 0) continue;
      en = &f->entry[nentries++];
      KeyOf(&contacts[c], en->key);
      en->b_side = (char)side, en->source = c, en->offset = offset, en->face = face_of[s];
    }
  if (nentries) qsort(f->entry, (size_t)nentries, sizeof(FaceEntry), CompareEntries); /* qsort takes no NULL */
  for (PetscInt k = 0, face = 0; face <= f->nface; face++) {
    while (k < nentries && f->entry[k].face < face) k++;
    f->face_start[face] = k;
  }
  PetscCall(PetscFree2(keys, gathered_keys));
  PetscCall(PetscFree2(face_of, start));
  *faces = f;
  PetscFunctionReturn(0);
}

/* a contact's term (f, S x f) for one side, g scaled by d as the products scale it */
static inline void Term(const PetscReal *restrict J, PetscInt offset, char kind, PetscBool b_side,
                        const PetscScalar *restrict dv, const PetscScalar *restrict gv, PetscInt c, PetscReal w[6])
{
  const Contact     k  = Unpack(&J[offset], kind);
  const PetscScalar g0 = dv ? dv[3 * c] * gv[3 * c] : gv[3 * c],
                    g1 = dv ? dv[3 * c + 1] * gv[3 * c + 1] : gv[3 * c + 1],
                    g2 = dv ? dv[3 * c + 2] * gv[3 * c + 2] : gv[3 * c + 2];
  PetscReal f[3];

  ContactForce(&k, g0, g1, g2, f);
  SideWrench(&k, b_side, f, w);
}

PetscErrorCode TalusJacobianFacesBegin(TalusJacobianFaces f, const PetscReal *J, const char *kind,
                                       const PetscScalar *dv, const PetscScalar *gv)
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l < f->nleaves; l++) {
    const PetscInt c = f->leaf_contact[l];
    Term(J, f->leaf_offset[l], kind[c], (PetscBool)f->leaf_b_side[l], dv, gv, c, &f->leaf_terms[6 * l]);
  }
  PetscCall(PetscSFGatherBegin(f->sf, f->term_unit, f->leaf_terms, f->gathered));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusJacobianFacesEnd(TalusJacobianFaces f, const PetscReal *J, const char *kind, const PetscScalar *dv,
                                     const PetscScalar *gv, PetscScalar *yv)
{
  PetscFunctionBegin;
  PetscCall(PetscSFGatherEnd(f->sf, f->term_unit, f->leaf_terms, f->gathered));
  for (PetscInt face = 0; face < f->nface; face++) {
    const PetscInt b    = f->face_slot[face];
    PetscReal      y[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (PetscInt k = f->face_start[face]; k < f->face_start[face + 1]; k++) {
      const FaceEntry *en = &f->entry[k];
      PetscReal        w[6];
      if (en->source >= 0) Term(J, en->offset, kind[en->source], (PetscBool)en->b_side, dv, gv, en->source, w);
      else
        for (int e = 0; e < 6; e++) w[e] = PetscRealPart(f->gathered[6 * (-1 - en->source) + e]);
      if (en->b_side)
        for (int e = 0; e < 6; e++) y[e] = y[e] + w[e];
      else
        for (int e = 0; e < 6; e++) y[e] = y[e] - w[e];
    }
    for (int e = 0; e < 6; e++) yv[6 * b + e] = y[e];
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusJacobianFacesDestroy(TalusJacobianFaces *faces)
{
  TalusJacobianFaces f = *faces;

  PetscFunctionBegin;
  if (!f) PetscFunctionReturn(0);
  PetscCall(PetscSFDestroy(&f->sf));
  PetscCallMPI(MPI_Type_free(&f->term_unit));
  PetscCall(PetscFree4(f->leaf_contact, f->leaf_offset, f->leaf_b_side, f->leaf_terms));
  PetscCall(PetscFree(f->gathered));
  PetscCall(PetscFree3(f->entry, f->face_slot, f->face_start));
  PetscCall(PetscFree(*faces));
  PetscFunctionReturn(0);
}
