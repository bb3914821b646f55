"""The ``twig`` command: ``twig scenes``, ``twig run SCENE``, ``twig bench``."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from twig import cli_args as arg
from twig.errors import TwigError


def _parser() -> argparse.ArgumentParser:
    from twig import __version__

    parser = arg.Parser(
        prog="twig", description="Procedural stick-figure animation with Verlet physics.")
    parser.add_argument("--version", action="version", version=f"twig {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("scenes", help="list the built-in scenes")
    run = sub.add_parser("run", help="simulate a scene headless and print a summary")
    run.add_argument("scene", help="built-in scene name (see 'twig scenes') or a .toml path")
    run.add_argument("--seconds", type=arg.seconds, default=None,
                     help="simulated seconds (default: the scene's own)")
    run.add_argument("--seed", type=arg.seed, default=None,
                     help="override the scene's seed (default: the scene's own)")
    run.add_argument("--quiet", "-q", action="store_true",
                     help="print the table of bodies only (no timeline of what happened)")
    run.add_argument("--npz", metavar="FILE", help="record every tick to a NumPy .npz file")
    run.add_argument("--trace", metavar="FILE.jsonl",
                     help="write every event (behaviour, focus, contact, pain, action, grab, "
                          "release, hug) as JSON Lines")
    run.add_argument("--bvh", metavar="FILE",
                     help="write each humanoid's motion to a BVH file (several humanoids: "
                          "FILE_<name>.bvh each, unless --bvh-character)")
    run.add_argument("--bvh-character", metavar="NAME", help="only this humanoid to --bvh")
    run.add_argument("--bvh-fps", metavar="FPS", type=arg.positive,
                     help="BVH frame rate (default: every tick, 60)")
    bvh_form = run.add_mutually_exclusive_group()
    bvh_form.add_argument("--bvh-stretch", action="store_true",
                          help="BVH with position channels on every joint, carrying the links' "
                               "stretch (exact in bvhio and Blender; three.js adds them to the "
                               "offsets)")
    bvh_form.add_argument("--bvh-rigid", action="store_true",
                          help="BVH with a rigid skeleton, position channels on the root only "
                               "(the default)")
    run.add_argument("--gltf", metavar="FILE.glb",
                     help="write the whole scene, animated, to a glTF 2.0 file (.glb or .gltf)")
    run.add_argument("--usd", metavar="FILE.usda",
                     help="write the humanoids, animated, to a USD file (UsdSkel; needs "
                          "usd-core)")
    run.add_argument("--video", metavar="FILE",
                     help="render a video: FILE.mp4 (H.264), FILE.gif, or frames/ (PNG files)")
    run.add_argument("--video-size", default="640x360", metavar="WxH",
                     help="video size in pixels (default 640x360)")
    run.add_argument("--fps", type=arg.frames_per_second, default=30,
                     help="video frames per second, 1..120 (default 30)")
    run.add_argument("--caption", metavar="BODY",
                     help="caption the video with BODY's state (the time is always shown)")
    run.add_argument("--follow", metavar="BODY", help="keep the camera on BODY (video, viewer)")
    run.add_argument("--view", action="store_true",
                     help="watch it live in the browser, in real time, until Ctrl-C "
                          "(or --seconds if given)")
    run.add_argument("--view-port", type=arg.port, default=8080, metavar="PORT",
                     help="port of the live viewer (default 8080, the next free one if taken)")
    bench = sub.add_parser("bench", help="benchmark against pypbd and Warp-CPU (ratios)")
    bench.add_argument("--quick", action="store_true",
                       help="small workloads, few ticks, no cold-start timing (under a minute)")
    _script_parsers(sub)
    from twig.batch.check import add_check_parser
    from twig.batch.command import add_batch_parser

    add_batch_parser(sub)
    add_check_parser(sub)
    _mcp_parser(sub)
    return parser


def _mcp_parser(sub: argparse._SubParsersAction) -> None:
    """``twig mcp`` (docs/agents.md)."""
    mcp = sub.add_parser("mcp", help="serve a world to AI agents over the Model Context "
                                     "Protocol (stdio, or --http)")
    mcp.add_argument("scene", nargs="?", help="built-in scene or .toml path (default: empty)")
    mcp.add_argument("--seed", type=int, default=None, help="override the scene's seed")
    mcp.add_argument("--stepped", action="store_true",
                     help="the world stands still until the agent calls world_step "
                          "(default: it runs in real time)")
    mcp.add_argument("--speed", type=float, default=1.0, help="times real time")
    mcp.add_argument("--max-wait", type=float, default=300.0, metavar="S",
                     help="longest a tool call waits for its action, wall-clock s (then it "
                          "returns 'running')")
    mcp.add_argument("--http", action="store_true",
                     help="streamable HTTP on --host:--port (path /mcp) instead of stdio")
    mcp.add_argument("--host", default="127.0.0.1", help="address to listen on (--http)")
    mcp.add_argument("--port", type=int, default=8765, help="HTTP port (--http)")
    mcp.add_argument("--token", help="clients must send 'Authorization: Bearer T' (needed "
                                     "off localhost)")


def _mcp(args: argparse.Namespace) -> int:
    """Run ``twig mcp``: progress and errors to stderr, stdout is the protocol's."""
    from twig.mcp import mcp_main

    _compile_first(Console(stderr=True))
    return mcp_main(args.scene, seed=args.seed, stepped=args.stepped, speed=args.speed,
                    http=args.http, host=args.host, port=args.port, token=args.token,
                    max_wait=args.max_wait)


def _script_parsers(sub: argparse._SubParsersAction) -> None:
    """``twig script``, ``twig commands``, ``twig serve``, ``twig replay`` (docs/script.md,
    docs/protocol.md)."""
    script = sub.add_parser("script", help="run a .twig script to completion")
    script.add_argument("file", help="the script (.twig)")
    script.add_argument("--scene", help="built-in scene or .toml path (default: empty world)")
    script.add_argument("--seed", type=arg.seed, default=None,
                        help="override the scene's seed (default: the scene's own)")
    script.add_argument("--seconds", type=arg.seconds, default=600.0,
                        help="give up after this many simulated seconds (default 600)")
    script.add_argument("--npz", metavar="FILE", help="record every tick to a NumPy .npz file")
    script.add_argument("--bvh", metavar="FILE", help="write each humanoid's motion to BVH")
    script.add_argument("--bvh-character", metavar="NAME", help="only this humanoid to --bvh")
    script.add_argument("--bvh-fps", metavar="FPS", type=arg.positive,
                        help="BVH frame rate (default: every tick, 60)")
    script_bvh = script.add_mutually_exclusive_group()
    script_bvh.add_argument("--bvh-stretch", action="store_true",
                            help="BVH with position channels on every joint (the links' stretch)")
    script_bvh.add_argument("--bvh-rigid", action="store_true",
                            help="BVH with a rigid skeleton (the default)")
    script.add_argument("--gltf", metavar="FILE.glb", help="write the scene, animated, to glTF")
    script.add_argument("--usd", metavar="FILE.usda", help="write the humanoids to USD (UsdSkel)")
    script.add_argument("--trace", metavar="FILE.jsonl", help="write every event as JSON Lines")
    commands = sub.add_parser("commands", help="list the commands scripts and clients can call")
    commands.add_argument("--json", action="store_true",
                          help="JSON Schema of every command, as tools for planners and agents")
    serve = sub.add_parser("serve", help="run a world in real time for remote clients")
    serve.add_argument("scene", nargs="?", help="built-in scene or .toml path (default: empty)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=arg.port, default=7777,
                       help="TCP port of the line protocol (0: any free port)")
    serve.add_argument("--ws-port", type=arg.port_or_none, default=7778,
                       help="WebSocket port (0: any free port, -1: none)")
    serve.add_argument("--token", help="clients must send 'token T' first (needed off localhost)")
    serve.add_argument("--allow-origin", action="append", default=[], metavar="URL",
                       help="also accept WebSocket clients from web pages of this origin "
                            "(repeatable; default: this machine's pages only)")
    serve.add_argument("--record", metavar="FILE", help="log every command for twig replay")
    serve.add_argument("--seed", type=arg.seed, default=None,
                       help="override the scene's seed (default: the scene's own)")
    serve.add_argument("--speed", type=arg.positive, default=1.0, help="times real time")
    serve.add_argument("--paused", action="store_true", help="start paused")
    serve.add_argument("--view", action="store_true",
                       help="also serve the live viewer; its command box talks to the world")
    serve.add_argument("--view-port", type=arg.port, default=8080, metavar="PORT",
                       help="port of the live viewer (default 8080, the next free one if taken)")
    replay = sub.add_parser("replay", help="replay a session recorded by twig serve --record")
    replay.add_argument("file", help="the record (JSON Lines)")


def console() -> Console:
    """A rich console that does not wrap tables at 80 columns when output is redirected."""
    out = Console(emoji=False)  # no ':name:' codes in twig's output: their table not loaded
    return out if out.is_terminal else Console(width=140, emoji=False)


def notices() -> Console:
    """Where progress and notices go: stderr, so that stdout holds only the results (a table,
    a timeline) whether or not it is redirected."""
    return Console(stderr=True, soft_wrap=True, emoji=False)  # a notice is one line, however long


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit status (2: a bad argument, one line on stderr,
    before any work)."""
    args = _parser().parse_args(argv)
    try:
        _check_arguments(args)
        compiled = None
        if args.command in ("run", "script", "serve", "replay", "batch", "check"):
            compiled = _compile_first(notices(), getattr(args, "scene", None))
        if args.command == "scenes":
            return _scenes()
        if args.command == "run":
            return _run(args, compiled)
        if args.command in ("script", "commands", "serve", "replay"):
            return _script_command(args)
        if args.command == "mcp":
            return _mcp(args)
        if args.command == "batch":
            from twig.batch.command import batch_main

            return batch_main(args, console())
        if args.command == "check":
            from twig.batch.check import check_main

            return check_main(args, console())
        from twig.bench.suite import run_suite

        return run_suite(quick=args.quick, console=console())
    except TwigError as e:
        print(f"twig: error: {e}", file=sys.stderr)
        return 2


def _check_arguments(args: argparse.Namespace) -> None:
    """Output paths, ports and file names that cannot work: one line now, not a traceback
    after the simulation."""
    if args.command in ("run", "script"):
        arg.check_output("--npz", args.npz)
        arg.check_output("--trace", args.trace)
        arg.check_output("--bvh", args.bvh)
        arg.check_output("--gltf", args.gltf)
        arg.check_suffix("--gltf", args.gltf, ".glb", ".gltf")
        arg.check_output("--usd", args.usd)
        arg.check_suffix("--usd", args.usd, ".usda", ".usd")
    if args.command == "run" and args.video:
        arg.check_output("--video", args.video, folder_ok=True)
        if not (args.video.endswith(("/", "\\")) or Path(args.video).is_dir()):
            arg.check_suffix("--video", args.video, ".mp4", ".gif", "/ (a folder of PNG frames)")
        from twig.view.video import parse_size

        parse_size(args.video_size)
    if args.command in ("script", "replay"):
        path = Path(args.file)
        if not path.is_file():
            raise arg.UsageError(f"{args.file}: no such file")
    if args.command == "check":
        arg.check_output("--json", args.json)
    if args.command == "serve":
        arg.check_output("--record", args.record)
        arg.check_port_free("--port", args.host, args.port)
        arg.check_port_free("--ws-port", args.host, args.ws_port if args.ws_port > 0 else None)


def _compile_first(out: Console, scene: str | None = None) -> float | None:
    """On the first run of a kind of world (``scene``'s, with boxes or without; any world
    without a scene), compile its kernels, in parallel processes where there are cores to
    spare (:func:`twig.warmup.compile_kernels`), saying so on ``out`` (stderr): a
    spinner on a terminal, otherwise a line when it starts, one per part compiled and one when
    done. Returns the seconds spent, None if cached."""
    from twig.warmup import compile_kernels, kinds_to_compile

    kinds = kinds_to_compile(scene)
    if kinds is None:
        return None
    jobs = kinds.jobs()

    text = "compiling the physics kernels (first run only, about a minute)"
    done = []
    t0 = time.perf_counter()
    if out.is_terminal:
        with out.status(f"{text}...") as status:
            def progress(job: str) -> None:
                done.append(job)
                status.update(f"{text}: {len(done)} of {len(jobs)} parts done...")

            compile_kernels(on_done=progress, kinds=kinds)
    else:
        out.print(f"twig: {text}...", highlight=False)

        def progress(job: str) -> None:
            done.append(job)
            out.print(f"twig: compiled part {len(done)} of {len(jobs)} ({job}) after "
                      f"{time.perf_counter() - t0:.0f} s", highlight=False)

        compile_kernels(on_done=progress, kinds=kinds)
    seconds = time.perf_counter() - t0
    out.print(f"twig: compiled the physics kernels in {seconds:.1f} s; later runs load them "
              "from the cache", highlight=False)
    return seconds


def _scenes() -> int:
    from rich.table import Table

    from twig.scenes import list_scenes

    table = Table("scene", "seconds", "description", box=None)
    for info in list_scenes():
        table.add_row(info.name, f"{info.seconds:g}", info.description)
    console().print(table)
    return 0


def _run(args: argparse.Namespace, compiled: float | None = None) -> int:
    from twig.scenes import load_scene

    out = console()
    world = load_scene(args.scene, seed=args.seed)
    script = getattr(world, "script", None)  # the scene's script prints as it runs
    if script is not None:
        script.output = lambda line: out.print(line, markup=False, highlight=False,
                                              soft_wrap=True)
    recording = world.record() if args.npz or args.bvh or args.gltf or args.usd else None
    if args.bvh or args.gltf or args.usd:
        _check_exports(args, recording)
    trace = story = None
    if args.trace:
        from twig.export.trace import TraceWriter

        trace = TraceWriter(world, args.trace)
    if not args.quiet:
        from twig.story import Story

        story = Story(world)
    try:
        return _simulate(args, world, recording, script, out, story, compiled)
    finally:
        if story is not None:
            story.close()
        if trace is not None:
            trace.close()
            out.print(f"wrote {trace.count} events to {args.trace}")


def _simulate(args: argparse.Namespace, world, recording, script, out: Console, story,
              compiled: float | None) -> int:
    """Run the loaded scene (viewer, video or headless), print the timeline and the summary,
    write exports."""
    from twig.summary import summary_table

    seconds = world.scene.seconds if args.seconds is None else args.seconds
    t0 = time.perf_counter()
    world.step()  # the first tick also loads the kernels: timed apart
    t1 = time.perf_counter()
    if args.view:
        from twig.view.viewer import run_viewer

        return run_viewer(world, seconds=args.seconds, port=args.view_port, follow=args.follow,
                          console=out)
    rendering = ""
    if args.video:
        from twig.view.video import parse_size, render_video

        err = notices()
        stats = render_video(world, args.video, seconds - world.dt,
                             size=parse_size(args.video_size), fps=args.fps,
                             caption_body=args.caption, follow=args.follow,
                             console=err if err.is_terminal else None)
        step = stats.step_seconds
        rendering = (f"; rendering {1000 * (stats.seconds - step) / stats.frames:.1f} ms/frame, "
                     f"{stats.speed:.1f}x real time in all")
    else:
        t2 = time.perf_counter()
        if seconds > 1.5 * world.dt:
            world.run(seconds - world.dt, progress=notices().is_terminal and seconds >= 30)
        step = time.perf_counter() - t2
    ticks = max(world.tick - 1, 1)
    ready = (f"kernels compiled in {compiled:.1f} s, first tick {t1 - t0:.2f} s"
             if compiled is not None else f"first tick {t1 - t0:.2f} s")
    out.print(f"[bold]{world.scene.name}[/]: {world.time:g} s simulated in {world.tick} ticks; "
              f"{ready}, then {1000 * step / ticks:.3f} ms/tick "
              f"({ticks * world.dt / step if step > 0 else float('inf'):.0f}x real time)"
              f"{rendering}; {world.n_nodes} nodes, {world.n_links} links, seed {world.seed}")
    if args.video:
        out.print(f"wrote {stats.frames} frames ({args.video_size}, {args.fps} fps) to "
                  f"{args.video} in {stats.seconds:.1f} s")
    if script is not None:
        out.print(f"script {script.status}{': ' + script.reason if script.reason else ''}",
                  markup=False, highlight=False)
    if story is not None:
        for line in story.lines():
            out.print(line, markup=False, highlight=False)
    out.print(summary_table(world))
    if args.bvh or args.gltf or args.usd:
        _export(args, recording, out)
    if args.npz:
        recording.save(args.npz)
        out.print(f"wrote {len(recording)} frames to {args.npz}")
    return 0


def _check_exports(args: argparse.Namespace, recording) -> None:
    """Fail before the run, not after it, on an unwritable path or a missing humanoid."""
    from twig.export.files import check_writable, humanoids

    for path in (args.bvh, args.gltf, args.usd):
        if path:
            check_writable(path)
    if args.bvh:
        humanoids(recording, args.bvh_character)
    if args.usd:
        from twig.export.usd import require_usd

        humanoids(recording)
        require_usd()


def _export(args: argparse.Namespace, recording, out: Console) -> None:
    """Write the --bvh, --gltf and --usd files of a finished run."""
    from twig.export import write_bvh, write_gltf

    if args.bvh:
        for path in write_bvh(recording, args.bvh, character=args.bvh_character,
                              fps=args.bvh_fps, stretch=args.bvh_stretch):
            out.print(f"wrote {path}")
    if args.gltf:
        out.print(f"wrote {write_gltf(recording, args.gltf)}")
    if args.usd:
        from twig.export.usd import write_usd

        out.print(f"wrote {write_usd(recording, args.usd)}")


def _script_command(args: argparse.Namespace) -> int:
    if args.command == "script":
        from twig.script.runner import script_main

        out = console()

        def exports(recording, stage):
            if not (args.bvh or args.gltf or args.usd):
                return recording if args.npz else None
            if stage == "check":
                _check_exports(args, recording)
            else:
                _export(args, recording, out)
            return recording

        return script_main(args.file, args.scene, args.seed, args.seconds, args.npz, out,
                           exports, trace=args.trace)
    if args.command == "commands":
        import json

        from twig.script.catalogue import catalogue_text, tool_schemas

        print(json.dumps(tool_schemas(), indent=2) if args.json else catalogue_text())
        return 0
    if args.command == "serve":
        from twig.server import serve_forever

        serve_forever(args.scene, host=args.host, port=args.port,
                      ws_port=None if args.ws_port < 0 else args.ws_port, token=args.token,
                      record=args.record, seed=args.seed, speed=args.speed, paused=args.paused,
                      view_port=args.view_port if args.view else None,
                      origins=tuple(args.allow_origin))
        return 0
    from twig.server import replay

    result = replay(args.file)
    verdict = {True: "matches the recording", False: "DIFFERS from the recording",
               None: "(the record has no end line to compare)"}[result.matches]
    print(f"replayed {result.commands} commands ({result.errors} errors) to tick "
          f"{result.world.tick}: state hash {result.world.state_hash()} {verdict}")
    return 1 if result.matches is False else 0
