"""Recorded motions the export tests share, and the Khronos glTF validator.

Each motion is a world with one humanoid run for 10 s and recorded every tick. Add a motion
(a walk, a hug) to :data:`MOTIONS` and every round-trip and no-flip test runs on it too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import twig
from twig.export import Recording

SECONDS = 10.0
VALIDATOR = Path(__file__).parent / "validator"
THREEJS = Path(__file__).parent / "threejs"


def _rot_y(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rag_doll() -> tuple[twig.World, str]:
    """A limp adult dropped from 1 m: it falls, tumbles and comes to rest."""
    world = twig.World(seed=0)
    world.add_humanoid("doll", position=(0.0, 1.0, 0.0), control=False)
    return world, "doll"


_TORSO = ("pelvis", "l_hip", "r_hip", "neck", "l_shoulder", "r_shoulder")
_LIMBS = (
    # root, end, reach (fraction of the rest distance), swing amplitude, mean, phase
    ("l_shoulder", "l_hand", 0.9, 1.3, 1.3, 0.0),  # forward and up over the head
    ("r_shoulder", "r_hand", 0.995, 0.6, 0.0, np.pi),  # nearly straight
    ("l_hip", "l_foot", 0.93, 0.4, 0.0, np.pi),
    ("r_hip", "r_foot", 0.93, 0.4, 0.0, 0.0),
)


def puppet_turn(period: float = 1.5) -> tuple[twig.World, str]:
    """A child held up like a puppet by set-point moves (``world.move_to`` every tick): the
    hip and shoulder nodes turn it once around (360 degrees in 10 s) with the shoulders
    twisting against the hips, while its hands and feet swing (the left arm up over the head,
    the right nearly straight); elbows, knees, chest and head follow by physics. The swings
    ease in over the first second."""
    world = twig.World(seed=0)
    body = world.add_humanoid("puppet", preset="child", control=False)
    rest = {n: body.node_position(n) for n in body.node_names}

    def drive() -> None:
        t = world.time + world.dt
        ease = min(1.0, t) ** 2 * (3.0 - 2.0 * min(1.0, t))
        turn = _rot_y(2.0 * np.pi * t / SECONDS)
        twist = _rot_y(ease * 0.3 * np.sin(2.0 * np.pi * t / period))
        bob = np.array([0.0, ease * 0.03 * np.sin(4.0 * np.pi * t / period), 0.0])
        for root, end, reach, amplitude, mean, phase in _LIMBS:
            swing = ease * (mean + amplitude * np.sin(2.0 * np.pi * t / period + phase))
            local = rest[root] + (1.0 - ease * (1.0 - reach)) * _rot_x(-swing) @ (
                rest[end] - rest[root])
            if "shoulder" in root:
                local = twist @ local
            world.move_to(body.node(end), turn @ (local + bob), world.dt)
        for node in _TORSO:
            local = twist @ rest[node] if node in ("neck", "l_shoulder", "r_shoulder") \
                else rest[node]
            world.move_to(body.node(node), turn @ (local + bob), world.dt)

    world.stages.add("commands", drive)
    return world, "puppet"


def walk() -> tuple[twig.World, str]:
    """An adult walking a 2 m square under motor control (the 'walk' of issue #9)."""
    world = twig.World(seed=0)
    walker = world.add_humanoid("walker")
    corners = iter([(2.0, 0.0, 0.0), (2.0, 0.0, 2.0), (0.0, 0.0, 2.0), (0.0, 0.0, 0.0)] * 3)
    state = {"act": walker.walk_to(next(corners))}

    def next_corner() -> None:
        if state["act"].done:
            state["act"] = walker.walk_to(next(corners))

    world.stages.add("record", next_corner)
    return world, "walker"


def hug() -> tuple[twig.World, str]:
    """A child runs to its parent and hugs it (the 'hug' of issue #9)."""
    world = twig.World(seed=0)
    parent = world.add_humanoid("parent", (0.0, 0.0, 3.0), facing=np.pi)
    kid = world.add_humanoid("kid", preset="child")
    kid.hug(parent, seconds=5.0)
    return world, "kid"


MOTIONS: dict[str, Callable[[], tuple[twig.World, str]]] = {
    "rag-doll": rag_doll,
    "puppet-turn": puppet_turn,
    "walk": walk,
    "hug": hug,
}
"""Motion name -> builder of (world, name of the humanoid to check)."""


@dataclass(frozen=True)
class Motion:
    name: str
    world: twig.World
    recording: Recording
    character: str


@pytest.fixture(scope="session", params=list(MOTIONS))
def motion(request) -> Motion:
    """Each motion of :data:`MOTIONS`, recorded every tick for 10 s."""
    world, character = MOTIONS[request.param]()
    recording = world.record()
    world.run(SECONDS)
    return Motion(request.param, world, recording, character)


@pytest.fixture(scope="session")
def gltf_validator() -> Callable[[Path], dict]:
    """Run the Khronos glTF validator on a file and return its report (``issues`` has
    ``numErrors``, ``numWarnings`` and ``messages``).

    Installed by ``.ci/run`` (``npm ci --prefix tests/export/validator``). Without it the
    tests that need it fail in CI (``CI`` set) and are skipped elsewhere.
    """
    node = shutil.which("node")
    installed = (VALIDATOR / "node_modules" / "gltf-validator").is_dir()
    if node is None or not installed:
        message = ("the Khronos glTF validator is not installed: run "
                   "'npm ci --prefix tests/export/validator' (needs node)")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)

    def validate(path: Path) -> dict:
        result = subprocess.run([node, str(VALIDATOR / "validate.js"), str(path)],
                                capture_output=True, text=True, check=True, timeout=120)
        return json.loads(result.stdout)

    return validate


@pytest.fixture(scope="session")
def threejs_bvh() -> Callable[[Path], tuple[list[str], np.ndarray]]:
    """Read a BVH file with three.js's BVHLoader under node: (bone names, world positions
    (F, B, 3) in the file's units, every frame).

    Installed by ``.ci/run`` (``npm ci --prefix tests/export/threejs``). Without it the tests
    that need it fail in CI (``CI`` set) and are skipped elsewhere.
    """
    node = shutil.which("node")
    if node is None or not (THREEJS / "node_modules" / "three").is_dir():
        message = ("three.js is not installed: run 'npm ci --prefix tests/export/threejs' "
                   "(needs node)")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)

    def read(path: Path) -> tuple[list[str], np.ndarray]:
        result = subprocess.run([node, str(THREEJS / "read_bvh.js"), str(path)],
                                capture_output=True, text=True, check=True, timeout=120)
        out = json.loads(result.stdout)
        return out["names"], np.array(out["frames"])

    return read
