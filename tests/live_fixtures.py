"""Scenario bundles and server helpers for the live-source and ``serve`` tests.

A cluster is built with ClusterBuilder, written as a bundle, served by ``gpuxray serve`` on a free
loopback port; kubectl and the live source then talk to it through a generated kubeconfig.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuxray.scenarios.builder import OPERATOR_NS, ClusterBuilder
from gpuxray.serve.faults import FaultPlan
from gpuxray.serve.server import BundleServer, kubeconfig_text
from gpuxray.serve.store import load_store

SECRET_TOKEN = "s3cr3t-value-that-must-not-leak"


def scenario() -> ClusterBuilder:
    """Three GPU nodes, one CPU node, the operator's operands with logs, a pending GPU pod."""
    b = ClusterBuilder()
    for i in (1, 2, 3):
        b.node(f"gpu-{i}", gpus=8,
               taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}])
    b.node("cpu-1")
    sel = {"nvidia.com/gpu.deploy.device-plugin": "true"}
    b.daemonset(OPERATOR_NS, "nvidia-device-plugin-daemonset", node_selector=sel, desired=3,
                init=["toolkit-validation"], labels={"app": "nvidia-device-plugin-daemonset"})
    b.daemonset(OPERATOR_NS, "nvidia-container-toolkit-daemonset", node_selector=sel, desired=3,
                labels={"app": "nvidia-container-toolkit-daemonset"})
    for i in (1, 2, 3):
        restarts = 3 if i == 2 else 0
        st = [{"name": "nvidia-device-plugin", "ready": True, "restartCount": restarts,
               "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0",
               "state": {"running": {"startedAt": "2026-11-29T11:00:00Z"}},
               "lastState": ({"terminated": {"exitCode": 1, "reason": "Error"}}
                             if restarts else {})}]
        init = [{"name": "toolkit-validation", "ready": True, "restartCount": 0,
                 "image": "nvcr.io/nvidia/gpu-operator-validator:v25.10.1",
                 "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]
        pod = b.pod(OPERATOR_NS, f"nvidia-device-plugin-daemonset-{i}", node=f"gpu-{i}",
                    containers=[b.container("nvidia-device-plugin", image="nvcr.io/nvidia/"
                                            "k8s-device-plugin:v0.17.0",
                                            env={"PASS_DEVICE_SPECS": "true",
                                                 "NVIDIA_VISIBLE_DEVICES": "all"})],
                    init_containers=[b.container("toolkit-validation")],
                    labels={"app": "nvidia-device-plugin-daemonset"},
                    container_statuses=st, init_statuses=init)
        b.log(OPERATOR_NS, pod["metadata"]["name"], "nvidia-device-plugin",
              "".join(f"I1129 11:00:{s:02d} main.go:1] line {s} of gpu-{i}\n" for s in range(40)))
        b.log(OPERATOR_NS, pod["metadata"]["name"], "toolkit-validation",
              "waiting for nvidia container stack to be setup\ntoolkit is ready\n")
        if restarts:
            b.log(OPERATOR_NS, pod["metadata"]["name"], "nvidia-device-plugin",
                  "E1129 10:59:00 main.go:9] failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND\n",
                  previous=True)
    b.pod("ml", "trainer-0", node="gpu-1", gpus=4,
          containers=[b.container("main", gpus=4, env={"WANDB_API_KEY": SECRET_TOKEN,
                                                       "NVIDIA_DRIVER_CAPABILITIES": "all"})],
          labels={"app": "trainer", "tier": "batch"})
    b.pod("ml", "trainer-1", node="gpu-2", gpus=8, labels={"app": "trainer", "tier": "batch"})
    pending = b.pod("ml", "big-job", gpus=16, labels={"app": "big-job", "tier": "batch"})
    b.event(pending, "FailedScheduling",
            "0/4 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
            "3 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available.")
    reboot = b.event(b.find("nodes", "gpu-2"), "Rebooted", "Node gpu-2 has been rebooted",
                     type="Warning", component="kubelet", host="gpu-2")
    reboot["involvedObject"]["uid"] = "gpu-2"  # kubelet names the node, not its uid, here
    b.runtimeclass("nvidia")
    b.quota("ml", "gpu-quota", {"requests.nvidia.com/gpu": "32"},
            {"requests.nvidia.com/gpu": "12"})
    b.configmap(OPERATOR_NS, "time-slicing-config", {"any": "version: v1\n"})
    b.custom("clusterpolicies", "ClusterPolicy", "cluster-policy",
             {"operator": {"defaultRuntime": "containerd"}, "driver": {"enabled": True}},
             {"state": "ready", "namespace": OPERATOR_NS})
    for kind in ("Deployment", "ReplicaSet", "StatefulSet", "Job"):
        b.workload(kind, "ml", f"w-{kind.lower()}", template=b.pod_template(gpus=1))
    return b


VERSION = {"clientVersion": {"gitVersion": "v1.32.4", "major": "1", "minor": "32"},
           "serverVersion": {"gitVersion": "v1.31.4", "major": "1", "minor": "31",
                             "platform": "linux/amd64"}}


def write_scenario(b: ClusterBuilder, root: Path) -> Path:
    """Write the bundle, with ``cluster/version.json`` as ``kubectl version -o json`` prints it."""
    b.write(root)
    (root / "cluster").mkdir(exist_ok=True)
    (root / "cluster" / "version.json").write_text(json.dumps(VERSION, indent=2))
    return root


def many_nodes(n: int) -> ClusterBuilder:
    b = ClusterBuilder()
    for i in range(n):
        b.node(f"gpu-{i:04d}", gpus=8)
    b.ensure("pods")
    return b


@contextlib.contextmanager
def served(bundle: Path, faults: tuple[str, ...] = ()) -> Iterator[BundleServer]:
    """Serve ``bundle`` on a free loopback port for the duration of the block."""
    store = load_store(bundle)
    server = BundleServer(store, "127.0.0.1", 0, FaultPlan.parse(faults)).start()
    try:
        yield server
    finally:
        server.close()
        store.close()


def write_kubeconfig(server: BundleServer, path: Path) -> Path:
    path.write_text(kubeconfig_text(server.url))
    return path


def kubectl_path() -> str:
    """The real kubectl; skipped outside CI when absent, a failure in CI."""
    found = shutil.which("kubectl")
    if not found:
        if os.environ.get("CI"):
            pytest.fail("kubectl is required in CI")
        pytest.skip("kubectl not installed")
    return found
