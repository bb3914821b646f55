"""The physics part of one tick as a single compiled call: broad phase, integrate, project,
friction, sleep, contacts and pain.

Keeping the whole physics tick in one Numba call keeps Python overhead per ``world.step()`` to one
dispatch (the benchmark's 20 microsecond budget for one stick figure counts it).
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

import numpy as np

from twig.physics.collision.box_planes import box_plane_friction, boxes_on_planes
from twig.physics.collision.broad import find_pairs
from twig.physics.collision.contacts import record_contacts
from twig.physics.collision.narrow import (
    REVERSED,
    first_sweep,
    resolve_active,
    sweep_spheres,
)
from twig.physics.collision.pair_table import DEPTH, NODES_A, NODES_B
from twig.physics.collision.response import contact_friction
from twig.physics.collision.rolling import roll_spheres
from twig.physics.collision.sleep import update_sleep, wake_driven
from twig.physics.constraints import (
    project_planes,
    relax,
    relax_marked,
    rigid_prefix,
)
from twig.physics.final_sweeps import relax_final
from twig.physics.flags import ASLEEP, GROUNDED
from twig.physics.hot import kernel
from twig.physics.integrate import integrate_nodes
from twig.physics.kernel_cache import announce_compile
from twig.physics.records import (
    Arrays,
    ArraysStruct,
    Collision,
    Constraints,
    Nodes,
    Pairs,
    Volumes,
    as_struct,
    pack,
)

if TYPE_CHECKING:
    from twig.physics.world import PhysicsWorld


@kernel
def apply_friction(pos, prev, w, flags, depth, contact_normal, contact_friction, slowed):
    """Jakobsen 2001, section 6 (handling friction), once per tick after the relaxation.

    A node pushed out of a plane by a total depth ``dp`` this tick has its tangential displacement
    ``t`` (this tick's velocity times dt) shortened by ``mu * dp``, never reversed: ``|t| -> max(0,
    |t| - mu dp)``. Since ``dp`` is the normal velocity change times dt, this is Coulomb friction.
    Also sets the GROUNDED flag that selects ground damping next tick. Marks the nodes it
    slowed in ``slowed`` ((N,) uint8) and returns how many there are.
    """
    count = 0
    for i in range(pos.shape[0]):
        if flags[i] & ASLEEP:
            continue  # resting where it was: keeps its contact state
        dp = depth[i]
        if dp <= 0.0:
            flags[i] &= ~GROUNDED
            continue
        flags[i] |= GROUNDED
        if w[i] == 0.0:
            continue
        vx = pos[i, 0] - prev[i, 0]
        vy = pos[i, 1] - prev[i, 1]
        vz = pos[i, 2] - prev[i, 2]
        nx = contact_normal[i, 0]
        ny = contact_normal[i, 1]
        nz = contact_normal[i, 2]
        vn = vx * nx + vy * ny + vz * nz
        tx = vx - vn * nx
        ty = vy - vn * ny
        tz = vz - vn * nz
        tl = math.sqrt(tx * tx + ty * ty + tz * tz)
        if tl == 0.0:
            continue
        cut = min(tl, contact_friction[i] * dp) / tl
        pos[i, 0] -= tx * cut
        pos[i, 1] -= ty * cut
        pos[i, 2] -= tz * cut
        slowed[i] = 1
        count += 1
    return count


@kernel
def physics_tick(arrays, settings):
    """One physics tick in place: broad phase, wake, integrate (eq. 2), K iterations of
    projection (constraints, then contacts), friction, sleep, contacts and pain.

    The arguments are the records of :mod:`twig.physics.records` (``arrays`` an
    :class:`~twig.physics.records.ArraysStruct`, or its ``Arrays`` in Python), unpacked here
    in their fields' order: the node columns, the links in solver order with the
    ``n_exact`` exactly solved ones first, the volumes, the topology-derived collision arrays
    (``boxes`` None in a world without boxes: the tick is then compiled without the box code)
    and the pair buffers; the settings (``margin``, ``lookahead``, ``force`` and ``use_grid``
    go to :func:`~twig.physics.collision.broad.find_pairs`; ``sleep_ticks`` <= 0 disables
    sleeping, ``sleep_drift`` and ``sleep_step`` go to
    :func:`~twig.physics.collision.sleep.update_sleep`; ``depenetration`` caps how far
    contacts separate a pair beyond its approach; ``static_slide`` is the largest slide of
    two bodies' capsules that static friction holds, see
    :func:`~twig.physics.collision.response.contact_friction`). ``has_spheres`` enables the
    swept test; ``rollers`` lists the free spheres that roll and ``node_roller`` gives each
    node's rolling sphere or -1 (:mod:`~twig.physics.collision.rolling`).

    Returns (candidate pairs, contacts, pain hits) as counted by
    :func:`~twig.physics.collision.contacts.record_contacts`. When the pair buffers are too
    small for the candidates, nothing has moved and the contact count is -1: grow the buffers
    to at least the candidate count and call again with ``force``.
    """
    (pos, prev, acc, inv_mass, flags, damp_air, damp_ground, damp_ref, damp_rel, radius,
     ground_normal, lock_pos, move_target, move_time, rest_anchor, friction_hold) = arrays.nodes
    (link_nodes, link_min, link_max, link_stiffness, n_exact, link_visible, hinge_nodes,
     hinge_plane, hinge_bend, angle_nodes, angle_cos, plane_normal, plane_offset,
     plane_friction) = arrays.constraints
    (vol_kind, vol_nodes, vol_radius, vol_coef, vol_group, vol_mask, vol_friction, vol_passive,
     vol_id, vol_body, vol_inertia, vol_rolling, vol_spin) = arrays.volumes
    (has_spheres, rollers, node_roller, boxes, box_c, box_u, box_h, corner_push, corner_plane,
     body_vols, body_vol_start, self_pairs, self_start, linked_keys, linked_bodies, build_lo,
     build_hi, body_lo, body_hi, node_row, body_start, body_count, body_can_sleep, body_still,
     pain, pain_threshold, pain_half_life) = arrays.collision
    (pair_vol, pair_key, pair_seen, block_key, block_start, pair_i, pair_b, pair_f, active,
     hit_row, hit_ids, pain_hits, pain_level, broad_stats) = arrays.pairs
    (margin, lookahead, force, use_grid, sleep_drift, sleep_step, sleep_ticks, depenetration,
     static_slide, gravity, dt, iterations) = settings
    n_pairs = np.int64(0)
    if vol_kind.shape[0] > 0:
        n_pairs = find_pairs(pos, prev, vol_kind, vol_nodes, vol_radius, vol_coef, vol_group,
                             vol_mask, vol_passive, box_c, box_u, box_h, body_vols,
                             body_vol_start, self_pairs, self_start, linked_keys, linked_bodies,
                             build_lo, build_hi, body_lo, body_hi, margin, lookahead, force,
                             use_grid, node_row, pair_vol, pair_key, pair_seen, block_key,
                             block_start, broad_stats)
        if n_pairs > pair_vol.shape[0]:
            return n_pairs, -1, 0
    n = pos.shape[0]
    w = np.empty(n)
    inert = np.empty((n, 3))
    wake_driven(pos, prev, acc, flags, body_start, body_count)
    integrate_nodes(pos, prev, acc, inv_mass, flags, damp_air, damp_ground, damp_ref, damp_rel,
                    lock_pos, move_target, move_time, friction_hold, gravity, dt, w, inert)
    depth = np.zeros(n)
    contact_friction_mu = np.zeros(n)
    if has_spheres:
        sweep_spheres(pos, prev, inv_mass, vol_kind, vol_nodes, vol_radius, vol_coef, box_c,
                      box_u, box_h, boxes, pair_vol, n_pairs)
    corner_push[:, :] = 0.0
    n_rigid = rigid_prefix(link_min, link_max, link_stiffness, n_exact)
    n_active = np.int64(0)  # typed: a literal 0 would compile the callees twice
    for it in range(iterations):
        relax(pos, w, radius, flags, lock_pos, link_nodes, link_min, link_max, link_stiffness,
              n_rigid, n_exact, hinge_nodes, hinge_plane, hinge_bend, angle_nodes, angle_cos,
              plane_normal, plane_offset, plane_friction, np.int64(1), depth, ground_normal,
              contact_friction_mu)
        if it == 0:
            n_active = first_sweep(pos, prev, w, inv_mass, flags, ground_normal, vol_kind,
                                   vol_nodes, vol_radius, vol_coef, vol_friction, vol_passive,
                                   box_c, box_u, box_h, boxes, pair_vol, n_pairs, pair_seen,
                                   pair_i, pair_b, pair_f, active, depenetration, dt, node_row,
                                   body_start, body_count, broad_stats)
        else:
            resolve_active(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes,
                           vol_radius, vol_coef, box_c, box_u, box_h, boxes, pair_vol, pair_i,
                           pair_b, pair_f, active, n_active, dt, node_row, body_start, body_count,
                           it % 2 == REVERSED)
        boxes_on_planes(pos, w, vol_nodes, vol_coef, boxes, box_c, box_u, box_h, plane_normal,
                        plane_offset, corner_push, corner_plane, it % 2 == REVERSED)
    if n_pairs > 0:
        # Contacts came after the planes in the last iteration: nothing ends a tick underground.
        project_planes(pos, w, radius, flags, lock_pos, plane_normal, plane_offset,
                       plane_friction, depth, ground_normal, contact_friction_mu)
    _friction(pos, prev, w, radius, flags, lock_pos, link_nodes, link_min, link_max,
              link_stiffness, n_rigid, n_exact, plane_normal, plane_offset, plane_friction,
              depth, ground_normal, contact_friction_mu, pair_i, pair_b, pair_f, n_active, node_row,
              body_start, inert, friction_hold, static_slide, rollers, node_roller, vol_nodes,
              vol_radius, vol_inertia, vol_rolling, vol_spin, boxes, dt)
    relax_final(pos, prev, w, radius, flags, lock_pos, link_nodes, link_min, link_max,
                link_stiffness, n_rigid, n_exact, link_visible, angle_nodes, angle_cos,
                plane_normal, plane_offset, plane_friction, depth, ground_normal,
                contact_friction_mu, pair_i, pair_f, n_active, node_row, body_start.shape[0], dt)
    box_plane_friction(pos, prev, w, flags, ground_normal, vol_nodes, vol_coef, boxes, box_c,
                       box_u, box_h, plane_normal, plane_friction, corner_push, corner_plane,
                       depenetration)
    if sleep_ticks > 0:
        update_sleep(pos, prev, rest_anchor, flags, body_start, body_count, body_can_sleep,
                     body_still, sleep_drift, sleep_step, sleep_ticks)
    n_contacts, n_pain = record_contacts(pair_vol, pair_f, active, n_active, vol_id, vol_body,
                                         vol_nodes, node_row, flags, pain, pain_threshold,
                                         pain_half_life, dt, hit_row, hit_ids, pain_hits,
                                         pain_level)
    return n_pairs, n_contacts, n_pain


@kernel
def _friction(pos, prev, w, radius, flags, lock_pos, link_nodes, link_min, link_max,
              link_stiffness, n_rigid, n_exact, plane_normal, plane_offset, plane_friction,
              depth, ground_normal, contact_friction_mu, pair_i, pair_b, pair_f, n_active, node_row,
              body_start, inert, hold, static_slide, rollers, node_roller, vol_nodes, vol_radius,
              vol_inertia, vol_rolling, vol_spin, boxes, dt):
    """Rolling spheres, plane friction, one more sweep over the links of the nodes it slowed,
    then the contacts' no-bounce and sliding friction (after the relaxation, once per tick;
    ``boxes`` None: compiled without the box contacts' friction)."""
    n = pos.shape[0]
    slowed = np.zeros(n, dtype=np.uint8)
    roll_spheres(pos, prev, w, flags, depth, ground_normal, contact_friction_mu, rollers,
                 vol_nodes, vol_radius, vol_inertia, vol_rolling, vol_spin, dt)
    if apply_friction(pos, prev, w, flags, depth, ground_normal, contact_friction_mu,
                      slowed) > 0:
        # Not for bodies touching another: the contacts had their say after the links, and
        # links moved last would push the pair back into each other (a brick would jitter on a
        # doll).
        touching = np.zeros(body_start.shape[0], dtype=np.uint8)
        for q in range(n_active):  # branch-free: half the rows of a pile touch
            a = node_row[pair_i[q, NODES_A]]
            b = node_row[pair_i[q, NODES_B]]
            hit = np.uint8((pair_f[q, DEPTH] > 0.0) & (a != b))
            touching[a] |= hit
            touching[b] |= hit
        for i in range(n):
            slowed[i] &= touching[node_row[i]] ^ np.uint8(1)
        relax_marked(pos, w, radius, flags, lock_pos, link_nodes, link_min, link_max,
                     link_stiffness, n_rigid, n_exact, slowed, plane_normal, plane_offset,
                     plane_friction, np.zeros(n), ground_normal, contact_friction_mu)
    contact_friction(pos, prev, w, flags, ground_normal, pair_i, pair_b, pair_f, n_active, inert,
                     hold, node_row, static_slide, node_roller, vol_radius, vol_inertia, vol_spin,
                     boxes, dt)


def array_args(world: PhysicsWorld, announce: bool = True) -> ArraysStruct:
    """The records of :func:`physics_tick` for ``world`` but its settings
    (:func:`array_records`) in one structure, as the kernel takes them. With ``announce``,
    says on stderr when the tick for these arguments is neither loaded nor cached
    (:func:`~twig.physics.kernel_cache.announce_compile`)."""
    arrays = as_struct(array_records(world))
    if announce:
        announce_compile((arrays, setting_args(world)))
    return arrays


def array_records(world: PhysicsWorld) -> Arrays:
    """The records of :func:`physics_tick` for ``world`` but its settings (views of the
    world's state): :class:`~twig.physics.records.Nodes`, ``Constraints``, ``Volumes``,
    ``Collision`` and ``Pairs``, each a plain tuple.

    ``boxes`` is None in a world without boxes: Numba then compiles the tick without the box
    tests (about 45 % of a first run's compile), and compiles the full tick when the first
    box is added."""
    link_nodes, link_min, link_max, link_stiffness, n_exact, link_visible = world.solver_links()
    model = world.model
    hinges, angles, planes = model.hinges, model.angles, model.planes
    constraints = {
        "link_nodes": link_nodes, "link_min": link_min, "link_max": link_max,
        "link_stiffness": link_stiffness, "n_exact": n_exact, "link_visible": link_visible,
        "hinge_nodes": hinges["nodes"],
        "hinge_plane": hinges["plane"], "hinge_bend": hinges["bend_min"],
        "angle_nodes": angles["nodes"], "angle_cos": angles["cos"],
        "plane_normal": planes["normal"], "plane_offset": planes["offset"],
        "plane_friction": planes["friction"]}
    col = dict(world.collision_arrays())
    if not len(col["boxes"]):
        col["boxes"] = None
    bodies = world.body_state
    col.update((k, bodies[k]) for k in ("still", "pain", "pain_threshold", "pain_half_life"))
    return Arrays(pack(Nodes, world.nodes), pack(Constraints, constraints),
                  pack(Volumes, world.volumes), pack(Collision, col),
                  pack(Pairs, world.pair_buffers()))


def setting_args(world: PhysicsWorld) -> tuple:
    """The :class:`~twig.physics.records.Settings` record of :func:`physics_tick`: settings
    users may change between ticks, read every tick (a plain tuple built in the fields'
    order: a named tuple's construction would cost microseconds a tick)."""
    dt = world.dt
    gravity = world.gravity
    return (world.broad_margin, world.broad_lookahead, world.rebuild_pairs, world.broad_grid,
            world.sleep_speed * world.sleep_seconds, world.sleep_jitter * dt,
            round(world.sleep_seconds / dt) if world.sleeping else 0,
            world.max_depenetration_speed * dt,
            _length(tuple(gravity.tolist())) * dt * dt if world.static_friction else 0.0,
            gravity, dt, world.iterations)


@functools.lru_cache(maxsize=16)
def _length(vector: tuple[float, ...]) -> float:
    """``np.linalg.norm`` of ``vector``, remembered: gravity's length is needed every tick
    and seldom changes, and NumPy takes about 2 microseconds for it."""
    return float(np.linalg.norm(np.array(vector)))
