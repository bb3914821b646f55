"""One state: a whole-world snapshot gives every built-in scene the same future, bit for bit,
restored in memory (twice from one snapshot) or saved to a file and loaded in a new process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from twig.hybrid.blend import OffsetBlend
from twig.hybrid.supervisor import system as hybrid_system
from twig.scenes.loader import list_scenes, load_scene

SCENES = [s.name for s in list_scenes()]
AHEAD = 90
"""Ticks of future compared after each restore."""


def _future(world, ticks: int = AHEAD) -> list[str]:
    out = []
    for _ in range(ticks):
        world.step()
        out.append(world.state_hash())
    return out


def _restore_ticks(name: str) -> list[int]:
    """Ticks to snapshot at: early, mid-script (the scripted scenes are busy from 1 s to 7 s)
    and, in the hug scene, mid-hug."""
    return {"hug": [200, 330, 500], "playground": [120, 600]}.get(name, [60, 300])


@pytest.mark.parametrize("name", SCENES)
def test_restore_gives_the_same_future(name):
    world = load_scene(name)
    reference = load_scene(name)
    for tick in _restore_ticks(name):
        world.step(tick - world.tick)
        reference.step(tick - reference.tick)
        snap = world.snapshot()
        expected = _future(reference)
        assert _future(world) == expected, f"{name}: the future after the snapshot changed"
        for attempt in range(2):
            world.restore(snap)
            assert world.tick == tick
            assert _future(world) == expected, f"{name}: restore #{attempt + 1} at {tick}"
        world.restore(snap)


def test_restore_mid_blend():
    """The hybrid scene's walk blending back in after the ball's hit (an OffsetBlend)."""
    world = load_scene("hybrid")
    sup = None
    while world.time < 6.0:
        world.step()
        sup = next(iter(hybrid_system(world).supervisors.values()), None)
        if sup is not None and isinstance(getattr(sup.active, "offset", None), OffsetBlend):
            break
    assert sup is not None and isinstance(sup.active.offset, OffsetBlend), "no blend happened"
    snap = world.snapshot()
    expected = _future(world)
    world.restore(snap)
    assert _future(world) == expected


def test_actions_keep_their_identity():
    """A restore gives the user's Action handle its state of the snapshot's tick back."""
    world = load_scene("walk")
    world.step(30)
    walker = world.body("walker")
    action = walker.walk_to((3.0, 0.0, 0.0))
    snap = world.snapshot()
    world.step(600)
    assert action.done
    world.restore(snap)
    assert not action.done and action in walker.actions


_CHILD = """
import sys
from twig.world import World
for path in sys.argv[1:]:
    world = World.load(path)
    world.step({ticks})
    print(world.tick, world.state_hash())
"""


def test_save_and_load_in_a_new_process(tmp_path):
    """Every scene saved at its last restore tick, loaded in one new process: the same
    future as the saving process's."""
    paths, expected = [], []
    for name in SCENES:
        world = load_scene(name)
        world.step(_restore_ticks(name)[-1])
        paths.append(tmp_path / f"{name}.twigworld")
        world.save(paths[-1])
        world.step(AHEAD)
        expected.append(f"{world.tick} {world.state_hash()}")
    out = subprocess.run([sys.executable, "-c", _CHILD.format(ticks=AHEAD), *map(str, paths)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    for name, got, want in zip(SCENES, out, expected, strict=True):
        assert got == want, f"{name}: loaded in a new process, another future"


def test_load_of_another_file_is_one_clear_error(tmp_path):
    from twig.errors import TwigError
    from twig.world import World

    path = tmp_path / "scene.toml"
    path.write_text("[scene]\n")
    with pytest.raises(TwigError, match="not a saved twig world"):
        World.load(path)
