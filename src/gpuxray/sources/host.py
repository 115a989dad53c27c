"""The node source: this host's files and command outputs, read into BUNDLE.md's
``nodes/<node>/`` layout (``files/<host path>``, ``cmd/<name>``) and into a ``HostFacts``.

``root`` prefixes every host path, so tests and offline analysis run on a fake host tree.
With a root, commands are NEVER executed: the output of command ``<name>`` is read from
``<root>/.gpuxray-cmd/<name>`` (and a failure from ``<root>/.gpuxray-cmd/<name>.err``); a
command with neither is "not collected". So ``--root`` alone gives a deterministic run.
Without a root, the commands of the BUNDLE.md table run with a timeout; a failing command
leaves ``<name>.err`` (stderr and exit status), an absent binary is recorded as such.

Registry credentials in containerd configs and in ``crictl info`` (``auth``, ``password``,
``identitytoken``, ``token``) are replaced by ``"<redacted>"`` before anything is kept.

Optional NVML (extra ``nvml``, package nvidia-ml-py): when ``pynvml`` imports and NVML
initialises, GPU facts are recorded as ``cmd/nvml.json``; otherwise a note says why.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuxray import __version__
from gpuxray.errors import InputError, UsageError
from gpuxray.knowledge.distributions import DISTRIBUTIONS, RKE2, unit_paths
from gpuxray.model.snapshot import HostFacts, Input, InputState, Snapshot
from gpuxray.sources.files import HOST_FILE_LIMIT, read_tail
from gpuxray.sources.redact import REDACTED as REDACTED_TEXT
from gpuxray.sources.redact import redact_text

__all__ = [
    "COMMANDS",
    "CONTAINERD_DIRS",
    "FAKE_CMD_DIR",
    "FILE_PATTERNS",
    "HostCollection",
    "collect_host",
    "host_snapshot",
    "is_containerd_file",
    "redact",
    "save_host",
]

FAKE_CMD_DIR = ".gpuxray-cmd"
DEFAULT_TIMEOUT = 15.0

# Host files (paths without the leading "/"; ``*`` globs). containerd's imports are followed
# on top of these (facts.md §1.1).
FILE_PATTERNS: tuple[str, ...] = (
    "etc/containerd/config.toml",
    "etc/containerd/conf.d/*.toml",
    "etc/containerd/config.d/*.toml",
    "etc/cdi/*.yaml", "etc/cdi/*.json",
    "var/run/cdi/*.yaml", "var/run/cdi/*.json",
    "etc/systemd/system/containerd.service",
    "etc/systemd/system/containerd.service.d/*.conf",
    "run/systemd/system/containerd.service.d/*.conf",
    "lib/systemd/system/containerd.service",
    "usr/lib/systemd/system/containerd.service",
    "usr/lib/systemd/system/containerd.service.d/*.conf",
    "etc/os-release",
    "proc/driver/nvidia/version",
    "etc/apt/apt.conf.d/*unattended*",
    "etc/apt/apt.conf.d/*auto-upgrades*",
    "etc/apt/apt.conf.d/*periodic*",
    # k3s/RKE2: the config their own containerd reads, the user's template that renders it,
    # and the version-3 drop-ins (knowledge/distributions.py)
    *(f"{d.config_dir.lstrip('/')}/{name}" for d in DISTRIBUTIONS
      for name in ("config.toml", "config.toml.tmpl", "config-v3.toml.tmpl",
                   "config.toml.d/*.toml", "config-v3.toml.d/*.toml")),
    *unit_paths(),  # the k3s/RKE2 service whose child containerd is (its Restart=)
)
CONTAINERD_DIRS: tuple[str, ...] = ("etc/containerd/",
                                    *(d.config_dir.lstrip("/") + "/" for d in DISTRIBUTIONS))


def is_containerd_file(rel: str) -> bool:
    """A containerd config file or k3s/RKE2 template (host path without "/"): redacted as TOML,
    its ``imports`` followed, its mtime stat'ed."""
    return rel.startswith(CONTAINERD_DIRS) and rel.endswith((".toml", ".tmpl"))


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """A BUNDLE.md command; ``alternatives`` are tried in order when one fails."""

    name: str
    alternatives: tuple[tuple[str, ...], ...]


_STATIC_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("containerd-version.txt", (("containerd", "--version"),
                                           (f"{RKE2.data_dir}/bin/containerd", "--version"))),
    # RKE2 keeps its containerd and crictl in its own bin dir, off PATH; k3s links crictl
    # into /usr/local/bin (its install.sh) and answers on its own socket
    CommandSpec("containerd-config-dump.toml", (
        ("containerd", "config", "dump"),
        (f"{RKE2.data_dir}/bin/containerd", "--config", RKE2.config, "config", "dump"))),
    CommandSpec("crictl-info.json", (
        ("crictl", "info"),
        (f"{RKE2.data_dir}/bin/crictl", "--runtime-endpoint", f"unix://{RKE2.socket}",
         "info"))),
    CommandSpec("systemctl-show-containerd.txt", (
        ("systemctl", "show", "containerd", "-p",
         "Restart,RestartUSec,ActiveEnterTimestamp,ExecMainPID,ExecMainStartTimestamp,NRestarts"),)),
    CommandSpec("journal-containerd.txt", (
        ("journalctl", "-u", "containerd", "--since", "-7d", "-o", "short-iso", "--no-pager"),)),
    CommandSpec("dmesg.txt", (("dmesg", "-T"),
                              ("journalctl", "-k", "-o", "short-iso", "--no-pager"))),
    CommandSpec("nvidia-smi.txt", (("nvidia-smi",),)),
    CommandSpec("nvidia-smi-q.xml", (("nvidia-smi", "-q", "-x"),)),
    CommandSpec("nvidia-smi-topo.txt", (("nvidia-smi", "topo", "-m"),)),
    CommandSpec("lsmod.txt", (("lsmod",),)),
    CommandSpec("uname.txt", (("uname", "-a"),)),
    CommandSpec("mokutil-sb-state.txt", (("mokutil", "--sb-state"),)),
    CommandSpec("systemctl-show-fabricmanager.txt", (
        ("systemctl", "show", "nvidia-fabricmanager", "-p", "ActiveState,SubState,LoadState"),)),
    CommandSpec("lspci-nvidia.txt", (("lspci", "-nn", "-d", "10de:"),)),
    CommandSpec("nv-fabricmanager-version.txt", (("nv-fabricmanager", "--version"),)),
)
COMMANDS: tuple[str, ...] = (*(c.name for c in _STATIC_COMMANDS), "stat-containerd-config.txt",
                             "nvml.json")

_SECRET_KEYS = r"auth|password|identitytoken|token"
_TOML_SECRET = re.compile(
    rf"""(?P<key>(?<![\w.-])(?:["']?)(?:{_SECRET_KEYS})(?:["']?)\s*=\s*)"""
    r"""(?P<val>"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^,}\s#{\[][^,}\s#]*)""", re.I)
_JSON_SECRET = re.compile(
    rf"""(?P<key>"(?:{_SECRET_KEYS})"\s*:\s*)(?P<val>"(?:[^"\\]|\\.)*")""", re.I)
REDACTED = f'"{REDACTED_TEXT}"'  # the shared marker, as a TOML/JSON string


def redact(text: str, kind: str = "toml") -> str:
    """Replace registry credentials by ``"<redacted>"`` (TOML ``key = value`` incl. inline
    tables, or JSON ``"key": "value"``). Keys such as ``token_file`` are left alone."""
    pat = _JSON_SECRET if kind == "json" else _TOML_SECRET
    return pat.sub(lambda m: m.group("key") + REDACTED, text)


def redact_host_text(rel: str, text: str) -> str:
    """Redact one host file (``rel``) or command output (``cmd:NAME``): the structured rules
    for containerd TOML and ``crictl info`` JSON, the free-text rules for command outputs."""
    kind = redact_kind(rel)
    if kind:
        return redact(text, kind)
    return redact_text(text) if rel.startswith("cmd:") else text


def redact_kind(rel: str) -> str | None:
    """Which structured redaction a host file or command output takes (``toml``, ``json``),
    or None for none; shared with the node agent and the operand reader, which save the same
    files."""
    if is_containerd_file(rel):
        return "toml"
    if rel == "cmd:containerd-config-dump.toml":
        return "toml"
    if rel == "cmd:crictl-info.json":
        return "json"
    return None


@dataclass
class HostCollection:
    facts: HostFacts
    root: str
    notes: list[str] = field(default_factory=list)
    executed: bool = False


# ----- files ---------------------------------------------------------------------------------

def _host_path(root: Path, rel: str) -> Path:
    """``root/rel`` with symlinks resolved inside ``root``: an absolute link target on a fake
    host tree means ``root/<target>``, never this machine's file."""
    if str(root) == "/":
        return root / rel
    parts = list(Path(rel).parts)
    cur = root
    hops = 0
    while parts:
        part = parts.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            cur = cur.parent if cur != root else root
            continue
        nxt = cur / part
        if nxt.is_symlink():
            hops += 1
            if hops > 16:
                return nxt  # a loop: let the caller see an unreadable path
            target = os.readlink(nxt)
            if os.path.isabs(target):
                cur = root
            parts = list(Path(target).parts[1 if os.path.isabs(target) else 0:]) + parts
            continue
        cur = nxt
    return cur


def _read_file(p: Path) -> str:
    return read_tail(p, HOST_FILE_LIMIT)


def _containerd_imports(text: str, rel: str) -> list[str]:
    """``imports`` of a containerd config, as host paths without "/" (relative entries are
    joined to the importing file's directory; facts.md §1.1)."""
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return []
    imports = doc.get("imports")
    if not isinstance(imports, list):
        return []
    out = []
    for imp in imports:
        if not isinstance(imp, str) or not imp:
            continue
        path = imp if imp.startswith("/") else os.path.join("/" + os.path.dirname(rel), imp)
        out.append(os.path.normpath(path).lstrip("/"))
    return out


def _expand(root: Path, pattern: str) -> list[str]:
    if "*" not in pattern:
        p = _host_path(root, pattern)
        return [pattern] if p.exists() or p.is_symlink() else []
    base = str(root)
    return sorted(os.path.relpath(m, base) for m in glob.glob(os.path.join(base, pattern)))


def _collect_files(root: Path) -> tuple[dict[str, str], dict[str, str]]:
    files: dict[str, str] = {}
    unreadable: dict[str, str] = {}
    queue: list[str] = []
    for pat in FILE_PATTERNS:
        queue.extend(_expand(root, pat))
    seen: set[str] = set()
    while queue:
        rel = queue.pop(0)
        if rel in seen or rel.startswith("..") or os.path.isabs(rel):
            continue
        seen.add(rel)
        p = _host_path(root, rel)
        if not p.is_file() or (p.is_symlink() and str(root) != "/"):
            if p.exists() or p.is_symlink():
                unreadable[rel] = "not a regular file"
            continue
        try:
            text = _read_file(p)
        except OSError as exc:
            unreadable[rel] = exc.strerror or str(exc)
            continue
        kind = redact_kind(rel)
        files[rel] = redact(text, kind) if kind else text
        if is_containerd_file(rel) and rel.endswith(".toml"):
            for imp in _containerd_imports(text, rel):
                queue.extend(_expand(root, imp) if "*" in imp else [imp])
    return files, unreadable


# ----- commands ------------------------------------------------------------------------------

def run_command(argv: tuple[str, ...], timeout: float) -> tuple[str | None, str | None]:
    """(stdout, None) on success, (None, error text) on failure; never raises. Shared with the
    node agent."""
    if shutil.which(argv[0]) is None:
        return None, f"command not found: {argv[0]}\nexit status 127"
    env = {**os.environ, "LC_ALL": "C", "SYSTEMD_PAGER": "", "SYSTEMD_COLORS": "0"}
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, env=env, check=False)
    except subprocess.TimeoutExpired:
        return None, f"{' '.join(argv)}: timed out after {timeout:g}s\nexit status 124"
    except OSError as exc:
        return None, f"{' '.join(argv)}: {exc.strerror or exc}\nexit status 126"
    out = proc.stdout.decode("utf-8", errors="replace")
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", errors="replace").strip()
        return None, f"{err}\nexit status {proc.returncode}".lstrip()
    return out, None


def _fake(root: Path, name: str) -> tuple[str | None, str | None]:
    d = root / FAKE_CMD_DIR
    out, err = d / name, d / f"{name}.err"
    try:
        if out.is_file():
            return _read_file(out), None
        if err.is_file():
            return None, _read_file(err)
    except OSError as exc:
        return None, f"{exc.strerror or exc}"
    return None, None


def _nvml() -> tuple[str | None, str]:
    """GPU facts from NVML as JSON, or (None, why not)."""
    try:
        import pynvml
    except ImportError:
        return None, "NVML skipped: pynvml (extra 'nvml') is not installed"
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # NVMLError and loader errors: no driver here
        return None, f"NVML skipped: nvmlInit failed ({exc})"
    try:
        def s(v: Any) -> str:
            return v.decode() if isinstance(v, bytes) else str(v)

        gpus: list[dict[str, Any]] = []
        for i in range(pynvml.nvmlDeviceGetCount()):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            mem = pynvml.nvmlDeviceGetMemoryInfo(h)
            try:
                cur, pend = pynvml.nvmlDeviceGetMigMode(h)
                mig: dict[str, Any] = {"current": int(cur), "pending": int(pend)}
            except Exception:  # not supported on this GPU
                mig = {"current": None, "pending": None}
            gpus.append({"index": i, "name": s(pynvml.nvmlDeviceGetName(h)),
                         "uuid": s(pynvml.nvmlDeviceGetUUID(h)),
                         "pci_bus_id": s(pynvml.nvmlDeviceGetPciInfo(h).busId),
                         "mig_mode": mig, "memory_total": int(mem.total),
                         "memory_used": int(mem.used)})
        doc = {"driver_version": s(pynvml.nvmlSystemGetDriverVersion()), "gpus": gpus}
        return json.dumps(doc, indent=2) + "\n", "NVML: recorded cmd/nvml.json"
    except Exception as exc:
        return None, f"NVML skipped: query failed ({exc})"
    finally:
        with contextlib.suppress(Exception):
            pynvml.nvmlShutdown()


def _collect_cmds(root: Path | None, files: Iterable[str], timeout: float,
                  notes: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    cmds: dict[str, str] = {}
    errs: dict[str, str] = {}

    def keep(name: str, out: str | None, err: str | None) -> None:
        if out is not None:
            cmds[name] = redact_host_text(f"cmd:{name}", out)
        elif err is not None:
            errs[name] = err

    if root is not None:
        for name in COMMANDS:
            keep(name, *_fake(root, name))
        return cmds, errs

    for spec in _STATIC_COMMANDS:
        out: str | None = None
        err: str | None = None
        for argv in spec.alternatives:
            out, e = run_command(argv, timeout)
            if out is not None:
                err = None
                break
            err = e if err is None else f"{err}\n{e}"
        if err and "command not found" in err and out is None:
            notes.append(f"{spec.name}: {err.splitlines()[0]}")
        keep(spec.name, out, err)
    conf = sorted("/" + f for f in files if f.startswith(CONTAINERD_DIRS))
    if conf:
        keep("stat-containerd-config.txt", *run_command(("stat", "-c", "%n %Y", *conf), timeout))
    nv, note = _nvml()
    notes.append(note)
    if nv is not None:
        cmds["nvml.json"] = nv
    return cmds, errs


# ----- public API ----------------------------------------------------------------------------

_NODE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$")


def node_name(root: Path | None, name: str | None) -> str:
    """``name``, else the fake tree's ``etc/hostname`` (deterministic), else the hostname."""
    if not name and root is not None:
        hn = root / "etc" / "hostname"
        if hn.is_file():
            name = hn.read_text(errors="replace").strip().split(".")[0]
    if not name:
        name = socket.gethostname().split(".")[0]
    if not _NODE_NAME.match(name):
        raise UsageError(f"invalid node name {name!r} (letters, digits, '.', '_', '-')")
    return name


def collect_host(root: str | os.PathLike[str] | None = None, name: str | None = None, *,
                 timeout: float = DEFAULT_TIMEOUT,
                 runner: Callable[[Path | None, Iterable[str], float, list[str]],
                                  tuple[dict[str, str], dict[str, str]]] | None = None,
                 ) -> HostCollection:
    """Read this host (or the tree under ``root``) into ``HostFacts``."""
    rp = Path(root) if root is not None else None
    if rp is not None and not rp.is_dir():
        raise InputError(f"{rp}: --root is not a directory")
    node = node_name(rp, name)
    files, unreadable = _collect_files(rp if rp is not None else Path("/"))
    notes: list[str] = []
    cmds, errs = (runner or _collect_cmds)(rp, files, timeout, notes)
    if rp is not None:
        notes.append(f"commands read from {rp / FAKE_CMD_DIR} (not executed)")
    facts = HostFacts(node, files, cmds, errs, unreadable)
    return HostCollection(facts, str(rp) if rp else "/", notes, executed=rp is None)


def host_snapshot(col: HostCollection) -> Snapshot:
    """A Snapshot holding just this host: HOSTS collected, cluster inputs not."""
    src = f"host:{col.root}"
    return Snapshot(inputs={Input.HOSTS: InputState(True, src)},
                    hosts={col.facts.node: col.facts}, origin=src)


def _safe_rel(rel: str) -> bool:
    parts = Path(rel).parts
    return bool(parts) and not Path(rel).is_absolute() and ".." not in parts


def save_host(facts: HostFacts, dest: str | os.PathLike[str]) -> Path:
    """Write ``dest/nodes/<node>/{files,cmd}`` (a valid bundle dir). Other nodes and an
    existing manifest are left alone; a fresh ``manifest.json`` is written only when absent."""
    root = Path(dest)
    if root.exists() and not root.is_dir():
        raise InputError(f"{root}: --save target is not a directory")
    ndir = root / "nodes" / facts.node
    try:
        for rel, text in sorted(facts.files.items()):
            if not _safe_rel(rel):
                continue
            p = ndir / "files" / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
        cdir = ndir / "cmd"
        cdir.mkdir(parents=True, exist_ok=True)
        for name, text in sorted(facts.cmds.items()):
            if _safe_rel(name) and "/" not in name:
                (cdir / name).write_text(text, encoding="utf-8")
                (cdir / f"{name}.err").unlink(missing_ok=True)
        for name, text in sorted(facts.cmd_errors.items()):
            if _safe_rel(name) and "/" not in name:
                (cdir / f"{name}.err").write_text(text, encoding="utf-8")
                (cdir / name).unlink(missing_ok=True)
        manifest = root / "manifest.json"
        if not manifest.exists():
            now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            manifest.write_text(json.dumps({
                "format": "gpuxray-bundle/1", "collected_at": now,
                "collector": f"gpuxray {__version__}", "source": {"kind": "node"},
                "errors": []}, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{root}: cannot write bundle ({exc.strerror or exc})") from exc
    return root
