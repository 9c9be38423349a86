"""Run by pvpython from tests/cli/test_view.py: what ParaView's default reader makes of a talus
frames.xmf (TALUS_VIEW_XMF) of tests/scenes/boxes-and-spheres.yaml. Prints one line per fact,
"name value", which the test compares with the scene."""
import os

from paraview import servermanager
from paraview.simple import ExtractCellsByType, MergeBlocks, OpenDataFile, TensorGlyph, Threshold

reader = OpenDataFile(os.environ["TALUS_VIEW_XMF"])
print("reader", reader.GetXMLName())
reader.UpdatePipelineInformation()
print("times", " ".join("%g" % t for t in reader.TimestepValues))
t0 = reader.TimestepValues[0]
reader.UpdatePipeline(t0)
info = reader.GetDataInformation()
print("points", info.GetNumberOfPoints())
print("cells", info.GetNumberOfCells())


def split(kind):
    return MergeBlocks(Input=ExtractCellsByType(Input=reader, CellTypes=[kind]))


bodies, planes = split("Polyvertex"), split("Quadrilateral")
bodies.UpdatePipeline(t0)
planes.UpdatePipeline(t0)
print("body_cells", bodies.GetDataInformation().GetNumberOfCells())
print("plane_cells", planes.GetDataInformation().GetNumberOfCells())
print("arrays", " ".join(sorted(bodies.PointData.keys())))
data = servermanager.Fetch(bodies)
ids, diameter = data.GetPointData().GetArray("id"), data.GetPointData().GetArray("diameter")
print("diameters", " ".join("%d:%.6g" % (ids.GetValue(k), diameter.GetValue(k)) for k in range(data.GetNumberOfPoints())))
for code, name in ((1, "box"),):
    one = Threshold(Input=bodies, Scalars=["POINTS", "shape"], LowerThreshold=code, UpperThreshold=code)
    moving = Threshold(Input=one, Scalars=["POINTS", "fixed"], LowerThreshold=0, UpperThreshold=0)
    glyph = TensorGlyph(Input=moving, GlyphType="Box", Tensors=["POINTS", "shape_tensor"], ExtractEigenvalues=0)
    glyph.ScaleFactor = 1.0  # set after creation: the constructor's default comes from the data's bounds
    glyph.UpdatePipeline(t0)
    print("%s_bounds" % name, " ".join("%.6f" % b for b in glyph.GetDataInformation().GetBounds()))
