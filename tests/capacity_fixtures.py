"""Scenario bundles for the capacity tests (usage, sharing, MIG), built with ClusterBuilder."""

from __future__ import annotations

from pathlib import Path

import yaml

from gpuxray.scenarios.builder import OPERATOR_NS, ClusterBuilder
from gpuxray.scenarios.dcgm import Gpu, scrape

A100_80 = "NVIDIA-A100-SXM4-80GB"


def usage_cluster(*, scrapes: bool = True) -> tuple[ClusterBuilder, dict[str, list[Gpu]]]:
    """gpu-1 (8 GPUs): ml/train-0 holds GPUs 0-1 idle with 13.7 GiB each (the seed's card),
    ml/infer-0 holds GPU 2 busy; gpu-2 (4 GPUs): research/nb-0 holds GPU 0 at 0 % with only
    200 MiB (not idle by the default 1024 MiB threshold), research/dev-0 holds GPU 1 at 0.5 %
    with 2 GiB (idle)."""
    b = ClusterBuilder()
    b.node("gpu-1", gpus=8, product=A100_80)
    b.node("gpu-2", gpus=4, product=A100_80)
    b.pod("ml", "train-0", node="gpu-1", gpus=2)
    b.pod("ml", "infer-0", node="gpu-1", gpus=1)
    b.pod("research", "nb-0", node="gpu-2", gpus=1)
    b.pod("research", "dev-0", node="gpu-2", gpus=1)
    b.pod("ml", "done-0", node="gpu-2", gpus=1, phase="Succeeded")
    gpus = {
        "gpu-1": [Gpu(0, util=0, fb_used=14029, power=21, namespace="ml", pod="train-0",
                      container="main"),
                  Gpu(1, util=0, fb_used=14029, power=22, namespace="ml", pod="train-0",
                      container="main"),
                  Gpu(2, util=87, fb_used=30000, power=310, namespace="ml", pod="infer-0",
                      container="main"),
                  *[Gpu(i, util=0, fb_used=0, power=55) for i in range(3, 8)]],
        "gpu-2": [Gpu(0, util=0, fb_used=200, power=50, namespace="research", pod="nb-0",
                      container="main"),
                  Gpu(1, util=0.5, fb_used=2048, power=52, namespace="research", pod="dev-0",
                      container="main"),
                  *[Gpu(i, util=0, fb_used=0, power=50) for i in range(2, 4)]],
    }
    if scrapes:
        for node, gl in gpus.items():
            b.metrics(node, scrape(node, gl))
    return b, gpus


def plugin_config(replicas: int, *, rename: bool = False, fail_gt_one: bool | None = None,
                  mps: bool = False) -> str:
    shared: dict[str, object] = {"resources": [{"name": "nvidia.com/gpu",
                                                "replicas": replicas}]}
    if rename:
        shared["renameByDefault"] = True
    if fail_gt_one is not None:
        shared["failRequestsGreaterThanOne"] = fail_gt_one
    doc = {"version": "v1", "flags": {"migStrategy": "none"},
           "sharing": {"mps" if mps else "timeSlicing": shared}}
    return yaml.safe_dump(doc, sort_keys=False)


def sharing_cluster(*, fail_gt_one: bool | None = None, lost: int = 0) -> ClusterBuilder:
    """ts-1: 8 GPUs time-sliced ×10 (80 advertised, minus ``lost``), chosen by the node label;
    ts-2: 4 GPUs under the default key with renameByDefault (nvidia.com/gpu.shared ×4);
    plain-1: 2 unshared GPUs. A pod on ts-1 holds 3 replicas."""
    b = ClusterBuilder()
    b.custom("clusterpolicies", "ClusterPolicy", "cluster-policy",
             {"devicePlugin": {"config": {"name": "device-plugin-config",
                                          "default": "shared-4"}}},
             {"state": "ready", "namespace": OPERATOR_NS})
    b.configmap(OPERATOR_NS, "device-plugin-config", {
        "tenfold": plugin_config(10, fail_gt_one=fail_gt_one),
        "shared-4": plugin_config(4, rename=True),
    })
    b.node("ts-1", gpus=8, replicas=10, product=A100_80, capacity=80 - lost,
           allocatable=80 - lost, labels={"nvidia.com/device-plugin.config": "tenfold"})
    b.node("ts-2", gpus=4, replicas=4, product=A100_80, resource="nvidia.com/gpu.shared",
           labels={"nvidia.com/gpu.count": "4", "nvidia.com/gpu.replicas": "4",
                   "nvidia.com/gpu.sharing-strategy": "time-slicing",
                   "nvidia.com/gpu.memory": "81920",
                   "nvidia.com/gpu.product": A100_80 + "-SHARED"})
    b.node("plain-1", gpus=2, product=A100_80)
    b.pod("ml", "greedy-0", node="ts-1", gpus=3)
    b.pod("ml", "small-0", node="ts-1", gpus=1)
    b.pod("ml", "shared-0", node="ts-2", gpus=1, resource="nvidia.com/gpu.shared")
    return b


MIG_PARTED = """version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false
  all-1g.5gb:
    - device-filter: ["0x20B010DE", "0x20B110DE", "0x20F110DE", "0x20F610DE"]
      devices: all
      mig-enabled: true
      mig-devices:
        "1g.5gb": 7
    - device-filter: ["0x20B210DE", "0x20B510DE"]
      devices: all
      mig-enabled: true
      mig-devices:
        "1g.10gb": 7
  all-balanced:
    - device-filter: ["0x20B010DE", "0x20B110DE", "0x20F110DE", "0x20F610DE"]
      devices: all
      mig-enabled: true
      mig-devices:
        "1g.5gb": 2
        "2g.10gb": 1
        "3g.20gb": 1
  custom-half:
    - devices: [0, 1]
      mig-enabled: true
      mig-devices:
        "3g.20gb": 2
    - devices: [2, 3]
      mig-enabled: false
"""


def mig_cluster() -> ClusterBuilder:
    """mig-1 (4 × A100-40GB, all-1g.5gb, mixed): 1 memory slice (5 GB) unusable per GPU;
    mig-2 (4 × A100-40GB, all-balanced): no waste; mig-3 (4 × A100-40GB, custom-half): GPUs 0-1
    as 2 × 3g.20gb leave one compute slice each; mig-4 asks for a config that does not exist."""
    b = ClusterBuilder()
    b.configmap(OPERATOR_NS, "default-mig-parted-config", {"config.yaml": MIG_PARTED})
    mixed = {"nvidia.com/mig.strategy": "mixed", "nvidia.com/gpu.memory": "40960",
             "nvidia.com/mig.config.state": "success"}
    b.node("mig-1", gpus=4, product="NVIDIA-A100-SXM4-40GB", resource="nvidia.com/mig-1g.5gb",
           capacity=28, labels={**mixed, "nvidia.com/mig.config": "all-1g.5gb",
                                "nvidia.com/gpu.count": "4",
                                "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"})
    b.node("mig-2", gpus=4, product="NVIDIA-A100-SXM4-40GB",
           labels={**mixed, "nvidia.com/mig.config": "all-balanced"})
    b.node("mig-3", gpus=4, product="NVIDIA-A100-SXM4-40GB",
           labels={**mixed, "nvidia.com/mig.config": "custom-half"})
    b.node("mig-4", gpus=4, product="NVIDIA-A100-SXM4-40GB",
           labels={**mixed, "nvidia.com/mig.config": "all-7g.40gb"})
    return b


def write(b: ClusterBuilder, tmp: Path, name: str = "bundle") -> Path:
    return b.write(tmp / name)
