"""What ``gpuxray node --root /host --agent`` runs inside the node agent pod.

Plain ``--root`` never executes anything (a fake tree). In the agent the tree is the real host,
mounted read-only, and a few BUNDLE.md commands give the host's answer from inside an
unprivileged container, so they run — with their paths pointed at the mounts:

* ``journalctl --directory <root>/var/log/journal`` (or ``/run/log/journal``): the unit's
  restarts (seed §5: the SIGHUP-then-restart of facts.md §2.3);
* ``dmesg -T`` (needs ``CAP_SYSLOG`` when ``kernel.dmesg_restrict=1``), else the kernel journal:
  Xid lines (facts.md §8);
* ``uname -a`` and ``lsmod`` (``/proc/modules``): the kernel is the host's;
* ``stat`` of the containerd files under the root, printed with host paths (mtime vs restart);
* ``/proc/driver/nvidia/version`` is kernel-global, so it is read from the container's own
  ``/proc`` instead of a hostPath mount (which would fail on a node without the module).

Everything else (``containerd config dump``, ``crictl``, ``systemctl``, ``nvidia-smi``) needs the
host's daemons or driver libraries, which the agent deliberately has no access to: those stay
"not collected", so their checks say *unknown*.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from gpuxray.sources.host import CONTAINERD_DIRS, HostCollection, collect_host, run_command

__all__ = ["AGENT_COMMANDS", "agent_runner"]

# (bundle name, alternatives); "{root}" is the host root mount.
AGENT_COMMANDS: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = (
    ("journal-containerd.txt", tuple(
        ("journalctl", "--directory", f"{{root}}{d}", "-u", "containerd", "--since", "-7d",
         "-o", "short-iso", "--no-pager") for d in ("/var/log/journal", "/run/log/journal"))),
    ("dmesg.txt", (
        ("dmesg", "-T"),
        ("journalctl", "--directory", "{root}/var/log/journal", "-k", "-o", "short-iso",
         "--no-pager"),
        ("journalctl", "--directory", "{root}/run/log/journal", "-k", "-o", "short-iso",
         "--no-pager"))),
    ("uname.txt", (("uname", "-a"),)),
    ("lsmod.txt", (("lsmod",),)),
)
PROC_NVIDIA_VERSION = "proc/driver/nvidia/version"


def _journal_dir_exists(argv: tuple[str, ...]) -> bool:
    if "--directory" not in argv:
        return True
    return Path(argv[argv.index("--directory") + 1]).is_dir()


Runner = Callable[[Path | None, Iterable[str], float, list[str]],
                  tuple[dict[str, str], dict[str, str]]]


def agent_runner() -> Runner:
    """A ``collect_host`` runner for the agent."""

    def run(root: Path | None, files: Iterable[str], timeout: float,
            notes: list[str]) -> tuple[dict[str, str], dict[str, str]]:
        base = str(root or "/").rstrip("/")
        cmds: dict[str, str] = {}
        errs: dict[str, str] = {}
        for name, alternatives in AGENT_COMMANDS:
            err = ""
            for alt in alternatives:
                argv = tuple(a.replace("{root}", base) for a in alt)
                if not _journal_dir_exists(argv):
                    err += f"{argv[argv.index('--directory') + 1]}: no journal here\n"
                    continue
                out, e = run_command(argv, timeout)
                if out is not None:
                    cmds[name] = out
                    break
                err += (e or "") + "\n"
            else:
                errs[name] = err.strip() or "not run"
        conf = sorted(f for f in files if f.startswith(CONTAINERD_DIRS))
        if conf:
            out, e = run_command(("stat", "-c", "%n %Y", *(f"{base}/{f}" for f in conf)),
                                 timeout)
            if out is not None:
                cmds["stat-containerd-config.txt"] = "".join(
                    line[len(base):] + "\n" if line.startswith(base + "/") else line + "\n"
                    for line in out.splitlines())
            elif e is not None:
                errs["stat-containerd-config.txt"] = e
        notes.append("agent mode: host files under the read-only mounts; journal, dmesg, uname, "
                     "lsmod and stat run in the agent container")
        return cmds, errs

    return run


def proc_files(proc: Path = Path("/proc")) -> dict[str, str]:
    """Kernel-global /proc files the agent copies as host files (BUNDLE.md ``files/proc/…``)."""
    p = proc / "driver" / "nvidia" / "version"
    try:
        return {PROC_NVIDIA_VERSION: p.read_text(errors="replace")} if p.is_file() else {}
    except OSError:
        return {}


def agent_collect(root: str | None, name: str | None, *, timeout: float,
                  proc: Path = Path("/proc")) -> HostCollection:
    """``collect_host`` in agent mode: the runner above, plus the kernel-global /proc files."""
    col = collect_host(root, name, timeout=timeout, runner=agent_runner())
    for rel, text in proc_files(proc).items():
        col.facts.files.setdefault(rel, text)
    col.notes[:] = [n for n in col.notes if "(not executed)" not in n]
    col.executed = True
    return col
