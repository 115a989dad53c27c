"""``nvidia-bug-report.log.gz`` → a node's host facts in the bundle's shape (BUNDLE.md ``nodes/``).

Why: must-gather runs ``nvidia-bug-report.sh`` in each driver pod and keeps
``nvidia-bug-report_<node>.log.gz``: the only host-level evidence it has — the loaded driver
(``/proc/driver/nvidia/version``), the kernel log with Xids (facts.md §8), loaded modules
(nouveau, seed §3), ``nvidia-smi`` and Fabric Manager's unit state. Turning its sections into the
same ``files``/``cmds`` a gpuxray bundle holds lets the node checks run on it unchanged.

The report is many gzip members appended to one file (the script runs ``gzip -c >>`` per
section), a long text whose sections start after a line of underscores. A section is either a
file (``*** /proc/driver/nvidia/version`` then ``*** ls: …`` then the content; ``*** /x does not
exist`` when absent) or a command (its command line, a blank line, its output). What is derived:

=============================================  ===============================================
section                                        bundle name
=============================================  ===============================================
``*** /path``                                  ``files/<path>`` (leading ``/`` removed)
``dmesg:``                                     ``cmd/dmesg.txt``
kernel lines of ``journalctl -b -0`` (when no   ``cmd/dmesg.txt`` (as ``-o short-iso`` lines,
``dmesg:`` section)                            year and zone from the report's ``Date:``)
``…/nvidia-smi``                               ``cmd/nvidia-smi.txt``
``…/nvidia-smi --query``                       ``cmd/nvidia-smi-q.txt`` (text, not the XML)
``…/lspci -nn``                                ``cmd/lspci-nvidia.txt`` (``[10de:`` lines only)
``lsmod`` / else ``*** /proc/modules``         ``cmd/lsmod.txt``
``systemctl status nvidia-fabricmanager…``     ``cmd/systemctl-show-fabricmanager.txt``
                                               (``LoadState``/``ActiveState``/``SubState``)
prologue ``uname: …``                          ``cmd/uname.txt``
=============================================  ===============================================

Decompression is capped (:data:`MAX_DECOMPRESSED`): a gzip bomb or an endless report is cut
there and the cut is recorded, never read whole into memory.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

__all__ = [
    "MAX_DECOMPRESSED",
    "BugReport",
    "BugReportError",
    "modules_to_lsmod",
    "parse_bug_report",
    "read_bug_report",
    "status_to_show",
]

#: real reports are a few MiB to a few tens of MiB; past this the rest is cut (and noted), which
#: keeps a gzip bomb's cost to ~3× this in memory (bytes, text, lines)
MAX_DECOMPRESSED = 64 << 20
SECTION_LIMIT = 8 << 20  # keep the tail of a huge section, as the bundle reader does
_SEPARATOR_LINE = re.compile(r"^_{20,}[^\S\n]*$", re.M)
_SECTION_HEAD = 64 << 10
_FILE_HEADER = re.compile(r"^\*\*\* (/\S*)\s*$")
_SMI = re.compile(r"^(?:\S*/)?nvidia-smi(?P<args>(?: \S+)*)\s*$")
_LSPCI_NN = re.compile(r"^(?:\S*/)?lspci -nn\s*$")
_LSMOD = re.compile(r"^(?:\S*/)?lsmod:?\s*$")
_FM_STATUS = re.compile(r"^(?:\S*/)?systemctl status .*nvidia-fabricmanager")
_JOURNAL_SHORT = re.compile(
    r"^([A-Z][a-z]{2})\s+(\d{1,2}) (\d{2}:\d{2}:\d{2}) (\S+) (kernel(?:\[\d+\])?:.*)$")
_MONTHS = {m: i for i, m in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}


class BugReportError(ValueError):
    """The file is not a gzip stream (or holds nothing readable)."""


@dataclass(slots=True)
class BugReport:
    files: dict[str, str] = field(default_factory=dict)
    cmds: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # truncation and other caveats
    date: str = ""


def read_bug_report(path: Path, cap: int | None = None) -> tuple[str, list[str]]:
    """Decompress (all gzip members) up to ``cap`` bytes; a plain-text report is accepted too.

    Returns the text and notes (``truncated gzip stream`` / ``cut at N bytes``). Raises
    :class:`BugReportError` when the file is neither gzip nor text.
    """
    cap = MAX_DECOMPRESSED if cap is None else cap
    notes: list[str] = []
    with open(path, "rb") as fh:
        magic = fh.read(2)
        fh.seek(0)
        if magic != b"\x1f\x8b":
            data = fh.read(cap + 1)
            if b"\x00" in data[:65536] or not data.strip():
                raise BugReportError("not a gzip file")
            if len(data) > cap:
                notes.append(f"cut at {cap} bytes")
            return data[:cap].decode("utf-8", errors="replace"), notes
        out = _gunzip_capped(fh, cap, notes)
    if not out or out.isspace():  # no .strip(): that would copy up to ``cap`` bytes
        raise BugReportError("empty or unreadable gzip stream")
    return out.decode("utf-8", errors="replace"), notes


def _gunzip_capped(fh: BinaryIO, cap: int, notes: list[str]) -> bytearray:
    """Decompress every gzip member, stopping at ``cap`` bytes; keeps what a truncated or
    corrupt stream gave before the damage (the report's early sections are still useful)."""
    out = bytearray()
    d = zlib.decompressobj(31)
    pending = b""
    in_member = False
    while len(out) <= cap:
        if d.unconsumed_tail:
            data = d.unconsumed_tail
        elif pending:
            data, pending = pending, b""
        else:
            data = fh.read(1 << 16)
            if not data:
                break
        in_member = True
        try:
            out += d.decompress(data, cap + 1 - len(out))
        except zlib.error as exc:
            if not out:
                raise BugReportError(f"corrupt gzip ({exc})") from exc
            notes.append(f"corrupt gzip after {len(out)} bytes ({exc})")
            return out
        if d.eof:
            in_member = False
            pending = d.unused_data
            if not pending.strip(b"\x00"):
                pending = b""  # zero padding after the last member, as gzip(1) tolerates
            d = zlib.decompressobj(31)
    if len(out) > cap:
        notes.append(f"decompressed size over {cap} bytes; cut there")
        del out[cap:]  # in place: a copy would double the peak
    elif in_member:
        notes.append("truncated gzip stream")
    return out


def _sections(text: str) -> list[list[str]]:
    """The report split at separator lines, one list of lines per section. A section longer
    than :data:`SECTION_LIMIT` keeps its head (the file/command header) and its tail, so a
    report of millions of lines never becomes millions of list items at once."""
    out: list[list[str]] = []
    for chunk in _SEPARATOR_LINE.split(text):
        if len(chunk) > SECTION_LIMIT + _SECTION_HEAD:
            head = chunk[:_SECTION_HEAD]
            tail = chunk[-SECTION_LIMIT:]
            chunk = head[: head.rfind("\n") + 1] + tail[tail.find("\n") + 1:]
        lines = chunk.split("\n")
        if "\r" in chunk:
            lines = [ln.rstrip("\r") for ln in lines]
        if any(x.strip() for x in lines):
            out.append(lines)
    return out


def _trim(lines: list[str]) -> list[str]:
    """Without leading/trailing blank lines (by index: slicing per line is quadratic on a
    section of a million blank lines)."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end] if (start, end) != (0, len(lines)) else lines


def _text(lines: list[str]) -> str:
    t = "\n".join(_trim(lines))
    if len(t) > SECTION_LIMIT:
        t = t[-SECTION_LIMIT:]
        t = t[t.find("\n") + 1:]
    return t + "\n" if t else ""


def modules_to_lsmod(proc_modules: str) -> str:
    """``/proc/modules`` lines → ``lsmod`` output (lsmod reads exactly that file)."""
    rows = ["Module                  Size  Used by"]
    for line in proc_modules.splitlines():
        parts = line.split()
        if len(parts) < 4 or not parts[1].isdigit():
            continue
        deps = "" if parts[3] == "-" else parts[3].rstrip(",")
        rows.append(f"{parts[0]:<24}{parts[1]:>8}  {parts[2]} {deps}".rstrip())
    return "\n".join(rows) + "\n"


def status_to_show(status: str) -> str:
    """``systemctl status UNIT`` → the ``systemctl show -p LoadState,ActiveState,SubState`` form.

    ``Unit x could not be found.`` → ``LoadState=not-found``; ``Active: active (running)`` →
    ``ActiveState=active`` and ``SubState=running``; ``Loaded: loaded (…)`` → ``LoadState=loaded``.
    """
    load = active = sub = ""
    for line in status.splitlines():
        s = line.strip()
        if re.search(r"could not be found|not-found", s) and not load:
            load, active, sub = "not-found", "inactive", "dead"
        m = re.match(r"^Loaded:\s+(\S+)", s)
        if m:
            load = m.group(1)
        m = re.match(r"^Active:\s+(\S+)(?:\s+\(([^)]+)\))?", s)
        if m:
            active = m.group(1)
            sub = (m.group(2) or "").split(";")[0].split(":")[0].strip() or active
    if not (load or active):
        return ""
    return f"LoadState={load}\nActiveState={active}\nSubState={sub}\n"


def _journal_to_iso(lines: list[str], date: str) -> list[str]:
    """``Nov 29 11:00:00 host kernel: …`` → ``2026-11-29T11:00:00+0000 host kernel: …``."""
    year = _year(date)
    tz = "+0000"  # journalctl's short format carries no zone; the report's Date: is UTC
    out = []
    for ln in lines:
        m = _JOURNAL_SHORT.match(ln.strip())
        if not m or m.group(1) not in _MONTHS or year is None:
            continue
        out.append(f"{year:04d}-{_MONTHS[m.group(1)]:02d}-{int(m.group(2)):02d}T{m.group(3)}{tz} "
                   f"{m.group(4)} {m.group(5)}")
    return out


def _year(date: str) -> int | None:
    m = re.search(r"\b(19|20)\d{2}\b", date)
    return int(m.group(0)) if m else None


def parse_bug_report(text: str) -> BugReport:
    """Split the report into sections and derive the bundle's files and commands."""
    rep = BugReport()
    kernel_journal: list[str] = []
    proc_modules = ""
    for sec in _sections(text):
        lines = _trim(sec)
        if not lines:
            continue
        head = lines[0].strip()
        if head.startswith("Start of NVIDIA bug report"):
            for ln in lines:
                if ln.startswith("uname:"):
                    rep.cmds["uname.txt"] = ln[len("uname:"):].strip() + "\n"
                elif ln.startswith("Date:"):
                    rep.date = ln[len("Date:"):].strip()
            continue
        fm = _FILE_HEADER.match(head)
        if fm:
            body = lines[1:]
            if body and body[0].startswith("*** ls:"):
                body = body[1:]
            path = re.sub(r"/\./", "/", fm.group(1)).lstrip("/")
            rep.files[path] = _text(body)
            if path == "proc/modules":
                proc_modules = rep.files[path]
            continue
        if head == "dmesg:":
            rep.cmds["dmesg.txt"] = _text(lines[1:])
            continue
        if head.startswith("Scanning kernel log files"):
            kernel_journal.extend(lines[1:])
            continue
        if head.startswith("journalctl") and ("_TRANSPORT=kernel" in head or " -k" in head):
            kernel_journal.extend(lines[1:])
            continue
        if _FM_STATUS.match(head):
            show = status_to_show("\n".join(lines[1:]))
            if show:
                rep.cmds["systemctl-show-fabricmanager.txt"] = show
            continue
        if _LSMOD.match(head):
            rep.cmds["lsmod.txt"] = _text(lines[1:])
            continue
        if _LSPCI_NN.match(head):
            nv = [ln for ln in lines[1:] if "[10de:" in ln]
            rep.cmds["lspci-nvidia.txt"] = "\n".join(nv) + "\n" if nv else ""
            continue
        sm = _SMI.match(head)
        if sm:
            _smi_section(rep, lines)
    if "dmesg.txt" not in rep.cmds and kernel_journal:
        iso = _journal_to_iso(kernel_journal, rep.date)
        if iso:
            rep.cmds["dmesg.txt"] = "\n".join(iso) + "\n"
    if "lsmod.txt" not in rep.cmds and proc_modules:
        rep.cmds["lsmod.txt"] = modules_to_lsmod(proc_modules)
    return rep


def _smi_section(rep: BugReport, lines: list[str]) -> None:
    """One section may hold several ``nvidia-smi …`` runs (``append_command`` adds no separator)."""
    current: str | None = None
    buf: list[str] = []

    def flush() -> None:
        if current is None:
            return
        name = {"": "nvidia-smi.txt", "--query": "nvidia-smi-q.txt",
                "-q": "nvidia-smi-q.txt"}.get(current)
        if name and name not in rep.cmds:
            rep.cmds[name] = _text(buf)

    for ln in lines:
        m = _SMI.match(ln.strip()) if not ln.startswith(" ") else None
        if m and ("/" in ln or ln.strip().startswith("nvidia-smi")):
            flush()
            current, buf = m.group("args").strip(), []
        else:
            buf.append(ln)
    flush()
