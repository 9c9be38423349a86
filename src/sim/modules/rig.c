/*
 * A single-wheel rig's measurements (docs/terramechanics.md), as a module with a table, rig.csv. The rig
 * is a scene's bodies and joints: a carriage on a prismatic joint along x whose linear driver imposes its
 * speed, a post on a prismatic joint to the carriage along z (free to sink), the wheel on a revolute joint
 * to the post whose angle driver imposes its spin. With -rig_wheel ID and -rig_carriage ID the module finds
 * the two drivers (the angle driver whose body B is the wheel, the linear driver whose body B is the
 * carriage) and writes after every step, from the drivers' reactions (not from differences of positions). Without
 * a linear driver the carriage is free on its prismatic joint under a resisting force (a scene's force_table ramps
 * it): the slip is measured, and the drawbar pull is the force of the post on the carriage through their joint.
 *   slip s = 1 - v / (w r): v the carriage's speed along the driver's axis, w the wheel's spin about its
 *     driver's axis, r how far the wheel reaches below its centre at the start (a round wheel's radius);
 *   drawbar pull DP: the force the wheel pulls the carriage with along the travel, which the carriage's
 *     driver holds back: minus the driver's force on the carriage along its axis;
 *   DP / W, W the vertical load: the weight of the wheel and the post (or -rig_load);
 *   the driving torque T: the angle driver's torque on the wheel about its axis, and T / (W r);
 *   sinkage: -rig_surface less the wheel's lowest point (its centre less r).
 */
#include "../modules.h"

typedef struct {
  PetscInt  wheel, carriage;     /* body ids (-1: no rig) */
  PetscReal surface, load;       /* -rig_surface (m), -rig_load (N; 0: the wheel's and the post's weight) */
  PetscInt  wheel_driver, drive; /* the joints: the wheel's angle driver, the carriage's linear driver (or -1) */
  PetscInt  rail, link;          /* without a driver: the carriage's prismatic joint, the joint of carriage and post */
  PetscReal radius, weight;      /* found at the first row */
} Rig;

static PetscErrorCode RigCreate(TalusSim sim, void *state)
{
  Rig *rig = (Rig *)state;

  PetscFunctionBegin;
  (void)sim;
  rig->wheel = rig->carriage = -1;
  rig->wheel_driver = rig->drive = rig->rail = rig->link = -1;
  PetscFunctionReturn(0);
}

static PetscErrorCode RigSetFromOptions(TalusSim sim, void *state, PetscOptionItems *PetscOptionsObject)
{
  Rig      *rig = (Rig *)state;
  PetscBool wheel_set, carriage_set;
  MPI_Comm  comm;

  PetscFunctionBegin;
  PetscCall(TalusSimGetComm(sim, &comm));
  PetscCall(PetscOptionsInt("-rig_wheel", "A single-wheel rig's wheel: its body id (rig.csv, docs/terramechanics.md)",
                            "", rig->wheel, &rig->wheel, &wheel_set));
  PetscCall(PetscOptionsInt("-rig_carriage", "The rig's carriage: its body id, moved along x by a linear driver", "",
                            rig->carriage, &rig->carriage, &carriage_set));
  PetscCall(PetscOptionsReal("-rig_surface", "The height of the soil's surface, from which sinkage is measured (m)", "",
                             rig->surface, &rig->surface, NULL));
  PetscCall(PetscOptionsReal("-rig_load", "The rig's vertical load W (N; 0: the weight of the wheel and its post)", "",
                             rig->load, &rig->load, NULL));
  /* refused before anything runs: a rig that cannot mean anything (issue 55) */
  PetscCheck(!wheel_set || rig->wheel >= 0, comm, PETSC_ERR_USER_INPUT,
             "-rig_wheel must be a body id (>= 0), got %" PetscInt_FMT, rig->wheel);
  PetscCheck(!carriage_set || rig->carriage >= 0, comm, PETSC_ERR_USER_INPUT,
             "-rig_carriage must be a body id (>= 0), got %" PetscInt_FMT, rig->carriage);
  PetscCheck(!carriage_set || rig->wheel >= 0, comm, PETSC_ERR_USER_INPUT,
             "-rig_carriage %" PetscInt_FMT " without -rig_wheel: a rig is measured at its wheel; give both",
             rig->carriage);
  PetscCheck(!wheel_set || rig->carriage >= 0, comm, PETSC_ERR_USER_INPUT,
             "-rig_wheel %" PetscInt_FMT " without -rig_carriage: the drawbar pull is the carriage's; give both",
             rig->wheel);
  PetscCheck(rig->load >= 0.0 && PetscIsNormalReal(rig->load + 1.0), comm, PETSC_ERR_USER_INPUT,
             "-rig_load must be a force >= 0 (N; 0: the weight of the wheel and its post), got %g", (double)rig->load);
  PetscFunctionReturn(0);
}

/* Bodies' states wherever they are owned (collective, one reduction): position, velocity, angular velocity (world),
   mass, how far the body reaches below its centre (its shape's furthest point down: a round wheel's radius), and
   whether it is fixed (1) */
typedef struct {
  PetscReal x[3], v[3], w[3], mass, reach, fixed;
} BodyState;
#define STATE_SIZE 12

static PetscErrorCode GetBodyStates(TalusSim sim, PetscInt n, const PetscInt ids[], BodyState states[])
{
  const PetscReal down[3] = {0, 0, -1};
  TalusBodies    *b;
  MPI_Comm        comm;
  PetscReal       mine[2 * STATE_SIZE] = {0}, all[2 * STATE_SIZE];
  PetscBool       distributed;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusSimGetComm(sim, &comm));
  PetscCall(TalusSimGetDistributed(sim, &distributed));
  for (PetscInt k = 0; k < b->nowned; k++)
    for (PetscInt i = 0; i < n; i++)
      if (b->id[k] == ids[i]) {
        PetscReal *m = &mine[STATE_SIZE * i], A[9], dl[3], pl[3], pw[3];
        TalusQuatToMatrix(&b->quaternion[4 * k], A);
        TalusRotate(A, &b->omega[3 * k], &m[6]);
        for (int d = 0; d < 3; d++) m[d] = b->position[3 * k + d], m[3 + d] = b->velocity[3 * k + d];
        TalusRotateBack(A, down, dl);
        TalusShapeTable[b->shape[k]].support(&b->size[3 * k], dl, pl);
        TalusRotate(A, pl, pw);
        m[9] = b->mass[k], m[10] = -pw[2], m[11] = b->fixed[k] ? 1.0 : 0.0;
      }
  if (distributed) PetscCall(MPIU_Allreduce(mine, all, STATE_SIZE * n, MPIU_REAL, MPIU_SUM, comm));
  else PetscCall(PetscArraycpy(all, mine, STATE_SIZE * n)); /* before the first step every rank holds every body */
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal *a = &all[STATE_SIZE * i];
    for (int d = 0; d < 3; d++) states[i].x[d] = a[d], states[i].v[d] = a[3 + d], states[i].w[d] = a[6 + d];
    states[i].mass = a[9], states[i].reach = a[10], states[i].fixed = a[11];
  }
  PetscFunctionReturn(0);
}

/* The drivers of the rig, the wheel's radius and the load (at the first row, collective) */
static PetscErrorCode FindRig(TalusSim sim, Rig *rig)
{
  const TalusJoint *joints;
  PetscInt          n, post = TALUS_WORLD;
  MPI_Comm          comm;
  BodyState         s[2];
  PetscReal         g[3];

  PetscFunctionBegin;
  PetscCall(TalusSimGetComm(sim, &comm));
  PetscCall(TalusSimGetJoints(sim, &n, &joints, NULL, NULL));
  for (PetscInt j = 0; j < n; j++) {
    if (joints[j].type == TALUS_JOINT_ANGLE_DRIVER && joints[j].body[1] == rig->wheel)
      rig->wheel_driver = j, post = joints[j].body[0];
    if (joints[j].type == TALUS_JOINT_LINEAR_DRIVER && joints[j].body[1] == rig->carriage) rig->drive = j;
    if (joints[j].type == TALUS_JOINT_PRISMATIC && joints[j].body[1] == rig->carriage) rig->rail = j;
  }
  for (PetscInt j = 0; j < n; j++)
    if (joints[j].body[0] == rig->carriage && joints[j].body[1] == post && post != TALUS_WORLD) rig->link = j;
  PetscCheck(rig->wheel_driver >= 0, comm, PETSC_ERR_USER_INPUT,
             "-rig_wheel %" PetscInt_FMT ": no angle driver has that body as its second (B)", rig->wheel);
  PetscCheck(rig->drive >= 0 || (rig->rail >= 0 && rig->link >= 0), comm, PETSC_ERR_USER_INPUT,
             "-rig_carriage %" PetscInt_FMT
             ": no linear driver has that body as its second (B), nor is it free on a prismatic joint (its B) with "
             "a joint to the wheel's post (its A)",
             rig->carriage);
  {
    const PetscInt ids[2] = {rig->wheel, post};
    PetscCall(GetBodyStates(sim, post == TALUS_WORLD ? 1 : 2, ids, s));
  }
  PetscCheck(s[0].fixed == 0.0, comm, PETSC_ERR_USER_INPUT,
             "-rig_wheel %" PetscInt_FMT ": that body is fixed (or prescribed), so no force turns it and rig.csv's "
             "drawbar pull and torque would mean nothing: the rig's wheel must be free (drop its fixed)",
             rig->wheel);
  if (post == TALUS_WORLD) s[1].mass = 0.0;
  PetscCall(TalusSimGetGravity(sim, g));
  rig->radius = s[0].reach;
  rig->weight = rig->load > 0.0 ? rig->load : (s[0].mass + s[1].mass) * TalusNorm3(g);
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
  {
    const PetscInt ids[2] = {rig->wheel, rig->carriage};
    BodyState      s[2];
    PetscCall(GetBodyStates(sim, 2, ids, s));
    wheel = s[0], carriage = s[1];
  }
  if (!file || !wrench) PetscFunctionReturn(0);
  PetscCall(TalusSimGetTime(sim, &t, NULL, NULL));
  /* the drivers' axes as side A holds them: the world's for the carriage's; the post's for the wheel's, which is the
     world's while the post, on prismatic joints, neither turns nor started turned */
  for (int d = 0; d < 3; d++)
    axis_w[d] = joints[rig->wheel_driver].axis[0][d],
    axis_c[d] = joints[rig->drive >= 0 ? rig->drive : rig->rail].axis[0][d];
  spin  = TalusDot3(wheel.w, axis_w);
  speed = TalusDot3(carriage.v, axis_c);
  slip  = spin * rig->radius != 0.0 ? 1.0 - speed / (spin * rig->radius) : 0.0;
  /* imposed slip: what the driver holds the carriage back with; measured slip (a carriage free on its rail under a
     resisting force): the force of the post on the carriage along the rail, through their joint (on its A) */
  pull   = rig->drive >= 0 ? -TalusDot3(&wrench[12 * rig->drive], axis_c)
                           : TalusDot3(&wrench[12 * rig->link + 6], axis_c);
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
