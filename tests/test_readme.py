"""The README's Python snippets run as they stand: a user copies one whole into a file."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_shows_python_snippets():
    assert len(SNIPPETS) >= 7


@pytest.mark.parametrize("code", SNIPPETS, ids=[f"snippet-{k}" for k in range(len(SNIPPETS))])
def test_a_readme_snippet_runs_on_its_own(code, tmp_path):
    """Each snippet in a fresh interpreter, in an empty folder (some write files)."""
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
