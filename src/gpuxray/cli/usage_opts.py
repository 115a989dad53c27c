"""Usage options shared by commands that show GPU use: ``--prometheus``, ``--window`` and the idle
thresholds. The CLI is where I/O happens, so this is where a Prometheus server is queried and
its answer (or the reason there is none) put into the Snapshot for the pure checks (seed §6)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

import click

from gpuxray.engines.usage import usage_from_metrics, usage_from_samples
from gpuxray.errors import UsageError
from gpuxray.model.snapshot import Input, InputState, Snapshot
from gpuxray.model.usage import DEFAULT_IDLE_FB_MIB, DEFAULT_IDLE_UTIL_PCT, IdlePolicy
from gpuxray.sources.prometheus import PrometheusError, parse_window, query_window

F = TypeVar("F", bound=Callable[..., Any])


def usage_options(fn: F) -> F:
    opts = [
        click.option("--prometheus", "prometheus", default=None, metavar="URL",
                     help="Read DCGM usage from this Prometheus server (averaged over --window) "
                          "instead of the bundle's single scrapes."),
        click.option("--window", "window", default="3h", show_default=True,
                     help="Window for --prometheus (a Prometheus duration: 3h, 90m, 1d)."),
        click.option("--idle-util", "idle_util", type=click.FloatRange(0, 100),
                     default=DEFAULT_IDLE_UTIL_PCT, show_default=True,
                     help="A GPU at or below this utilisation (%) counts as idle."),
        click.option("--idle-fb-mib", "idle_fb_mib", type=click.FloatRange(0),
                     default=DEFAULT_IDLE_FB_MIB, show_default=True,
                     help="…while holding at least this much framebuffer (MiB)."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def usage_from_kwargs(kw: dict[str, Any]) -> tuple[str | None, str, IdlePolicy]:
    url = kw.pop("prometheus", None)
    window = str(kw.pop("window", "3h"))
    policy = IdlePolicy(float(kw.pop("idle_util", DEFAULT_IDLE_UTIL_PCT)),
                        float(kw.pop("idle_fb_mib", DEFAULT_IDLE_FB_MIB)))
    try:
        window = parse_window(window)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    return url, window, policy


def with_usage(snap: Snapshot, url: str | None, window: str, policy: IdlePolicy, *,
               at: float | None = None) -> Snapshot:
    """The Snapshot with its usage set: from Prometheus when ``url`` is given (a failure marks
    the metrics input not collected, with the reason), else from the bundle's scrapes."""
    inputs = dict(snap.inputs)
    if url is None:
        if not snap.has(Input.METRICS):
            return snap
        return dataclasses.replace(snap, usage=usage_from_metrics(snap, policy))
    source = f"prometheus {url.rstrip('/')}"
    try:
        samples = query_window(url, window, at=at)
    except PrometheusError as exc:
        inputs[Input.METRICS] = InputState(False, source, str(exc))
        return dataclasses.replace(snap, inputs=inputs, usage=None, metrics={})
    inputs[Input.METRICS] = InputState(True, source)
    usage = usage_from_samples(snap, samples, source=source, window=window, policy=policy)
    return dataclasses.replace(snap, inputs=inputs, usage=usage)
