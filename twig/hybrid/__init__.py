"""Hybrid control (Shapiro, Pighin and Faloutsos, *Hybrid Control for Interactive Character
Animation*, the DANCE paper): motion clips played kinematically, dynamic tracking and
protective reflexes, blended hand-overs between them under a supervisor, and a motion graph.
"""

from twig.hybrid.bvh import Bvh, BvhError, joint_positions, load_bvh, parse_bvh
from twig.hybrid.clip import Clip, ClipError, ClipRecorder, load_clip, loop_cut, save_clip
from twig.hybrid.library import find_clip, library_clip, library_names
from twig.hybrid.retarget import DEFAULT_JOINTS, RetargetError, retarget
from twig.hybrid.similarity import similarity

__all__ = ["DEFAULT_JOINTS", "Bvh", "BvhError", "Clip", "ClipError", "ClipRecorder",
           "RetargetError", "find_clip", "joint_positions", "library_clip", "library_names",
           "load_bvh", "load_clip", "loop_cut", "parse_bvh", "retarget", "save_clip",
           "similarity"]

from twig.hybrid.commands import (  # noqa: E402  (importing registers the commands)
    controller,
    motion_graph_walk,
    play_clip,
    set_passive,
    stop_clip,
)
from twig.hybrid.supervisor import Supervisor, supervisor  # noqa: E402

__all__ += ["Supervisor", "controller", "motion_graph_walk", "play_clip", "set_passive",
            "stop_clip", "supervisor"]
