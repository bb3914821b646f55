"""The wheel ``pip install .`` builds carries every file of the package: the scenes, meshes,
scripts, gestures, clips and the shipped kernels (twig.physics.prebuilt), which a package-data
pattern in pyproject.toml that misses them leaves out of every installation."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import twig

_ROOT = Path(twig.__file__).parent.parent


def test_the_wheel_carries_every_file_of_the_package(tmp_path):
    """Built from the repository's files alone (a copy, as a fresh clone), as pip builds it."""
    tracked = subprocess.run(["git", "ls-files"], cwd=_ROOT, capture_output=True, text=True,
                             check=True).stdout.splitlines()
    source = tmp_path / "source"
    for name in tracked:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(_ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(tmp_path), str(source)], check=True, timeout=600, capture_output=True)
    with zipfile.ZipFile(next(tmp_path.glob("twig-*.whl"))) as wheel:
        carried = set(wheel.namelist())
    package = [name for name in tracked if name.startswith("twig/")]
    assert len(package) > 100
    missing = sorted(set(package) - carried)
    assert not missing, f"left out of the wheel: {missing}"
