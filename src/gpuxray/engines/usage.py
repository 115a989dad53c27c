"""GPU usage from DCGM exporter series: per GPU, per capacity row, per pod (seed §6).

Series and labels read (dcgm-exporter's default counters and its Kubernetes mapping):

* ``DCGM_FI_DEV_GPU_UTIL`` (%), ``DCGM_FI_PROF_GR_ENGINE_ACTIVE`` (ratio; the utilisation of a
  MIG instance, which has no device utilisation), ``DCGM_FI_DEV_FB_USED`` / ``_FB_FREE`` (MiB),
  ``DCGM_FI_DEV_POWER_USAGE`` (W);
* device labels ``gpu`` (index), ``UUID``, ``device``, ``modelName``, ``Hostname``, and for MIG
  ``GPU_I_PROFILE`` / ``GPU_I_ID``;
* attribution labels ``pod``/``namespace``/``container``. Scraped through a Prometheus
  ServiceMonitor these become ``exported_pod``/``exported_namespace``/``exported_container``
  (``pod`` is then the exporter's own pod), so ``exported_*`` wins when present.

Under time-slicing (and MPS) one GPU serves several pods and dcgm-exporter cannot attribute its
series to pods (seed §6, "DCGM cannot associate containers while time-slicing"): per-pod usage is
reported as *not attributable*, explicitly, never as blank or zero.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuxray.engines.capacity import GpuRow, accounting, label_base, sharing_mode
from gpuxray.errors import InputError
from gpuxray.model.snapshot import Input, Snapshot
from gpuxray.model.usage import GpuSeries, IdlePolicy, RawSample, UsageData
from gpuxray.sources.parsers.prom import parse_exposition

UTIL = "DCGM_FI_DEV_GPU_UTIL"
GR_ACTIVE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
FB_USED = "DCGM_FI_DEV_FB_USED"
FB_FREE = "DCGM_FI_DEV_FB_FREE"
POWER = "DCGM_FI_DEV_POWER_USAGE"
DCGM_SERIES = (UTIL, GR_ACTIVE, FB_USED, FB_FREE, POWER)
SHARED_MODES = frozenset({"time-slicing", "mps"})
NOT_ATTRIBUTABLE = ("time-slicing/MPS: dcgm-exporter cannot attribute a shared GPU's series to "
                    "pods")

# (metric, stat) → GpuSeries field; stat "value" is a single scrape (both avg and max).
_FIELDS: dict[tuple[str, str], str] = {
    (UTIL, "avg"): "util", (UTIL, "max"): "util_max",
    (GR_ACTIVE, "avg"): "gr", (GR_ACTIVE, "max"): "gr_max",
    (FB_USED, "avg"): "fb_used", (FB_FREE, "avg"): "fb_free", (POWER, "avg"): "power",
}


def _label(labels: Mapping[str, str], key: str) -> str | None:
    v = labels.get(f"exported_{key}") or labels.get(key)
    return v or None


def _is_exporter_self(pod: str | None) -> bool:
    """``pod`` naming dcgm-exporter itself: a Prometheus target label, not an attribution."""
    return bool(pod and pod.startswith(("nvidia-dcgm-exporter", "dcgm-exporter")))


def build_series(node: str, samples: Iterable[RawSample], source: str) -> list[GpuSeries]:
    """Join the per-metric samples of one node into one :class:`GpuSeries` per labelled GPU."""
    acc: dict[tuple[str | None, ...], dict[str, Any]] = {}
    for s in samples:
        lab = s.labels
        ns, pod = _label(lab, "namespace"), _label(lab, "pod")
        container = _label(lab, "container")
        if _is_exporter_self(pod) and not lab.get("exported_pod"):
            ns = pod = container = None
        key = (lab.get("gpu"), lab.get("UUID"), lab.get("GPU_I_ID"), ns, pod, container)
        rec = acc.setdefault(key, {
            "gpu": lab.get("gpu", ""), "uuid": lab.get("UUID", ""),
            "device": lab.get("device", ""), "model": lab.get("modelName", ""),
            "mig_profile": lab.get("GPU_I_PROFILE") or None,
            "mig_instance": lab.get("GPU_I_ID") or None,
            "namespace": ns if pod else None, "pod": pod, "container": container if pod else None})
        stats = ("avg", "max") if s.stat == "value" else (s.stat,)
        for st in stats:
            f = _FIELDS.get((s.metric, st))
            if f is not None:
                rec[f] = s.value
    out: list[GpuSeries] = []
    for rec in acc.values():
        util, util_max = rec.pop("util", None), rec.pop("util_max", None)
        gr, gr_max = rec.pop("gr", None), rec.pop("gr_max", None)
        if gr is not None and (util is None or rec["mig_instance"] is not None):
            util, util_max = gr * 100, (gr_max * 100 if gr_max is not None else None)
        if util is not None and util_max is None:
            util_max = util
        out.append(GpuSeries(
            node=node, util_pct=_round(util), util_max_pct=_round(util_max),
            fb_used_mib=_round(rec.pop("fb_used", None)),
            fb_free_mib=_round(rec.pop("fb_free", None)),
            power_w=_round(rec.pop("power", None)), source=source, **rec))
    out.sort(key=lambda g: (g.node, _num(g.gpu), g.mig_instance or "", g.pod or ""))
    return out


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 3)


def _num(text: str) -> tuple[int, str]:
    return (int(text), "") if text.isdigit() else (1 << 30, text)


def usage_from_metrics(snap: Snapshot, policy: IdlePolicy | None = None) -> UsageData:
    """Usage from the bundle's one-scrape-per-node files (``metrics/<node>.prom``)."""
    series: list[GpuSeries] = []
    errors: dict[str, str] = {}
    sources: dict[str, str] = {}
    for node, (source, text) in sorted(snap.metrics.items()):
        sources[node] = source
        try:
            samples = parse_exposition(text, source, DCGM_SERIES)
        except InputError as exc:
            errors[node] = str(exc)
            continue
        got = build_series(node, (RawSample(s.name, "value", s.labels, s.value)
                                  for s in samples), source)
        if not got:
            errors[node] = f"{source}: no DCGM GPU series in the scrape"
        series.extend(got)
    return UsageData(tuple(series), "scrape", snap.source(Input.METRICS), None,
                     policy or IdlePolicy(), errors, sources)


def resolve_node(labels: Mapping[str, str], nodes: Mapping[str, Any],
                 pod_nodes: Mapping[str, str]) -> str | None:
    """The node a server-side series belongs to: ``Hostname`` (dcgm-exporter sets the node name
    in the GPU Operator), a ``node``/``kubernetes_node`` target label, the ``instance`` host, or
    the node of the exporter pod ``Hostname`` names."""
    for key in ("Hostname", "node", "kubernetes_node", "nodename", "instance"):
        v = labels.get(key, "")
        if key == "instance":
            v = v.rsplit(":", 1)[0]
        if v and v in nodes:
            return v
    host = labels.get("Hostname", "")
    if host in pod_nodes:
        return pod_nodes[host]
    return host or labels.get("node") or None


def usage_from_samples(snap: Snapshot, samples: Iterable[RawSample], *, source: str,
                       window: str, policy: IdlePolicy | None = None) -> UsageData:
    """Usage over a window from a Prometheus server's ``*_over_time`` results."""
    pod_nodes = {p.metadata.name: p.spec.node_name for p in snap.pods if p.spec.node_name}
    by_node: dict[str, list[RawSample]] = defaultdict(list)
    for s in samples:
        node = resolve_node(s.labels, snap.node_by_name, pod_nodes)
        if node:
            by_node[node].append(s)
    series: list[GpuSeries] = []
    for node, lst in sorted(by_node.items()):
        series.extend(build_series(node, lst, source))
    return UsageData(tuple(series), "window", source, window, policy or IdlePolicy(), {},
                     dict.fromkeys(by_node, source))


@functools.lru_cache(maxsize=8)
def usage_of(snap: Snapshot) -> UsageData | None:
    """The usage the Snapshot carries, else parsed from its scrapes; None when none collected."""
    if snap.usage is not None:
        return snap.usage
    if not snap.has(Input.METRICS):
        return None
    return usage_from_metrics(snap)


# ----- per capacity row ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RowUsage:
    """What a node × resource row uses, or why that is unknown."""

    known: bool
    reason: str = ""
    gpus: tuple[GpuSeries, ...] = ()
    basis: str = ""

    @property
    def util_pct(self) -> float | None:
        vals = [g.util_pct for g in self.gpus if g.util_pct is not None]
        return round(sum(vals) / len(vals), 1) if vals else None

    @property
    def fb_used_mib(self) -> float | None:
        vals = [g.fb_used_mib for g in self.gpus if g.fb_used_mib is not None]
        return round(sum(vals), 1) if vals else None

    @property
    def fb_total_mib(self) -> float | None:
        vals = [(g.fb_used_mib or 0) + (g.fb_free_mib or 0) for g in self.gpus
                if g.fb_free_mib is not None]
        return round(sum(vals), 1) if vals else None

    @property
    def power_w(self) -> float | None:
        """Power is a physical GPU's: counted once per UUID even with several MIG instances."""
        per: dict[str, float] = {}
        for g in self.gpus:
            if g.power_w is not None:
                per[g.uuid or g.gpu] = max(per.get(g.uuid or g.gpu, 0.0), g.power_w)
        return round(sum(per.values()), 1) if per else None

    def as_json(self) -> dict[str, Any]:
        if not self.known:
            return {"status": "unknown", "reason": self.reason}
        return {"status": "measured", "basis": self.basis, "gpus": len(self.gpus),
                "util_pct": self.util_pct, "fb_used_mib": self.fb_used_mib,
                "fb_total_mib": self.fb_total_mib, "power_w": self.power_w,
                "per_gpu": [series_json(g) for g in self.gpus]}


def series_json(g: GpuSeries) -> dict[str, Any]:
    return {"gpu": g.gpu, "uuid": g.uuid, "device": g.device, "model": g.model,
            "mig_profile": g.mig_profile, "mig_instance": g.mig_instance,
            "namespace": g.namespace, "pod": g.pod, "container": g.container,
            "util_pct": g.util_pct, "util_max_pct": g.util_max_pct,
            "fb_used_mib": g.fb_used_mib, "fb_free_mib": g.fb_free_mib, "power_w": g.power_w,
            "source": g.source}


def _matches_row(g: GpuSeries, row: GpuRow) -> bool:
    res = label_base(row.resource)
    if res.startswith("nvidia.com/mig-"):
        return g.mig_profile == res[len("nvidia.com/mig-"):]
    if row.sharing == "mig-single":
        return g.mig_instance is not None
    return g.mig_instance is None


def per_gpu(series: Iterable[GpuSeries]) -> list[GpuSeries]:
    """One entry per device. A device seen with several pods over a window keeps its highest
    utilisation and framebuffer (usage is never understated); pods are listed by the caller."""
    best: dict[tuple[str, str, str], GpuSeries] = {}
    for g in series:
        cur = best.get(g.gpu_key)
        if cur is None or ((g.util_pct or 0), (g.fb_used_mib or 0)) > (
                (cur.util_pct or 0), (cur.fb_used_mib or 0)):
            best[g.gpu_key] = g
    return sorted(best.values(), key=lambda g: (_num(g.gpu), g.mig_instance or ""))


def row_usage(snap: Snapshot, row: GpuRow) -> RowUsage:
    usage = usage_of(snap)
    if usage is None:
        st = snap.state(Input.METRICS)
        return RowUsage(False, f"{st.source} {st.reason}".strip())
    if row.node in usage.node_errors:
        return RowUsage(False, usage.node_errors[row.node])
    mine = [g for g in usage.series if g.node == row.node and _matches_row(g, row)]
    if not mine:
        if row.node not in usage.node_sources:
            return RowUsage(False, f"no metrics for {row.node} in {usage.source}")
        return RowUsage(False, f"no DCGM series for {row.resource} on {row.node}")
    return RowUsage(True, "", tuple(per_gpu(mine)), usage.basis_text)


# ----- per pod ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PodUsage:
    """A GPU-holding pod's measured use. ``status``: ``measured``, ``not-attributable``
    (time-slicing/MPS), ``no-series`` (the node was measured, the pod has no series),
    ``no-metrics`` (the node was not measured)."""

    namespace: str
    pod: str
    node: str
    requests: Mapping[str, int]
    status: str
    reason: str = ""
    series: tuple[GpuSeries, ...] = ()
    idle: bool | None = None
    basis: str = ""
    policy: IdlePolicy = field(default_factory=IdlePolicy)

    @property
    def gpus_allocated(self) -> int:
        return sum(self.requests.values())

    @property
    def util_pct(self) -> float | None:
        vals = [g.util_pct for g in self.series if g.util_pct is not None]
        return round(sum(vals) / len(vals), 1) if vals else None

    @property
    def util_max_pct(self) -> float | None:
        vals = [g.util_max_pct for g in self.series if g.util_max_pct is not None]
        return round(max(vals), 1) if vals else None

    @property
    def fb_used_mib(self) -> float | None:
        vals = [g.fb_used_mib for g in self.series if g.fb_used_mib is not None]
        return round(sum(vals), 1) if vals else None

    def as_json(self) -> dict[str, Any]:
        measured = bool(self.series)  # most pods of a fleet without metrics: skip the sums
        return {"namespace": self.namespace, "pod": self.pod, "node": self.node,
                "requests": dict(self.requests), "gpus_allocated": self.gpus_allocated,
                "status": self.status, "reason": self.reason, "basis": self.basis,
                "util_pct": self.util_pct if measured else None,
                "util_max_pct": self.util_max_pct if measured else None,
                "fb_used_mib": self.fb_used_mib if measured else None, "idle": self.idle,
                "gpus": [series_json(g) for g in self.series]}


def is_idle(series: Iterable[GpuSeries], policy: IdlePolicy) -> bool | None:
    """Idle-but-allocated: every device's utilisation ≤ the threshold while together they hold
    ≥ the framebuffer threshold. None when a value needed is missing."""
    lst = list(series)
    if not lst or any(g.util_pct is None for g in lst):
        return None
    fb = [g.fb_used_mib for g in lst if g.fb_used_mib is not None]
    if not fb:
        return None
    return all((g.util_pct or 0) <= policy.util_pct for g in lst) and sum(fb) >= policy.fb_mib


def _node_shared(snap: Snapshot, node_name: str, resources: Iterable[str]) -> bool:
    node = snap.node_by_name.get(node_name)
    for res in resources:
        if res.endswith(".shared"):
            return True
        if node is not None and sharing_mode(node, res) in SHARED_MODES:
            return True
    return False


@functools.lru_cache(maxsize=8)
def pod_usage(snap: Snapshot) -> tuple[PodUsage, ...]:
    """Every non-terminal, bound pod that requests GPUs, with its measured use (or why not)."""
    usage = usage_of(snap)
    by_pod: dict[tuple[str, str, str], list[GpuSeries]] = defaultdict(list)
    attributed_nodes: set[str] = set()
    if usage is not None:
        for g in usage.series:
            if g.pod:
                by_pod[(g.node, g.namespace or "default", g.pod)].append(g)
                attributed_nodes.add(g.node)
    policy = usage.policy if usage is not None else IdlePolicy()
    out: list[PodUsage] = []
    shared: dict[tuple[str, tuple[str, ...]], bool] = {}  # per node × resource names: few
    no_metrics: str | None = None
    for pod, req in accounting(snap).gpu_pods:
        node = pod.spec.node_name
        ns = pod.metadata.namespace or "default"
        name = pod.metadata.name
        key = (node, tuple(req))
        is_shared = shared.get(key)
        if is_shared is None:
            is_shared = shared[key] = _node_shared(snap, node, req)
        if is_shared:
            out.append(PodUsage(ns, name, node, req, "not-attributable", NOT_ATTRIBUTABLE,
                                policy=policy))
            continue
        if usage is None:
            if no_metrics is None:  # the same for every pod: spelled once
                st = snap.state(Input.METRICS)
                no_metrics = f"{st.source} {st.reason}".strip()
            out.append(PodUsage(ns, name, node, req, "no-metrics", no_metrics, policy=policy))
            continue
        if node in usage.node_errors or node not in usage.node_sources:
            why = usage.node_errors.get(node) or f"no metrics for {node} in {usage.source}"
            out.append(PodUsage(ns, name, node, req, "no-metrics", why, policy=policy))
            continue
        mine = tuple(by_pod.get((node, ns, name), ()))
        if not mine:
            why = (f"no DCGM series attributed to this pod on {node}" if node in attributed_nodes
                   else f"DCGM series on {node} carry no pod labels (dcgm-exporter's Kubernetes "
                        "mapping is off)")
            out.append(PodUsage(ns, name, node, req, "no-series", why, policy=policy))
            continue
        basis = (usage.basis_text if usage.basis == "window"
                 else f"single scrape ({mine[0].source})")
        out.append(PodUsage(ns, name, node, req, "measured", "", mine,
                            is_idle(mine, policy), basis, policy))
    out.sort(key=lambda u: (u.node, u.namespace, u.pod))
    return tuple(out)
