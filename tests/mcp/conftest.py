"""A small world for the MCP tests: a child, a ball and a chair, as a scene file."""

from pathlib import Path

import pytest

SCENE = """\
[scene]
description = "a child, a ball and a chair, for agents"

[[object]]
type = "humanoid"
name = "kid"
preset = "child"
position = [0.0, 0.0, 0.0]

[[object]]
type = "ball"
name = "ball"
position = [1.5, 0.11, 1.0]

[[object]]
type = "chair"
name = "chair"
position = [-1.5, 0.0, 1.0]
"""


@pytest.fixture
def scene(tmp_path: Path) -> str:
    """The scene file's path."""
    path = tmp_path / "agents.toml"
    path.write_text(SCENE)
    return str(path)
