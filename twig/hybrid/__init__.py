"""Hybrid control (Shapiro, Pighin and Faloutsos, *Hybrid Control for Interactive Character
Animation*, the DANCE paper): motion clips played kinematically, dynamic tracking and
protective reflexes, blended hand-overs between them under a supervisor, and a motion graph.

Importing it registers the characters' commands (``play-clip``, ``motion-graph-walk``,
``stop-clip``, ``set-passive``, ``controller``); the viewer's fields are in
:mod:`twig.view.hybrid_layer`.
"""

from twig.hybrid.bvh import Bvh, BvhError, joint_positions, load_bvh, parse_bvh, rest_positions
from twig.hybrid.clip import Clip, ClipError, ClipRecorder, load_clip, loop_cut, save_clip
from twig.hybrid.commands import (
    controller,
    motion_graph_walk,
    play_clip,
    set_passive,
    stop_clip,
    walk_motion_graph,
)
from twig.hybrid.library import find_clip, library_clip, library_names
from twig.hybrid.motion_graph import MotionGraph, build_graph, synthesise
from twig.hybrid.retarget import RetargetError, Retargeting, retarget, retargeting
from twig.hybrid.similarity import similarity
from twig.hybrid.skeletons import CONVENTIONS
from twig.hybrid.supervisor import Supervisor, supervisor

__all__ = ["CONVENTIONS", "Bvh", "BvhError", "Clip", "ClipError", "ClipRecorder",
           "MotionGraph", "RetargetError", "Retargeting", "Supervisor", "build_graph",
           "controller", "find_clip", "joint_positions", "library_clip", "library_names",
           "load_bvh", "load_clip", "loop_cut", "motion_graph_walk", "parse_bvh", "play_clip",
           "rest_positions", "retarget", "retargeting", "save_clip", "set_passive",
           "similarity", "stop_clip", "supervisor", "synthesise", "walk_motion_graph"]
