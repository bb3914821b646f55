"""Every code block of README.md and docs/*.md runs as written, or is checked in its own way.

Each document's blocks run in order in one empty folder of their own (a block may write a file
a later block reads). What each kind of block must do:

- ``python``: pasted whole into a file in that folder, which a fresh interpreter runs.
- ``bash``: each ``twig`` command runs with a short ``--seconds`` (``twig serve`` on free ports
  until it is up, then Ctrl-C; ``twig batch`` with ``--list``: expanding the spec is what a
  block can check in seconds); commands that install, run this test suite, benchmark or need a
  Ray cluster are parsed only: :data:`PARSED_ONLY` names them and why.
- ``toml``: parses; a scene loads, a batch spec expands, a gesture reads.
- script lines (``name: method args``): run to completion in the scene they are for.
- a telnet transcript (``$ telnet``): its requests are sent to ``twig serve``'s server on the
  scene they are for, and each reply must be of the kind shown (ok, done, value, error).
- anything else (a folder tree, a diagram, JavaScript for three.js) is text, not run.

A comment line just before a block, ``<!-- docs-test: ... -->`` (invisible on the page), says
what the block needs: ``file NAME`` (its text is that file, for later blocks), ``scene NAME``
(the scene its script lines or transcript are for), ``server SCENE`` (a Python client: the
scene is served on a free port, which replaces the block's ``port=7777``), ``fragment`` (a
piece of a TOML file: it must parse), ``each line`` (script lines listed, not a script: each
runs on its own in a fresh scene), ``text`` (looks like code, is not: a syntax template).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from processes import interrupt, start_twig

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"(?:^[ \t]*<!-- docs-test: (?P<mark>[^>]*?) -->\n)?"
                   r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.M | re.S)
"""A fenced block (in a list item, indented), with the docs-test mark on the line before."""
SCRIPT_LINE = re.compile(r"^\s*(#\d+\s+)?-?\s*[A-Za-z_][\w-]*:\s")
RUN_SECONDS = "0.5"
"""The ``--seconds`` a documented ``twig run`` gets (the scene's own is a minute or more)."""

PARSED_ONLY = {
    ("python", "-m", "pip"): "installs twig (.ci/run runs it)",
    ("python", "-m", "pytest"): "runs this test suite (.ci/run runs it)",
    ("bash", "scripts/test"): "sets up and runs this test suite (.ci/run runs it)",
    ("python", "benchmarks/run.py"): "the benchmark: minutes (tests/bench test its parts)",
    ("twig", "bench"): "the benchmark: minutes (tests/bench test its parts)",
    ("--ray",): "needs a Ray cluster, or starts one (tests/batch run jobs on local Ray)",
}
"""Commands of the documents the test parses but does not run, and why."""


@dataclass
class Block:
    document: Path
    line: int
    lang: str
    mark: str
    body: str

    @property
    def id(self) -> str:
        return f"{self.document.name}:{self.line}"

    def says(self, verb: str) -> str | None:
        """The argument of directive ``verb`` in the block's mark ("file x; scene y")."""
        for directive in self.mark.split(";"):
            word, _, rest = directive.strip().partition(" ")
            if word == verb:
                return rest.strip()
        return None


def blocks_of(document: Path) -> list[Block]:
    text = document.read_text(encoding="utf-8")
    return [Block(document, text.count("\n", 0, m.start("body")), m.group("lang"),
                  (m.group("mark") or "").strip(), textwrap.dedent(m.group("body")))
            for m in FENCE.finditer(text)]


ALL = [b for d in DOCUMENTS for b in blocks_of(d)]


def kind_of(block: Block) -> str:
    if block.says("text") is not None:
        return "text"
    if block.lang in ("python", "bash", "toml"):
        return block.lang
    lines = [ln for ln in block.body.splitlines() if ln.strip() and not ln.lstrip()
             .startswith("# ")]
    if lines and lines[0].startswith("$ telnet"):
        return "transcript"
    if lines and all(SCRIPT_LINE.match(ln) for ln in lines):
        return "script"
    return "text"


PARALLEL = 2
"""Python blocks run this many at a time, beside the other blocks' tests."""


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    """One working folder per document, shared by its blocks, with every file the document
    defines already written."""
    made = {}
    for document in DOCUMENTS:
        made[document.name] = tmp_path_factory.mktemp(document.stem)
        for b in blocks_of(document):
            if b.says("file"):
                (made[document.name] / b.says("file")).write_text(b.body, encoding="utf-8")
    return made


@pytest.fixture(scope="module")
def python_runs(folders, request):
    """Every Python block this test run selected, started now, :data:`PARALLEL` at a time:
    block id -> future of its error text (None if it ran)."""
    from concurrent.futures import ThreadPoolExecutor

    selected = {item.callspec.params["block"].id for item in request.session.items
                if getattr(item, "callspec", None) and "block" in item.callspec.params}
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        yield {b.id: pool.submit(run_python, b, folders[b.document.name]) for b in ALL
               if kind_of(b) == "python" and b.id in selected}


def test_every_block_is_found_and_every_mark_is_known():
    for document in DOCUMENTS:
        fences = re.findall(r"^\s*```", document.read_text(encoding="utf-8"), re.M)
        assert len(fences) == 2 * len(blocks_of(document)), f"{document.name}: a block the " \
            "test does not see (indented, or not closed)"
    assert len(ALL) > 50
    for block in ALL:
        for directive in block.mark.split(";"):
            verb = directive.strip().split(" ", 1)[0]
            assert verb in ("", "file", "scene", "server", "fragment", "text", "each"), \
                (block.id, block.mark)


@pytest.mark.parametrize("block", ALL, ids=[b.id for b in ALL])
def test_a_documented_block_runs_as_written(block, folders, python_runs, monkeypatch, capsys):
    cwd = folders[block.document.name]
    kind = kind_of(block)
    if kind == "python":
        error = python_runs[block.id].result()
        assert error is None, error
    elif kind == "bash":
        monkeypatch.chdir(cwd)
        for command in commands_of(block.body):
            run_command(block, command, cwd, capsys)
    elif kind == "toml":
        check_toml(block, cwd)
    elif kind == "script":
        run_script_lines(block, cwd, monkeypatch)
    elif kind == "transcript":
        replay_transcript(block)


def run_python(block: Block, cwd: Path) -> str | None:
    """Run a Python block from a file in ``cwd``; its error output if it failed."""
    code = block.body
    served = None
    if block.says("server"):
        served = start_serve(block.says("server"), cwd)
        code = code.replace("port=7777", f"port={served[1]}")
    script = cwd / f"block{block.line}.py"
    script.write_text(code, encoding="utf-8")
    try:
        done = subprocess.run([sys.executable, script.name], cwd=cwd, capture_output=True,
                              text=True, timeout=600)
    finally:
        if served is not None:
            stop_serve(served[0])
    return None if done.returncode == 0 else f"{block.id}:\n{done.stderr[-3000:]}"


def commands_of(text: str) -> list[list[str]]:
    """The commands of a shell block: one a line, ``&&`` splits, ``# ...`` comments dropped."""
    out = []
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            out.append(words[:cut])
            words = words[cut + 1:]
    return out


def parsed_only(command: list[str]) -> str | None:
    for key, why in PARSED_ONLY.items():
        if command[:len(key)] == list(key) or (len(key) == 1 and key[0] in command):
            return why
    return None


def run_command(block: Block, command: list[str], cwd: Path, capsys) -> None:
    """One documented command: ``twig serve`` in a process of its own, other ``twig``
    commands in this one (as ``main(argv)``, in the document's folder)."""
    where = f"{block.id}: {shlex.join(command)}"
    why = parsed_only(command)
    if command[0] == "twig":
        from twig.cli import _parser

        args = _parser().parse_args(command[1:])  # every documented command parses
        if why is not None:
            return
        argv = short(command[1:], args.command)
        if args.command == "serve":
            proc, _ = start_serve_argv(argv, cwd)
            assert stop_serve(proc) == 0, where
            return
        from twig.cli import main

        code = main(argv)
        assert code == 0, f"{where}:\n{capsys.readouterr().err[-3000:]}"
        return
    assert why is not None, f"{where}: not a twig command, and not listed in PARSED_ONLY"
    for word in command[1:2]:  # the script a parsed-only command runs exists
        if "/" in word:
            assert (ROOT / word).is_file(), f"{where}: no file {word}"


def short(argv: list[str], command: str) -> list[str]:
    """``argv`` with what keeps a documented command short: ``--seconds`` for ``run``
    (replaced or appended), free ports for ``serve`` and ``--view``, ``--list`` for batch."""
    argv = list(argv)
    if command == "check" and "--seconds" in argv:
        argv[argv.index("--seconds") + 1] = RUN_SECONDS
    if command == "run":
        if "--seconds" in argv:
            argv[argv.index("--seconds") + 1] = RUN_SECONDS
        else:
            argv += ["--seconds", RUN_SECONDS]
    if command in ("run", "serve") and "--view" in argv:
        if "--view-port" in argv:
            argv[argv.index("--view-port") + 1] = "0"
        else:
            argv += ["--view-port", "0"]
    if command == "serve":
        for option, value in (("--port", "0"), ("--ws-port", "-1")):
            if option in argv:
                argv[argv.index(option) + 1] = value
            else:
                argv += [option, value]
    if command == "batch" and "--list" not in argv:
        argv.append("--list")
    return argv


def start_serve(scene: str, cwd: Path) -> tuple[subprocess.Popen, int]:
    return start_serve_argv(["serve", scene, "--port", "0", "--ws-port", "-1"], cwd)


def start_serve_argv(argv: list[str], cwd: Path) -> tuple[subprocess.Popen, int]:
    """``twig serve`` in a process group of its own (tests/processes.py), up and listening:
    (process, TCP port)."""
    proc = start_twig(*argv, cwd=cwd, text=True, stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE)
    try:
        for line in proc.stdout:
            match = re.search(r"port (\d+)", line)
            if match and "viewer" not in line:
                return proc, int(match.group(1))
        raise AssertionError(f"twig {shlex.join(argv)} did not start: {proc.stderr.read()}")
    except BaseException:
        interrupt(proc)
        raise


def stop_serve(proc: subprocess.Popen) -> int | None:
    """Ctrl-C, as a user stops it (killed, and None, if it does not stop in a minute)."""
    return interrupt(proc)


def check_toml(block: Block, cwd: Path) -> None:
    data = tomllib.loads(block.body)
    if block.says("fragment") is not None:
        return
    path = cwd / (block.says("file") or f"block{block.line}.toml")
    path.write_text(block.body, encoding="utf-8")
    if "jobs" in data:
        from twig.batch import load_spec

        assert load_spec(path).jobs
    elif "key" in data:
        from twig.motor.gestures import load_gesture

        assert len(load_gesture(path).times)
    else:
        from twig.scenes import load_scene

        assert load_scene(path).bodies, block.id


def scene_of(block: Block) -> str:
    scene = block.says("scene")
    assert scene, f"{block.id}: script lines need '<!-- docs-test: scene NAME -->' before it"
    return scene


def run_script_lines(block: Block, cwd: Path, monkeypatch) -> None:
    """As ``twig script FILE --scene SCENE`` runs them, in the document's folder."""
    from twig.script import Interpreter, parse_script
    from twig.script.runner import open_world

    monkeypatch.chdir(cwd)  # files the lines name are the document's
    calls = parse_script(block.body, block.id)
    if block.says("each") is None:
        script = Interpreter(open_world(scene_of(block)), calls)
        assert script.run(max_seconds=60) == "finished", f"{block.id}: {script.reason}"
        return
    for call in calls:  # a list of commands: each on a fresh scene, for 5 s without failing
        script = Interpreter(open_world(scene_of(block)), [call])  # (a looping clip runs on)
        assert script.run(max_seconds=5) != "failed", f"{block.id}: {script.reason}"


def reply_kind(line: str) -> str:
    """``ok``, ``done``, ``value``, ``error`` or ``event`` (a JSON mode reply too)."""
    if line.startswith("{"):
        import json

        message = json.loads(line)
        return message.get("reply", "event" if "event" in message else "?")
    return line.split()[0]


def replay_transcript(block: Block) -> None:
    """Send the transcript's requests to a served world; each reply is of the kind shown."""
    import socket

    from twig.scenes import load_scene
    from twig.server import ServerThread, make_server

    requests, expected = [], []
    for line in block.body.splitlines()[1:]:
        if SCRIPT_LINE.match(line):
            requests.append(line)
            expected.append([])
        elif line.strip():
            expected[-1].append(reply_kind(line))
    world = load_scene(scene_of(block))
    script = getattr(world, "script", None)  # a scene's own script plays first, untouched
    while script is not None and script.status == "running" and world.time < 60:
        world.step()
    with ServerThread(make_server(world)) as served, \
            socket.create_connection(("127.0.0.1", served.port), timeout=30) as sock:
        replies = sock.makefile("r", encoding="utf-8")
        for request, kinds in zip(requests, expected, strict=True):
            sock.sendall(request.encode() + b"\r\n")
            got = []
            while len(got) < len(kinds):
                reply = replies.readline().strip()
                assert reply, f"{block.id}: the server closed the connection after {got}"
                if reply_kind(reply) != "event" or "event" in kinds:
                    got.append(reply)
            assert [reply_kind(r) for r in got] == kinds, \
                f"{block.id}: {request!r} got {got}, expected {kinds}"
