/* talus info FILE.h5: what a checkpoint or a frames file holds (docs/checkpoint-format.md, docs/outputs.md). */
#include <talus.h>
#include <talus/checkpoint.h>
#include <sys/stat.h>
#include "commands.h"
#include "../io/h5io.h"

/* A frames file: how many frames, bodies per frame, the first and last times (faults noted in r). */
static void InspectFrames(TalusH5Reader *r, PetscInt *nframes, PetscInt *nbodies, PetscReal *t_first, PetscReal *t_last)
{
  H5G_info_t info;

  *nframes = *nbodies = 0;
  *t_first = *t_last = 0.0;
  if (H5Gget_info(r->file, &info) < 0) {
    TalusH5Fault(r, "%s", "its root group cannot be read");
    return;
  }
  for (hsize_t f = 0; f < info.nlinks && !r->bad; f++) {
    char      name[32];
    PetscReal t = 0.0;
    hid_t     group;
    snprintf(name, sizeof(name), "frame%06d", (int)f);
    if (H5Lexists(r->file, name, H5P_DEFAULT) <= 0) break;
    if ((group = H5Gopen2(r->file, name, H5P_DEFAULT)) < 0) {
      TalusH5Fault(r, "%s cannot be opened", name);
      break;
    }
    TalusH5ReadAttribute(r, group, "time", PETSC_FALSE, 1, &t);
    if (f == 0) {
      hid_t   dset = H5Dopen2(group, "id", H5P_DEFAULT), space = dset >= 0 ? H5Dget_space(dset) : -1;
      hsize_t dims[1] = {0};
      if (space < 0 || H5Sget_simple_extent_dims(space, dims, NULL) < 0)
        TalusH5Fault(r, "%s", "frame000000/id cannot be read");
      if (space >= 0) H5Sclose(space);
      if (dset >= 0) H5Dclose(dset);
      *nbodies = (PetscInt)dims[0];
      *t_first = t;
    }
    H5Gclose(group);
    *t_last = t;
    (*nframes)++;
  }
}

PetscErrorCode TalusCommandInfo(int argc, char **argv)
{
  TalusH5Reader r;
  PetscBool     checkpoint;
  PetscInt      nframes = 0, nbodies = 0;
  PetscReal     times[2] = {0.0, 0.0};
  const char   *path;
  struct stat   st;

  PetscFunctionBegin;
  PetscCheck(argc >= 2 && argv[1][0] != '-', PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
             "usage: talus info FILE.h5 (a checkpoint or a frames file)");
  path = argv[1];
  PetscCall(PetscMemzero(&r, sizeof(r)));
  r.comm = PETSC_COMM_WORLD, r.path = path, r.file = -1, r.fd = -1;
  r.kind = "talus checkpoint or frames file", r.action = "talus info: cannot describe";
  PetscCallMPI(MPI_Comm_rank(r.comm, &r.rank));
  PetscCallMPI(MPI_Comm_size(r.comm, &r.size));
  PetscCall(TalusH5Open(&r));
  checkpoint = (PetscBool)(H5Aexists(r.file, "format") > 0);
  if (!checkpoint) {
    if (H5Lexists(r.file, "frame000000", H5P_DEFAULT) > 0) InspectFrames(&r, &nframes, &nbodies, &times[0], &times[1]);
    else TalusH5Fault(&r, "%s", "an HDF5 file, but neither a talus checkpoint nor a frames file");
  }
  PetscCall(TalusH5Verdict(&r));
  TalusH5Close(&r);
  if (!checkpoint) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%s: talus frames file\n  frames: %" PetscInt_FMT
                          " (t = %g .. %g s)\n  bodies per frame: %" PetscInt_FMT "\n",
                          path, nframes, (double)times[0], (double)times[1], nbodies));
  } else {
    TalusCheckpointInfo info;
    char               *options;
    double              size = 0.0;
    PetscCall(TalusCheckpointFileGetInfo(PETSC_COMM_WORLD, path, &info));
    PetscCall(TalusCheckpointFileGetOptions(PETSC_COMM_WORLD, path, &options, NULL));
    if (stat(path, &st) == 0) size = (double)st.st_size;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%s: talus checkpoint, format version %" PetscInt_FMT
                          ", written %s by talus %s on %" PetscInt_FMT " ranks\n",
                          path, info.version, info.created, info.writer, info.ranks));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  scene: %s\n  step: %" PetscInt_FMT ", t = %.10g s of %g s, h = %g s\n",
                          info.scene_name, info.step, info.t, info.t_final, info.dt));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "  bodies: %" PetscInt_FMT " (of %" PetscInt_FMT " at the start; %" PetscInt_FMT
                          " removed), planes: %" PetscInt_FMT ", materials: %" PetscInt_FMT "\n",
                          info.nbodies, info.nfinite, info.bodies_lost, info.nplanes, info.nmaterials));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "  contacts with warm starts: %" PetscInt_FMT ", joints: %" PetscInt_FMT
                          "\n  prescribed bodies: %" PetscInt_FMT ", loads: %" PetscInt_FMT ", springs: %" PetscInt_FMT
                          ", planar bodies: %" PetscInt_FMT ", tables: %" PetscInt_FMT
                          "\n  size: %.3f MB (%.0f B per body)\n  options: %s\n",
                          info.ncontacts, info.njoints, info.nprescribed, info.nloads, info.nsprings, info.nplanar,
                          info.ntables, size / 1e6, info.nbodies ? size / info.nbodies : 0.0,
                          options[0] ? options : "(none)"));
    PetscCall(PetscFree(options));
  }
  PetscFunctionReturn(0);
}
