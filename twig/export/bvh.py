"""BVH motion files of humanoids: HIERARCHY and MOTION, y up, centimetres, ZXY rotations.

Biovision Hierarchy, as Blender, MotionBuilder and retargeting tools read it: the skeleton of
:mod:`twig.export.skeleton` (joints named Hips, Spine, Chest, ... so that tools map them
automatically), ``Zrotation Xrotation Yrotation`` channels on every joint (``R = Rz Rx Ry``),
the rest pose facing +z, one frame per recorded frame (1/60 s) or resampled to another rate.

The skeleton is rigid: position channels on the root only, so that every reader reads the
file alike (three.js adds a joint's position channels to its ``OFFSET``, bvhio and Blender
put the joint at them, bvhtoolbox and pybvh ignore or refuse them below the root). Its bones
keep their rest lengths and are aimed, from the hips out, at the simulated nodes
(:func:`~twig.export.skeleton.rigid_nodes`), so each joint is off its node by about the
stretch of its own link. With ``stretch=True`` every joint has position channels too
(``Xposition Yposition Zposition``, centimetres): its offset from its parent in the parent's
rotated frame, frame by frame, so that the joints land on the simulated nodes however much
the links stretch, for readers that put a joint at its position channels.
"""

from __future__ import annotations

import io
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
from twig.export.recording import RecordedBody, Recording
from twig.export.rotations import continuous, euler_zxy, matrices, quaternions, slerp
from twig.export.skeleton import JOINT_NAMES, Skeleton, pose, rigid_nodes

CM = 100.0
"""BVH lengths are centimetres."""


def write_bvh(recording: Recording, path: str | PathLike, character: str | None = None,
              fps: float | None = None, stretch: bool = False) -> list[Path]:
    """Write the motion of the recording's humanoids to BVH files; returns the paths written.

    Parameters
    ----------
    recording
        From ``world.record()``.
    path
        A ``.bvh`` file name. With one humanoid (or ``character``) it is used as given; with
        several, each goes to its own file with its name inserted: ``walk.bvh`` becomes
        ``walk_kid.bvh``, ``walk_parent.bvh``...
    character
        Export only the humanoid of this name.
    fps
        Frames per second of the file (default: one frame per recorded frame, 60 for a
        recording of every tick); other rates interpolate (slerp of joint rotations, joint
        offsets linearly).
    stretch
        Position channels on every joint, carrying the links' stretch, so that the joints
        are exactly where the simulation put them in readers that place a joint at its
        position channels (bvhio, Blender); default ``False``: a rigid skeleton with
        rotations only below the root, read alike by every tool.

    Raises
    ------
    ExportError
        No humanoid in the recording, no frames, a bad ``fps``, or a file cannot be written
        (no file is left behind then).
    UnknownNameError
        ``character`` is not a humanoid of the recording.
    """
    target = as_path(path, ".bvh")
    bodies = humanoids(recording, character)
    if fps is not None and not (isinstance(fps, int | float) and 0 < fps < float("inf")):
        raise ExportError(f"fps must be a positive number, got {fps!r}")
    arrays = recording.arrays()
    contents = {}
    for body in bodies:
        name = target if len(bodies) == 1 else target.with_stem(f"{target.stem}_{body.name}")
        contents[name] = bvh_text(body, arrays["t"], arrays["pos"], recording.dt, fps,
                                  stretch).encode()
    return write_files(contents)


def bvh_text(body: RecordedBody, t: np.ndarray, pos: np.ndarray, frame_time: float,
             fps: float | None, stretch: bool = False) -> str:
    """The BVH file of humanoid ``body`` from recording times ``t`` (F,) and positions
    ``pos`` (F, N, 3) recorded every ``frame_time`` seconds, over the frames in which it
    exists, resampled to ``fps`` if given; position channels on every joint if ``stretch``,
    else on the root only (the bones aimed at the nodes at their rest lengths)."""
    nodes = humanoid_nodes(pos, body)
    frames = alive(nodes)
    if len(frames) == 0:
        raise ExportError(f"humanoid {body.name!r} has no recorded frame")
    skeleton = humanoid_skeleton(body)
    track = nodes[frames] if stretch else rigid_nodes(skeleton, nodes[frames])
    posed = pose(skeleton, track, frame_time)
    times = t[frames]
    offsets, local = posed.offsets, quaternions(posed.local)
    if fps is not None:
        times, offsets, local = resample(times, offsets, local, 1.0 / fps)
        frame_time = 1.0 / fps
    angles = np.degrees(np.unwrap(euler_zxy(matrices(local)), axis=0))
    columns = []
    for j in range(len(JOINT_NAMES)):  # each joint's channels in the order the file lists
        if stretch or j == 0:
            columns.append(offsets[:, j] * CM)
        columns.append(angles[:, j])
    motion = np.round(np.concatenate(columns, axis=1), 6)
    motion += 0.0  # no "-0.000000"
    out = io.StringIO()
    out.write("HIERARCHY\n")
    _write_joint(out, skeleton, 0, 0, stretch)
    out.write(f"MOTION\nFrames: {len(motion)}\nFrame Time: {frame_time:.8f}\n")
    np.savetxt(out, motion, fmt="%.6f")
    return out.getvalue()


def _write_joint(out: io.StringIO, skeleton: Skeleton, joint: int, depth: int,
                 stretch: bool) -> None:
    pad = "  " * depth
    kind = "ROOT" if depth == 0 else "JOINT"
    x, y, z = skeleton.offsets[joint] * CM
    channels = ("CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation"
                if depth == 0 or stretch else "CHANNELS 3 Zrotation Xrotation Yrotation")
    out.write(f"{pad}{kind} {JOINT_NAMES[joint]}\n{pad}{{\n"
              f"{pad}  OFFSET {x:.6f} {y:.6f} {z:.6f}\n{pad}  {channels}\n")
    for child in np.flatnonzero(skeleton.parents == joint):
        _write_joint(out, skeleton, int(child), depth + 1, stretch)
    if joint in skeleton.end_sites:
        ex, ey, ez = skeleton.end_sites[joint] * CM
        out.write(f"{pad}  End Site\n{pad}  {{\n{pad}    OFFSET {ex:.6f} {ey:.6f} {ez:.6f}\n"
                  f"{pad}  }}\n")
    out.write(f"{pad}}}\n")


def resample(t: np.ndarray, offsets: np.ndarray, local: np.ndarray,
             step: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample a pose track every ``step`` seconds from ``t[0]``: joint offsets (F, J, 3)
    linearly, joint quaternions (F, J, 4) by slerp. Returns the new times, offsets and
    quaternions."""
    new_t = t[0] + step * np.arange(int(np.floor((t[-1] - t[0]) / step + 1e-9)) + 1)
    k = np.clip(np.searchsorted(t, new_t, side="right") - 1, 0, max(len(t) - 2, 0))
    k1 = np.minimum(k + 1, len(t) - 1)
    span = np.where(k1 > k, t[k1] - t[k], 1.0)
    s = np.clip((new_t - t[k]) / span, 0.0, 1.0)[:, None, None]
    new_offsets = offsets[k] + s * (offsets[k1] - offsets[k])
    q = continuous(local)
    return new_t, new_offsets, slerp(q[k], q[k1], s)
