"""The motor kernel: posture, gait, head and hand control for every character in one call.

Horswill 2009, section VII. All control is in Cartesian space on the nodes:

- **Posture** (VII.B): proportional loops with the nodes' own damping plus a light derivative
  term. A vertical force holds the pelvis at standing height (its feed-forward carries the
  weight above the legs, and only while a foot is on the ground); horizontal forces give the
  pelvis the walk velocity, or centre it over the feet when standing; the shoulders are held
  over the pelvis, leaning into the walk, by forces with equal and opposite reactions on the
  pelvis; the pelvis turns toward the walk direction and the shoulders toward the gaze (never
  more than 90 degrees from the heading, turning at a limited rate) by opposite forces on
  opposite sides.
- **Gait** (VII.D): when a planted foot trails far enough behind its hip (or is out of place
  while standing or turning), it makes a ballistic step (a kinematic arc with clearance) to a
  point ahead along the walk velocity, then locks where it lands. Stride and cadence grow with
  speed; one foot steps at a time.
- **Head** (VII.C): the head is held up over the neck, tilted toward the gaze target; the face
  direction (``gaze_dir``) points at the gaze target or the walk direction at once.
- **Arms** (VII.C): an arm swings from an impulse when the opposite foot begins a step; a driven
  hand moves in a straight line to its target at a limited speed and holds there (reach,
  gestures, hug, grapple), clamped to what the arm can reach.

Kinematic node motion uses the physics layer's set-point moves: a node given the target
``p + 2 (q - p)`` over two ticks arrives at ``q`` after one tick with its true velocity, and the
next tick's command replaces the move.
"""

from __future__ import annotations

import math

from twig.motor.actuation import (
    drive_node,
    group_motion,
    node_velocity,
    push_node,
    wrap_angle,
    yaw_of,
)
from twig.motor.gait import STAND_FRACTION, WALK_CROUCH, gait
from twig.motor.state import (
    CHEST,
    HAND_CARRY,
    HAND_DRIVE,
    HAND_PULL,
    HAND_STRIKE,
    HEAD,
    L_FOOT,
    L_HAND,
    L_HIP,
    L_SHOULDER,
    NECK,
    PASSIVE,
    PELVIS,
    R_FOOT,
    R_HAND,
    R_HIP,
    R_SHOULDER,
    SIT,
)
from twig.physics.flags import MOVING, YIELDING
from twig.physics.hot import kernel

GRAVITY = 9.81
"""m/s^2, magnitude (the world's gravity is along -y)."""

# Gains (per second squared for positions, per second for velocities), for a 1.75 m adult;
# loops on bigger or smaller figures keep their natural frequencies.
K_HEIGHT, D_HEIGHT = 120.0, 16.0
K_CENTRE = 2.5              # standing: pelvis velocity per metre off the feet's midpoint
K_VEL = 12.0                # pelvis ground velocity loop
A_MAX = 8.0                 # most horizontal acceleration the posture gives, m/s^2
K_UPRIGHT, D_UPRIGHT = 150.0, 18.0
K_YAW, D_YAW = 800.0, 60.0   # rad/s^2 per rad, per rad/s
K_HEAD, D_HEAD = 200.0, 20.0
K_SPINE, D_SPINE = 300.0, 25.0   # chest held on the pelvis-neck line
K_HAND, D_HAND = 250.0, 25.0     # a pulled hand's spring
K_LEVEL, D_LEVEL = 150.0, 15.0   # hips held level
LEAN = 0.04                 # shoulders ahead of the pelvis per m/s of walking, m per adult m
ACCEL_WALK = 3.0            # how fast the followed walk velocity changes, m/s^2
SHOULDER_LIMIT = 0.5 * math.pi  # shoulders turned from the heading at most, rad
SHOULDER_RATE = 3.0         # the shoulders' turn from the heading changes at most, rad/s
CARRY_TURN_RATE = 6.0       # the heading of a character carrying something turns at most, rad/s
WALL_NEAR = 0.5             # hips this near a wall (m per adult m) stop walking into it...
WALL_STOP = 0.25            # ...and not at all this near


@kernel
def _twist(pos, prev, acc, inv_mass, left, right, target_yaw, gain, damp, dt):
    """Turn the pair (left, right) about +y toward ``target_yaw`` with opposite horizontal
    forces (no net force): a proportional loop on the heading plus damping of the turn rate.
    Returns the heading error in radians."""
    ax = pos[left, 0] - pos[right, 0]
    az = pos[left, 2] - pos[right, 2]
    r2 = ax * ax + az * az
    if r2 < 1e-8:
        return 0.0
    err = wrap_angle(target_yaw - yaw_of(ax, az))
    vlx = (pos[left, 0] - prev[left, 0]) - (pos[right, 0] - prev[right, 0])
    vlz = (pos[left, 2] - prev[left, 2]) - (pos[right, 2] - prev[right, 2])
    rate = (az * vlx - ax * vlz) / (r2 * dt)  # d(heading)/dt of the pair
    alpha = gain * err - damp * rate
    # Tangential acceleration at radius r/2 for angular acceleration alpha: alpha r / 2.
    # Turning by +alpha about +y moves the left node along (az, 0, -ax)/r * r/2.
    m_l = 1.0 / inv_mass[left] if inv_mass[left] > 0.0 else 0.0
    m_r = 1.0 / inv_mass[right] if inv_mass[right] > 0.0 else 0.0
    if m_l == 0.0 or m_r == 0.0:
        return err
    # Equal and opposite forces: F = alpha * (m_l + m_r) / 2 * r / 2 per unit direction.
    f = 0.25 * alpha * (m_l + m_r)
    push_node(acc, left, f * az / m_l, 0.0, -f * ax / m_l)
    push_node(acc, right, -f * az / m_r, 0.0, f * ax / m_r)
    return err


@kernel
def motor_tick(nodes, rows, walls, dt):
    """One tick of motor control for every character row: ``nodes`` and ``rows`` are the
    records :class:`~twig.motor.state.MotorNodes` and :class:`~twig.motor.state.MotorRows`
    as plain tuples, unpacked here in their fields' order (see :mod:`twig.motor.state` for
    the columns, shapes and units); ``walls`` the world's static planes as ``(normal (P, 3),
    offset (P,))`` (the half-space ``n.p >= offset`` is free); ``dt`` the tick (s). Writes
    node accelerations (``acc``, m/s^2), set-point moves and locks of feet and hands, and the
    state columns."""
    pos, prev, acc, inv_mass, flags, radius, move_target, move_time, lock_pos = nodes
    (node, scale, leg, arm, head_len, torso, foot_r, m_support, mode, walk, goal, goal_on,
     goal_speed, goal_stop, face, face_on, gaze, gaze_on, gaze_node, seat, crouch, bend,
     hand_mode, hand_target, hand_speed, walk_cmd, swing, swing_t, swing_T, swing_from,
     swing_to, kick, support, breath, arrived, heading, yaw_error, hand_dist, steps,
     gaze_dir, shoulder_turn) = rows
    wall_n, wall_off = walls
    for c in range(node.shape[0]):
        if mode[c] == PASSIVE:
            continue
        nd = node[c]
        s = scale[c]
        if gaze_node[c] >= 0:  # following a node: a ball, another character's head
            for d in range(3):
                gaze[c, d] = pos[gaze_node[c], d]
        _navigate(pos, nd, s, walk, goal, goal_on, goal_speed, goal_stop, walk_cmd, arrived,
                  wall_n, wall_off, c, dt)
        gait(pos, prev, flags, radius, move_target, move_time, lock_pos, nd, s, leg[c],
             foot_r[c], mode[c], walk_cmd[c], seat[c], swing[c], swing_t[c], swing_T[c],
             swing_from[c], swing_to[c], kick[c], support, steps, hand_mode[c], wall_n,
             wall_off, c, dt)
        was = heading[c] + shoulder_turn[c]
        _posture(pos, prev, acc, inv_mass, flags, nd, s, leg[c], torso[c], foot_r[c],
                 m_support[c],
                 mode[c], walk_cmd[c], face[c], face_on[c], gaze[c], gaze_on[c], seat[c],
                 crouch[c], bend[c], support, heading, yaw_error, shoulder_turn,
                 hand_mode[c, 0] == HAND_CARRY or hand_mode[c, 1] == HAND_CARRY, c, dt)
        _head(pos, prev, acc, inv_mass, nd, head_len[c], walk_cmd[c], face[c], face_on[c],
              gaze[c], gaze_on[c], gaze_dir[c], dt)
        for k in range(2):
            hd = nd[L_HAND] if k == 0 else nd[R_HAND]
            if hand_mode[c, k] == HAND_STRIKE:
                flags[hd] |= YIELDING
            else:
                flags[hd] &= ~YIELDING
            if hand_mode[c, k] == HAND_DRIVE or hand_mode[c, k] == HAND_STRIKE:
                _hand(pos, flags, move_target, move_time, nd, k, arm[c],
                      hand_target[c, k, 0], hand_target[c, k, 1], hand_target[c, k, 2],
                      hand_speed[c, k], 0.0, 0.0, 0.0, hand_dist, c, dt)
            elif hand_mode[c, k] == HAND_PULL:
                _pull_hand(pos, prev, acc, flags, nd, k, hand_target[c, k], hand_dist, c, dt)
            elif hand_mode[c, k] == HAND_CARRY:
                gx, gy, gz = _in_heading_frame(pos, nd, k, arm[c], hand_target[c, k],
                                               heading[c] + shoulder_turn[c])
                px, py, pz = _in_heading_frame(prev, nd, k, arm[c], hand_target[c, k], was)
                _hand(pos, flags, move_target, move_time, nd, k, arm[c], gx, gy, gz,
                      hand_speed[c, k], gx - px, gy - py, gz - pz, hand_dist, c, dt)
        breath[c] += dt * 2.0 * math.pi * (0.25 + 0.15 * math.sqrt(
            walk_cmd[c, 0] ** 2 + walk_cmd[c, 2] ** 2))


@kernel
def _navigate(pos, nd, s, walk, goal, goal_on, goal_speed, goal_stop, walk_cmd, arrived,
              wall_n, wall_off, c, dt):
    """Walk velocity for this tick: toward the goal (slowing to stop within ``goal_stop``) or
    the commanded ``walk``, followed with a limited acceleration; near a wall, the part of it
    into the wall fades out (:func:`_along_walls`)."""
    hx = 0.5 * (pos[nd[L_HIP], 0] + pos[nd[R_HIP], 0])
    hz = 0.5 * (pos[nd[L_HIP], 2] + pos[nd[R_HIP], 2])
    wx = walk[c, 0]
    wz = walk[c, 2]
    if goal_on[c]:
        dx = goal[c, 0] - hx
        dz = goal[c, 2] - hz
        dist = math.sqrt(dx * dx + dz * dz)
        if dist <= goal_stop[c]:
            wx = wz = 0.0
            arrived[c] = (walk_cmd[c, 0] ** 2 + walk_cmd[c, 2] ** 2) < 0.04
        else:
            arrived[c] = False
            # Slow down to stop at the goal with a comfortable deceleration.
            speed = min(goal_speed[c], math.sqrt(2.0 * 0.8 * ACCEL_WALK * (dist - 0.5 *
                                                                           goal_stop[c])))
            wx = dx / dist * speed
            wz = dz / dist * speed
    wx, wz = _along_walls(hx, hz, wx, wz, s, wall_n, wall_off)
    ex = wx - walk_cmd[c, 0]
    ez = wz - walk_cmd[c, 2]
    e = math.sqrt(ex * ex + ez * ez)
    step = ACCEL_WALK * dt
    if e > step:
        ex *= step / e
        ez *= step / e
    walk_cmd[c, 0] += ex
    walk_cmd[c, 1] = 0.0
    walk_cmd[c, 2] += ez


@kernel
def _along_walls(hx, hz, wx, wz, s, wall_n, wall_off):
    """The walk velocity ``(wx, wz)`` (m/s) of hips at ``(hx, hz)`` without its part into a
    wall (a static plane that is not a floor) within :data:`WALL_NEAR` of them, faded in as
    they come closer, fully gone within :data:`WALL_STOP`: a character walks along a fence
    it meets, it does not tread on against it."""
    for k in range(wall_n.shape[0]):
        nx = wall_n[k, 0]
        nz = wall_n[k, 2]
        if abs(wall_n[k, 1]) > 0.7:
            continue  # a floor or a ceiling
        into = wx * nx + wz * nz
        if into >= 0.0:
            continue
        gap = hx * nx + hz * nz - wall_off[k]
        fade = min(1.0, max(0.0, (WALL_NEAR - gap / s) / (WALL_NEAR - WALL_STOP)))
        wx -= fade * into * nx
        wz -= fade * into * nz
    return wx, wz


@kernel
def _posture(pos, prev, acc, inv_mass, flags, nd, s, leg, torso, foot_r, m_support, mode, wv,
             face,
             face_on, gaze, gaze_on, seat, crouch, bend, support, heading, yaw_error,
             shoulder_turn, carrying, c, dt):
    """Horswill VII.B: standing height, pelvis velocity or centring, upright torso, yaw.

    The heading the pelvis holds (``heading``) is the facing or the walk direction; while
    ``carrying`` (a hand holds a carry pose) it turns toward it at up to
    :data:`CARRY_TURN_RATE`: a walk set off the other way flipped it at once, and the
    pelvis spun half round in 0.2 s, the arms and a carried doll with it (the carry pose
    turns with the heading).

    The shoulders are held square with that heading, or turned from it toward the gaze, at
    most :data:`SHOULDER_LIMIT` (kept on the gaze as the heading turns under them); their
    turn toward a new gaze or back (``shoulder_turn``) goes at up to :data:`SHOULDER_RATE`,
    and a gaze behind is turned to over the shoulder they are already turned toward. Turned
    to the gaze at once, they whipped round at 5 m/s in one tick when a look-at switched
    sides behind the back (the target jumped 180 degrees), a carried doll's hand with them,
    and a carrier's arm into its own trunk."""
    pel, lh, rh = nd[PELVIS], nd[L_HIP], nd[R_HIP]
    mg, cx, _, cz, vx, vy, vz = group_motion(pos, prev, inv_mass, pel, lh, rh, dt)
    if mg == 0.0:
        return
    speed = math.sqrt(wv[0] * wv[0] + wv[2] * wv[2])
    supported = support[c] > 0.0
    ratio = m_support / mg  # the group's forces move everything the legs carry
    # Height: hips over the feet at a fraction of the leg's length (lower when walking).
    hip_y = 0.5 * (pos[lh, 1] + pos[rh, 1])
    if mode == SIT:
        target = seat[1]
    else:
        target = foot_r + leg * (STAND_FRACTION - WALK_CROUCH * min(speed / 1.3, 1.5))
        target -= crouch
    ay = 0.0
    if supported:
        ay = (K_HEIGHT * (target - hip_y) - D_HEIGHT * vy + GRAVITY) * ratio
        ay = min(max(ay, 0.0), 3.0 * GRAVITY * ratio)
    # Ground velocity: the walk vector, or back over the middle of the feet when still.
    fx = 0.5 * (pos[nd[L_FOOT], 0] + pos[nd[R_FOOT], 0])
    fz = 0.5 * (pos[nd[R_FOOT], 2] + pos[nd[L_FOOT], 2])
    if mode == SIT:
        fx, fz = seat[0], seat[2]
    still = max(0.0, 1.0 - speed / 0.3)
    dvx = wv[0] + still * K_CENTRE * (fx - cx)
    dvz = wv[2] + still * K_CENTRE * (fz - cz)
    ax = az = 0.0
    if supported:
        ax = K_VEL * (dvx - vx)
        az = K_VEL * (dvz - vz)
        a = math.sqrt(ax * ax + az * az)
        if a > A_MAX:
            ax *= A_MAX / a
            az *= A_MAX / a
        ax *= ratio
        az *= ratio
    for i in (pel, lh, rh):
        push_node(acc, i, ax, ay, az)
    # Level hips: opposite vertical forces on the two sides (no net force).
    vl = node_velocity(pos, prev, lh, dt)
    vr = node_velocity(pos, prev, rh, dt)
    lev = 0.5 * (K_LEVEL * (pos[rh, 1] - pos[lh, 1]) - D_LEVEL * (vl[1] - vr[1]))
    push_node(acc, lh, 0.0, lev, 0.0)
    push_node(acc, rh, 0.0, -lev * inv_mass[rh] / inv_mass[lh], 0.0)
    _spine(pos, prev, acc, inv_mass, nd, dt)
    _upright(pos, prev, acc, inv_mass, nd, s, wv, bend * math.sin(heading[c]),
             bend * math.cos(heading[c]), torso, mg, cx, hip_y, cz, vx, vy, vz, dt)
    # Yaw: pelvis toward the facing or walk direction; shoulders toward the gaze.
    was = heading[c]
    want = was  # standing still: hold the last heading
    if face_on:
        want = math.atan2(face[0], face[2])
    elif speed > 0.15:
        want = math.atan2(wv[0], wv[2])
    if carrying:
        step = CARRY_TURN_RATE * dt
        want = wrap_angle(was + min(max(wrap_angle(want - was), -step), step))
    heading[c] = want
    yaw_error[c] = _twist(pos, prev, acc, inv_mass, lh, rh, want, K_YAW, D_YAW, dt)
    aim = 0.0
    turned = shoulder_turn[c]
    if gaze_on:
        gx = gaze[0] - pos[nd[NECK], 0]
        gz = gaze[2] - pos[nd[NECK], 2]
        if gx * gx + gz * gz > 1e-6:
            aim = wrap_angle(math.atan2(gx, gz) - want)
            # Still on the gaze as the heading turns under them.
            turned = min(max(turned - wrap_angle(want - was), -SHOULDER_LIMIT), SHOULDER_LIMIT)
    if aim - turned > math.pi:  # behind: over the shoulder already turned toward
        aim -= 2.0 * math.pi
    elif aim - turned < -math.pi:
        aim += 2.0 * math.pi
    aim = min(max(aim, -SHOULDER_LIMIT), SHOULDER_LIMIT)
    step = SHOULDER_RATE * dt
    shoulder_turn[c] = turned + min(max(aim - turned, -step), step)
    _twist(pos, prev, acc, inv_mass, nd[L_SHOULDER], nd[R_SHOULDER], want + shoulder_turn[c],
           K_YAW, D_YAW, dt)


@kernel
def _spine(pos, prev, acc, inv_mass, nd, dt):
    """Back muscles: the chest is pulled onto the line from the pelvis to the neck, with half
    the opposite force on each of them (the braced torso bends only at the chest)."""
    ch, pel, nk = nd[CHEST], nd[PELVIS], nd[NECK]
    lx = pos[nk, 0] - pos[pel, 0]
    ly = pos[nk, 1] - pos[pel, 1]
    lz = pos[nk, 2] - pos[pel, 2]
    ll = lx * lx + ly * ly + lz * lz
    if ll < 1e-9 or inv_mass[ch] == 0.0:
        return
    t = ((pos[ch, 0] - pos[pel, 0]) * lx + (pos[ch, 1] - pos[pel, 1]) * ly
         + (pos[ch, 2] - pos[pel, 2]) * lz) / ll
    vc = node_velocity(pos, prev, ch, dt)
    vp = node_velocity(pos, prev, pel, dt)
    vn = node_velocity(pos, prev, nk, dt)
    a = (0.0, 0.0, 0.0)
    ex = pos[pel, 0] + t * lx - pos[ch, 0]
    ey = pos[pel, 1] + t * ly - pos[ch, 1]
    ez = pos[pel, 2] + t * lz - pos[ch, 2]
    rx = vc[0] - (1.0 - t) * vp[0] - t * vn[0]
    ry = vc[1] - (1.0 - t) * vp[1] - t * vn[1]
    rz = vc[2] - (1.0 - t) * vp[2] - t * vn[2]
    a = (K_SPINE * ex - D_SPINE * rx, K_SPINE * ey - D_SPINE * ry, K_SPINE * ez - D_SPINE * rz)
    push_node(acc, ch, a[0], a[1], a[2])
    m = 1.0 / inv_mass[ch]
    for i in (pel, nk):
        if inv_mass[i] > 0.0:
            r = -0.5 * m * inv_mass[i]
            push_node(acc, i, a[0] * r, a[1] * r, a[2] * r)


@kernel
def _upright(pos, prev, acc, inv_mass, nd, s, wv, bx, bz, torso, mg, cx, cy, cz, vx, vy, vz,
             dt):
    """Shoulders held above the hips, leaning into the walk ("sitting up", VII.B) and bent
    forward by ``(bx, bz)`` metres (reaching down), by forces on the neck and shoulders with
    the opposite force on the pelvis group. The target is a point ``torso`` metres above the
    hips (less when bent), so a torso that has toppled is lifted back, not just centred."""
    top = (nd[NECK], nd[L_SHOULDER], nd[R_SHOULDER])
    mt, sx, sy, sz, svx, svy, svz = group_motion(pos, prev, inv_mass, top[0], top[1], top[2], dt)
    if mt == 0.0:
        return
    tx = cx + LEAN * s * wv[0] + bx
    tz = cz + LEAN * s * wv[2] + bz
    ahead = math.sqrt((tx - cx) ** 2 + (tz - cz) ** 2)
    ty = cy + math.sqrt(max(torso * torso - ahead * ahead, 0.25 * torso * torso))
    ax = K_UPRIGHT * (tx - sx) - D_UPRIGHT * (svx - vx)
    ay = K_UPRIGHT * (ty - sy) - D_UPRIGHT * (svy - vy)
    az = K_UPRIGHT * (tz - sz) - D_UPRIGHT * (svz - vz)
    for i in top:
        push_node(acc, i, ax, ay, az)
    r = mt / mg
    for i in (nd[PELVIS], nd[L_HIP], nd[R_HIP]):
        push_node(acc, i, -ax * r, -ay * r, -az * r)


@kernel
def _head(pos, prev, acc, inv_mass, nd, head_len, wv, face, face_on, gaze, gaze_on, gaze_dir,
          dt):
    """Horswill VII.C: the face points at the gaze target (else along the walk or facing);
    the head is held over the neck, nodding a little toward what it looks at."""
    hd, nk, ch = nd[HEAD], nd[NECK], nd[CHEST]
    # Torso up: chest -> neck.
    ux = pos[nk, 0] - pos[ch, 0]
    uy = pos[nk, 1] - pos[ch, 1]
    uz = pos[nk, 2] - pos[ch, 2]
    ul = math.sqrt(ux * ux + uy * uy + uz * uz)
    if ul < 1e-9:
        return
    ux /= ul
    uy /= ul
    uz /= ul
    if gaze_on:
        dx = gaze[0] - pos[hd, 0]
        dy = gaze[1] - pos[hd, 1]
        dz = gaze[2] - pos[hd, 2]
    elif face_on:
        dx, dy, dz = face[0], 0.0, face[2]
    else:
        dx, dy, dz = wv[0], 0.0, wv[2]
        if dx * dx + dz * dz < 1e-4:
            # Straight ahead: the shoulders' forward, (l - r) x up.
            ax = pos[nd[L_SHOULDER], 0] - pos[nd[R_SHOULDER], 0]
            az = pos[nd[L_SHOULDER], 2] - pos[nd[R_SHOULDER], 2]
            dx, dz = -az, ax
    dl = math.sqrt(dx * dx + dy * dy + dz * dz)
    if dl > 1e-9:
        gaze_dir[0] = dx / dl
        gaze_dir[1] = dy / dl
        gaze_dir[2] = dz / dl
    # Nod: the head tips forward to look down and a little back to look up.
    hx, hy, hz = ux, uy, uz
    fl = math.sqrt(gaze_dir[0] ** 2 + gaze_dir[2] ** 2)
    if fl > 1e-9:
        tip = -0.6 * gaze_dir[1] / fl
        hx += tip * gaze_dir[0]
        hz += tip * gaze_dir[2]
    hl = math.sqrt(hx * hx + hy * hy + hz * hz)
    tx = pos[nk, 0] + head_len * hx / hl
    ty = pos[nk, 1] + head_len * hy / hl
    tz = pos[nk, 2] + head_len * hz / hl
    vh = node_velocity(pos, prev, hd, dt)
    vn = node_velocity(pos, prev, nk, dt)
    ax = K_HEAD * (tx - pos[hd, 0]) - D_HEAD * (vh[0] - vn[0])
    ay = K_HEAD * (ty - pos[hd, 1]) - D_HEAD * (vh[1] - vn[1]) + GRAVITY  # neck muscles
    az = K_HEAD * (tz - pos[hd, 2]) - D_HEAD * (vh[2] - vn[2])
    push_node(acc, hd, ax, ay, az)
    if inv_mass[nk] > 0.0 and inv_mass[hd] > 0.0:
        r = inv_mass[nk] / inv_mass[hd]  # m_head / m_neck: equal and opposite force
        push_node(acc, nk, -ax * r, -ay * r, -az * r)


@kernel
def _hand(pos, flags, move_target, move_time, nd, k, arm, tx, ty, tz, speed, mx, my, mz,
          hand_dist, c, dt):
    """Move hand ``k`` straight toward its target (clamped to the arm's reach from the
    shoulder) at up to ``speed`` m/s, after moving it by ``(mx, my, mz)`` (m); records the
    distance left to the unclamped target.

    A pose held in the body's frame (HAND_CARRY) moves with the body by the pose point's own
    displacement this tick, the speed being relative to it: a kinematic hand slower than its
    carrier falls behind and, immovable, holds the shoulder back (a child running at 1.2 m/s
    with its doll at 1 m/s ran bent double); one that followed only the shoulder's
    displacement stayed put as the carrier turned, swinging across its front, and its
    forearm, held by the hand, shoved the trunk over (a child turning from its parent fell
    with its doll)."""
    sh = nd[L_SHOULDER] if k == 0 else nd[R_SHOULDER]
    hd = nd[L_HAND] if k == 0 else nd[R_HAND]
    bx = pos[hd, 0] + mx
    by = pos[hd, 1] + my
    bz = pos[hd, 2] + mz
    ox = tx - pos[sh, 0]
    oy = ty - pos[sh, 1]
    oz = tz - pos[sh, 2]
    ol = math.sqrt(ox * ox + oy * oy + oz * oz)
    reach = 0.92 * arm  # short of straight: a driven hand must not haul the body after it
    if ol > reach:
        ox *= reach / ol
        oy *= reach / ol
        oz *= reach / ol
    qx = pos[sh, 0] + ox
    qy = pos[sh, 1] + oy
    qz = pos[sh, 2] + oz
    dx = qx - bx
    dy = qy - by
    dz = qz - bz
    d = math.sqrt(dx * dx + dy * dy + dz * dz)
    step = speed * dt
    if d > step:
        dx *= step / d
        dy *= step / d
        dz *= step / d
    drive_node(pos, flags, move_target, move_time, hd, bx + dx, by + dy, bz + dz, dt)
    ex = tx - bx - dx
    ey = ty - by - dy
    ez = tz - bz - dz
    hand_dist[c, k] = math.sqrt(ex * ex + ey * ey + ez * ez)


@kernel
def _in_heading_frame(pos, nd, k, arm, local, h):
    """World point of ``local`` (right, up, forward; arm lengths) from shoulder ``k``, in the
    frame of heading ``h`` (rad about +y; the shoulders' aimed heading: the pelvis's plus
    their turn toward the gaze) and the vertical.

    Level: a pose below the shoulder held in the upper spine's frame swings back and down as
    the trunk pitches forward, and the kinematic hand following it pulls the shoulders
    further down (a child carrying its doll ran with its trunk 45-89 degrees from vertical
    in a fifth of its frames). The aimed heading, not the shoulder line's: the shoulders
    swing with a running child's strides, and a hand held in their frame flings the doll
    it carries.
    """
    sh = nd[L_SHOULDER] if k == 0 else nd[R_SHOULDER]
    fx = math.sin(h)
    fz = math.cos(h)
    # right = forward x up = (-fz, 0, fx)
    return (pos[sh, 0] + arm * (-local[0] * fz + local[2] * fx),
            pos[sh, 1] + arm * local[1],
            pos[sh, 2] + arm * (local[0] * fx + local[2] * fz))


@kernel
def _pull_hand(pos, prev, acc, flags, nd, k, target, hand_dist, c, dt):
    """Pull hand ``k`` toward its target with a damped spring (at most 40 m/s^2), releasing
    any set-point move it had: the hand is dynamic and slides around obstacles."""
    hd = nd[L_HAND] if k == 0 else nd[R_HAND]
    if flags[hd] & MOVING:
        flags[hd] &= ~MOVING
    v = node_velocity(pos, prev, hd, dt)
    ax = K_HAND * (target[0] - pos[hd, 0]) - D_HAND * v[0]
    ay = K_HAND * (target[1] - pos[hd, 1]) - D_HAND * v[1] + GRAVITY
    az = K_HAND * (target[2] - pos[hd, 2]) - D_HAND * v[2]
    a = math.sqrt(ax * ax + ay * ay + az * az)
    if a > 40.0:
        ax *= 40.0 / a
        ay *= 40.0 / a
        az *= 40.0 / a
    push_node(acc, hd, ax, ay, az)
    ex = target[0] - pos[hd, 0]
    ey = target[1] - pos[hd, 1]
    ez = target[2] - pos[hd, 2]
    hand_dist[c, k] = math.sqrt(ex * ex + ey * ey + ez * ez)


