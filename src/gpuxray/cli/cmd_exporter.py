"""``gpuxray exporter``: every check on an interval, findings and GPU capacity on ``/metrics``.

Live by default (one snapshot per interval, read-only verbs); with ``--bundle`` it serves that
bundle's analysis. ``--once`` prints one exposition to stdout and exits (cron, textfile
collectors, a quick look). Alert rules to pair it with: ``deploy/prometheusrule.yaml``.
"""

from __future__ import annotations

import dataclasses
import signal
import threading
from typing import Any

import click

from gpuxray.checks.engine import run_all
from gpuxray.cli import common, reports
from gpuxray.cli.common import SourceOpts, open_snapshot, source_from_kwargs, source_options
from gpuxray.cli.usage_opts import usage_from_kwargs, usage_options, with_usage
from gpuxray.diagnose.incidents import build_incidents
from gpuxray.errors import UsageError
from gpuxray.exporter import MIN_INTERVAL_S, Analysis, Exporter
from gpuxray.model.usage import IdlePolicy
from gpuxray.render.metrics import RunResult, exposition


def _analyser(opts: SourceOpts, url: str | None = None, window: str = "3h",
              policy: IdlePolicy | None = None) -> Any:
    def analyse() -> Analysis:
        with open_snapshot(opts) as snap0:
            # each run reads the Prometheus window afresh, so GX601 follows the history
            snap = with_usage(snap0, url, window, policy or IdlePolicy())
            findings = run_all(snap)
            rows = reports.capacity_dicts(snap) or []
            return findings, rows, snap.origin
    return analyse


@click.command("exporter")
@source_options
@click.option("--port", default=9400, show_default=True, type=click.IntRange(0, 65535),
              help="Port of the /metrics endpoint.")
@click.option("--address", default="0.0.0.0", show_default=True,
              help="Address to listen on (127.0.0.1 to keep it local).")
@click.option("--interval", "interval", default=60, show_default=True,
              type=click.IntRange(min=int(MIN_INTERVAL_S)),
              help="Seconds between analyses (one snapshot each; runs never overlap).")
@click.option("--once", is_flag=True, default=False,
              help="Analyse once, print the metrics to stdout and exit.")
@usage_options
def command(port: int, address: str, interval: int, once: bool, **kw: Any) -> int:
    """Expose findings and GPU capacity as Prometheus metrics."""
    url, window, policy = usage_from_kwargs(kw)
    opts = dataclasses.replace(source_from_kwargs(kw), quiet=True)
    analyse = _analyser(opts, url, window, policy)
    if once:
        import time

        t0 = time.monotonic()
        findings, rows, source = analyse()
        click.echo(exposition(RunResult(tuple(findings), tuple(rows), time.time(),
                                        time.monotonic() - t0, True, 0, "", source,
                                        incidents=tuple(build_incidents(findings)))), nl=False)
        return 0
    # runs analysis after analysis: each snapshot is freed after its run, not kept for an exit
    # that is hours away (``common.KEEP_SNAPSHOTS``)
    common.KEEP_SNAPSHOTS = None
    exporter = Exporter(analyse, float(interval),
                        on_error=lambda msg: click.echo(f"gpuxray exporter: run failed: {msg}",
                                                        err=True))
    try:
        server, _ = exporter.serve(port, address)
    except OSError as exc:
        raise UsageError(f"cannot listen on {address}:{port}: {exc.strerror or exc}") from exc
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: exporter.stop())
    click.echo(f"gpuxray exporter: serving http://{address}:{server.server_port}/metrics, "
               f"analysis every {interval}s", err=True)
    try:
        exporter.loop()
    except KeyboardInterrupt:
        pass
    finally:
        exporter.stop()
        server.shutdown()
        server.server_close()
    return 0
