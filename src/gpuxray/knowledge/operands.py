"""The GPU Operator's operand DaemonSets, their order and what each init container waits for.

Why a table: the operator enforces its ordering (driver → toolkit → plugin and the rest) only
through init containers that wait for a validation file in ``/run/nvidia/validations/``; a pod
stuck in ``Init`` therefore names, by its init container, the earlier stage that is not ready
(seed §1, §4 "operand stops in Init"; facts.md §5.1, §5.4).

Facts are from gpu-operator v25.10.1 ``assets/*/…daemonset.yaml`` and ``state_manager.go``
(facts.md §5.1); runtimeClassName from ``setRuntimeClassName`` (facts.md §5.4).
"""

from __future__ import annotations

from dataclasses import dataclass

VALIDATIONS_DIR = "/run/nvidia/validations"
RUNTIME_CLASS_DEFAULT = "nvidia"  # DefaultRuntimeClass (facts.md §5.4)


@dataclass(frozen=True, slots=True)
class Stage:
    """A stage of the operator's ordering: the operand whose work it certifies and the file.

    The ``*-ready`` files are written by the validator's init containers (``driver-validation``
    runs nvidia-smi, ``toolkit-validation`` runs it under ``runtimeClassName: nvidia``;
    facts.md §5.1), but what they certify is the producer's work, so a stuck stage is explained
    by the producer's pod and log on the same node.
    """

    name: str
    title: str
    producer: str  # the DaemonSet whose pod makes the stage ready ("" = none in-cluster)
    container: str  # that pod's main container (where its log lines are)
    validation_file: str | None
    source: str = ("NVIDIA/gpu-operator@v26.7.0:assets/state-operator-validation/"
                   "0500_daemonset.yaml (validator init containers write the *-ready files)")


STAGES: dict[str, Stage] = {s.name: s for s in (
    Stage("driver", "NVIDIA driver", "nvidia-driver-daemonset", "nvidia-driver-ctr",
          f"{VALIDATIONS_DIR}/driver-ready"),
    Stage("toolkit", "container toolkit (nvidia runtime handler)",
          "nvidia-container-toolkit-daemonset", "nvidia-container-toolkit-ctr",
          f"{VALIDATIONS_DIR}/toolkit-ready"),
    Stage("cuda", "CUDA workload validation", "nvidia-operator-validator", "cuda-validation",
          f"{VALIDATIONS_DIR}/cuda-ready"),
    Stage("plugin", "device plugin advertising GPUs", "nvidia-device-plugin-daemonset",
          "nvidia-device-plugin", f"{VALIDATIONS_DIR}/plugin-ready"),
    Stage("gds", "GPUDirect Storage driver", "nvidia-driver-daemonset", "nvidia-fs-ctr",
          f"{VALIDATIONS_DIR}/nvidia-fs-ready"),
    Stage("gdrcopy", "GDRCopy driver", "nvidia-driver-daemonset", "nvidia-gdrcopy-ctr",
          f"{VALIDATIONS_DIR}/gdrcopy-ready"),
    Stage("plugin-config", "device-plugin config selection", "", "config-manager-init", None),
    Stage("driver-manager", "driver manager (evicts GPU clients, unloads old driver)",
          "nvidia-driver-daemonset", "k8s-driver-manager", None),
    Stage("mps-mounts", "MPS shared-memory mounts", "nvidia-device-plugin-mps-control-daemon",
          "mps-control-daemon-mounts", None),
)}

# init container name -> the stage it waits for (facts.md §5.1)
INIT_WAITS: dict[str, str] = {
    "driver-validation": "driver",
    "toolkit-validation": "toolkit",
    "cuda-validation": "cuda",
    "plugin-validation": "plugin",
    "nvidia-fs-validation": "gds",
    "gdrcopy-validation": "gdrcopy",
    "config-manager-init": "plugin-config",
    "k8s-driver-manager": "driver-manager",
    "mps-control-daemon-mounts": "mps-mounts",
}


@dataclass(frozen=True, slots=True)
class Operand:
    daemonset: str
    component: str  # nvidia.com/gpu.deploy.<component>
    state: str  # the operator's state name (ClusterPolicy "states not ready: [...]")
    init: tuple[str, ...]
    containers: tuple[str, ...]
    runtime_class: bool  # gets runtimeClassName: nvidia (unless NRI plugin / CRI-O without CDI)
    extra_selector: tuple[tuple[str, str], ...] = ()
    default_on: bool = True  # deployed on every container-workload GPU node by default
    image: str = ""
    source: str = ""  # the operator asset that defines the DaemonSet

    @property
    def deploy_label(self) -> str:
        return f"nvidia.com/gpu.deploy.{self.component}"

    @property
    def node_selector(self) -> dict[str, str]:
        return {self.deploy_label: "true", **dict(self.extra_selector)}

    @property
    def waits_for(self) -> tuple[str, ...]:
        """The stages this operand waits for, in init-container order."""
        return tuple(INIT_WAITS[c] for c in self.init if c in INIT_WAITS)


OPERATOR_TAG = "NVIDIA/gpu-operator@v26.7.0"


def _asset(path: str) -> str:
    return f"{OPERATOR_TAG}:assets/{path} (same names at v25.10.1, v26.3.0)"


# In state order (controllers/state_manager.go addState; facts.md §5.1).
OPERANDS: tuple[Operand, ...] = (
    Operand("nvidia-driver-daemonset", "driver", "state-driver",
            ("k8s-driver-manager",), ("nvidia-driver-ctr",), False,
            image="nvcr.io/nvidia/driver",
            source=_asset("state-driver/0500_daemonset.yaml")),
    Operand("nvidia-container-toolkit-daemonset", "container-toolkit", "state-container-toolkit",
            ("driver-validation",), ("nvidia-container-toolkit-ctr",), False,
            image="nvcr.io/nvidia/k8s/container-toolkit",
            source=_asset("state-container-toolkit/0500_daemonset.yaml")),
    Operand("nvidia-operator-validator", "operator-validator", "state-operator-validation",
            ("driver-validation", "toolkit-validation", "cuda-validation", "plugin-validation"),
            ("nvidia-operator-validator",), True,
            image="nvcr.io/nvidia/gpu-operator",
            source=_asset("state-operator-validation/0500_daemonset.yaml")),
    Operand("nvidia-device-plugin-daemonset", "device-plugin", "state-device-plugin",
            ("toolkit-validation", "config-manager-init"),
            ("nvidia-device-plugin", "config-manager"), True,
            image="nvcr.io/nvidia/k8s-device-plugin",
            source=_asset("state-device-plugin/0500_daemonset.yaml")),
    Operand("nvidia-device-plugin-mps-control-daemon", "device-plugin", "state-mps-control-daemon",
            ("toolkit-validation", "mps-control-daemon-mounts", "config-manager-init"),
            ("mps-control-daemon-ctr", "config-manager"), True,
            extra_selector=(("nvidia.com/mps.capable", "true"),), default_on=False,
            image="nvcr.io/nvidia/k8s-device-plugin",
            source=_asset("state-mps-control-daemon/0400_daemonset.yaml")),
    Operand("nvidia-dcgm", "dcgm", "state-dcgm", ("toolkit-validation",), ("nvidia-dcgm-ctr",),
            True, default_on=False, image="nvcr.io/nvidia/cloud-native/dcgm",
            source=_asset("state-dcgm/0400_dcgm.yml")),
    Operand("nvidia-dcgm-exporter", "dcgm-exporter", "state-dcgm-exporter",
            ("toolkit-validation",), ("nvidia-dcgm-exporter",), True,
            image="nvcr.io/nvidia/k8s/dcgm-exporter",
            source=_asset("state-dcgm-exporter/0800_daemonset.yaml")),
    Operand("gpu-feature-discovery", "gpu-feature-discovery", "gpu-feature-discovery",
            ("toolkit-validation", "config-manager-init"),
            ("gpu-feature-discovery", "config-manager"), True,
            image="nvcr.io/nvidia/k8s-device-plugin",
            source=_asset("gpu-feature-discovery/0500_daemonset.yaml")),
    Operand("nvidia-mig-manager", "mig-manager", "state-mig-manager", ("toolkit-validation",),
            ("nvidia-mig-manager",), True, default_on=False,
            image="nvcr.io/nvidia/cloud-native/k8s-mig-manager",
            source=_asset("state-mig-manager/0600_daemonset.yaml")),
    Operand("nvidia-node-status-exporter", "node-status-exporter", "state-node-status-exporter",
            (), ("nvidia-node-status-exporter",), False, default_on=False,
            image="nvcr.io/nvidia/gpu-operator",
            source=_asset("state-node-status-exporter/0700_daemonset.yaml")),
)

# Citations of the tables whose entries are plain values.
SOURCES: dict[str, str] = {
    "INIT_WAITS": "NVIDIA/gpu-operator@v26.7.0:assets/*/0500_daemonset.yaml initContainers "
                  "(driver-validation, toolkit-validation, config-manager-init, ...); "
                  "controllers/object_controls.go TransformValidatorComponent",
}

BY_DAEMONSET: dict[str, Operand] = {o.daemonset: o for o in OPERANDS}
BY_STATE: dict[str, Operand] = {o.state: o for o in OPERANDS}

DEVICE_PLUGIN = "nvidia-device-plugin-daemonset"
DCGM_EXPORTER = "nvidia-dcgm-exporter"
MIG_MANAGER = "nvidia-mig-manager"
DRIVER = "nvidia-driver-daemonset"
TOOLKIT = "nvidia-container-toolkit-daemonset"


def operand_for(name: str) -> Operand | None:
    """The operand a DaemonSet or pod name belongs to (pods are ``<daemonset>-<suffix>``)."""
    if name in BY_DAEMONSET:
        return BY_DAEMONSET[name]
    best: Operand | None = None
    for o in OPERANDS:
        if name.startswith(o.daemonset + "-") and (best is None
                                                  or len(o.daemonset) > len(best.daemonset)):
            best = o
    return best


def stage_of(init_container: str) -> Stage | None:
    s = INIT_WAITS.get(init_container)
    return STAGES[s] if s else None
