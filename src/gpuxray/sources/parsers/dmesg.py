"""Kernel log lines: ``dmesg -T``, raw ``dmesg``, ``journalctl -k`` (short-iso or the default
syslog layout), or ``talosctl dmesg``.

Why: the kernel log is where the NVIDIA driver reports Xid errors (facts.md §8), where
nouveau grabs the GPU first and where Secure Boot refuses an unsigned module (seed §1, §3:
``dmesg | grep -iE 'NVRM|Xid'``). One parser accepts all three formats a bundle may hold
(BUNDLE.md ``cmd/dmesg.txt``) and extracts typed events; the signatures are data.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from gpuxray.sources.parsers.journal import parse_iso

__all__ = [
    "KERNEL_SIGNATURES",
    "KernelLine",
    "KernelLog",
    "Signature",
    "XidEvent",
    "join_continuations",
    "parse_kernel_log",
]

_DMESG_T = re.compile(r"^\[([A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})\]\s?(.*)$")
_DMESG_RAW = re.compile(r"^\[\s*(\d+\.\d+)\]\s?(.*)$")
_JOURNAL_K = re.compile(
    r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)\s+\S+\s+"
    r"kernel(?:\[\d+\])?:\s?(.*)$"
)
# dmesg --level/-x prefixes such as "kern  :err   : "
_FACILITY = re.compile(r"^[a-z]+\s*:[a-z]+\s*:\s")
# journalctl -k without -o (``Feb 04 13:15:38 host kernel: …``), /var/log/messages
_SYSLOG_K = re.compile(r"^([A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)\s+\S+\s+"
                       r"kernel(?:\[\d+\])?:\s?(.*)$")
# ``talosctl dmesg`` (siderolabs/talos: ``<facility>: <level>: [<RFC3339>]: <message>``, after
# an optional node address): ``kern:     err: [2024-05-20T02:46:53.856596762Z]: NVRM: …``
_TALOS = re.compile(r"^(?:\S+: )?[a-z]{2,8}:\s+[a-z]{2,8}: "
                    r"\[(\d{4}-\d{2}-\d{2}T[\d:.]+Z?)\]: ?(.*)$")


@dataclass(frozen=True, slots=True)
class KernelLine:
    lineno: int
    ts: datetime | None
    ts_text: str
    message: str


@dataclass(frozen=True, slots=True)
class XidEvent:
    """``NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off
    the bus.`` — the code, the GPU's PCI address, the process (when the driver knows it)."""

    xid: int
    pci: str
    pid: str
    name: str
    text: str
    line: KernelLine
    # MIG attribution: ``(PCI:0000:01:00 GPU-I:05 GPU-CI:02)`` — the GPU instance and compute
    # instance the driver blamed (None on a line without it, i.e. non-MIG or unattributed)
    gpu_instance: int | None = None
    compute_instance: int | None = None


class Signature(enum.StrEnum):
    NOUVEAU = "nouveau"
    SIG_REJECTED = "signature-rejected"
    SIG_TAINT = "signature-taint"
    NVRM_LOADED = "nvrm-loaded"
    API_MISMATCH = "api-mismatch"
    FABRIC = "fabric"


# Signature -> (cheap lower-case needles, pattern searched in the message). The pattern only
# runs on lines holding a needle, so a week of kernel log parses quickly. Order matters only
# within a line: the first signature matching a line is recorded.
KERNEL_SIGNATURES: tuple[tuple[Signature, tuple[str, ...], re.Pattern[str]], ...] = (
    # Secure Boot / lockdown refusing the module (it is NOT loaded).
    (Signature.SIG_REJECTED, ("unsigned", "rejected", "pkcs#7"), re.compile(
        r"Loading of unsigned module is rejected|Key was rejected by service|"
        r"Lockdown: .*unsigned module loading is restricted|"
        r"module verification failed: .*-\s*rejected|"
        r"PKCS#7 signature not signed with a trusted key",
        re.I)),
    # Signature missing but the module IS loaded (kernel only tainted: enforcement is off).
    (Signature.SIG_TAINT, ("verification failed",), re.compile(
        r"module verification failed: signature and/or required key missing - tainting kernel",
        re.I)),
    (Signature.API_MISMATCH, ("api mismatch",), re.compile(r"NVRM: API mismatch", re.I)),
    (Signature.NVRM_LOADED, ("nvrm: loading",), re.compile(
        r"NVRM: loading NVIDIA UNIX .*?(?:Kernel Module|Module for \S+)\s+"
        r"(?P<version>\d+\.\d+(?:\.\d+)?)")),
    (Signature.NOUVEAU, ("nouveau",), re.compile(
        r"^nouveau\b|\bnouveau \d{4}:|\[drm\] Initialized nouveau|is already bound to nouveau|"
        r"\bnouveau: ", re.I)),
    (Signature.FABRIC, ("nvswitch", "fabric", "not yet initialized"), re.compile(
        r"nvidia-nvswitch|nvswitch|fabric manager|\bfabric\b.*(?:error|fail|not)|"
        r"system not yet initialized", re.I)),
)

# The three forms the driver prints (NVIDIA/open-gpu-kernel-modules
# src/nvidia/src/kernel/gpu/rc/kernel_rc.c, krcReportXid): ``(PCI:%04x:%02x:%02x)``, with MIG
# attribution ``(PCI:… GPU-I:%02u)`` and ``(PCI:… GPU-I:%02u GPU-CI:%02u)``; the A100 memory-error
# guide shows ``NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: …``
# (docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/).
_XID = re.compile(
    r"NVRM: Xid \((?:PCI:)?(?P<pci>[0-9A-Fa-f:.]+)(?:\s+GPU-I:(?P<gi>\d+))?"
    r"(?:\s+GPU-CI:(?P<ci>\d+))?\):\s*(?P<xid>\d+)\s*,?\s*(?P<rest>.*)$")
_XID_PID = re.compile(r"\bpid=\s*'?(?P<pid><unknown>|\d+)'?")
_XID_NAME = re.compile(r"\bname=\s*(?P<name>[^,]*)")
_MONTHS = {m: i for i, m in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}


def _dmesg_time(text: str) -> datetime | None:
    """``Mon Nov 23 08:01:02 2026`` → datetime (read as UTC; see parse_kernel_log)."""
    parts = text.split()
    try:
        hh, mm, ss = parts[3].split(":")
        return datetime(int(parts[4]), _MONTHS[parts[1]], int(parts[2]), int(hh), int(mm),
                        int(ss), tzinfo=UTC)
    except (KeyError, ValueError, IndexError):
        return None


@dataclass(frozen=True, slots=True)
class KernelLog:
    """What the kernel log says, by kind. ``nvrm_versions`` lists module versions loaded."""

    lines: list[KernelLine]
    xids: list[XidEvent] = field(default_factory=list)
    signatures: dict[Signature, list[KernelLine]] = field(default_factory=dict)
    nvrm_versions: list[str] = field(default_factory=list)

    def hits(self, sig: Signature) -> list[KernelLine]:
        return self.signatures.get(sig, [])


def _split(raw: str, lineno: int) -> KernelLine | None:
    line = raw.rstrip("\r").strip()
    if not line or line.startswith("-- "):
        return None
    line = _FACILITY.sub("", line, count=1)
    m = _DMESG_T.match(line)
    if m:
        return KernelLine(lineno, _dmesg_time(m.group(1)), m.group(1), m.group(2))
    m = _DMESG_RAW.match(line)
    if m:
        return KernelLine(lineno, None, m.group(1), m.group(2))
    m = _JOURNAL_K.match(line)
    if m:
        return KernelLine(lineno, parse_iso(m.group(1)), m.group(1), m.group(2))
    m = _TALOS.match(line)
    if m:
        return KernelLine(lineno, parse_iso(m.group(1)), m.group(1), m.group(2))
    m = _SYSLOG_K.match(line)
    if m:
        return KernelLine(lineno, None, m.group(1), m.group(2))
    if re.match(r"^\d{4}-\d{2}-\d{2}T\S+\s+\S+\s+\S+:", line):
        return None  # a journal line from another identifier: not the kernel's
    return KernelLine(lineno, None, "", line)  # ``dmesg -t`` (no timestamp)


def parse_kernel_log(text: str) -> KernelLog:
    """Parse a kernel log in any of the three formats; unparsable lines become messages
    without a timestamp, so nothing is lost and nothing raises. ``dmesg -T`` times are the
    host's local time printed without a zone: they are read as UTC."""
    lines: list[KernelLine] = []
    xids: list[XidEvent] = []
    sigs: dict[Signature, list[KernelLine]] = {}
    versions: list[str] = []
    for i, raw in enumerate(text.splitlines(), start=1):
        kl = _split(raw, i)
        if kl is None:
            continue
        lines.append(kl)
        msg = kl.message
        xm = _XID.search(msg) if "Xid" in msg else None
        if xm:
            rest = xm.group("rest")
            pm = _XID_PID.search(rest)
            nm = _XID_NAME.search(rest)
            xids.append(XidEvent(
                xid=int(xm.group("xid")), pci=_norm_pci(xm.group("pci")),
                pid=pm.group("pid") if pm else "", name=nm.group("name").strip() if nm else "",
                text=rest, line=kl,
                gpu_instance=int(xm.group("gi")) if xm.group("gi") else None,
                compute_instance=int(xm.group("ci")) if xm.group("ci") else None))
            continue
        low = msg.lower()
        for sig, needles, pat in KERNEL_SIGNATURES:
            if not any(n in low for n in needles):
                continue
            sm = pat.search(msg)
            if sm:
                sigs.setdefault(sig, []).append(kl)
                if sig is Signature.NVRM_LOADED and sm.group("version") not in versions:
                    versions.append(sm.group("version"))
                break
    return KernelLog(lines, xids, sigs, versions)


def _norm_pci(pci: str) -> str:
    """``0000:3b:00`` / ``0000:3B:00.0`` → ``0000:3b:00``: the Xid line omits the function."""
    p = pci.lower().rstrip(".")
    if p.count(":") == 2 and "." in p:
        p = p.rsplit(".", 1)[0]
    return p


def _stamped(line: str) -> bool:
    s = _FACILITY.sub("", line.strip(), count=1)
    return bool(_DMESG_T.match(s) or _DMESG_RAW.match(s) or _JOURNAL_K.match(s)
                or _TALOS.match(s) or _SYSLOG_K.match(s))


def join_continuations(lines: list[str]) -> list[str]:
    """The NVIDIA driver prints some messages over several lines, each continuation after an
    indented ``NVRM:  `` (``NVRM: The NVIDIA Tesla M2070 GPU installed in this system is`` /
    ``NVRM:  supported through the NVIDIA 390.xx Legacy drivers. …``), and a paste wraps
    others onto indented lines. A line without a timestamp of its own that continues an
    ``NVRM:`` message that way is joined to it, so the message reads as the one line the driver
    meant (a new ``NVRM: `` message, one space, is never joined)."""
    out: list[str] = []
    for raw in lines:
        line = raw.rstrip()
        body = line.strip()
        prev = out[-1] if out else ""
        cont = False
        if body and "NVRM:" in prev and len(prev) < 4096 and not _stamped(line):
            # the driver's own continuation (``NVRM:  ``), or a line the paste indented
            cont = body[5:7] == "  " if body.startswith("NVRM:") else line[:1] in (" ", "\t")
        if cont:
            text = body[5:] if body.startswith("NVRM:") else body
            out[-1] = prev + " " + " ".join(text.split())
        else:
            out.append(line)
    return out
