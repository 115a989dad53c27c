"""Gate 2 runtime checks (GX302–GX306) and ``why``'s bound-pod branch (walk_runtime)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpuxray.checks.engine import run_all
from gpuxray.diagnose.runtime import walk_runtime
from gpuxray.model.diagnosis import Diagnosis
from gpuxray.model.finding import Finding, Status
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.operator import add_cdi_spec
from operator_fixtures import cluster, codes_subjects, snapshot

TOL = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def fails(b: ClusterBuilder, tmp_path: Path, *codes: str) -> list[Finding]:
    return [f for f in run_all(snapshot(b, tmp_path), codes) if f.status == Status.FAIL]


def crashed(name: str, message: str) -> dict[str, Any]:
    return {"name": name, "ready": False, "restartCount": 4, "image": "", "imageID": "",
            "state": {"waiting": {"reason": "CrashLoopBackOff",
                                  "message": f"back-off 40s restarting failed container={name}"}},
            "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "message": message}}}


def why(b: ClusterBuilder, tmp_path: Path, ns: str, name: str) -> tuple[Diagnosis, Finding | None]:
    snap = snapshot(b, tmp_path)
    pod = snap.pod_by_key[(ns, name)]
    d = Diagnosis(f"{ns}/{name}", ns, name)
    return d, walk_runtime(snap, pod, d)


# ----- GX303 ------------------------------------------------------------------------------
def test_visible_devices_without_limits(tmp_path: Path) -> None:
    b = cluster()
    b.pod("ml", "sneaky", node="gpu-0", tolerations=TOL, containers=[b.container(
        "main", env={"NVIDIA_VISIBLE_DEVICES": "all"}, image="python:3.12")])
    b.pod("ml", "void-ok", node="gpu-0", tolerations=TOL, containers=[b.container(
        "main", env={"NVIDIA_VISIBLE_DEVICES": "void"}, image="python:3.12")])
    fs = fails(b, tmp_path, "GX303")
    assert codes_subjects(fs) == {("GX303", "Pod", "sneaky")}
    assert fs[0].params["container"] == "main"


def test_cuda_image_without_gpu_is_left_to_why(tmp_path: Path) -> None:
    b = cluster()
    b.pod("ml", "cuda-nogpu", node="gpu-1", tolerations=TOL, containers=[b.container(
        "main", image="nvcr.io/nvidia/cuda:12.6.2-base-ubuntu22.04")])
    b.pod("ml", "annotated", node="gpu-1", tolerations=TOL, containers=[b.container(
        "main", image="python:3.12")])
    b.find("pods", "annotated", "ml")["metadata"]["annotations"]["nvidia.com/gpu-profile"] = "x"
    # a sidecar without a GPU next to a container that has one is fine
    b.pod("ml", "with-sidecar", node="gpu-1", tolerations=TOL, containers=[
        b.container("main", gpus=1), b.container("log", image="nvcr.io/nvidia/pytorch:24.10-py3")])
    fs = fails(b, tmp_path, "GX303")
    assert codes_subjects(fs) == {("GX303", "Pod", "annotated")}
    _d, verdict = why(b, tmp_path / "why", "ml", "cuda-nogpu")
    assert verdict is not None and verdict.code == "GX303"


# ----- GX304 / GX306 -------------------------------------------------------------------------
def test_nvml_version_mismatch_in_container_status(tmp_path: Path) -> None:
    b = cluster()
    b.pod("ml", "train-1", node="gpu-0", gpus=1, tolerations=TOL, container_statuses=[crashed(
        "main", "Failed to initialize NVML: Driver/library version mismatch\nNVML library "
                "version: 580.105")])
    fs = fails(b, tmp_path, "GX304", "GX306")
    assert codes_subjects(fs) == {("GX304", "Pod", "train-1")}
    assert fs[0].params["cause"] == "nvml-mismatch"


def test_device_access_lost_in_logs(tmp_path: Path) -> None:
    b = cluster()
    b.log("ml", "train-0", "main", "epoch 12 loss 0.31\n$ nvidia-smi\nFailed to initialize NVML: "
                                   "Unknown Error\n")
    fs = fails(b, tmp_path, "GX304", "GX306")
    assert codes_subjects(fs) == {("GX306", "Pod", "train-0")}
    assert fs[0].evidence[0].source == "logs/ml/train-0/main.log"


# ----- GX305 --------------------------------------------------------------------------------
def test_cdi_unresolvable_event(tmp_path: Path) -> None:
    b = cluster()
    pod = b.pod("ml", "cdi-pod", node="gpu-1", gpus=1, tolerations=TOL, phase="Pending",
                container_statuses=[{"name": "main", "ready": False, "restartCount": 0,
                                     "state": {"waiting": {"reason": "CreateContainerError"}}}])
    b.event(pod, "Failed", "Error: failed to create containerd container: CDI device injection "
            "failed: unresolvable CDI devices nvidia.com/gpu=GPU-7f3c2a1e-9b7d-4c61-8e0a-"
            "1f2e3d4c5b6a", component="kubelet", host="gpu-1")
    fs = fails(b, tmp_path, "GX305")
    assert codes_subjects(fs) == {("GX305", "Pod", "cdi-pod")}


def test_no_cdi_spec_on_node_with_host_files(tmp_path: Path) -> None:
    b = cluster()
    for n in ("gpu-0", "gpu-1"):
        b.host_file(n, "etc/containerd/config.toml", "version = 2\n")
    add_cdi_spec(b, "gpu-1")
    fs = fails(b, tmp_path / "on", "GX305")
    assert codes_subjects(fs) == {("GX305", "Node", "gpu-0")}
    cp = b.find("clusterpolicies", "cluster-policy")
    cp["spec"]["cdi"]["enabled"] = False
    assert fails(b, tmp_path / "off", "GX305") == []


# ----- why, gate 2 ------------------------------------------------------------------------
def test_why_healthy_bound_pod_has_no_verdict(tmp_path: Path) -> None:
    d, verdict = why(cluster(), tmp_path, "ml", "train-0")
    assert verdict is None
    assert {s.result for s in d.path} <= {"pass", "info"}
    assert any(s.step.startswith("gate 2: GPU requested") for s in d.path)


def test_why_handler_missing_for_runtimeclass_pod(tmp_path: Path) -> None:
    b = cluster({"handler": "gpu-0"})
    pod = b.pod("ml", "legacy", node="gpu-0", gpus=1, tolerations=TOL, runtime_class="nvidia",
                phase="Pending", container_statuses=[])
    b.event(pod, "FailedCreatePodSandBox", "Failed to create pod sandbox: rpc error: code = "
            "Unknown desc = failed to get sandbox runtime: no runtime for \"nvidia\" is "
            "configured", component="kubelet", host="gpu-0")
    d, verdict = why(b, tmp_path, "ml", "legacy")
    assert verdict is not None and verdict.code == "GX301"
    assert (verdict.subject.kind, verdict.subject.name) == ("Pod", "legacy")
    assert d.path[[s.step for s in d.path].index("gate 2: sandbox and runtime handler")
                  ].result == "fail"


def test_why_operands_blocked_on_node(tmp_path: Path) -> None:
    b = cluster({"driver": "gpu-1:secure-boot"})
    b.pod("ml", "late", node="gpu-1", gpus=1, tolerations=TOL, phase="Pending",
          container_statuses=[{"name": "main", "ready": False, "restartCount": 0,
                               "state": {"waiting": {"reason": "ContainerCreating"}}}])
    _d, verdict = why(b, tmp_path, "ml", "late")
    assert verdict is not None and verdict.code == "GX302"
    assert verdict.subject.name == "late" and verdict.params["node"] == "gpu-1"


@pytest.mark.parametrize(("message", "code"), [
    ("Failed to initialize NVML: Unknown Error", "GX306"),
    ("Failed to initialize NVML: Driver/library version mismatch", "GX304"),
    ("OCI runtime create failed: runc create failed: unable to start container process: error "
     "during container init: error running hook #0: error running hook: exit status 1, stdout: "
     ", stderr: nvidia-container-cli: initialization error: nvml error: driver not loaded",
     "GX307"),
])
def test_why_container_level_leaf(tmp_path: Path, message: str, code: str) -> None:
    b = cluster()
    b.pod("ml", "broken", node="gpu-0", gpus=1, tolerations=TOL,
          container_statuses=[crashed("main", message)])
    _d, verdict = why(b, tmp_path, "ml", "broken")
    assert verdict is not None and verdict.code == code
    assert verdict.subject.name == "broken"


def test_why_no_gpu_in_limits(tmp_path: Path) -> None:
    b = cluster()
    b.pod("ml", "forgot", node="gpu-0", tolerations=TOL, containers=[b.container(
        "main", image="nvcr.io/nvidia/pytorch:24.10-py3")])
    _d, verdict = why(b, tmp_path, "ml", "forgot")
    assert verdict is not None and verdict.code == "GX303"


def test_why_cpu_pod_is_fine(tmp_path: Path) -> None:
    _d, verdict = why(cluster(), tmp_path, "web", "frontend")
    assert verdict is None
