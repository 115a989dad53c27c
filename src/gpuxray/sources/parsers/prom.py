"""Prometheus text exposition (a dcgm-exporter scrape) → samples, via ``prometheus_client``.

The format's parser comes from the Prometheus client library (DESIGN.md: no hand parsers); this
module only narrows its output to what gpuxray reads and turns its exceptions into one-line
:class:`InputError`s naming the file.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from gpuxray.errors import InputError


@dataclass(frozen=True, slots=True)
class Sample:
    name: str
    labels: dict[str, str]
    value: float


def parse_exposition(text: str, source: str, names: Iterable[str] | None = None) -> list[Sample]:
    """Samples of ``text`` (only metrics in ``names`` when given); NaN values are dropped."""
    # imported here: the client pulls in http.server and ssl (~60 ms), paid only with a scrape
    from prometheus_client.parser import text_string_to_metric_families

    wanted = set(names) if names is not None else None
    if "\x00" in text:
        raise InputError(f"{source}: not Prometheus text (binary content)")
    out: list[Sample] = []
    try:
        for fam in text_string_to_metric_families(text):
            for s in fam.samples:
                if wanted is not None and s.name not in wanted:
                    continue
                value = float(s.value)
                if math.isnan(value):
                    continue
                out.append(Sample(s.name, dict(s.labels), value))
    except (ValueError, TypeError, IndexError, KeyError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{source}: malformed Prometheus text ({first[:200]})") from exc
    return out
