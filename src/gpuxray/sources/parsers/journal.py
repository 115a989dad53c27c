"""``journalctl`` output (short-iso, the default ``short`` syslog layout, short-full, or lines
pasted without their timestamp), and the containerd unit's lifecycle events in it.

Why: the toolkit restarts containerd by sending it SIGHUP, which containerd does not handle,
so it exits and systemd restarts it (facts.md §1.4, §2.3). The journal is where that shows:
``Main process exited, code=killed, status=1/HUP`` → ``Scheduled restart job`` →
``Started containerd.service`` (seed §5, §7: ``journalctl -u containerd | grep -E
"Started|Stopped|signal"``). Patterns are data (``UNIT_EVENT_PATTERNS``), not if-chains.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from functools import lru_cache

__all__ = [
    "UNIT_EVENT_PATTERNS",
    "JournalLine",
    "UnitEvent",
    "UnitEventKind",
    "is_journal_line",
    "parse_iso",
    "parse_journal",
    "unit_events",
]

_ISO = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$"
)
_LINE = re.compile(
    r"^(?P<ts>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?)\s+"
    r"(?P<host>\S+)\s+(?P<ident>[^\s\[:]+)(?:\[(?P<pid>\d+)\])?:\s?(?P<msg>.*)$"
)
# The other layouts journalctl prints (systemd journalctl(1) ``--output``): ``short``, the
# default and the one tickets hold most (``Feb 04 13:15:38 host containerd[1278]: …``, the
# syslog layout; ``short-precise`` adds microseconds), and ``short-full`` (``Tue 2025-02-04
# 13:15:38 UTC host …``). Neither carries a year or a numeric zone, so their time is kept as
# text only (``ts`` None): durations are not computed from them.
_CLASSIC = re.compile(
    r"^(?P<ts>(?:[A-Z][a-z]{2} )?[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?|"
    r"[A-Z][a-z]{2} \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,9})? [A-Za-z]{1,6}[+-]?\d{0,4})"
    r"\s+(?P<host>\S+)\s+(?P<ident>[^\s\[:]+)(?:\[(?P<pid>\d+)\])?:\s?(?P<msg>.*)$"
)
# A line pasted without timestamp and host (``containerd[1278]: msg``, ``grep`` output, chat
# clients that cut the start): the identifier must carry its pid, so prose (``Note: …``) is not
# taken for a journal line.
_BARE = re.compile(r"^(?P<ident>[A-Za-z][\w.@-]{0,63})\[(?P<pid>\d{1,10})\]:\s?(?P<msg>.*)$")


@lru_cache(maxsize=4096)
def _zone(zone: str) -> tzinfo:
    if not zone or zone == "Z":
        return UTC
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))


@lru_cache(maxsize=65536)
def parse_iso(text: str) -> datetime | None:
    """Parse journald's short-iso(-precise) timestamp; None when it is not one.

    Built from the digits directly: strptime would dominate parsing a week of journal."""
    m = _ISO.match(text.strip())
    if not m:
        return None
    frac = m.group(7)
    try:
        return datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)),
                        int(m.group(5)), int(m.group(6)),
                        int(frac[:6].ljust(6, "0")) if frac else 0, tzinfo=_zone(m.group(8) or ""))
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class JournalLine:
    """One journal entry. ``lineno`` is 1-based in the input; ``boot`` counts ``-- Boot``
    separators seen before it (0 for the first boot in the text)."""

    lineno: int
    ts: datetime | None
    ts_text: str
    host: str
    ident: str
    pid: int | None
    message: str
    boot: int
    raw: str


def parse_journal(text: str) -> list[JournalLine]:
    """Parse journal lines of any layout above; separators (``-- Boot …``, ``-- No entries
    --``) and junk are skipped, continuation lines are dropped (journald prints one entry per
    line; a ticket form that wrapped one leaves its tail on lines of no journal shape)."""
    out: list[JournalLine] = []
    boot = 0
    for i, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        stripped = line.strip()
        if stripped.startswith("-- "):
            if stripped.lower().startswith("-- boot") or "reboot" in stripped.lower():
                boot += 1 if out else 0
            continue
        m = _LINE.match(stripped)
        ts: datetime | None = None
        if m:
            ts = parse_iso(m.group("ts"))
        else:
            m = _CLASSIC.match(stripped)
        if m:
            ts_text, host = m.group("ts"), m.group("host")
        else:
            m = _BARE.match(stripped)
            if not m:
                continue
            ts_text = host = ""
        out.append(JournalLine(
            lineno=i, ts=ts, ts_text=ts_text, host=host,
            ident=m.group("ident"), pid=int(m.group("pid")) if m.group("pid") else None,
            message=m.group("msg"), boot=boot, raw=line))
    return out


def is_journal_line(line: str) -> bool:
    """Whether ``line`` has the shape of a journal entry in any layout :func:`parse_journal`
    reads (used to type a pasted block that names no command)."""
    s = line.strip()
    return bool(_LINE.match(s) or _CLASSIC.match(s) or _BARE.match(s))


class UnitEventKind(enum.StrEnum):
    SIGNAL_SENT = "signal-sent"      # systemd relayed a signal (systemctl kill/reload)
    EXITED = "exited"                # main process exited (code=killed/exited)
    FAILED = "failed"                # unit entered failed state
    SCHEDULED_RESTART = "scheduled-restart"
    STOPPING = "stopping"
    STOPPED = "stopped"
    STARTING = "starting"
    STARTED = "started"
    DAEMON_START = "daemon-start"    # containerd's own "starting containerd" line
    DAEMON_SIGNAL = "daemon-signal"  # containerd logged a signal it handles (SIGTERM …)


# (kind, pattern over the message). First match wins; named groups become event fields.
UNIT_EVENT_PATTERNS: tuple[tuple[UnitEventKind, re.Pattern[str]], ...] = (
    (UnitEventKind.SIGNAL_SENT, re.compile(
        r"Sent signal (?P<signal>SIG[A-Z0-9]+) to (?:main )?process (?P<target>\d+)"
        r"(?: \((?P<comm>[^)]*)\))?(?P<client> on client request)?")),
    (UnitEventKind.EXITED, re.compile(
        r"Main process exited, code=(?P<code>\w+), status=(?P<status>[^\s,]+)")),
    (UnitEventKind.FAILED, re.compile(r"Failed with result '(?P<result>[^']+)'")),
    (UnitEventKind.SCHEDULED_RESTART, re.compile(
        r"Scheduled restart job, restart counter is at (?P<counter>\d+)")),
    (UnitEventKind.STOPPING, re.compile(r"^Stopping .*containerd")),
    (UnitEventKind.STOPPED, re.compile(r"^Stopped .*containerd")),
    (UnitEventKind.STARTING, re.compile(r"^Starting .*containerd")),
    (UnitEventKind.STARTED, re.compile(r"^Started .*containerd")),
    (UnitEventKind.DAEMON_START, re.compile(r'msg="?starting containerd"?')),
    (UnitEventKind.DAEMON_SIGNAL, re.compile(
        r'msg="?(?:received signal|stop(?:ping)? (?:signal|containerd))"?'
        r"(?:.*signal=(?P<signal>\w+))?")),
)


@dataclass(frozen=True, slots=True)
class UnitEvent:
    kind: UnitEventKind
    line: JournalLine
    fields: dict[str, str]


def unit_events(lines: list[JournalLine], unit: str = "containerd") -> list[UnitEvent]:
    """The lifecycle events of ``unit`` in journal order.

    systemd's lines are attributed by the ``<unit>.service:`` prefix (or the unit's
    description in Started/Stopped); the daemon's own lines by their identifier.
    """
    out: list[UnitEvent] = []
    prefix = f"{unit}.service: "
    daemon_kinds = (UnitEventKind.DAEMON_START, UnitEventKind.DAEMON_SIGNAL)
    by_systemd = [(k, p) for k, p in UNIT_EVENT_PATTERNS if k not in daemon_kinds]
    by_daemon = [(k, p) for k, p in UNIT_EVENT_PATTERNS if k in daemon_kinds]
    for ln in lines:
        msg = ln.message
        from_systemd = ln.ident in ("systemd", "init")
        if from_systemd:
            if msg.startswith(prefix):
                msg = msg[len(prefix):]
            elif unit not in msg:
                continue
        elif "msg=" not in msg or ln.ident != unit:
            continue
        for kind, pat in by_systemd if from_systemd else by_daemon:
            m = pat.search(msg)
            if m:
                fields = {k: v for k, v in m.groupdict().items() if v is not None}
                out.append(UnitEvent(kind, ln, fields))
                break
    return out
