"""Pasted text for ``triage``: a file, stdin, or a directory of text files (e.g. must-gather).

Bounded by design: each input keeps only its last ``FILE_LIMIT`` bytes (failures are at the end
of logs), a directory stops after ``TOTAL_LIMIT`` bytes or ``MAX_FILES`` files, stdin is read in
chunks keeping the tail, and binary data is refused (one file) or skipped (in a directory) —
never a traceback.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from gpuxray.errors import InputError
from gpuxray.sources.files import printable_name
from gpuxray.sources.redact import redact_text

FILE_LIMIT = 4 << 20
TOTAL_LIMIT = 64 << 20
MAX_FILES = 5000
CHUNK = 1 << 16
_TEXT_BYTES = bytes(range(32, 127)) + b"\t\n\r\f\b\x1b"


@dataclass(frozen=True, slots=True)
class TextInput:
    name: str
    text: str
    truncated: bool = False


@dataclass(slots=True)
class Pasted:
    inputs: list[TextInput] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name, why)


def looks_binary(sample: bytes) -> bool:
    """NUL bytes, or more than 30% of bytes that are neither ASCII text nor UTF-8 sequences."""
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    try:
        sample.decode("utf-8")
        return False
    except UnicodeDecodeError as exc:
        if exc.start >= len(sample) - 4:  # a multi-byte char cut at the sample's end
            return False
    odd = sum(1 for b in sample if b not in _TEXT_BYTES and b < 0x80)
    high = sum(1 for b in sample if b >= 0x80)
    return (odd + high) / len(sample) > 0.30


def _decode(data: bytes, cut_partial: bool) -> str:
    if cut_partial:
        nl = data.find(b"\n")
        data = data[nl + 1:] if nl >= 0 else data
    return data.decode("utf-8", errors="replace")


def read_stream(fh: BinaryIO, name: str, limit: int = FILE_LIMIT) -> TextInput:
    """Read a stream in chunks, keeping only the last ``limit`` bytes."""
    chunks: deque[bytes] = deque()
    kept = 0
    total = 0
    first = b""
    while True:
        chunk = fh.read(CHUNK)
        if not chunk:
            break
        if not first:
            first = chunk[:8192]
            if looks_binary(first):
                raise InputError(f"{name}: binary data, not text")
        chunks.append(chunk)
        kept += len(chunk)
        total += len(chunk)
        while kept - len(chunks[0]) >= limit:
            kept -= len(chunks.popleft())
    data = b"".join(chunks)
    truncated = total > limit
    if truncated:
        data = data[-limit:]
    return TextInput(name, redact_text(_decode(data, truncated)), truncated)


def read_file(path: Path, limit: int = FILE_LIMIT) -> TextInput:
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(8192)
            if looks_binary(head):
                raise InputError(f"{path}: binary data, not text")
            if size > limit:
                fh.seek(size - limit)
                return TextInput(printable_name(str(path)),
                                 redact_text(_decode(fh.read(limit), True)), True)
            return TextInput(printable_name(str(path)), redact_text((head + fh.read()).decode(
                "utf-8", errors="replace")))
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from exc


def _walk(root: Path) -> Iterator[Path]:
    for dirpath, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            yield Path(dirpath) / name


def read_dir(root: Path) -> Pasted:
    out = Pasted()
    total = 0
    over = 0
    for p in _walk(root):
        rel = printable_name(p.relative_to(root).as_posix())  # names are printed in reports
        if len(out.inputs) >= MAX_FILES or total >= TOTAL_LIMIT:
            over += 1  # counted, not listed: a huge tree must not make a huge report
            continue
        if p.is_symlink() or not p.is_file():
            out.skipped.append((rel, "not a regular file"))
            continue
        try:
            ti = read_file(p, min(FILE_LIMIT, TOTAL_LIMIT - total))
        except InputError as exc:
            out.skipped.append((rel, str(exc).split(": ", 1)[-1]))
            continue
        out.inputs.append(TextInput(rel, ti.text, ti.truncated))
        total += len(ti.text)
    if over:
        out.skipped.append((f"{over} more file(s)", "input limit reached "
                            f"({MAX_FILES} files or {TOTAL_LIMIT >> 20} MiB)"))
    if not out.inputs:
        raise InputError(f"{root}: no readable text files")
    return out


def read_pasted(arg: str) -> Pasted:
    """``-`` for stdin, a directory (every text file in it), or one file."""
    if arg == "-":
        return Pasted([read_stream(sys.stdin.buffer, "<stdin>")])
    p = Path(arg)
    if not p.exists():
        raise InputError(f"{arg}: no such file or directory")
    if p.is_dir():
        return read_dir(p)
    return Pasted([read_file(p)])
