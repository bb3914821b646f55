"""``Character``: the handle users and scripts command (``kid.walk_to(ball)``).

A character is a humanoid body under motor control. Its methods are the motor commands of
Horswill 2009 section VII; durative ones return an :class:`~twig.action.Action` at once and
the motor system finishes it on a later tick. Like every handle it owns no state: commands
write the character's row of the motor table.
"""

from __future__ import annotations

import inspect
import math
from typing import Annotated, Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from twig.action import Action
from twig.bodies.charts import atlas
from twig.bodies.humanoid import add_humanoid
from twig.commands import Accepts, Heading, Item, Json, Place, Vector, command, register_handle
from twig.errors import UnknownNameError
from twig.motor.arms import SIDES, Grab, Reach, hands_of
from twig.motor.gestures import GestureError, Play, builtin_gestures, load_gesture
from twig.motor.grips import let_go
from twig.motor.hugs import Grapple, Hug
from twig.motor.locomotion import Kick, Sit, StandUp, TurnTo, WalkTo
from twig.motor.manipulation import HoldForUse, Write
from twig.motor.motor_body import MotorBody
from twig.motor.state import HAND_FREE, PASSIVE, STAND
from twig.motor.targets import Target, TargetError, look_node, resolve, target_body
from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_points

Hand = Literal["left", "right", "both"]
OneHand = Literal["left", "right"]
GestureName = Annotated[str, Accepts("named", builtin_gestures, ".toml")]
"""A built-in gesture (``wave``...) or a gesture file's ``.toml`` path."""


class Character(MotorBody):
    """A humanoid under motor control: stands by itself and takes commands.

    Obtain one from ``world.add_humanoid(...)`` or ``world.body(name)``.
    """

    # ------------------------------------------------------------------ legs
    @command
    def walk_to(self, place: Place, speed: float = 1.3, distance: float = 0.1) -> Action:
        """Walk until the hips are within ``distance`` m of ``place`` (a point, an object or
        its name; a moving object is followed), at up to ``speed`` m/s; then stop.

        Parameters
        ----------
        place
            Where to go.
        speed
            Top walking speed, m/s (0.05 to 6).
        distance
            Stop when the hips are this close to ``place``, m (at least 0.05).
        """
        name = "walk-to"
        if not (isinstance(speed, int | float) and 0.05 <= speed <= 6.0):
            return self._failed(name, f"speed must be 0.05 to 6 m/s, got {speed!r}")
        if not (isinstance(distance, int | float) and distance >= 0.05):
            return self._failed(name, f"distance must be at least 0.05 m, got {distance!r}")
        try:
            where, _ = resolve(self.world, place)
        except TargetError as e:
            return self._failed(name, str(e))
        if self.mode != "standing":
            return self._failed(name, f"{self.name} is {self.mode}")
        task = WalkTo(self, self._action(name), where, float(speed), float(distance))
        return self.motor.start(self, "legs", task)

    @command
    def approach(self, item: Place, distance: float = 0.4, speed: float = 1.3) -> Action:
        """Walk up to ``item`` (an object or a point; followed as it moves), stop
        ``distance`` m from it and face it (DESIGN: ``kid.approach(ball, distance=0.4)``).

        Parameters
        ----------
        item
            What to walk up to.
        distance
            How far from it to stop (hips to its centre), m (at least 0.05).
        speed
            Top walking speed, m/s (0.05 to 6).
        """
        try:
            where, _ = resolve(self.world, item)
        except TargetError as e:
            return self._failed("approach", str(e))
        walk = self.walk_to(item, speed=speed, distance=distance)
        if walk.done:
            return walk
        action = self._action("approach")

        def arrived(done: Action) -> None:
            if done.status == "failed":
                action.fail(done.reason)
                return
            turn = self.turn_to(where())
            turn.add_done_callback(lambda t: action.succeed() if t.succeeded
                                   else action.fail(t.reason))

        walk.add_done_callback(arrived)
        return action

    @command
    def walk(self, velocity: Vector) -> None:
        """Walk with this ground velocity until told otherwise.

        Parameters
        ----------
        velocity
            Ground velocity, m/s (y is ignored; (0, 0, 0) stops).
        """
        v = as_points(velocity, "velocity").reshape(3)
        self.motor.stop(self, "legs", self.motor.replaced(self, "walk"))
        t, r = self.motor_table, self.motor_row
        t["walk"][r] = (v[0], 0.0, v[2])
        t["goal_on"][r] = False
        t["face_on"][r] = False

    @command
    def stop(self) -> None:
        """Stop walking (the feet come under the body)."""
        self.walk((0.0, 0.0, 0.0))

    @command
    def turn_to(self, toward: Heading) -> Action:
        """Turn on the spot to face ``toward``: a heading in radians about +y (0 faces +z), or
        something to face (a point, an object, a name).

        Parameters
        ----------
        toward
            What to face.
        """
        name = "turn-to"
        if isinstance(toward, int | float) and not isinstance(toward, bool):
            if not math.isfinite(toward):
                return self._failed(name, f"heading must be finite, got {toward!r}")
            heading = float(toward)

            def want() -> float:
                return heading
        else:
            try:
                where, _ = resolve(self.world, toward)
            except TargetError as e:
                return self._failed(name, str(e))

            def want() -> float:
                d = where() - self.hips
                return math.atan2(d[0], d[2]) if d[0] ** 2 + d[2] ** 2 > 1e-8 else self.heading
        if self.mode != "standing":
            return self._failed(name, f"{self.name} is {self.mode}")
        return self.motor.start(self, "legs", TurnTo(self, self._action(name), want))

    @command
    def kick(self, ball: Item, toward: Vector | None = None) -> Action:
        """Walk up behind ``ball`` and kick it (toward a point, else straight on): the foot
        swings through it at speed. Succeeds when the kicking foot is back down.

        Parameters
        ----------
        ball
            The object to kick.
        toward
            Where to send it, a point in metres (default: straight on from where the
            character comes).
        """
        try:
            body = target_body(self.world, ball)
        except TargetError as e:
            return self._failed("kick", str(e))
        if self.mode != "standing":
            return self._failed("kick", f"{self.name} is {self.mode}")
        aim = None if toward is None else as_points(toward, "toward").reshape(3)
        return self.motor.start(self, "legs", Kick(self, self._action("kick"), body, aim))

    @command
    def sit(self, chair: Item | None = None) -> Action:
        """Sit down: on ``chair``'s seat (walking to its front and turning round first) or,
        with no chair, on the ground where the character stands.

        Parameters
        ----------
        chair
            Something with a ``seat`` chart (a chair); leave out to sit on the ground.
        """
        seat = None
        if chair is not None:
            try:
                seat = target_body(self.world, chair)
            except TargetError as e:
                return self._failed("sit", str(e))
            if "seat" not in atlas(seat):
                return self._failed("sit", f"{seat.name!r} is not something to sit on "
                                           "(it needs a 'seat' chart, as a chair has)")
        if self.mode != "standing":
            return self._failed("sit", f"{self.name} is {self.mode}")
        return self.motor.start(self, "legs", Sit(self, self._action("sit"), seat))

    @command
    def stand_up(self) -> Action:
        """Get up from sitting; succeeds once standing upright."""
        if self.mode == "limp":
            return self._failed("stand-up", f"{self.name} is limp")
        return self.motor.start(self, "legs", StandUp(self, self._action("stand-up")))

    # ------------------------------------------------------------------ gaze
    @command
    def look_at(self, at: Place | None = None) -> Action:
        """Point the face at ``at`` (followed as it moves) and turn the shoulders toward it,
        at most 90 degrees from the pelvis; nothing looks where the body goes.

        Parameters
        ----------
        at
            What to look at (a character: its head); leave out to look where the body goes.
        """
        name = "look-at"
        t, r = self.motor_table, self.motor_row
        if at is None:
            t["gaze_on"][r] = False
            t["gaze_node"][r] = t["gaze_uid"][r] = -1
        else:
            try:
                node, point = look_node(self.world, at)
            except TargetError as e:
                return self._failed(name, str(e))
            # The kernel follows the node itself: no per-tick work for a gaze.
            t["gaze"][r] = point
            t["gaze_node"][r] = node
            t["gaze_uid"][r] = self.world.nodes["uid"][node] if node >= 0 else -1
            t["gaze_on"][r] = True
        action = self._action(name)
        action.succeed()
        return action

    # ------------------------------------------------------------------ arms
    def _hands(self, name: str, hand: str) -> tuple[tuple[str, ...], Action | None]:
        if hand not in ("left", "right", "both"):
            return (), self._failed(name, f"hand must be left, right or both, got {hand!r}")
        if self.mode == "limp":
            return (), self._failed(name, f"{self.name} is limp")
        return hands_of(hand), None

    @command
    def reach(self, at: Place | None = None, hand: Hand = "right") -> Action:
        """Reach with ``hand`` (``"left"``, ``"right"`` or ``"both"``) to a point or object
        (followed as it moves), or, with no target, straight out in front of the shoulders
        (Horswill VII.C). Succeeds with the hand within 5 cm; the arm stays out until another
        arm command or :meth:`release`.

        Parameters
        ----------
        at
            What to reach for; leave out to reach straight ahead.
        hand
            Which hand (or both).
        """
        hands, failed = self._hands("reach", hand)
        if failed:
            return failed
        where = None
        if at is not None:
            try:
                where, _ = resolve(self.world, at)
            except TargetError as e:
                return self._failed("reach", str(e))
        return self.motor.start_hands(self, hands, Reach(self, self._action("reach"), hands,
                                                         where))

    @command
    def grab(self, item: Item, hand: OneHand = "right") -> Action:
        """Reach for ``item`` (an object, or one node ``"clipboard/clip"``) and grasp it with a
        zero-length link from the hand (Horswill VI.C): it then swings from the hand like a
        ball joint and follows where the character goes.

        Parameters
        ----------
        item
            What to grasp (within reach, or a step away).
        hand
            Which hand.
        """
        return self._grab("grab", item, hand, carry=False)

    @command
    def hold(self, item: Item, hand: OneHand = "right") -> Action:
        """Grab ``item`` and carry it at the side, the arm bent a little (Hold, VIII).

        Parameters
        ----------
        item
            What to carry (within reach, or a step away).
        hand
            Which hand.
        """
        return self._grab("hold", item, hand, carry=True)

    def _grab(self, name: str, item: Target, hand: str, carry: bool) -> Action:
        if hand not in ("left", "right"):
            return self._failed(name, f"hand must be left or right, got {hand!r}")
        hands, failed = self._hands(name, hand)
        if failed:
            return failed
        try:
            body = target_body(self.world, item)
            node = self.world.node_index(item) if isinstance(item, str) and "/" in item \
                else None
        except (TargetError, UnknownNameError) as e:
            return self._failed(name, str(e))
        if body.id == self.id:
            return self._failed(name, f"{self.name} cannot {name} itself")
        self.release(hand)
        task = Grab(self, self._action(name), hand, body, node, carry)
        return self.motor.start_hands(self, hands, task)

    @command
    def release(self, hand: Hand = "both") -> None:
        """Let go with ``hand`` (or both): the grab links go, the arm hangs free.

        Parameters
        ----------
        hand
            Which hand lets go.
        """
        for side in hands_of(hand) if hand in ("left", "right", "both") else ():
            self.motor.stop(self, side, f"{self.name} let go")
            self.motor_table["hand_mode"][self.motor_row, SIDES[side]] = HAND_FREE
            let_go(self, side)

    @command
    def hug(self, partner: Item, seconds: float = 3.0) -> Action:
        """Go to ``partner``, reach, and when its torso touches ours join the hands behind it
        (Horswill VII.C); succeeds when the hands join, lets go after ``seconds``.

        Parameters
        ----------
        partner
            Whom (or what) to hug.
        seconds
            How long to hold the hug once the hands join, s.
        """
        try:
            body = target_body(self.world, partner)
        except TargetError as e:
            return self._failed("hug", str(e))
        if body.id == self.id:
            return self._failed("hug", f"{self.name} cannot hug itself")
        hands, failed = self._hands("hug", "both")
        if failed:
            return failed
        task = Hug(self, self._action("hug"), body, float(seconds))
        return self.motor.start_hands(self, hands, task)

    @command
    def grapple(self, opponent: Item, seconds: float = 3.0) -> Action:
        """Close in on ``opponent`` and bash it with the arms for ``seconds`` once within
        arm's length (Horswill VII.C): shoving, punching, wrestling; it hurts.

        Parameters
        ----------
        opponent
            Whom to fight.
        seconds
            How long to fight once within reach, s.
        """
        try:
            body = target_body(self.world, opponent)
        except TargetError as e:
            return self._failed("grapple", str(e))
        if body.id == self.id:
            return self._failed("grapple", f"{self.name} cannot grapple itself")
        hands, failed = self._hands("grapple", "both")
        if failed:
            return failed
        self.release()
        task = Grapple(self, self._action("grapple"), body, float(seconds))
        return self.motor.start_hands(self, hands, task)

    @command
    def hold_for_use(self, item: Item, hand: OneHand = "left", chart: str = "front",
                     tilt: float = 0.9) -> Action:
        """Take ``item`` and hold it in front of the chest by its ``chart`` (a clipboard's
        ``front``), tilted ``tilt`` radians back from upright: the object poses itself and
        drags the arm (Horswill VIII); the facing is locked meanwhile. Succeeds once held;
        lasts until :meth:`release`.

        Parameters
        ----------
        item
            What to hold up (a clipboard).
        hand
            Which hand holds it.
        chart
            The item's chart that faces the character (a clipboard's ``front``).
        tilt
            How far the chart leans back from upright, rad.
        """
        try:
            body = target_body(self.world, item)
            atlas(body)[chart]
        except (TargetError, KeyError):
            return self._failed("hold-for-use", f"{item!r} has no chart {chart!r} to hold it by")
        hands, failed = self._hands("hold-for-use", hand)
        if failed:
            return failed
        self.release(hand)
        task = HoldForUse(self, self._action("hold-for-use"), hand, body, chart, float(tilt))
        return self.motor.start_hands(self, hands, task)

    @command
    def write(self, pen: Item, board: Item, hand: OneHand = "right", marks: int = 3) -> Action:
        """Take ``pen`` and write ``marks`` tick marks on ``board``'s ``front`` chart (a
        clipboard, held by this character or another): the pen poses itself, its tip on the
        surface, lifting between strokes, and drags the hand (Horswill VIII).

        Parameters
        ----------
        pen
            Something with a ``tip`` node (a pen).
        board
            Something with a ``front`` chart to write on (a clipboard).
        hand
            The writing hand.
        marks
            How many tick marks.
        """
        try:
            pen_body = target_body(self.world, pen)
            board_body = target_body(self.world, board)
            atlas(board_body)["front"]
            pen_body.node("tip")
        except (TargetError, KeyError, UnknownNameError):
            return self._failed("write", f"needs a pen (with a tip) and something with a front "
                                         f"chart to write on, got {pen!r} and {board!r}")
        hands, failed = self._hands("write", hand)
        if failed:
            return failed
        self.release(hand)
        task = Write(self, self._action("write"), hand, pen_body, board_body, int(marks))
        return self.motor.start_hands(self, hands, task)

    @command
    def gesture(self, name: GestureName, hand: Literal["left", "right", "default"] = "default",
                loops: int = 1) -> Action:
        """Play a gesture (``wave``, ``point``, ``shrug``, ``beckon``, ``arms-crossed``,
        ``hands-on-hips``, or a gesture file's path) ``loops`` times; a one-handed gesture
        plays on ``hand`` (mirrored if it was written for the other).

        Parameters
        ----------
        name
            The gesture.
        hand
            The hand of a one-handed gesture (``default``: the one it was written for).
        loops
            How many times to play it (1 or more).
        """
        try:
            played = load_gesture(name)
        except GestureError as e:
            return self._failed("gesture", str(e))
        if not (isinstance(loops, int) and loops >= 1):
            return self._failed("gesture", f"loops must be a positive integer, got {loops!r}")
        if self.mode == "limp":
            return self._failed("gesture", f"{self.name} is limp")
        if played.hand is not None and hand != "default":
            mapping = {played.hand: hand}
        else:
            mapping = {h: h for h in played.keys}
        for side in mapping.values():
            self.release(side)
        task = Play(self, self._action(f"gesture {played.name}"), played, mapping, loops)
        return self.motor.start_hands(self, task.hands, task)

    # ------------------------------------------------------------------ whole body
    @command
    def go_limp(self) -> None:
        """Turn motor control off: the character collapses as a rag doll."""
        for channel in ("legs", "gaze"):
            self.motor.stop(self, channel, f"{self.name} went limp")
        self.release()
        t, r = self.motor_table, self.motor_row
        t["mode"][r] = PASSIVE
        self.world.unlock_nodes(self.nodes)

    @command
    def stand(self) -> None:
        """Turn motor control back on where the figure is (it pushes itself up if it can)."""
        t, r = self.motor_table, self.motor_row
        if t["mode"][r] == PASSIVE:
            t["walk_cmd"][r] = 0.0
            t["swing"][r] = 0
        t["mode"][r] = STAND

    @command
    def status(self) -> Json:
        """What the character is doing: mode, where (hips, m), heading (rad), walk velocity
        (m/s), whether it stands upright, its pain (J), what its hands hold and its running
        actions."""
        return {"mode": self.mode, "hips": [round(float(x), 4) for x in self.hips],
                "heading": round(self.heading, 4),
                "walking": [round(float(x), 4) for x in self.walk_velocity],
                "upright": self.upright, "pain": round(self.pain, 4),
                "holding": {h: self.gripped(h) for h in ("left", "right")},
                "actions": [a.name for a in self.actions]}

    def __repr__(self) -> str:
        if not self.alive:
            return f"<Character #{self.id} (removed)>"
        return f"<Character {self.name!r} {self.mode} at {np.round(self.hips, 2).tolist()}>"


def add_character(world: PhysicsWorld, name: str, position: ArrayLike = (0.0, 0.0, 0.0), *,
                  control: bool = True, **build: Any) -> Body:
    """Add a humanoid (see :func:`twig.bodies.humanoid.add_humanoid` for ``build``) and, with
    ``control`` (the default), put it under motor control standing where it is: returns a
    :class:`Character` (one built ``lying`` starts limp; :meth:`Character.stand` wakes it).
    ``control=False`` leaves a passive rag doll (a plain body)."""
    body = add_humanoid(world, name, position, **build)
    if not control:
        return body
    world.motor.add(body, mode=PASSIVE if build.get("lying") else STAND)
    return Character(world, body.id)


add_character.__signature__ = inspect.Signature([
    *inspect.signature(add_humanoid).parameters.values(),
    inspect.Parameter("control", inspect.Parameter.KEYWORD_ONLY, default=True,
                      annotation="bool"),
], return_annotation="Body")


register_handle("humanoid", Character,
                factory=lambda world, body: world.body(body.name))
