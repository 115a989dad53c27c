"""The Snapshot: the one typed, immutable view of a cluster that every check reads.

Sources (bundle, live API, node host, must-gather) build it; checks never do I/O. Each input
records whether it was collected, from where, and why not, so "not collected" can become an
``unknown`` finding instead of silence (BUNDLE.md: absence means not collected, never empty).
"""

from __future__ import annotations

import enum
import weakref
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar, cast

from gpuxray.model.dra import (
    ComputeDomain,
    DeviceClass,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from gpuxray.model.finding import Evidence
from gpuxray.model.k8s import (
    ClusterVersion,
    ConfigMap,
    CustomResource,
    DaemonSet,
    Event,
    Node,
    Pod,
    ResourceQuota,
    RuntimeClass,
    Workload,
)
from gpuxray.model.usage import UsageData

T = TypeVar("T")


class Input(enum.StrEnum):
    """Every input a check can declare. Values are the bundle path stems (BUNDLE.md)."""

    NODES = "cluster/nodes"
    PODS = "cluster/pods"
    # Pods of the operator's namespace only: what a must-gather holds. Where all pods were
    # collected this input follows PODS; checks that only look at operand pods declare it.
    OPERATOR_PODS = "cluster/pods[operator namespace]"
    EVENTS = "cluster/events"
    DAEMONSETS = "cluster/daemonsets"
    DEPLOYMENTS = "cluster/deployments"
    REPLICASETS = "cluster/replicasets"
    JOBS = "cluster/jobs"
    STATEFULSETS = "cluster/statefulsets"
    RUNTIMECLASSES = "cluster/runtimeclasses"
    RESOURCEQUOTAS = "cluster/resourcequotas"
    CONFIGMAPS = "cluster/configmaps"
    CLUSTERPOLICIES = "cluster/clusterpolicies"
    NVIDIADRIVERS = "cluster/nvidiadrivers"
    # Dynamic Resource Allocation (resource.k8s.io/v1) and NVIDIA's ComputeDomains
    DEVICECLASSES = "cluster/deviceclasses"
    RESOURCESLICES = "cluster/resourceslices"
    RESOURCECLAIMS = "cluster/resourceclaims"
    RESOURCECLAIMTEMPLATES = "cluster/resourceclaimtemplates"
    COMPUTEDOMAINS = "cluster/computedomains"
    VERSION = "cluster/version"
    LOGS = "logs"
    HOSTS = "nodes"
    METRICS = "metrics"


#: the reason of an input a command left unread because its output does not depend on it (a
#: live source does not list it, a bundle does not decode it); a check needing it says unknown
NOT_REQUESTED = "not requested (this command does not read it)"


@dataclass(frozen=True, slots=True)
class InputState:
    """Whether an input was collected. ``source`` is where it came from (file or live URL)."""

    collected: bool
    source: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class PodLog:
    """Tail of one container's log (current and ``--previous``), with the files it came from."""

    namespace: str
    pod: str
    container: str
    current: str | None
    previous: str | None
    source: str


@dataclass(frozen=True, slots=True)
class HostFacts:
    """Raw host files and command output of one node (BUNDLE.md ``nodes/<node>/``).

    ``files`` maps host paths without the leading ``/`` to text; ``cmds`` maps command names
    (``dmesg.txt``) to their output; ``cmd_errors`` holds the ``.err`` of commands that failed.
    Parsing into typed records happens in the engines, so checks stay pure.
    """

    node: str
    files: dict[str, str]
    cmds: dict[str, str]
    cmd_errors: dict[str, str]
    unreadable: dict[str, str] = field(default_factory=dict)

    def source(self, kind: str, name: str) -> str:
        return f"nodes/{self.node}/{kind}/{name}"


@dataclass(frozen=True, slots=True)
class Manifest:
    format: str = ""
    collected_at: str = ""
    collector: str = ""
    source_kind: str = ""
    context: str = ""
    operator_namespace: str = ""
    errors: tuple[tuple[str, str], ...] = ()


OPERATOR_NAMESPACE_DEFAULT = "gpu-operator"


@dataclass(frozen=True, eq=False)
class Snapshot:
    inputs: dict[Input, InputState]
    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    daemonsets: list[DaemonSet] = field(default_factory=list)
    deployments: list[Workload] = field(default_factory=list)
    replicasets: list[Workload] = field(default_factory=list)
    jobs: list[Workload] = field(default_factory=list)
    statefulsets: list[Workload] = field(default_factory=list)
    runtimeclasses: list[RuntimeClass] = field(default_factory=list)
    resourcequotas: list[ResourceQuota] = field(default_factory=list)
    configmaps: list[ConfigMap] = field(default_factory=list)
    clusterpolicies: list[CustomResource] = field(default_factory=list)
    nvidiadrivers: list[CustomResource] = field(default_factory=list)
    deviceclasses: list[DeviceClass] = field(default_factory=list)
    resourceslices: list[ResourceSlice] = field(default_factory=list)
    resourceclaims: list[ResourceClaim] = field(default_factory=list)
    resourceclaimtemplates: list[ResourceClaimTemplate] = field(default_factory=list)
    computedomains: list[ComputeDomain] = field(default_factory=list)
    version: ClusterVersion | None = None
    logs: dict[tuple[str, str, str], PodLog] = field(default_factory=dict)
    hosts: dict[str, HostFacts] = field(default_factory=dict)
    metrics: dict[str, tuple[str, str]] = field(default_factory=dict)  # node -> (source, text)
    usage: UsageData | None = None  # set by a usage source (Prometheus) or the CLI's thresholds
    manifest: Manifest = Manifest()
    origin: str = ""
    # True when ``pods`` hold only :class:`~gpuxray.model.k8s.PodCore` (names, node, phase,
    # resources): a bundle loaded for ``capacity``, which reads nothing more. Only code on the
    # capacity path may see such a Snapshot; it is typed for PodCore.
    core_pods: bool = False

    # ----- inputs -------------------------------------------------------------------------
    def has(self, inp: Input) -> bool:
        return self.state(inp).collected

    def state(self, inp: Input) -> InputState:
        st = self.inputs.get(inp)
        if st is None and inp is Input.OPERATOR_PODS:
            return self.state(Input.PODS)
        return st or InputState(False, inp.value, "not collected")

    def source(self, inp: Input) -> str:
        return self.state(inp).source

    def ev(self, inp: Input, detail: str) -> Evidence:
        """Evidence citing the file (or live resource) an input came from."""
        return Evidence(self.source(inp), detail)

    def missing(self, needs: Iterable[Input]) -> list[Input]:
        return [i for i in needs if not self.has(i)]

    # ----- indexes (built once, on first use) ---------------------------------------------
    @cached_property
    def node_by_name(self) -> dict[str, Node]:
        return {n.metadata.name: n for n in self.nodes}

    @cached_property
    def _pod_groups(self) -> tuple[dict[str, list[Pod]], dict[str, list[Pod]], list[Pod],
                                   list[Pod], dict[tuple[str, str], Pod]]:
        """One pass over the pods for every grouping the checks walk: a fleet has 100k+ pods,
        and a dozen checks each scanning all of them for the operator's namespace, the unbound
        pods or a runtimeClassName cost more than the checks themselves."""
        by_node: dict[str, list[Pod]] = defaultdict(list)
        by_ns: dict[str, list[Pod]] = defaultdict(list)
        unbound: list[Pod] = []
        with_rc: list[Pod] = []
        by_key: dict[tuple[str, str], Pod] = {}
        for p in self.pods:
            spec = p.spec
            if spec.node_name:
                by_node[spec.node_name].append(p)
            else:
                unbound.append(p)
            if spec.runtime_class_name:
                with_rc.append(p)
            meta = p.metadata
            ns = meta.namespace or "default"
            by_ns[ns].append(p)
            by_key[(ns, meta.name)] = p
        return dict(by_node), dict(by_ns), unbound, with_rc, by_key

    @cached_property
    def pods_by_node(self) -> dict[str, list[Pod]]:
        """Bound pods (terminal ones included) per node, in snapshot order."""
        return self._pod_groups[0]

    @cached_property
    def pods_by_namespace(self) -> dict[str, list[Pod]]:
        """Pods per namespace (``default`` for none), in snapshot order."""
        return self._pod_groups[1]

    @cached_property
    def unbound_pods(self) -> list[Pod]:
        """Pods no node has been assigned to (any phase), in snapshot order."""
        return self._pod_groups[2]

    @cached_property
    def runtime_class_pods(self) -> list[Pod]:
        """Pods naming a ``runtimeClassName`` (any phase), in snapshot order."""
        return self._pod_groups[3]

    def find_pod(self, namespace: str, name: str) -> Pod | None:
        """One pod by namespace and name (the last where a bundle repeats it), without building
        the fleet's index when nothing else has: ``why`` asks for one pod."""
        if "pod_by_key" in self.__dict__ or "_pod_groups" in self.__dict__:
            return self.pod_by_key.get((namespace, name))
        found = None
        for p in self.pods:
            meta = p.metadata
            if meta.name == name and (meta.namespace or "default") == namespace:
                found = p
        return found

    @cached_property
    def pod_by_key(self) -> dict[tuple[str, str], Pod]:
        """Pods by (namespace, name); the last one wins where a bundle repeats a pod."""
        if self.core_pods:  # the groups read fields PodCore does not have
            return {(p.metadata.namespace or "default", p.metadata.name): p for p in self.pods}
        return self._pod_groups[4]

    @cached_property
    def events_by_object(self) -> dict[tuple[str, str, str], list[Event]]:
        """Events keyed by (kind, namespace, name) of the involved object, oldest first."""
        out: dict[tuple[str, str, str], list[Event]] = defaultdict(list)
        for e in self.events:
            o = e.involved_object
            out[(o.kind, o.namespace or "", o.name)].append(e)
        for lst in out.values():
            if len(lst) > 1:  # most objects have one event: no key call, no sort
                lst.sort(key=lambda e: e.when)
        return dict(out)

    def events_for(self, kind: str, namespace: str | None, name: str) -> list[Event]:
        return self.events_by_object.get((kind, namespace or "", name), [])

    @cached_property
    def runtimeclass_by_name(self) -> dict[str, RuntimeClass]:
        return {r.metadata.name: r for r in self.runtimeclasses}

    def workloads(self, kind: str) -> list[Workload]:
        return {
            "Deployment": self.deployments,
            "ReplicaSet": self.replicasets,
            "Job": self.jobs,
            "StatefulSet": self.statefulsets,
        }.get(kind, [])

    def workload(self, kind: str, namespace: str, name: str) -> Workload | None:
        for w in self.workloads(kind):
            if w.metadata.name == name and (w.metadata.namespace or "default") == namespace:
                return w
        return None

    @cached_property
    def operator_namespace(self) -> str:
        """The GPU Operator's namespace: the manifest's word, else where its operands run."""
        if self.manifest.operator_namespace:
            return self.manifest.operator_namespace
        for ds in self.daemonsets:
            if ds.metadata.name.startswith("nvidia-device-plugin") and ds.metadata.namespace:
                return ds.metadata.namespace
        for cp in self.clusterpolicies:
            if cp.status.namespace:
                return cp.status.namespace
        return OPERATOR_NAMESPACE_DEFAULT

    @cached_property
    def logs_by_pod(self) -> dict[tuple[str, str], list[PodLog]]:
        out: dict[tuple[str, str], list[PodLog]] = defaultdict(list)
        for (ns, p, _c), log in self.logs.items():
            out[(ns, p)].append(log)
        return dict(out)

    def logs_of(self, namespace: str, pod: str) -> Iterator[PodLog]:
        """One pod's logs without scanning every log of the bundle for each pod asked about."""
        yield from self.logs_by_pod.get((namespace, pod), ())


_MEMO: weakref.WeakKeyDictionary[Snapshot, dict[Hashable, Any]] = weakref.WeakKeyDictionary()


def memo(snap: Snapshot, key: Hashable, compute: Callable[[], T]) -> T:
    """Data derived from a snapshot, computed once: the snapshot never changes, and a fleet's
    derived tables (per-node free GPUs, admissibility per pod shape) would otherwise be rebuilt
    for every pending pod. Entries go with the snapshot."""
    store = _MEMO.setdefault(snap, {})
    if key in store:
        return cast(T, store[key])
    value = store[key] = compute()
    return value
