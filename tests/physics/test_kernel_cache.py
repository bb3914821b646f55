"""The kernel cache's folder follows every source a kernel is compiled from
(twig.physics.kernel_cache): Numba checks only a kernel's own file, so a change to a module it
calls, or whose constants it reads, must change the folder, or the old machine code would load."""

import ast
from pathlib import Path

import twig
from twig.physics.kernel_cache import KERNEL_PACKAGES, fingerprint

_TWIG = Path(twig.__file__).parent


def _imports(path: Path) -> set[str]:
    """The twig modules ``path`` imports from."""
    tree = ast.parse(path.read_text())
    return {node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
            and node.module.startswith("twig.")}


def test_every_module_a_kernel_is_compiled_from_is_fingerprinted():
    """Each module defining kernels (decorated from twig.physics.hot), and each twig module it
    imports (callees, constants), lies in one of the fingerprinted packages."""
    kernel_modules = [path for path in _TWIG.rglob("*.py")
                      if "twig.physics.hot" in _imports(path)]
    assert len(kernel_modules) > 10
    for path in kernel_modules:
        for module in _imports(path) | {".".join(path.relative_to(_TWIG.parent).with_suffix("")
                                                 .parts)}:
            folder = _TWIG.parent.joinpath(*module.split("."))
            assert any(folder == package or package in folder.parents
                       for package in KERNEL_PACKAGES), f"{path.name} imports {module}"


def test_a_changed_constant_in_a_second_package_changes_the_folder(tmp_path):
    """A constant changed in the second package (as twig.motor.state's, read by the motor
    kernel) gives another fingerprint; the same sources give the same one."""
    physics = tmp_path / "physics"
    motor = tmp_path / "motor"
    for folder in (physics, motor):
        folder.mkdir()
        (folder / "__init__.py").write_text("")
    (physics / "tick.py").write_text("def tick():\n    pass\n")
    (motor / "state.py").write_text("WALK = 1.0\n")
    before = fingerprint((physics, motor))
    assert fingerprint((physics, motor)) == before
    (motor / "state.py").write_text("WALK = 1.5\n")
    assert fingerprint((physics, motor)) != before
