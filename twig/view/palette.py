"""Colours of the cartoon look: each character its own bright colour, props in quiet ones.

Horswill's Twig draws its characters as coloured capsule figures; a viewer (or a test looking at
a screenshot) tells them apart by colour. Colours are 8-bit RGB.
"""

from __future__ import annotations

import colorsys

import numpy as np

CHARACTER_COLORS = (
    (226, 74, 51),    # red
    (52, 120, 219),   # blue
    (243, 178, 26),   # yellow
    (62, 178, 84),    # green
    (155, 89, 182),   # purple
    (240, 120, 30),   # orange
    (26, 188, 196),   # teal
    (232, 84, 160),   # pink
)
"""The first characters' colours, in the order the characters were added."""

PROP_COLORS = {
    "ball": (245, 243, 232),
    "block": (196, 142, 88),
    "weight": (72, 74, 84),
    "static_box": (178, 178, 184),
    "cloth": (236, 224, 196),
    "rope": (140, 104, 70),
    "stick": (140, 104, 70),
    "tetrahedron": (120, 128, 140),
}
"""Colour of each kind of prop (by body type)."""

OTHER_COLOR = (190, 190, 196)
"""Colour of a body whose type has no colour of its own."""

CHARACTER_TYPES = frozenset({"humanoid"})
"""Body types drawn as characters (each its own colour)."""

GOLDEN = 0.6180339887498949


def character_color(index: int) -> tuple[int, int, int]:
    """Colour of the ``index``-th character: the palette first, then hues a golden angle
    apart (so 100 characters stay distinguishable from their neighbours)."""
    if index < len(CHARACTER_COLORS):
        return CHARACTER_COLORS[index]
    hue = (0.1 + (index - len(CHARACTER_COLORS)) * GOLDEN) % 1.0
    r, g, b = colorsys.hsv_to_rgb(hue, 0.7, 0.9)
    return round(255 * r), round(255 * g), round(255 * b)


def body_colors(types: list[str]) -> np.ndarray:
    """(B, 3) uint8 colours of bodies of the given types, in creation order."""
    out = np.empty((len(types), 3), dtype=np.uint8)
    characters = 0
    for i, kind in enumerate(types):
        if kind in CHARACTER_TYPES:
            out[i] = character_color(characters)
            characters += 1
        else:
            out[i] = PROP_COLORS.get(kind, OTHER_COLOR)
    return out


def linear(color: tuple[int, int, int] | np.ndarray) -> tuple[float, float, float]:
    """An 8-bit sRGB colour as linear RGB in [0, 1] (the IEC 61966-2-1 transfer curve), as
    file formats that take linear colours hold it (a glTF ``baseColorFactor``, a USD
    ``displayColor``)."""
    c = np.asarray(color, dtype=np.float64) / 255.0
    r, g, b = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).round(6).tolist()
    return r, g, b
