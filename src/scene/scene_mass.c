/*
 * A body's material and mass from the keys of its mapping, for every way a scene gives bodies: one
 * by one (scene.c), generated (scene_generators.c), from a file (scene_bodies_file.c).
 */
#include "scene_reader.h"

PetscErrorCode SceneMaterialOf(SceneReader *r, yaml_node_t *map, TalusBodies *b, PetscInt *material)
{
  yaml_node_t *node = SceneLookup(r, map, "material");
  const char  *name;

  PetscFunctionBegin;
  if (!node) {
    if (b->nmaterials == 1) {
      *material = 0;
      PetscFunctionReturn(0);
    }
    SceneError(r, map, "\"material\" is needed when the scene defines %" PetscInt_FMT " materials", b->nmaterials);
  }
  PetscCall(SceneGetString(r, node, "material", &name));
  PetscCall(TalusBodiesFindMaterial(b, name, material));
  if (*material < 0) SceneError(r, node, "material \"%s\" is not defined under materials:", name);
  PetscFunctionReturn(0);
}

/* map's mass (positive), or 0 where the material's density (positive) gives it; who: "a body needs", ... */
PetscErrorCode SceneMassOf(SceneReader *r, yaml_node_t *map, TalusBodies *b, PetscInt material, const char who[],
                           PetscReal *mass)
{
  yaml_node_t *node = SceneLookup(r, map, "mass");

  PetscFunctionBegin;
  *mass = 0.0;
  if (node) {
    PetscCall(SceneGetNumber(r, node, "mass", mass));
    if (!(*mass > 0.0)) SceneError(r, node, "mass must be positive, got %g", (double)*mass);
  } else if (!(b->materials[material].density > 0.0))
    SceneError(r, map, "%s a mass, or a material with a positive density", who);
  PetscFunctionReturn(0);
}
