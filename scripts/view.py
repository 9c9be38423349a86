"""ParaView script of scripts/view: shows a talus run (OUTPUT_DIR/frames.xmf) with its bodies as they are.

Run by scripts/view, under paraview (--script) or pvpython. Settings come from the environment:
  TALUS_VIEW_XMF         the frames.xmf to open
  TALUS_VIEW_SCREENSHOT  write this PNG (at TALUS_VIEW_TIME, default the last frame) and quit
  TALUS_VIEW_TIME        the time to show

Spheres are drawn as Point Gaussian sprites of their diameter (cheap for millions), boxes as a
Tensor Glyph of a unit cube by each body's shape_tensor (its axes times its edges: orientation and
size), cylinders (and capsules, as cylinders of their whole length) as a Tensor Glyph of ParaView's unit
cylinder (its axis y) by the shape_tensor with its second and third columns swapped (the body's z, its axis,
onto the glyph's y), compounds as their parts (each part a glyph of its own shape: frames.h5's frameNNNNNN/parts,
which ParaView's reader gives as a second Polyvertex set with the bodies' arrays), hulls as their faces (triangles,
frameNNNNNN/faces), all coloured by speed; fixed bodies grey; the planes as translucent squares; joints as red
segments between their anchors. It prints one
line per block with its counts, which tests/cli/test_view.py reads.
"""
import os

from paraview.simple import (Calculator, ColorBy, ExtractCellsByType, MergeBlocks, GetActiveViewOrCreate, GetAnimationScene, GetColorTransferFunction,
                             OpenDataFile, PythonCalculator, Render, ResetCamera, SaveScreenshot, Show, TensorGlyph, Threshold)

SPHERE, BOX, CYLINDER, CAPSULE = 0, 1, 3, 4  # the shapes' stored codes (src/geometry/shapes.c)

xmf = os.environ["TALUS_VIEW_XMF"]
reader = OpenDataFile(xmf)
reader.UpdatePipelineInformation()
times = list(reader.TimestepValues or [0.0])
t = float(os.environ.get("TALUS_VIEW_TIME", times[-1]))
scene = GetAnimationScene()
scene.UpdateAnimationUsingDataTimeSteps()
scene.AnimationTime = t
view = GetActiveViewOrCreate("RenderView")


def cells(kind):
    """A frame holds the bodies (one Polyvertex cell of them), the compounds' parts (another, with the same arrays),
    the hulls' faces (Triangles) and the planes (Quads): split by cell type."""
    return MergeBlocks(Input=ExtractCellsByType(Input=reader, CellTypes=[kind]))


def shape_of(source, lo, hi):
    return Threshold(Input=source, Scalars=["POINTS", "shape"], LowerThreshold=lo, UpperThreshold=hi)


def show(source, coloured):
    """Shows source coloured by speed, or grey."""
    d = Show(source, view)
    d.DiffuseColor = [0.6, 0.6, 0.6]
    if coloured:
        ColorBy(d, ("POINTS", "speed"))
    else:
        d.ColorArrayName = ["POINTS", ""]  # grey, not the first array
    return d


def count(source):
    source.UpdatePipeline(t)
    info = source.GetDataInformation()
    return info.GetNumberOfPoints(), info.GetNumberOfCells()


bodies = Calculator(Input=cells("Polyvertex"), ResultArrayName="speed", Function="mag(velocity)")
moving = Threshold(Input=bodies, Scalars=["POINTS", "fixed"], LowerThreshold=0, UpperThreshold=0)
fixed = Threshold(Input=bodies, Scalars=["POINTS", "fixed"], LowerThreshold=1, UpperThreshold=1)
speed = GetColorTransferFunction("speed")
for group, coloured in ((moving, True), (fixed, False)):
    spheres = shape_of(group, SPHERE, SPHERE)
    if count(spheres)[0]:
        d = show(spheres, coloured)
        d.SetRepresentationType("Point Gaussian")
        d.ShaderPreset = "Sphere"
        d.ScaleByArray = 1
        d.SetScaleArray = ["POINTS", "diameter"]
        d.UseScaleFunction = 0  # the array as it is, not mapped through a transfer function
        d.GaussianRadius = 0.5  # the sprite's radius is GaussianRadius times the array: half the diameter
        if coloured:
            d.SetScalarBarVisibility(view, True)
    boxes = shape_of(group, BOX, BOX)  # (a hull: its faces, below; a compound: its parts, among the bodies)
    # a cylinder's tensor with its columns y and z swapped: the glyph's axis (y) along the body's z (numpy sees a
    # 9-component tensor transposed, and a result's rows are written as they are: transpose, then reorder)
    cylinders = PythonCalculator(Input=shape_of(group, CYLINDER, CAPSULE), ArrayName="cylinder_tensor",
                                 Expression="inputs[0].PointData['shape_tensor'].transpose(0, 2, 1)[:, [0, 2, 1], :]")
    for solids, kind, tensor in ((boxes, "Box", "shape_tensor"), (cylinders, "Cylinder", "cylinder_tensor")):
        if not count(solids)[0]:
            continue
        glyphs = TensorGlyph(Input=solids, GlyphType=kind)  # a unit cube, or a unit cylinder along y
        if kind == "Cylinder":
            glyphs.GlyphType.Resolution = 24  # its sides (6 by default)
        glyphs.Tensors = ["POINTS", tensor]
        glyphs.ExtractEigenvalues = 0
        glyphs.Scalars = ["POINTS", "speed"]
        glyphs.ColorGlyphs = 1 if coloured else 0  # each body's faces carry its speed
        glyphs.ScaleFactor = 1.0
        show(glyphs, coloured)
        glyphs.UpdatePipeline(t)
        print("talus view: %s %s within x %.4g .. %.4g, y %.4g .. %.4g, z %.4g .. %.4g"
              % (("moving" if coloured else "fixed", "boxes" if kind == "Box" else "cylinders")
                 + tuple(glyphs.GetDataInformation().GetBounds())))
    print("talus view: %s: %d spheres, %d boxes, %d cylinders (compounds' parts among them)"
          % ("moving" if coloured else "fixed", count(spheres)[0], count(boxes)[0], count(cylinders)[0]))

# hulls: their faces, coloured by the corners' speed, fixed ones grey
faces = Calculator(Input=cells("Triangle"), ResultArrayName="speed", Function="mag(velocity)")
n = count(faces)[1]
if n:
    for group, coloured in ((Threshold(Input=faces, Scalars=["POINTS", "fixed"], LowerThreshold=0, UpperThreshold=0), True),
                            (Threshold(Input=faces, Scalars=["POINTS", "fixed"], LowerThreshold=1, UpperThreshold=1), False)):
        if count(group)[1]:
            show(group, coloured)
    faces.UpdatePipeline(t)
    print("talus view: hull faces within x %.4g .. %.4g, y %.4g .. %.4g, z %.4g .. %.4g"
          % tuple(faces.GetDataInformation().GetBounds()))
print("talus view: %d hull faces" % n)
planes = cells("Quadrilateral")
n = count(planes)[1]
if n:
    d = Show(planes, view)
    d.Opacity = 0.35
    d.DiffuseColor = [0.8, 0.75, 0.6]
print("talus view: %d planes; t = %g of %d frames (%g .. %g)" % (n, t, len(times), times[0], times[-1]))
joints = MergeBlocks(Input=ExtractCellsByType(Input=reader, CellTypes=["Polyline"]))  # anchor to anchor
nj = count(joints)[1]
if nj:
    d = Show(joints, view)
    d.LineWidth = 3.0
    d.DiffuseColor = [0.7, 0.1, 0.1]
    d.AmbientColor = [0.7, 0.1, 0.1]
    d.ColorArrayName = ["CELLS", ""]
print("talus view: %d joints" % nj)
view.OrientationAxesVisibility = 1
bodies.UpdatePipeline(t)
speed.RescaleTransferFunction(0.0, max(1e-9, bodies.PointData["speed"].GetRange()[1]))
# look at the bodies (the planes reach far beyond them) from above and aside, z up
lo_hi = bodies.GetDataInformation().GetBounds()
centre = [0.5 * (lo_hi[2 * d] + lo_hi[2 * d + 1]) for d in range(3)]
reach = max(1e-3, max(lo_hi[2 * d + 1] - lo_hi[2 * d] for d in range(3)))
ResetCamera(view)
view.CameraFocalPoint = centre
view.CameraPosition = [c + 1.4 * reach * a for c, a in zip(centre, (0.8, -1.3, 0.9))]
view.CameraViewUp = [0.0, 0.0, 1.0]
view.ResetCameraClippingRange() if hasattr(view, "ResetCameraClippingRange") else None
shot = os.environ.get("TALUS_VIEW_SCREENSHOT")
if shot:
    SaveScreenshot(shot, view, ImageResolution=[800, 600])
    print("talus view: wrote %s" % shot)
else:
    Render(view)
