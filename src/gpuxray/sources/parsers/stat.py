"""``stat -c '%n %Y' FILE…`` output: file modification times (seconds since the epoch).

Why: a containerd config file newer than the daemon's start was never applied: containerd
does not reload its config (facts.md §1.4).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FileTime", "parse_stat"]


@dataclass(frozen=True, slots=True)
class FileTime:
    path: str
    mtime: int
    lineno: int


def parse_stat(text: str) -> list[FileTime]:
    """One ``<name> <epoch>`` per line; names may hold spaces, so split on the last one."""
    out: list[FileTime] = []
    for i, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        name, sep, mt = line.rpartition(" ")
        if not sep or not name.strip() or not mt.isdigit():
            continue
        out.append(FileTime(name.strip(), int(mt), i))
    return out
