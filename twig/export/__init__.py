"""Exporters: recordings (NPZ) now; BVH, glTF and traces build on the same recording."""
