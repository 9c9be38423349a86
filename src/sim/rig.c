/*
 * A single-wheel rig's measurements (docs/terramechanics.md), as a module with a table, rig.csv. The rig
 * is a scene's bodies and joints: a carriage on a prismatic joint along x whose linear driver imposes its
 * speed, a post on a prismatic joint to the carriage along z (free to sink), the wheel on a revolute joint
 * to the post whose angle driver imposes its spin. With -rig_wheel ID and -rig_carriage ID the module finds
 * the two drivers (the angle driver whose body B is the wheel, the linear driver whose body B is the
 * carriage) and writes after every step, from the drivers' reactions (not from differences of positions):
 *   slip s = 1 - v / (w r): v the carriage's speed along the driver's axis, w the wheel's spin about its
 *     driver's axis, r the wheel's bounding radius (a cylinder's radius);
 *   drawbar pull DP: the force the wheel pulls the carriage with along the travel, which the carriage's
 *     driver holds back: minus the driver's force on the carriage along its axis;
 *   DP / W, W the vertical load: the weight of the wheel and the post (or -rig_load);
 *   the driving torque T: the angle driver's torque on the wheel about its axis, and T / (W r);
 *   sinkage: -rig_surface less the wheel's lowest point (its centre less r).
 */
#include "modules.h"

typedef struct {
  PetscInt  wheel, carriage;     /* body ids (-1: no rig) */
  PetscReal surface, load;       /* -rig_surface (m), -rig_load (N; 0: the wheel's and the post's weight) */
  PetscInt  wheel_driver, drive; /* the joints: the wheel's angle driver, the carriage's linear driver */
  PetscReal radius, weight;      /* found at the first row */
} Rig;

static PetscErrorCode RigCreate(TalusSim sim, void *state)
{
  Rig *rig = (Rig *)state;

  PetscFunctionBegin;
  (void)sim;
  rig->wheel = rig->carriage = -1;
  rig->wheel_driver = rig->drive = -1;
  PetscFunctionReturn(0);
}

static PetscErrorCode RigSetFromOptions(TalusSim sim, void *state, PetscOptionItems *PetscOptionsObject)
{
  Rig *rig = (Rig *)state;

  PetscFunctionBegin;
  (void)sim;
  PetscCall(PetscOptionsInt("-rig_wheel", "A single-wheel rig's wheel: its body id (rig.csv, docs/terramechanics.md)",
                            "", rig->wheel, &rig->wheel, NULL));
  PetscCall(PetscOptionsInt("-rig_carriage", "The rig's carriage: its body id, moved along x by a linear driver", "",
                            rig->carriage, &rig->carriage, NULL));
  PetscCall(PetscOptionsReal("-rig_surface", "The height of the soil's surface, from which sinkage is measured (m)", "",
                             rig->surface, &rig->surface, NULL));
  PetscCall(PetscOptionsReal("-rig_load", "The rig's vertical load W (N; 0: the weight of the wheel and its post)", "",
                             rig->load, &rig->load, NULL));
  PetscFunctionReturn(0);
}

/* The body's state wherever it is owned (collective): position, velocity, angular velocity (world), mass, bounding
   radius */
typedef struct {
  PetscReal x[3], v[3], w[3], mass, radius;
} BodyState;

static PetscErrorCode GetBodyState(TalusSim sim, PetscInt id, BodyState *s)
{
  TalusBodies *b;
  MPI_Comm     comm;
  PetscReal    mine[11] = {0}, all[11];
  PetscBool    distributed;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusSimGetComm(sim, &comm));
  PetscCall(TalusSimGetDistributed(sim, &distributed));
  for (PetscInt k = 0; k < b->nowned; k++)
    if (b->id[k] == id) {
      PetscReal A[9];
      TalusQuatToMatrix(&b->quaternion[4 * k], A);
      TalusRotate(A, &b->omega[3 * k], &mine[6]);
      for (int d = 0; d < 3; d++) mine[d] = b->position[3 * k + d], mine[3 + d] = b->velocity[3 * k + d];
      mine[9] = b->mass[k], mine[10] = TalusBodiesBoundingRadius(b, k);
    }
  if (distributed) PetscCall(MPIU_Allreduce(mine, all, 11, MPIU_REAL, MPIU_SUM, comm));
  else PetscCall(PetscArraycpy(all, mine, 11)); /* before the first step every rank holds every body */
  for (int d = 0; d < 3; d++) s->x[d] = all[d], s->v[d] = all[3 + d], s->w[d] = all[6 + d];
  s->mass = all[9], s->radius = all[10];
  PetscFunctionReturn(0);
}

/* The drivers of the rig, the wheel's radius and the load (at the first row, collective) */
static PetscErrorCode FindRig(TalusSim sim, Rig *rig)
{
  const TalusJoint *joints;
  PetscInt          n, post = -1;
  MPI_Comm          comm;
  BodyState         wheel, other;
  PetscReal         g[3];

  PetscFunctionBegin;
  PetscCall(TalusSimGetComm(sim, &comm));
  PetscCall(TalusSimGetJoints(sim, &n, &joints, NULL, NULL));
  for (PetscInt j = 0; j < n; j++) {
    if (joints[j].type == TALUS_JOINT_ANGLE_DRIVER && joints[j].body[1] == rig->wheel)
      rig->wheel_driver = j, post = joints[j].body[0];
    if (joints[j].type == TALUS_JOINT_LINEAR_DRIVER && joints[j].body[1] == rig->carriage) rig->drive = j;
  }
  PetscCheck(rig->wheel_driver >= 0, comm, PETSC_ERR_USER_INPUT,
             "-rig_wheel %" PetscInt_FMT ": no angle driver has that body as its second (B)", rig->wheel);
  PetscCheck(rig->drive >= 0, comm, PETSC_ERR_USER_INPUT,
             "-rig_carriage %" PetscInt_FMT ": no linear driver has that body as its second (B)", rig->carriage);
  PetscCall(GetBodyState(sim, rig->wheel, &wheel));
  rig->radius = wheel.radius;
  {
    TalusBodies *b;
    PetscInt     k = -1;
    PetscReal    r = 0.0;
    PetscBool    distributed;
    PetscCall(TalusSimGetBodies(sim, &b));
    PetscCall(TalusSimGetDistributed(sim, &distributed));
    for (PetscInt i = 0; i < b->nowned; i++)
      if (b->id[i] == rig->wheel) k = i;
    if (k >= 0 && (b->shape[k] == TALUS_CYLINDER || b->shape[k] == TALUS_SPHERE)) r = b->size[3 * k];
    if (distributed) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &r, 1, MPIU_REAL, MPI_MAX, comm));
    if (r > 0.0) rig->radius = r; /* a round wheel's radius, not its bounding one */
  }
  PetscCall(TalusSimGetGravity(sim, g));
  other.mass = 0.0;
  if (post != TALUS_WORLD) PetscCall(GetBodyState(sim, post, &other));
  rig->weight = rig->load > 0.0 ? rig->load : (wheel.mass + other.mass) * TalusNorm3(g);
  PetscFunctionReturn(0);
}

static PetscErrorCode RigTableName(TalusSim sim, void *state, const char **name)
{
  PetscFunctionBegin;
  (void)sim;
  *name = ((const Rig *)state)->wheel >= 0 ? "rig.csv" : NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode RigTableRow(TalusSim sim, void *state, FILE *file, PetscBool header)
{
  Rig              *rig = (Rig *)state;
  const TalusJoint *joints;
  const PetscReal  *wrench;
  BodyState         wheel, carriage;
  PetscReal         t, axis_w[3], axis_c[3], spin, speed, slip, pull, torque;

  PetscFunctionBegin;
  if (header) { /* before the first step: a rig that is not one is refused before it runs */
    PetscCall(FindRig(sim, rig));
    if (file)
      fputs("t,slip,drawbar_pull_N,dp_over_w,torque_Nm,torque_over_wr,sinkage_m,carriage_speed,wheel_spin,load_N\n",
            file);
    PetscFunctionReturn(0);
  }
  if (rig->wheel_driver < 0) PetscCall(FindRig(sim, rig));
  PetscCall(TalusSimGetJoints(sim, NULL, &joints, NULL, NULL));
  PetscCall(TalusSimGetJointWrenches(sim, &wrench));
  PetscCall(GetBodyState(sim, rig->wheel, &wheel));
  PetscCall(GetBodyState(sim, rig->carriage, &carriage));
  if (!file || !wrench) PetscFunctionReturn(0);
  PetscCall(TalusSimGetTime(sim, &t, NULL, NULL));
  /* the drivers' axes as side A holds them: the world's for the carriage's; the post's for the wheel's, which is the
     world's while the post, on prismatic joints, neither turns nor started turned */
  for (int d = 0; d < 3; d++)
    axis_w[d] = joints[rig->wheel_driver].axis[0][d], axis_c[d] = joints[rig->drive].axis[0][d];
  spin   = TalusDot3(wheel.w, axis_w);
  speed  = TalusDot3(carriage.v, axis_c);
  slip   = spin * rig->radius != 0.0 ? 1.0 - speed / (spin * rig->radius) : 0.0;
  pull   = -TalusDot3(&wrench[12 * rig->drive], axis_c);
  torque = TalusDot3(&wrench[12 * rig->wheel_driver + 3], axis_w);
  fprintf(file, "%.10g,%.10g,%.10e,%.10e,%.10e,%.10e,%.10e,%.10e,%.10e,%.10e\n", (double)t, (double)slip, (double)pull,
          (double)(pull / rig->weight), (double)torque, (double)(torque / (rig->weight * rig->radius)),
          (double)(rig->surface - (wheel.x[2] - rig->radius)), (double)speed, (double)spin, (double)rig->weight);
  PetscFunctionReturn(0);
}

const TalusSimModuleOps TalusRigModule = {.name             = "rig",
                                          .state_size       = sizeof(Rig),
                                          .create           = RigCreate,
                                          .set_from_options = RigSetFromOptions,
                                          .table_name       = RigTableName,
                                          .table_row        = RigTableRow};
