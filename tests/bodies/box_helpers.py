"""Box volumes of a body as the collision code sees them, for tests that check props and charts
against their collision boxes (computed from the volume table, independently of charts)."""

import numpy as np


def box_volumes(world, body):
    """[(centre (3,), half-axis vectors (3, 3) rows)] of the body's box volumes now."""
    rows = np.flatnonzero((world.volumes["body"] == body.id) & (world.volumes["kind"] == 1))
    out = []
    for row in rows:
        coef = world.volumes["coef"][row]  # (4, 4): centre, then half-axis vectors
        frame = world.node_pos[world.volumes["nodes"][row]]
        out.append((coef[0] @ frame, coef[1:] @ frame))
    return out


def box_faces(world, body, which=None):
    """[(face centre, outward unit normal, in-face half-axis u, in-face half-axis v)] of every
    face of every box volume of the body now (of its box number ``which`` only, if given)."""
    faces = []
    boxes = box_volumes(world, body)
    for centre, half in boxes if which is None else boxes[which:which + 1]:
        for k in range(3):
            others = [half[j] for j in range(3) if j != k]
            for sign in (1.0, -1.0):
                normal = sign * half[k] / np.linalg.norm(half[k])
                faces.append((centre + sign * half[k], normal, *others))
    return faces


def box_corners(world, body):
    """(8 B, 3) corners of every box volume of the body now."""
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    return np.vstack([centre + signs @ half for centre, half in box_volumes(world, body)])
