"""Where a pod may be placed before any resource arithmetic: the scheduler's NodeUnschedulable,
TaintToleration and NodeAffinity filters over the typed objects (seed §2 gate 1; facts.md §4).

These predicates read only a Pod and a Node, so they live on the model floor: the scheduling
engine builds gate 1 on them, and the node agent's source picks the nodes its DaemonSet lands on
with the same rules (``k8s.io/kubernetes@v1.33.0:pkg/scheduler/framework/plugins``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gpuxray.model.k8s import Affinity, Node, NodeSelectorRequirement, Pod, Taint, Toleration

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
    return required_affinity_matches(pod.spec.affinity, node)


def required_affinity_matches(aff: Affinity | None, node: Node) -> bool:
    """A pod spec's required node affinity against one node (a pod's, or a DaemonSet
    template's: the DaemonSet controller places a daemon pod only where it matches,
    kubernetes/kubernetes@v1.37.2:pkg/controller/daemon/daemon_controller.go
    ``NodeShouldRunDaemonPod``)."""
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


AFFINITY_MISMATCH = "required node affinity does not match"


def admissibility(pod: Pod, node: Node, *, affinity: bool = True) -> Admissibility:
    """The first filter that rejects ``node`` for ``pod`` (the scheduler's order); with
    ``affinity=False`` the required node affinity is left out (callers that match it apart)."""
    name = node.metadata.name
    tols = pod.spec.tolerations
    if node.spec.unschedulable and not any(tolerates(t, UNSCHEDULABLE_TAINT) for t in tols):
        return Admissibility(name, "unschedulable", "node is cordoned (spec.unschedulable)")
    bad = untolerated_taints(tols, node)
    if bad:
        return Admissibility(name, "taint", ", ".join(str(t) for t in bad))
    past = selector_admissibility(pod, node)
    if not past.ok or not affinity or affinity_matches(pod, node):
        return past
    return Admissibility(name, "affinity", AFFINITY_MISMATCH)


def selector_admissibility(pod: Pod, node: Node) -> Admissibility:
    """The nodeSelector's verdict alone, for a node past the cordon and taint filters (gate 1
    matches those once per group of nodes that carry the same ones)."""
    miss = selector_mismatches(pod, node)
    if miss:
        return Admissibility(node.metadata.name, "selector", "nodeSelector " + ", ".join(miss))
    return Admissibility(node.metadata.name, "")
