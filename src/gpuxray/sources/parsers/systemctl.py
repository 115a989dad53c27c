"""``systemctl show`` output: ``Key=Value`` lines.

Why: unit properties such as ``Restart=``, ``NRestarts=`` and ``ActiveState=`` tell
whether containerd (seed §3) or nvidia-fabricmanager (facts.md §8) is supervised
and running. The format is one ``Key=Value`` per line; values may contain ``=``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

__all__ = ["parse_systemctl_show", "parse_timestamp", "parse_usec"]

_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def parse_systemctl_show(text: str) -> dict[str, str]:
    """Parse ``systemctl show`` output into a dict; junk lines are skipped.

    When several units are shown, properties are separated by blank lines; the
    last value for a key wins (callers pass one unit's output).
    """
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key = key.strip()
        if not _KEY.match(key):
            continue
        out[key] = value.strip()
    return out


_USEC_UNITS: dict[str, float] = {
    "us": 1.0,
    "usec": 1.0,
    "ms": 1_000.0,
    "msec": 1_000.0,
    "s": 1_000_000.0,
    "sec": 1_000_000.0,
    "min": 60_000_000.0,
    "m": 60_000_000.0,
    "h": 3_600_000_000.0,
    "hr": 3_600_000_000.0,
    "d": 86_400_000_000.0,
}
_USEC_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z]*)")


def parse_usec(value: str) -> int | None:
    """Parse a systemd time span (``5s``, ``100ms``, ``1min 30s``, ``infinity``) to µs.

    A bare number is microseconds (systemd's ``*USec`` convention). Returns None
    for ``infinity``, empty, or unparsable values.
    """
    v = value.strip().lower()
    if not v or v == "infinity":
        return None
    total = 0.0
    pos = 0
    matched = False
    for m in _USEC_PART.finditer(v):
        if v[pos : m.start()].strip():
            return None
        unit = m.group(2) or "us"
        if unit not in _USEC_UNITS:
            return None
        total += float(m.group(1)) * _USEC_UNITS[unit]
        pos = m.end()
        matched = True
    if not matched or v[pos:].strip():
        return None
    return int(total)


_TS = re.compile(
    r"^(?:[A-Z][a-z]{2}\s+)?(\d{4}-\d{2}-\d{2})\s+(\d{2}:\d{2}:\d{2})(?:\.\d+)?\s*([A-Za-z+\-0-9]*)$"
)


def parse_timestamp(value: str) -> datetime | None:
    """Parse a systemd timestamp (``Mon 2026-11-23 08:01:02 UTC``) to an aware datetime.

    Only ``UTC``/``GMT``/numeric offsets are interpreted; other zone names are
    treated as UTC since the host's zone database is not in the bundle. Empty
    (``n/a``) values give None.
    """
    v = value.strip()
    m = _TS.match(v)
    if not m:
        return None
    try:
        dt = datetime.strptime(f"{m.group(1)} {m.group(2)}", "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    zone = m.group(3)
    if zone and zone[0] in "+-" and len(zone) in (5, 6):
        try:
            return datetime.strptime(
                f"{m.group(1)} {m.group(2)} {zone.replace(':', '')}", "%Y-%m-%d %H:%M:%S %z"
            )
        except ValueError:
            return dt.replace(tzinfo=UTC)
    return dt.replace(tzinfo=UTC)


def unit_directives(text: str) -> list[tuple[str, str, str, int]]:
    """A systemd unit file or drop-in → (section, key, value, line) in file order.

    Comments (``#``, ``;``) and junk are skipped; a trailing backslash continues a line.
    An empty value (``Restart=``) is kept: in systemd it resets the setting.
    """
    out: list[tuple[str, str, str, int]] = []
    section = ""
    pending = ""
    start = 0
    for i, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if pending:
            line = pending + " " + line
        else:
            start = i
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        pending = ""
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        key, sep, value = line.partition("=")
        if not sep or not _KEY.match(key.strip()):
            continue
        out.append((section, key.strip(), value.strip(), start))
    return out
