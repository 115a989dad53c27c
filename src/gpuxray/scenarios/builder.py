"""A small builder of realistic Kubernetes objects and host files, written as a BUNDLE.md bundle.

Tests and the shipped demo build their bundles with it instead of checking in megabytes of JSON.
Objects carry the fields real ``kubectl get -o json`` prints for them (uids, timestamps, owner
references, managed labels), so the readers are exercised on realistic shapes.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import Any

NOW = "2026-11-29T12:00:00Z"
OPERATOR_NS = "gpu-operator"

Obj = dict[str, Any]


def uid(*parts: str) -> str:
    h = hashlib.sha1("/".join(parts).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def meta(kind: str, name: str, namespace: str | None = None, *,
         labels: dict[str, str] | None = None,
         annotations: dict[str, str] | None = None, owner: Obj | None = None,
         created: str = "2026-11-20T08:00:00Z") -> Obj:
    m: Obj = {"name": name, "uid": uid(kind, namespace or "", name),
              "resourceVersion": str(int(hashlib.sha1(name.encode()).hexdigest()[:6], 16)),
              "creationTimestamp": created}
    if namespace is not None:
        m["namespace"] = namespace
    if labels:
        m["labels"] = dict(labels)
    if annotations:
        m["annotations"] = dict(annotations)
    if owner:
        m["ownerReferences"] = [{"apiVersion": owner.get("apiVersion", "apps/v1"),
                                 "kind": owner["kind"], "name": owner["metadata"]["name"],
                                 "uid": owner["metadata"]["uid"], "controller": True,
                                 "blockOwnerDeletion": True}]
    return m


def gfd_labels(gpus: int, product: str = "NVIDIA-A100-SXM4-80GB", memory: int = 81920,
               replicas: int = 1, strategy: str = "none", resource: str = "nvidia.com/gpu",
               deploy: bool = True) -> dict[str, str]:
    """Labels NFD, the operator and GFD put on a healthy GPU node (facts.md §5.2, §6.2)."""
    labels = {
        "feature.node.kubernetes.io/pci-10de.present": "true",
        "nvidia.com/gpu.present": "true",
        f"{resource}.count": str(gpus),
        f"{resource}.product": product,
        f"{resource}.memory": str(memory),
        f"{resource}.replicas": str(replicas),
        f"{resource}.sharing-strategy": strategy,
        "nvidia.com/gpu.family": "ampere" if "A100" in product else "hopper",
        "nvidia.com/cuda.driver-version.full": "580.95.05",
        "nvidia.com/mig.capable": "true" if "A100" in product or "H100" in product else "false",
        "nvidia.com/mig.strategy": "single",
    }
    if deploy:
        for comp in ("driver", "container-toolkit", "device-plugin", "dcgm", "dcgm-exporter",
                     "gpu-feature-discovery", "mig-manager", "node-status-exporter",
                     "operator-validator"):
            labels[f"nvidia.com/gpu.deploy.{comp}"] = "true"
    return labels


class ClusterBuilder:
    """Collects objects and files, then writes them as a bundle directory or tarball."""

    def __init__(self, now: str = NOW) -> None:
        self.now = now
        self.cluster: dict[str, list[Obj]] = {}
        self.files: dict[str, str] = {}  # bundle-relative path -> text
        self.manifest: Obj | None = {
            "format": "gpuxray-bundle/1", "collected_at": now, "collector": "gpuxray 0.1.0",
            "source": {"kind": "live", "context": "test"}, "operator_namespace": OPERATOR_NS,
            "errors": []}

    # ----- generic --------------------------------------------------------------------------
    def add(self, resource: str, obj: Obj) -> Obj:
        self.cluster.setdefault(resource, []).append(obj)
        return obj

    def ensure(self, resource: str) -> None:
        """Mark a resource as collected even when it holds no object."""
        self.cluster.setdefault(resource, [])

    def find(self, resource: str, name: str, namespace: str | None = None) -> Obj:
        for o in self.cluster.get(resource, []):
            if o["metadata"]["name"] == name and o["metadata"].get("namespace") == namespace:
                return o
        raise KeyError(f"{resource}/{namespace}/{name}")

    def remove(self, resource: str) -> None:
        self.cluster.pop(resource, None)

    # ----- nodes ----------------------------------------------------------------------------
    def node(self, name: str, *, gpus: int = 0, resource: str = "nvidia.com/gpu",
             capacity: int | None = None, allocatable: int | None = None,
             labels: dict[str, str] | None = None, taints: list[Obj] | None = None,
             product: str = "NVIDIA-A100-SXM4-80GB", replicas: int = 1,
             gpu_labels: bool = True, advertise: bool = True, unschedulable: bool = False,
             cpu: str = "96", memory: str = "1056469940Ki", ready: bool = True,
             extra: dict[str, str] | None = None, kernel: str = "5.15.0-126-generic",
             os_image: str = "Ubuntu 22.04.5 LTS", runtime: str = "containerd://1.7.27") -> Obj:
        lab = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
               "kubernetes.io/arch": "amd64", "node.kubernetes.io/instance-type": "p4d.24xlarge"}
        if gpus and gpu_labels:
            strategy = "time-slicing" if replicas > 1 else "none"
            lab.update(gfd_labels(gpus, product, replicas=replicas, strategy=strategy,
                                  resource=resource if resource.startswith("nvidia.com/mig-")
                                  else "nvidia.com/gpu"))
        lab.update(labels or {})
        cap: Obj = {"cpu": cpu, "memory": memory, "pods": "110", "ephemeral-storage": "203070420Ki",
                    "hugepages-1Gi": "0", "hugepages-2Mi": "0"}
        alloc: Obj = {"cpu": str(int(cpu) - 1) if cpu.isdigit() else cpu, "memory": memory,
                      "pods": "110", "ephemeral-storage": "187149698763", "hugepages-1Gi": "0",
                      "hugepages-2Mi": "0"}
        if gpus and advertise:
            total = gpus * replicas
            cap[resource] = str(total if capacity is None else capacity)
            alloc[resource] = str(total if allocatable is None else allocatable)
        elif capacity is not None:
            cap[resource] = str(capacity)
            alloc[resource] = str(capacity if allocatable is None else allocatable)
        for k, v in (extra or {}).items():
            cap[k] = v
            alloc[k] = v
        conds = [
            {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory"},
            {"type": "DiskPressure", "status": "False", "reason": "KubeletHasNoDiskPressure"},
            {"type": "PIDPressure", "status": "False", "reason": "KubeletHasSufficientPID"},
            {"type": "Ready", "status": "True" if ready else "False",
             "reason": "KubeletReady" if ready else "KubeletNotReady",
             "lastHeartbeatTime": self.now, "lastTransitionTime": "2026-11-20T08:05:00Z"},
        ]
        spec: Obj = {"podCIDR": "10.244.1.0/24"}
        if taints:
            spec["taints"] = taints
        if unschedulable:
            spec["unschedulable"] = True
        obj = {"apiVersion": "v1", "kind": "Node", "metadata": meta("Node", name, labels=lab),
               "spec": spec,
               "status": {"capacity": cap, "allocatable": alloc, "conditions": conds,
                          "addresses": [{"type": "InternalIP", "address": "10.0.0.10"},
                                        {"type": "Hostname", "address": name}],
                          "nodeInfo": {"kernelVersion": kernel, "osImage": os_image,
                                       "containerRuntimeVersion": runtime,
                                       "kubeletVersion": "v1.31.4", "architecture": "amd64",
                                       "operatingSystem": "linux",
                                       "machineID": uid("machine", name)[:32]}}}
        return self.add("nodes", obj)

    # ----- pods -----------------------------------------------------------------------------
    @staticmethod
    def container(name: str, *, gpus: int | str = 0, resource: str = "nvidia.com/gpu",
                  requests: dict[str, str] | None = None, limits: dict[str, str] | None = None,
                  image: str = "nvcr.io/nvidia/pytorch:24.10-py3",
                  env: dict[str, str] | None = None,
                  restart_policy: str | None = None, privileged: bool | None = None) -> Obj:
        req = {"cpu": "1", "memory": "4Gi"}
        req.update(requests or {})
        lim = dict(limits or {})
        if gpus:
            lim[resource] = str(gpus)
        c: Obj = {"name": name, "image": image, "imagePullPolicy": "IfNotPresent",
                  "resources": {"requests": req, "limits": lim} if lim else {"requests": req},
                  "terminationMessagePath": "/dev/termination-log",
                  "terminationMessagePolicy": "File"}
        if env:
            c["env"] = [{"name": k, "value": v} for k, v in env.items()]
        if restart_policy:
            c["restartPolicy"] = restart_policy
        if privileged is not None:
            c["securityContext"] = {"privileged": privileged}
        return c

    def pod(self, namespace: str, name: str, *, node: str | None = None, gpus: int | str = 0,
            resource: str = "nvidia.com/gpu", containers: list[Obj] | None = None,
            init_containers: list[Obj] | None = None, phase: str | None = None,
            tolerations: list[Obj] | None = None, node_selector: dict[str, str] | None = None,
            affinity: Obj | None = None, runtime_class: str | None = None,
            owner: Obj | None = None, overhead: dict[str, str] | None = None,
            labels: dict[str, str] | None = None, container_statuses: list[Obj] | None = None,
            init_statuses: list[Obj] | None = None, conditions: list[Obj] | None = None,
            created: str = "2026-11-29T11:00:00Z") -> Obj:
        if containers is None:
            containers = [self.container("main", gpus=gpus, resource=resource)]
        tol = tolerations if tolerations is not None else [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
             "effect": "NoExecute", "tolerationSeconds": 300}]
        spec: Obj = {"containers": containers, "restartPolicy": "Always",
                     "schedulerName": "default-scheduler", "serviceAccountName": "default",
                     "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
                     "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority",
                     "priority": 0, "tolerations": tol}
        if init_containers:
            spec["initContainers"] = init_containers
        if node:
            spec["nodeName"] = node
        if node_selector:
            spec["nodeSelector"] = node_selector
        if affinity:
            spec["affinity"] = affinity
        if runtime_class:
            spec["runtimeClassName"] = runtime_class
        if overhead:
            spec["overhead"] = overhead
        if phase is None:
            phase = "Running" if node else "Pending"
        status: Obj = {"phase": phase, "qosClass": "Burstable"}
        if node:
            status["hostIP"] = "10.0.0.10"
            status["startTime"] = created
        if phase == "Running" and container_statuses is None:
            container_statuses = [
                {"name": c["name"], "ready": True, "restartCount": 0, "started": True,
                 "image": c["image"], "imageID": "", "containerID": f"containerd://{uid(name)}",
                 "state": {"running": {"startedAt": created}}} for c in containers]
        if container_statuses is not None:
            status["containerStatuses"] = container_statuses
        if init_statuses is not None:
            status["initContainerStatuses"] = init_statuses
        if conditions is not None:
            status["conditions"] = conditions
        elif phase == "Pending" and not node:
            status["conditions"] = [{"type": "PodScheduled", "status": "False",
                                     "reason": "Unschedulable", "lastProbeTime": None,
                                     "lastTransitionTime": created}]
        obj = {"apiVersion": "v1", "kind": "Pod",
               "metadata": meta("Pod", name, namespace, labels=labels or {"app": name},
                                owner=owner, created=created,
                                annotations={"kubectl.kubernetes.io/last-applied-configuration":
                                             "{}"}),
               "spec": spec, "status": status}
        return self.add("pods", obj)

    def event(self, involved: Obj, reason: str, message: str, *, type: str = "Warning",
              count: int = 1, component: str = "default-scheduler", host: str = "",
              when: str | None = None) -> Obj:
        m = involved["metadata"]
        ns = m.get("namespace") or "default"
        name = f"{m['name']}.{hashlib.sha1((reason + message).encode()).hexdigest()[:16]}"
        obj = {"apiVersion": "v1", "kind": "Event",
               "metadata": meta("Event", name, ns, created=when or self.now),
               "involvedObject": {"apiVersion": involved.get("apiVersion", "v1"),
                                  "kind": involved["kind"], "name": m["name"],
                                  "namespace": m.get("namespace"), "uid": m["uid"]},
               "reason": reason, "message": message, "type": type, "count": count,
               "firstTimestamp": when or self.now, "lastTimestamp": when or self.now,
               "source": {"component": component, **({"host": host} if host else {})},
               "reportingComponent": component, "reportingInstance": host}
        return self.add("events", obj)

    # ----- workloads and cluster-scoped objects --------------------------------------------
    def workload(self, kind: str, namespace: str, name: str, *, template: Obj,
                 replicas: int = 1, owner: Obj | None = None) -> Obj:
        resource = {"Deployment": "deployments", "ReplicaSet": "replicasets", "Job": "jobs",
                    "StatefulSet": "statefulsets", "DaemonSet": "daemonsets"}[kind]
        api = "batch/v1" if kind == "Job" else "apps/v1"
        spec: Obj = {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": template}}
        if kind != "DaemonSet" and kind != "Job":
            spec["replicas"] = replicas
        obj = {"apiVersion": api, "kind": kind,
               "metadata": meta(kind, name, namespace, labels={"app": name}, owner=owner),
               "spec": spec, "status": {}}
        return self.add(resource, obj)

    @staticmethod
    def pod_template(*, gpus: int | str = 0, resource: str = "nvidia.com/gpu",
                     runtime_class: str | None = None, **kw: Any) -> Obj:
        spec: Obj = {"containers": [ClusterBuilder.container("main", gpus=gpus, resource=resource)],
                     "restartPolicy": kw.get("restart_policy", "Always")}
        if runtime_class:
            spec["runtimeClassName"] = runtime_class
        if "tolerations" in kw:
            spec["tolerations"] = kw["tolerations"]
        return spec

    def runtimeclass(self, name: str, handler: str | None = None) -> Obj:
        obj = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
               "metadata": meta("RuntimeClass", name), "handler": handler or name}
        return self.add("runtimeclasses", obj)

    def quota(self, namespace: str, name: str, hard: dict[str, str],
              used: dict[str, str]) -> Obj:
        obj = {"apiVersion": "v1", "kind": "ResourceQuota",
               "metadata": meta("ResourceQuota", name, namespace),
               "spec": {"hard": hard}, "status": {"hard": hard, "used": used}}
        return self.add("resourcequotas", obj)

    def configmap(self, namespace: str, name: str, data: dict[str, str]) -> Obj:
        obj = {"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": meta("ConfigMap", name, namespace), "data": data}
        return self.add("configmaps", obj)

    def daemonset(self, namespace: str, name: str, *, node_selector: dict[str, str],
                  tolerations: list[Obj] | None = None, init: list[str] = (),  # type: ignore[assignment]
                  containers: list[str] = ("main",),  # type: ignore[assignment]
                  runtime_class: str | None = None, desired: int = 0, ready: int | None = None,
                  labels: dict[str, str] | None = None) -> Obj:
        tmpl: Obj = {
            "nodeSelector": node_selector,
            "tolerations": tolerations if tolerations is not None else [
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "containers": [{"name": c, "image": f"nvcr.io/nvidia/{name}:v1"} for c in containers],
            "priorityClassName": "system-node-critical",
        }
        if init:
            image = "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v25.10.1"
            tmpl["initContainers"] = [{"name": c, "image": image} for c in init]
        if runtime_class:
            tmpl["runtimeClassName"] = runtime_class
        lab = labels or {"app": name}
        obj = {"apiVersion": "apps/v1", "kind": "DaemonSet",
               "metadata": meta("DaemonSet", name, namespace, labels=lab),
               "spec": {"selector": {"matchLabels": lab},
                        "template": {"metadata": {"labels": lab}, "spec": tmpl}},
               "status": {"desiredNumberScheduled": desired, "currentNumberScheduled": desired,
                          "numberReady": desired if ready is None else ready,
                          "numberAvailable": desired if ready is None else ready,
                          "updatedNumberScheduled": desired, "numberMisscheduled": 0,
                          "observedGeneration": 1}}
        return self.add("daemonsets", obj)

    def custom(self, resource: str, kind: str, name: str, spec: Obj, status: Obj) -> Obj:
        api = "nvidia.com/v1" if kind == "ClusterPolicy" else "nvidia.com/v1alpha1"
        obj = {"apiVersion": api, "kind": kind, "metadata": meta(kind, name), "spec": spec,
               "status": status}
        return self.add(resource, obj)

    # ----- host files, logs, metrics --------------------------------------------------------
    def host_file(self, node: str, path: str, text: str) -> None:
        self.files[f"nodes/{node}/files/{path.lstrip('/')}"] = text

    def host_cmd(self, node: str, name: str, text: str) -> None:
        self.files[f"nodes/{node}/cmd/{name}"] = text

    def log(self, namespace: str, pod: str, container: str, text: str, *,
            previous: bool = False) -> None:
        suffix = ".previous.log" if previous else ".log"
        self.files[f"logs/{namespace}/{pod}/{container}{suffix}"] = text

    def metrics(self, node: str, text: str) -> None:
        self.files[f"metrics/{node}.prom"] = text

    def error(self, what: str, error: str) -> None:
        if self.manifest is not None:
            self.manifest["errors"].append({"what": what, "error": error})

    # ----- output ---------------------------------------------------------------------------
    def documents(self) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        if self.manifest is not None:
            out["manifest.json"] = json.dumps(self.manifest, indent=2).encode()
        for resource, items in self.cluster.items():
            kind = items[0]["kind"] if items else "Item"
            doc = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
                   "items": items}
            if resource == "version":
                out["cluster/version.json"] = json.dumps(items[0], indent=2).encode()
                continue
            del kind
            out[f"cluster/{resource}.json"] = json.dumps(doc, indent=2).encode()
        for path, text in self.files.items():
            out[path] = text.encode()
        return out

    def write(self, root: str | Path) -> Path:
        root = Path(root)
        for rel, data in self.documents().items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        if not any(root.iterdir()):
            (root / "cluster").mkdir()
        return root

    def write_tar(self, path: str | Path, top: str = "bundle") -> Path:
        path = Path(path)
        with tarfile.open(path, "w:gz") as tar:
            for rel, data in sorted(self.documents().items()):
                info = tarfile.TarInfo(f"{top}/{rel}")
                info.size = len(data)
                info.mtime = 1764417600
                tar.addfile(info, io.BytesIO(data))
        return path
