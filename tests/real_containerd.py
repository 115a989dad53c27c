"""Where the real containerd binaries are, for tests that use them as oracles.

``scripts/oracles/containerd.sh`` builds one release per supported line into
``.cache/containerd-builds/<version>/containerd``; ``scripts/test`` extracts Debian's 1.6 package
into ``.cache/containerd`` (path in ``GPUXRAY_CONTAINERD``).

- :func:`binaries`: version -> binary, every one that exists.
- :func:`expected_versions`: the versions the build script builds (its ``DEFAULT_VERSIONS``).
- :func:`require`: the binaries a test needs; with ``CI`` set a missing one fails the test, on a
  developer machine the test is skipped saying which binary is missing and how to build it.
- :func:`config_dump`: ``containerd --config X config dump`` -> (rc, stdout, stderr).
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from pathlib import Path

import pytest

from gpuxray.sources.parsers.versions import parse_containerd_version

REPO = Path(__file__).resolve().parents[1]
BUILDS = REPO / ".cache" / "containerd-builds"
BUILD_SCRIPT = REPO / "scripts" / "oracles" / "containerd.sh"
DEBIAN_BINARY = REPO / ".cache" / "containerd" / "usr" / "bin" / "containerd"


def _key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def expected_versions() -> list[str]:
    """The versions ``scripts/oracles/containerd.sh`` builds by default."""
    m = re.search(r"^DEFAULT_VERSIONS=\(([^)]*)\)", BUILD_SCRIPT.read_text(), re.M)
    assert m is not None, f"{BUILD_SCRIPT} has no DEFAULT_VERSIONS"
    return m.group(1).split()


def _debian() -> Path:
    return Path(os.environ.get("GPUXRAY_CONTAINERD") or DEBIAN_BINARY)


@functools.lru_cache(maxsize=8)
def _version_of(binary: Path) -> str | None:
    try:
        p = subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                           timeout=30, check=False)
    except OSError:
        return None
    cv = parse_containerd_version(p.stdout)
    return ".".join(str(x) for x in cv.tuple) if cv is not None else None


def debian_version() -> str | None:
    b = _debian()
    return _version_of(b) if os.access(b, os.X_OK) else None


def binaries() -> dict[str, Path]:
    """Every real containerd binary present, keyed by version, oldest first."""
    found: dict[str, Path] = {}
    deb = debian_version()
    if deb is not None:
        found[deb] = _debian()
    if BUILDS.is_dir():
        for d in BUILDS.iterdir():
            b = d / "containerd"
            if os.access(b, os.X_OK) and re.fullmatch(r"\d+\.\d+\.\d+\S*", d.name):
                found[d.name] = b
    return dict(sorted(found.items(), key=lambda kv: _key(kv[0])))


def require(*versions: str) -> dict[str, Path]:
    """The binaries of ``versions`` (default: Debian's and every built one); fail in CI, skip
    elsewhere, when one is missing."""
    have = binaries()
    want = list(versions) or ["debian", *expected_versions()]
    missing = []
    for v in want:
        if v == "debian":
            if debian_version() is None:
                missing.append(f"Debian's containerd at {_debian()} (scripts/test extracts it)")
        elif v not in have:
            missing.append(f"{BUILDS / v / 'containerd'} (bash {BUILD_SCRIPT.relative_to(REPO)}"
                           f" {v})")
    if missing:
        msg = "real containerd missing: " + "; ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    if versions:
        return {v: have[v] for v in versions if v != "debian"}
    return have


def config_dump(binary: Path, config: Path, *, cwd: Path | None = None,
                timeout: float = 60) -> tuple[int, str, str]:
    """``containerd --config CONFIG config dump``: (exit status, stdout, stderr)."""
    p = subprocess.run([str(binary), "--config", str(config), "config", "dump"],
                       cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    return p.returncode, p.stdout, p.stderr
