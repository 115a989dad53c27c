"""``lsmod`` output: which kernel modules are loaded.

Why: nouveau loaded on a GPU node keeps the NVIDIA driver from binding (seed §1, §3), and
``nvidia`` present shows a driver is loaded (host or container: the module is the host's).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Module", "parse_lsmod"]


@dataclass(frozen=True, slots=True)
class Module:
    name: str
    size: int
    used: int
    used_by: tuple[str, ...]
    lineno: int


def parse_lsmod(text: str) -> dict[str, Module]:
    """``Module  Size  Used by`` table → modules by name. Junk and the header are skipped."""
    out: dict[str, Module] = {}
    for i, raw in enumerate(text.splitlines(), start=1):
        parts = raw.split()
        if len(parts) < 3 or not parts[1].isdigit():
            continue
        name = parts[0]
        if not all(c.isalnum() or c in "_-" for c in name):
            continue
        used = int(parts[2]) if parts[2].lstrip("-").isdigit() else 0
        by = tuple(x for x in (parts[3].split(",") if len(parts) > 3 else []) if x and x != "-")
        out[name] = Module(name, int(parts[1]), used, by, i)
    return out
