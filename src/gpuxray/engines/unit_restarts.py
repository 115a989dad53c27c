"""containerd restart timeline from its unit's journal events.

Why: the toolkit's default restart mode sends SIGHUP to containerd, which does not handle it
and exits; systemd restarts it only with ``Restart=always`` (facts.md §1.4, §2.3), and every
toolkit restart means two of these (setup and cleanup). The seed (§5, §7) reads exactly this
from ``journalctl -u containerd``. An *episode* runs from the first sign of the daemon going
down (signal sent, main process exited, stopping) to the next start; one that never sees a
start within the same boot is a daemon left down.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuxray.sources.parsers.journal import JournalLine, UnitEvent, UnitEventKind

__all__ = ["Episode", "restart_episodes"]

_DOWN = frozenset({UnitEventKind.SIGNAL_SENT, UnitEventKind.EXITED, UnitEventKind.FAILED,
                   UnitEventKind.STOPPING, UnitEventKind.STOPPED,
                   UnitEventKind.SCHEDULED_RESTART, UnitEventKind.DAEMON_SIGNAL})

# systemd's ``status=1/HUP`` names the signal by its short name.
_SIG_PREFIX = "SIG"


@dataclass
class Episode:
    """One stop→start of the daemon (or a stop without start: ``restarted`` is None)."""

    began: JournalLine
    signal: str = ""
    sender: str = ""
    exit: str = ""
    counter: int | None = None
    kind: str = ""
    restarted: JournalLine | None = None
    lines: list[JournalLine] = field(default_factory=list)

    @property
    def down_seconds(self) -> float | None:
        if self.restarted is None or self.restarted.ts is None or self.began.ts is None:
            return None
        return (self.restarted.ts - self.began.ts).total_seconds()

    def as_params(self) -> dict[str, object]:
        return {
            "at": self.began.ts_text,
            "cause": self.kind,
            "signal": self.signal,
            "sender": self.sender,
            "exit": self.exit,
            "restart_counter": self.counter,
            "restarted_at": self.restarted.ts_text if self.restarted else None,
            "down_seconds": self.down_seconds,
        }


def _absorb(ep: Episode, ev: UnitEvent) -> None:
    f = ev.fields
    ep.lines.append(ev.line)
    if ev.kind is UnitEventKind.SIGNAL_SENT:
        ep.signal = f.get("signal", ep.signal)
        ep.sender = "client request (systemctl kill/reload)" if f.get("client") else "systemd"
        ep.kind = ep.kind or "signal"
    elif ev.kind is UnitEventKind.EXITED:
        status = f.get("status", "")
        ep.exit = f"code={f.get('code', '')}, status={status}"
        if f.get("code") in ("killed", "dumped"):
            name = status.split("/", 1)[1] if "/" in status else status
            ep.signal = ep.signal or (_SIG_PREFIX + name if name and not name.isdigit() else name)
            if not ep.sender:
                # no "Sent signal" line: the signal came straight from a process, not systemd
                # (the toolkit's signal restart mode does this, facts.md §2.3)
                ep.sender = "another process (not systemd)"
            ep.kind = ep.kind or "signal"
        else:
            ep.kind = ep.kind or "exit"
    elif ev.kind is UnitEventKind.SCHEDULED_RESTART:
        c = f.get("counter", "")
        ep.counter = int(c) if c.isdigit() else ep.counter
    elif ev.kind in (UnitEventKind.STOPPING, UnitEventKind.STOPPED):
        ep.kind = ep.kind or "stop"
    elif ev.kind is UnitEventKind.DAEMON_SIGNAL:
        ep.signal = ep.signal or f.get("signal", "")
        ep.kind = ep.kind or "signal"


def restart_episodes(events: list[UnitEvent]) -> list[Episode]:
    """Group lifecycle events into episodes. Starts are systemd's ``Started`` lines, or the
    daemon's ``starting containerd`` when the journal holds no systemd lines. A boot
    boundary closes an open episode without counting it (the host was shut down)."""
    has_systemd_start = any(e.kind is UnitEventKind.STARTED for e in events)
    start_kind = UnitEventKind.STARTED if has_systemd_start else UnitEventKind.DAEMON_START
    out: list[Episode] = []
    cur: Episode | None = None
    started_in_boot: set[int] = set()
    for ev in events:
        boot = ev.line.boot
        if cur is not None and cur.began.boot != boot:
            cur = None  # shutdown: not a restart
        if ev.kind in _DOWN:
            if cur is None:
                cur = Episode(began=ev.line)
            _absorb(cur, ev)
        elif ev.kind is start_kind:
            if cur is not None:
                cur.restarted = ev.line
                out.append(cur)
                cur = None
            elif boot in started_in_boot:
                # a second start in one boot with no stop logged (lines rotated away)
                out.append(Episode(began=ev.line, kind="unlogged", restarted=ev.line,
                                   lines=[ev.line]))
            started_in_boot.add(boot)
    if cur is not None and cur.kind != "stop":
        out.append(cur)  # went down and never came back (within the journal)
    return out
