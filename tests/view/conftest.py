"""Fixtures of the viewer and video tests: headless Chromium driven over its DevTools protocol,
and the rule that a missing dependency fails the test on CI (CI=true) and skips it elsewhere."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from processes import kill, start

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--enable-unsafe-swiftshader")


def missing(what: str) -> None:
    """A dependency is missing: fail on CI, where .ci/run must have installed it; skip
    elsewhere."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is missing; .ci/run must install it")
    pytest.skip(f"{what} is missing")


def egl_available() -> None:
    """Fail or skip unless an OpenGL context can be made on EGL."""
    from twig.view.render import RenderError, create_context

    try:
        create_context().release()
    except RenderError as e:
        missing(str(e))


class Chromium:
    """A headless Chromium page, driven with DevTools protocol commands over a WebSocket."""

    def __init__(self, executable: str, width: int, height: int) -> None:
        from websockets.sync.client import connect

        self.width, self.height = width, height
        self.profile = tempfile.mkdtemp(prefix="twig-chromium-")
        self.proc = start(
            [executable, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}",
             "--remote-debugging-port=0", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 120
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromium did not start its DevTools server")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=60) as r:
            page = next(t for t in json.load(r) if t["type"] == "page")
        self.ws = connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=60)
        self._id = 0
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def call(self, method: str, timeout: float = 120.0, **params) -> dict:
        """Send one command and return its result (events in between are dropped)."""
        self._id += 1
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            msg = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if msg.get("id") == self._id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def open(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def text(self) -> str:
        """Everything the page shows as text."""
        return self.evaluate("document.body ? document.body.innerText : ''") or ""

    def wait_for(self, predicate, timeout: float, what: str) -> None:
        """Poll ``predicate()`` in real time until true; fail with ``what`` after ``timeout``."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                pytest.fail(f"timed out after {timeout:g} s waiting for {what}; page text: "
                            f"{self.text()[:500]!r}")
            time.sleep(0.25)

    def screenshot(self) -> np.ndarray:
        """The page as a (height, width, 3) uint8 RGB array."""
        from PIL import Image

        data = self.call("Page.captureScreenshot", format="png")["data"]
        return np.asarray(Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB"))

    def wait_for_element(self, js_element: str, timeout: float = 120.0) -> tuple[float, float]:
        """The page coordinates of the centre of the element ``js_element`` finds, once it is
        shown and has stopped moving (a folder of the panel may still be opening)."""
        last = None
        deadline = time.monotonic() + timeout
        while True:
            rect = self.evaluate(f"(() => {{ const e = {js_element}; if (!e) return null; "
                                 "const r = e.getBoundingClientRect(); "
                                 "return [r.x, r.y, r.width, r.height]; })()")
            if rect is not None and rect[2] > 0 and rect[3] > 0 and rect == last:
                return rect[0] + rect[2] / 2, rect[1] + rect[3] / 2
            if time.monotonic() > deadline:
                pytest.fail(f"timed out after {timeout:g} s waiting for {js_element} to show "
                            f"and settle (last box {rect})")
            last = rect
            time.sleep(0.3)

    def click(self, x: float, y: float) -> None:
        """A left click at page pixel (x, y)."""
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                      buttons=1 if kind == "mousePressed" else 0, clickCount=1)
            time.sleep(0.05)

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(30)
            kill(self.proc)  # and the renderer processes of its group
            shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture
def chromium():
    """A fresh headless Chromium page of 1280 x 720 pixels."""
    executable = shutil.which("chromium")
    if executable is None:
        missing("chromium (Debian package 'chromium')")
    try:
        import websockets.sync.client  # noqa: F401
    except ImportError:
        missing("the websockets package (pip install -e '.[test]')")
    browser = Chromium(executable, 1280, 720)
    try:
        yield browser
    finally:
        browser.close()
