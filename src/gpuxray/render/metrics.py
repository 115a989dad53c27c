"""Prometheus metrics over the latest analysis: one series per finding, one per incident (so an
alert fires once per root cause, not once per symptom), counts per severity and status, GPU
capacity per node and resource (seed §6: capacity vs allocatable vs allocated), and the
exporter's own health.

A custom Collector reads an immutable :class:`RunResult` on every scrape, so a scrape never
triggers analysis and never sees half an update; it lives in its own CollectorRegistry so the
process's default metrics do not leak in. Renderers import the model only (DESIGN.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from gpuxray.model.finding import Finding, Severity, Status
from gpuxray.model.incident import Incident

PREFIX = "gpuxray"
FINDING_LABELS = ("code", "name", "severity", "status", "subject_kind", "subject_namespace",
                  "subject_name")
INCIDENT_LABELS = ("incident", "root_code", "root_name", "severity")
IMPACT_METRICS: tuple[tuple[str, str], ...] = (
    ("gpus_lost", "GPUs the incident costs (physical x replicas - advertised, GX604)."),
    ("pods_blocked", "Workload pods the incident leaves without a GPU."),
    ("nodes_affected", "Nodes any finding of the incident is on."),
)
CAPACITY_METRICS: tuple[tuple[str, str], ...] = (
    ("capacity", "GPU resource capacity the node advertises (status.capacity)."),
    ("allocatable", "GPU resource allocatable on the node (status.allocatable)."),
    ("allocated", "GPUs requested by non-terminal pods bound to the node."),
    ("free", "Allocatable minus allocated."),
)


@dataclass(frozen=True, slots=True)
class RunResult:
    """One completed analysis (or a failed attempt: ``error`` set, data of the last good run
    kept so a transient API error does not blank every alert)."""

    findings: tuple[Finding, ...] = ()
    capacity: tuple[Mapping[str, Any], ...] = ()
    finished_at: float = 0.0          # unix seconds; 0 = no run finished yet
    duration_s: float = 0.0
    ok: bool = False
    errors_total: int = 0
    error: str = ""
    source: str = ""
    extra: Mapping[str, float] = field(default_factory=dict)
    incidents: tuple[Incident, ...] = ()


def finding_series(findings: Sequence[Finding]) -> Counter[tuple[str, ...]]:
    """Label tuples of ``gpuxray_finding``; findings that share every label (e.g. two Xid
    findings on one node) add up instead of producing duplicate series."""
    out: Counter[tuple[str, ...]] = Counter()
    for f in findings:
        out[(f.code, f.name, f.severity.label, f.status.value, f.subject.kind,
             f.subject.namespace or "", f.subject.name)] += 1
    return out


class GpuxrayCollector(Collector):
    def __init__(self, latest: Callable[[], RunResult]) -> None:
        self._latest = latest

    def collect(self) -> Iterator[Metric]:
        r = self._latest()
        fam = GaugeMetricFamily(f"{PREFIX}_finding",
                                "A finding of the latest run (1 per finding; value = count when "
                                "several share all labels).", labels=FINDING_LABELS)
        for labels, n in sorted(finding_series(r.findings).items()):
            fam.add_metric(list(labels), n)
        yield fam

        yield from incident_families(r.incidents)

        counts = GaugeMetricFamily(f"{PREFIX}_findings",
                                   "Findings of the latest run by severity and status.",
                                   labels=("severity", "status"))
        by: Counter[tuple[str, str]] = Counter((f.severity.label, f.status.value)
                                               for f in r.findings)
        for sev in sorted(Severity, reverse=True):
            for st in Status:
                counts.add_metric([sev.label, st.value], by[(sev.label, st.value)])
        yield counts

        for key, doc in CAPACITY_METRICS:
            g = GaugeMetricFamily(f"{PREFIX}_gpu_{key}", doc, labels=("node", "resource"))
            for row in r.capacity:
                v = row.get(key)
                if isinstance(v, int | float):
                    g.add_metric([str(row.get("node")), str(row.get("resource"))], float(v))
            yield g

        yield GaugeMetricFamily(f"{PREFIX}_last_run_timestamp_seconds",
                                "Unix time the latest successful analysis finished (0: none yet).",
                                value=r.finished_at)
        yield GaugeMetricFamily(f"{PREFIX}_run_duration_seconds",
                                "Wall time of the latest analysis.", value=r.duration_s)
        yield GaugeMetricFamily(f"{PREFIX}_last_run_success",
                                "1 when the latest analysis attempt succeeded.",
                                value=1.0 if r.ok else 0.0)
        yield CounterMetricFamily(f"{PREFIX}_run_errors", "Analysis attempts that failed.",
                                  value=r.errors_total)


def incident_families(incidents: Sequence[Incident]) -> Iterator[Metric]:
    """``gpuxray_incidents`` (1 per incident, labelled by its root), its impact numbers, and
    ``gpuxray_incident_node`` (1 per node an incident is on) so a node-level alert can leave
    out nodes an incident already explains."""
    fam = GaugeMetricFamily(f"{PREFIX}_incidents",
                            "An incident of the latest run: one root cause and what it explains "
                            "(1 per incident).", labels=INCIDENT_LABELS)
    impact = {key: GaugeMetricFamily(f"{PREFIX}_incident_{key}", doc,
                                     labels=("incident", "root_code"))
              for key, doc in IMPACT_METRICS}
    nodes = GaugeMetricFamily(f"{PREFIX}_incident_node",
                              "A node an incident is on (1 per incident and node).",
                              labels=("incident", "root_code", "node"))
    for inc in incidents:
        fam.add_metric([inc.id, inc.root.code, inc.root.name, inc.severity.label], 1)
        values = {"gpus_lost": inc.impact.gpus_lost, "pods_blocked": inc.impact.pods_blocked,
                  "nodes_affected": inc.impact.nodes_affected}
        for key, g in impact.items():
            g.add_metric([inc.id, inc.root.code], values[key])
        for n in inc.impact.nodes:
            nodes.add_metric([inc.id, inc.root.code, n], 1)
    yield fam
    yield from impact.values()
    yield nodes


def registry_for(latest: Callable[[], RunResult]) -> CollectorRegistry:
    reg = CollectorRegistry(auto_describe=False)
    reg.register(GpuxrayCollector(latest))
    return reg


def exposition(result: RunResult) -> str:
    """The text format of one result (``gpuxray exporter --once``)."""
    return generate_latest(registry_for(lambda: result)).decode()
