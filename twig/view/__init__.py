"""Seeing a world: the live browser viewer and headless video (see docs/viewer.md).

- ``twig.view.serve_viewer(realtime, command_handler=None, host="127.0.0.1", port=8080)``
  (:mod:`twig.view.viewer`): viser in the browser, real time, controls, inspection, command
  box.
- ``twig.view.render_video(world, target, seconds, ...)`` (:mod:`twig.view.video`): MP4, GIF
  or PNG frames.
- :mod:`twig.view.providers`: what the layers above add to the picture and the panel.
- :mod:`twig.view.scene`: the drawing plan both share (capsules, spheres, boxes, meshes).

Importing this package loads neither viser nor OpenGL; the two functions load them on first
use.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "serve_viewer":
        from twig.view.viewer import serve_viewer

        return serve_viewer
    if name == "render_video":
        from twig.view.video import render_video

        return render_video
    raise AttributeError(f"module 'twig.view' has no attribute {name!r}")
