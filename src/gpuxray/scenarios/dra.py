"""DRA scenarios: NVIDIA's DRA driver for GPUs publishing ResourceSlices, its DeviceClasses,
claims, templates and the pods using them, beside device-plugin nodes — healthy and broken.

Shapes follow the driver (NVIDIA/k8s-dra-driver-gpu@v25.8.1): slices named
``<node>-gpu.nvidia.com-<suffix>``, one pool per node named after it, devices ``gpu-<minor>``
and ``gpu-<minor>-mig-<profileId>-<start>-<size>`` with the attributes of
cmd/gpu-kubelet-plugin/deviceinfo.go (type, uuid, productName, brand, architecture,
cudaComputeCapability, driverVersion, cudaDriverVersion, pcieBusID; MIG: parentUUID, profile)
and capacity ``memory``; the DeviceClasses of deployments/helm/…/templates/deviceclass-*.yaml.
"""

from __future__ import annotations

from typing import Any

from gpuxray.scenarios.builder import ClusterBuilder, Obj, meta, uid

DRIVER = "gpu.nvidia.com"
DRA_NS = "nvidia-dra-driver-gpu"
GPU_CLASS_CEL = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"  # noqa: E501
MIG_CLASS_CEL = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"  # noqa: E501
H100 = ("NVIDIA H100 80GB HBM3", "80Gi", "Hopper", "9.0")
A100_40 = ("NVIDIA A100-SXM4-40GB", "40Gi", "Ampere", "8.0")


def dra_node_labels() -> dict[str, str]:
    """What NFD and the operator put on a DRA GPU node: no device-plugin deploy label."""
    return {"feature.node.kubernetes.io/pci-10de.present": "true",
            "nvidia.com/gpu.present": "true", "nvidia.com/gpu.deploy.dra-driver": "true"}


def add_device_classes(b: ClusterBuilder, *, mig: bool = True) -> None:
    b.ensure("deviceclasses")
    for name, cel in (("gpu.nvidia.com", GPU_CLASS_CEL), ("mig.nvidia.com", MIG_CLASS_CEL)):
        if name == "mig.nvidia.com" and not mig:
            continue
        spec: Obj = {"selectors": [{"cel": {"expression": cel}}]}
        if name == "gpu.nvidia.com":
            spec["extendedResourceName"] = "nvidia.com/gpu"
        b.add("deviceclasses", {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                "metadata": meta("DeviceClass", name), "spec": spec})


def gpu_device(node: str, minor: int, product: tuple[str, str, str, str] = H100,
               taints: list[Obj] | None = None) -> Obj:
    name, memory, arch, cc = product
    d: Obj = {"name": f"gpu-{minor}",
              "attributes": {
                  "type": {"string": "gpu"},
                  "uuid": {"string": f"GPU-{uid(node, str(minor))}"},
                  "productName": {"string": name},
                  "brand": {"string": "Nvidia"},
                  "architecture": {"string": arch},
                  "cudaComputeCapability": {"version": f"{cc}.0"},
                  "driverVersion": {"version": "580.95.5"},
                  "cudaDriverVersion": {"version": "13.0.0"},
                  "pcieBusID": {"string": f"0000:{0x18 + minor * 0x10:02x}:00.0"},
                  "resource.kubernetes.io/pcieRoot": {"string": f"pci0000:{minor // 4}0"}},
              "capacity": {"memory": {"value": memory}}}
    if taints:
        d["taints"] = taints
    return d


def mig_device(node: str, minor: int, profile: str = "1g.10gb", profile_id: int = 19,
               start: int = 0, size: int = 1, memory: str = "9856Mi") -> Obj:
    return {"name": f"gpu-{minor}-mig-{profile_id}-{start}-{size}",
            "attributes": {
                "type": {"string": "mig"},
                "uuid": {"string": f"MIG-{uid(node, str(minor), profile, str(start))}"},
                "parentUUID": {"string": f"GPU-{uid(node, str(minor))}"},
                "profile": {"string": profile},
                "productName": {"string": H100[0]},
                "brand": {"string": "Nvidia"},
                "architecture": {"string": "Hopper"},
                "cudaComputeCapability": {"version": "9.0.0"},
                "driverVersion": {"version": "580.95.5"},
                "cudaDriverVersion": {"version": "13.0.0"},
                "pcieBusID": {"string": f"0000:{0x18 + minor * 0x10:02x}:00.0"}},
            "capacity": {"memory": {"value": memory}, "multiprocessors": {"value": "16"}}}


def add_slice(b: ClusterBuilder, node: str, devices: list[Obj], *, generation: int = 1,
              slice_count: int = 1, suffix: str = "x7k2p", driver: str = DRIVER) -> Obj:
    b.ensure("resourceslices")
    name = f"{node}-{driver}-{suffix}"
    return b.add("resourceslices", {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
        "metadata": meta("ResourceSlice", name, labels={}),
        "spec": {"driver": driver, "nodeName": node,
                 "pool": {"name": node, "generation": generation,
                          "resourceSliceCount": slice_count},
                 "devices": devices}})


def dra_gpu_node(b: ClusterBuilder, name: str, *, gpus: int = 8,
                 product: tuple[str, str, str, str] = H100, publish: bool = True,
                 taints: list[Obj] | None = None, device_taints: dict[int, list[Obj]] | None = None,
                 generation: int = 1, labels: dict[str, str] | None = None) -> Obj:
    """A node serving its GPUs through DRA only: no nvidia.com/gpu in its status."""
    lab = dra_node_labels()
    lab.update(labels or {})
    node = b.node(name, labels=lab, taints=taints)
    if publish:
        add_slice(b, name, [gpu_device(name, i, product, (device_taints or {}).get(i))
                            for i in range(gpus)], generation=generation)
    return node


def request(name: str = "gpu", device_class: str = "gpu.nvidia.com", *, count: int = 1,
            mode: str | None = None, selectors: list[str] | None = None,
            tolerations: list[Obj] | None = None) -> Obj:
    exactly: Obj = {"deviceClassName": device_class}
    if mode == "All":
        exactly["allocationMode"] = "All"
    else:
        exactly["allocationMode"] = "ExactCount"
        exactly["count"] = count
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    if tolerations:
        exactly["tolerations"] = tolerations
    return {"name": name, "exactly": exactly}


def first_available(name: str, alternatives: list[Obj]) -> Obj:
    """A prioritized-list request: the ``exactly`` bodies of ``request()`` results, tried in
    order, each under its own subrequest name."""
    return {"name": name, "firstAvailable": [{"name": a["name"], **a["exactly"]}
                                              for a in alternatives]}


def claim_spec(requests: list[Obj], constraints: list[Obj] | None = None) -> Obj:
    devices: Obj = {"requests": requests}
    if constraints:
        devices["constraints"] = constraints
    return {"devices": devices}


def add_claim(b: ClusterBuilder, namespace: str, name: str, requests: list[Obj] | None = None,
              *, allocated: list[tuple[str, str, str]] | None = None,
              reserved_for: list[Obj] | None = None, owner: Obj | None = None,
              constraints: list[Obj] | None = None) -> Obj:
    """``allocated``: (request, node, device) triples, as the scheduler writes them."""
    b.ensure("resourceclaims")
    status: Obj = {}
    if allocated:
        nodes = sorted({n for _r, n, _d in allocated})
        status["allocation"] = {
            "devices": {"results": [{"request": r, "driver": DRIVER, "pool": n, "device": d}
                                    for r, n, d in allocated]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": nodes}]}]}}
    if reserved_for:
        status["reservedFor"] = [{"resource": "pods", "name": p["metadata"]["name"],
                                  "uid": p["metadata"]["uid"]} for p in reserved_for]
    obj: Obj = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": meta("ResourceClaim", name, namespace,
                                 owner={**owner, "apiVersion": "v1"} if owner else None),
                "spec": claim_spec(requests or [request()], constraints),
                "status": status}
    if allocated:
        obj["metadata"]["finalizers"] = ["resource.kubernetes.io/delete-protection"]
    return b.add("resourceclaims", obj)


def add_template(b: ClusterBuilder, namespace: str, name: str,
                 requests: list[Obj] | None = None) -> Obj:
    b.ensure("resourceclaimtemplates")
    return b.add("resourceclaimtemplates", {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
        "metadata": meta("ResourceClaimTemplate", name, namespace),
        "spec": {"spec": claim_spec(requests or [request()])}})


def dra_pod(b: ClusterBuilder, namespace: str, name: str, *, claim: str | None = None,
            template: str | None = None, generated: str | None = None,
            node: str | None = None, **kw: Any) -> Obj:
    """A pod asking for a GPU through one claim: by name, or from a template (``generated``:
    the claim name the controller recorded in status.resourceClaimStatuses)."""
    ctr = ClusterBuilder.container("main")
    ctr["resources"]["claims"] = [{"name": "gpu"}]
    p = b.pod(namespace, name, node=node, containers=[ctr], **kw)
    entry: Obj = {"name": "gpu"}
    if claim:
        entry["resourceClaimName"] = claim
    else:
        entry["resourceClaimTemplateName"] = template or "single-gpu"
    p["spec"]["resourceClaims"] = [entry]
    if generated:
        p["status"]["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": generated}]
    return p


def add_kubelet_plugin(b: ClusterBuilder, nodes: int, ready: int | None = None) -> Obj:
    return b.daemonset(DRA_NS, "nvidia-dra-driver-gpu-kubelet-plugin",
                       node_selector={"nvidia.com/gpu.deploy.dra-driver": "true"},
                       containers=["gpus"], desired=nodes, ready=ready,
                       labels={"app.kubernetes.io/name": "nvidia-dra-driver-gpu"})


def run_on(b: ClusterBuilder, namespace: str, pod: str, node: str, devices: list[str],
           *, template: str = "single-gpu") -> tuple[Obj, Obj]:
    """A running pod holding ``devices`` on ``node`` through a claim from ``template``."""
    claim_name = f"{pod}-gpu-{uid(pod)[:5]}"
    p = dra_pod(b, namespace, pod, template=template, generated=claim_name, node=node)
    c = add_claim(b, namespace, claim_name, [request(count=len(devices))],
                  allocated=[("gpu", node, d) for d in devices], reserved_for=[p], owner=p)
    return p, c


def healthy_dra_cluster() -> ClusterBuilder:
    """Two DRA-only H100 nodes (8 GPUs each), one device-plugin A100 node, the driver's classes
    and kubelet plugin, three running claim-based pods and one device-plugin pod: nothing wrong."""
    b = ClusterBuilder()
    for res in ("events", "runtimeclasses", "resourcequotas", "deployments", "replicasets",
                "jobs", "statefulsets", "daemonsets", "pods", "computedomains"):
        b.ensure(res)
    b.node("cpu-1")
    dra_gpu_node(b, "dra-1")
    dra_gpu_node(b, "dra-2")
    b.node("dp-1", gpus=4)
    add_device_classes(b)
    add_template(b, "ml", "single-gpu")
    add_template(b, "ml", "two-gpus", [request(count=2)])
    add_kubelet_plugin(b, 2)
    run_on(b, "ml", "train-0", "dra-1", ["gpu-0", "gpu-1"], template="two-gpus")
    run_on(b, "ml", "infer-0", "dra-1", ["gpu-2"])
    run_on(b, "ml", "infer-1", "dra-2", ["gpu-0"])
    b.pod("ml", "legacy-0", node="dp-1", gpus=1)
    return b
