"""Gate 1 (seed §2, §4): `why` names the right leaf, and `check` agrees, for each cause."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuxray.scenarios.builder import ClusterBuilder
from whole_pods import also_from_whole_pods

TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
TOL = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
INSUFFICIENT = ("0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes "
                "are available: 3 No preemption victims found for incoming pod.")

Run = Callable[..., tuple[int, Any]]


def base(**node_kw: Any) -> ClusterBuilder:
    b = ClusterBuilder()
    b.node("cpu-1")
    for res in ("pods", "events", "runtimeclasses", "resourcequotas", "deployments", "replicasets",
                "jobs", "statefulsets", "daemonsets"):
        b.ensure(res)
    return b


def why(gx: Run, bundle: Path, target: str) -> dict[str, Any]:
    code, doc = gx("why", target, "--bundle", str(bundle), "-o", "json")
    assert also_from_whole_pods(gx, "why", target, "--bundle", str(bundle), "-o", "json") == (
        code, doc)
    assert doc["schema"] == "gpuxray/v1"
    assert code == (1 if doc["verdict"] else 0)
    return doc


def check_codes(gx: Run, bundle: Path) -> set[tuple[str, str, str]]:
    _, doc = gx("check", "--bundle", str(bundle), "-o", "json")
    return {(f["code"], f["status"], f["subject"]["name"]) for f in doc["findings"]}


def test_untolerated_taint(gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4, taints=[TAINT])
    b.node("gpu-2", gpus=4, taints=[TAINT])
    p = b.pod("ml", "train", gpus=1, tolerations=[])
    b.event(p, "FailedScheduling", "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, "
            "2 node(s) had untolerated taint {nvidia.com/gpu: present}.")
    bundle = write_bundle(b)
    doc = why(gx, bundle, "ml/train")
    v = doc["verdict"]
    assert v["code"] == "GX201" and v["subject"] == {"kind": "Pod", "name": "train",
                                                     "namespace": "ml"}
    assert v["params"]["excluded"] == 2
    assert {n["reason"] for n in v["params"]["nodes"].values()} == {"taint"}
    assert ("GX201", "fail", "train") in check_codes(gx, bundle)


def test_selector_mismatch(gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4)
    b.pod("ml", "train", gpus=1, node_selector={"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"})
    code, doc = gx("why", "train", "-n", "ml", "--bundle", str(write_bundle(b)), "-o", "json")
    assert code == 1
    assert doc["verdict"]["code"] == "GX201"
    assert doc["verdict"]["params"]["nodes"]["gpu-1"]["reason"] == "selector"


def test_required_affinity_mismatch(gx: Run,
                                    write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4)
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "nvidia.com/gpu.memory", "operator": "Gt", "values": ["90000"]}]}]}}}
    b.pod("ml", "train", gpus=1, affinity=aff)
    doc = why(gx, write_bundle(b), "ml/train")
    assert doc["verdict"]["code"] == "GX201"
    assert doc["verdict"]["params"]["nodes"]["gpu-1"]["reason"] == "affinity"


def test_name_absent(gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4, advertise=False)  # labelled GPU node, plugin never registered
    p = b.pod("ml", "train", gpus=1)
    b.event(p, "FailedScheduling", INSUFFICIENT)
    bundle = write_bundle(b)
    v = why(gx, bundle, "ml/train")["verdict"]
    assert v["code"] == "GX202"
    assert v["params"]["absent"] == ["gpu-1"] and v["params"]["zero"] == []
    assert ("GX202", "fail", "train") in check_codes(gx, bundle)


def test_capacity_zero_after_grace(gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4, capacity=0, allocatable=0)
    b.pod("ml", "train", gpus=1)
    v = why(gx, write_bundle(b), "ml/train")["verdict"]
    assert v["code"] == "GX202"
    assert v["params"]["zero"] == ["gpu-1"] and v["params"]["absent"] == []


def test_unhealthy_devices(gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4, capacity=4, allocatable=2)
    b.pod("ml", "holder", node="gpu-1", gpus=2)
    b.pod("ml", "train", gpus=2)
    bundle = write_bundle(b)
    v = why(gx, bundle, "ml/train")["verdict"]
    assert v["code"] == "GX203"
    assert (v["params"]["capacity"], v["params"]["allocatable"], v["params"]["lost"]) == (4, 2, 2)
    assert v["params"]["disconnected"] is False
    assert ("GX203", "fail", "train") in check_codes(gx, bundle)


def test_plugin_just_disconnected(gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4, capacity=4, allocatable=0)
    b.pod("ml", "train", gpus=1)
    v = why(gx, write_bundle(b), "ml/train")["verdict"]
    assert v["code"] == "GX203"
    assert v["params"]["disconnected"] is True and v["params"]["lost"] == 4


def test_exhausted(gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4)
    b.node("gpu-2", gpus=4)
    b.pod("ml", "a", node="gpu-1", gpus=4)
    b.pod("ml", "b", node="gpu-2", gpus=3)
    b.pod("ml", "c", node="gpu-2", gpus=1)
    b.pod("ml", "done", node="gpu-2", gpus=4, phase="Succeeded")  # terminal: holds nothing
    b.pod("ml", "train", gpus=1)
    bundle = write_bundle(b)
    v = why(gx, bundle, "ml/train")["verdict"]
    assert v["code"] == "GX204"
    assert (v["params"]["allocated"], v["params"]["allocatable"]) == (8, 8)
    assert sorted(v["params"]["holders"]) == ["ml/a×4@gpu-1", "ml/b×3@gpu-2", "ml/c×1@gpu-2"]
    assert ("GX204", "fail", "train") in check_codes(gx, bundle)


def test_request_exceeds_node_size(gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=8)
    b.node("gpu-2", gpus=4)
    b.pod("ml", "train", gpus=16)
    v = why(gx, write_bundle(b), "ml/train")["verdict"]
    assert v["code"] == "GX205"
    assert (v["params"]["requested"], v["params"]["largest"]) == (16, 8)


def test_fragmented(gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4)
    b.node("gpu-2", gpus=4)
    b.pod("ml", "a", node="gpu-1", gpus=2)
    b.pod("ml", "b", node="gpu-2", gpus=2)
    b.pod("ml", "train", gpus=4)
    bundle = write_bundle(b)
    v = why(gx, bundle, "ml/train")["verdict"]
    assert v["code"] == "GX206"
    assert (v["params"]["free_total"], v["params"]["max_free"]) == (4, 2)
    assert ("GX206", "fail", "train") in check_codes(gx, bundle)


def test_resource_name_mismatch(gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4, replicas=4, resource="nvidia.com/gpu.shared")
    b.pod("ml", "train", gpus=1)
    bundle = write_bundle(b)
    v = why(gx, bundle, "ml/train")["verdict"]
    assert v["code"] == "GX207"
    assert v["params"]["advertised"] == "nvidia.com/gpu.shared"
    assert ("GX207", "fail", "train") in check_codes(gx, bundle)


def test_healthy_running_pod_has_no_verdict(gx: Run,
                                            write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4)
    b.pod("ml", "train", node="gpu-1", gpus=2)
    bundle = write_bundle(b)
    doc = why(gx, bundle, "ml/train")
    assert doc["verdict"] is None
    assert [s["result"] for s in doc["path"] if s["result"] == "fail"] == []
    assert not {c for c in check_codes(gx, bundle) if c[0].startswith("GX2")}


def test_pending_pod_that_fits_now_has_no_verdict(
        gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4)
    b.pod("ml", "train", gpus=2)
    doc = why(gx, write_bundle(b), "ml/train")
    assert doc["verdict"] is None and "fits" in doc["path"][-1]["detail"]


def test_cpu_not_gpu_is_not_blamed_on_gpus(gx: Run,
                                           write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4, cpu="8")
    c = b.container("main", gpus=1, requests={"cpu": "64"})
    b.pod("ml", "train", containers=[c])
    doc = why(gx, write_bundle(b), "ml/train")
    assert doc["verdict"] is None
    assert doc["path"][-1]["result"] == "fail" and "cpu" in doc["path"][-1]["detail"]


def test_real_cause_differs_from_event_line(gx: Run,
                                            write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    """Seed §4: the same Insufficient line hides three different causes."""
    verdicts = set()
    for cap, alloc, held in ((0, 0, 0), (4, 1, 1), (4, 4, 4)):
        b = base()
        b.node("gpu-1", gpus=4, capacity=cap, allocatable=alloc)
        if held:
            b.pod("ml", "holder", node="gpu-1", gpus=held)
        p = b.pod("ml", "train", gpus=1)
        b.event(p, "FailedScheduling", INSUFFICIENT)
        verdicts.add(why(gx, write_bundle(b), "ml/train")["verdict"]["code"])
    assert verdicts == {"GX202", "GX203", "GX204"}


def test_quota_exceeded_on_deployment(gx: Run,
                                      write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4)
    dep = b.workload("Deployment", "ml", "trainer", template=b.pod_template(gpus=2))
    rs = b.workload("ReplicaSet", "ml", "trainer-6d9f7c8b5", template=b.pod_template(gpus=2),
                    owner=dep)
    b.quota("ml", "gpu-quota", {"requests.nvidia.com/gpu": "4"}, {"requests.nvidia.com/gpu": "4"})
    b.event(rs, "FailedCreate",
            'Error creating: pods "trainer-6d9f7c8b5-x2x4k" is forbidden: exceeded quota: '
            "gpu-quota, requested: requests.nvidia.com/gpu=2, used: requests.nvidia.com/gpu=4, "
            "limited: requests.nvidia.com/gpu=4", component="replicaset-controller", count=37)
    bundle = write_bundle(b)
    code, doc = gx("why", "deploy/ml/trainer", "--bundle", str(bundle), "-o", "json")
    assert code == 1
    v = doc["verdict"]
    assert v["code"] == "GX101"
    assert v["subject"] == {"kind": "ReplicaSet", "name": "trainer-6d9f7c8b5", "namespace": "ml"}
    assert (v["params"]["quota"], v["params"]["requested"], v["params"]["used"],
            v["params"]["limit"]) == ("gpu-quota", "2", "4", "4")
    assert ("GX101", "fail", "trainer-6d9f7c8b5") in check_codes(gx, bundle)


def test_missing_runtimeclass(gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4)
    b.runtimeclass("nvidia")
    b.pod("ml", "train", gpus=1, runtime_class="nvidia-cdi")
    bundle = write_bundle(b)
    v = why(gx, bundle, "ml/train")["verdict"]
    assert v["code"] == "GX102" and v["params"]["runtime_class"] == "nvidia-cdi"
    assert ("GX102", "fail", "train") in check_codes(gx, bundle)


def test_missing_runtimeclass_on_job_template(
        gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4)
    job = b.workload("Job", "ml", "bench", template=b.pod_template(gpus=1, runtime_class="nvidia"))
    b.event(job, "FailedCreate", 'Error creating: pods "bench-abcde" is forbidden: pod rejected: '
            'RuntimeClass "nvidia" not found', component="job-controller")
    code, doc = gx("why", "job/ml/bench", "--bundle", str(write_bundle(b)), "-o", "json")
    assert code == 1 and doc["verdict"]["code"] == "GX102"
    assert doc["verdict"]["subject"]["kind"] == "Job"


@pytest.mark.parametrize(("requests", "limits", "fragment"), [
    ({"nvidia.com/gpu": "500m"}, {"nvidia.com/gpu": "500m"}, "whole number"),
    ({"nvidia.com/gpu": "1"}, {"nvidia.com/gpu": "2"}, "differs"),
    ({"nvidia.com/gpu": "1"}, {}, "without a limit"),
])
def test_invalid_gpu_quantity(gx: Run, write_bundle: Callable[[ClusterBuilder], Path],
                              requests: dict[str, str], limits: dict[str, str],
                              fragment: str) -> None:
    b = base()
    b.node("gpu-1", gpus=4)
    c = b.container("main", requests=requests, limits=limits)
    b.pod("ml", "train", containers=[c])
    v = why(gx, write_bundle(b), "ml/train")["verdict"]
    assert v["code"] == "GX103" and v["params"]["container"] == "main"
    assert fragment in v["params"]["problem"]


def test_invalid_quantity_from_failedcreate(gx: Run,
                                            write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4)
    rs = b.workload("ReplicaSet", "ml", "half-5f6d", template=b.pod_template(gpus=1))
    b.event(rs, "FailedCreate", 'Error creating: Pod "half-5f6d-abcde" is invalid: '
            'spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: "500m": must '
            "be an integer", component="replicaset-controller")
    assert ("GX103", "fail", "half-5f6d") in check_codes(gx, write_bundle(b))


def test_why_text_output_shows_path(gx: Run,
                                    write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.node("gpu-1", gpus=4, capacity=0, allocatable=0)
    b.pod("ml", "train", gpus=1)
    code, out = gx("why", "ml/train", "--bundle", str(write_bundle(b)))
    assert code == 1
    assert "GX202" in out and "[fail]" in out and "[pass]" in out


def test_missing_nodes_input_is_unknown(gx: Run,
                                        write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = base()
    b.pod("ml", "train", gpus=1)
    b.remove("nodes")
    code, doc = gx("why", "ml/train", "--bundle", str(write_bundle(b)), "-o", "json")
    assert code == 3
    assert doc["verdict"]["status"] == "unknown" and "nodes" in doc["verdict"]["params"]["missing"]
