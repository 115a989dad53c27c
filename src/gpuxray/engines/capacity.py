"""GPU accounting the way the scheduler does it (seed §2 gate 1, §6; facts.md §3, §4).

* A pod's effective request is ``max(largest init container, app containers + sidecars)`` plus
  the pod overhead, where a restartable init container (a native sidecar) keeps its request for
  the rest of the pod's life (``k8s.io/component-helpers/resource.PodRequests``).
* For an extended resource the API server defaults a missing request to the limit, so limits
  stand in for absent requests.
* Only pods bound to a node and not terminal (Succeeded/Failed) hold resources.
* ``capacity > allocatable`` means unhealthy devices; ``allocatable 0`` with capacity kept means the
  plugin just disconnected; both ``0`` means it has been gone beyond kubelet's 5-minute grace.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from gpuxray.engines.quantity import QuantityError, parse_quantity, safe_quantity
from gpuxray.model.k8s import Container, Node, Pod
from gpuxray.model.snapshot import Snapshot

GPU_PREFIXES = ("nvidia.com/gpu", "nvidia.com/mig-")
TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})

# GFD labels (facts.md §6.2): <resource>.count / .replicas / .sharing-strategy / .product
LABEL_MIG_STRATEGY = "nvidia.com/mig.strategy"


def is_gpu_resource(name: str) -> bool:
    return name.startswith(GPU_PREFIXES)


def is_terminal(pod: Pod) -> bool:
    return pod.status.phase in TERMINAL_PHASES


def container_requests(c: Container) -> dict[str, Fraction]:
    """Requests of one container, limits standing in where a request is absent."""
    out: dict[str, Fraction] = {}
    for name, val in c.resources.limits.items():
        try:
            out[name] = parse_quantity(val)
        except QuantityError:
            continue
    for name, val in c.resources.requests.items():
        try:
            out[name] = parse_quantity(val)
        except QuantityError:
            continue
    return out


def _add(into: dict[str, Fraction], other: dict[str, Fraction]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, Fraction(0)) + v


def pod_requests(pod: Pod) -> dict[str, Fraction]:
    """The pod's effective request per resource, as the scheduler computes it."""
    app: dict[str, Fraction] = {}
    for c in pod.spec.containers:
        _add(app, container_requests(c))
    sidecars: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for c in pod.spec.init_containers:
        req = container_requests(c)
        if c.restart_policy == "Always":
            _add(sidecars, req)
            # a sidecar's start also needs every earlier sidecar's resources
            for k, v in sidecars.items():
                init_max[k] = max(init_max.get(k, Fraction(0)), v)
        else:
            for k, v in req.items():
                total = v + sidecars.get(k, Fraction(0))
                init_max[k] = max(init_max.get(k, Fraction(0)), total)
    _add(app, sidecars)
    out = dict(app)
    for k, v in init_max.items():
        out[k] = max(out.get(k, Fraction(0)), v)
    for k, raw in pod.spec.overhead.items():
        out[k] = out.get(k, Fraction(0)) + safe_quantity(raw)
    return {k: v for k, v in out.items() if v != 0}


def gpu_requests(pod: Pod) -> dict[str, int]:
    return {k: int(v) for k, v in pod_requests(pod).items() if is_gpu_resource(k)}


@dataclass(frozen=True, slots=True)
class Holder:
    namespace: str
    pod: str
    amount: int
    phase: str


@dataclass(slots=True)
class GpuRow:
    """One node × GPU resource name: the numbers of CODES.md's capacity contract."""

    node: str
    resource: str
    capacity: int
    allocatable: int
    allocated: int
    sharing: str
    physical_gpus: int | None
    replicas: int | None
    schedulable: bool
    taints: tuple[str, ...]
    holders: list[Holder] = field(default_factory=list)
    name_present: bool = True

    @property
    def free(self) -> int:
        return max(self.allocatable - self.allocated, 0)

    @property
    def unhealthy(self) -> int:
        return max(self.capacity - self.allocatable, 0)

    @property
    def physical(self) -> int | None:
        """Expected advertisement: physical GPUs × replicas, where GFD labels say so."""
        if self.physical_gpus is None:
            return None
        return self.physical_gpus * (self.replicas or 1)


def _label_int(labels: dict[str, str], key: str) -> int | None:
    v = labels.get(key)
    if v is None:
        return None
    try:
        return int(v)
    except ValueError:
        return None


def label_base(resource: str) -> str:
    """GFD labels use the unrenamed name: ``nvidia.com/gpu.shared`` → ``nvidia.com/gpu``."""
    return resource[: -len(".shared")] if resource.endswith(".shared") else resource


def sharing_mode(node: Node, resource: str) -> str:
    labels = node.metadata.labels
    if resource.startswith("nvidia.com/mig-"):
        return "mig-mixed"
    base = label_base(resource)
    if labels.get(LABEL_MIG_STRATEGY) == "single" and "MIG" in labels.get(f"{base}.product", ""):
        return "mig-single"
    strategy = labels.get(f"{base}.sharing-strategy", "")
    if strategy in ("time-slicing", "mps"):
        return strategy
    replicas = _label_int(labels, f"{base}.replicas")
    if (replicas or 1) > 1 or resource.endswith(".shared"):
        return "time-slicing"
    return "none"


def node_schedulable(node: Node) -> bool:
    return not node.spec.unschedulable


def gpu_resource_names(node: Node) -> list[str]:
    names = {k for k in node.status.capacity if is_gpu_resource(k)}
    names |= {k for k in node.status.allocatable if is_gpu_resource(k)}
    return sorted(names)


@dataclass(frozen=True)
class Accounting:
    """Per-node allocated amounts and holders, computed once per Snapshot."""

    allocated: dict[str, dict[str, Fraction]]
    holders: dict[tuple[str, str], list[Holder]]


@functools.lru_cache(maxsize=8)
def accounting(snap: Snapshot) -> Accounting:
    allocated: dict[str, dict[str, Fraction]] = defaultdict(dict)
    holders: dict[tuple[str, str], list[Holder]] = defaultdict(list)
    for pod in snap.pods:
        node = pod.spec.node_name
        if not node or is_terminal(pod):
            continue
        req = pod_requests(pod)
        bucket = allocated[node]
        for k, v in req.items():
            bucket[k] = bucket.get(k, Fraction(0)) + v
            if is_gpu_resource(k):
                holders[(node, k)].append(Holder(pod.metadata.namespace or "default",
                                                 pod.metadata.name, int(v), pod.status.phase))
    return Accounting(dict(allocated), dict(holders))


def node_rows(snap: Snapshot, node: Node) -> list[GpuRow]:
    acct = accounting(snap)
    name = node.metadata.name
    labels = node.metadata.labels
    rows = []
    for res in gpu_resource_names(node):
        base = label_base(res)
        rows.append(GpuRow(
            node=name,
            resource=res,
            capacity=int(safe_quantity(node.status.capacity.get(res))),
            allocatable=int(safe_quantity(node.status.allocatable.get(res))),
            allocated=int(acct.allocated.get(name, {}).get(res, Fraction(0))),
            sharing=sharing_mode(node, res),
            physical_gpus=_label_int(labels, f"{base}.count"),
            replicas=_label_int(labels, f"{base}.replicas"),
            schedulable=node_schedulable(node),
            taints=tuple(str(t) for t in node.spec.taints),
            holders=sorted(acct.holders.get((name, res), []), key=lambda h: (h.namespace, h.pod)),
        ))
    return rows


def is_gpu_node(node: Node) -> bool:
    """A GPU node advertises (or once advertised) a GPU resource, or GFD/NFD labelled it."""
    if gpu_resource_names(node):
        return True
    labels = node.metadata.labels
    return (labels.get("nvidia.com/gpu.present") == "true"
            or labels.get("feature.node.kubernetes.io/pci-10de.present") == "true"
            or "nvidia.com/gpu.count" in labels)


def capacity_rows(snap: Snapshot, nodes: Iterable[Node] | None = None) -> list[GpuRow]:
    rows: list[GpuRow] = []
    for node in nodes if nodes is not None else snap.nodes:
        if not is_gpu_node(node):
            continue
        r = node_rows(snap, node)
        if not r:  # a labelled GPU node that advertises nothing: show it, never hide it
            labels = node.metadata.labels
            r = [GpuRow(node.metadata.name, "nvidia.com/gpu", 0, 0, 0,
                        sharing_mode(node, "nvidia.com/gpu"),
                        _label_int(labels, "nvidia.com/gpu.count"),
                        _label_int(labels, "nvidia.com/gpu.replicas"),
                        node_schedulable(node), tuple(str(t) for t in node.spec.taints),
                        name_present=False)]
        rows.extend(r)
    return rows
