"""Seeing a world: the live browser viewer and headless video (see docs/viewer.md).

- :mod:`twig.view.viewer` -- ``serve_viewer(realtime, command_handler, host, port)``: viser
  in the browser, real time, controls, inspection, command box.
- :mod:`twig.view.video` -- ``render_video(world, target, seconds, ...)``: MP4 / GIF / PNG.
- :mod:`twig.view.providers` -- what the layers above add to the picture and the panel.
- :mod:`twig.view.scene` -- the drawing plan both share (capsules, spheres, boxes, meshes).

Importing this package loads neither viser nor OpenGL; the modules that need them do.
"""
