"""Reading files the sources share: the tail of a large node file, and names that must print.

Every offline source (bundle, must-gather, node host, pasted text) reads node files and turns
file names into node, pod and container names, so these small readers sit under all of them.
"""

from __future__ import annotations

from pathlib import Path

HOST_FILE_LIMIT = 8 << 20  # journal/dmesg can be large; keep the tail


def read_tail(path: Path, limit: int) -> str:
    """The last ``limit`` bytes of a file as text (bad bytes replaced, first partial line cut)."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        if size > limit:
            fh.seek(size - limit)
            data = fh.read()
            nl = data.find(b"\n")
            data = data[nl + 1 :] if nl >= 0 else data
        else:
            data = fh.read()
    return data.decode("utf-8", errors="replace")


def utf8_name(name: str) -> bool:
    """File names become node, pod and container names in reports; a name that is not UTF-8
    (undecodable bytes arrive as surrogates) cannot be printed as JSON, so it is not read."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable_name(name: str) -> str:
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
