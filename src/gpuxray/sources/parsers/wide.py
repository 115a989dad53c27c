"""``kubectl get … [-o wide]`` tables → rows keyed by column name.

Why: must-gather keeps ``kubectl get nodes -o wide`` (``gpu_nodes.status``), ``kubectl get pods
-o wide`` (``gpu_operand_pods.status``) and ``kubectl get ds`` (``gpu_operand_ds.status``); when the
YAML next to them is missing or truncated these tables are what is left, and users paste them.

kubectl prints these through a Go tabwriter with padding 3, so header cells are separated by at
least two spaces while a header name may itself hold one (``NOMINATED NODE``, ``READINESS
GATES``, ``NODE SELECTOR``). Cells may hold single spaces too (``OS-IMAGE`` ``Ubuntu 22.04.5
LTS``, ``RESTARTS`` ``3 (2m ago)``), so rows are cut at the header's column positions, which the
tabwriter keeps for every row of the table. A new header line (``NAME`` / ``NAMESPACE`` at column
0) starts a new table; ``No resources found`` and other prose lines are skipped.
"""

from __future__ import annotations

import re

__all__ = ["parse_wide", "ready_counts", "restart_count"]

_HEADER_CELL = re.compile(r"\S+(?: \S+)*")
_HEADER_START = ("NAME ", "NAMESPACE ")


def _header(line: str) -> list[tuple[str, int]]:
    return [(m.group(0), m.start()) for m in _HEADER_CELL.finditer(line)]


def parse_wide(text: str) -> list[dict[str, str]]:
    """All rows of all tables in ``text``; each row maps header name → cell text."""
    rows: list[dict[str, str]] = []
    cols: list[tuple[str, int]] | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line:
            continue
        if line.startswith(_HEADER_START) and _looks_header(line):
            cols = _header(line)
            continue
        if cols is None or line[:1] == " ":
            continue
        row: dict[str, str] = {}
        for i, (name, start) in enumerate(cols):
            end = cols[i + 1][1] if i + 1 < len(cols) else len(line)
            row[name] = line[start:end].strip() if start < len(line) else ""
        if row.get(cols[0][0]):
            rows.append(row)
    return rows


def _looks_header(line: str) -> bool:
    """Every cell of a kubectl header is upper case (``NAME``, ``UP-TO-DATE``, ``OS-IMAGE``)."""
    cells = [c for c, _ in _header(line)]
    return len(cells) >= 2 and all(c == c.upper() for c in cells)


def ready_counts(cell: str) -> tuple[int, int] | None:
    """``1/2`` → (1, 2)."""
    m = re.fullmatch(r"(\d+)/(\d+)", cell.strip())
    return (int(m.group(1)), int(m.group(2))) if m else None


def restart_count(cell: str) -> int:
    """``3 (2m ago)`` → 3; junk → 0."""
    m = re.match(r"\s*(\d+)", cell)
    return int(m.group(1)) if m else 0
