"""The shipped clip library: motions recorded from twig's own characters, as BVH files.

No pip package ships real motion capture, so the library is made by
:mod:`twig.hybrid.make_library` from twig's motor control (``python -m
twig.hybrid.make_library`` rewrites the files in ``twig/hybrid/clips/``). Each is a BVH file
of twig's own skeleton (Hips, Spine, Chest...), 30 frames per second, for the 1.75 m adult;
playing one on another build fits it (:meth:`~twig.hybrid.clip.Clip.fit`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import resources
from os import PathLike
from pathlib import Path

from twig.hybrid.clip import Clip, ClipError, load_clip

LOOPS = {"walk": True, "walk-left": True, "walk-right": True, "run": True, "idle": True,
         "wave": False, "kick": False, "sit": False, "fall-recovery": False}
"""Library clip -> whether it loops (a gait cycle, breathing) or plays once."""


def library_folder() -> Path:
    """Where the library's BVH files are."""
    return Path(str(resources.files("twig.hybrid") / "clips"))


def library_names() -> list[str]:
    """The library's clips that exist as files, in :data:`LOOPS` order."""
    folder = library_folder()
    return [n for n in LOOPS if (folder / f"{n}.bvh").is_file()]


@cache
def library_clip(name: str) -> Clip:
    """The library clip ``name`` (for the 1.75 m adult).

    Raises
    ------
    ClipError
        No clip of that name (the message lists those there are).
    """
    path = library_folder() / f"{name}.bvh"
    if name not in LOOPS or not path.is_file():
        raise ClipError(f"no clip called {name!r} in the library (clips: "
                        f"{', '.join(library_names())}; or give a .bvh file's path)")
    return load_clip(path, name, loop=LOOPS[name])


def find_clip(clip: str | PathLike | Clip, joint_map: Mapping[str, str] | None = None,
              floor: float | None = None) -> Clip:
    """``clip`` itself (a :class:`Clip`), a clip from a BVH file (a path, or a name ending
    in ``.bvh``; ``joint_map`` and ``floor`` as :func:`~twig.hybrid.clip.load_clip`), or a
    library clip by name.

    Raises
    ------
    ClipError
        A ``joint_map`` or ``floor`` given with a clip that is not read from a file, or no
        library clip of that name.
    """
    if not isinstance(clip, Clip) and (isinstance(clip, PathLike)
                                       or str(clip).lower().endswith(".bvh")):
        return load_clip(clip, joint_map=joint_map, floor=floor)
    if joint_map is not None or floor is not None:
        what = "a Clip" if isinstance(clip, Clip) else f"library clip {clip!r}"
        raise ClipError(f"joint_map and floor apply to BVH files; {what} is already "
                        "retargeted (give a .bvh path)")
    return clip if isinstance(clip, Clip) else library_clip(str(clip))
