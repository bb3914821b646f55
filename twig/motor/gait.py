"""Gait (Horswill 2009, section VII.D): when a planted foot trails far enough behind its hip (or
is out of place while standing or turning), it makes a ballistic step, a kinematic arc with
clearance, to a point ahead along the walk velocity, then locks where it lands; the opposite
arm swings from an impulse as the step begins. Called by
:func:`~twig.motor.kernels.motor_tick` for each walking or standing character."""

from __future__ import annotations

import math

from twig.motor.actuation import drive_node
from twig.motor.state import L_ELBOW, L_FOOT, L_HAND, L_HIP, R_ELBOW, R_FOOT, R_HAND, R_HIP, SIT
from twig.physics.flags import GROUNDED, LOCKED, MOVING
from twig.physics.hot import kernel

STAND_FRACTION = 0.965      # standing hip height over leg length
WALK_CROUCH = 0.05          # hip lowered by this fraction of the leg at 1.3 m/s and above
REACH_FRACTION = 0.985      # a planted leg steps before it straightens beyond this
SWING_FRACTION = 0.8        # of the step period spent in the air (rest: double support)
CLEARANCE = 0.07            # swing height, m per adult m (plus speed)
SWING_IMPULSE = 0.6         # hand and elbow speed given per m/s of walking, m/s
STAND_TOLERANCE = 0.09      # a standing foot steps when this far from its place, m per adult m


@kernel
def gait(pos, prev, flags, radius, move_target, move_time, lock_pos, nd, s, leg, foot_r, mode,
         wv, seat, swing, swing_t, swing_T, swing_from, swing_to, kick, support, steps,
         hand_mode, wall_n, wall_off, c, dt):
    """Horswill VII.D: planted feet lock; a trailing or misplaced foot steps ballistically to
    a point ahead along the walk vector (never beyond a wall); the opposite arm swings."""
    feet = (nd[L_FOOT], nd[R_FOOT])
    hips = (nd[L_HIP], nd[R_HIP])
    speed = math.sqrt(wv[0] * wv[0] + wv[2] * wv[2])
    grounded = False
    for k in range(2):
        if flags[feet[k]] & (LOCKED | GROUNDED):
            grounded = True
    if grounded:
        support[c] = 0.3
    else:
        support[c] = max(0.0, support[c] - dt)
    if not grounded and swing[0] == 0 and swing[1] == 0:
        return  # airborne (thrown, carried): the legs hang
    # Step period from speed (human cadence, scaled by Froude number to the figure's size).
    froude = math.sqrt(s)
    period = 1.0 / (1.0 + 0.6 * speed / froude) * froude
    swing_time = max(0.22 * froude, min(0.5 * froude, SWING_FRACTION * period))
    hip_y = foot_r + leg * (STAND_FRACTION - WALK_CROUCH * min(speed / 1.3, 1.5))
    reach = math.sqrt(max(0.0, (REACH_FRACTION * leg) ** 2 - (hip_y - foot_r) ** 2))
    half = min(0.6 * speed * period, 0.9 * reach)  # trail (and lead) distance per step
    for k in range(2):
        f = feet[k]
        if swing[k]:
            _swing_foot(pos, flags, move_target, move_time, lock_pos, f, hips[k], k, s,
                        foot_r, wv, speed, half, swing, swing_t, swing_T, swing_from, swing_to,
                        kick, wall_n, wall_off, dt)
            continue
        if not flags[f] & LOCKED and flags[f] & GROUNDED:
            flags[f] |= LOCKED  # landed by itself (after a fall, a lift): plant it
            lock_pos[f, 0] = pos[f, 0]
            lock_pos[f, 1] = pos[f, 1]
            lock_pos[f, 2] = pos[f, 2]
    if swing[0] or swing[1] or mode == SIT:
        return
    # Choose the foot that most needs to step: trailing by half a stride, out of place when
    # standing, or needed now because the other leg will run out of reach during the step.
    best = -1
    worst = 0.0
    for k in range(2):
        f = feet[k]
        if not flags[f] & LOCKED:
            continue
        ex = pos[f, 0] - pos[hips[k], 0]
        ez = pos[f, 2] - pos[hips[k], 2]
        off = math.sqrt(ex * ex + ez * ez)
        need = 0.0
        if speed > 0.05:
            behind = -(ex * wv[0] + ez * wv[2]) / speed
            if behind > half:
                need = behind / max(half, 1e-3)
            o = feet[1 - k]
            ahead = ((pos[hips[1 - k], 0] - pos[o, 0]) * wv[0]
                     + (pos[hips[1 - k], 2] - pos[o, 2]) * wv[2]) / speed
            if ahead + speed * swing_time > reach and behind > 0.0:
                need = max(need, 1.0 + behind)
        elif off > STAND_TOLERANCE * s:
            need = off / (STAND_TOLERANCE * s)
        hy = pos[hips[k], 1] - pos[f, 1]
        if off > 0.25 * leg and math.sqrt(off * off + hy * hy) > REACH_FRACTION * leg:
            need = max(need, 1.5)  # about to straighten far from under the hip
        if need > worst:
            worst = need
            best = k
    if best >= 0:
        f = feet[best]
        o = feet[1 - best]
        duration = swing_time
        if speed > 0.05:
            # Land before the other leg straightens: its hip may travel to the end of its reach.
            ahead = ((pos[hips[1 - best], 0] - pos[o, 0]) * wv[0]
                     + (pos[hips[1 - best], 2] - pos[o, 2]) * wv[2]) / speed
            duration = min(duration, max(0.12 * froude, 0.9 * (reach - ahead) / speed))
        swing[best] = 1
        swing_t[best] = 0.0
        swing_T[best] = duration
        for d in range(3):
            swing_from[best, d] = pos[f, d]
        steps[c] += 1
        _arm_swing(pos, prev, nd, best, wv, hand_mode, dt)


@kernel
def _swing_foot(pos, flags, move_target, move_time, lock_pos, f, hip, k, s, foot_r, wv, speed,
                half, swing, swing_t, swing_T, swing_from, swing_to, kick, wall_n, wall_off,
                dt):
    """Advance foot ``k`` along its arc; aim at the hip's landing point plus the lead (or,
    kicking, at the fixed ``swing_to`` low over the ground, at full speed through it), kept
    on this side of every wall by the foot's radius (a kinematic foot is not stopped by one:
    driven into a fence, it dragged the leg up it and the knee bent backwards)."""
    t = swing_t[k] + dt
    T = swing_T[k]
    left = T - t  # past touchdown in its last tick: the hip's landing point, not its place now
    if not kick[k]:
        # Where the hip will be at touchdown, plus half a stride ahead along the walk vector.
        lead = half if speed > 0.05 else 0.0
        swing_to[k, 0] = pos[hip, 0] + wv[0] * left + (wv[0] / speed * lead if speed > 0.05
                                                        else 0.0)
        swing_to[k, 1] = foot_r
        swing_to[k, 2] = pos[hip, 2] + wv[2] * left + (wv[2] / speed * lead if speed > 0.05
                                                        else 0.0)
    for w in range(wall_n.shape[0]):
        gap = (swing_to[k, 0] * wall_n[w, 0] + swing_to[k, 1] * wall_n[w, 1]
               + swing_to[k, 2] * wall_n[w, 2] - wall_off[w] - foot_r)
        if gap < 0.0:
            for d in range(3):
                swing_to[k, d] -= gap * wall_n[w, d]
    tx = swing_to[k, 0]
    tz = swing_to[k, 2]
    u = min(t / T, 1.0)
    e = u * u * (3.0 - 2.0 * u) if not kick[k] else u * u  # a kick speeds up into the ball
    lift = (CLEARANCE + 0.02 * speed) * s if not kick[k] else 0.25 * CLEARANCE * s
    qx = swing_from[k, 0] + (tx - swing_from[k, 0]) * e
    qz = swing_from[k, 2] + (tz - swing_from[k, 2]) * e
    qy = swing_from[k, 1] + (foot_r - swing_from[k, 1]) * e + lift * math.sin(math.pi * u)
    qy = max(qy, foot_r)
    if u >= 1.0:
        # Touchdown: plant the foot where it lands.
        pos[f, 0] = qx
        pos[f, 1] = qy
        pos[f, 2] = qz
        lock_pos[f, 0] = qx
        lock_pos[f, 1] = qy
        lock_pos[f, 2] = qz
        flags[f] = (flags[f] & ~MOVING) | LOCKED
        move_time[f] = 0.0
        swing[k] = 0
        swing_t[k] = 0.0
        kick[k] = 0
        return
    swing_t[k] = t
    drive_node(pos, flags, move_target, move_time, f, qx, qy, qz, dt)


@kernel
def _arm_swing(pos, prev, nd, k, wv, hand_mode, dt):
    """Impulses when foot ``k`` begins a step: the opposite arm swings forward, this side's
    arm back (free arms only)."""
    for side in range(2):
        if hand_mode[side] != 0:
            continue
        sign = 1.0 if side != k else -1.0
        hand = nd[L_HAND] if side == 0 else nd[R_HAND]
        elbow = nd[L_ELBOW] if side == 0 else nd[R_ELBOW]
        prev[hand, 0] -= SWING_IMPULSE * sign * wv[0] * dt
        prev[hand, 2] -= SWING_IMPULSE * sign * wv[2] * dt
        prev[elbow, 0] -= 0.5 * SWING_IMPULSE * sign * wv[0] * dt
        prev[elbow, 2] -= 0.5 * SWING_IMPULSE * sign * wv[2] * dt
