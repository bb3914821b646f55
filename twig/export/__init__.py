"""Exporters over a recording (``world.record()``): BVH, glTF 2.0, USD (UsdSkel) and NPZ
trajectories.

>>> import twig
>>> from twig.export import write_bvh, write_gltf
>>> world = twig.World()
>>> doll = world.add_humanoid("doll", position=(0, 0.5, 0))
>>> recording = world.record()
>>> world.run(seconds=1)
>>> import tempfile, pathlib
>>> out = pathlib.Path(tempfile.mkdtemp())
>>> [p.name for p in write_bvh(recording, out / "fall.bvh")]
['fall.bvh']
>>> write_gltf(recording, out / "fall.glb").name
'fall.glb'
>>> recording.save(out / "fall.npz")
"""

from twig.export.bvh import write_bvh
from twig.export.files import ExportError
from twig.export.gltf import write_gltf
from twig.export.recording import RecordedBody, RecordedVolume, Recording
from twig.export.usd import write_usd

__all__ = ["ExportError", "RecordedBody", "RecordedVolume", "Recording", "write_bvh",
           "write_gltf", "write_usd"]
