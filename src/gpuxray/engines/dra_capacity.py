"""DRA devices in ``capacity``: one row per node and DRA driver beside the extended resources.

``resource`` is the driver's name, ``sharing`` is ``dra``, and the integer columns count devices
(docs/capacity-dra.md): capacity = published in the pool's current generation, allocatable =
published and not tainted NoSchedule/NoExecute, allocated = listed by some claim's
``status.allocation``, free = allocatable − allocated (never negative). Holders are the pods a
claim is reserved for (``status.reservedFor``), with the number of devices.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from gpuxray.engines.capacity import GpuRow, Holder, node_schedulable
from gpuxray.engines.dra import DraDevice, node_dra_devices
from gpuxray.engines.podscan import bound_walk
from gpuxray.engines.usage import RowUsage, per_gpu, usage_of
from gpuxray.model.k8s import Node, PodCore
from gpuxray.model.snapshot import Input, Snapshot

SHARING_DRA = "dra"


@dataclass(slots=True)
class DraRow(GpuRow):
    devices: list[DraDevice] = field(default_factory=list)

    @property
    def free(self) -> int:
        return sum(1 for d in self.devices if not d.taints and not d.claims)


def dra_rows(snap: Snapshot, nodes: Iterable[Node] | None = None) -> list[DraRow]:
    if not snap.resourceslices:
        return []
    claims_known = snap.has(Input.RESOURCECLAIMS)
    pods_known = snap.has(Input.PODS)
    live = bound_walk(snap).live_by_node if pods_known else {}
    rows = []
    for node in snap.nodes if nodes is None else nodes:
        here: dict[tuple[str, str], PodCore] | None = None
        by_driver = node_dra_devices(snap, node)
        for driver in sorted(by_driver):
            devs = by_driver[driver]
            per_pod: dict[str, int] = {}
            for d in devs:
                for p in d.pods:
                    per_pod[p] = per_pod.get(p, 0) + 1
            holders = []
            for key, n in sorted(per_pod.items()):
                ns, _, name = key.partition("/")
                pod = None
                if pods_known:
                    # a holder is nearly always running on the node: look there first, not
                    # in an index of the fleet's every pod (built only when one is elsewhere)
                    if here is None:
                        here = {(p.metadata.namespace or "default", p.metadata.name): p
                                for p in live.get(node.metadata.name, ())}
                    pod = here.get((ns, name)) or snap.pod_by_key.get((ns, name))
                holders.append(Holder(ns, name, n, pod.status.phase if pod else "unknown"))
            rows.append(DraRow(
                node=node.metadata.name, resource=driver, capacity=len(devs),
                allocatable=sum(1 for d in devs if not d.taints),
                allocated=sum(1 for d in devs if d.claims), sharing=SHARING_DRA,
                physical_gpus=None, replicas=None, schedulable=node_schedulable(node),
                taints=tuple(str(t) for t in node.spec.taints), holders=holders,
                allocated_source="claims" if claims_known else "unknown",
                gpus=len({d.uuid for d in devs if d.type == "gpu" and d.uuid}
                         | {d.parent_uuid for d in devs if d.type == "mig" and d.parent_uuid})
                or None, devices=devs))
    return rows


def dra_row_usage(snap: Snapshot, row: DraRow) -> RowUsage:
    """DCGM usage of a DRA row: the series whose GPU UUID is a device of the row (a MIG
    device by its parent's UUID and profile). Attributable per device, since each device has
    its UUID among its attributes."""
    usage = usage_of(snap)
    if usage is None:
        st = snap.state(Input.METRICS)
        return RowUsage(False, f"{st.source} {st.reason}".strip())
    if row.node in usage.node_errors:
        return RowUsage(False, usage.node_errors[row.node])
    whole = {d.uuid for d in row.devices if d.type == "gpu" and d.uuid}
    mig = {(d.parent_uuid, d.profile) for d in row.devices if d.type == "mig"}
    mine = [g for g in usage.series if g.node == row.node and (
        (g.mig_instance is None and g.uuid in whole)
        or (g.mig_instance is not None and (g.uuid, g.mig_profile or "") in mig))]
    if not mine:
        if row.node not in usage.node_sources:
            return RowUsage(False, f"no metrics for {row.node} in {usage.source}")
        return RowUsage(False, f"no DCGM series for the {row.resource} devices on {row.node}")
    return RowUsage(True, "", tuple(per_gpu(mine)), usage.basis_text)


def dra_pods(rows: Iterable[DraRow]) -> list[dict[str, object]]:
    """Which claim and pod hold which device (``capacity --pods``)."""
    out: list[dict[str, object]] = []
    for r in rows:
        for d in r.devices:
            for c in d.claims:
                out.append({"node": r.node, "driver": r.resource, "device": d.name,
                            "claim": c, "pods": list(d.pods), "product": d.product,
                            "uuid": d.uuid or None})
    return out
