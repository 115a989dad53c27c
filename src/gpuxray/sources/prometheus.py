"""A Prometheus server as a usage source: DCGM series averaged over a window (seed §6).

One scrape shows an instant; "idle" needs a window (the seed's finding came from three hours of
measurement). For each DCGM counter gpuxray asks ``/api/v1/query`` for
``avg_over_time(M[window])`` (and ``max_over_time`` for utilisation) at one evaluation time, so the
server does the arithmetic and only one value per series crosses the network. Plain ``urllib``,
bounded timeouts and response size, read-only GET requests; every failure is one
:class:`PrometheusError` line that the CLI turns into an *unknown* metrics input.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import time
from collections.abc import Iterable
from typing import Any

from gpuxray.errors import SourceError
from gpuxray.model.usage import RawSample

DCGM_UTIL = "DCGM_FI_DEV_GPU_UTIL"
DCGM_GR = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
AVG_SERIES = (DCGM_UTIL, DCGM_GR, "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE",
              "DCGM_FI_DEV_POWER_USAGE")
MAX_SERIES = (DCGM_UTIL, DCGM_GR)
RESPONSE_LIMIT = 64 << 20
_WINDOW = re.compile(r"^(?:[0-9]+(?:ms|[smhdwy]))+$")


class PrometheusError(SourceError):
    """The server could not be queried or answered something unusable."""


def parse_window(text: str) -> str:
    """A Prometheus duration (``3h``, ``90m``, ``1h30m``); raises ValueError otherwise."""
    w = text.strip()
    if not _WINDOW.match(w) or not any(c.isdigit() and c != "0" for c in w):
        raise ValueError(f"not a Prometheus duration: {text!r} (e.g. 3h, 90m, 1d)")
    return w


def _get(url: str, params: dict[str, str], timeout: float) -> Any:
    # imported here: urllib.request pulls in http.client and email (~40 ms at every start)
    import urllib.error
    import urllib.parse
    import urllib.request

    full = f"{url.rstrip('/')}/api/v1/query?{urllib.parse.urlencode(params)}"
    req = urllib.request.Request(full, headers={"Accept": "application/json",
                                                "User-Agent": "gpuxray"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read(RESPONSE_LIMIT + 1)
    except urllib.error.HTTPError as exc:
        detail = ""
        with contextlib.suppress(ValueError, AttributeError, OSError):
            detail = json.loads(exc.read(65536)).get("error", "")
        raise PrometheusError(f"{url}: HTTP {exc.code} {detail or exc.reason}".strip()) from exc
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise PrometheusError(f"{url}: cannot query ({reason})") from exc
    if len(body) > RESPONSE_LIMIT:
        raise PrometheusError(f"{url}: response larger than {RESPONSE_LIMIT >> 20} MiB")
    try:
        doc = json.loads(body)
    except ValueError as exc:
        raise PrometheusError(f"{url}: answer is not JSON") from exc
    if not isinstance(doc, dict) or doc.get("status") != "success":
        err = doc.get("error", "unexpected answer") if isinstance(doc, dict) else "unexpected"
        raise PrometheusError(f"{url}: query failed ({err})")
    return doc.get("data")


def _vector(data: Any, metric: str, stat: str) -> Iterable[RawSample]:
    if not isinstance(data, dict) or data.get("resultType") != "vector":
        raise PrometheusError(f"unexpected result type for {metric}")
    for item in data.get("result") or []:
        try:
            labels = {str(k): str(v) for k, v in item["metric"].items()}
            value = float(item["value"][1])
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            continue
        if math.isnan(value):
            continue
        yield RawSample(metric, stat, labels, value)


def query_window(url: str, window: str, *, at: float | None = None,
                 timeout: float = 10.0) -> list[RawSample]:
    """``avg_over_time``/``max_over_time`` of the DCGM counters over ``window`` ending ``at``."""
    if not url.startswith(("http://", "https://")):
        raise PrometheusError(f"{url}: the Prometheus URL must start with http:// or https://")
    w = parse_window(window)
    when = f"{at if at is not None else time.time():.3f}"
    out: list[RawSample] = []
    for stat, metrics in (("avg", AVG_SERIES), ("max", MAX_SERIES)):
        for m in metrics:
            data = _get(url, {"query": f"{stat}_over_time({m}[{w}])", "time": when}, timeout)
            out.extend(_vector(data, m, stat))
    return out
