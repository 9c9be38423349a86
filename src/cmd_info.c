/* talus info FILE.h5: what a checkpoint or a frames file holds (docs/checkpoint-format.md, docs/outputs.md). */
#include <talus.h>
#include <talus/checkpoint.h>
#include <hdf5.h>
#include <sys/stat.h>
#include "commands.h"

typedef enum {
  KIND_MISSING,
  KIND_UNREADABLE,
  KIND_CHECKPOINT,
  KIND_FRAMES,
  KIND_OTHER
} FileKind;

/* Rank 0 looks at the file; frames files are described from there too. */
static FileKind Inspect(const char path[], PetscInt *nframes, PetscInt *nbodies, double *t_first, double *t_last)
{
  struct stat st;
  hid_t       file;
  H5G_info_t  info;
  FileKind    kind = KIND_OTHER;

  *nframes = *nbodies = 0;
  *t_first = *t_last = 0.0;
  if (stat(path, &st) != 0) return KIND_MISSING;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return KIND_UNREADABLE;
  if (H5Aexists(file, "format") > 0) kind = KIND_CHECKPOINT;
  else if (H5Lexists(file, "frame000000", H5P_DEFAULT) > 0 && H5Gget_info(file, &info) >= 0) {
    char name[32];
    kind = KIND_FRAMES;
    for (hsize_t f = 0; f < info.nlinks; f++) {
      double t = 0.0;
      hid_t  attr;
      snprintf(name, sizeof(name), "frame%06d", (int)f);
      if (H5Lexists(file, name, H5P_DEFAULT) <= 0) break;
      attr = H5Aopen_by_name(file, name, "time", H5P_DEFAULT, H5P_DEFAULT);
      if (attr >= 0) {
        H5Aread(attr, H5T_NATIVE_DOUBLE, &t);
        H5Aclose(attr);
      }
      if (f == 0) {
        hid_t   dset = H5Dopen2(file, "frame000000/id", H5P_DEFAULT), space = dset >= 0 ? H5Dget_space(dset) : -1;
        hsize_t dims[1] = {0};
        if (space >= 0) H5Sget_simple_extent_dims(space, dims, NULL), H5Sclose(space);
        if (dset >= 0) H5Dclose(dset);
        *nbodies = (PetscInt)dims[0];
        *t_first = t;
      }
      *t_last = t;
      (*nframes)++;
    }
  }
  H5Fclose(file);
  return kind;
}

PetscErrorCode TalusCommandInfo(int argc, char **argv)
{
  PetscMPIInt rank;
  int         kind = KIND_OTHER;
  PetscInt    counts[2] = {0, 0}; /* known on rank 0, which prints */
  double      times[2]  = {0.0, 0.0};
  const char *path;
  struct stat st;

  PetscFunctionBegin;
  PetscCheck(argc >= 2 && argv[1][0] != '-', PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "usage: talus info FILE.h5 (a checkpoint or a frames file)");
  path = argv[1];
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) kind = Inspect(path, &counts[0], &counts[1], &times[0], &times[1]);
  PetscCallMPI(MPI_Bcast(&kind, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCheck(kind != KIND_MISSING, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "talus info: %s: no such file", path);
  PetscCheck(kind != KIND_UNREADABLE, PETSC_COMM_WORLD, PETSC_ERR_FILE_UNEXPECTED, "talus info: %s is not a readable HDF5 file (truncated or damaged?)", path);
  PetscCheck(kind != KIND_OTHER, PETSC_COMM_WORLD, PETSC_ERR_FILE_UNEXPECTED, "talus info: %s is an HDF5 file but neither a talus checkpoint nor a frames file", path);
  if (kind == KIND_FRAMES) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: talus frames file\n  frames: %" PetscInt_FMT " (t = %g .. %g s)\n  bodies per frame: %" PetscInt_FMT "\n", path, counts[0], times[0], times[1], counts[1]));
  } else {
    TalusCheckpointInfo info;
    char               *options;
    double              size = 0.0;
    PetscCall(TalusCheckpointFileGetInfo(PETSC_COMM_WORLD, path, &info));
    PetscCall(TalusCheckpointFileGetOptions(PETSC_COMM_WORLD, path, &options));
    if (stat(path, &st) == 0) size = (double)st.st_size;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: talus checkpoint, format version %" PetscInt_FMT ", written %s on %" PetscInt_FMT " ranks\n", path, info.version, info.created, info.ranks));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  scene: %s\n  step: %" PetscInt_FMT ", t = %.10g s of %g s, h = %g s\n", info.scene_name, info.step, info.t, info.t_final, info.dt));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  bodies: %" PetscInt_FMT " (of %" PetscInt_FMT " at the start; %" PetscInt_FMT " removed), planes: %" PetscInt_FMT ", materials: %" PetscInt_FMT "\n", info.nbodies, info.nfinite, info.bodies_lost, info.nplanes, info.nmaterials));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  contacts with warm starts: %" PetscInt_FMT "\n  size: %.3f MB (%.0f B per body)\n  options: %s\n", info.ncontacts, size / 1e6, info.nbodies ? size / info.nbodies : 0.0, options[0] ? options : "(none)"));
    PetscCall(PetscFree(options));
  }
  PetscFunctionReturn(0);
}
