"""The layers of docs/architecture.md, enforced: dependencies point downward only.

Imports are read with ``ast`` from every module of the package. For the layers, imports
inside functions count (they run too, only later); for cycles, the imports a module runs when
it is imported (a cycle among them makes import order matter: a half-made module is read).
Imports under ``if TYPE_CHECKING:`` are type hints and count for neither.
"""

from __future__ import annotations

import ast
from pathlib import Path

import twig

ROOT = Path(twig.__file__).parent

BELOW_PHYSICS = ("twig.physics", "twig.errors", "twig.events")
"""What the physics may import: itself, the errors and the event stream."""
ABOVE_MOTOR = ("twig.behavior", "twig.script", "twig.view", "twig.server", "twig.hybrid")
"""What motor control must not import."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, module: str, is_package: bool, lazy: bool = True) -> set[str]:
    """Modules of twig that ``module`` imports (outside ``if TYPE_CHECKING:`` blocks; with
    ``lazy`` False, outside functions too)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if not lazy and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[:len(base) - node.level + (1 if is_package else 0)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            for alias in node.names:  # "from twig.hybrid import view": a module
                found.add(f"{target}.{alias.name}")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {m for m in found if m == "twig" or m.startswith("twig.")}


def _graph(lazy: bool = True) -> dict[str, set[str]]:
    files = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[name] = {m for m in _imports(tree, name, path.name == "__init__.py", lazy)
                       if m in files and m != name}
    return graph


def _under(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _physics_leaks() -> list[str]:
    return sorted(f"{m} imports {t}" for m, targets in _graph().items()
                  if _under(m, ("twig.physics",)) for t in targets
                  if not _under(t, BELOW_PHYSICS))


def test_physics_imports_nothing_above_it():
    leaks = _physics_leaks()
    assert not leaks, "\n".join(leaks)


def test_motor_imports_no_layer_above_it():
    leaks = sorted(f"{m} imports {t}" for m, targets in _graph().items()
                   if _under(m, ("twig.motor",)) for t in targets if _under(t, ABOVE_MOTOR))
    assert not leaks, "\n".join(leaks)


def test_no_import_cycles():
    """No module imports (through others, as it is imported) a module that imports it; a
    package's ``__init__`` re-exporting its own modules is not a cycle."""
    graph = _graph(lazy=False)
    for name, targets in graph.items():  # __init__ -> its own submodules: re-exports
        graph[name] = {t for t in targets if not t.startswith(name + ".")}
    cycles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*stack[stack.index(nxt):], nxt]))
            elif nxt not in state:
                walk(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node)
    assert not cycles, "\n".join(cycles)


def test_the_checker_sees_a_leak():
    """The parser finds a lazy import inside a function and skips TYPE_CHECKING ones."""
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                     "    from twig.world import World\n"
                     "def f():\n    from twig.motor import Character\n")
    assert _imports(tree, "twig.physics.x", False) == {"twig.motor", "twig.motor.Character"}
    assert _imports(tree, "twig.physics.x", False, lazy=False) == set()
