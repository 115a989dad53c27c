"""Deterministic synthetic GPU clusters for benchmarks, written as a gpuxray bundle.

Objects look like what ``kubectl get -o json`` returns on a real fleet — managedFields, the
last-applied annotation, realistic labels and statuses — so each pod weighs 2–4 KB of JSON and
the decoder pays for every byte it skips. Same seed, same bytes.

    python bench/generate.py --nodes 5000 --pods-per-node 20 OUT_DIR
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec

GPU_FRACTION = 0.8  # share of nodes that are GPU nodes
PRODUCTS = [("NVIDIA-A100-SXM4-80GB", 8, 81920), ("NVIDIA-H100-80GB-HBM3", 8, 81559),
            ("NVIDIA-L40S", 4, 46068)]
ENC = msgspec.json.Encoder()
# operands a default ClusterPolicy deploys on a non-MIG node (standalone DCGM and the node status
# exporter are off by default): six pods per GPU node
OPERATOR_DEPLOY = ("driver", "container-toolkit", "device-plugin", "dcgm-exporter",
                   "gpu-feature-discovery", "operator-validator")


def _uid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _managed(manager: str, ts: str) -> list[dict[str, Any]]:
    return [{"manager": manager, "operation": "Update", "apiVersion": "v1", "time": ts,
             "fieldsType": "FieldsV1",
             "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}, "f:team": {}}},
                          "f:spec": {"f:containers": {'k:{"name":"main"}': {
                              ".": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {},
                              "f:resources": {".": {}, "f:limits": {".": {}},
                                              "f:requests": {".": {}}}}}}}},
            {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": ts,
             "fieldsType": "FieldsV1", "subresource": "status",
             "fieldsV1": {"f:status": {"f:conditions": {}, "f:containerStatuses": {},
                                       "f:hostIP": {}, "f:phase": {}, "f:podIP": {},
                                       "f:startTime": {}}}}]


def node(i: int, rng: random.Random, gpu: bool, operator: bool = False) -> dict[str, Any]:
    name = f"node-{i:05d}"
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
              "kubernetes.io/arch": "amd64", "topology.kubernetes.io/zone": f"zone-{i % 3}",
              "node.kubernetes.io/instance-type": "p4d.24xlarge" if gpu else "m6i.8xlarge"}
    cap = {"cpu": "96", "memory": "1056469940Ki", "pods": "110",
           "ephemeral-storage": "203070420Ki"}
    taints = []
    if gpu:
        product, count, mem = PRODUCTS[i % len(PRODUCTS)]
        labels.update({"feature.node.kubernetes.io/pci-10de.present": "true",
                       "nvidia.com/gpu.present": "true", "nvidia.com/gpu.count": str(count),
                       "nvidia.com/gpu.product": product, "nvidia.com/gpu.memory": str(mem),
                       "nvidia.com/gpu.replicas": "1", "nvidia.com/gpu.sharing-strategy": "none",
                       "nvidia.com/mig.strategy": "single",
                       "nvidia.com/gpu.deploy.device-plugin": "true",
                       "nvidia.com/gpu.deploy.driver": "true",
                       "nvidia.com/gpu.deploy.container-toolkit": "true"})
        if operator:  # what NFD, GFD and the operator put on a node it manages
            labels.update({f"nvidia.com/gpu.deploy.{c}": "true" for c in OPERATOR_DEPLOY})
            labels.update({"nvidia.com/gpu.family": "hopper" if "H100" in product else "ampere",
                           "nvidia.com/cuda.driver-version.full": "580.95.05",
                           "nvidia.com/mig.capable": "false"})
        cap["nvidia.com/gpu"] = str(count)
        taints = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    alloc = dict(cap)
    if gpu and rng.random() < 0.01:
        alloc["nvidia.com/gpu"] = str(int(cap["nvidia.com/gpu"]) - 1)  # one unhealthy device
    ts = "2026-11-01T00:00:00Z"
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": _uid(rng), "resourceVersion": str(rng.getrandbits(24)),
                         "creationTimestamp": ts, "labels": labels,
                         "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                                         "volumes.kubernetes.io/controller-managed-attach-detach":
                                         "true"},
                         "managedFields": _managed("kubelet", ts)},
            "spec": {"podCIDR": f"10.{i // 250 % 250}.{i % 250}.0/24", "taints": taints},
            "status": {"capacity": cap, "allocatable": alloc,
                       "conditions": [{"type": t, "status": "False", "reason": f"KubeletHas{t}",
                                       "lastHeartbeatTime": ts, "lastTransitionTime": ts}
                                      for t in ("MemoryPressure", "DiskPressure", "PIDPressure")]
                       + [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                           "lastHeartbeatTime": ts, "lastTransitionTime": ts}],
                       "addresses": [{"type": "InternalIP", "address": f"10.0.{i // 250}.{i % 250}"},
                                     {"type": "Hostname", "address": name}],
                       "nodeInfo": {"kernelVersion": "5.15.0-126-generic",
                                    "osImage": "Ubuntu 22.04.5 LTS",
                                    "containerRuntimeVersion": "containerd://1.7.27",
                                    "kubeletVersion": "v1.31.4", "architecture": "amd64",
                                    "operatingSystem": "linux"},
                       "images": [{"names": [f"nvcr.io/nvidia/pytorch:24.{m:02d}-py3"],
                                   "sizeBytes": 9_000_000_000 + m} for m in range(1, 4)]}}


def pod(i: int, rng: random.Random, node_name: str | None, gpu_node: bool,
        free_gpus: list[int], namespaces: int = 40, gpu_share: float = 0.5) -> dict[str, Any]:
    team = f"team-{i % namespaces}"
    name = f"job-{i:07d}"
    gpus = 0
    if gpu_node and free_gpus[0] > 0 and rng.random() < gpu_share:
        gpus = min(free_gpus[0], rng.choice((1, 1, 2, 4)))
        free_gpus[0] -= gpus
    limits = {"cpu": "8", "memory": "64Gi"}
    if gpus:
        limits["nvidia.com/gpu"] = str(gpus)
    spec_main = {"name": "main", "image": "nvcr.io/nvidia/pytorch:24.10-py3",
                 "imagePullPolicy": "IfNotPresent",
                 "command": ["python", "-m", "torch.distributed.run", "--nproc_per_node=auto",
                             "train.py"],
                 "env": [{"name": "NCCL_DEBUG", "value": "WARN"},
                         {"name": "WANDB_PROJECT", "value": team}],
                 "resources": {"limits": limits, "requests": {"cpu": "4", "memory": "32Gi"}},
                 "volumeMounts": [{"name": "data", "mountPath": "/data"},
                                  {"name": "kube-api-access", "mountPath":
                                   "/var/run/secrets/kubernetes.io/serviceaccount",
                                   "readOnly": True}],
                 "terminationMessagePath": "/dev/termination-log",
                 "terminationMessagePolicy": "File"}
    ts = "2026-11-28T10:00:00Z"
    last_applied = json.dumps({"apiVersion": "v1", "kind": "Pod",
                               "metadata": {"name": name, "namespace": team},
                               "spec": {"containers": [{"name": "main",
                                                        "image": spec_main["image"],
                                                        "resources": spec_main["resources"]}]}})
    phase = "Running" if node_name else "Pending"
    if node_name and rng.random() < 0.1:
        phase = "Succeeded"
    status: dict[str, Any] = {"phase": phase, "qosClass": "Burstable"}
    if node_name:
        status.update({"hostIP": "10.0.0.1", "podIP": f"10.244.{i % 250}.{i % 200}",
                       "startTime": ts,
                       "conditions": [{"type": t, "status": "True", "lastProbeTime": None,
                                       "lastTransitionTime": ts}
                                      for t in ("Initialized", "Ready", "ContainersReady",
                                                "PodScheduled")],
                       "containerStatuses": [{"name": "main", "ready": phase == "Running",
                                              "restartCount": 0, "image": spec_main["image"],
                                              "imageID": "nvcr.io/nvidia/pytorch@sha256:" + "0" * 64,
                                              "containerID": "containerd://" + "a" * 64,
                                              "started": True,
                                              "state": {"running": {"startedAt": ts}}}]})
    else:
        status["conditions"] = [{"type": "PodScheduled", "status": "False",
                                 "reason": "Unschedulable", "lastProbeTime": None,
                                 "lastTransitionTime": ts,
                                 "message": "0/100 nodes are available: 100 Insufficient "
                                            "nvidia.com/gpu."}]
    spec: dict[str, Any] = {
        "containers": [spec_main], "restartPolicy": "Never", "schedulerName": "default-scheduler",
        "serviceAccountName": "trainer", "terminationGracePeriodSeconds": 30,
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                        {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                         "effect": "NoExecute", "tolerationSeconds": 300}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": f"{team}-data"}},
                    {"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
                        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}],
    }
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": team, "uid": _uid(rng),
                         "resourceVersion": str(rng.getrandbits(24)), "creationTimestamp": ts,
                         "labels": {"app": "trainer", "team": team,
                                    "batch.kubernetes.io/job-name": name},
                         "annotations": {"kubectl.kubernetes.io/last-applied-configuration":
                                         last_applied},
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job",
                                              "name": name, "uid": _uid(rng),
                                              "controller": True, "blockOwnerDeletion": True}],
                         "managedFields": _managed("kubectl-client-side-apply", ts)},
            "spec": spec, "status": status}


def event(i: int, rng: random.Random, pod_obj: dict[str, Any]) -> dict[str, Any]:
    m = pod_obj["metadata"]
    ts = "2026-11-29T11:00:00Z"
    return {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": f"{m['name']}.{rng.getrandbits(40):x}", "namespace": m["namespace"],
                         "uid": _uid(rng), "creationTimestamp": ts},
            "involvedObject": {"kind": "Pod", "name": m["name"], "namespace": m["namespace"],
                               "uid": m["uid"], "apiVersion": "v1"},
            "reason": "FailedScheduling" if "nodeName" not in pod_obj["spec"] else "Pulled",
            "message": ("0/100 nodes are available: 100 Insufficient nvidia.com/gpu."
                        if "nodeName" not in pod_obj["spec"]
                        else 'Container image "nvcr.io/nvidia/pytorch:24.10-py3" already present'),
            "type": "Warning" if "nodeName" not in pod_obj["spec"] else "Normal",
            "count": 1, "firstTimestamp": ts, "lastTimestamp": ts,
            "source": {"component": "default-scheduler"}, "reportingComponent": "default-scheduler"}


@dataclass(frozen=True)
class Pending:
    """``count`` pending GPU pods. ``job`` set: identical pods of one Job (one shape);
    ``per_node``: each pod pinned to its own node by a required node affinity, the way a
    DaemonSet's pods are (a distinct shape per pod)."""

    count: int
    gpus: int
    job: str = ""
    per_node: bool = False
    selector: dict[str, str] = field(default_factory=dict)
    dra: bool = False  # asks through a ResourceClaimTemplate of ``gpus`` devices instead


@dataclass(frozen=True)
class Shape:
    """Knobs of a generated cluster. Counts are for 5,000 nodes and scale with the node count
    (the pod total stays ``nodes × pods_per_node`` whatever the shape: operand and pending pods
    replace ordinary ones)."""

    name: str
    operator: bool = False  # GPU Operator stack, CDI on: ClusterPolicy, operand DaemonSets/pods
    namespaces: int = 40
    deployments: int = 0  # workload pods owned by ReplicaSets of Deployments (templates kept)
    jobs: int = 0  # … and by Jobs
    runtime_class_share: float = 0.0  # share of bound GPU pods naming RuntimeClass nvidia
    pending: tuple[Pending, ...] = ()  # empty: nodes // 100 pending 8-GPU pods (plain)
    failed_scheduling_per_pending: int = 1  # FailedScheduling events per pending pod
    other_warnings: int = 0  # BackOff / Unhealthy / FailedMount events on bound pods
    gpu_share: float = 0.5  # chance a bound pod on a GPU node with GPUs left asks for some
    mustgather: bool = False  # write the cluster as must-gather output instead of a bundle
    dra_nodes: int = 0  # GPU nodes serving their GPUs through DRA only (ResourceSlices)
    dra_claims_per_node: int = 6  # running pods holding one device each through a claim

    def scaled(self, nodes: int, n: int) -> int:
        return max(1, round(n * nodes / 5000)) if n else 0


FLEET = Shape(
    "fleet", operator=True, namespaces=400, deployments=5000, jobs=900,
    runtime_class_share=0.8,  # ~16k of ~20k bound GPU pods
    pending=(Pending(300, 8, job="llm-finetune"), Pending(500, 1),
             Pending(200, 4, selector={"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}),
             Pending(300, 2)),
    failed_scheduling_per_pending=5,  # 6.5k FailedScheduling (retries with changing counts)
    other_warnings=2500)
SHAPES: dict[str, Shape] = {
    "plain": Shape("plain"),
    "fleet": FLEET,
    "pending-storm": Shape(
        "pending-storm",
        pending=(Pending(2700, 8, job="llm-pretrain"), Pending(600, 4, job="vision-sweep"),
                 Pending(400, 1, job="eval",
                         selector={"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}),
                 Pending(200, 2), Pending(1000, 1, per_node=True)),
        gpu_share=1.0),  # every GPU taken: the storm waits on a full fleet
    "mustgather": replace(FLEET, name="mustgather", mustgather=True),
    "dra": Shape(
        "dra", dra_nodes=1000, dra_claims_per_node=7,
        pending=(Pending(400, 2, job="dra-train", dra=True), Pending(100, 1, dra=True),
                 Pending(50, 8))),
}


def _write_list(path: Path, items: list[dict[str, Any]]) -> None:
    with open(path, "wb") as fh:
        fh.write(b'{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[')
        for k, obj in enumerate(items):
            if k:
                fh.write(b",")
            fh.write(ENC.encode(obj))
        fh.write(b"]}")


def _suffix(rng: random.Random, n: int = 5) -> str:
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))


class _Controllers:
    """Deployments → ReplicaSets → pods, and Jobs → pods: owners assigned round-robin to the
    workload pods, each controller keeping its pod template."""

    def __init__(self, shape: Shape, nodes: int, rng: random.Random) -> None:
        self.rng = rng
        self.deployments: list[dict[str, Any]] = []
        self.replicasets: list[dict[str, Any]] = []
        self.jobs: list[dict[str, Any]] = []
        self.owners: list[tuple[str, dict[str, Any], str]] = []  # (kind, owner obj, pod prefix)
        ns = shape.namespaces
        for d in range(shape.scaled(nodes, shape.deployments)):
            name, team = f"svc-{d:05d}", f"team-{d % ns}"
            h = f"{rng.getrandbits(40):010x}"[:10]
            dep = self._obj("apps/v1", "Deployment", name, team, {"app": name})
            rs = self._obj("apps/v1", "ReplicaSet", f"{name}-{h}", team,
                           {"app": name, "pod-template-hash": h}, owner=dep)
            self.deployments.append(dep)
            self.replicasets.append(rs)
            self.owners.append(("ReplicaSet", rs, f"{name}-{h}-"))
        for j in range(shape.scaled(nodes, shape.jobs)):
            name, team = f"train-{j:04d}", f"team-{j % ns}"
            job = self._obj("batch/v1", "Job", name, team, {"job-name": name})
            self.jobs.append(job)
            self.owners.append(("Job", job, f"{name}-"))

    def _obj(self, api: str, kind: str, name: str, ns: str, labels: dict[str, str],
             owner: dict[str, Any] | None = None) -> dict[str, Any]:
        m: dict[str, Any] = {"name": name, "namespace": ns, "uid": _uid(self.rng),
                             "resourceVersion": str(self.rng.getrandbits(24)),
                             "creationTimestamp": "2026-11-20T08:00:00Z", "labels": labels,
                             "generation": 1}
        if owner is not None:
            m["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner["kind"],
                                     "name": owner["metadata"]["name"],
                                     "uid": owner["metadata"]["uid"], "controller": True,
                                     "blockOwnerDeletion": True}]
        return {"apiVersion": api, "kind": kind, "metadata": m,
                "spec": {"selector": {"matchLabels": labels}, "template": None},
                "status": {}}

    def adopt(self, k: int, p: dict[str, Any]) -> None:
        """Make pod ``p`` the ``k``-th workload pod's controller's pod (round-robin)."""
        kind, owner, prefix = self.owners[k % len(self.owners)]
        m = p["metadata"]
        m["name"] = prefix + _suffix(self.rng)
        m["namespace"] = owner["metadata"]["namespace"]
        m["labels"] = dict(owner["spec"]["selector"]["matchLabels"])
        m["ownerReferences"] = [{"apiVersion": owner["apiVersion"], "kind": kind,
                                 "name": owner["metadata"]["name"],
                                 "uid": owner["metadata"]["uid"], "controller": True,
                                 "blockOwnerDeletion": True}]
        spec = owner["spec"]
        if spec["template"] is None:  # the first pod's spec is the template
            tmpl = {k2: v for k2, v in p["spec"].items() if k2 != "nodeName"}
            spec["template"] = {"metadata": {"labels": m["labels"]}, "spec": tmpl}
            st = owner["status"]
            if kind == "ReplicaSet":
                st.update({"replicas": 0, "readyReplicas": 0, "availableReplicas": 0})
            else:
                st.update({"active": 0, "startTime": "2026-11-28T10:00:00Z"})
        st = owner["status"]
        if kind == "ReplicaSet":
            spec["replicas"] = spec.get("replicas", 0) + 1
            for key in ("replicas", "readyReplicas", "availableReplicas"):
                st[key] += 1
        else:
            spec["parallelism"] = spec.get("parallelism", 0) + 1
            st["active"] += 1

    def finish(self) -> None:
        by_name = {(r["metadata"]["namespace"], r["metadata"]["ownerReferences"][0]["name"]): r
                   for r in self.replicasets}
        for d in self.deployments:
            rs = by_name[(d["metadata"]["namespace"], d["metadata"]["name"])]
            d["spec"]["template"] = rs["spec"]["template"] or {"spec": {"containers": []}}
            d["spec"]["replicas"] = rs["spec"].get("replicas", 0)
            d["status"] = {"replicas": d["spec"]["replicas"],
                           "readyReplicas": d["spec"]["replicas"],
                           "availableReplicas": d["spec"]["replicas"], "observedGeneration": 1}
        for obj in self.replicasets + self.jobs:
            if obj["spec"]["template"] is None:
                obj["spec"]["template"] = {"metadata": {}, "spec": {"containers": []}}
                obj["spec"]["replicas" if obj["kind"] == "ReplicaSet" else "parallelism"] = 0


def _pending_pod(i: int, rng: random.Random, g: Pending, k: int, nodes: int,
                 namespaces: int, job_uid: str) -> dict[str, Any]:
    p = pod(i, rng, None, True, [8], namespaces)
    c = p["spec"]["containers"][0]
    c["resources"]["limits"]["nvidia.com/gpu"] = str(g.gpus)
    if g.selector:
        p["spec"]["nodeSelector"] = dict(g.selector)
    if g.job:  # identical pods of one Job: one namespace, labels and template
        m = p["metadata"]
        m["name"] = f"{g.job}-{_suffix(rng)}"
        m["namespace"] = "research"
        m["labels"] = {"batch.kubernetes.io/job-name": g.job, "job-name": g.job,
                       "batch.kubernetes.io/controller-uid": job_uid}
        m["ownerReferences"][0].update({"name": g.job, "uid": job_uid})
        m.pop("annotations")  # the Job controller writes no last-applied annotation
    if g.per_node:
        target = f"node-{k % max(1, int(nodes * GPU_FRACTION)):05d}"
        p["metadata"]["name"] = f"node-agent-{target[5:]}-{_suffix(rng)}"
        p["metadata"]["namespace"] = "monitoring"
        p["metadata"]["ownerReferences"][0].update({"apiVersion": "apps/v1",
                                                    "kind": "DaemonSet", "name": "node-agent"})
        p["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [target]}]}]}}}
    return p


WARNINGS = [  # (reason, message, component) on bound pods, as the kubelet words them
    ("BackOff", "Back-off restarting failed container main in pod {pod}_{ns}({uid})", "kubelet"),
    ("Unhealthy", "Readiness probe failed: Get \"http://10.244.3.7:8080/healthz\": context "
                  "deadline exceeded (Client.Timeout exceeded while awaiting headers)", "kubelet"),
    ("FailedMount", "MountVolume.SetUp failed for volume \"config\" : configmap \"{pod}-config\" "
                    "not found", "kubelet"),
]


def generate(out: Path, nodes: int, pods_per_node: int, seed: int = 7,
             shape: Shape | str = "plain") -> Path:
    """Write the cluster, streaming pods to disk: a 20,000-node fleet never sits in memory
    (operand pods, few per node, are built in memory by the scenario builder first)."""
    sh = SHAPES[shape] if isinstance(shape, str) else shape
    if sh.mustgather:
        from mustgather import write_mustgather  # the same cluster as must-gather output

        bundle = generate(out.parent / f"{out.name}.bundle", nodes, pods_per_node, seed,
                          replace(sh, mustgather=False))
        return write_mustgather(bundle, out)
    rng = random.Random(seed)
    (out / "cluster").mkdir(parents=True, exist_ok=True)
    gpu_count = int(nodes * GPU_FRACTION)
    node_objs = [node(n, rng, n < gpu_count, sh.operator) for n in range(nodes)]
    extra: dict[str, list[dict[str, Any]]] = {}
    files: dict[str, str] = {}
    operands: dict[str, list[dict[str, Any]]] = {}  # node -> operand pods
    if sh.operator:
        extra, files, operands = _operator_stack(node_objs[:gpu_count])
    dra = _Dra(node_objs, gpu_count, sh.scaled(nodes, sh.dra_nodes), sh) if sh.dra_nodes \
        else None
    if dra is not None:
        operands = dra.claim_pods
    pending = sh.pending or (Pending(max(1, nodes // 100), 8),)
    scaled = [replace(g, count=sh.scaled(nodes, g.count)) if sh.pending else g for g in pending]
    n_pending = sum(g.count for g in scaled)
    n_operand = sum(len(v) for v in operands.values()) if dra is None else 0
    workload = nodes * pods_per_node - n_pending - n_operand
    if not sh.pending:  # plain: today's layout, pods_per_node on every node plus the pending
        workload = nodes * pods_per_node
    ctl = _Controllers(sh, nodes, rng) if sh.deployments or sh.jobs else None
    sampled: list[dict[str, Any]] = []  # every Nth pod gets an event
    every = max(1, nodes * pods_per_node // 20000)
    warn_every = max(1, workload // sh.scaled(nodes, sh.other_warnings)) \
        if sh.other_warnings else 0
    warnings: list[dict[str, Any]] = []
    i = 0
    with open(out / "cluster" / "pods.json", "wb") as fh:
        fh.write(b'{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[')

        def put(p: dict[str, Any]) -> None:
            nonlocal i
            if i:
                fh.write(b",")
            fh.write(ENC.encode(p))
            if i % every == 0:
                sampled.append(p)
            i += 1

        k = 0
        for n, nd in enumerate(node_objs):
            gpu = n < gpu_count
            name = nd["metadata"]["name"]
            free = [int(nd["status"]["allocatable"].get("nvidia.com/gpu", "0"))]
            for op in operands.get(name, []):
                put(op)
            share = workload // nodes + (1 if n < workload % nodes else 0)
            if dra is not None and name in dra.claim_pods:
                share -= len(dra.claim_pods[name])
                gpu = False  # its GPUs are handed out by claims, not nvidia.com/gpu
            for _ in range(share):
                p = pod(i, rng, name, gpu, free, sh.namespaces, sh.gpu_share)
                if ctl is not None:
                    ctl.adopt(k, p)
                if (sh.runtime_class_share and "nvidia.com/gpu" in
                        p["spec"]["containers"][0]["resources"]["limits"]
                        and rng.random() < sh.runtime_class_share):
                    p["spec"]["runtimeClassName"] = "nvidia"
                if (sh.gpu_share >= 1 and p["status"]["phase"] == "Succeeded"
                        and "nvidia.com/gpu" in p["spec"]["containers"][0]["resources"]["limits"]):
                    _keep_running(p)  # a full fleet: no finished pod has freed its GPUs
                if warn_every and k % warn_every == warn_every // 2:
                    warnings.append(_warning(rng, p, len(warnings)))
                k += 1
                put(p)
        job_uids = {g.job: _uid(rng) for g in scaled if g.job}
        pending_objs = []
        for g in scaled:
            for j in range(g.count):
                p = _pending_pod(i, rng, g, j, nodes, sh.namespaces, job_uids.get(g.job, ""))
                if g.dra and dra is not None:
                    dra.ask_by_claim(p, g.gpus)
                pending_objs.append(p)
                put(p)
        fh.write(b"]}")
    if ctl is not None:
        ctl.finish()
        extra["deployments"] = extra.get("deployments", []) + ctl.deployments
        extra["replicasets"] = ctl.replicasets
        extra["jobs"] = ctl.jobs
    _write_list(out / "cluster" / "nodes.json", node_objs)
    if not sh.pending:  # plain: a sample of the pods, pending ones included, one event each
        events = [event(k, rng, p) for k, p in enumerate(sampled)]
    else:  # every pending pod has its scheduler events
        events = [event(k, rng, p) for k, p in enumerate(sampled) if "nodeName" in p["spec"]]
        for p in pending_objs:
            events += _failed_scheduling(rng, p, nodes, sh.failed_scheduling_per_pending)
    _write_list(out / "cluster" / "events.json", events + warnings + extra.pop("events", []))
    if dra is not None:
        extra["daemonsets"] = extra.get("daemonsets", []) + dra.b.cluster.get("daemonsets", [])
    for res in ("daemonsets", "deployments", "replicasets", "jobs", "statefulsets",
                "runtimeclasses", "resourcequotas", "configmaps", "clusterpolicies",
                "nvidiadrivers"):
        _write_list(out / "cluster" / f"{res}.json", extra.get(res, []))
    if dra is not None:
        for res, items in dra.objects().items():
            _write_list(out / "cluster" / f"{res}.json", items)
    for rel, text in files.items():
        f = out / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    (out / "manifest.json").write_text(json.dumps(
        {"format": "gpuxray-bundle/1", "collected_at": "2026-11-29T12:00:00Z",
         "collector": "bench/generate.py", "source": {"kind": "synthetic", "shape": sh.name},
         "operator_namespace": "gpu-operator", "errors": []}))
    return out


def _keep_running(p: dict[str, Any]) -> None:
    p["status"]["phase"] = "Running"
    for cs in p["status"].get("containerStatuses", []):
        cs["ready"] = True


def _failed_scheduling(rng: random.Random, p: dict[str, Any], nodes: int,
                       times: int) -> list[dict[str, Any]]:
    """The scheduler's events for a pending pod: one per retry whose message changed (the
    counts move as the fleet's pods come and go), as the event recorder keeps them."""
    out = []
    gpu_nodes = int(nodes * GPU_FRACTION)
    for t in range(times):
        e = event(0, rng, p)
        busy = gpu_nodes - t % 7
        rest = nodes - busy
        if p["spec"].get("affinity") or p["spec"].get("nodeSelector"):
            e["message"] = (f"0/{nodes} nodes are available: {1 if p['spec'].get('affinity') else busy // 3} "
                            f"Insufficient nvidia.com/gpu, {nodes - (1 if p['spec'].get('affinity') else busy // 3)} "
                            "node(s) didn't match Pod's node affinity/selector. preemption: "
                            f"0/{nodes} nodes are available: {nodes} No preemption victims found "
                            "for incoming pod.")
        else:
            e["message"] = (f"0/{nodes} nodes are available: {busy} Insufficient nvidia.com/gpu, "
                            f"{rest} node(s) had untolerated taint {{node-role.kubernetes.io/"
                            f"control-plane: }}. preemption: 0/{nodes} nodes are available: "
                            f"{busy} No preemption victims found for incoming pod, {rest} "
                            "Preemption is not helpful for scheduling.")
        e["count"] = 1 + t * 3
        out.append(e)
    return out


def _warning(rng: random.Random, p: dict[str, Any], k: int) -> dict[str, Any]:
    reason, msg, comp = WARNINGS[k % len(WARNINGS)]
    m = p["metadata"]
    e = event(k, rng, p)
    e.update({"reason": reason, "type": "Warning", "count": 1 + k % 40,
              "message": msg.format(pod=m["name"], ns=m["namespace"], uid=m["uid"]),
              "source": {"component": comp, "host": p["spec"].get("nodeName", "")},
              "reportingComponent": comp})
    return e


class _Dra:
    """The last ``count`` GPU nodes serve their GPUs through the NVIDIA DRA driver only
    (:mod:`gpuxray.scenarios.dra`): a ResourceSlice of 8 devices each, no ``nvidia.com/gpu``,
    the driver's DeviceClasses, templates and kubelet plugin, and ``dra_claims_per_node``
    running pods per node holding a device each through an allocated claim."""

    def __init__(self, node_objs: list[dict[str, Any]], gpu_count: int, count: int,
                 sh: Shape) -> None:
        from gpuxray.scenarios import dra as S
        from gpuxray.scenarios.builder import ClusterBuilder

        b = self.b = ClusterBuilder()
        S.add_device_classes(b)
        for ns in ("research", *(f"team-{t}" for t in range(sh.namespaces))):
            S.add_template(b, ns, "single-gpu")
            for g in (2, 4, 8):
                S.add_template(b, ns, f"gpus-{g}", [S.request(count=g)])
        self.claim_pods: dict[str, list[dict[str, Any]]] = {}
        for n in range(gpu_count - count, gpu_count):
            name = node_objs[n]["metadata"]["name"]
            node_objs[n] = S.dra_gpu_node(b, name)
            for d in range(sh.dra_claims_per_node):
                p, _claim = S.run_on(b, f"team-{(n + d) % sh.namespaces}", f"infer-{n}-{d}",
                                     name, [f"gpu-{d}"])
                self.claim_pods.setdefault(name, []).append(p)
        S.add_kubelet_plugin(b, count)
        b.cluster.pop("pods", None)
        b.cluster.pop("nodes", None)

    def ask_by_claim(self, p: dict[str, Any], gpus: int) -> None:
        """Turn pending GPU pod ``p`` into one asking through a claim from a template: the
        claim controller has created its claim, which waits for the scheduler to allocate."""
        from gpuxray.scenarios import dra as S

        c = p["spec"]["containers"][0]
        c["resources"]["limits"].pop("nvidia.com/gpu", None)
        c["resources"]["claims"] = [{"name": "gpu"}]
        template = "single-gpu" if gpus == 1 else f"gpus-{gpus}"
        p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": template}]
        m = p["metadata"]
        claim = f"{m['name']}-gpu-{m['uid'][:5]}"
        p["status"]["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": claim}]
        S.add_claim(self.b, m["namespace"], claim, [S.request(count=gpus)], owner=p)

    def objects(self) -> dict[str, list[dict[str, Any]]]:
        out = {r: v for r, v in self.b.cluster.items() if r != "daemonsets"}
        out.setdefault("computedomains", [])
        return out


def _operator_stack(gpu_nodes: list[dict[str, Any]]) -> tuple[
        dict[str, list[dict[str, Any]]], dict[str, str], dict[str, list[dict[str, Any]]]]:
    """The healthy GPU Operator deployment of :mod:`gpuxray.scenarios.operator` on these nodes:
    objects by resource, files (operand logs), and the operand pods by node."""
    from gpuxray.scenarios.builder import ClusterBuilder
    from gpuxray.scenarios.operator import add_gpu_operator

    class _Indexed(ClusterBuilder):
        def find(self, resource: str, name: str, namespace: str | None = None) -> Any:
            if resource == "nodes" and namespace is None:
                return self._nodes[name]
            return super().find(resource, name, namespace)

    b = _Indexed()
    b._nodes = {n["metadata"]["name"]: n for n in gpu_nodes}  # type: ignore[attr-defined]
    b.cluster["nodes"] = gpu_nodes
    add_gpu_operator(b, [n["metadata"]["name"] for n in gpu_nodes])
    by_node: dict[str, list[dict[str, Any]]] = {}
    for p in b.cluster.pop("pods", []):
        by_node.setdefault(p["spec"]["nodeName"], []).append(p)
    b.cluster.pop("nodes")
    return b.cluster, dict(b.files), by_node


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out", type=Path)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods-per-node", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--shape", choices=sorted(SHAPES), default="plain")
    a = ap.parse_args()
    generate(a.out, a.nodes, a.pods_per_node, a.seed, a.shape)


if __name__ == "__main__":
    main()
