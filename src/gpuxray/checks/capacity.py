"""6xx — capacity: allocated vs used, shared GPUs, MIG waste, lost devices (seed §6).

Thresholds for "idle" are not module state: they travel in the Snapshot's usage
(:class:`gpuxray.model.usage.IdlePolicy`, set by ``gpuxray capacity --idle-util/--idle-fb-mib``;
defaults 1 % and 1024 MiB otherwise), so these checks stay pure functions of the Snapshot.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import TYPE_CHECKING

from gpuxray.checks.registry import check
from gpuxray.engines.capacity import GpuRow, capacity_rows, label_base
from gpuxray.engines.migstate import node_mig_states
from gpuxray.engines.sharing import node_sharing
from gpuxray.engines.usage import SHARED_MODES, PodUsage, pod_usage, usage_of
from gpuxray.model.factory import fail, unknown
from gpuxray.model.finding import Evidence, Finding, Severity, Subject
from gpuxray.model.snapshot import Input, Snapshot

if TYPE_CHECKING:
    from gpuxray.engines.nodefacts import NodeFacts


def _node(name: str) -> Subject:
    return Subject("Node", name)


def _fmt(v: float | None) -> str:
    return "?" if v is None else f"{v:g}"


# ----- GX601 idle-but-allocated ----------------------------------------------------------------
@check("GX601", needs=(Input.METRICS, Input.PODS))
def idle_but_allocated(snap: Snapshot) -> Iterator[Finding]:
    """Seed §6: the scheduler counts allocation, DCGM counts use; a GPU held by a pod at ~0 %
    utilisation while its framebuffer is in use is idle, not free. Pods on time-sliced GPUs
    cannot be judged (no per-pod attribution) and nodes without metrics are ``unknown``."""
    usage = usage_of(snap)
    not_measured: dict[str, list[PodUsage]] = defaultdict(list)
    shared: dict[str, list[PodUsage]] = defaultdict(list)
    for pu in pod_usage(snap):
        subj = Subject("Pod", pu.pod, pu.namespace)
        if pu.status == "measured":
            if pu.idle:
                g0 = pu.series[0]
                yield fail(
                    "GX601", subj,
                    [Evidence(g.source, f"{g.label} ({g.uuid}): util {_fmt(g.util_pct)}% "
                                        f"(max {_fmt(g.util_max_pct)}%), framebuffer "
                                        f"{_fmt(g.fb_used_mib)} MiB, power {_fmt(g.power_w)} W")
                     for g in pu.series],
                    pod=f"{pu.namespace}/{pu.pod}", node=pu.node,
                    gpu=", ".join(g.label for g in pu.series), gpus=len(pu.series),
                    util=pu.util_pct, util_max=pu.util_max_pct, fb_mib=pu.fb_used_mib,
                    basis=pu.basis, source=g0.source,
                    idle_util_pct=pu.policy.util_pct, idle_fb_mib=pu.policy.fb_mib)
        elif pu.status == "not-attributable":
            shared[pu.node].append(pu)
        elif pu.status == "no-series":
            yield unknown("GX601", subj, f"DCGM series for {pu.namespace}/{pu.pod}", pu.reason)
        else:
            not_measured[pu.node].append(pu)
    for node, pods in sorted(not_measured.items()):
        src = usage.node_sources.get(node, f"metrics/{node}.prom") if usage else "metrics/"
        yield unknown("GX601", _node(node), src,
                      f"{pods[0].reason} ({len(pods)} GPU pod(s) on the node)")
    for node, pods in sorted(shared.items()):
        yield unknown("GX601", _node(node), "per-pod DCGM attribution",
                      f"{len(pods)} pod(s) share time-sliced/MPS GPUs; dcgm-exporter cannot "
                      "attribute usage to pods")


# ----- GX602 shared-without-isolation ----------------------------------------------------------
def _per_replica_mib(row: GpuRow, snap: Snapshot, replicas: int) -> int | None:
    node = snap.node_by_name.get(row.node)
    if node is None:
        return None
    mem = node.metadata.labels.get(f"{label_base(row.resource)}.memory")
    try:
        return int(int(mem or "") / replicas) if mem else None
    except ValueError:
        return None


@check("GX602", needs=(Input.NODES,))
def shared_without_isolation(snap: Snapshot) -> Iterator[Finding]:
    """Seed §6, facts.md §6.1: ``replicas: N`` registers one GPU N times; time-slicing isolates
    neither memory nor faults (guaranteed memory per replica: 0), MPS caps each client at 1/N.
    Info by default; a warning when ``failRequestsGreaterThanOne`` is false and pods on the node
    hold more than one replica (they get no more GPU than one)."""
    sharing = node_sharing(snap)
    pods_known = snap.has(Input.PODS)
    for row in capacity_rows(snap):
        ns_ = sharing.get(row.node)
        cfg = ns_.config if ns_ else None
        strategy = row.sharing if row.sharing in SHARED_MODES else (
            cfg.strategy if cfg and cfg.strategy in SHARED_MODES
            and any(r.advertised == row.resource for r in cfg.resources) else None)
        if strategy is None:
            continue
        replicas = row.replicas or (cfg.replicas_for(row.resource) if cfg else None)
        ev = [snap.ev(Input.NODES, f"{row.node}: {row.resource} capacity {row.capacity}, "
                                   f"{label_base(row.resource)}.count {row.physical_gpus}, "
                                   f".replicas {row.replicas}, sharing {row.sharing}")]
        frg: bool | None = None
        if cfg is not None and ns_ is not None:
            frg = cfg.fail_requests_gt_one
            ev.append(Evidence(ns_.source, f"ConfigMap {ns_.configmap} key {ns_.key} "
                                           f"({ns_.key_from}): strategy {cfg.strategy}, "
                                           f"failRequestsGreaterThanOne {str(frg).lower()}"
                                           f"{'' if cfg.fail_requests_explicit else ' (default)'}"))
        big = [h for h in row.holders if h.amount > 1]
        for h in big:
            ev.append(snap.ev(Input.PODS, f"{h.namespace}/{h.pod} holds {h.amount} × "
                                          f"{row.resource}"))
        warn = frg is False and bool(big)
        per_mib = _per_replica_mib(row, snap, replicas) if replicas else None
        yield fail("GX602", _node(row.node), ev,
                   severity=Severity.WARNING if warn else None,
                   node=row.node, resource=row.resource, strategy=strategy,
                   capacity=row.capacity, physical_gpus=row.physical_gpus, replicas=replicas,
                   avg_mib_per_replica=per_mib, guaranteed_mib=0 if strategy == "time-slicing"
                   else per_mib,
                   fail_requests_gt_one="unknown" if frg is None else str(frg).lower(),
                   pods_over_one=", ".join(f"{h.namespace}/{h.pod} ({h.amount})" for h in big)
                   or ("none" if pods_known else "unknown (pods not collected)"),
                   pods_over_one_list=[f"{h.namespace}/{h.pod}" for h in big],
                   pods_known=pods_known)


# ----- GX603 mig-layout-waste ------------------------------------------------------------------
@check("GX603", needs=(Input.NODES,))
def mig_layout_waste(snap: Snapshot) -> Iterator[Finding]:
    """Seed §6 "MIG", facts.md §7: memory comes in 8 slices and compute in 7 (A30: 4 and 4), so
    a layout may strand slices — 7 × 1g.5gb on an A100-40GB leaves one 5 GB memory slice that no
    instance can use. The layout is the node's ``nvidia.com/mig.config`` entry of the mig-parted
    ConfigMap, placed by the planner on the GPU model from GFD labels."""
    for st in node_mig_states(snap):
        if st.missing:
            yield unknown("GX603", _node(st.node), st.missing_input or "cluster/configmaps.json",
                          st.missing)
            continue
        lay = st.layout
        if lay is None or lay.invalid or (lay.unused_mem == 0 and lay.unused_compute == 0):
            continue
        ev = [snap.ev(Input.NODES, f"{st.node}: nvidia.com/mig.config={st.config}, "
                                   f"model {lay.model.name}, {lay.gpus} GPU(s)")]
        if st.config_source:
            ev.append(Evidence(st.config_source, f"ConfigMap {st.configmap} key {st.key}: "
                                                 f"mig-configs.{st.config}: "
                               + "; ".join(f"GPU {i}: " + (",".join(
                                   f"{k}={v}" for k, v in g.counts.items()) if g else "disabled")
                                   for i, g in enumerate(lay.per_gpu))))
        gpus = [g for g in lay.per_gpu if g is not None]
        yield fail("GX603", _node(st.node), ev,
                   node=st.node, config=st.config, model=lay.model.name, gpus=len(gpus),
                   unused_mem_slices=lay.unused_mem, unused_compute_slices=lay.unused_compute,
                   unused_gb=lay.unused_gb, mem_slices=lay.model.mem_slices,
                   compute_slices=lay.model.compute_slices,
                   per_gpu=[{"unused_mem_slices": g.unused_mem,
                             "unused_compute_slices": g.unused_compute,
                             "unused_gb": g.unused_gb} for g in gpus],
                   derived=lay.model.derived)


# ----- GX604 advertised-below-physical ---------------------------------------------------------
def _host_gpu_count(nf: NodeFacts | None) -> tuple[int | None, str]:
    """The node's GPUs as its host lists them, where GFD does not label them (a cluster
    without GFD: the device plugin alone): ``nvidia-smi -q``'s GPUs, else lspci's NVIDIA 3D/VGA
    controllers."""
    if nf is None:
        return None, ""
    smi = nf.smi
    if smi is not None and smi.gpus:
        return len(smi.gpus), f"nvidia-smi -q lists {len(smi.gpus)} GPU(s)"
    if nf.lspci is not None and nf.nvidia_devices:
        return len(nf.nvidia_devices), f"lspci lists {len(nf.nvidia_devices)} NVIDIA GPU(s)"
    return None, ""


@check("GX604", needs=(Input.NODES,))
def advertised_below_physical(snap: Snapshot) -> Iterator[Finding]:
    """Seed §6, facts.md §3/§6.2: GFD's ``<resource>.count`` is the physical count and
    ``.replicas`` the per-GPU replicas, so a healthy node advertises count × replicas. Less
    capacity means devices the plugin no longer lists (lost, or gone with the plugin); unhealthy
    ones still count in capacity (GX203 covers capacity > allocatable)."""
    sharing = node_sharing(snap)
    facts: dict[str, NodeFacts] = {}
    if snap.has(Input.HOSTS):  # the host parsers load only for host files (~25 ms of a start)
        from gpuxray.engines.nodefacts import node_facts

        facts = node_facts(snap)
    for row in capacity_rows(snap):
        base = label_base(row.resource)
        physical, counted = row.physical_gpus, f"label {base}.count={row.physical_gpus}"
        if physical is None and row.sharing in ("none", "time-slicing", "mps"):
            physical, counted = _host_gpu_count(facts.get(row.node))
        if physical is None:
            yield unknown("GX604", _node(row.node), f"{snap.source(Input.NODES)} label "
                          f"{base}.count", f"no GFD count label for {row.resource}"
                          + ("" if row.node in facts else ", no host GPU list"))
            continue
        replicas = row.replicas if row.replicas and row.replicas > 0 else None
        cfg = sharing.get(row.node)
        if replicas is None:
            replicas = (cfg.replicas_for(row.resource) if cfg else None) or 1
        expected = physical * replicas
        if row.capacity >= expected:
            continue
        # the node's name is its own (Finding.own): the same loss on many nodes — a handler
        # gone fleet-wide — folds into one JSON entry listing each node (docs/json.md)
        yield fail("GX604", _node(row.node),
                   [snap.ev(Input.NODES, f"{row.node}: status.capacity[{row.resource}]="
                                         f"{row.capacity}, allocatable {row.allocatable}; "
                                         f"{counted}, {base}.replicas={row.replicas}")],
                   node=row.node, resource=row.resource, capacity=row.capacity,
                   allocatable=row.allocatable, physical=physical, replicas=replicas,
                   expected=expected, missing=expected - row.capacity,
                   plugin_gone=row.capacity == 0, own=("node",))
