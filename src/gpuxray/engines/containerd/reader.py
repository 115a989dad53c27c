"""Where config files come from: a bundle's host files, a host root (``--root``), the real
filesystem, or an overlay for what-if (``--add``). The import resolver only sees this interface,
so one engine serves ``gpuxray containerd``, ``gpuxray node`` and the bundle checks alike.

Paths handed to a reader are always absolute host paths (``/etc/containerd/config.toml``).
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from pathlib import Path

#: A config file larger than this is not a containerd config; refuse instead of parsing it.
MAX_FILE_BYTES = 4 * 1024 * 1024


class ReadFailure(Exception):
    """A file could not be read; ``missing`` tells "does not exist" from "unreadable"."""

    def __init__(self, path: str, reason: str, *, missing: bool = False) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.missing = missing


class TooManyMatches(Exception):
    def __init__(self, pattern: str, limit: int) -> None:
        super().__init__(f"{pattern} matches more than {limit} files")
        self.pattern = pattern
        self.limit = limit


def _segments_key(path: str) -> tuple[str, ...]:
    """Go's ``filepath.Glob`` returns matches sorted within each directory, walked in order:
    that is a sort by path segments (not by the flat string, where ``/`` would sort early)."""
    return tuple(path.split("/"))


class ConfigReader(ABC):
    @abstractmethod
    def read(self, path: str) -> str:
        """The file's text; raises :class:`ReadFailure`."""

    @abstractmethod
    def glob(self, pattern: str, limit: int) -> list[str]:
        """Absolute matches in Go's order; raises :class:`TooManyMatches` beyond ``limit``."""

    def source(self, path: str) -> str:
        """How evidence cites ``path`` (a bundle path, or the host path itself)."""
        return path


class FactsReader(ConfigReader):
    """A bundle node's ``files/`` (host paths without the leading ``/``, BUNDLE.md)."""

    def __init__(self, files: Mapping[str, str], unreadable: Mapping[str, str] | None = None,
                 source_prefix: str = "") -> None:
        self.files = files
        self.unreadable = unreadable or {}
        self.prefix = source_prefix

    def _key(self, path: str) -> str:
        return posixpath.normpath(path).lstrip("/")

    def read(self, path: str) -> str:
        key = self._key(path)
        if key in self.files:
            return self.files[key]
        if key in self.unreadable:
            raise ReadFailure(path, self.unreadable[key])
        raise ReadFailure(path, "no such file", missing=True)

    def glob(self, pattern: str, limit: int) -> list[str]:
        pat = self._key(pattern).split("/")
        out = []
        for key in list(self.files) + list(self.unreadable):
            parts = key.split("/")
            if len(parts) == len(pat) and all(fnmatch.fnmatchcase(a, b)
                                               for a, b in zip(parts, pat, strict=True)):
                out.append("/" + key)
                if len(out) > limit:
                    raise TooManyMatches(pattern, limit)
        return sorted(out, key=_segments_key)

    def source(self, path: str) -> str:
        return f"{self.prefix}{self._key(path)}" if self.prefix else path


class DirReader(ConfigReader):
    """A host tree under ``root`` (``/`` for the real host): ``/etc/x`` is ``root/etc/x``.

    Files over :data:`MAX_FILE_BYTES` and non-UTF-8 files are read failures (reported, never
    parsed). Symlinks are followed by the OS, so an absolute link inside a ``--root`` tree
    points at this machine's file, not the tree's.
    """

    def __init__(self, root: str | Path = "/") -> None:
        self.root = Path(root)

    def _real(self, path: str) -> Path:
        return self.root / posixpath.normpath(path).lstrip("/")

    def read(self, path: str) -> str:
        p = self._real(path)
        try:
            if not p.exists():
                raise ReadFailure(path, "no such file", missing=True)
            if not p.is_file():
                raise ReadFailure(path, "not a regular file")
            size = p.stat().st_size
            if size > MAX_FILE_BYTES:
                raise ReadFailure(path, f"{size} bytes, larger than {MAX_FILE_BYTES}")
            data = p.read_bytes()
        except OSError as exc:
            raise ReadFailure(path, exc.strerror or str(exc)) from exc
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ReadFailure(path, f"not UTF-8 text (byte {exc.start})") from exc

    def glob(self, pattern: str, limit: int) -> list[str]:
        segs = posixpath.normpath(pattern).lstrip("/").split("/")
        found: list[str] = []
        self._walk(self.root, [], segs, found, limit, pattern)
        return sorted(found, key=_segments_key)

    def _walk(self, base: Path, done: list[str], rest: list[str], found: list[str], limit: int,
              pattern: str) -> None:
        if not rest:
            found.append("/" + "/".join(done))
            if len(found) > limit:
                raise TooManyMatches(pattern, limit)
            return
        head, tail = rest[0], rest[1:]
        if not any(ch in head for ch in "*?["):
            nxt = base / head
            if os.path.lexists(nxt):
                self._walk(nxt, [*done, head], tail, found, limit, pattern)
            return
        try:
            names = sorted(os.listdir(base))
        except OSError:
            return  # Go's Glob ignores I/O errors while reading directories
        for name in names:
            if fnmatch.fnmatchcase(name, head):  # Go's Match has no dot-file rule
                self._walk(base / name, [*done, name], tail, found, limit, pattern)

    def source(self, path: str) -> str:
        return str(self._real(path)) if str(self.root) != "/" else path


class OverlayReader(ConfigReader):
    """``base`` plus extra files at given host paths, less ``removed`` ones (the ``--add`` /
    ``--remove`` what-if)."""

    def __init__(self, base: ConfigReader, extra: Mapping[str, tuple[str, str]],
                 removed: Iterable[str] = ()) -> None:
        self.base = base
        self.extra = {posixpath.normpath(k): v for k, v in extra.items()}  # path -> (text, src)
        self.removed = {posixpath.normpath(p) for p in removed}

    def read(self, path: str) -> str:
        hit = self.extra.get(posixpath.normpath(path))
        if hit is None and posixpath.normpath(path) in self.removed:
            raise ReadFailure(path, "no such file (removed)", missing=True)
        return hit[0] if hit is not None else self.base.read(path)

    def glob(self, pattern: str, limit: int) -> list[str]:
        out = set(self.base.glob(pattern, limit)) - self.removed
        pat = posixpath.normpath(pattern).split("/")
        for p in self.extra:
            parts = p.split("/")
            if len(parts) == len(pat) and all(fnmatch.fnmatchcase(a, b)
                                               for a, b in zip(parts, pat, strict=True)):
                out.add(p)
        if len(out) > limit:
            raise TooManyMatches(pattern, limit)
        return sorted(out, key=_segments_key)

    def source(self, path: str) -> str:
        hit = self.extra.get(posixpath.normpath(path))
        return hit[1] if hit is not None else self.base.source(path)
