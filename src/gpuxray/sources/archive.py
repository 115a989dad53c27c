"""Safe extraction of a bundle archive (``.tar.gz``/``.tgz``/``.tar``) into a temporary directory.

Bundles arrive attached to tickets, so an archive is hostile until proven otherwise: every member
is checked before anything is written, and only regular files and directories are extracted,
always below the temporary directory.
"""

from __future__ import annotations

import posixpath
import tempfile
from pathlib import Path

from gpuxray.errors import InputError

MAX_MEMBERS = 200_000
MAX_TOTAL_BYTES = 8 * 1024**3
MAX_MEMBER_BYTES = 2 * 1024**3


def _one_line(exc: BaseException) -> str:
    """tarfile's "could not be opened" lists one line per method it tried; keep the first."""
    lines = [ln.strip(" -") for ln in str(exc).splitlines() if ln.strip(" -")]
    return "; ".join(lines[:2])[:300] if lines else type(exc).__name__


def _check_name(archive: Path, name: str) -> str:
    if "\x00" in name or name.startswith("/") or posixpath.isabs(name):
        raise InputError(f"{archive}: refusing absolute path {name!r} in archive")
    norm = posixpath.normpath(name)
    if norm == ".." or norm.startswith("../") or "/../" in f"/{name}/":
        raise InputError(f"{archive}: refusing path traversal {name!r} in archive")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"{archive}: refusing non-UTF-8 member name in archive") from exc
    return norm


def extract_bundle(archive: Path) -> tempfile.TemporaryDirectory[str]:
    """Extract ``archive`` into a new temporary directory and return it (caller cleans up)."""
    import tarfile  # a bundle directory never needs it

    try:
        tar = tarfile.open(archive, mode="r:*")  # noqa: SIM115 - closed by the with below
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise InputError(f"{archive}: not a readable tar archive ({_one_line(exc)})") from exc
    tmp = tempfile.TemporaryDirectory(prefix="gpuxray-bundle-")
    root = Path(tmp.name).resolve()
    try:
        with tar:
            seen: set[str] = set()
            total = 0
            count = 0
            for member in tar:
                count += 1
                if count > MAX_MEMBERS:
                    raise InputError(f"{archive}: more than {MAX_MEMBERS} members; refusing")
                norm = _check_name(archive, member.name)
                if member.issym() or member.islnk():
                    raise InputError(f"{archive}: refusing link member {member.name!r}")
                if not (member.isfile() or member.isdir()):
                    raise InputError(f"{archive}: refusing special member {member.name!r}")
                if norm in seen:
                    raise InputError(f"{archive}: duplicate member {member.name!r}")
                seen.add(norm)
                if norm == ".":
                    continue
                dest = (root / norm).resolve()
                if root not in dest.parents:
                    raise InputError(f"{archive}: member {member.name!r} escapes the bundle")
                if member.isdir():
                    dest.mkdir(parents=True, exist_ok=True)
                    continue
                if member.size > MAX_MEMBER_BYTES:
                    raise InputError(f"{archive}: member {member.name!r} too large")
                total += member.size
                if total > MAX_TOTAL_BYTES:
                    raise InputError(f"{archive}: uncompressed size over {MAX_TOTAL_BYTES} bytes")
                dest.parent.mkdir(parents=True, exist_ok=True)
                src = tar.extractfile(member)
                if src is None:
                    raise InputError(f"{archive}: unreadable member {member.name!r}")
                written = 0
                with src, open(dest, "wb") as out:
                    while chunk := src.read(1 << 20):
                        written += len(chunk)
                        if written > member.size:
                            raise InputError(f"{archive}: member {member.name!r} lies about size")
                        out.write(chunk)
    except InputError:
        tmp.cleanup()
        raise
    except (tarfile.TarError, OSError, EOFError, ValueError) as exc:
        tmp.cleanup()
        raise InputError(f"{archive}: truncated or corrupt archive ({_one_line(exc)})") from exc
    return tmp


def bundle_root(extracted: Path) -> Path:
    """A tar of one directory holds that directory: descend into it when it is alone."""
    entries = [p for p in extracted.iterdir() if not p.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir() and not (extracted / "cluster").exists():
        inner = entries[0]
        if any((inner / d).exists() for d in ("cluster", "nodes", "manifest.json", "logs")):
            return inner
    return extracted
