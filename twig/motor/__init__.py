"""Low-level character control (Horswill 2009, section VII): posture, gait, gaze, arms,
respiration, gestures and manipulation, as Cartesian control of the humanoid's nodes.

``world.add_humanoid(...)`` returns a :class:`Character` under control; its methods are the
motor commands (``walk_to``, ``turn_to``, ``look_at``, ``reach``, ``grab`` ...).
"""

from twig.motor.character import Character, add_character
from twig.motor.system import MotorSystem

__all__ = ["Character", "MotorSystem", "add_character"]
