"""Every knowledge table names its upstream source, in the table: an entry's own ``source``
field, or the module's ``SOURCES`` entry for a table of plain values. A citation is
``owner/repo@tag:path`` (a tag or commit) or a documentation URL. The signature catalog has its
own test (tests/test_triage_signatures.py)."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
import types
from typing import Any

import pytest

import gpuxray.knowledge as knowledge_pkg
from gpuxray.knowledge.plugin_config import SCHEMA, Group, ListOf

CITATION = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+@[A-Za-z0-9_.+-]+:\S+|https://\S+")
# gpuxray's own catalog and manifests, the seed's tables, and the signature catalog with its
# per-component ``signatures_*`` families (own test: every example cites its source)
NOT_UPSTREAM = {"codes", "agent_manifests", "anatomy", "severity", "signatures"}
MODULES = sorted(m.name for m in pkgutil.iter_modules(knowledge_pkg.__path__)
                 if m.name not in NOT_UPSTREAM and not m.name.startswith("signatures_"))


def _tables(mod: Any) -> dict[str, Any]:
    out = {}
    for name, value in vars(mod).items():
        if not name.isupper() or name == "SOURCES":
            continue
        if isinstance(value, dict | tuple | frozenset | Group) and value:
            if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
                continue  # a version (CDI_DEFAULT_ON_SINCE, NEWEST_KNOWN), not a table
            out[name] = value
    return out


def _entries(table: Any) -> list[Any]:
    if isinstance(table, dict):
        return list(table.values())
    if isinstance(table, Group):
        return [table]
    return list(table)


def _cited(entry: Any) -> bool | None:
    """True/False for a dataclass entry with a ``source`` field, None for a plain value."""
    if dataclasses.is_dataclass(entry) and any(f.name == "source"
                                               for f in dataclasses.fields(entry)):
        return bool(CITATION.search(entry.source))
    return None


def uncited(mod: Any) -> list[str]:
    sources: dict[str, str] = getattr(mod, "SOURCES", {})
    missing = []
    for name, table in _tables(mod).items():
        marks = [_cited(e) for e in _entries(table)]
        if marks and all(m is not None for m in marks):
            missing += [f"{name}[{i}]" for i, m in enumerate(marks) if not m]
        elif not CITATION.search(sources.get(name, "")):
            missing.append(name)
    missing += [f"SOURCES[{n}]" for n, c in sources.items() if not CITATION.search(c)]
    return missing


@pytest.mark.parametrize("module", MODULES)
def test_every_table_cites_its_source(module: str) -> None:
    mod = importlib.import_module(f"gpuxray.knowledge.{module}")
    assert uncited(mod) == [], f"{module}: no upstream citation"


def _groups(node: Any, path: str = "<top>") -> list[tuple[str, Group]]:
    out: list[tuple[str, Group]] = []
    child = node.item if isinstance(node, ListOf) else node
    if isinstance(child, Group):
        out.append((path, child))
        for k, v in child.fields.items():
            out += _groups(v, f"{path}.{k}")
    return out


def test_every_plugin_config_group_cites_its_go_type() -> None:
    bad = [p for p, g in _groups(SCHEMA) if not CITATION.search(g.source)]
    assert bad == []


def test_a_table_without_a_source_fails() -> None:
    """The check itself can fail: uncited tables, entries and bad citations are caught."""
    from gpuxray.knowledge.cdi import TOOLKIT_SPEC

    fake = types.ModuleType("fake")
    fake.TABLE = {"a": "b"}  # type: ignore[attr-defined]
    fake.SPECS = (TOOLKIT_SPEC, dataclasses.replace(TOOLKIT_SPEC, source="facts.md"))  # type: ignore[attr-defined]
    fake.SOURCES = {"OTHER": "somewhere"}  # type: ignore[attr-defined]
    assert uncited(fake) == ["TABLE", "SPECS[1]", "SOURCES[OTHER]"]
