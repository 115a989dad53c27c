"""The scheduler's filters, re-derived per node from the Snapshot (seed §2 gate 1; facts.md §4).

The event line ``Insufficient nvidia.com/gpu`` is the same for an unregistered plugin, unhealthy
devices and a full node (seed §4), so gpuxray never stops at it: it recomputes, for each node,
which filter rejects the pod, in the scheduler's order — NodeUnschedulable, NodeName,
TaintToleration, NodeAffinity (nodeSelector + required affinity), then NodeResourcesFit
(``request > allocatable − already requested``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from fractions import Fraction

from gpuxray.engines.capacity import accounting, is_gpu_resource, node_requested, pod_requests
from gpuxray.model.k8s import Node, Pod
from gpuxray.model.quantity import safe_quantity
from gpuxray.model.snapshot import Snapshot


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
    return fit_with_used(node, resource, requested, used)


def fit_with_used(node: Node, resource: str, requested: Fraction,
                  used: Fraction) -> ResourceFit:
    """:func:`resource_fit` with the bound amount already looked up (gate 1 reads the
    accounting once for every node)."""
    cap, alloc = node.status.capacity, node.status.allocatable
    return ResourceFit(resource, requested, safe_quantity(alloc.get(resource)),
                       safe_quantity(cap.get(resource)), used,
                       resource in cap or resource in alloc)


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


@functools.lru_cache(maxsize=4096)
def parse_fit_error(message: str) -> FitMessage | None:
    """``0/5 nodes are available: 2 Insufficient nvidia.com/gpu, 3 node(s) had untolerated
    taint {…}. preemption: …`` → counts per reason. Cached: the pods of one job repeat one
    message, and a pending storm has thousands of them (the result is read, never changed)."""
    m = _FIT_RE.match(message.strip())
    if not m:
        return None
    reasons: dict[str, int] = {}
    for part in re.split(r", (?=\d+ )", m.group(2)):
        num, _, reason = part.partition(" ")
        if num.isdigit():
            reasons[reason.strip()] = reasons.get(reason.strip(), 0) + int(num)
    return FitMessage(int(m.group(1)), reasons)
