"""Shared by the batch tests: writing spec files and comparing job outputs bit for bit."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def write_spec(folder: Path, text: str, name: str = "spec.toml") -> Path:
    """``text`` as a spec file in ``folder``; its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def manifest_rows(out: Path) -> list[dict]:
    """The manifest's rows, in file order (every line must be a whole JSON row)."""
    return [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]


def assert_same_file(a: Path, b: Path) -> None:
    """NPZ files hold the same arrays bit for bit (the zip's timestamps may differ); any
    other file is the same bytes."""
    if a.suffix == ".npz":
        with np.load(a) as x, np.load(b) as y:
            assert x.files == y.files
            for name in x.files:
                assert x[name].dtype == y[name].dtype and x[name].shape == y[name].shape
                assert x[name].tobytes() == y[name].tobytes(), f"{a}: {name} differs"
    else:
        assert a.read_bytes() == b.read_bytes(), f"{a} differs from {b}"
