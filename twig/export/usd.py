"""USD files of a recording's humanoids: UsdSkel skeletons, animations and skinned meshes.

Universal Scene Description, as Omniverse, Isaac Sim, Houdini and Blender read it (written
with Pixar's own ``usd-core``): a stage in metres, y up, one time code per recorded frame.
Each humanoid is a ``SkelRoot`` ``/World/<name>`` holding

- ``Skeleton``: the joints of :mod:`twig.export.skeleton` (Hips, Spine, Chest...) as joint
  paths (``Hips/Spine/Chest``), their rest pose (the humanoid's standing build pose facing +z,
  rest rotations zero) as ``restTransforms`` and, in world space, ``bindTransforms``;
- ``Skeleton/Motion``: a ``SkelAnimation`` with every joint's local translation (its offset
  from its parent read off the nodes, so that every joint lands on its node however the
  links stretch, as the ``--bvh-stretch`` BVH and the glTF do) and rotation per frame;
- ``Body``: the figure's capsules (the world's radii), each vertex bound rigidly to one
  joint, coloured as the viewer colours the character.

The root prim ``/World`` is the stage's default prim. Props are not written (use the glTF
for a whole scene).
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path

import numpy as np

from twig.export.files import (
    ExportError,
    alive,
    as_path,
    humanoid_nodes,
    humanoid_skeleton,
    humanoids,
    write_files,
)
from twig.export.gltf import capsule_skin
from twig.export.recording import Recording
from twig.export.rotations import continuous, quaternions
from twig.export.skeleton import JOINT_NAMES, pose
from twig.view.palette import body_colors, linear


def write_usd(recording: Recording, path: str | PathLike) -> Path:
    """Write the recording's humanoids, animated, to a ``.usda`` (or ``.usd``, text) file;
    returns the path written.

    Raises
    ------
    ExportError
        No humanoid in the recording, ``usd-core`` not installed, or the file cannot be
        written (nothing is left behind then).
    """
    target = as_path(path, ".usda", ".usd")
    bodies = humanoids(recording)
    require_usd()
    from pxr import Gf, Usd, UsdGeom, UsdSkel, Vt

    arrays = recording.arrays()
    t = arrays["t"]
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    stage.SetTimeCodesPerSecond(1.0 / recording.dt)
    stage.SetStartTimeCode(0.0)
    stage.SetEndTimeCode(float(len(t) - 1))
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    colours = dict(zip((b.name for b in recording.bodies),
                       body_colors([b.type for b in recording.bodies]), strict=True))
    taken: set[str] = set()
    for body in bodies:
        nodes = humanoid_nodes(arrays["pos"], body)
        frames = alive(nodes)
        if len(frames) == 0:
            continue
        skeleton = humanoid_skeleton(body)
        posed = pose(skeleton, nodes[frames], recording.dt)
        paths = _joint_paths(skeleton.parents)
        name = _prim_name(body.name, taken)
        root = UsdSkel.Root.Define(stage, f"/World/{name}")
        skel = UsdSkel.Skeleton.Define(stage, root.GetPath().AppendChild("Skeleton"))
        skel.CreateJointsAttr(Vt.TokenArray(paths))
        skel.CreateJointNamesAttr(Vt.TokenArray(list(JOINT_NAMES)))
        rest_local = [Gf.Matrix4d(1.0).SetTranslate(Gf.Vec3d(*map(float, offset)))
                      for offset in np.where((skeleton.parents < 0)[:, None], skeleton.rest,
                                             skeleton.offsets)]
        skel.CreateRestTransformsAttr(Vt.Matrix4dArray(rest_local))
        skel.CreateBindTransformsAttr(Vt.Matrix4dArray(
            [Gf.Matrix4d(1.0).SetTranslate(Gf.Vec3d(*map(float, p))) for p in skeleton.rest]))
        motion = UsdSkel.Animation.Define(stage, skel.GetPath().AppendChild("Motion"))
        motion.CreateJointsAttr(Vt.TokenArray(paths))
        rotations = continuous(quaternions(posed.local))  # (x, y, z, w)
        translate = motion.CreateTranslationsAttr()
        rotate = motion.CreateRotationsAttr()
        motion.CreateScalesAttr(Vt.Vec3hArray([Gf.Vec3h(1.0, 1.0, 1.0)] * len(paths)))
        for k, f in enumerate(frames.tolist()):
            translate.Set(Vt.Vec3fArray.FromNumpy(posed.offsets[k].astype(np.float32)), f)
            q = rotations[k]
            rotate.Set(Vt.QuatfArray([Gf.Quatf(float(w), float(x), float(y), float(z))
                                      for x, y, z, w in q]), f)
        UsdSkel.BindingAPI.Apply(skel.GetPrim()).CreateAnimationSourceRel().SetTargets(
            [motion.GetPath()])
        if len(frames) < len(t):  # hidden while the body does not exist
            visibility = root.CreateVisibilityAttr()
            present = np.zeros(len(t), dtype=bool)
            present[frames] = True
            for f in range(len(t)):
                if f == 0 or present[f] != present[f - 1]:
                    visibility.Set(UsdGeom.Tokens.inherited if present[f]
                                   else UsdGeom.Tokens.invisible, float(f))
        _skinned_mesh(stage, root, skel, body, skeleton, colours[body.name])
    text = stage.GetRootLayer().ExportToString()
    return write_files({target: text.encode()})[0]


def require_usd() -> None:
    """Raise :class:`ExportError` if Pixar's ``usd-core`` (``pxr``) is not installed."""
    try:
        import pxr  # noqa: F401
    except ImportError:
        raise ExportError("USD export needs Pixar's usd-core: pip install 'twig[usd]' "
                          "(usd-core 26.11)") from None


def _skinned_mesh(stage, root, skel, body, skeleton, colour) -> None:
    """The figure's capsules as a mesh bound rigidly to the skeleton's joints."""
    from pxr import Gf, UsdGeom, UsdSkel, Vt

    mesh, owner = capsule_skin(body, skeleton)
    geom = UsdGeom.Mesh.Define(stage, root.GetPath().AppendChild("Body"))
    geom.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(mesh.positions.astype(np.float32)))
    geom.CreateNormalsAttr(Vt.Vec3fArray.FromNumpy(mesh.normals.astype(np.float32)))
    geom.SetNormalsInterpolation(UsdGeom.Tokens.vertex)
    geom.CreateFaceVertexCountsAttr(Vt.IntArray([3] * len(mesh.indices)))
    geom.CreateFaceVertexIndicesAttr(Vt.IntArray(mesh.indices.ravel().tolist()))
    geom.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
    lo, hi = mesh.positions.min(axis=0), mesh.positions.max(axis=0)
    geom.CreateExtentAttr(Vt.Vec3fArray([Gf.Vec3f(*map(float, lo)), Gf.Vec3f(*map(float, hi))]))
    geom.CreateDisplayColorAttr(Vt.Vec3fArray([Gf.Vec3f(*linear(colour))]))
    binding = UsdSkel.BindingAPI.Apply(geom.GetPrim())
    binding.CreateSkeletonRel().SetTargets([skel.GetPath()])
    binding.CreateJointIndicesPrimvar(False, 1).Set(Vt.IntArray(owner.tolist()))
    binding.CreateJointWeightsPrimvar(False, 1).Set(Vt.FloatArray([1.0] * len(owner)))
    binding.CreateGeomBindTransformAttr(Gf.Matrix4d(1.0))


def _joint_paths(parents: np.ndarray) -> list[str]:
    """UsdSkel joint paths (``Hips/Spine/Chest``) of :data:`JOINT_NAMES` with ``parents``."""
    paths: list[str] = []
    for j, name in enumerate(JOINT_NAMES):
        paths.append(name if parents[j] < 0 else f"{paths[parents[j]]}/{name}")
    return paths


def _prim_name(name: str, taken: set[str]) -> str:
    """A valid prim name for a body name (letters, digits, ``_``; not starting with a
    digit), not yet in ``taken`` (which it joins)."""
    clean = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in name)
    clean = clean if clean and not clean[0].isdigit() else f"_{clean}"
    unique, k = clean, 1
    while unique in taken:
        k += 1
        unique = f"{clean}_{k}"
    taken.add(unique)
    return unique
