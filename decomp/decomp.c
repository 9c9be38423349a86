/*
 * Domain decomposition (see decomp.h): Zoltan's recursive coordinate bisection for the regions,
 * PetscSF for every transfer (migration and ghost refresh), PetscCommBuildTwoSided to discover who
 * sends to whom. No physics here.
 */
#include "decomp.h"
#include <zoltan.h>

struct _p_TalusDecomp {
  MPI_Comm              comm;
  PetscMPIInt           rank, size;
  struct Zoltan_Struct *zz;
  PetscBool             partitioned;
  PetscInt              rebalance_every;
  PetscReal             imbalance_threshold;
  PetscInt              last_rebalance, cooldown; /* back-off when repartitioning does not help */
};

/* What Zoltan's callbacks read during a partition. */
typedef struct {
  PetscInt         n;
  const PetscInt  *ids;
  const PetscReal *centres, *weights;
} PartitionInput;

static int NumObjects(void *data, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return (int)((PartitionInput *)data)->n;
}

static void ObjectList(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim, float *weights,
                       int *ierr)
{
  PartitionInput *in = (PartitionInput *)data;
  for (PetscInt k = 0; k < in->n; k++) {
    gids[k] = (ZOLTAN_ID_TYPE)in->ids[k];
    lids[k] = (ZOLTAN_ID_TYPE)k;
    if (wdim > 0) weights[k] = in->weights ? (float)in->weights[k] : 1.0f;
  }
  *ierr = ZOLTAN_OK;
}

static int NumGeometry(void *data, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return 3;
}

static void Geometry(void *data, int ngid, int nlid, int nobj, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int ndim,
                     double *geom, int *ierr)
{
  PartitionInput *in = (PartitionInput *)data;
  for (int k = 0; k < nobj; k++)
    for (int d = 0; d < 3; d++) geom[3 * k + d] = in->centres[3 * lids[k] + d];
  *ierr = ZOLTAN_OK;
}

PetscErrorCode TalusDecompCreate(MPI_Comm comm, TalusDecomp *dd)
{
  static PetscBool zoltan_initialised = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscNew(dd));
  (*dd)->comm                = comm;
  (*dd)->rebalance_every     = 0;
  (*dd)->imbalance_threshold = 1.2;
  (*dd)->last_rebalance      = -1;
  (*dd)->cooldown            = 1;
  PetscCallMPI(MPI_Comm_rank(comm, &(*dd)->rank));
  PetscCallMPI(MPI_Comm_size(comm, &(*dd)->size));
  if ((*dd)->size == 1) PetscFunctionReturn(0); /* one region: no Zoltan needed */
  if (!zoltan_initialised) {
    float version;
    PetscCheck(Zoltan_Initialize(0, NULL, &version) == ZOLTAN_OK, comm, PETSC_ERR_LIB, "Zoltan_Initialize failed");
    zoltan_initialised = PETSC_TRUE;
  }
  (*dd)->zz = Zoltan_Create(comm);
  PetscCheck((*dd)->zz, comm, PETSC_ERR_LIB, "Zoltan_Create failed");
  {
    /* DEBUG_LEVEL first: Zoltan reports the other settings at level 1. KEEP_CUTS: for point and box
       assignment. AVERAGE_CUTS: cuts midway between neighbours, so no body lies on a cut. */
    static const char *const params[][2] = {
      {"DEBUG_LEVEL",     "0"   },
      {"LB_METHOD",       "RCB" },
      {"KEEP_CUTS",       "1"   },
      {"RETURN_LISTS",    "NONE"},
      {"NUM_GID_ENTRIES", "1"   },
      {"NUM_LID_ENTRIES", "1"   },
      {"OBJ_WEIGHT_DIM",  "1"   },
      {"IMBALANCE_TOL",   "1.05"},
      {"AVERAGE_CUTS",    "1"   },
    };
    for (size_t k = 0; k < sizeof(params) / sizeof(params[0]); k++)
      PetscCheck(Zoltan_Set_Param((*dd)->zz, params[k][0], params[k][1]) == ZOLTAN_OK, comm, PETSC_ERR_LIB,
                 "Zoltan refused the parameter %s = %s", params[k][0], params[k][1]);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDecompDestroy(TalusDecomp *dd)
{
  PetscFunctionBegin;
  if (!*dd) PetscFunctionReturn(0);
  if ((*dd)->zz) Zoltan_Destroy(&(*dd)->zz);
  PetscCall(PetscFree(*dd));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDecompSetFromOptions(TalusDecomp dd)
{
  PetscFunctionBegin;
  PetscOptionsBegin(dd->comm, NULL, "Domain decomposition (recursive coordinate bisection)", "TalusDecomp");
  PetscCall(PetscOptionsInt("-decomp_rebalance_every", "Repartition every this many steps (0: only when imbalanced)",
                            "", dd->rebalance_every, &dd->rebalance_every, NULL));
  PetscCall(PetscOptionsReal("-decomp_imbalance", "Repartition when max / mean work per rank exceeds this", "",
                             dd->imbalance_threshold, &dd->imbalance_threshold, NULL));
  PetscOptionsEnd();
  PetscCheck(dd->rebalance_every >= 0, dd->comm, PETSC_ERR_USER_INPUT,
             "-decomp_rebalance_every must be >= 0, got %" PetscInt_FMT, dd->rebalance_every);
  PetscCheck(dd->imbalance_threshold >= 1.0, dd->comm, PETSC_ERR_USER_INPUT,
             "-decomp_imbalance must be >= 1 (max / mean), got %g", (double)dd->imbalance_threshold);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDecompPartition(TalusDecomp dd, PetscInt n, const PetscInt ids[], const PetscReal centres[],
                                    const PetscReal weights[])
{
  PartitionInput in = {n, ids, centres, weights};
  int changes, ngid, nlid, nimport, nexport, *import_procs = NULL, *import_parts = NULL, *export_procs = NULL,
                                             *export_parts = NULL;
  ZOLTAN_ID_PTR import_gids = NULL, import_lids = NULL, export_gids = NULL, export_lids = NULL;
  int           err;

  PetscFunctionBegin;
  if (dd->size == 1) {
    dd->partitioned = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  Zoltan_Set_Num_Obj_Fn(dd->zz, NumObjects, &in);
  Zoltan_Set_Obj_List_Fn(dd->zz, ObjectList, &in);
  Zoltan_Set_Num_Geom_Fn(dd->zz, NumGeometry, &in);
  Zoltan_Set_Geom_Multi_Fn(dd->zz, Geometry, &in);
  err = Zoltan_LB_Partition(dd->zz, &changes, &ngid, &nlid, &nimport, &import_gids, &import_lids, &import_procs,
                            &import_parts, &nexport, &export_gids, &export_lids, &export_procs, &export_parts);
  Zoltan_LB_Free_Part(&import_gids, &import_lids, &import_procs, &import_parts);
  Zoltan_LB_Free_Part(&export_gids, &export_lids, &export_procs, &export_parts);
  PetscCheck(err == ZOLTAN_OK, dd->comm, PETSC_ERR_LIB, "Zoltan's recursive coordinate bisection failed (error %d)",
             err);
  dd->partitioned = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDecompOwner(TalusDecomp dd, const PetscReal x[3], PetscMPIInt *owner)
{
  double coords[3] = {x[0], x[1], x[2]};
  int    proc      = 0;

  PetscFunctionBegin;
  if (dd->size == 1) {
    *owner = 0;
    PetscFunctionReturn(0);
  }
  PetscCheck(dd->partitioned, dd->comm, PETSC_ERR_ORDER, "TalusDecompPartition() must come before TalusDecompOwner()");
  PetscCheck(Zoltan_LB_Point_Assign(dd->zz, coords, &proc) == ZOLTAN_OK, PETSC_COMM_SELF, PETSC_ERR_LIB,
             "Zoltan_LB_Point_Assign failed");
  *owner = (PetscMPIInt)proc;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDecompRanksInBox(TalusDecomp dd, const PetscReal lo[3], const PetscReal hi[3], PetscInt *n,
                                     PetscMPIInt ranks[])
{
  int nprocs = 0, *procs;

  PetscFunctionBegin;
  if (dd->size == 1) {
    *n       = 1;
    ranks[0] = 0;
    PetscFunctionReturn(0);
  }
  PetscCheck(dd->partitioned, dd->comm, PETSC_ERR_ORDER,
             "TalusDecompPartition() must come before TalusDecompRanksInBox()");
  PetscCall(PetscMalloc1(dd->size, &procs));
  PetscCheck(Zoltan_LB_Box_Assign(dd->zz, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], procs, &nprocs) == ZOLTAN_OK,
             PETSC_COMM_SELF, PETSC_ERR_LIB, "Zoltan_LB_Box_Assign failed");
  for (int k = 0; k < nprocs; k++) ranks[k] = (PetscMPIInt)procs[k];
  *n = nprocs;
  PetscCall(PetscFree(procs));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDecompImbalance(TalusDecomp dd, PetscReal local_work, PetscReal *imbalance)
{
  PetscReal max_work, total_work;

  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(&local_work, &max_work, 1, MPIU_REAL, MPIU_MAX, dd->comm));
  PetscCall(MPIU_Allreduce(&local_work, &total_work, 1, MPIU_REAL, MPIU_SUM, dd->comm));
  *imbalance = TalusDecompImbalanceOf(dd, max_work, total_work);
  PetscFunctionReturn(0);
}

PetscReal TalusDecompImbalanceOf(TalusDecomp dd, PetscReal max_work, PetscReal total_work)
{
  return total_work > 0.0 ? max_work / (total_work / dd->size) : 1.0;
}

/*
 * On schedule, or when the imbalance exceeds the threshold. When a repartition triggered by
 * imbalance leaves it above the threshold (a few bodies on many ranks cannot be balanced), the
 * next try waits twice as long, up to 1024 steps; a balanced step resets the wait.
 */
PetscErrorCode TalusDecompWantsRebalance(TalusDecomp dd, PetscInt step, PetscReal imbalance, PetscBool *want)
{
  PetscFunctionBegin;
  *want = PETSC_FALSE;
  if (dd->size == 1) PetscFunctionReturn(0);
  if (dd->rebalance_every > 0 && step > 0 && step % dd->rebalance_every == 0) *want = PETSC_TRUE;
  if (imbalance <= dd->imbalance_threshold) {
    dd->cooldown = 1;
    PetscFunctionReturn(0);
  }
  if (dd->last_rebalance < 0 || step - dd->last_rebalance >= dd->cooldown) {
    if (dd->last_rebalance >= 0 && step - dd->last_rebalance == dd->cooldown)
      dd->cooldown = PetscMin(2 * dd->cooldown, 1024); /* the last one did not help */
    dd->last_rebalance = step;
    *want              = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDecompGetBackoff(TalusDecomp dd, PetscInt *last_rebalance, PetscInt *cooldown)
{
  PetscFunctionBegin;
  *last_rebalance = dd->last_rebalance;
  *cooldown       = dd->cooldown;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDecompSetBackoff(TalusDecomp dd, PetscInt last_rebalance, PetscInt cooldown)
{
  PetscFunctionBegin;
  PetscCheck(cooldown >= 1, dd->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "the rebalancing wait must be >= 1 step, got %" PetscInt_FMT, cooldown);
  dd->last_rebalance = last_rebalance;
  dd->cooldown       = cooldown;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------- transfers */

typedef struct {
  PetscInt    count, offset;
  PetscMPIInt rank;
} Incoming;

static int CompareIncoming(const void *a, const void *b)
{
  const Incoming *x = (const Incoming *)a, *y = (const Incoming *)b;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/*
 * The star forest of an exchange: this rank's send buffer (sorted by destination) holds the roots;
 * every received item is a leaf pointing at (source rank, position in the source's send buffer).
 * *order gives, for each position of the send buffer, the item it holds.
 */
static PetscErrorCode CreateExchangeSF(TalusDecomp dd, PetscInt n, const PetscMPIInt dest[], PetscSF *sf,
                                       PetscInt **order, PetscInt *nrecv)
{
  PetscInt    *count, *start, nto = 0, k, nleaves = 0;
  PetscMPIInt *toranks, nfrom, *fromranks;
  PetscInt    *todata, *fromdata;
  Incoming    *in;
  PetscSFNode *remote;

  PetscFunctionBegin;
  PetscCall(PetscCalloc2(dd->size, &count, dd->size + 1, &start));
  for (k = 0; k < n; k++) {
    PetscCheck(dest[k] >= 0 && dest[k] < dd->size, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "destination rank %d of item %" PetscInt_FMT " is not in the communicator", dest[k], k);
    count[dest[k]]++;
  }
  for (PetscMPIInt r = 0; r < dd->size; r++) {
    start[r + 1] = start[r] + count[r];
    if (count[r]) nto++;
  }
  /* counting sort by destination, stable: the send buffer keeps each destination's items in order */
  PetscCall(PetscMalloc1(n, order));
  {
    PetscInt *fill;
    PetscCall(PetscMalloc1(dd->size, &fill));
    for (PetscMPIInt r = 0; r < dd->size; r++) fill[r] = start[r];
    for (k = 0; k < n; k++) (*order)[fill[dest[k]]++] = k;
    PetscCall(PetscFree(fill));
  }
  PetscCall(PetscMalloc2(nto, &toranks, 2 * nto, &todata));
  nto = 0;
  for (PetscMPIInt r = 0; r < dd->size; r++)
    if (count[r]) {
      toranks[nto]        = r;
      todata[2 * nto]     = count[r];
      todata[2 * nto + 1] = start[r];
      nto++;
    }
  PetscCall(
    PetscCommBuildTwoSided(dd->comm, 2, MPIU_INT, (PetscMPIInt)nto, toranks, todata, &nfrom, &fromranks, &fromdata));
  PetscCall(PetscMalloc1(nfrom, &in));
  for (PetscMPIInt f = 0; f < nfrom; f++) {
    in[f].rank   = fromranks[f];
    in[f].count  = fromdata[2 * f];
    in[f].offset = fromdata[2 * f + 1];
    nleaves += in[f].count;
  }
  if (nfrom > 1) qsort(in, (size_t)nfrom, sizeof(Incoming), CompareIncoming); /* deterministic: by source rank */
  PetscCall(PetscMalloc1(nleaves, &remote));
  nleaves = 0;
  for (PetscMPIInt f = 0; f < nfrom; f++)
    for (PetscInt j = 0; j < in[f].count; j++) {
      remote[nleaves].rank  = in[f].rank;
      remote[nleaves].index = in[f].offset + j;
      nleaves++;
    }
  PetscCall(PetscSFCreate(dd->comm, sf));
  PetscCall(PetscSFSetGraph(*sf, n, nleaves, NULL, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(*sf));
  *nrecv = nleaves;
  PetscCall(PetscFree(in));
  PetscCall(PetscFree(fromranks));
  PetscCall(PetscFree(fromdata));
  PetscCall(PetscFree2(toranks, todata));
  PetscCall(PetscFree2(count, start));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDecompCreateRecordType(size_t bytes, MPI_Datatype *unit)
{
  PetscFunctionBegin;
  /* PetscSF packs a contiguous type element by element of its base type: 8-byte words are 8
     times fewer operations than bytes */
  if (bytes % 8 == 0) PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)(bytes / 8), MPI_UINT64_T, unit));
  else if (bytes % 4 == 0) PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)(bytes / 4), MPI_UINT32_T, unit));
  else PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)bytes, MPI_BYTE, unit));
  PetscCallMPI(MPI_Type_commit(unit));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDecompExchange(TalusDecomp dd, PetscInt n, const PetscMPIInt dest[], size_t item_bytes,
                                   const void *items, PetscInt *nrecv, void **recv)
{
  PetscSF      sf;
  PetscInt    *order, k;
  char        *sendbuf;
  MPI_Datatype unit;

  PetscFunctionBegin;
  PetscCall(CreateExchangeSF(dd, n, dest, &sf, &order, nrecv));
  for (k = 0; k < n && order[k] == k; k++) { }
  if (k == n) sendbuf = (char *)items; /* already grouped by destination: no copy */
  else {
    PetscCall(PetscMalloc1(n * item_bytes + 1, &sendbuf));
    for (k = 0; k < n; k++)
      PetscCall(PetscMemcpy(sendbuf + k * item_bytes, (const char *)items + order[k] * item_bytes, item_bytes));
  }
  PetscCall(PetscMalloc1(*nrecv * item_bytes + 1, (char **)recv));
  PetscCall(TalusDecompCreateRecordType(item_bytes, &unit));
  PetscCall(PetscSFBcastBegin(sf, unit, sendbuf, *recv, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, unit, sendbuf, *recv, MPI_REPLACE));
  PetscCallMPI(MPI_Type_free(&unit));
  if (sendbuf != (char *)items) PetscCall(PetscFree(sendbuf));
  PetscCall(PetscFree(order));
  PetscCall(PetscSFDestroy(&sf));
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt    root;
  PetscMPIInt rank;
} GhostSource;

PetscErrorCode TalusDecompCreateGhostSF(TalusDecomp dd, PetscInt n, const PetscInt offset[], const PetscMPIInt dest[],
                                        PetscSF *sf, PetscInt *nghost)
{
  PetscInt     nsend = offset[n], nrecv, k = 0;
  GhostSource *send, *recv;
  PetscSFNode *remote;

  PetscFunctionBegin;
  /* tell every receiver which of our items it gets: (root index, our rank) */
  PetscCall(PetscMalloc1(nsend, &send));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = offset[i]; j < offset[i + 1]; j++, k++) {
      send[k].root = i;
      send[k].rank = dd->rank;
    }
  PetscCall(TalusDecompExchange(dd, nsend, dest, sizeof(GhostSource), send, &nrecv, (void **)&recv));
  PetscCall(PetscMalloc1(nrecv, &remote));
  for (PetscInt g = 0; g < nrecv; g++) {
    remote[g].rank  = recv[g].rank;
    remote[g].index = recv[g].root;
  }
  PetscCall(PetscSFCreate(dd->comm, sf));
  PetscCall(PetscSFSetGraph(*sf, n, nrecv, NULL, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(*sf));
  *nghost = nrecv;
  PetscCall(PetscFree(send));
  PetscCall(PetscFree(recv));
  PetscFunctionReturn(0);
}
