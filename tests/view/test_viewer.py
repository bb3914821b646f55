"""The live viewer, seen the way a person sees it: headless Chromium opens the page served on
localhost while the scene runs in real time."""

import colorsys
import re
import subprocess
import time
import urllib.request

import numpy as np
import pytest
from conftest import missing
from processes import kill, start_twig

import twig
from twig.behavior import add_behaviors
from twig.realtime import RealTime
from twig.view.drawing import linear_rgb
from twig.view.viewer import serve_viewer

WAIT = 120.0
"""Seconds any wait of these tests may take: generous, for a loaded 2-core machine rendering
the page in software (every wait polls for its condition and ends as soon as it holds)."""

BUTTON = "[...document.querySelectorAll('button')].find(b => b.innerText.trim() == '{}')"
LABEL = "[...document.querySelectorAll('label')].find(l => l.innerText.trim() == '{}')"
COMMAND_INPUT = ("(() => { const l = [...document.querySelectorAll('label')]"
                 ".find(l => l.innerText.trim() == 'Command'); let e = l;"
                 " for (let i = 0; i < 4 && e; i++) { e = e.parentElement;"
                 " const x = e && e.querySelector('input'); if (x) return x; } return null; })()")


@pytest.fixture(autouse=True)
def _needs_viser():
    try:
        import viser  # noqa: F401
    except ImportError:
        missing("viser (pip install -e .)")


@pytest.fixture
def playground():
    """Two characters held standing (locked nodes) and a ball dropped near them, running in
    real time with the viewer on a free port."""
    world = twig.World()
    ann = world.add_humanoid("ann", position=(-0.5, 0, 0))
    bob = world.add_humanoid("bob", position=(0.6, 0, 0), preset="child")
    world.lock_nodes(ann.nodes)
    world.lock_nodes(bob.nodes)
    world.add_ball("ball", position=(0.1, 1.5, 0.8), velocity=(0, 2, 0))
    add_behaviors(ann, [])  # autonomous (held in place): the panel shows her mind too
    world.step()
    realtime = RealTime(world).start()
    lines = []

    def handler(line: str) -> str:
        lines.append(line)
        if line == "world: add ball2":
            realtime.submit(lambda: world.add_ball("ball2", position=(0, 2, 1))).result(5)
            return "added ball2"
        return f"unknown command {line!r}"

    viewer = serve_viewer(realtime, command_handler=handler, port=0)
    try:
        yield world, realtime, viewer, lines
    finally:
        viewer.stop()
        realtime.stop()


def page_time(browser) -> float | None:
    match = re.search(r"t = (\d+\.\d+) s", browser.text())
    return float(match.group(1)) if match else None


def hue_pixels(image: np.ndarray, rgb) -> int:
    """Pixels of the same hue as ``rgb`` and clearly coloured (not the grey ground)."""
    hsv = np.array(colorsys.rgb_to_hsv(*(np.asarray(rgb) / 255.0)))
    px = image.reshape(-1, 3).astype(np.float64) / 255.0
    hi, lo = px.max(axis=1), px.min(axis=1)
    sat = np.where(hi > 0, (hi - lo) / np.maximum(hi, 1e-9), 0.0)
    r, g, b = px.T
    span = np.maximum(hi - lo, 1e-9)
    hue = np.where(hi == r, ((g - b) / span) % 6, np.where(hi == g, (b - r) / span + 2,
                                                          (r - g) / span + 4)) / 6.0
    dist = np.abs((hue - hsv[0] + 0.5) % 1.0 - 0.5)
    return int(((dist < 0.035) & (sat > 0.4) & (hi > 0.3)).sum())


def test_page_shows_the_running_scene_and_inspects_a_clicked_character(chromium, playground):
    world, _, viewer, _ = playground
    chromium.open(viewer.url)
    chromium.wait_for(lambda: (page_time(chromium) or 0) > 0.5, WAIT, "the simulation clock")
    t1 = page_time(chromium)
    chromium.wait_for(lambda: page_time(chromium) > t1 + 0.5, WAIT,  # running, not just drawn
                      "the clock to move on")
    chromium.wait_for(lambda: hue_pixels(chromium.screenshot(), (226, 74, 51)) > 300, WAIT,
                      "ann's red in the picture")
    image = chromium.screenshot()
    assert image[:, :900].std() > 10                   # not a blank canvas
    layout = viewer._drawing.layout
    for name in ("ann", "bob"):
        color = layout.body_color[layout.body_name.index(name)]
        assert hue_pixels(image, color) > 300, f"{name}'s colour {color} not in the picture"
    assert "pain" not in chromium.text()
    viewer.set_camera("follow ann")                   # ann's centre comes to the middle
    target = world.body("ann").centroid
    (client,) = viewer.server.get_clients().values()
    chromium.wait_for(lambda: np.allclose(client.camera.look_at, target, atol=0.02), WAIT,
                      "the camera to settle on ann")
    chromium.click(640, 360)
    chromium.wait_for(lambda: "touching" in chromium.text(), WAIT, "ann's inspection panel")
    text = chromium.text()
    assert "type: humanoid" in text and "pain: 0 J" in text and "asleep:" in text
    assert "pain (J)" in text and "speed (m/s)" in text      # the history plots
    assert "behavior: freeze" in text and "focus: ball" in text and "anxiety:" in text
    assert "activation" in text                               # every behaviour's, plotted
    assert viewer.inspected == "ann"


def test_pause_step_and_command_box(chromium, playground):
    world, realtime, viewer, lines = playground
    chromium.open(viewer.url)
    chromium.wait_for(lambda: (page_time(chromium) or 0) > 0.2 and "Send" in chromium.text(),
                      WAIT, "the simulation clock and the panel")
    chromium.click(*chromium.wait_for_element(BUTTON.format("Pause")))
    chromium.wait_for(lambda: "paused" in chromium.text(), WAIT, "the paused state")
    tick = realtime.submit(lambda: world.tick).result(WAIT)
    chromium.click(*chromium.wait_for_element(BUTTON.format("Step one tick")))
    chromium.wait_for(lambda: f"tick {tick + 1} " in chromium.text(), WAIT, "one more tick")
    time.sleep(0.5)                                    # and no more: it stays paused
    assert realtime.submit(lambda: world.tick).result(WAIT) == tick + 1
    chromium.click(*chromium.wait_for_element(LABEL.format("Collision volumes")))
    chromium.wait_for(lambda: viewer.show_volumes, WAIT, "the collision volumes toggle")
    chromium.wait_for(lambda: all(h.visible for h in viewer._drawing.volumes.handles.values()),
                      WAIT, "the wireframe volumes")
    chromium.click(*chromium.wait_for_element(COMMAND_INPUT))
    chromium.wait_for(lambda: chromium.evaluate(f"document.activeElement === {COMMAND_INPUT}"),
                      WAIT, "the command box to take the focus")
    chromium.call("Input.insertText", text="world: add ball2")
    chromium.wait_for(lambda: chromium.evaluate(f"{COMMAND_INPUT}.value") == "world: add ball2",
                      WAIT, "the typed command")
    chromium.click(*chromium.wait_for_element(BUTTON.format("Send")))
    chromium.wait_for(lambda: "added ball2" in chromium.text(), WAIT, "the command's reply")
    assert lines == ["world: add ball2"]
    assert "ball2" in viewer.panel.inspect.options     # the page now offers the new body


def test_without_a_handler_the_command_box_says_it_needs_twig_serve():
    world = twig.World()
    realtime = RealTime(world)
    viewer = serve_viewer(realtime, port=0)
    try:
        assert viewer.panel.command.disabled
        assert "twig serve --view" in viewer.panel.reply.content
    finally:
        viewer.stop()


def test_viewer_colours_are_the_palette_in_linear_light():
    np.testing.assert_array_equal(linear_rgb((255, 0, 128)), [255, 0, 55])


def test_twig_run_view_prints_the_url_and_serves_the_page():
    proc = start_twig("run", "tetra", "--view", "--view-port", "0", "--seconds", "3",
                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = None
        deadline = time.monotonic() + WAIT
        for line in proc.stdout:
            match = re.search(r"open (http://127\.0\.0\.1:\d+/)", line)
            if match:
                url = match.group(1)
                break
            assert time.monotonic() < deadline
        assert url is not None
        with urllib.request.urlopen(url, timeout=WAIT) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
        assert proc.wait(WAIT) == 0                    # stops after 3 simulated seconds
    finally:
        kill(proc)
