"""Kubernetes objects as msgspec Structs holding only the fields gpuxray reads.

Why not the official client's models: measured on 100k pods, typed msgspec decoding of just these
fields is ~100× faster and far smaller, and tolerates partial objects (DESIGN.md §2). Unknown
fields are ignored, missing ones take Kubernetes defaults. ``gc=False`` is safe because these
objects never form reference cycles.
"""

# Annotations stay real objects (no ``from __future__ import annotations``): msgspec reads a
# Struct's string annotations on its first decode with one compile() each — ~350 per
# ``check``, ~0.1 s of every start.

from collections.abc import Sequence
from typing import Any

import msgspec


class _K(msgspec.Struct, rename="camel", gc=False, omit_defaults=True):
    """Base for every Kubernetes struct: camelCase on the wire, no GC tracking."""


class OwnerReference(_K):
    """Kind and name: what reads an owner (operand attribution, ``why deploy/NAME``); the
    uid is read by nothing and 100k pods' uids cost ~8 MB."""

    kind: str = ""
    name: str = ""
    controller: bool = False


class ObjectMetaCore(_K):
    """The names alone: what :class:`PodCore` carries."""

    name: str = ""
    namespace: str | None = None


class ObjectMeta(ObjectMetaCore):
    # no uid: nothing reads an object's uid (DRA claims keep their own, model/dra.py)
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}
    owner_references: list[OwnerReference] = []
    creation_timestamp: str | None = None
    deletion_timestamp: str | None = None


class Taint(_K):
    key: str = ""
    value: str = ""
    effect: str = ""

    def __str__(self) -> str:
        if self.value:
            return f"{self.key}={self.value}:{self.effect}"
        return f"{self.key}:{self.effect}"


class _Frozen(msgspec.Struct, rename="camel", gc=False, omit_defaults=True, frozen=True):
    """Base of the small values many objects repeat: frozen, so hashable, so a fleet's pods
    share one object per distinct value (``sources/shrink.py``)."""


class Toleration(_Frozen, frozen=True):
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None


class NodeSelectorRequirement(_K):
    key: str = ""
    operator: str = "In"
    values: list[str] = []


class NodeSelectorTerm(_K):
    match_expressions: list[NodeSelectorRequirement] = []
    match_fields: list[NodeSelectorRequirement] = []


class NodeSelector(_K):
    node_selector_terms: list[NodeSelectorTerm] = []


class NodeAffinity(_K):
    required_during_scheduling_ignored_during_execution: NodeSelector | None = None


class Affinity(_K):
    node_affinity: NodeAffinity | None = None


class ResourceRequirements(_K):
    requests: dict[str, str | int | float] = {}
    limits: dict[str, str | int | float] = {}


class EnvVar(_Frozen, frozen=True):
    name: str = ""
    value: str | None = None


class SecurityContext(_K):
    privileged: bool | None = None


class VolumeMount(_K):
    name: str = ""
    mount_path: str = ""


class ContainerCore(_K):
    """What the scheduler's arithmetic reads of a container (seed §2 gate 1)."""

    name: str = ""
    resources: ResourceRequirements = msgspec.field(default_factory=ResourceRequirements)
    restart_policy: str | None = None  # "Always" on an init container = native sidecar


class Container(ContainerCore):
    image: str = ""
    env: list[EnvVar] = []
    security_context: SecurityContext | None = None


class PodSpecCore(_K):
    node_name: str = ""
    # Sequence: the full spec narrows these to list[Container] (decoded as lists either way)
    containers: Sequence[ContainerCore] = []
    init_containers: Sequence[ContainerCore] = []
    overhead: dict[str, str | int | float] = {}


class PodResourceClaim(_K):
    """``spec.resourceClaims[]``: a DRA claim by name, or a template instantiated per pod."""

    name: str = ""
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


class PodResourceClaimStatus(_K):
    """``status.resourceClaimStatuses[]``: the claim the controller created from a template."""

    name: str = ""
    resource_claim_name: str | None = None


class PodSpec(PodSpecCore):
    containers: list[Container] = []
    init_containers: list[Container] = []
    node_selector: dict[str, str] = {}
    affinity: Affinity | None = None
    tolerations: list[Toleration] = []
    runtime_class_name: str | None = None
    resource_claims: list[PodResourceClaim] = []
    host_network: bool = False


class ContainerStateWaiting(_K):
    reason: str = ""
    message: str = ""


class ContainerStateRunning(_K):
    started_at: str | None = None


class ContainerStateTerminated(_K):
    reason: str = ""
    message: str = ""
    exit_code: int = 0
    started_at: str | None = None
    finished_at: str | None = None


class ContainerState(_K):
    waiting: ContainerStateWaiting | None = None
    running: ContainerStateRunning | None = None
    terminated: ContainerStateTerminated | None = None


class ContainerStatus(_K):
    name: str = ""
    ready: bool = False
    restart_count: int = 0
    state: ContainerState = msgspec.field(default_factory=ContainerState)
    last_state: ContainerState = msgspec.field(default_factory=ContainerState)
    image: str = ""


class Condition(_K):
    type: str = ""
    status: str = ""
    reason: str = ""
    message: str = ""
    last_transition_time: str | None = None
    last_heartbeat_time: str | None = None


class PodCondition(_K):
    """A pod condition without timestamps: a fleet has ~4 per pod and only the words matter."""

    type: str = ""
    status: str = ""
    reason: str = ""
    message: str = ""


class PodStatusCore(_K):
    phase: str = "Pending"


class PodStatus(PodStatusCore):
    container_statuses: list[ContainerStatus] = []
    init_container_statuses: list[ContainerStatus] = []
    reason: str = ""
    message: str = ""
    start_time: str | None = None
    resource_claim_statuses: list[PodResourceClaimStatus] = []


class PodCore(_K):
    """A pod as the capacity arithmetic reads it (seed §6): names, node, phase, resources.

    ``gpuxray capacity`` decodes a bundle's pods into this instead of :class:`Pod`: on 100k
    pods the objects it leaves out are half the decode (measured 1.45 s → 0.66 s). Every field
    has the same name and meaning in :class:`Pod`, which extends it, so code written for the
    core reads either."""

    metadata: ObjectMetaCore = msgspec.field(default_factory=ObjectMetaCore)
    spec: PodSpecCore = msgspec.field(default_factory=PodSpecCore)
    status: PodStatusCore = msgspec.field(default_factory=PodStatusCore)
    kind: str = "Pod"


class Pod(PodCore):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodSpec = msgspec.field(default_factory=PodSpec)
    status: PodStatus = msgspec.field(default_factory=PodStatus)


class ObjectMetaLean(ObjectMetaCore):
    """What :class:`PodLean` carries of :class:`ObjectMeta`: no labels, owners or creation
    time (read only of operand pods), the annotations' keys (GPU intent is read from them).

    The values are decoded as :class:`msgspec.Raw` (not read as strings: a fleet's pods
    carry kubectl's last-applied configuration, ~300 escaped bytes each) and then dropped by
    :meth:`PodLean.detach`: nothing reads a lean pod's annotation values (a pod with an
    ``nvidia.com/`` key is decoded whole, ``sources/leanpods.py``), and 100k of them held
    ~60 MB of the peak."""

    annotations: dict[str, msgspec.Raw] = {}
    deletion_timestamp: str | None = None


class EnvName(_K):
    """An env variable's name alone: the fleet-wide screen asks only whether a container sets
    ``NVIDIA_VISIBLE_DEVICES`` (engines/podscan.py)."""

    name: str = ""


class ContainerLean(ContainerCore):
    env: list[EnvName] = []


class PodSpecLean(PodSpecCore):
    """:class:`PodSpec` without tolerations, images, env values or security contexts."""

    containers: list[ContainerLean] = []
    init_containers: list[ContainerLean] = []
    node_selector: dict[str, str] = {}
    affinity: Affinity | None = None
    runtime_class_name: str | None = None
    resource_claims: list[PodResourceClaim] = []
    host_network: bool = False


class ContainerStatusLean(_K):
    name: str = ""
    ready: bool = False
    restart_count: int = 0


class PodStatusLean(PodStatusCore):
    """:class:`PodStatus` without container states, images or the start time."""

    container_statuses: list[ContainerStatusLean] = []
    init_container_statuses: list[ContainerStatusLean] = []
    reason: str = ""
    message: str = ""
    resource_claim_statuses: list[PodResourceClaimStatus] = []


class PodLean(PodCore):
    """A healthy bound pod (or a finished one) as ``gpuxray check`` reads it: the fields of
    :class:`Pod` but the ones that only a pod in some trouble, an operand or a pending pod is
    read for (labels, owners, tolerations, images, env values, container states, timestamps).

    Why: decoding those for 100k pods, and sharing the values they repeat to keep the memory
    down (``sources/shrink.py``), was about half of ``check`` on a bundle; most pods of a fleet
    are Running, ready and never looked at past their names, node, resources and labels. The
    bundle source decodes a pod whole wherever :func:`needs_whole` says a check may read more
    (``sources/bundle.py``); the same names mean the same as in :class:`Pod`."""

    metadata: ObjectMetaLean = msgspec.field(default_factory=ObjectMetaLean)
    spec: PodSpecLean = msgspec.field(default_factory=PodSpecLean)
    status: PodStatusLean = msgspec.field(default_factory=PodStatusLean)

    @staticmethod
    def detach(objs: list[Any]) -> None:
        """Drop the annotation values of the lean pods among ``objs`` before the text they
        were decoded from is reused (``sources/decode.py`` decodes a List piece by piece
        from one buffer, and a decoded :class:`msgspec.Raw` points into it). The keys stay,
        and pods with the same keys share one dict of them: the snapshot is read-only."""
        shared: dict[tuple[str, ...], dict[str, msgspec.Raw]] = _SHARED_KEYS
        for o in objs:
            meta = o.metadata
            if type(meta) is ObjectMetaLean and meta.annotations:
                keys = tuple(meta.annotations)
                kept = shared.get(keys)
                if kept is None:
                    kept = dict.fromkeys(keys, DROPPED)
                    if len(shared) < _MAX_SHARED_KEYS:  # a long-lived process stays bounded
                        shared[keys] = kept
                meta.annotations = kept


#: what a lean pod's annotation value reads as once dropped (:meth:`PodLean.detach`)
DROPPED = msgspec.Raw(b"null")
#: one dict per distinct set of annotation keys (most pods of a fleet carry the same one)
_SHARED_KEYS: dict[tuple[str, ...], dict[str, msgspec.Raw]] = {}
_MAX_SHARED_KEYS = 4096


class PodStatusConditions(PodStatus):
    """A pod status with its conditions: read by the node agent (is its own pod scheduled?)
    and kept from ``kubectl describe`` text. No check reads a pod's conditions, and a fleet's
    ~4 per pod cost ~50 MB of 100k pods, so :class:`Pod` leaves them out."""

    conditions: list[PodCondition] = []


class PodWithConditions(Pod):
    status: PodStatusConditions = msgspec.field(default_factory=PodStatusConditions)


class NodeSpec(_K):
    taints: list[Taint] = []
    unschedulable: bool = False


class NodeSystemInfo(_K):
    kernel_version: str = ""
    os_image: str = ""
    container_runtime_version: str = ""
    kubelet_version: str = ""
    architecture: str = ""
    operating_system: str = ""


class NodeStatus(_K):
    capacity: dict[str, str | int | float] = {}
    allocatable: dict[str, str | int | float] = {}
    conditions: list[Condition] = []
    node_info: NodeSystemInfo = msgspec.field(default_factory=NodeSystemInfo)
    # Not a Kubernetes field: the requests under "Allocated resources" of `kubectl describe
    # node`, kept by text sources (must-gather) that lack the pods; empty when read from the API.
    described_allocated: dict[str, str | int | float] = {}


class Node(_K):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: NodeSpec = msgspec.field(default_factory=NodeSpec)
    status: NodeStatus = msgspec.field(default_factory=NodeStatus)
    kind: str = "Node"


class ObjectReference(_K):
    kind: str = ""
    name: str = ""
    namespace: str | None = None
    uid: str = ""
    field_path: str = ""


class EventSource(_K):
    component: str = ""
    host: str = ""


class EventSeries(_K):
    count: int = 0
    last_observed_time: str | None = None


class Event(_K):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    involved_object: ObjectReference = msgspec.field(default_factory=ObjectReference)
    reason: str = ""
    message: str = ""
    type: str = ""
    count: int | None = None
    first_timestamp: str | None = None
    last_timestamp: str | None = None
    event_time: str | None = None
    source: EventSource = msgspec.field(default_factory=EventSource)
    reporting_component: str = ""
    series: EventSeries | None = None
    kind: str = "Event"

    @property
    def when(self) -> str:
        """The latest time the event is known to have happened (ISO text sorts correctly)."""
        return (
            (self.series.last_observed_time if self.series else None)
            or self.last_timestamp
            or self.event_time
            or self.first_timestamp
            or self.metadata.creation_timestamp
            or ""
        )


class LabelSelector(_K):
    match_labels: dict[str, str] = {}
    match_expressions: list[NodeSelectorRequirement] = []


class PodTemplateMeta(_K):
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}


class PodTemplate(_K):
    metadata: PodTemplateMeta = msgspec.field(default_factory=PodTemplateMeta)
    spec: PodSpec = msgspec.field(default_factory=PodSpec)


class WorkloadSpec(_K):
    replicas: int | None = None
    selector: LabelSelector | None = None
    template: PodTemplate = msgspec.field(default_factory=PodTemplate)


class DaemonSetStatus(_K):
    desired_number_scheduled: int = 0
    current_number_scheduled: int = 0
    number_ready: int = 0
    number_available: int = 0
    number_unavailable: int = 0
    number_misscheduled: int = 0
    updated_number_scheduled: int = 0


class DaemonSet(_K):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: WorkloadSpec = msgspec.field(default_factory=WorkloadSpec)
    status: DaemonSetStatus = msgspec.field(default_factory=DaemonSetStatus)
    kind: str = "DaemonSet"


class WorkloadStatus(_K):
    replicas: int = 0
    ready_replicas: int = 0
    available_replicas: int = 0
    active: int = 0
    failed: int = 0
    succeeded: int = 0
    conditions: list[Condition] = []


class Workload(_K):
    """Deployment, ReplicaSet, StatefulSet and Job: the fields gpuxray reads are common."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: WorkloadSpec = msgspec.field(default_factory=WorkloadSpec)
    status: WorkloadStatus = msgspec.field(default_factory=WorkloadStatus)
    kind: str = ""


class Scheduling(_K):
    node_selector: dict[str, str] = {}
    tolerations: list[Toleration] = []


class RuntimeOverhead(_K):
    pod_fixed: dict[str, str | int | float] = {}


class RuntimeClass(_K):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    handler: str = ""
    scheduling: Scheduling | None = None
    overhead: RuntimeOverhead | None = None
    kind: str = "RuntimeClass"


class QuotaSpec(_K):
    hard: dict[str, str | int | float] = {}


class QuotaStatus(_K):
    hard: dict[str, str | int | float] = {}
    used: dict[str, str | int | float] = {}


class ResourceQuota(_K):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: QuotaSpec = msgspec.field(default_factory=QuotaSpec)
    status: QuotaStatus = msgspec.field(default_factory=QuotaStatus)
    kind: str = "ResourceQuota"


class ManagedFieldsEntry(_K):
    manager: str = ""
    operation: str = ""
    time: str | None = None


class ConfigMapMeta(ObjectMeta):
    """ConfigMaps keep ``managedFields``: its latest ``time`` is the last update (GX408)."""

    managed_fields: list[ManagedFieldsEntry] = []


class ConfigMap(_K):
    metadata: ConfigMapMeta = msgspec.field(default_factory=ConfigMapMeta)
    data: dict[str, str] = {}
    kind: str = "ConfigMap"


class CustomStatus(_K):
    state: str = ""
    namespace: str = ""
    conditions: list[Condition] = []


class CustomResource(_K):
    """ClusterPolicy and NVIDIADriver: spec kept generic, it is large and version-dependent."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: dict[str, Any] = {}
    status: CustomStatus = msgspec.field(default_factory=CustomStatus)
    kind: str = ""


class VersionInfo(_K):
    git_version: str = ""
    major: str = ""
    minor: str = ""


class ClusterVersion(_K):
    server_version: VersionInfo | None = None
    client_version: VersionInfo | None = None
