"""Bundles for the report, exporter and golden tests, built with ClusterBuilder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.demo import build_demo
from gpuxray.scenarios.operator import add_gpu_operator

CLUSTER_RESOURCES = ("events", "runtimeclasses", "daemonsets", "deployments", "replicasets",
                     "jobs", "statefulsets", "resourcequotas", "configmaps")
# A pod name no real cluster would accept, but a hand-made or corrupted bundle may carry: every
# renderer must show it as text.
HOSTILE = "<script>alert(1)</script>|`x`*_[y](z)"


def healthy() -> ClusterBuilder:
    """Two 4-GPU nodes with a healthy GPU Operator, three GPUs in use by two running pods."""
    b = ClusterBuilder()
    for r in CLUSTER_RESOURCES:
        b.ensure(r)
    b.node("gpu-a", gpus=4)
    b.node("gpu-b", gpus=4)
    add_gpu_operator(b, ["gpu-a", "gpu-b"])
    b.pod("ml", "train-0", node="gpu-a", gpus=2)
    b.pod("ml", "infer-0", node="gpu-b", gpus=1)
    return b


def fragmented(pod: str = "train") -> ClusterBuilder:
    """Enough free GPUs in the cluster, none on one node (GX206) — a why with a verdict."""
    b = ClusterBuilder()
    for r in CLUSTER_RESOURCES:
        b.ensure(r)
    b.node("gpu-1", gpus=4)
    b.node("gpu-2", gpus=4)
    b.pod("ml", "a", node="gpu-1", gpus=3)
    b.pod("team-b", "b", node="gpu-2", gpus=3)
    b.pod("ml", pod, gpus=2)
    return b


def demo(root: Path) -> Path:
    return build_demo().write(root)


def require_binary(*names: str) -> str:
    """The first of ``names`` on PATH; skipped when absent, except in CI where it must exist."""
    for n in names:
        found = shutil.which(n)
        if found:
            return found
    if os.environ.get("CI"):
        pytest.fail(f"{names[0]} is required in CI (scripts/test installs it)")
    pytest.skip(f"{names[0]} not installed")
