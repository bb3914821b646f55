"""High-level control (Horswill 2009, sections IX and XII): attention, behaviours with
activation levels, hierarchical selection with refractory periods, the approach field and the
standard behaviours, up to the safe-home-base playground.

``world.behavior`` is the world's :class:`BehaviorSystem`; :func:`add_behaviors` makes a
character autonomous; ``kid.behavior`` names what it is doing. Writing a behaviour:
``docs/behaviours.md``.
"""

from twig.behavior import character as _queries  # noqa: F401  (the script queries)
from twig.behavior.agent import Agent, ApproachRequest
from twig.behavior.attachment import AttachmentParams
from twig.behavior.attention import AttentionParams
from twig.behavior.catalogue import BEHAVIORS, BehaviorError, add_behaviors, make, register
from twig.behavior.field import FieldParams, approach_field
from twig.behavior.playground import Fight, HugParent, PlayBall
from twig.behavior.selection import DEFAULT_REFRACTORY, Behavior, Selector
from twig.behavior.standard import Approach, Freeze, PainWithdrawal, SitDown, StandUp
from twig.behavior.system import BehaviorSystem

__all__ = ["BEHAVIORS", "DEFAULT_REFRACTORY", "Agent", "Approach", "ApproachRequest",
           "AttachmentParams", "AttentionParams", "Behavior", "BehaviorError",
           "BehaviorSystem", "FieldParams", "Fight", "Freeze", "HugParent", "PainWithdrawal",
           "PlayBall", "Selector", "SitDown", "StandUp", "add_behaviors", "approach_field",
           "make", "register"]
