"""Node labels the GPU Operator stack reads and writes, and what their values mean.

Why it matters: the operator decides where operands run only through node labels (NFD's PCI label
→ ``nvidia.com/gpu.present`` → ``nvidia.com/gpu.deploy.<component>``), and a missing or paused
label makes a DaemonSet silently skip the node (seed §1; facts.md §5.2).
"""

from __future__ import annotations

from dataclasses import dataclass

NFD_PCI_LABELS = (
    "feature.node.kubernetes.io/pci-10de.present",
    "feature.node.kubernetes.io/pci-0302_10de.present",
    "feature.node.kubernetes.io/pci-0300_10de.present",
)
GPU_PRESENT = "nvidia.com/gpu.present"
DEPLOY_PREFIX = "nvidia.com/gpu.deploy."
DEPLOY_OPERANDS = "nvidia.com/gpu.deploy.operands"
WORKLOAD_CONFIG = "nvidia.com/gpu.workload.config"
UPGRADE_STATE = "nvidia.com/gpu-driver-upgrade-state"
MIG_CONFIG = "nvidia.com/mig.config"
MIG_CONFIG_STATE = "nvidia.com/mig.config.state"
MIG_CAPABLE = "nvidia.com/mig.capable"
MIG_STRATEGY = "nvidia.com/mig.strategy"
MPS_CAPABLE = "nvidia.com/mps.capable"
DEVICE_PLUGIN_CONFIG = "nvidia.com/device-plugin.config"
GPU_PRODUCT = "nvidia.com/gpu.product"
GPU_COUNT = "nvidia.com/gpu.count"
PAUSED_PREFIX = "paused-for-"


@dataclass(frozen=True, slots=True)
class LabelInfo:
    key: str
    set_by: str
    meaning: str
    source: str = ""


OP = "NVIDIA/gpu-operator@v26.7.0"
DP = "NVIDIA/k8s-device-plugin@v0.20.0"
MIGP = "NVIDIA/mig-parted@v0.15.0:pkg/mig/reconfigure/reconfigure.go"
_SM = f"{OP}:controllers/state_manager.go"
_NL = f"{OP}:controllers/nodelabeling_controller.go"

LABELS: tuple[LabelInfo, ...] = (
    LabelInfo(NFD_PCI_LABELS[0], "NFD", "the node has an NVIDIA (vendor 10de) PCI device",
              f"{_SM} (gpuNodeLabels)"),
    LabelInfo(GPU_PRESENT, "operator",
              "true when an NFD NVIDIA PCI label is true; false (and deploy labels removed) "
              "when it disappears", f"{_NL} (reconcileCommonGPULabel, updateGPUStateLabels)"),
    LabelInfo(DEPLOY_PREFIX + "<component>", "operator",
              "nodeSelector of each operand DaemonSet; `false` opts the node out, "
              "`paused-for-*` pauses it", f"{_SM}; {OP}:assets/*/0500_daemonset.yaml"),
    LabelInfo(DEPLOY_OPERANDS, "user", "`false` removes every deploy label from the node",
              f"{_SM}"),
    LabelInfo(WORKLOAD_CONFIG, "user/operator",
              "container | vm-passthrough | vm-vgpu: which operand set the node gets", f"{_SM}"),
    LabelInfo(UPGRADE_STATE, "driver upgrade controller",
              "state of the driver upgrade state machine on the node",
              f"{OP}:vendor/github.com/NVIDIA/k8s-operator-libs/pkg/upgrade/consts.go"),
    LabelInfo(MIG_CONFIG, "user/operator", "name of the mig-parted config to apply", MIGP),
    LabelInfo(MIG_CONFIG_STATE, "mig-manager", "pending | rebooting | success | failed", MIGP),
    LabelInfo(DEVICE_PLUGIN_CONFIG, "user",
              "key in the device-plugin ConfigMap the config-manager selects for this node",
              f"{DP}:cmd/config-manager/main.go"),
    LabelInfo(GPU_PRODUCT, "GFD", "GPU product name (with -SHARED when shared and not renamed; "
                                  "<model>-MIG-<profile> under mig.strategy=single)",
              f"{DP}:internal/lm/resource.go, internal/lm/mig-strategy.go"),
    LabelInfo(GPU_COUNT, "GFD", "GPU count: physical GPUs, except under mig.strategy=single "
                                "where it counts MIG devices",
              f"{DP}:internal/lm/mig-strategy.go (labelers built with counts[name])"),
    LabelInfo(MIG_CAPABLE, "GFD", "the GPU supports MIG", f"{DP}:internal/lm/nvml.go"),
    LabelInfo(MPS_CAPABLE, "GFD", "MPS sharing configured; schedules the MPS control daemon",
              f"{DP}:internal/lm/nvml.go (mps.capable labeler)"),
)

# nvidia.com/gpu-driver-upgrade-state values (k8s-operator-libs upgrade/consts.go; facts.md §5.2)
UPGRADE_STATES: dict[str, str] = {
    "": "unknown",
    "upgrade-required": "an upgrade is needed",
    "cordon-required": "node will be cordoned",
    "wait-for-jobs-required": "waiting for GPU jobs to finish",
    "pod-deletion-required": "GPU pods will be deleted",
    "drain-required": "node will be drained",
    "node-maintenance-required": "waiting for node maintenance",
    "post-maintenance-required": "post-maintenance step",
    "pod-restart-required": "driver pod will restart",
    "validation-required": "waiting for validation",
    "uncordon-required": "node will be uncordoned",
    "upgrade-done": "upgrade finished",
    "upgrade-failed": "upgrade failed: the state machine stops here until fixed",
}
UPGRADE_FAILED = "upgrade-failed"

# nvidia.com/mig.config.state values (mig-parted reconfigure.go; facts.md §5.2)
MIG_STATES: dict[str, str] = {
    "pending": "reconfiguration requested or in progress",
    "rebooting": "node reboots to apply the layout",
    "success": "layout applied",
    "failed": "reconfiguration failed",
}


# Citations of the tables whose entries are plain values.
SOURCES: dict[str, str] = {
    "NFD_PCI_LABELS": f"{_SM} (gpuNodeLabels)",
    "UPGRADE_STATES": f"{OP}:vendor/github.com/NVIDIA/k8s-operator-libs/pkg/upgrade/consts.go",
    "MIG_STATES": MIGP,
}


def has_nvidia_pci(labels: dict[str, str]) -> bool:
    return any(labels.get(k) == "true" for k in NFD_PCI_LABELS)


def deploy_value(labels: dict[str, str], component: str) -> str | None:
    return labels.get(DEPLOY_PREFIX + component)


def is_opted_out(value: str | None) -> bool:
    """``false`` and ``paused-for-*`` are deliberate: the operand is meant to be absent."""
    return value is not None and (value == "false" or value.startswith(PAUSED_PREFIX))
