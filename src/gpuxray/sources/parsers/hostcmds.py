"""Short host command outputs tickets paste: ``uname -r|-a``, ``cat /proc/driver/nvidia/version``,
``nvidia-ctk --version``, ``nvidia-container-cli info`` and ``lsmod | grep …``.

Why: each one settles a question the node checks ask (which kernel, which driver module is
loaded, which toolkit, which GPUs the container stack sees, whether nouveau or nvidia is
loaded), and each prints a small fixed shape:

- ``/proc/driver/nvidia/version`` (NVIDIA/open-gpu-kernel-modules@580.95.05:
  kernel-open/nvidia/nv-procfs.c): ``NVRM version: NVIDIA UNIX x86_64 Kernel Module  <v>  <date>``
  then ``GCC version:``; the open modules say ``NVIDIA UNIX Open Kernel Module for x86_64``.
- ``nvidia-ctk --version`` (NVIDIA/nvidia-container-toolkit@v1.17.0:cmd/nvidia-ctk/main.go):
  ``NVIDIA Container Toolkit CLI version <v>`` and ``commit: <sha>``; the toolkit's other
  binaries print their own name the same way (``NVIDIA CDI Hook version <v>``,
  cmd/nvidia-cdi-hook/main.go; ``NVIDIA Container Runtime version <v>``,
  internal/runtime/runtime.go; ``NVIDIA Container Runtime Hook version <v>``,
  cmd/nvidia-container-runtime-hook/main.go), one version for all of them. A package list
  shows it too: ``dpkg -l`` (``ii  nvidia-container-toolkit  1.17.0-1  amd64``), ``apt list``
  (``nvidia-container-toolkit/<suite> 1.17.0-1 amd64``), ``rpm -qa``
  (``nvidia-container-toolkit-1.17.0-1.x86_64``), dnf/yum's transaction table
  (``nvidia-container-toolkit  x86_64  1.17.0-1  <repo>``).
- ``nvidia-container-cli info`` (NVIDIA/libnvidia-container@v1.17.0:src/cli/info.c):
  ``NVRM version:``, ``CUDA version:``, then per GPU ``Device Index``, ``Model``, ``GPU UUID``,
  ``Bus Location``, ``Architecture``; ``-V`` prints ``cli-version:``/``lib-version:`` (``version:``
  before 1.1).
- ``lsmod | grep PATTERN`` keeps only the matching rows: a module the pattern covers and the
  rows lack is not loaded, any other module is unknown.

Bounded: line-by-line, anchored patterns, lines cut by the caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CliGpu", "CliInfo", "ctk_version", "driver_version_file", "lsmod_grep",
           "parse_container_cli_info", "uname_release"]

_NVRM = re.compile(r"^[ \t]*NVRM version:[ \t]+NVIDIA UNIX[ \t]+.{0,80}?Kernel Module"
                   r"(?: for \S+)?[ \t]+(\d+\.\d+(?:\.\d+)?)\b")
_CTK = re.compile(r"^[ \t]*NVIDIA (?:Container Toolkit CLI|CDI Hook|Container Runtime(?: Hook)?)"
                  r" version[ \t:]+v?(\d+\.\d+\.\d+\S{0,20})")
_CTK_PACKAGE = re.compile(r"^[ \t]*(?:[a-z]{2}[ \t]+)?nvidia-container-toolkit(?:-base)?"
                          r"(?::\w+[ \t]+|/\S+[ \t]+|[ \t]+(?:(?:x86_64|aarch64|ppc64le|noarch)"
                          r"[ \t]+)?|-(?=\d+\.\d+\.\d+-\S*\.(?:x86_64|aarch64|ppc64le)\b))"
                          r"v?(\d+\.\d+\.\d+)(?:[-~]\S{0,20})?")
_RELEASE = re.compile(r"^[ \t]*(\d+\.\d+(?:\.\d+)?[\w.+~-]{0,80})[ \t]*$")


def driver_version_file(text: str) -> str:
    """The ``/proc/driver/nvidia/version`` lines of ``text`` ("" when it holds none)."""
    lines = text.splitlines()
    for i, ln in enumerate(lines[:2000]):
        if _NVRM.match(ln):
            tail = [x for x in lines[i + 1:i + 2] if x.lstrip().startswith("GCC version")]
            return "\n".join([ln.strip(), *(t.strip() for t in tail)]) + "\n"
    return ""


def ctk_version(text: str) -> str:
    """The toolkit version a binary's ``--version`` prints, else the one a package list shows
    ("" when neither is there)."""
    package = ""
    for ln in text.splitlines()[:2000]:
        m = _CTK.match(ln)
        if m:
            return m.group(1)
        if not package and "nvidia-container-toolkit" in ln:
            p = _CTK_PACKAGE.match(ln)
            package = p.group(1) if p else ""
    return package


def uname_release(text: str) -> str:
    """``uname -r`` (a lone release line) or ``uname -a`` → the kernel release."""
    for ln in text.splitlines()[:50]:
        parts = ln.split()
        if len(parts) >= 3 and parts[0] == "Linux":
            return parts[2]
        m = _RELEASE.match(ln)
        if m:
            return m.group(1)
    return ""


@dataclass(frozen=True, slots=True)
class CliGpu:
    index: int
    model: str
    uuid: str
    bus: str
    architecture: str


@dataclass(frozen=True, slots=True)
class CliInfo:
    driver: str  # NVRM version ("" when not shown)
    cuda: str
    gpus: tuple[CliGpu, ...]
    cli_version: str = ""


_KV = re.compile(r"^[ \t]*([A-Za-z][A-Za-z .-]{1,40}):[ \t]*(.{0,300}?)[ \t]*$")


def parse_container_cli_info(text: str) -> CliInfo | None:
    """``nvidia-container-cli info`` (or ``-V``) → what it printed; None when neither."""
    driver = cuda = cli = ""
    gpus: list[CliGpu] = []
    cur: dict[str, str] = {}

    def flush() -> None:
        if "Device Index" in cur:
            idx = cur["Device Index"]
            gpus.append(CliGpu(int(idx) if idx.isdigit() else len(gpus), cur.get("Model", ""),
                               cur.get("GPU UUID", ""), cur.get("Bus Location", ""),
                               cur.get("Architecture", "")))
        cur.clear()

    for ln in text.splitlines()[:20000]:
        m = _KV.match(ln)
        if not m:
            continue
        key, value = m.group(1).strip(), m.group(2)
        if key == "NVRM version":
            driver = value
        elif key == "CUDA version":
            cuda = value
        elif key in ("cli-version", "version") and not cli:
            cli = value
        elif key == "Device Index":
            flush()
            cur[key] = value
        elif cur and key in ("Model", "GPU UUID", "Bus Location", "Architecture", "Brand",
                             "Device Minor"):
            cur[key] = value
        if len(gpus) >= 1024:
            break
    flush()
    if not (driver or gpus or cli):
        return None
    return CliInfo(driver, cuda, tuple(gpus), cli)


def lsmod_grep(command: str) -> tuple[str, ...] | None:
    """The words a ``lsmod | grep …`` pipeline keeps (``grep -E 'nvidia|nouveau'``,
    ``grep -i nvidia``, ``egrep "a|b"``); None when the pipeline does not filter (the whole
    lsmod) and ``("",)`` when it filters by something this cannot read (every absence
    unknown)."""
    stages = command.split("|", 1)
    if len(stages) < 2:
        return None
    rest = stages[1]
    m = re.match(r"\s*(?:e?grep|rg)\b((?:\s+-[\w-]+)*)\s+(['\"]?)(.{1,200}?)\2\s*(?:\||$)", rest)
    if not m:
        return ("",)
    if "v" in (m.group(1) or "").replace("-", ""):
        return ("",)  # grep -v: it keeps what does not match
    pattern = m.group(3).replace("\\|", "|")
    words = tuple(w.strip().lower() for w in pattern.split("|") if w.strip())
    return words if all(re.fullmatch(r"[\w-]{1,40}", w) for w in words) else ("",)
