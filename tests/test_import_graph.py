"""Imports flow one way (DESIGN.md "Style"): cli → diagnose/render/serve → checks → engines →
sources → model → knowledge, with the package's own floor (``errors``, ``console``, the version)
under everything. Within the sources/engines floor only engines read with the sources' parsers,
never the other way; renderers import the model only.

The graph is read from the source text with :mod:`ast`, every ``import`` counted wherever it sits
(a function-level import that closes a circle is still a circle), so the test fails on a cycle
and on any import that runs up the layers.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "gpuxray"

# Rank of each top-level room; an import may go to its own room or to a lower rank only.
RANK: dict[str, float] = {
    "gpuxray": 0, "gpuxray.errors": 0, "gpuxray.console": 0,
    "gpuxray.knowledge": 1,
    "gpuxray.model": 2,
    "gpuxray.sources": 3, "gpuxray.scenarios": 3,
    "gpuxray.engines": 4,
    "gpuxray.checks": 5,
    "gpuxray.diagnose": 6, "gpuxray.render": 6, "gpuxray.serve": 6,
    "gpuxray.docs": 6,
    "gpuxray.exporter": 6.5,  # serves what the metrics renderer formats
    "gpuxray.cli": 7, "gpuxray.__main__": 8,
}
# Renderers format the model; they never reach into checks, engines or sources (DESIGN.md).
RENDER_MAY_IMPORT = ("gpuxray", "gpuxray.errors", "gpuxray.console", "gpuxray.knowledge",
                     "gpuxray.model", "gpuxray.render")


def _modules() -> dict[str, Path]:
    out = {}
    for p in SRC.rglob("*.py"):
        parts = p.relative_to(SRC.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _imports(mod: str, path: Path) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every gpuxray import in ``path``; ``from pkg import sub``
    names the submodule, not the package."""
    pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "gpuxray":
                    yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.split(".")[0] != "gpuxray":
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                yield (sub if sub in MODULES else target), node.lineno


def _room(mod: str) -> str:
    parts = mod.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else mod


GRAPH: dict[str, set[str]] = {m: set() for m in MODULES}
LINES: dict[tuple[str, str], int] = {}
for _m, _p in MODULES.items():
    for _t, _line in _imports(_m, _p):
        while _t not in MODULES and "." in _t:
            _t = _t.rpartition(".")[0]
        if _t != _m and _t in MODULES:
            GRAPH[_m].add(_t)
            LINES.setdefault((_m, _t), _line)


def test_every_room_has_a_rank() -> None:
    assert {_room(m) for m in MODULES} <= set(RANK), "new top-level module: give it a floor"


def test_the_graph_is_read() -> None:
    """The walk finds the imports it must (so an empty graph cannot pass the tests below)."""
    assert "gpuxray.model.finding" in GRAPH["gpuxray.model.factory"]
    assert "gpuxray.knowledge.codes" in GRAPH["gpuxray.model.factory"]
    assert sum(len(v) for v in GRAPH.values()) > 300


def _cycles() -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(GRAPH):
        if root in index:
            continue
        work = [(root, iter(sorted(GRAPH[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(GRAPH[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_import_cycles() -> None:
    assert _cycles() == []


def test_cycle_finder_finds_a_planted_cycle() -> None:
    GRAPH["gpuxray.errors"].add("gpuxray.console")
    GRAPH["gpuxray.console"].add("gpuxray.errors")
    try:
        assert ["gpuxray.console", "gpuxray.errors"] in _cycles()
    finally:
        GRAPH["gpuxray.errors"].discard("gpuxray.console")
        GRAPH["gpuxray.console"].discard("gpuxray.errors")


def _upward() -> list[str]:
    bad = []
    for m, targets in GRAPH.items():
        src = _room(m)
        for t in targets:
            dst = _room(t)
            if dst != src and RANK[dst] >= RANK[src]:
                bad.append(f"{m}:{LINES[(m, t)]} imports {t}")
            if src == "gpuxray.render" and dst not in RENDER_MAY_IMPORT:
                bad.append(f"{m}:{LINES[(m, t)]} (a renderer) imports {t}")
    return sorted(bad)


def test_imports_flow_down() -> None:
    assert _upward() == []


@pytest.mark.parametrize(("low", "high"), [("gpuxray.sources.live", "gpuxray.engines.gate1"),
                                           ("gpuxray.knowledge.codes", "gpuxray.model.finding")])
def test_upward_finder_finds_a_planted_import(low: str, high: str) -> None:
    GRAPH[low].add(high)
    LINES[(low, high)] = 1
    try:
        assert f"{low}:1 imports {high}" in _upward()
    finally:
        GRAPH[low].discard(high)
