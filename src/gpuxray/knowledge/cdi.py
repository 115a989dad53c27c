"""Which CDI specs the NVIDIA stack writes on a node, and under which kind (facts.md §5.5).

Why a table: a CDI device name (``<vendor>/<class>=<device>``) resolves only against a spec of
that exact kind in one of containerd's ``cdi_spec_dirs`` (``/etc/cdi``, ``/var/run/cdi``). Under
the GPU Operator with ``cdi.enabled`` (the default since v25.10) no component writes the kind
``nvidia.com/gpu``: the toolkit container writes ``management.nvidia.com/gpu`` (device ``all``,
for operands) and the device plugin ``k8s.device-plugin.nvidia.com/gpu`` (one device per GPU or
MIG UUID, for workloads). The device plugin hands workload containers its names both as CRI
``CDIDevices`` (``cdi-cri``) and as the container annotation
``cdi.k8s.io/nvidia-device-plugin_<uuid>`` (``cdi-annotations``); containerd injects them.
``nvidia.com/gpu`` comes only from a host package (``nvidia-cdi-refresh``) or a manual
``nvidia-ctk cdi generate``, so it proves nothing about an operator node.
"""

from __future__ import annotations

from dataclasses import dataclass

CDI_DIRS = ("etc/cdi/", "var/run/cdi/")  # containerd's default cdi_spec_dirs, without the "/"
SOURCES: dict[str, str] = {
    "CDI_DIRS": "containerd/containerd@v2.1.4:internal/cri/config/config_unix.go "
                "(CDISpecDirs: /etc/cdi, /var/run/cdi)",
}


@dataclass(frozen=True, slots=True)
class CdiSpec:
    """One spec a component writes: its kind, file, device names, and upstream source."""

    producer: str  # toolkit | device-plugin | host | dra
    kind: str
    path: str  # host path, leading "/" removed
    devices: str  # what the device names are
    source: str


TOOLKIT_SPEC = CdiSpec(
    "toolkit", "management.nvidia.com/gpu", "var/run/cdi/management.nvidia.com-gpu.yaml", "all",
    "NVIDIA/nvidia-container-toolkit@v1.20.0:cmd/nvidia-ctk-installer/toolkit/toolkit.go "
    "(cdi-output-dir /var/run/cdi, cdi-kind management.nvidia.com/gpu; same in v1.18.1, v1.19.0)")
DEVICE_PLUGIN_SPEC = CdiSpec(
    "device-plugin", "k8s.device-plugin.nvidia.com/gpu",
    "var/run/cdi/k8s.device-plugin.nvidia.com-gpu.json",
    "GPU-<uuid> / MIG-<uuid> (deviceIDStrategy uuid) or the index",
    "NVIDIA/k8s-device-plugin@v0.20.0:internal/cdi/cdi.go (cdiRoot /var/run/cdi, specName+.json, "
    "class gpu), cmd/nvidia-device-plugin/plugin-manager.go (vendor "
    "k8s.device-plugin.nvidia.com); same in v0.17.4, v0.18.1")
HOST_SPEC = CdiSpec(
    "host", "nvidia.com/gpu", "var/run/cdi/nvidia.yaml", "index / GPU-<uuid> / all",
    "NVIDIA/nvidia-container-toolkit@v1.20.0:cmd/nvidia-ctk/cdi/generate/generate.go (vendor "
    "nvidia.com, class gpu), deployments/systemd/nvidia-cdi-refresh.service "
    "(NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/var/run/cdi/nvidia.yaml)")
DRA_SPEC = CdiSpec(
    "dra", "k8s.gpu.nvidia.com/device", "var/run/cdi/k8s.gpu.nvidia.com-device_base.yaml",
    "canonical device name",
    "NVIDIA/k8s-dra-driver-gpu@51370e3e:cmd/gpu-kubelet-plugin/cdi.go "
    "(cdiVendor = \"k8s.\" + DriverName)")
SPECS: tuple[CdiSpec, ...] = (TOOLKIT_SPEC, DEVICE_PLUGIN_SPEC, HOST_SPEC, DRA_SPEC)

# The device plugin's CRI container annotation (cdi-annotations), and the prefix the operator sets.
ANNOTATION_PREFIX = "cdi.k8s.io/"
ANNOTATION_SOURCE = ("NVIDIA/k8s-device-plugin@v0.20.0:internal/plugin/server.go "
                     "(updateResponseForCDI: cdiapi.UpdateAnnotations(..., "
                     "\"nvidia-device-plugin\", ...)); NVIDIA/gpu-operator@v26.7.0:"
                     "controllers/object_controls.go (transformDevicePluginCtrForCDI: "
                     "DEVICE_LIST_STRATEGY=cdi-annotations,cdi-cri, CDI_ANNOTATION_PREFIX="
                     "cdi.k8s.io/)")


@dataclass(frozen=True, slots=True)
class StackVersions:
    """The operand releases an operator release deploys by default (its chart values)."""

    operator: str
    device_plugin: str
    toolkit: str
    source: str


STACKS: tuple[StackVersions, ...] = (
    StackVersions("v25.10", "v0.18.1", "v1.18.1",
                  "NVIDIA/gpu-operator@v25.10.1:deployments/gpu-operator/values.yaml"),
    StackVersions("v26.3", "v0.19.0", "v1.19.0",
                  "NVIDIA/gpu-operator@v26.3.0:deployments/gpu-operator/values.yaml"),
    StackVersions("v26.7", "v0.20.0", "v1.20.0",
                  "NVIDIA/gpu-operator@v26.7.0:deployments/gpu-operator/values.yaml"),
)
