/* The options a run was given: where each came from, and those nobody reads (src/io/options_check.c). */
#ifndef TALUS_OPTIONS_H
#define TALUS_OPTIONS_H
#include <petscsys.h>

/* Records where an option put into the database came from (e.g. "scene.yaml:12, options:"), for the
   messages about it; options not recorded came from the command line. */
PETSC_EXTERN PetscErrorCode TalusOptionsNoteOrigin(const char name[], const char origin[]);
/* The same for a checkpoint's stored options: they were checked when that run started, so one that
   nothing reads at the restart (it chose another -tao_type) is noted and not used, not refused. */
PETSC_EXTERN PetscErrorCode TalusOptionsNoteStoredOrigin(const char name[], const char origin[]);
/*
 * Collective, once every object of the run has read its options and before the run starts: an option
 * that nothing read is an error naming it, where it came from and, where one is close, the option
 * meant (talus's and PETSc's common ones). Options read only later (-*_view, -log_*, -options_*,
 * -malloc*, ...) are let through; -options_allow_unknown turns the error into a warning. Checks the
 * numbers too (below).
 */
PETSC_EXTERN PetscErrorCode TalusOptionsCheckUnused(MPI_Comm);
/* Collective, before anything reads the options: a numeric option whose value is not a number, an
   integer that does not fit PETSc's (it would wrap 4294967296 to 0), or a real that is not finite
   (1e400, inf, nan) is an error naming the option and where it came from. */
PETSC_EXTERN PetscErrorCode TalusOptionsCheckNumbers(MPI_Comm);
/* Options from this origin (a checkpoint's stored options) under a name talus no longer reads are
   given under their new name (-ccp_anti_relax false: -ccp_problem relaxed); given elsewhere, they are
   refused by TalusOptionsCheckUnused, which names the new one. */
PETSC_EXTERN PetscErrorCode TalusOptionsTranslateRenamed(const char origin[]);
/* Whether the database holds this option or one that replaces it (-tao_gatol and -ccp_force_rtol set
   the same tolerance): a scene's or a checkpoint's option is put in only when this is false, so the
   command line's choice wins over either. */
PETSC_EXTERN PetscErrorCode TalusOptionsGiven(const char name[], PetscBool *given);
/* The options of the run as one string "-name [value] ..." (free with PetscFree): the database
   without the options that describe one job or a server (-restart, -walltime, -help, -serve_*, ...);
   what a checkpoint stores, and what a campaign server gives each of its jobs. */
PETSC_EXTERN PetscErrorCode TalusOptionsGetRunOptions(char **text);
/* Puts such a string's options into the database, except job options and those already set; origin
   (or NULL: the command line) says where they came from, for messages (TalusOptionsNoteOrigin). */
PETSC_EXTERN PetscErrorCode TalusOptionsInsertUnlessGiven(const char text[], const char origin[]);
/* Forgets every origin noted (a campaign server, between jobs: the next job's options are its own) */
PETSC_EXTERN PetscErrorCode TalusOptionsForgetOrigins(void);

#endif
