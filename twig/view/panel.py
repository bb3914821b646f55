"""The viewer page's control panel: simulation, camera, what to show, inspection, commands."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from twig.view.history import History
from twig.view.providers import OVERLAYS

if TYPE_CHECKING:
    from twig.view.viewer import Snapshot, Viewer

NOBODY = "(click a character)"
OVERVIEW = "overview"
UNITS = {"pain": "J", "speed": "m/s"}
"""Units of the built-in inspection fields."""
PLOT_PERIOD = 0.25
"""Seconds between plot refreshes (wall clock)."""
NO_COMMANDS = ("Commands need the script interpreter: start the viewer with "
               "`twig serve --view`.")
COLORS = ("#e24a33", "#3478db", "#f3b21a", "#3eb254", "#9b59b6", "#f0781e", "#1abcc4")


class Panel:
    """The GUI of one :class:`~twig.view.viewer.Viewer` (viser widgets, shared by every
    open page)."""

    def __init__(self, viewer: Viewer, command_handler: Callable[[str], str] | None) -> None:
        self.viewer = viewer
        self.command_handler = command_handler
        gui = viewer.server.gui
        rt = viewer.realtime
        with gui.add_folder("Simulation"):
            self.clock = gui.add_markdown("t = 0.00 s")
            self.play = gui.add_button("Play" if rt.paused else "Pause")
            self.step = gui.add_button("Step one tick")
            self.speed = gui.add_slider("Speed", min=0.1, max=4.0, step=0.1,
                                        initial_value=min(max(rt.speed, 0.1), 4.0))
        with gui.add_folder("Camera"):
            self.camera = gui.add_dropdown("Camera", options=(OVERVIEW,), initial_value=OVERVIEW)
        with gui.add_folder("Show"):
            self.volumes = gui.add_checkbox("Collision volumes", False)
            self.contacts = gui.add_checkbox("Contact points", False)
            self.overlays = {label: gui.add_checkbox(label.capitalize(), False)
                             for label in OVERLAYS}
        with gui.add_folder("Inspect"):
            self.inspect = gui.add_dropdown("Body", options=(NOBODY,), initial_value=NOBODY)
            self.fields = gui.add_markdown("Click a character to inspect it.")
        self._inspect_folder = gui.add_folder("History")
        with gui.add_folder("Command"):
            self.command = gui.add_text("Command", "", disabled=command_handler is None,
                                        hint="a script line, e.g. kid: approach ball")
            self.send = gui.add_button("Send", disabled=command_handler is None)
            self.reply = gui.add_markdown("" if command_handler else NO_COMMANDS)
        self.history = History()
        self._plots: dict[str, Any] = {}
        self._plot_shape: tuple = ()
        self._last_plot = 0.0
        self._bodies: tuple[str, ...] = ()
        self._connect()

    def _connect(self) -> None:
        v = self.viewer
        self.play.on_click(lambda _: self._toggle_play())
        self.step.on_click(lambda _: self._step())
        self.speed.on_update(lambda _: setattr(v.realtime, "speed", float(self.speed.value)))
        self.camera.on_update(lambda _: v.set_camera(self.camera.value))
        self.volumes.on_update(lambda _: v.show(volumes=self.volumes.value))
        self.contacts.on_update(lambda _: v.show(contacts=self.contacts.value))
        for label, box in self.overlays.items():
            box.on_update(lambda _, label=label, box=box: v.show(overlay=(label, box.value)))
        self.inspect.on_update(
            lambda _: v.select(None if self.inspect.value == NOBODY else self.inspect.value))
        self.send.on_click(lambda _: self._send())

    def _toggle_play(self) -> None:
        rt = self.viewer.realtime
        rt.paused = not rt.paused
        self.play.label = "Play" if rt.paused else "Pause"
        self.viewer.request_frame()

    def _step(self) -> None:
        rt = self.viewer.realtime
        if not rt.paused:
            rt.paused = True
            self.play.label = "Play"
        rt.step_once()

    def _send(self) -> None:
        line = self.command.value.strip()
        if not line or self.command_handler is None:
            return
        try:
            reply = self.command_handler(line)
        except Exception as e:  # the handler's failure is the user's answer, not a crash
            reply = f"error: {e}"
        self.command.value = ""
        self.reply.content = f"`> {line}`\n\n```\n{reply}\n```"
        self.viewer.request_frame()

    # ------------------------------------------------------------------ per frame
    def set_bodies(self, names: tuple[str, ...], characters: tuple[str, ...]) -> None:
        """Offer ``names`` for inspection and ``characters`` (or every body when there is
        none) to follow."""
        if names == self._bodies:
            return
        self._bodies = names
        follow = characters or names
        self.camera.options = (OVERVIEW, *(f"follow {n}" for n in follow))
        self.inspect.options = (NOBODY, *names)

    def show_selection(self, name: str | None) -> None:
        """Reflect a new selection (a click in the scene, ``viewer.select``); its plots start
        afresh."""
        value = NOBODY if name is None else name
        if self.inspect.value != value:
            self.inspect.value = value
        self.history.clear()

    def show_toggles(self, volumes: bool, contacts: bool, overlays: set[str]) -> None:
        """Reflect toggles set from Python (``viewer.show``)."""
        for box, on in ((self.volumes, volumes), (self.contacts, contacts),
                        *((b, label in overlays) for label, b in self.overlays.items())):
            if box.value != on:
                box.value = on

    def show_camera(self, preset: str) -> None:
        """Reflect a preset chosen from Python (``viewer.set_camera``)."""
        if self.camera.value != preset and preset in self.camera.options:
            self.camera.value = preset

    def update(self, snap: Snapshot) -> None:
        """Clock, inspection text and plots for a new frame."""
        state = "paused" if snap.paused else f"{snap.speed:g}x real time"
        self.clock.content = "  \n".join(
            [f"**t = {snap.time:.2f} s** · tick {snap.tick} · {state}",
             *(f"⚠ {e}" for e in snap.errors)])
        if snap.inspected is None or snap.fields is None:
            if self._plots:
                self._set_plots({})
            return
        self.fields.content = describe(snap.inspected, snap.fields)
        self.history.add(snap.time, snap.fields)
        now = time.monotonic()
        if now - self._last_plot >= PLOT_PERIOD:
            self._last_plot = now
            self._set_plots(self.history.charts())

    def _set_plots(self, charts: dict[str, tuple[np.ndarray, dict[str, np.ndarray]]]) -> None:
        shape = tuple((c, tuple(s)) for c, (_, s) in charts.items())
        gui = self.viewer.server.gui
        if shape != self._plot_shape:
            for handle in self._plots.values():
                handle.remove()
            self._plots = {}
            with self._inspect_folder:
                for chart, (t, series) in charts.items():
                    self._plots[chart] = gui.add_uplot(
                        _data(t, series), _series(chart, series), title=_title(chart),
                        scales={"x": {"time": False}}, aspect=2.5)
            self._plot_shape = shape
            return
        for chart, (t, series) in charts.items():
            self._plots[chart].data = _data(t, series)


def _title(chart: str) -> str:
    return f"{chart} ({UNITS[chart]})" if chart in UNITS else chart


def _data(t: np.ndarray, series: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    return (t, *series.values())


def _series(chart: str, series: dict[str, np.ndarray]) -> tuple[dict, ...]:
    return ({"label": "t (s)"}, *({"label": name, "stroke": COLORS[i % len(COLORS)], "width": 2}
                                  for i, name in enumerate(series)))


def describe(name: str, fields: Mapping[str, Any]) -> str:
    """The inspection panel's text (Markdown) for body ``name``."""
    lines = [f"### {name}"]
    for key, value in fields.items():
        lines.append(f"**{key}**: {_format(key, value)}")
    return "  \n".join(lines)


def _format(key: str, value: Any) -> str:
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | float | np.integer | np.floating):
        unit = f" {UNITS[key]}" if key in UNITS else ""
        return f"{float(value):.3g}{unit}"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or "nothing"
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_format(str(k), v)}" for k, v in value.items()) or "-"
    return str(value)
