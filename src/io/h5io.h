/* The I/O layer's parallel HDF5 with checksummed datasets and one error idiom (h5io.c). Not installed:
   exported from the library only for the talus command (talus info). */
#ifndef TALUS_H5IO_H
#define TALUS_H5IO_H
#include <talus.h>
#include <hdf5.h>

/*
 * The immediate form of the same rule, for files whose every step is checked as it goes (FCLib
 * problems): each rank's verdict is reduced over comm, so that all ranks raise the same error.
 */
#define TalusH5Check(comm, local_ok, ...) \
  do { \
    PetscBool ok_ = (local_ok) ? PETSC_TRUE : PETSC_FALSE, all_ok_; \
    PetscCall(MPIU_Allreduce(&ok_, &all_ok_, 1, MPIU_BOOL, MPI_LAND, comm)); \
    PetscCheck(all_ok_, comm, PETSC_ERR_FILE_UNEXPECTED, __VA_ARGS__); \
  } while (0)

/* A file being written by every rank of comm. */
typedef struct {
  MPI_Comm    comm;
  PetscMPIInt rank, size;
  const char *kind; /* what the file is, for messages: "checkpoint", "frames file" */
  hid_t       file;
  herr_t      err; /* first failure on this rank, checked collectively after each piece */
  char        what[256], detail[256];
} TalusH5Writer;

/* A file being read by every rank of comm. */
typedef struct {
  MPI_Comm    comm;
  PetscMPIInt rank, size;
  const char *path;
  const char *kind;   /* what the file should be, for messages: "talus checkpoint" */
  const char *action; /* the start of the error message: "cannot restart from" */
  /* the tail of the error message (e.g. "; the previous checkpoint is X"), found by rank 0; may be NULL */
  void (*hint)(const char path[], char hint[], size_t len);
  hid_t file;
  int   bad; /* this rank met a fault */
  int   fd;  /* the same file opened for posix_fadvise, or -1 */
  char  fault[512];
} TalusH5Reader;

/* How values are stored: 64-bit integers, doubles, or bytes (texts). */
typedef enum {
  TALUS_H5_INT,
  TALUS_H5_REAL,
  TALUS_H5_BYTES
} TalusH5Values;

/* One column of a table of records: a member of the record at offset, width values of PetscInt or PetscReal. */
typedef struct {
  const char *name;
  PetscBool   integer;
  int         width;
  size_t      offset;
} TalusH5Field;

/* The innermost message of HDF5's error stack: what actually went wrong (call before the next HDF5 call). */
PETSC_EXTERN void TalusH5ErrorMessage(char what[256]);

/* File access (MPI-IO on comm) for a file that grows a piece at a time and is flushed after each (the frames file):
   its metadata cache held at 256 KB. H5Pclose it after H5Fcreate or H5Fopen. */
PETSC_EXTERN hid_t TalusH5GrowingFileAccess(MPI_Comm comm);
/* A writer of file (already open, or -1 until it is) by every rank of comm; kind names it in messages. */
PETSC_EXTERN PetscErrorCode TalusH5WriterInit(TalusH5Writer *, MPI_Comm comm, const char kind[], hid_t file);
/* Writing: a failed HDF5 call (e < 0) is noted; TalusH5Agree makes every rank raise the same error if any noted one. */
PETSC_EXTERN void           TalusH5Note(TalusH5Writer *, herr_t e, const char what[]);
PETSC_EXTERN PetscErrorCode TalusH5Agree(TalusH5Writer *, const char path[]);
/* A dataset of total rows of width values, this rank's rows [offset, offset + count) from buf,
   with its checksum (collective). */
PETSC_EXTERN PetscErrorCode TalusH5WriteDataset(TalusH5Writer *, hid_t loc, const char name[], TalusH5Values,
                                                PetscInt total, int width, PetscInt offset, PetscInt count,
                                                const void *buf);
/* A table of records (row_bytes each, described by fields): one checksummed dataset per field
   in group group_name (collective). */
PETSC_EXTERN PetscErrorCode TalusH5WriteTable(TalusH5Writer *, const char group_name[], const TalusH5Field fields[],
                                              int nfields, size_t row_bytes, PetscInt total, PetscInt offset,
                                              PetscInt count, const void *rows);
/* An attribute of the object loc (the file, a group): n integers (up to 4) or reals, or a string. */
PETSC_EXTERN void TalusH5WriteAttribute(TalusH5Writer *, hid_t loc, const char name[], PetscBool integer, int n,
                                        const void *value);
PETSC_EXTERN void TalusH5WriteStringAttribute(TalusH5Writer *, hid_t loc, const char name[], const char value[]);
/* A text as a checksummed dataset of bytes, written by rank 0. */
PETSC_EXTERN PetscErrorCode TalusH5WriteText(TalusH5Writer *, const char name[], const char text[], size_t len);

/* Reading: open (collective verdict), note faults, and the collective verdict that raises the error. */
PETSC_EXTERN PetscErrorCode TalusH5Open(TalusH5Reader *);
PETSC_EXTERN void           TalusH5Close(TalusH5Reader *);
PETSC_EXTERN void           TalusH5Fault(TalusH5Reader *, const char fmt[], const char detail[]);
PETSC_EXTERN PetscErrorCode TalusH5Verdict(TalusH5Reader *);
/* An attribute of the object loc (the file, a group), which must exist and have n values (up to 4 integers). */
PETSC_EXTERN void TalusH5ReadAttribute(TalusH5Reader *, hid_t loc, const char name[], PetscBool integer, int n,
                                       void *value);
PETSC_EXTERN void TalusH5ReadStringAttribute(TalusH5Reader *, hid_t loc, const char name[], char value[], size_t len);
/* Rows [offset, offset + count) of a dataset of total x width values, checked against its checksum
   (sliced: every rank reads a slice and the check is collective). */
PETSC_EXTERN PetscErrorCode TalusH5ReadDataset(TalusH5Reader *, const char name[], TalusH5Values, PetscInt total,
                                               int width, PetscInt offset, PetscInt count, void *buf, PetscBool sliced);
PETSC_EXTERN PetscErrorCode TalusH5ReadTable(TalusH5Reader *, const char group[], const TalusH5Field fields[],
                                             int nfields, size_t row_bytes, PetscInt total, PetscInt offset,
                                             PetscInt count, void *rows, PetscBool sliced);
/* A dataset's length against the rows a header counts, before anything is allocated from it (a fault if not). */
PETSC_EXTERN void TalusH5CheckExtent(TalusH5Reader *, const char name[], PetscInt expected);
/* A text dataset, whole, on every rank (NUL-terminated; free with PetscFree). */
PETSC_EXTERN PetscErrorCode TalusH5ReadText(TalusH5Reader *, const char name[], char **text);

#endif
