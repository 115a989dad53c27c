"""The shared operand walks of ``check`` answer as their one-by-one definitions do.

``scan_pods`` walks each pod's texts without building a PodText for those that match nothing
and cuts each distinct log's body once; ``node_coverage`` computes a DaemonSet's coverage
once for the nodes that look alike to it. Both must give exactly what the plain definitions
give (``pod_texts`` scanned text by text; ``coverage`` per node) on clusters whose operands
fail in many ways, whose nodes differ in labels and taints, and whose DaemonSets select by
affinity too.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gpuxray.checks.operator import operand_daemonsets
from gpuxray.engines.operator import coverage, node_coverage
from gpuxray.engines.podtext import PodMatch, pod_texts, scan_pod, scan_pods
from gpuxray.engines.signatures import default_matcher
from gpuxray.model.snapshot import Snapshot
from gpuxray.scenarios.builder import OPERATOR_NS, ClusterBuilder
from gpuxray.scenarios.operator import add_gpu_operator
from gpuxray.sources.bundle import load_bundle_dir

NODES = [f"gpu-{i}" for i in range(6)]
BROKEN = [
    {"driver": "gpu-1", "toolkit": "gpu-2", "handler": "gpu-3,gpu-4"},
    {"labels": "gpu-0", "taint": "gpu-1", "dcgm-exporter": "gpu-2", "runtime-hook": "gpu-3"},
    {"plugin-config-invalid": "gpu-4", "gfd-labels": "gpu-5", "mig": "gpu-0", "os-mix": "gpu-1"},
]


def _cluster(broken: dict[str, str]) -> ClusterBuilder:
    b = ClusterBuilder()
    b.node("cpu-0")
    for i, n in enumerate(NODES):
        taints = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
        if i % 3 == 2:
            taints.append({"key": "dedicated", "value": "ml", "effect": "NoExecute"})
        b.node(n, gpus=8, taints=taints, labels={"pool": "a" if i < 3 else "b"})
    add_gpu_operator(b, NODES, broken=broken)
    b.pod("ml", "train-0", node="gpu-0", gpus=4, container_statuses=[
        {"name": "main", "ready": False, "restartCount": 3,
         "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}},
         "lastState": {"terminated": {"reason": "Error", "exitCode": 1,
                                      "message": "CUDA error: no CUDA-capable device is "
                                                 "detected"}}}])
    b.log("ml", "train-0", "main", "RuntimeError: No CUDA GPUs are available\n")
    b.log("ml", "train-0", "main", "torch.cuda.is_available() returned False\r\n"
          "RuntimeError: No CUDA GPUs are available", previous=True)
    b.ensure("events")
    return b


def _snapshot(tmp_path: Path, broken: dict[str, str]) -> Snapshot:
    return load_bundle_dir(_cluster(broken).write(tmp_path / "b"))


def _reference(snap: Snapshot, pod: object) -> list[PodMatch]:
    m = default_matcher()
    return [PodMatch(replace(match, origin=t.source) if t.source else match, t)
            for t in pod_texts(snap, pod) for match in m.scan_text(t.text)]  # type: ignore[arg-type]


@pytest.mark.parametrize("broken", BROKEN, ids=["stages", "labels-taint", "config"])
def test_scan_pods_gives_what_each_text_scanned_gives(tmp_path: Path,
                                                      broken: dict[str, str]) -> None:
    snap = _snapshot(tmp_path, broken)
    pods = list(snap.pods)
    got = scan_pods(snap, pods)
    assert got == [_reference(snap, p) for p in pods]
    assert [scan_pod(snap, p) for p in pods] == got
    assert sum(map(len, got)) > 0  # failures were found, so the comparison compares something
    assert any(m.text.where == "log" for ms in got for m in ms)
    assert any(m.text.where == "status" for ms in got for m in ms)


@pytest.mark.parametrize("broken", BROKEN, ids=["stages", "labels-taint", "config"])
def test_node_coverage_equals_coverage_per_node(tmp_path: Path, broken: dict[str, str]) -> None:
    b = _cluster(broken)
    # one operand's template also selects by affinity: a label expression and a node name
    ds = b.find("daemonsets", "nvidia-dcgm-exporter", OPERATOR_NS)
    ds["spec"]["template"]["spec"]["affinity"] = {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]},
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["gpu-4"]}]},
        ]}}}
    snap = load_bundle_dir(b.write(tmp_path / "b"))
    daemonsets = operand_daemonsets(snap)
    assert len(daemonsets) >= 6
    seen = set()
    for ds_ in daemonsets:
        for node in snap.nodes:
            want = coverage(ds_, node)
            assert node_coverage(snap, ds_, node) == want, (ds_.metadata.name,
                                                            node.metadata.name)
            seen.add((want.covered, bool(want.untolerated), bool(want.selector_missing),
                      want.affinity_excluded))
    # covered nodes, untolerated taints, missing labels and affinity exclusions all occurred
    assert any(s[0] for s in seen) and any(s[1] for s in seen)
    assert any(s[2] for s in seen) and any(s[3] for s in seen)
