"""``twig run SCENE --video``: a real MP4, GIF or PNG frames of the scene, rendered headless."""

import re

import numpy as np
import pytest
from conftest import egl_available, missing

import twig
from twig.cli import main
from twig.view.camera import SmoothCamera
from twig.view.render import Renderer, RenderError, look_at
from twig.view.scene import build_layout, place
from twig.view.video import caption_lines, render_video


@pytest.fixture(autouse=True)
def _needs_gl_and_av():
    try:
        import av  # noqa: F401
        import moderngl  # noqa: F401
    except ImportError as e:
        missing(f"{e.name} (pip install -e .)")
    egl_available()


def decode(path):
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(stream)]
        return stream.codec_context.name, frames


def test_video_of_three_seconds_of_a_scene_with_humanoids_is_a_valid_mp4(tmp_path, capsys):
    out = tmp_path / "weight.mp4"
    assert main(["run", "weight", "--seconds", "3", "--video", str(out),
                 "--caption", "victim"]) == 0
    out_text = capsys.readouterr().out
    assert "wrote 90 frames (640x360, 30 fps)" in out_text
    # the tick is timed apart from the rendering: "then 0.3 ms/tick (..); rendering 9 ms/frame"
    assert re.search(r"then \d+\.\d+ ms/tick \(\d+x real time\); rendering \d+\.\d ms/frame",
                     out_text), out_text
    codec, frames = decode(out)
    assert codec == "h264"
    assert len(frames) == 90
    assert all(f.shape == (360, 640, 3) for f in frames)
    first, middle, last = (f.astype(int) for f in (frames[0], frames[45], frames[-1]))
    assert np.abs(middle - first).mean() > 2.0        # the weight fell: the picture changed
    assert np.abs(last - middle).mean() > 0.5
    # The victim is drawn in the first character colour (red): strongly red pixels exist.
    r, g, b = (first[..., k] for k in range(3))
    assert ((r > 150) & (r - g > 70) & (r - b > 70)).sum() > 200


def test_gif_and_png_frames(tmp_path):
    world = twig.World()
    world.add_humanoid("kid", position=(0, 0.5, 0), preset="child")
    world.add_ball("ball", position=(0.5, 2, 0.3))
    gif = tmp_path / "clip.gif"
    stats = render_video(world, gif, 1.0, size=(160, 90), fps=10)
    assert stats.frames == 10 and world.time == pytest.approx(1.0)
    codec, frames = decode(gif)
    assert codec == "gif" and len(frames) == 10 and frames[0].shape == (90, 160, 3)
    folder = tmp_path / "frames"
    render_video(world, f"{folder}/", 0.5, size=(96, 64), fps=10, captions=False)
    from PIL import Image

    pngs = sorted(folder.glob("frame_*.png"))
    assert len(pngs) == 5 and Image.open(pngs[0]).size == (96, 64)


def test_rendered_frame_shows_each_character_in_its_colour_on_a_ground():
    world = twig.World()
    for i in range(3):
        world.lock_nodes(world.add_humanoid(f"h{i}", position=(i - 1.0, 0, 0)).nodes)
    layout = build_layout(world)
    renderer = Renderer(320, 180)
    try:
        camera = SmoothCamera(320 / 180).update(world, 0.1)
        image = renderer.render(layout.look, place(layout.look, world.node_pos), camera)
    finally:
        renderer.release()
    pixels = image.reshape(-1, 3).astype(int)
    for color in layout.body_color:
        near = np.abs(pixels - color.astype(int)).sum(axis=1) < 40
        assert near.sum() > 30, f"colour {color} missing"
    assert image[-1].mean() > 200                    # the ground at the bottom is light


def test_camera_frames_every_moving_body():
    world = twig.World()
    world.add_humanoid("a", position=(-3, 0, 0))
    world.add_humanoid("b", position=(4, 0, -2))
    world.add_ball("ball", position=(0, 3, 1))
    camera = SmoothCamera(16 / 9).update(world, 0.1)
    mvp = look_at(camera, 16 / 9).T.astype(np.float64)
    clip = np.hstack([world.node_pos, np.ones((world.n_nodes, 1))]) @ mvp.T
    ndc = clip[:, :3] / clip[:, 3:]
    assert (np.abs(ndc[:, :2]) < 1.0).all() and (clip[:, 3] > 0).all()
    assert np.abs(ndc[:, :2]).max() > 0.5             # and not from far away


def test_caption_reports_time_and_the_chosen_body():
    world = twig.World()
    kid = world.add_humanoid("kid")
    world.lock_nodes(kid.nodes)
    world.add_ball("ball", position=(0, 2.5, 0))    # falls on the kid's head
    world.step(30)
    assert caption_lines(world, kid) == ["t =  0.50 s", "kid: pain 0.0, touching ball"]


def test_no_gl_context_names_the_packages_to_install(monkeypatch):
    monkeypatch.setenv("GLCONTEXT_LINUX_LIBEGL", "/nonexistent/libEGL.so.1")
    with pytest.raises(RenderError, match="libegl1 libegl-mesa0 libgl1-mesa-dri"):
        Renderer(64, 64)


@pytest.mark.parametrize(("target", "message"), [
    ("clip.avi", "expected a file name ending in .mp4 or .gif"),
    ("missing/clip.mp4", "no folder"),
])
def test_bad_video_targets_are_refused_before_simulating(tmp_path, capsys, target, message):
    assert main(["run", "tetra", "--video", str(tmp_path / target)]) == 2
    assert message in capsys.readouterr().err


def test_bad_video_size_is_refused(capsys):
    assert main(["run", "tetra", "--video", "x.mp4", "--video-size", "big"]) == 2
    assert "expected WIDTHxHEIGHT" in capsys.readouterr().err


def test_rendering_does_not_change_the_simulation(tmp_path):
    from twig.scenes import load_scene

    shown = load_scene("demo")
    render_video(shown, tmp_path / "demo.mp4", 1.0, size=(160, 96), fps=24)
    plain = load_scene("demo")
    plain.run(seconds=1.0)
    assert shown.tick == plain.tick == 60
    assert shown.state_hash() == plain.state_hash()


def test_video_of_three_seconds_of_the_playground(tmp_path, capsys):
    """Issue #8's acceptance line: 3 s of the playground to a valid MP4."""
    out = tmp_path / "playground.mp4"
    assert main(["run", "playground", "--seconds", "3", "--video", str(out),
                 "--caption", "kid"]) == 0
    assert "wrote 90 frames (640x360, 30 fps)" in capsys.readouterr().out
    codec, frames = decode(out)
    assert codec == "h264" and len(frames) == 90
    assert all(f.shape == (360, 640, 3) for f in frames)
    first, last = frames[0].astype(int), frames[-1].astype(int)
    assert np.abs(last - first).mean() > 0.5         # the children run about
