"""The command registry: typed parameters from annotations, inheritance, handles, and nothing
reachable that was not registered."""

from typing import Literal

import pytest

import twig
from twig.action import Action
from twig.commands import NodeName, Vector, command, commands_of, register_handle
from twig.physics import Body
from twig.script import Session, parse_line
from twig.script.body_commands import WHOLE_BODY


class Puppet:
    """A test handle for bodies of type 'testpuppet' (a stand-in for a motor-control
    character: real registration, real dispatch)."""

    command_kind = "testpuppet"

    def __init__(self, world, body):
        self.world = world
        self.body = body

    @command
    def wave(self, hand: Literal["left", "right"] = "right", times: int = 2,
             cheer: str = "hi", loud: bool = False) -> Action:
        """Wave a hand ``times`` times."""
        action = Action("wave", self.body.name)
        action.succeed()
        return action

    @command
    def hold(self, thing: Body, at: Vector = (0.0, 1.0, 0.0), node: NodeName = WHOLE_BODY
             ) -> twig.commands.Json:
        """Report what would be held (a query)."""
        return {"thing": thing.name, "at": list(at), "node": node}

    def secret(self) -> None:
        """Not a command: never reachable from a script."""
        raise AssertionError("reached")


class BigPuppet(Puppet):
    command_kind = "testbigpuppet"

    @command(name="wave")
    def wave_big(self, hand: Literal["both"] = "both") -> Action:
        """Wave both hands."""
        action = Action("wave", self.body.name)
        action.fail("too big to wave")
        return action


register_handle("testpuppet", Puppet)
register_handle("testbigpuppet", BigPuppet)


def world_with_puppets():
    world = twig.World()
    world.add_body("pip", "testpuppet", [[0, 1, 0], [0, 2, 0]])
    world.add_body("max", "testbigpuppet", [[1, 1, 0], [1, 2, 0]])
    world.add_ball("ball", position=(2, 0.11, 0))
    return world


def test_parameters_types_defaults_doc_and_kind_come_from_the_definition():
    wave = commands_of(Puppet)["wave"]
    assert wave.kind == "durative" and wave.doc == "Wave a hand ``times`` times."
    assert [(p.name, p.type, p.default) for p in wave.params] == [
        ("hand", "choice", "right"), ("times", "int", 2), ("cheer", "str", "hi"),
        ("loud", "bool", False)]
    assert wave.params[0].choices == ("left", "right")
    hold = commands_of(Puppet)["hold"]
    assert hold.kind == "query"
    assert [(p.type, p.cls) for p in hold.params] == [("object", Body), ("vector", None),
                                                      ("node", None)]
    assert wave.usage == 'wave [hand="right"] [times=2] [cheer="hi"] [loud=false]'


def test_subclasses_inherit_and_override_through_the_mro():
    mine = commands_of(BigPuppet)
    assert set(mine) == {"wave", "hold"}
    assert mine["wave"].owner is BigPuppet and mine["hold"].owner is Puppet


def test_dispatch_finds_the_handle_then_the_body_and_nothing_else():
    world = world_with_puppets()
    replies = []
    session = Session(world, replies.append)
    for line in ("pip: wave left times=3 loud=on", "max: wave", "pip: hold ball node=l_hand",
                 "pip: where", "pip: secret", "pip: wave hand=both", "pip: hold pip at=up",
                 "pip: hold nothing"):
        session.run(parse_line(line), len(replies))
    kinds = [(r.kind, r.data) for r in replies]
    assert kinds[:2] == [("ok", None), ("done", None)]
    assert kinds[2] == ("ok", None) and kinds[3][0] == "error"
    assert "too big to wave" in kinds[3][1]
    assert kinds[4] == ("value", {"thing": "ball", "at": [0.0, 1.0, 0.0], "node": "l_hand"})
    assert kinds[5] == ("value", [0.0, 1.5, 0.0])                   # a body command
    assert kinds[6][0] == "error" and "unknown command 'secret'" in kinds[6][1]
    assert "expected one of left, right, got both" in kinds[7][1]
    assert "expected a vector" in kinds[8][1]
    assert "no body called 'nothing'" in kinds[9][1]


def test_object_parameters_check_the_kind_of_object():
    class Fan:
        @command
        def admire(self, star: Puppet) -> None:
            """Admire a puppet."""

    register_handle("testfan", Fan, lambda world, body: Fan())
    world = world_with_puppets()
    world.add_body("fan", "testfan", [[3, 1, 0]])
    replies = []
    session = Session(world, replies.append)
    session.run(parse_line("fan: admire max"))                     # a BigPuppet is a Puppet
    session.run(parse_line("fan: admire ball"))
    assert replies[0].kind == "done"
    assert replies[1].data == ("fan: admire: parameter 'star': expected the name of a "
                               "testpuppet, but 'ball' is a ball")


@pytest.mark.parametrize(("define", "message"), [
    (lambda: command(lambda self: None), "lowercase words"),
    (lambda: command(name="Bad_Name")(lambda self: None), "lowercase words"),
])
def test_bad_registrations_are_refused(define, message):
    with pytest.raises(ValueError, match=message):
        define()


def test_private_names_reserved_parameters_missing_docs_and_odd_types_are_refused():
    def _hidden(self) -> None:
        """Private."""

    with pytest.raises(ValueError, match="not private"):
        command(_hidden)

    class Odd:
        @command
        def aim(self, target: str) -> None:
            """Reserved parameter name."""

        @command
        def undocumented(self) -> None:
            pass

        @command
        def listy(self, values: list[int]) -> None:
            """Lists are not a parameter type."""

    for name, message in (("aim", "reserved"), ("undocumented", "doc string"),
                          ("listy", "type commands cannot take")):
        only = type(f"Only{name}", (), {name: vars(Odd)[name]})
        with pytest.raises(ValueError, match=message):
            commands_of(only)
