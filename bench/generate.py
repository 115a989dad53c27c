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
from pathlib import Path
from typing import Any

import msgspec

GPU_FRACTION = 0.8  # share of nodes that are GPU nodes
PRODUCTS = [("NVIDIA-A100-SXM4-80GB", 8, 81920), ("NVIDIA-H100-80GB-HBM3", 8, 81559),
            ("NVIDIA-L40S", 4, 46068)]
ENC = msgspec.json.Encoder()


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


def node(i: int, rng: random.Random, gpu: bool) -> dict[str, Any]:
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
        free_gpus: list[int]) -> dict[str, Any]:
    team = f"team-{i % 40}"
    name = f"job-{i:07d}"
    gpus = 0
    if gpu_node and free_gpus[0] > 0 and rng.random() < 0.5:
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


def _write_list(path: Path, items: list[dict[str, Any]]) -> None:
    with open(path, "wb") as fh:
        fh.write(b'{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[')
        for k, obj in enumerate(items):
            if k:
                fh.write(b",")
            fh.write(ENC.encode(obj))
        fh.write(b"]}")


def generate(out: Path, nodes: int, pods_per_node: int, seed: int = 7) -> Path:
    """Write the bundle, streaming pods to disk: a 20,000-node fleet never sits in memory."""
    rng = random.Random(seed)
    (out / "cluster").mkdir(parents=True, exist_ok=True)
    node_objs = []
    sampled: list[dict[str, Any]] = []  # every Nth pod gets an event
    every = max(1, nodes * pods_per_node // 20000)
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

        for n in range(nodes):
            gpu = n < nodes * GPU_FRACTION
            nd = node(n, rng, gpu)
            node_objs.append(nd)
            free = [int(nd["status"]["allocatable"].get("nvidia.com/gpu", "0"))]
            for _ in range(pods_per_node):
                put(pod(i, rng, nd["metadata"]["name"], gpu, free))
        for _ in range(max(1, nodes // 100)):  # a few pending GPU pods
            p = pod(i, rng, None, True, [8])
            p["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "8"
            put(p)
        fh.write(b"]}")
    _write_list(out / "cluster" / "nodes.json", node_objs)
    _write_list(out / "cluster" / "events.json",
                [event(k, rng, p) for k, p in enumerate(sampled)])
    for res in ("daemonsets", "deployments", "replicasets", "jobs", "statefulsets",
                "runtimeclasses", "resourcequotas", "configmaps", "clusterpolicies",
                "nvidiadrivers"):
        _write_list(out / "cluster" / f"{res}.json", [])
    (out / "manifest.json").write_text(json.dumps(
        {"format": "gpuxray-bundle/1", "collected_at": "2026-11-29T12:00:00Z",
         "collector": "bench/generate.py", "source": {"kind": "synthetic"},
         "operator_namespace": "gpu-operator", "errors": []}))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out", type=Path)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods-per-node", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    generate(a.out, a.nodes, a.pods_per_node, a.seed)


if __name__ == "__main__":
    main()
