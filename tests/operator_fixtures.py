"""Scenario helpers for the operator/runtime/triage tests: a GPU cluster with the operator."""

from __future__ import annotations

from pathlib import Path

from gpuxray.model.finding import Finding, Severity, Status
from gpuxray.model.snapshot import Snapshot
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.operator import add_gpu_operator
from gpuxray.sources.bundle import load_bundle_dir

GPU_NODES = ["gpu-0", "gpu-1"]
HEALTHY_VERSION = "v26.7.1"


def cluster(broken: dict[str, str] | None = None, *, version: str = HEALTHY_VERSION,
            product: str = "NVIDIA-A100-SXM4-80GB", workloads: bool = True) -> ClusterBuilder:
    """A cpu node, two 8-GPU nodes with the operator, and a running GPU training pod."""
    b = ClusterBuilder()
    b.node("cpu-0")
    for n in GPU_NODES:
        b.node(n, gpus=8, product=product,
               taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}])
    add_gpu_operator(b, GPU_NODES, version=version, broken=broken)
    if workloads:
        b.pod("ml", "train-0", node="gpu-0", gpus=4,
              tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists",
                            "effect": "NoSchedule"}])
        b.pod("web", "frontend", node="cpu-0",
              containers=[b.container("nginx", image="nginx:1.27")])
    b.ensure("events")
    b.ensure("configmaps")
    b.ensure("deployments")
    b.ensure("runtimeclasses")
    return b


def snapshot(b: ClusterBuilder, tmp_path: Path, name: str = "bundle") -> Snapshot:
    return load_bundle_dir(b.write(tmp_path / name))


def failing(findings: list[Finding], min_sev: Severity = Severity.WARNING) -> list[Finding]:
    return [f for f in findings if f.status == Status.FAIL and f.severity >= min_sev]


def codes_subjects(findings: list[Finding]) -> set[tuple[str, str, str]]:
    return {(f.code, f.subject.kind, f.subject.name) for f in findings}
