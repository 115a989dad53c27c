"""The scheduler's filters, re-derived per node from the Snapshot (seed §2 gate 1; facts.md §4).

The event line ``Insufficient nvidia.com/gpu`` is the same for an unregistered plugin, unhealthy
devices and a full node (seed §4), so gpuxray never stops at it: it recomputes, for each node,
which filter rejects the pod, in the scheduler's order — NodeUnschedulable, NodeName,
TaintToleration, NodeAffinity (nodeSelector + required affinity), then NodeResourcesFit
(``request > allocatable − already requested``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from gpuxray.engines.capacity import accounting, is_gpu_resource, node_requested, pod_requests
from gpuxray.engines.quantity import safe_quantity
from gpuxray.model.k8s import Node, NodeSelectorRequirement, Pod, Taint, Toleration
from gpuxray.model.snapshot import Snapshot

FILTERING_EFFECTS = frozenset({"NoSchedule", "NoExecute"})
UNSCHEDULABLE_TAINT = Taint(key="node.kubernetes.io/unschedulable", effect="NoSchedule")


def tolerates(tol: Toleration, taint: Taint) -> bool:
    """``v1.Toleration.ToleratesTaint``: effect, key (empty key + Exists = all), operator."""
    if tol.effect and tol.effect != taint.effect:
        return False
    if tol.key and tol.key != taint.key:
        return False
    if tol.operator == "Exists":
        return True
    if tol.operator in ("", "Equal"):
        return tol.value == taint.value and (bool(tol.key) or not taint.key)
    return False


def untolerated_taints(pod_tolerations: Iterable[Toleration], node: Node) -> list[Taint]:
    tols = list(pod_tolerations)
    return [t for t in node.spec.taints
            if t.effect in FILTERING_EFFECTS and not any(tolerates(x, t) for x in tols)]


def _requirement_matches(req: NodeSelectorRequirement, value: str | None) -> bool:
    op = req.operator
    if op == "In":
        return value is not None and value in req.values
    if op == "NotIn":
        return value is None or value not in req.values
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if op in ("Gt", "Lt"):
        if value is None or not req.values:
            return False
        try:
            a, b = int(value), int(req.values[0])
        except ValueError:
            return False
        return a > b if op == "Gt" else a < b
    return False


def selector_mismatches(pod: Pod, node: Node) -> list[str]:
    """What of the pod's nodeSelector the node's labels do not satisfy."""
    labels = node.metadata.labels
    return [f"{k}={v}" for k, v in pod.spec.node_selector.items() if labels.get(k) != v]


def affinity_matches(pod: Pod, node: Node) -> bool:
    """Required node affinity: terms are ORed, expressions within a term ANDed."""
    aff = pod.spec.affinity
    if not aff or not aff.node_affinity:
        return True
    req = aff.node_affinity.required_during_scheduling_ignored_during_execution
    if req is None or not req.node_selector_terms:
        return True
    labels = node.metadata.labels
    for term in req.node_selector_terms:
        if not term.match_expressions and not term.match_fields:
            continue  # an empty term matches nothing
        ok = all(_requirement_matches(e, labels.get(e.key)) for e in term.match_expressions)
        ok = ok and all(_requirement_matches(f, node.metadata.name if f.key == "metadata.name"
                                             else None) for f in term.match_fields)
        if ok:
            return True
    return False


@dataclass(frozen=True, slots=True)
class Admissibility:
    """Why a node is or is not admissible for a pod before any resource arithmetic."""

    node: str
    reason: str  # "" when admissible; else unschedulable|taint|selector|affinity
    detail: str = ""

    @property
    def ok(self) -> bool:
        return not self.reason


def admissibility(pod: Pod, node: Node) -> Admissibility:
    name = node.metadata.name
    tols = pod.spec.tolerations
    if node.spec.unschedulable and not any(tolerates(t, UNSCHEDULABLE_TAINT) for t in tols):
        return Admissibility(name, "unschedulable", "node is cordoned (spec.unschedulable)")
    bad = untolerated_taints(tols, node)
    if bad:
        return Admissibility(name, "taint", ", ".join(str(t) for t in bad))
    miss = selector_mismatches(pod, node)
    if miss:
        return Admissibility(name, "selector", "nodeSelector " + ", ".join(miss))
    if not affinity_matches(pod, node):
        return Admissibility(name, "affinity", "required node affinity does not match")
    return Admissibility(name, "")


@dataclass(frozen=True, slots=True)
class ResourceFit:
    """NodeResourcesFit for one resource on one node."""

    resource: str
    requested: Fraction
    allocatable: Fraction
    capacity: Fraction
    used: Fraction
    name_present: bool

    @property
    def free(self) -> Fraction:
        return self.allocatable - self.used

    @property
    def fits(self) -> bool:
        return self.requested <= self.free


def resource_fit(snap: Snapshot, node: Node, resource: str, requested: Fraction) -> ResourceFit:
    if is_gpu_resource(resource):
        used = accounting(snap).allocated.get(node.metadata.name, {}).get(resource, Fraction(0))
    else:
        used = node_requested(snap, node.metadata.name).get(resource, Fraction(0))
    present = resource in node.status.capacity or resource in node.status.allocatable
    return ResourceFit(resource, requested, safe_quantity(node.status.allocatable.get(resource)),
                       safe_quantity(node.status.capacity.get(resource)), used, present)


def non_gpu_misfits(snap: Snapshot, pod: Pod, node: Node) -> list[ResourceFit]:
    """cpu/memory/other resources that would still reject the pod on this node."""
    out = []
    for res, q in pod_requests(pod).items():
        if is_gpu_resource(res) or res in ("ephemeral-storage",) or res.startswith("hugepages-"):
            continue
        if res not in ("cpu", "memory") and "/" not in res:
            continue
        fit = resource_fit(snap, node, res, q)
        if not fit.fits:
            out.append(fit)
    return out


# ----- FailedScheduling messages (FitError.Error(), facts.md §4) ---------------------------------

_FIT_RE = re.compile(r"^0/(\d+) nodes are available: (.*?)\.(?:\s+preemption:.*)?$", re.S)


@dataclass(frozen=True, slots=True)
class FitMessage:
    total: int
    reasons: dict[str, int]


def parse_fit_error(message: str) -> FitMessage | None:
    """``0/5 nodes are available: 2 Insufficient nvidia.com/gpu, 3 node(s) had untolerated
    taint {…}. preemption: …`` → counts per reason."""
    m = _FIT_RE.match(message.strip())
    if not m:
        return None
    reasons: dict[str, int] = {}
    for part in re.split(r", (?=\d+ )", m.group(2)):
        num, _, reason = part.partition(" ")
        if num.isdigit():
            reasons[reason.strip()] = reasons.get(reason.strip(), 0) + int(num)
    return FitMessage(int(m.group(1)), reasons)
