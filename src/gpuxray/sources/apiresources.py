"""The Kubernetes API resources gpuxray reads, as data: one row per BUNDLE.md ``cluster/`` file.

The live source lists exactly these (and nothing else: the RBAC in ``deploy/rbac.yaml`` grants
exactly these), ``collect`` writes each one to ``cluster/<plural>.json``, and ``serve`` answers
discovery and LIST/GET for the same table, so the three can never drift apart.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from gpuxray.model.snapshot import Input


@dataclass(frozen=True, slots=True)
class ApiResource:
    plural: str  # the REST name and the bundle file stem
    singular: str
    kind: str
    group: str  # "" for the core group
    version: str
    namespaced: bool
    inp: Input
    short_names: tuple[str, ...] = ()
    operator_namespace_only: bool = False  # configmaps: device-plugin and MIG configs only
    older_versions: tuple[str, ...] = ()  # listed, newest first, where the server lacks version

    def versions(self) -> Iterator[ApiResource]:
        """This resource at its version, then at each older one a server may serve instead."""
        yield self
        for v in self.older_versions:
            yield replace(self, version=v, older_versions=())

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_version_path(self) -> str:
        return f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"

    def list_path(self, namespace: str | None = None) -> str:
        if namespace and self.namespaced:
            return f"{self.group_version_path}/namespaces/{namespace}/{self.plural}"
        return f"{self.group_version_path}/{self.plural}"

    @property
    def bundle_file(self) -> str:
        return f"{self.inp.value}.json"


_DRA_OLDER = ("v1beta2", "v1beta1")

RESOURCES: tuple[ApiResource, ...] = (
    ApiResource("nodes", "node", "Node", "", "v1", False, Input.NODES, ("no",)),
    ApiResource("pods", "pod", "Pod", "", "v1", True, Input.PODS, ("po",)),
    ApiResource("events", "event", "Event", "", "v1", True, Input.EVENTS, ("ev",)),
    ApiResource("daemonsets", "daemonset", "DaemonSet", "apps", "v1", True, Input.DAEMONSETS,
                ("ds",)),
    ApiResource("deployments", "deployment", "Deployment", "apps", "v1", True,
                Input.DEPLOYMENTS, ("deploy",)),
    ApiResource("replicasets", "replicaset", "ReplicaSet", "apps", "v1", True,
                Input.REPLICASETS, ("rs",)),
    ApiResource("statefulsets", "statefulset", "StatefulSet", "apps", "v1", True,
                Input.STATEFULSETS, ("sts",)),
    ApiResource("jobs", "job", "Job", "batch", "v1", True, Input.JOBS),
    ApiResource("runtimeclasses", "runtimeclass", "RuntimeClass", "node.k8s.io", "v1", False,
                Input.RUNTIMECLASSES),
    ApiResource("resourcequotas", "resourcequota", "ResourceQuota", "", "v1", True,
                Input.RESOURCEQUOTAS, ("quota",)),
    ApiResource("configmaps", "configmap", "ConfigMap", "", "v1", True, Input.CONFIGMAPS,
                ("cm",), operator_namespace_only=True),
    ApiResource("clusterpolicies", "clusterpolicy", "ClusterPolicy", "nvidia.com", "v1", False,
                Input.CLUSTERPOLICIES),
    ApiResource("nvidiadrivers", "nvidiadriver", "NVIDIADriver", "nvidia.com", "v1alpha1", False,
                Input.NVIDIADRIVERS, ("nvd", "nvdriver", "nvdrivers")),
    # Dynamic Resource Allocation, GA in resource.k8s.io/v1 since Kubernetes 1.34; 1.33 serves
    # v1beta2 and v1beta1, 1.32 v1beta1 only (model/dra.py reads every one of them as v1)
    ApiResource("deviceclasses", "deviceclass", "DeviceClass", "resource.k8s.io", "v1", False,
                Input.DEVICECLASSES, older_versions=_DRA_OLDER),
    ApiResource("resourceslices", "resourceslice", "ResourceSlice", "resource.k8s.io", "v1",
                False, Input.RESOURCESLICES, older_versions=_DRA_OLDER),
    ApiResource("resourceclaims", "resourceclaim", "ResourceClaim", "resource.k8s.io", "v1", True,
                Input.RESOURCECLAIMS, older_versions=_DRA_OLDER),
    ApiResource("resourceclaimtemplates", "resourceclaimtemplate", "ResourceClaimTemplate",
                "resource.k8s.io", "v1", True, Input.RESOURCECLAIMTEMPLATES,
                older_versions=_DRA_OLDER),
    # NVIDIA's DRA driver: multi-node NVLink domains (k8s-dra-driver-gpu, resource.nvidia.com)
    ApiResource("computedomains", "computedomain", "ComputeDomain", "resource.nvidia.com",
                "v1beta1", True, Input.COMPUTEDOMAINS),
)

BY_PLURAL: dict[str, ApiResource] = {r.plural: r for r in RESOURCES}
BY_INPUT: dict[Input, ApiResource] = {r.inp: r for r in RESOURCES}

# Pod logs are a subresource: ``GET /api/v1/namespaces/<ns>/pods/<pod>/log``.
def log_path(namespace: str, pod: str) -> str:
    return f"/api/v1/namespaces/{namespace}/pods/{pod}/log"
