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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from gpuxray.engines.podscan import GPU_VENDOR, TERMINAL_PHASES, bound_walk
from gpuxray.model.k8s import ContainerCore, Node, PodCore
from gpuxray.model.quantity import QuantityError, parse_quantity, safe_quantity
from gpuxray.model.snapshot import Input, Snapshot, memo

GPU_PREFIXES = ("nvidia.com/gpu", "nvidia.com/mig-")  # each starts with podscan.GPU_VENDOR

# GFD labels (facts.md §6.2): <resource>.count / .replicas / .sharing-strategy / .product
LABEL_MIG_STRATEGY = "nvidia.com/mig.strategy"


def is_gpu_resource(name: str) -> bool:
    return name.startswith(GPU_PREFIXES)


def is_terminal(pod: PodCore) -> bool:
    return pod.status.phase in TERMINAL_PHASES


@functools.lru_cache(maxsize=8192)
def _qty(value: str | int | float) -> Fraction | None:
    """Parsed quantity, cached: a fleet repeats the same few strings ("1", "4Gi") endlessly."""
    try:
        return parse_quantity(value)
    except QuantityError:
        return None


ResourceFilter = Callable[[str], bool]


def container_requests(c: ContainerCore, keep: ResourceFilter | None = None) -> dict[str, Fraction]:
    """Requests of one container, limits standing in where a request is absent."""
    out: dict[str, Fraction] = {}
    for source in (c.resources.limits, c.resources.requests):
        for name, val in source.items():
            if keep is not None and not keep(name):
                continue
            q = _qty(val)
            if q is not None:
                out[name] = q
    return out


def _add(into: dict[str, Fraction], other: dict[str, Fraction]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, Fraction(0)) + v


def pod_requests(pod: PodCore, keep: ResourceFilter | None = None) -> dict[str, Fraction]:
    """The pod's effective request per resource, as the scheduler computes it.

    ``keep`` limits the work to some resource names (the GPU ones on the hot path).
    """
    app: dict[str, Fraction] = {}
    for c in pod.spec.containers:
        _add(app, container_requests(c, keep))
    sidecars: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for c in pod.spec.init_containers:
        req = container_requests(c, keep)
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
        if keep is None or keep(k):
            out[k] = out.get(k, Fraction(0)) + (_qty(raw) or Fraction(0))
    return {k: v for k, v in out.items() if v != 0}


def _mentions_gpu(pod: PodCore) -> bool:
    """Cheap pre-filter: does any container name a GPU resource at all?"""
    for c in (*pod.spec.containers, *pod.spec.init_containers):
        for k in c.resources.limits:
            if k.startswith(GPU_PREFIXES):
                return True
        for k in c.resources.requests:
            if k.startswith(GPU_PREFIXES):
                return True
    return any(k.startswith(GPU_PREFIXES) for k in pod.spec.overhead)


def _gpu_requests_simple(pod: PodCore) -> dict[str, int] | None:
    """The common case — no init containers, no overhead, whole-number quantities — summed in
    plain integers; None when the pod needs the full computation of :func:`pod_requests`."""
    spec = pod.spec
    if spec.init_containers or spec.overhead:
        return None
    out: dict[str, int] = {}
    prefixes = GPU_PREFIXES
    for c in spec.containers:  # plain loops: this runs for every GPU pod of the fleet
        res = c.resources
        lim, req = res.limits, res.requests
        for k in lim:  # the limits' GPU names, then those only requested
            if k.startswith(prefixes):
                n = _whole(req[k] if k in req else lim[k])  # a request wins over its limit
                if n is None:
                    return None
                out[k] = out.get(k, 0) + n
        for k in req:
            if k not in lim and k.startswith(prefixes):
                n = _whole(req[k])
                if n is None:
                    return None
                out[k] = out.get(k, 0) + n
    return {k: n for k, n in out.items() if n}


def _whole(v: object) -> int | None:
    """A quantity written as a whole number (an int, not a bool; a string of digits)."""
    if type(v) is int:
        return v
    if type(v) is str and v.isdigit():
        return int(v)
    return None


def gpu_requests(pod: PodCore) -> dict[str, int]:
    if not _mentions_gpu(pod):
        return {}
    simple = _gpu_requests_simple(pod)
    if simple is not None:
        return simple
    return {k: int(v) for k, v in pod_requests(pod, is_gpu_resource).items()}


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
    # where ``allocated`` comes from: bound pods, a ``kubectl describe node`` sum (must-gather),
    # or nowhere — then it is unknown, never a silent 0
    allocated_source: str = "pods"
    # physical GPUs behind the row (CODES.md ``physical``): GFD's count for whole GPUs, the
    # MIG layout's GPU count under the single strategy, None for one MIG profile (mixed)
    gpus: int | None = None

    @property
    def allocated_known(self) -> bool:
        return self.allocated_source != "unknown"

    @property
    def free(self) -> int:
        return max(self.allocatable - self.allocated, 0)

    @property
    def unhealthy(self) -> int:
        return max(self.capacity - self.allocatable, 0)

    @property
    def physical(self) -> int | None:
        """Physical GPUs (CODES.md: integer or null)."""
        return self.gpus

    @property
    def advertised_slots(self) -> int | None:
        """Expected advertisement: devices GFD counts × replicas, where its labels say so."""
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
    cap, alloc = node.status.capacity, node.status.allocatable
    if GPU_VENDOR not in "".join(cap) and GPU_VENDOR not in "".join(alloc):
        return []  # a CPU node: settled in C, without a test per resource name
    names = {k for k in cap if k.startswith(GPU_PREFIXES)}
    names.update(k for k in alloc if k.startswith(GPU_PREFIXES))
    return sorted(names)


@dataclass(frozen=True)
class Accounting:
    """Per-node allocated amounts and holders, computed once per Snapshot."""

    allocated: dict[str, dict[str, Fraction]]
    gpu_pods: list[tuple[PodCore, dict[str, int]]]  # bound, non-terminal pods holding GPUs

    @functools.cached_property
    def holders(self) -> dict[tuple[str, str], list[Holder]]:
        """(node, resource) -> the pods holding it, in snapshot order: built on first use,
        from ``gpu_pods`` (which hold every GPU a pod requests): a pending pod's gate-1
        answer needs each node's sums and the holders only when the nodes are full
        (``why``'s first read, 13k holders of a fleet built for nothing)."""
        out: dict[tuple[str, str], list[Holder]] = defaultdict(list)
        for pod, req in self.gpu_pods:
            node = pod.spec.node_name
            meta = pod.metadata
            ns, name, phase = meta.namespace or "default", meta.name, pod.status.phase
            for k, v in req.items():
                out[(node, k)].append(Holder(ns, name, v, phase))
        return dict(out)


@functools.lru_cache(maxsize=8)
def accounting(snap: Snapshot) -> Accounting:
    """GPU requests of every non-terminal bound pod, per node: one pass over the pods.

    Other resources (cpu, memory) are only needed for a few candidate nodes, so
    :func:`node_requested` computes them lazily per node instead of for the whole fleet.
    """
    sums: dict[str, dict[str, Fraction | int]] = defaultdict(dict)
    gpu_pods: list[tuple[PodCore, dict[str, int]]] = []
    for pod in bound_walk(snap).gpu_named:
        simple = _gpu_requests_simple(pod)
        req: Mapping[str, Fraction | int]
        if simple is None:
            req = dict(pod_requests(pod, is_gpu_resource))
            if not req:
                continue
            gpu_pods.append((pod, {k: int(v) for k, v in req.items()}))
        elif not simple:
            continue
        else:
            req = simple  # a fresh dict of ints, kept as it is
            gpu_pods.append((pod, simple))
        bucket = sums[pod.spec.node_name]
        for k, v in req.items():
            bucket[k] = bucket.get(k, 0) + v
    allocated = {node: {k: Fraction(v) for k, v in b.items()} for node, b in sums.items()}
    return Accounting(allocated, gpu_pods)




def node_requested(snap: Snapshot, node: str) -> dict[str, Fraction]:
    """Every resource requested by the non-terminal pods bound to ``node`` (scheduler's view)."""
    def compute() -> dict[str, Fraction]:
        total: dict[str, Fraction] = {}
        for pod in bound_walk(snap).live_by_node.get(node, []):  # bound, not terminal
            _add(total, pod_requests(pod))
        return total

    return memo(snap, ("node-requested", node), compute)


def node_rows(snap: Snapshot, node: Node) -> list[GpuRow]:
    acct = accounting(snap)
    name = node.metadata.name
    labels = node.metadata.labels
    pods_known = snap.has(Input.PODS)
    described = node.status.described_allocated
    rows = []
    for res in gpu_resource_names(node):
        base = label_base(res)
        mode = sharing_mode(node, res)
        devices = _label_int(labels, f"{base}.count")
        if pods_known:
            allocated, source = int(acct.allocated.get(name, {}).get(res, Fraction(0))), "pods"
        elif res in described:
            allocated, source = int(safe_quantity(described[res])), "describe"
        else:
            allocated, source = 0, "unknown"
        rows.append(GpuRow(
            node=name,
            resource=res,
            capacity=int(safe_quantity(node.status.capacity.get(res))),
            allocatable=int(safe_quantity(node.status.allocatable.get(res))),
            allocated=allocated,
            sharing=mode,
            physical_gpus=devices,
            replicas=_label_int(labels, f"{base}.replicas"),
            schedulable=node_schedulable(node),
            taints=tuple(str(t) for t in node.spec.taints),
            holders=sorted(acct.holders.get((name, res), []), key=lambda h: (h.namespace, h.pod)),
            allocated_source=source,
            gpus=(None if mode == "mig-mixed" else _mig_single_gpus(snap, name)
                  if mode == "mig-single" else devices),
        ))
    return rows


def _mig_single_gpus(snap: Snapshot, node: str) -> int | None:
    """Under ``mig.strategy=single`` GFD's ``nvidia.com/gpu.count`` counts MIG devices
    (k8s-device-plugin internal/lm/mig-strategy.go); the physical count comes from the layout."""
    from gpuxray.engines.migstate import node_mig_states

    for st in node_mig_states(snap):
        if st.node == node:
            return st.gpus
    return None


def is_gpu_node(node: Node) -> bool:
    """A GPU node advertises (or once advertised) a GPU resource, or GFD/NFD labelled it."""
    if gpu_resource_names(node):
        return True
    labels = node.metadata.labels
    return (labels.get("nvidia.com/gpu.present") == "true"
            or labels.get("feature.node.kubernetes.io/pci-10de.present") == "true"
            or "nvidia.com/gpu.count" in labels)


def gpu_nodes_of(snap: Snapshot) -> list[Node]:
    """The snapshot's GPU nodes (:func:`is_gpu_node`), in its order: computed once per
    snapshot. Several checks, the capacity rows and the incidents' node count each walked
    every node for it (17k calls on a 5,000-node fleet)."""
    return memo(snap, "capacity-gpu-nodes", lambda: [n for n in snap.nodes if is_gpu_node(n)])


def is_gpu_node_of(snap: Snapshot, node: Node) -> bool:
    """:func:`is_gpu_node` of one of ``snap.nodes``, read from :func:`gpu_nodes_of`."""
    ids = memo(snap, "capacity-gpu-node-ids", lambda: {id(n) for n in gpu_nodes_of(snap)})
    return id(node) in ids


def capacity_rows(snap: Snapshot, nodes: Iterable[Node] | None = None) -> list[GpuRow]:
    if nodes is None:
        return list(_all_rows(snap))
    return _rows(snap, nodes)


@functools.lru_cache(maxsize=8)
def _all_rows(snap: Snapshot) -> tuple[GpuRow, ...]:
    return tuple(_rows(snap, gpu_nodes_of(snap), gpu=True))


def _rows(snap: Snapshot, nodes: Iterable[Node], gpu: bool = False) -> list[GpuRow]:
    """The rows of the GPU nodes among ``nodes`` (``gpu``: they are all GPU nodes)."""
    rows: list[GpuRow] = []
    for node in nodes:
        if not gpu and not is_gpu_node(node):
            continue
        r = node_rows(snap, node)
        if not r and _dra_only(snap, node):
            continue  # its GPUs are DRA devices: rows of their own (engines/dra_capacity.py)
        if not r:  # a labelled GPU node that advertises nothing: show it, never hide it
            labels = node.metadata.labels
            mode = sharing_mode(node, "nvidia.com/gpu")
            count = _label_int(labels, "nvidia.com/gpu.count")
            r = [GpuRow(node.metadata.name, "nvidia.com/gpu", 0, 0, 0, mode, count,
                        _label_int(labels, "nvidia.com/gpu.replicas"),
                        node_schedulable(node), tuple(str(t) for t in node.spec.taints),
                        name_present=False,
                        gpus=(_mig_single_gpus(snap, node.metadata.name)
                              if mode == "mig-single" else count))]
        rows.extend(r)
    return rows


def _dra_only(snap: Snapshot, node: Node) -> bool:
    """A GPU node that serves its GPUs only through DRA advertises no ``nvidia.com/gpu`` by
    design: it is not "advertising 0"."""
    from gpuxray.engines.dra import serves_gpus_through_dra

    return serves_gpus_through_dra(snap, node)
