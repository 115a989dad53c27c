"""Version strings of the host: ``containerd --version``, ``/proc/driver/nvidia/version``,
``uname -a`` and ``/etc/os-release``.

Why: containerd's merge rules depend on its version (facts.md §1), the driver version must
match Fabric Manager's and the userspace (``NVRM: API mismatch``), and the kernel/OS decide
which precompiled driver image fits (seed §3).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

__all__ = [
    "ContainerdVersion",
    "Uname",
    "parse_containerd_version",
    "parse_driver_version",
    "parse_fabricmanager_version",
    "parse_os_release",
    "parse_uname",
    "version_tuple",
]

_SEMVER = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")


def version_tuple(text: str) -> tuple[int, int, int] | None:
    """``v1.7.27``, ``1.6.20~ds1``, ``2.0.0-rc.6`` → (major, minor, patch)."""
    m = _SEMVER.search(text)
    if not m:
        return None
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))


@dataclass(frozen=True, slots=True)
class ContainerdVersion:
    raw: str
    package: str
    version: str
    revision: str

    @property
    def tuple(self) -> tuple[int, int, int] | None:
        return version_tuple(self.version)


def parse_containerd_version(text: str) -> ContainerdVersion | None:
    """``containerd containerd.io 1.7.27 05044ec0…`` (Docker's package) or
    ``containerd github.com/containerd/containerd/v2 v2.0.0 207ad711…`` (upstream / distro,
    e.g. Debian's ``1.6.20~ds1 1.6.20~ds1-1+b1``)."""
    for raw in text.splitlines():
        parts = raw.split()
        if len(parts) >= 3 and parts[0] == "containerd" and _SEMVER.match(parts[2]):
            return ContainerdVersion(raw.strip(), parts[1], parts[2].lstrip("v"),
                                     parts[3] if len(parts) > 3 else "")
    return None


_DRIVER = re.compile(
    r"NVRM version:.*?(?:Kernel Module|Module for \S+)\s+(?P<v>\d+\.\d+(?:\.\d+)?)")


def parse_driver_version(text: str) -> str | None:
    """``NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  …`` → ``580.95.05``."""
    m = _DRIVER.search(text)
    return m.group("v") if m else None


_FM = re.compile(r"Fabric Manager version is\s*:?\s*(?P<v>\d+\.\d+(?:\.\d+)?)", re.I)


def parse_fabricmanager_version(text: str) -> str | None:
    """``nv-fabricmanager --version`` → ``Fabric Manager version is : 580.95.05``."""
    m = _FM.search(text)
    return m.group("v") if m else None


@dataclass(frozen=True, slots=True)
class Uname:
    kernel_name: str
    hostname: str
    release: str
    machine: str
    raw: str


def parse_uname(text: str) -> Uname | None:
    """``Linux gpu-1 5.15.0-126-generic #136-Ubuntu SMP … x86_64 x86_64 x86_64 GNU/Linux``."""
    for raw in text.splitlines():
        parts = raw.split()
        if len(parts) >= 3 and parts[0] in ("Linux", "Darwin", "FreeBSD"):
            machine = parts[-2] if len(parts) >= 5 and parts[-1] == "GNU/Linux" else parts[-1]
            return Uname(parts[0], parts[1], parts[2], machine, raw.strip())
    return None


def parse_os_release(text: str) -> dict[str, str]:
    """``KEY=value`` / ``KEY="quoted value"`` lines (os-release(5)); junk skipped."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", key):
            continue
        try:
            words = shlex.split(value)
        except ValueError:
            words = [value.strip("\"'")]
        out[key] = " ".join(words)
    return out
