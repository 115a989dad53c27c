"""Fault injection for ``gpuxray serve`` — a testing aid, off unless ``--fault`` is given.

Real API servers throttle (429 with ``Retry-After``), fail (5xx), drop connections, expire
``continue`` tokens (410 Gone) and answer slowly; a collector has to survive all of it without
ever passing a partial list off as complete. A fault spec is ``KIND[:key=value,...]``:

=================  ===========================================================================
KIND               ``403``, ``404``, ``429``, ``500``, ``502``, ``503``, ``504`` (answer
                   with that Status: RBAC denial, CRD not installed, throttling, failures),
                   ``410`` (only on requests carrying a ``continue`` token), ``drop`` (close
                   the connection without answering), ``slow`` (answer after ``delay`` seconds)
``every=N``        inject on every N-th matching request (default 1: every one)
``after=N``        let the first N matching requests through (default 0)
``times=N``        inject at most N times (default unlimited; ``410`` defaults to 1)
``path=TEXT``      only requests whose path contains TEXT
``continue``       only requests carrying a ``continue`` token (mid-pagination)
``retry-after=S``  the ``Retry-After`` header of a ``429``/``503`` (default 1)
``delay=S``        the delay of ``slow`` (default 1)
=================  ===========================================================================

Examples: ``429:every=3,retry-after=1``, ``500:path=/api/v1/nodes,continue``, ``drop:every=4``,
``410:path=pods``, ``slow:delay=2,times=1``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

KINDS = ("403", "404", "429", "500", "502", "503", "504", "410", "drop", "slow")
_INT_KEYS = {"every", "after", "times"}
_FLOAT_KEYS = {"retry-after", "delay"}


class FaultSpecError(ValueError):
    pass


@dataclass
class Fault:
    kind: str
    every: int = 1
    after: int = 0
    times: int | None = None
    path: str = ""
    only_continue: bool = False
    retry_after: float = 1.0
    delay: float = 1.0
    seen: int = field(default=0, compare=False)
    injected: int = field(default=0, compare=False)

    def applies(self, path: str, has_continue: bool) -> bool:
        if self.path and self.path not in path:
            return False
        return has_continue or not (self.only_continue or self.kind == "410")

    @property
    def status(self) -> int:
        return int(self.kind) if self.kind.isdigit() else 0


def parse_fault(spec: str) -> Fault:
    kind, _, rest = spec.strip().partition(":")
    if kind not in KINDS:
        raise FaultSpecError(f"unknown fault {kind!r} (one of {', '.join(KINDS)})")
    f = Fault(kind)
    if kind == "410":
        f.times = 1
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, val = item.partition("=")
        try:
            if key == "continue" and not eq:
                f.only_continue = True
            elif key == "path" and eq:
                f.path = val
            elif key in _INT_KEYS and eq:
                n = int(val)
                if n < (1 if key == "every" else 0):
                    raise ValueError(val)
                setattr(f, key, n)
            elif key in _FLOAT_KEYS and eq:
                setattr(f, key.replace("-", "_"), max(0.0, float(val)))
            else:
                raise FaultSpecError(f"fault {spec!r}: unknown option {item!r}")
        except ValueError as exc:
            if isinstance(exc, FaultSpecError):
                raise
            raise FaultSpecError(f"fault {spec!r}: bad value in {item!r}") from exc
    return f


class FaultPlan:
    """Decides, per request, which fault (if any) to inject. Thread-safe."""

    def __init__(self, faults: list[Fault] | None = None) -> None:
        self.faults = list(faults or [])
        self._lock = threading.Lock()

    @classmethod
    def parse(cls, specs: list[str] | tuple[str, ...]) -> FaultPlan:
        return cls([parse_fault(s) for s in specs])

    def pick(self, path: str, has_continue: bool) -> Fault | None:
        with self._lock:
            for f in self.faults:
                if not f.applies(path, has_continue):
                    continue
                f.seen += 1
                n = f.seen - f.after
                if n <= 0 or n % f.every:
                    continue
                if f.times is not None and f.injected >= f.times:
                    continue
                f.injected += 1
                return f
        return None
