"""How the motor kernels act on nodes and read them: accelerations added, set-point moves
(a node made to arrive at a point next tick), and the velocities, group centres and headings
the control loops feed back (Horswill 2009, section VII)."""

from __future__ import annotations

import math

from twig.physics.flags import LOCKED, MOVING
from twig.physics.hot import inline_kernel, kernel


@inline_kernel
def node_velocity(pos, prev, i, dt):
    return ((pos[i, 0] - prev[i, 0]) / dt, (pos[i, 1] - prev[i, 1]) / dt,
            (pos[i, 2] - prev[i, 2]) / dt)


@kernel
def group_motion(pos, prev, inv_mass, a, b, c, dt):
    """Mass (kg), mass-weighted centre (m) and velocity (m/s) of three nodes (static ones
    count for nothing): ``(m, cx, cy, cz, vx, vy, vz)``."""
    mg = cx = cy = cz = vx = vy = vz = 0.0
    for i in (a, b, c):
        m = 1.0 / inv_mass[i] if inv_mass[i] > 0.0 else 0.0
        v = node_velocity(pos, prev, i, dt)
        mg += m
        cx += m * pos[i, 0]
        cy += m * pos[i, 1]
        cz += m * pos[i, 2]
        vx += m * v[0]
        vy += m * v[1]
        vz += m * v[2]
    if mg == 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    return mg, cx / mg, cy / mg, cz / mg, vx / mg, vy / mg, vz / mg


@inline_kernel
def push_node(acc, i, ax, ay, az):
    acc[i, 0] += ax
    acc[i, 1] += ay
    acc[i, 2] += az


@kernel
def drive_node(pos, flags, move_target, move_time, i, qx, qy, qz, dt):
    """Make node ``i`` arrive at ``q`` next tick with its true velocity (set-point move)."""
    move_target[i, 0] = pos[i, 0] + 2.0 * (qx - pos[i, 0])
    move_target[i, 1] = pos[i, 1] + 2.0 * (qy - pos[i, 1])
    move_target[i, 2] = pos[i, 2] + 2.0 * (qz - pos[i, 2])
    move_time[i] = 2.0 * dt
    flags[i] = (flags[i] & ~LOCKED) | MOVING


@kernel
def yaw_of(ax, az):
    """Heading (rad about +y, 0 along +z) of the forward of a left-minus-right vector."""
    # forward = (l - r) x up = (-az, 0, ax)
    return math.atan2(-az, ax)


@kernel
def wrap_angle(a):
    while a > math.pi:
        a -= 2.0 * math.pi
    while a < -math.pi:
        a += 2.0 * math.pi
    return a
