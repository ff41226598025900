"""The layers of brain_core (docs/ARCHITECTURE.md) hold: every import points down or sideways, and the
packages import each other without a cycle. Imports inside functions count like module-level ones: an
in-function import hides a cycle from Python, not from this test."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from tests.helpers.paths import REPO

PKG = REPO / "brain_core"

# Bottom first. A package may import its own layer and the ones below it, never one above.
LAYERS: list[set[str]] = [
    {"errors", "records", "marks", "text"},
    {"redact"},
    {"store"},
    {"config"},
    {"catalog"},
    {"recall"},
    {"llm"},
    {"brain", "dedupe"},
    {"answer", "ask", "router"},
    {"harvest", "voice", "lifecycle"},
    {"sync"},
    {"agents"},
    {"cli", "__main__"},
]
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path) -> set[str]:
    """The brain_core modules one module imports, anywhere in its body."""
    is_pkg = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.startswith("brain_core"):
                found.add(mod)
                found.update(f"{mod}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("brain_core"))
    return found


def _package(module: str) -> str | None:
    """The top-level part a module belongs to (``brain_core.recall.hybrid`` -> ``recall``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _edges() -> dict[tuple[str, str], list[str]]:
    mods = _modules()
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, path in mods.items():
        src = _package(name)
        if src is None:  # brain_core/__init__.py: the public facade, which re-exports from every layer
            continue
        for target in _imports(name, path):
            if target not in mods:
                continue  # a name imported from a module, not a module
            dst = _package(target)
            if dst is not None and dst != src:
                edges[(src, dst)].append(f"{name} -> {target}")
    return edges


def test_every_part_of_brain_core_has_a_layer():
    parts = {_package(m) for m in _modules()} - {None}
    assert parts <= set(LAYER), f"no layer for {sorted(parts - set(LAYER))}: add it to LAYERS and docs/ARCHITECTURE.md"


def test_imports_point_down():
    upward = [
        f"{via} ({src}, layer {LAYER[src]}, imports {dst}, layer {LAYER[dst]})"
        for (src, dst), vias in sorted(_edges().items()) if LAYER[dst] > LAYER[src] for via in vias
    ]
    assert not upward, "imports that point up a layer:\n" + "\n".join(upward)


def test_no_cycle_between_packages():
    graph: dict[str, set[str]] = defaultdict(set)
    edges = _edges()
    for src, dst in edges:
        graph[src].add(dst)
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                loop = stack[stack.index(nxt):] + [nxt] if nxt in stack else [node, nxt]
                cycles.append(" -> ".join(loop) + "  (" + "; ".join(
                    edges[(a, b)][0] for a, b in zip(loop, loop[1:])) + ")")
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert not cycles, "cycles between packages:\n" + "\n".join(cycles)


def test_the_guard_sees_an_import_inside_a_function(tmp_path):
    """The checker itself: an in-function import is found like a module-level one."""
    src = tmp_path / "m.py"
    src.write_text("def f():\n    from brain_core.cli import main\n    return main\n")
    assert "brain_core.cli" in _imports("brain_core.store.m", src)
