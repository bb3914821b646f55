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
from twig.export.recording import RecordedBody, RecordedVolume, Recording

__all__ = ["ExportError", "RecordedBody", "RecordedVolume", "Recording", "write_bvh",
           "write_gltf", "write_usd"]


def __getattr__(name: str):
    """``write_gltf`` and ``write_usd`` on first use: the glTF library takes ~0.1 s to import,
    and ``import twig`` reaches this package through the rotations the motion clips use."""
    if name == "write_gltf":
        from twig.export.gltf import write_gltf

        return write_gltf
    if name == "write_usd":
        from twig.export.usd import write_usd

        return write_usd
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
