"""The live browser viewer (viser): ``twig run SCENE --view`` and ``twig serve --view``.

Threads: the :class:`~twig.realtime.RealTime` thread owns the world; after each batch of ticks
it takes a :class:`Snapshot` (node positions and whatever the page shows: meshes, contacts,
overlays, the inspected body's fields), at most ``fps`` times a second. A viewer thread sends
the latest snapshot to the pages as one atomic viser update. Buttons and clicks in the page
run on viser's threads and only set flags or queue work on the loop (``realtime.submit``), so
the world is never touched outside its own thread.
"""

from __future__ import annotations

import contextlib
import io
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from rich.console import Console

from twig.errors import TwigError, UnknownNameError
from twig.physics import Body, PhysicsWorld
from twig.realtime import RealTime
from twig.view.camera import FOLLOW_DISTANCE, Camera, follow_target, overview, view_direction
from twig.view.drawing import SceneDrawing
from twig.view.panel import OVERVIEW, Panel
from twig.view.providers import Segments, inspect, overlay_segments
from twig.view.scene import Layout, Mesh, build_layout, frame_meshes

ASPECT = 16 / 9
"""Aspect ratio the overview preset frames for (a typical browser window)."""
FOLLOW_STEP = 0.01
"""A followed body must move this far (m) before the cameras move with it."""
LABEL_HEIGHT = 0.3
"""The inspected body's name floats this far (m) above its highest node."""


@dataclass(frozen=True)
class Snapshot:
    """What one frame of the page shows, copied on the world's thread."""

    tick: int
    time: float
    paused: bool
    speed: float
    layout: Layout
    pos: np.ndarray
    meshes: list[Mesh]
    contacts: np.ndarray | None
    overlays: dict[str, Segments]
    inspected: str | None
    fields: dict[str, Any] | None
    label_at: np.ndarray | None
    follow_at: np.ndarray | None
    overview: Camera
    errors: list[str]


@dataclass
class FrameStats:
    """Wall-clock cost of the last frames: ``snapshot`` (world thread) and ``update`` (placing
    primitives and queueing the viser messages), seconds each, most recent last."""

    snapshot: list[float] = field(default_factory=list)
    update: list[float] = field(default_factory=list)

    def add(self, kind: str, seconds: float) -> None:
        samples = getattr(self, kind)
        samples.append(seconds)
        del samples[:-300]


class Viewer:
    """A viser server showing the world of ``realtime`` live; see :func:`serve_viewer`."""

    def __init__(self, realtime: RealTime, command_handler: Callable[[str], str] | None = None,
                 host: str = "127.0.0.1", port: int = 8080, fps: float = 30.0) -> None:
        import viser

        self.realtime = realtime
        self.world: PhysicsWorld = realtime.world
        self.fps = fps
        with contextlib.redirect_stdout(io.StringIO()):  # viser's banner: we print our URL
            self.server = viser.ViserServer(host=host, port=port, label="twig", verbose=False)
        self.url = f"http://{host}:{self.server.get_port()}/"
        self.stats = FrameStats()
        self.inspected: str | None = None
        self.followed: str | None = None
        self.show_volumes = False
        self.show_contacts = False
        self.shown_overlays: set[str] = set()
        self._layout: Layout | None = None
        self._latest: Snapshot | None = None
        self._last_snapshot = 0.0
        self._fresh = threading.Event()
        self._stop = threading.Event()
        self._drawing = SceneDrawing(self.server, self._picked)
        self.panel = Panel(self, command_handler)
        self.server.on_client_connect(self._client_connected)
        self._initial_camera_set = False
        self._camera_wanted = OVERVIEW
        self._camera_placed: str | None = OVERVIEW  # None: apply the wanted preset again
        self._followed_at = np.zeros(3)
        realtime.on_frame.append(self._on_frame)
        self.request_frame()
        self._thread = threading.Thread(target=self._loop, name="twig-viewer", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ world thread
    def _snapshot(self) -> Snapshot:
        t0 = time.perf_counter()
        world = self.world
        if self._layout is None or self._layout.version != world.topology_version:
            self._layout = build_layout(world)
        layout = self._layout
        inspected, fields, label_at = self.inspected, None, None
        if inspected is not None:
            body = self._body(inspected)
            if body is None:
                inspected = None
            else:
                fields = inspect(world, body)
                top = world.node_pos[body.nodes].max(axis=0)
                label_at = np.array([body.centroid[0], top[1] + LABEL_HEIGHT, body.centroid[2]])
        follow = self._body(self.followed) if self.followed else None
        overlays, errors = {}, []
        for label in list(self.shown_overlays):
            overlays[label], error = overlay_segments(world, label)
            if error:
                errors.append(error)
        snap = Snapshot(
            tick=world.tick, time=world.time, paused=self.realtime.paused,
            speed=self.realtime.speed, layout=layout, pos=world.node_pos.copy(),
            meshes=frame_meshes(world, layout),
            contacts=world.contacts.point.copy() if self.show_contacts else None,
            overlays=overlays, inspected=inspected, fields=fields, label_at=label_at,
            follow_at=None if follow is None else follow_target(follow),
            overview=overview(world, ASPECT), errors=errors)
        self.stats.add("snapshot", time.perf_counter() - t0)
        return snap

    def _body(self, name: str) -> Body | None:
        try:
            return self.world.body(name)
        except UnknownNameError:
            return None

    def _on_frame(self, world: PhysicsWorld) -> None:
        now = time.perf_counter()
        if now - self._last_snapshot >= 1.0 / self.fps:
            self._last_snapshot = now
            self._store(self._snapshot())

    def _store(self, snap: Snapshot) -> None:
        self._latest = snap
        self._fresh.set()

    def request_frame(self) -> None:
        """Take a snapshot on the loop's thread soon, even while paused (after a change in
        what the page shows)."""
        self.realtime.submit(lambda: self._store(self._snapshot()))

    # ------------------------------------------------------------------ page side
    def _loop(self) -> None:
        shown = None
        while not self._stop.is_set():
            self._fresh.wait(0.5)
            self._fresh.clear()
            snap = self._latest
            if snap is None or snap is shown:
                continue
            shown = snap
            t0 = time.perf_counter()
            try:
                self.draw(snap)
            except RuntimeError:  # a handle removed while the server stops
                if self._stop.is_set():
                    return
                raise
            self.stats.add("update", time.perf_counter() - t0)
            time.sleep(max(0.0, 1.0 / self.fps - (time.perf_counter() - t0)))

    def draw(self, snap: Snapshot) -> None:
        """Send ``snap`` to every page in one atomic update."""
        d = self._drawing
        with self.server.atomic():
            if d.layout is not snap.layout:
                d.set_layout(snap.layout, self.show_volumes)
                self.panel.set_bodies(snap.layout.body_name, snap.layout.characters)
            d.look.update(snap.pos)
            d.volumes.visible = self.show_volumes
            if self.show_volumes:
                d.volumes.update(snap.pos)
            d.update_meshes(snap.meshes)
            d.update_contacts(snap.contacts)
            d.update_overlays(snap.overlays)
            d.update_label(snap.inspected, snap.label_at)
            self.panel.update(snap)
        self._move_cameras(snap)

    def _move_cameras(self, snap: Snapshot) -> None:
        """Apply a newly chosen preset, or keep following (the user may still orbit)."""
        if not self._initial_camera_set:  # pages that connect later start from the overview
            initial = self.server.initial_camera
            initial.position, initial.look_at = snap.overview.eye, snap.overview.target
            initial.fov = snap.overview.fov_y
            self._initial_camera_set = True
        wanted = self._camera_wanted
        clients = self.server.get_clients().values()
        if wanted != self._camera_placed:
            if wanted == OVERVIEW:
                eye, target = snap.overview.eye, snap.overview.target
            elif snap.follow_at is not None:
                target = snap.follow_at
                eye = target + view_direction() * FOLLOW_DISTANCE
            else:
                return  # the followed body's first snapshot is on its way
            for client in clients:
                client.camera.fov = snap.overview.fov_y
                client.camera.position, client.camera.look_at = eye, target
            self._camera_placed = wanted
            self._followed_at = target
        elif snap.follow_at is not None and (
                np.linalg.norm(snap.follow_at - self._followed_at) > FOLLOW_STEP):
            # Move with the body, keeping each page's own view offset (orbiting still works);
            # a still body sends nothing, so a camera transition under way is not disturbed.
            for client in clients:
                offset = client.camera.position - client.camera.look_at
                client.camera.position = snap.follow_at + offset
                client.camera.look_at = snap.follow_at
            self._followed_at = snap.follow_at

    # ------------------------------------------------------------------ controls
    def _picked(self, body_id: int) -> None:
        layout = self._drawing.layout
        if layout is not None and body_id in layout.body_id:
            self.select(layout.name_of(body_id))

    def select(self, name: str | None) -> None:
        """Inspect body ``name`` (None: nobody)."""
        if name != self.inspected:
            self.inspected = name
            self.panel.show_selection(name)
        self.request_frame()

    def set_camera(self, preset: str) -> None:
        """Apply a camera preset to every page: ``"overview"`` or ``"follow NAME"``."""
        if preset == OVERVIEW:
            self.followed = None
        else:
            name = preset.removeprefix("follow ").strip()
            layout = self._drawing.layout or (self._latest.layout if self._latest else None)
            if layout is not None:
                known = layout.body_name
            else:  # no frame drawn yet (a loaded machine): ask the world
                world = self.realtime.world
                known = self.realtime.submit(lambda: [b.name for b in world.bodies]).result(60)
            if name not in known:
                raise TwigError(f"cannot follow {name!r}: no such body")
            self.followed = name
        self._camera_wanted = preset
        self._camera_placed = None
        self.panel.show_camera(preset)
        self.request_frame()

    def _client_connected(self, client) -> None:
        """A new page gets the followed body's view (the overview is the initial camera)."""
        if self.followed:
            self._camera_placed = None
            self.request_frame()

    def show(self, *, volumes: bool | None = None, contacts: bool | None = None,
             overlay: tuple[str, bool] | None = None) -> None:
        """Toggle the collision volumes, the contact points or one overlay."""
        if volumes is not None:
            self.show_volumes = volumes
        if contacts is not None:
            self.show_contacts = contacts
        if overlay is not None:
            label, on = overlay
            (self.shown_overlays.add if on else self.shown_overlays.discard)(label)
        self.panel.show_toggles(self.show_volumes, self.show_contacts, self.shown_overlays)
        self.request_frame()

    def stop(self) -> None:
        """Stop drawing and close the server (the RealTime loop keeps running)."""
        if self._on_frame in self.realtime.on_frame:
            self.realtime.on_frame.remove(self._on_frame)
        self._stop.set()
        self._fresh.set()
        self._thread.join(5.0)
        self.server.stop()


def serve_viewer(realtime: RealTime, command_handler: Callable[[str], str] | None = None,
                 host: str = "127.0.0.1", port: int = 8080) -> Viewer:
    """Show ``realtime``'s world live in the browser at ``viewer.url``.

    Parameters
    ----------
    realtime
        The running (or not yet started) loop that owns the world.
    command_handler
        Called with each line typed in the page's command box (on a viser thread); its
        return value is shown as the reply. None: the box says commands need ``twig serve``.
    host, port
        Where to listen; if ``port`` is taken the next free one is used (0: any free port).
    """
    return Viewer(realtime, command_handler, host=host, port=port)


def run_viewer(world: PhysicsWorld, *, seconds: float | None = None, port: int = 8080,
               follow: str | None = None, console: Console | None = None) -> int:
    """``twig run SCENE --view``: run ``world`` in real time and serve the viewer until
    Ctrl-C (or until ``seconds`` of simulated time). Returns the exit status."""
    out = console or Console()
    realtime = RealTime(world).start()
    viewer = serve_viewer(realtime, port=port)
    try:
        if follow:
            viewer.set_camera(f"follow {follow}")
        out.print(f"[bold]twig viewer[/]: open {viewer.url} in a browser (Ctrl-C to stop)")
        while seconds is None or world.time < seconds:
            time.sleep(0.05)
    except KeyboardInterrupt:
        out.print("stopped")
    finally:
        viewer.stop()
        realtime.stop()
    return 0
