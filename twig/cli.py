"""The ``twig`` command: ``twig scenes``, ``twig run SCENE``, ``twig bench``."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from rich.console import Console

from twig.errors import TwigError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="twig", description="Procedural stick-figure animation with Verlet physics.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("scenes", help="list the built-in scenes")
    run = sub.add_parser("run", help="simulate a scene headless and print a summary")
    run.add_argument("scene", help="built-in scene name (see 'twig scenes') or a .toml path")
    run.add_argument("--seconds", type=float, default=None,
                     help="simulated seconds (default: the scene's own)")
    run.add_argument("--seed", type=int, default=None, help="override the scene's seed")
    run.add_argument("--npz", metavar="FILE", help="record every tick to a NumPy .npz file")
    run.add_argument("--video", metavar="FILE",
                     help="render a video: FILE.mp4 (H.264), FILE.gif, or frames/ (PNG files)")
    run.add_argument("--video-size", default="640x360", metavar="WxH",
                     help="video size in pixels (default 640x360)")
    run.add_argument("--fps", type=int, default=30, help="video frames per second (default 30)")
    run.add_argument("--caption", metavar="BODY",
                     help="caption the video with BODY's state (the time is always shown)")
    run.add_argument("--follow", metavar="BODY", help="keep the camera on BODY (video, viewer)")
    run.add_argument("--view", action="store_true",
                     help="watch it live in the browser, in real time, until Ctrl-C "
                          "(or --seconds if given)")
    run.add_argument("--view-port", type=int, default=8080, metavar="PORT",
                     help="port of the live viewer (default 8080, the next free one if taken)")
    bench = sub.add_parser("bench", help="benchmark against pypbd and Warp-CPU (ratios)")
    bench.add_argument("--quick", action="store_true", help="small workloads, few ticks")
    return parser


def console() -> Console:
    """A rich console that does not wrap tables at 80 columns when output is redirected."""
    out = Console()
    return out if out.is_terminal else Console(width=140)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "scenes":
            return _scenes()
        if args.command == "run":
            return _run(args)
        from twig.bench.suite import run_suite

        return run_suite(quick=args.quick, console=console())
    except TwigError as e:
        print(f"twig: error: {e}", file=sys.stderr)
        return 2


def _scenes() -> int:
    from rich.table import Table

    from twig.scenes import list_scenes

    table = Table("scene", "seconds", "description", box=None)
    for info in list_scenes():
        table.add_row(info.name, f"{info.seconds:g}", info.description)
    console().print(table)
    return 0


def _run(args: argparse.Namespace) -> int:
    from twig.physics.kernel_cache import kernels_cached
    from twig.scenes import load_scene
    from twig.summary import summary_table

    out = console()
    world = load_scene(args.scene, seed=args.seed)
    seconds = world.scene.seconds if args.seconds is None else args.seconds
    recording = world.record() if args.npz else None
    t0 = time.perf_counter()
    if kernels_cached():
        world.step()  # the first tick also loads the kernels: timed apart
    else:
        with out.status("compiling the physics kernels (first run only, about a minute)..."):
            world.step()
    t1 = time.perf_counter()
    if args.view:
        from twig.view.viewer import run_viewer

        return run_viewer(world, seconds=args.seconds, port=args.view_port, follow=args.follow,
                          console=out)
    if args.video:
        from twig.view.video import parse_size, render_video

        stats = render_video(world, args.video, seconds - world.dt,
                             size=parse_size(args.video_size), fps=args.fps,
                             caption_body=args.caption, follow=args.follow,
                             console=out if out.is_terminal else None)
        out.print(f"wrote {stats.frames} frames ({args.video_size}, {args.fps} fps) to "
                  f"{args.video} in {stats.seconds:.1f} s ({stats.speed:.1f}x real time)")
    elif seconds > 1.5 * world.dt:
        world.run(seconds - world.dt, progress=out.is_terminal and seconds >= 30)
    wall = time.perf_counter() - t1
    ticks = max(world.tick - 1, 1)
    out.print(f"[bold]{world.scene.name}[/]: {world.time:g} s simulated in {world.tick} ticks; "
              f"kernels ready in {t1 - t0:.2f} s, then {1000 * wall / ticks:.3f} ms/tick "
              f"({ticks * world.dt / wall if wall > 0 else float('inf'):.0f}x real time); "
              f"{world.n_nodes} nodes, {world.n_links} links, seed {world.seed}")
    out.print(summary_table(world))
    if recording is not None:
        recording.save(args.npz)
        out.print(f"wrote {len(recording)} frames to {args.npz}")
    return 0
