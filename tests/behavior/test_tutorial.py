"""The worked example of docs/behaviours.md runs as written and does what it says."""

import re
from pathlib import Path

from twig.behavior import BEHAVIORS

DOC = Path(__file__).parents[2] / "docs" / "behaviours.md"


def test_the_new_behaviour_tutorial_runs_and_waves():
    text = DOC.read_text()
    section = text[text.index("## Writing a new behaviour"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace = {}
    exec(compile(code, str(DOC), "exec"), namespace)  # our own documentation
    try:
        world, kid, agent = namespace["world"], namespace["kid"], namespace["agent"]
        assert "wave-at-parent" in BEHAVIORS
        assert kid.behavior == "wave-at-parent" and agent.focus == "parent"
        wave = agent.find("wave-at-parent").waving
        assert wave.name.startswith("gesture") and wave.status != "failed"
        world.run(5.0)
        assert wave.succeeded and kid.upright
    finally:
        BEHAVIORS.pop("wave-at-parent", None)
