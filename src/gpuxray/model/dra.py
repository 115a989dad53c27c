"""Dynamic Resource Allocation objects (``resource.k8s.io/v1``) as msgspec Structs, only the
fields gpuxray reads (the conventions of :mod:`gpuxray.model.k8s`).

Clusters of Kubernetes 1.32–1.33 serve DRA only as ``v1beta1`` (1.33 also ``v1beta2``), whose
shapes differ from v1 in two places: a ResourceSlice device keeps its attributes, capacity and
taints under ``basic`` (kubernetes/kubernetes@v1.33.0:staging/src/k8s.io/api/resource/v1beta1/
types.go ``BasicDevice``), and a claim's request carries ``deviceClassName``, ``selectors``,
``allocationMode``, ``count``, ``adminAccess`` and ``tolerations`` itself instead of under
``exactly`` (v1beta2 and v1 moved them, same file of v1.33.0 and v1beta2/types.go). The
structs read both and normalise to the v1 shape on decode, so every engine sees one shape
whatever version a bundle, a live cluster or a paste was read at (a test holds the
normalised objects to the real kube-apiserver's own conversion of each version).

DRA is how a GPU reaches a pod without ``nvidia.com/gpu``: a driver publishes its devices in
``ResourceSlice``s (per node and pool, with typed attributes and capacities), a workload asks
through a ``ResourceClaim`` (or a ``ResourceClaimTemplate`` the controller instantiates per pod)
whose requests name a ``DeviceClass``, and the scheduler's allocator writes the chosen devices
to ``status.allocation``. Field names and defaults follow
kubernetes/kubernetes@v1.34.0:staging/src/k8s.io/api/resource/v1/types.go; the NVIDIA driver's
``ComputeDomain`` follows NVIDIA/k8s-dra-driver-gpu@v25.8.1:api/nvidia.com/resource/v1beta1/
computedomain.go.
"""

# Annotations stay real objects: msgspec would compile each string annotation of the Structs
# here on first decode (see model/k8s.py).

import msgspec

from gpuxray.model.k8s import NodeSelector, ObjectMeta


class _K(msgspec.Struct, rename="camel", gc=False, omit_defaults=True):
    """Base of the DRA structs: camelCase on the wire, no GC tracking (as model/k8s.py)."""

#: v1 ``ResourceClaimSpec.devices.requests[].exactly.allocationMode`` values
ALLOCATION_EXACT = "ExactCount"
ALLOCATION_ALL = "All"


class DeviceAttribute(_K):
    """Exactly one of the four is set (types.go ``DeviceAttribute``)."""

    int_value: int | None = msgspec.field(default=None, name="int")
    bool_value: bool | None = msgspec.field(default=None, name="bool")
    string: str | None = None
    version: str | None = None

    def value(self) -> int | bool | str | None:
        if self.string is not None:
            return self.string
        if self.int_value is not None:
            return self.int_value
        if self.bool_value is not None:
            return self.bool_value
        return self.version

    def __str__(self) -> str:
        v = self.value()
        return "" if v is None else str(v).lower() if isinstance(v, bool) else str(v)


class DeviceCapacity(_K):
    value: str | int | float = "0"


class DeviceTaint(_K):
    key: str = ""
    value: str = ""
    effect: str = ""

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else \
            f"{self.key}:{self.effect}"


class BasicDevice(_K):
    """v1beta1's wrapper of a device's properties (moved up into ``Device`` by v1beta2)."""

    attributes: dict[str, DeviceAttribute] = {}
    capacity: dict[str, DeviceCapacity] = {}
    taints: list[DeviceTaint] = []


class Device(_K):
    name: str = ""
    attributes: dict[str, DeviceAttribute] = {}
    capacity: dict[str, DeviceCapacity] = {}
    taints: list[DeviceTaint] = []
    basic: BasicDevice | None = None  # v1beta1 only; emptied into the fields above on decode

    def __post_init__(self) -> None:
        b = self.basic
        if b is not None:
            self.attributes = b.attributes or self.attributes
            self.capacity = b.capacity or self.capacity
            self.taints = b.taints or self.taints
            self.basic = None


class ResourcePool(_K):
    name: str = ""
    generation: int = 0
    resource_slice_count: int = 1


class ResourceSliceSpec(_K):
    driver: str = ""
    pool: ResourcePool = msgspec.field(default_factory=ResourcePool)
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    devices: list[Device] = []


class ResourceSlice(_K):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceSliceSpec = msgspec.field(default_factory=ResourceSliceSpec)
    kind: str = "ResourceSlice"


class CELDeviceSelector(_K):
    expression: str = ""


class DeviceSelector(_K):
    cel: CELDeviceSelector | None = None


class DeviceClassSpec(_K):
    selectors: list[DeviceSelector] = []
    extended_resource_name: str | None = None


class DeviceClass(_K):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: DeviceClassSpec = msgspec.field(default_factory=DeviceClassSpec)
    kind: str = "DeviceClass"


class DeviceToleration(_K):
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""


class ExactDeviceRequest(_K):
    device_class_name: str = ""
    selectors: list[DeviceSelector] = []
    allocation_mode: str = ALLOCATION_EXACT
    count: int = 1
    admin_access: bool | None = None
    tolerations: list[DeviceToleration] = []


class DeviceSubRequest(ExactDeviceRequest):
    name: str = ""


class DeviceRequest(_K):
    name: str = ""
    exactly: ExactDeviceRequest | None = None
    first_available: list[DeviceSubRequest] = []
    # v1beta1 only: the request's own fields, moved under ``exactly`` on decode
    device_class_name: str | None = None
    selectors: list[DeviceSelector] = []
    allocation_mode: str | None = None
    count: int | None = None
    admin_access: bool | None = None
    tolerations: list[DeviceToleration] = []

    def __post_init__(self) -> None:
        if self.device_class_name is None:
            return
        if self.exactly is None and not self.first_available:
            self.exactly = ExactDeviceRequest(
                device_class_name=self.device_class_name, selectors=self.selectors,
                allocation_mode=self.allocation_mode or ALLOCATION_EXACT,
                count=1 if self.count is None else self.count,
                admin_access=self.admin_access, tolerations=self.tolerations)
        self.device_class_name = self.allocation_mode = self.count = None
        self.admin_access = None
        self.selectors, self.tolerations = [], []


class DeviceConstraint(_K):
    requests: list[str] = []
    match_attribute: str | None = None


class DeviceClaim(_K):
    requests: list[DeviceRequest] = []
    constraints: list[DeviceConstraint] = []


class ResourceClaimSpec(_K):
    devices: DeviceClaim = msgspec.field(default_factory=DeviceClaim)


class DeviceRequestAllocationResult(_K):
    request: str = ""
    driver: str = ""
    pool: str = ""
    device: str = ""
    admin_access: bool | None = None


class DeviceAllocationResult(_K):
    results: list[DeviceRequestAllocationResult] = []


class AllocationResult(_K):
    devices: DeviceAllocationResult = msgspec.field(default_factory=DeviceAllocationResult)
    node_selector: NodeSelector | None = None


class ResourceClaimConsumerReference(_K):
    resource: str = ""
    name: str = ""
    uid: str = ""


class ResourceClaimStatus(_K):
    allocation: AllocationResult | None = None
    reserved_for: list[ResourceClaimConsumerReference] = []


class ResourceClaim(_K):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceClaimSpec = msgspec.field(default_factory=ResourceClaimSpec)
    status: ResourceClaimStatus = msgspec.field(default_factory=ResourceClaimStatus)
    kind: str = "ResourceClaim"


class ResourceClaimTemplateSpec(_K):
    spec: ResourceClaimSpec = msgspec.field(default_factory=ResourceClaimSpec)


class ResourceClaimTemplate(_K):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceClaimTemplateSpec = msgspec.field(default_factory=ResourceClaimTemplateSpec)
    kind: str = "ResourceClaimTemplate"


class ComputeDomainNode(_K):
    name: str = ""
    status: str = ""


class ComputeDomainStatus(_K):
    status: str = ""
    nodes: list[ComputeDomainNode] = []


class ComputeDomainChannelTemplate(_K):
    name: str = ""


class ComputeDomainChannel(_K):
    resource_claim_template: ComputeDomainChannelTemplate = msgspec.field(
        default_factory=ComputeDomainChannelTemplate)


class ComputeDomainSpec(_K):
    num_nodes: int = 0
    channel: ComputeDomainChannel | None = None


class ComputeDomain(_K):
    """NVIDIA's multi-node NVLink domain (``resource.nvidia.com/v1beta1``): its controller
    creates the channel ResourceClaimTemplate; ``status.status`` is Ready or NotReady."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ComputeDomainSpec = msgspec.field(default_factory=ComputeDomainSpec)
    status: ComputeDomainStatus = msgspec.field(default_factory=ComputeDomainStatus)
    kind: str = "ComputeDomain"
