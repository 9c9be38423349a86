/*
 * frames.h5 and its index frames.xmf (docs/outputs.md), written collectively with parallel HDF5:
 * every rank writes its own bodies' rows at their slots, so a frame is in global-id order whatever
 * the rank count.
 *
 * What ParaView needs to draw the bodies as they are comes with every frame: the bodies are the
 * vertices of a Polyvertex cell set (the connectivity is every_frame/vertices, written once: ParaView's
 * default XDMF3 reader makes no cells without it), with their shape, fixed flag, diameter and a
 * shape tensor, the body's axes scaled by its extents, that a Tensor Glyph of a unit cube or sphere
 * turns into the body as it is (scripts/view). The planes are quadrilaterals of their own, in
 * every_frame/planes, written once. Joints are polylines from A's centre through the two anchors to
 * B's centre (frameNNNNNN/joints/path, connectivity every_frame/joint_lines), with the force on
 * their body B. Bodies drawn as several glyphs (a compound's parts) have them in frameNNNNNN/parts
 * (frame_parts.c), a second Polyvertex set with the bodies' arrays.
 * frames.xmf gets each new frame appended in place of its closing tags,
 * so that writing it costs the same at the thousandth frame as at the first.
 */
#include "output_impl.h"
#include <sys/stat.h>

/* The closing tags of frames.xmf: each new frame is written over them, and they after it. */
static const char XdmfTail[] = "  </Grid>\n </Domain>\n</Xdmf>\n";

/*
 * The box the planes are drawn in: the scene's domain where it has one, else the bodies' bounding
 * box grown by its largest extent on every side (bodies move: the floor should outreach them).
 */
static PetscErrorCode PlaneBox(TalusOutput out, const TalusBodies *b, PetscReal lo[3], PetscReal hi[3])
{
  PetscReal ext[6] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL};
  PetscReal grow   = 0.0;

  PetscFunctionBegin;
  if (out->scene.domain_max[0] < 1e300 && out->scene.domain_min[0] > -1e300) {
    for (int d = 0; d < 3; d++) lo[d] = out->scene.domain_min[d], hi[d] = out->scene.domain_max[d];
    PetscFunctionReturn(0);
  }
  for (PetscInt k = 0; k < b->nowned; k++) {
    PetscReal r;
    if (!TalusBodiesIsFinite(b, k)) continue;
    r = TalusShapeTable[b->shape[k]].bounding_radius(&b->size[3 * k]);
    for (int d = 0; d < 3; d++) {
      ext[d]     = PetscMin(ext[d], b->position[3 * k + d] - r);
      ext[3 + d] = PetscMin(ext[3 + d], -(b->position[3 * k + d] + r)); /* -max, for one MIN reduction */
    }
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, ext, 6, MPIU_REAL, MPIU_MIN, out->comm));
  if (ext[0] == PETSC_MAX_REAL) { /* no finite body: a unit box about the origin */
    for (int d = 0; d < 3; d++) lo[d] = -1.0, hi[d] = 1.0;
    PetscFunctionReturn(0);
  }
  for (int d = 0; d < 3; d++) grow = PetscMax(grow, -ext[3 + d] - ext[d]);
  for (int d = 0; d < 3; d++) lo[d] = ext[d] - grow, hi[d] = -ext[3 + d] + grow;
  PetscFunctionReturn(0);
}

/*
 * every_frame/planes: each plane a square in it, centred on the point of the plane nearest the box's centre,
 * as wide as the box's diagonal (the part of the plane the scene can reach), with its outward normal
 * and id. Planes are replicated on every rank: rank 0 writes them.
 */
static PetscErrorCode WritePlanes(TalusOutput out, TalusH5Writer *w, hid_t every, const TalusBodies *b,
                                  PetscInt nplanes)
{
  PetscReal   lo[3], hi[3], centre[3], diagonal = 0.0, *corners, *normal;
  PetscInt    n = 0, *slot;
  PetscInt64 *id; /* written as int64, as the frames' ids */
  int32_t    *quads;
  hid_t       group;

  PetscFunctionBegin;
  PetscCall(PlaneBox(out, b, lo, hi));
  for (int d = 0; d < 3; d++) centre[d] = 0.5 * (lo[d] + hi[d]), diagonal += PetscSqr(hi[d] - lo[d]);
  diagonal = PetscSqrtReal(diagonal);
  PetscCall(PetscMalloc5(12 * nplanes + 1, &corners, 4 * nplanes + 1, &quads, 3 * nplanes + 1, &normal, 4 * nplanes + 1,
                         &slot, nplanes + 1, &id));
  for (PetscInt k = 0; k < b->nowned && out->rank == 0; k++) {
    const PetscReal *nrm = &b->size[3 * k], *x = &b->position[3 * k];
    PetscReal        u[3], v[3], foot[3], off = 0.0;
    if (TalusBodiesIsFinite(b, k)) continue;
    TalusCompleteFrame(nrm, u, v);
    for (int d = 0; d < 3; d++) off += (centre[d] - x[d]) * nrm[d];
    for (int d = 0; d < 3; d++) foot[d] = centre[d] - off * nrm[d];
    for (int c = 0; c < 4; c++) {
      const PetscReal su = (c == 1 || c == 2) ? 0.5 : -0.5, sv = c >= 2 ? 0.5 : -0.5;
      for (int d = 0; d < 3; d++) corners[3 * (4 * n + c) + d] = foot[d] + diagonal * (su * u[d] + sv * v[d]);
      quads[4 * n + c] = (int32_t)(4 * n + c);
      slot[4 * n + c]  = 4 * n + c;
    }
    for (int d = 0; d < 3; d++) normal[3 * n + d] = nrm[d];
    id[n] = b->id[k];
    n++;
  }
  if (!nplanes) { /* HDF5 cannot write an empty selection of an empty dataset: no group, no planes */
    PetscCall(PetscFree5(corners, quads, normal, slot, id));
    PetscFunctionReturn(0);
  }
  group = H5Gcreate2(every, "planes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  TalusH5Note(w, group, "planes");
  PetscCall(TalusFramesWriteRows(out, w, group, "corners", H5T_NATIVE_DOUBLE, 4 * nplanes, 4 * n, slot, 3, corners));
  PetscCall(TalusFramesWriteRows(out, w, group, "quads", H5T_NATIVE_INT32, nplanes, n, slot, 4, quads));
  PetscCall(TalusFramesWriteRows(out, w, group, "normal", H5T_NATIVE_DOUBLE, nplanes, n, slot, 3, normal));
  PetscCall(TalusFramesWriteRows(out, w, group, "id", H5T_NATIVE_INT64, nplanes, n, slot, 1, id));
  if (group >= 0) H5Gclose(group);
  PetscCall(PetscFree5(corners, quads, normal, slot, id));
  PetscFunctionReturn(0);
}

/* every_frame/joint_lines: joint j is the polyline through points 4 j .. 4 j + 3 (rank 0 writes) */
static PetscErrorCode WriteJointLines(TalusOutput out, TalusH5Writer *w, hid_t every, PetscInt njoints)
{
  int32_t  *lines;
  PetscInt *slot, n = out->rank == 0 ? njoints : 0;

  PetscFunctionBegin;
  if (!njoints) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2(4 * njoints, &lines, njoints, &slot));
  for (PetscInt j = 0; j < njoints; j++) {
    for (int e = 0; e < 4; e++) lines[4 * j + e] = (int32_t)(4 * j + e);
    slot[j] = j;
  }
  PetscCall(TalusFramesWriteRows(out, w, every, "joint_lines", H5T_NATIVE_INT32, njoints, n, slot, 4, lines));
  PetscCall(PetscFree2(lines, slot));
  PetscFunctionReturn(0);
}

/* frameNNNNNN/joints: each joint's path (A's centre, the anchors, B's centre: 4 rows a joint) and the
   force on its body B over the last step (rank 0 writes; the bodies' poses come from their owners) */
static PetscErrorCode WriteJoints(TalusOutput out, TalusH5Writer *w, hid_t frame, TalusSim sim)
{
  PetscReal       *ends, *force;
  const PetscReal *wrench;
  PetscInt        *slot, n = out->rank == 0 ? out->njoints : 0;
  hid_t            group;

  PetscFunctionBegin;
  if (!out->njoints) PetscFunctionReturn(0);
  PetscCall(PetscMalloc3(12 * out->njoints, &ends, 3 * out->njoints, &force, 4 * out->njoints, &slot));
  PetscCall(TalusSimGetJointAnchors(sim, ends));
  PetscCall(TalusSimGetJointWrenches(sim, &wrench));
  for (PetscInt j = 0; j < out->njoints; j++)
    for (int d = 0; d < 3; d++) force[3 * j + d] = wrench ? wrench[12 * j + d] : 0.0;
  for (PetscInt r = 0; r < 4 * out->njoints; r++) slot[r] = r;
  group = H5Gcreate2(frame, "joints", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  TalusH5Note(w, group, "joints");
  PetscCall(TalusFramesWriteRows(out, w, group, "path", H5T_NATIVE_DOUBLE, 4 * out->njoints, 4 * n, slot, 3, ends));
  PetscCall(TalusFramesWriteRows(out, w, group, "force", H5T_NATIVE_DOUBLE, out->njoints, n, slot, 3, force));
  if (group >= 0) H5Gclose(group);
  PetscCall(PetscFree3(ends, force, slot));
  PetscFunctionReturn(0);
}

/*
 * What every frame refers to and no frame repeats: talus's version, and the group every_frame
 * (named to sort before the frames: sorted(f)[-1] stays the last frame) with the vertices and the
 * planes.
 */
PetscErrorCode TalusOutputWriteFrameStatics(TalusOutput out, TalusSim sim)
{
  TalusBodies  *b;
  PetscInt      total;
  TalusH5Writer w;
  char          path[PETSC_MAX_PATH_LEN];
  hid_t         every;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusSimGetFiniteBodyCount(sim, &total));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", out->dir, out->frames_name));
  PetscCall(TalusH5WriterInit(&w, out->comm, "frames file", out->frames));
  out->nplanes = 0; /* planes are replicated: every rank holds them all among its own bodies */
  for (PetscInt k = 0; k < b->nowned; k++) out->nplanes += !TalusBodiesIsFinite(b, k);
  PetscCall(TalusSimGetJoints(sim, &out->njoints, NULL, NULL, NULL));
  PetscCall(TalusFramePartsSetUp(out, b));
  PetscCall(TalusFrameMeshesSetUp(out, b));
  if (H5Lexists(out->frames, "every_frame", H5P_DEFAULT) > 0) PetscFunctionReturn(0); /* a restart's file has them */
  TalusH5WriteStringAttribute(&w, out->frames, "talus_version", TalusVersion());
  TalusH5WriteStringAttribute(&w, out->frames, "talus_commit", TalusCommit());
  every = H5Gcreate2(out->frames, "every_frame", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  TalusH5Note(&w, every, "every_frame");
  PetscCall(TalusH5Agree(&w, path));
  PetscCall(TalusFramesWriteVertices(out, &w, every, "vertices", total));
  PetscCall(TalusFramePartsWriteStatics(out, &w, every));
  PetscCall(TalusFrameMeshesWriteStatics(out, &w, every, b));
  PetscCall(WritePlanes(out, &w, every, b, out->nplanes));
  PetscCall(TalusH5Agree(&w, path));
  PetscCall(WriteJointLines(out, &w, every, out->njoints));
  H5Gclose(every);
  PetscCall(TalusH5Agree(&w, path));
  PetscFunctionReturn(0);
}

/* The planes' grid, repeated in every frame (ParaView's reader shows one temporal collection only) */
static void XdmfPlanes(FILE *fp, const char h5[], PetscInt p)
{
  fprintf(fp,
          "    <Grid Name=\"planes\" GridType=\"Uniform\">\n     <Topology TopologyType=\"Quadrilateral\" "
          "NumberOfElements=\"%" PetscInt_FMT "\"><DataItem Dimensions=\"%" PetscInt_FMT
          " 4\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">%s:/every_frame/planes/quads</DataItem></Topology>\n",
          p, p, h5);
  fprintf(
    fp,
    "     <Geometry GeometryType=\"XYZ\"><DataItem Dimensions=\"%" PetscInt_FMT
    " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/every_frame/planes/corners</DataItem></Geometry>\n",
    4 * p, h5);
  fprintf(
    fp,
    "     <Attribute Name=\"normal\" Center=\"Cell\" AttributeType=\"Vector\"><DataItem Dimensions=\"%" PetscInt_FMT
    " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/every_frame/planes/normal</DataItem></Attribute>\n",
    p, h5);
  fprintf(fp,
          "     <Attribute Name=\"id\" Center=\"Cell\" AttributeType=\"Scalar\"><DataItem Dimensions=\"%" PetscInt_FMT
          "\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">%s:/every_frame/planes/id</DataItem></Attribute>\n    "
          "</Grid>\n",
          p, h5);
}

/* The joints of frame f as line segments, with the force on their body B */
static void XdmfJoints(FILE *fp, const char h5[], PetscInt f, PetscInt j)
{
  fprintf(fp,
          "    <Grid Name=\"joints\" GridType=\"Uniform\">\n     <Topology TopologyType=\"Polyline\" "
          "NodesPerElement=\"4\" NumberOfElements=\"%" PetscInt_FMT "\"><DataItem Dimensions=\"%" PetscInt_FMT
          " 4\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">%s:/every_frame/joint_lines</DataItem></Topology>\n",
          j, j, h5);
  fprintf(fp,
          "     <Geometry GeometryType=\"XYZ\"><DataItem Dimensions=\"%" PetscInt_FMT
          " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/frame%06" PetscInt_FMT
          "/joints/path</DataItem></Geometry>\n",
          4 * j, h5, f);
  fprintf(
    fp,
    "     <Attribute Name=\"force\" Center=\"Cell\" AttributeType=\"Vector\"><DataItem Dimensions=\"%" PetscInt_FMT
    " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/frame%06" PetscInt_FMT
    "/joints/force</DataItem></Attribute>\n    </Grid>\n",
    j, h5, f);
}

/* A grid of glyphs: n points, the datasets of group /frameNNNNNN/GROUP (GROUP "" for the bodies, "parts/" for the
   glyphs of bodies drawn as several), connectivity every_frame/CONNECTIVITY */
static void XdmfGlyphs(FILE *fp, const char h5[], PetscInt f, const char name[], const char group[],
                       const char connectivity[], PetscInt n)
{
  static const struct {
    const char *name, *type, *number;
    int         precision, width;
  } attributes[] = {
    {"id",               "Scalar", "Int",   8, 1},
    {"shape",            "Scalar", "Int",   4, 1},
    {"fixed",            "Scalar", "Int",   4, 1},
    {"diameter",         "Scalar", "Float", 4, 1},
    {"velocity",         "Vector", "Float", 8, 3},
    {"angular_velocity", "Vector", "Float", 8, 3},
    {"shape_tensor",     "Tensor", "Float", 4, 9},
  };

  fprintf(fp, "    <Grid Name=\"%s\" GridType=\"Uniform\">\n", name);
  fprintf(fp,
          "    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%" PetscInt_FMT
          "\" NodesPerElement=\"1\"><DataItem Dimensions=\"%" PetscInt_FMT
          "\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">%s:/every_frame/%s</DataItem></Topology>\n",
          n, n, h5, connectivity);
  fprintf(fp,
          "    <Geometry GeometryType=\"XYZ\"><DataItem Dimensions=\"%" PetscInt_FMT
          " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/frame%06" PetscInt_FMT
          "/%sposition</DataItem></Geometry>\n",
          n, h5, f, group);
  for (size_t a = 0; a < sizeof(attributes) / sizeof(attributes[0]); a++) {
    char dims[48];
    if (attributes[a].width > 1) snprintf(dims, sizeof(dims), "%" PetscInt_FMT " %d", n, attributes[a].width);
    else snprintf(dims, sizeof(dims), "%" PetscInt_FMT, n);
    fprintf(fp,
            "    <Attribute Name=\"%s\" Center=\"Node\" AttributeType=\"%s\"><DataItem Dimensions=\"%s\" "
            "NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">%s:/frame%06" PetscInt_FMT
            "/%s%s</DataItem></Attribute>\n",
            attributes[a].name, attributes[a].type, dims, attributes[a].number, attributes[a].precision, h5, f, group,
            attributes[a].name);
  }
  fprintf(fp, "    </Grid>\n");
}

/* The faces of the bodies drawn by them (hulls): nt triangles of nv corners, frameNNNNNN/faces */
static void XdmfFaces(FILE *fp, const char h5[], PetscInt f, PetscInt nv, PetscInt nt)
{
  fprintf(
    fp,
    "    <Grid Name=\"faces\" GridType=\"Uniform\">\n     <Topology TopologyType=\"Triangle\" "
    "NumberOfElements=\"%" PetscInt_FMT "\"><DataItem Dimensions=\"%" PetscInt_FMT
    " 3\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">%s:/every_frame/face_triangles</DataItem></Topology>\n",
    nt, nt, h5);
  fprintf(fp,
          "     <Geometry GeometryType=\"XYZ\"><DataItem Dimensions=\"%" PetscInt_FMT
          " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/frame%06" PetscInt_FMT
          "/faces/position</DataItem></Geometry>\n",
          nv, h5, f);
  fprintf(
    fp,
    "     <Attribute Name=\"velocity\" Center=\"Node\" AttributeType=\"Vector\"><DataItem Dimensions=\"%" PetscInt_FMT
    " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/frame%06" PetscInt_FMT
    "/faces/velocity</DataItem></Attribute>\n",
    nv, h5, f);
  fprintf(
    fp,
    "     <Attribute Name=\"id\" Center=\"Node\" AttributeType=\"Scalar\"><DataItem Dimensions=\"%" PetscInt_FMT
    "\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">%s:/frame%06" PetscInt_FMT
    "/faces/id</DataItem></Attribute>\n"
    "     <Attribute Name=\"fixed\" Center=\"Node\" AttributeType=\"Scalar\"><DataItem Dimensions=\"%" PetscInt_FMT
    "\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">%s:/frame%06" PetscInt_FMT
    "/faces/fixed</DataItem></Attribute>\n    </Grid>\n",
    nv, h5, f, nv, h5, f);
}

/* One frame in frames.xmf: a spatial collection of the n bodies (the datasets of group /frameNNNNNN), the planes,
   the joints, the glyphs of bodies drawn as several and the faces of bodies drawn by them. */
static void XdmfFrame(FILE *fp, const char h5[], PetscInt f, PetscReal t, PetscInt n, TalusOutput out)
{
  const PetscInt nparts = TalusFrameRowsTotal(&out->parts, 0), nv = TalusFrameRowsTotal(&out->meshes, 0),
                 nt = TalusFrameRowsTotal(&out->meshes, 1);

  fprintf(fp,
          "   <Grid Name=\"frame%" PetscInt_FMT "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n    <Time "
          "Value=\"%.12g\"/>\n",
          f, (double)t);
  XdmfGlyphs(fp, h5, f, "bodies", "", "vertices", n);
  if (out->nplanes > 0) XdmfPlanes(fp, h5, out->nplanes);
  if (out->njoints > 0) XdmfJoints(fp, h5, f, out->njoints);
  if (nparts > 0) XdmfGlyphs(fp, h5, f, "parts", "parts/", "part_vertices", nparts);
  if (nt > 0) XdmfFaces(fp, h5, f, nv, nt);
  fprintf(fp, "   </Grid>\n");
}

/* frames.xmf from scratch, with every frame so far (at the start, and at a restart that dropped
   frames written after its checkpoint); rank 0 writes, every rank agrees on the outcome. */
PetscErrorCode TalusOutputWriteXdmf(TalusOutput out, PetscInt n)
{
  FILE *fp;

  PetscFunctionBegin;
  PetscCall(TalusOutputOpenText(out, "frames.xmf", "w", &fp));
  if (fp) {
    const char *h5 = out->frames_name;
    fprintf(fp, "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n <Domain>\n");
    fprintf(fp, "  <Grid Name=\"talus\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
    for (PetscInt f = 0; f < out->nframes; f++) XdmfFrame(fp, h5, f, out->frame_times[f], n, out);
    fputs(XdmfTail, fp);
  }
  PetscCall(TalusOutputCloseText(out, &fp, "frames.xmf"));
  PetscFunctionReturn(0);
}

/* The newest frame, written over frames.xmf's closing tags, which follow it again. */
static PetscErrorCode AppendXdmf(TalusOutput out, PetscInt n)
{
  FILE *fp;
  int   err = 0;

  PetscFunctionBegin;
  PetscCall(TalusOutputOpenText(out, "frames.xmf", "r+", &fp));
  if (fp) {
    if (fseek(fp, -(long)strlen(XdmfTail), SEEK_END) == 0) {
      XdmfFrame(fp, out->frames_name, out->nframes - 1, out->frame_times[out->nframes - 1], n, out);
      fputs(XdmfTail, fp);
    } else err = errno;
    if (fclose(fp) != 0 && !err) err = errno ? errno : EIO;
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, out->comm));
  PetscCheck(!err, out->comm, PETSC_ERR_FILE_WRITE, "cannot append to %s/frames.xmf: %s", out->dir, strerror(err));
  PetscFunctionReturn(0);
}

/*
 * Frame f: group /frameNNNNNN with attributes time and step and, for the finite bodies in id order
 * (row = slot): id, position, quaternion, velocity, angular_velocity (world frame), size, and for
 * ParaView shape (the shape's stored code), fixed, diameter (of the sphere about the body) and
 * shape_tensor.
 */
PetscErrorCode TalusOutputWriteFrame(TalusOutput out, TalusSim sim)
{
  TalusBodies  *b;
  PetscReal    *pos, *quat, *vel, *omega, *size, t;
  float        *tensor, *diameter;
  int32_t      *shape, *fixed;
  PetscInt64   *id;
  PetscInt     *slot, n = 0, total, stats_step;
  char          name[32], path[PETSC_MAX_PATH_LEN];
  hid_t         group;
  TalusH5Writer w;
  struct stat   st;
  double        size_before = 0.0;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusSimGetTime(sim, &t, NULL, NULL));
  PetscCall(TalusSimGetStep(sim, &stats_step));
  PetscCall(TalusSimGetFiniteBodyCount(sim, &total));
  PetscCall(PetscMalloc7(b->n, &id, 3 * b->n, &pos, 4 * b->n, &quat, 3 * b->n, &vel, 3 * b->n, &omega, 3 * b->n, &size,
                         b->n, &slot));
  PetscCall(PetscMalloc4(9 * b->n, &tensor, b->n, &diameter, b->n, &shape, b->n, &fixed));
  for (PetscInt k = 0; k < b->nowned; k++) {
    if (!TalusBodiesIsFinite(b, k)) continue;
    id[n]   = b->id[k];
    slot[n] = b->slot[k];
    TalusBodiesGetAngularVelocityWorld(b, k, &omega[3 * n]);
    for (int d = 0; d < 3; d++)
      pos[3 * n + d] = b->position[3 * k + d], vel[3 * n + d] = b->velocity[3 * k + d],
                  size[3 * n + d] = b->size[3 * k + d];
    for (int d = 0; d < 4; d++) quat[4 * n + d] = b->quaternion[4 * k + d];
    TalusFramesShapeTensor(&b->quaternion[4 * k], b->shape[k], &b->size[3 * k], &tensor[9 * n]);
    diameter[n] = (float)(2.0 * TalusShapeTable[b->shape[k]].bounding_radius(&b->size[3 * k]));
    shape[n]    = (int32_t)TalusShapeTable[b->shape[k]].code;
    fixed[n]    = (int32_t)(b->fixed[k] != 0);
    n++;
  }
  PetscCall(PetscSNPrintf(name, sizeof(name), "/frame%06" PetscInt_FMT, out->nframes));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", out->dir, out->frames_name));
  { /* room for it, as the last frame took (first: 182 B of data a body, twice, and 256 KB), a quarter more */
    char what[PETSC_MAX_PATH_LEN + 64];
    PetscCall(PetscSNPrintf(what, sizeof(what), "frame %" PetscInt_FMT " of %s", out->nframes, path));
    PetscCall(TalusRequireFreeSpace(out->comm, out->dir,
                                    out->frame_bytes > 0.0 ? 1.25 * out->frame_bytes + 65536.0
                                                           : 364.0 * (double)total + 262144.0,
                                    what));
    if (out->rank == 0 && stat(path, &st) == 0) size_before = (double)st.st_size;
  }
  PetscCall(TalusH5WriterInit(&w, out->comm, "frames file", out->frames));
  group = H5Gcreate2(out->frames, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  TalusH5Note(&w, group, name);
  PetscCall(TalusH5Agree(&w, path));
  TalusH5WriteAttribute(&w, group, "time", PETSC_FALSE, 1, &t);
  TalusH5WriteAttribute(&w, group, "step", PETSC_TRUE, 1, &stats_step);
  PetscCall(TalusH5Agree(&w, path));
  PetscCall(TalusFramesWriteRows(out, &w, group, "id", H5T_NATIVE_INT64, total, n, slot, 1, id));
  PetscCall(TalusFramesWriteRows(out, &w, group, "position", H5T_NATIVE_DOUBLE, total, n, slot, 3, pos));
  PetscCall(TalusFramesWriteRows(out, &w, group, "quaternion", H5T_NATIVE_DOUBLE, total, n, slot, 4, quat));
  PetscCall(TalusFramesWriteRows(out, &w, group, "velocity", H5T_NATIVE_DOUBLE, total, n, slot, 3, vel));
  PetscCall(TalusFramesWriteRows(out, &w, group, "angular_velocity", H5T_NATIVE_DOUBLE, total, n, slot, 3, omega));
  PetscCall(TalusFramesWriteRows(out, &w, group, "size", H5T_NATIVE_DOUBLE, total, n, slot, 3, size));
  PetscCall(TalusFramesWriteRows(out, &w, group, "shape", H5T_NATIVE_INT32, total, n, slot, 1, shape));
  PetscCall(TalusFramesWriteRows(out, &w, group, "fixed", H5T_NATIVE_INT32, total, n, slot, 1, fixed));
  PetscCall(TalusFramesWriteRows(out, &w, group, "diameter", H5T_NATIVE_FLOAT, total, n, slot, 1, diameter));
  PetscCall(TalusFramesWriteRows(out, &w, group, "shape_tensor", H5T_NATIVE_FLOAT, total, n, slot, 9, tensor));
  PetscCall(WriteJoints(out, &w, group, sim));
  PetscCall(TalusFramePartsWrite(out, &w, group, b));
  PetscCall(TalusFrameMeshesWrite(out, &w, group, b));
  H5Gclose(group);
  TalusH5Note(&w, H5Fflush(out->frames, H5F_SCOPE_GLOBAL), "the file (flush)"); /* readable after a crash */
  PetscCall(TalusH5Agree(&w, path));
  if (out->rank == 0 && stat(path, &st) == 0) out->frame_bytes = PetscMax((double)st.st_size - size_before, 0.0);
  PetscCall(PetscFree7(id, pos, quat, vel, omega, size, slot));
  PetscCall(PetscFree4(tensor, diameter, shape, fixed));
  PetscCall(TalusOutputAddFrameTime(out, t));
  if (out->nframes == 1) PetscCall(TalusOutputWriteXdmf(out, total));
  else PetscCall(AppendXdmf(out, total));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputAddFrameTime(TalusOutput out, PetscReal t)
{
  PetscFunctionBegin;
  PetscCall(TalusGrowArray(sizeof(PetscReal), out->nframes + 1, &out->frame_capacity, &out->frame_times));
  out->frame_times[out->nframes++] = t;
  PetscFunctionReturn(0);
}
