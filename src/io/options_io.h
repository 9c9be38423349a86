/* Private to the I/O layer: the run's options as text, stored in checkpoints (options_io.c). */
#ifndef TALUS_OPTIONS_IO_H
#define TALUS_OPTIONS_IO_H
#include <petscsys.h>

/* The options of the run as one string "-name [value] ..." (free with PetscFree): the database
   without the options that describe one job (-restart, -walltime, -help, ...). */
PETSC_INTERN PetscErrorCode TalusOptionsGetRunOptions(char **text);
/* Puts such a string's options into the database, except job options and those already set; origin
   (or NULL) says where they came from, for messages (TalusOptionsNoteOrigin). */
PETSC_INTERN PetscErrorCode TalusOptionsInsertUnlessGiven(const char text[], const char origin[]);

#endif
