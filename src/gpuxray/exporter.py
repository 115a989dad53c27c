"""The exporter's loop: analyse on a fixed interval, publish the result for scrapes.

API use is bounded: one snapshot per interval, runs never overlap (one loop thread; a run that
outlasts the interval delays the next instead of stacking), and scrapes only read the latest
published :class:`~gpuxray.render.metrics.RunResult` — a scrape never reaches the cluster.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from prometheus_client import CollectorRegistry, start_http_server

from gpuxray.diagnose.incidents import build_incidents
from gpuxray.model.finding import Finding
from gpuxray.render.metrics import RunResult, registry_for

MIN_INTERVAL_S = 30.0

Analysis = tuple[Sequence[Finding], Sequence[Mapping[str, Any]], str]
Analyse = Callable[[], Analysis]  # findings, capacity rows (dicts), source description


class Exporter:
    def __init__(self, analyse: Analyse, interval_s: float,
                 clock: Callable[[], float] = time.time,
                 on_error: Callable[[str], None] | None = None) -> None:
        self._analyse = analyse
        self.interval_s = interval_s
        self._clock = clock
        self._on_error = on_error
        self._lock = threading.Lock()        # guards _result
        self._running = threading.Lock()     # held while an analysis runs
        self._result = RunResult()
        self.runs = 0
        self.stop_event = threading.Event()

    def latest(self) -> RunResult:
        with self._lock:
            return self._result

    def registry(self) -> CollectorRegistry:
        return registry_for(self.latest)

    def run_once(self) -> bool:
        """One analysis; False (and nothing done) when another is still running."""
        if not self._running.acquire(blocking=False):
            return False
        try:
            t0 = time.monotonic()
            try:
                findings, rows, source = self._analyse()
            except Exception as exc:  # any failure is a metric, never the end of the loop
                msg = f"{type(exc).__name__}: {exc}".splitlines()[0]
                with self._lock:
                    self._result = replace(self._result, ok=False, error=msg,
                                           errors_total=self._result.errors_total + 1,
                                           duration_s=time.monotonic() - t0)
                if self._on_error is not None:
                    self._on_error(msg)
                return True
            incidents = tuple(build_incidents(findings))
            with self._lock:
                self._result = RunResult(tuple(findings), tuple(rows), self._clock(),
                                         time.monotonic() - t0, True,
                                         self._result.errors_total, "", source,
                                         incidents=incidents)
            return True
        finally:
            self.runs += 1
            self._running.release()

    def loop(self) -> None:
        """Run now, then every ``interval_s`` from the start of the previous run, until
        :attr:`stop_event` is set."""
        while not self.stop_event.is_set():
            started = time.monotonic()
            self.run_once()
            wait = max(0.0, self.interval_s - (time.monotonic() - started))
            if self.stop_event.wait(wait):
                break

    def serve(self, port: int, addr: str = "127.0.0.1") -> tuple[Any, threading.Thread]:
        """Start the HTTP server (``/metrics``) on its own thread; returns (server, thread) so
        the caller can ``shutdown()`` it."""
        server, thread = start_http_server(port, addr=addr, registry=self.registry())
        return server, thread

    def stop(self) -> None:
        self.stop_event.set()
