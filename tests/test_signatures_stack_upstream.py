"""Lines the operator stack's components print, read from their source at several releases
(gpu-operator v1.11-v26.7 validator and controllers, gpu-driver-container scripts, mig-parted
v0.5-v0.15, GFD, dcgm-exporter/DCGM, the kernel module's NVRM lines), each instantiated with
its format verbs filled in: a paste of the line alone ranks the code of the cause it means
first, and the lines those components print on a healthy start rank nothing."""

from __future__ import annotations

import pytest

from gpuxray.diagnose.triage import triage

OP = "NVIDIA/gpu-operator@v26.7.0:"
OP239 = "NVIDIA/gpu-operator@v23.9.0:"
OP111 = "NVIDIA/gpu-operator@v1.11.0:"
DRV = "NVIDIA/gpu-driver-container@06a208ca:"
MIG = "NVIDIA/mig-parted@v0.15.0:"
MIG055 = "NVIDIA/mig-parted@v0.5.5:"
OGKM = "NVIDIA/open-gpu-kernel-modules@595.45.04:"
DCGMLIB = "NVIDIA/DCGM@v4.6.0:dcgmlib/src/dcgm_errors.c"
KDM = "NVIDIA/k8s-driver-manager@v0.12.0:"
CTK = "NVIDIA/nvidia-container-toolkit@v1.17.0:cmd/nvidia-ctk/system/create-dev-char-symlinks/"
DCGM = "NVIDIA/dcgm-exporter@4.5.3-4.8.2:"
DCGM318 = "NVIDIA/dcgm-exporter@3.1.8-3.1.5:"
DCGM339 = "NVIDIA/dcgm-exporter@3.3.9-3.6.1:"

# (line, where it is printed, code of the cause)
FAILING = (
    # ---- validator
    ('time="2023-10-01T10:00:00Z" level=info msg="Error: error validating plugin installation: '
     'GPU resources are not discovered by the node"', OP239 + "validator/main.go", "GX202"),
    ("Error: error validating plugin installation: unable to find any allocatable GPU resource",
     OP + "cmd/nvidia-validator/main.go", "GX202"),
    ('level=error msg="driver is not ready: error validating driver: failed to locate driver '
     'libraries: error locating \\"libnvidia-ml.so.1\\""', OP + "cmd/nvidia-validator/main.go",
     "GX403"),
    ('level=warning msg="failed to validate the driver, retrying after 5 seconds\\n"',
     OP + "cmd/nvidia-validator/main.go", "GX403"),
    ("chroot: failed to run command 'nvidia-smi': No such file or directory",
     OP239 + "validator/main.go", "GX403"),
    ("Error: error validating driver installation: error creating symlinks: failed to load "
     "NVIDIA kernel modules: failed to load module nvidia: exit status 1; output=modprobe: "
     "FATAL: Module nvidia not found in directory /lib/modules/6.8.0-45-generic",
     CTK + "create-dev-char-symlinks.go", "GX508"),
    ("Error: error validating driver installation: error creating symlink creator: failed to "
     "create all possible device lister: missing required device major nvidia-uvm",
     CTK + "all.go", "GX304"),
    ('level=info msg="Error: error validating cuda workload: gave up waiting for pod '
     'nvidia-cuda-validator-x2k9p to be available"', OP239 + "validator/main.go", "GX302"),
    ("nvidia-fs driver is not ready", OP239 + "validator/main.go", "GX403"),
    ("Error: error validating MOFED driver installation: exit status 1",
     OP239 + "validator/main.go", "GX403"),
    ("Error: error validating vGPU devices: No vGPU devices found", OP239 + "validator/main.go",
     "GX403"),
    ("Error: error validating vGPU Manager installation: vGPU Manager parent devices not ready: "
     "timed out waiting for the condition", OP + "cmd/nvidia-validator/main.go", "GX403"),
    ("Error: error validating vfio-pci driver installation: device not bound to 'vfio-pci'; "
     "device: 0000:3b:00.0 driver: 'nvidia'", OP239 + "validator/main.go", "GX418"),
    # ---- operator controllers
    ('INFO Unable to obtain all kernel versions of the GPU nodes in the cluster {"err": '
     '"could not find NFD labels for node gpu-1"}', OP + "controllers/state_manager.go",
     "GX401"),
    ("Couldn't get kernelVersion, did you run the node feature discovery?",
     OP111 + "controllers/object_controls.go", "GX401"),
    ("unable to resolve driver image path for pre-compiled drivers, driver.repository, "
     "driver.image and driver.version have to be specified in the ClusterPolicy",
     OP + "controllers/object_controls.go", "GX403"),
    ("multiple NVIDIADrivers match the same node gpu-node-1: [ubuntu default]",
     OP + "internal/validator/validator.go", "GX412"),
    ("vgpu-host-manager driver type is not supported through NVIDIADriver CR",
     OP239 + "controllers/nvidiadriver_controller.go", "GX409"),
    ("the NRI Plugin cannot be enabled when CDI is disabled", OP + "controllers/state_manager.go",
     "GX409"),
    ("WARNINGs: RHCOS driver-toolkit image missing. Version-specific fallback mode enabled.",
     OP + "controllers/object_controls.go", "GX403"),
    ("WARNING: OpenShift DriverToolkit was requested but could not be enabled (dependencies "
     "missing)", OP111 + "controllers/object_controls.go", "GX403"),
    ("ERROR different OS versions found for the same kernel version 5.15.0-91-generic, "
     "unsupported configuration", OP + "controllers/state_manager.go", "GX412"),
    # ---- driver container scripts
    ("Could not resolve RHEL version", DRV + "rhel8/nvidia-driver", "GX403"),
    ("All attempts to extract /lib/modules/6.8.0-1015-aws/vmlinuz failed",
     DRV + "rhel9/nvidia-driver", "GX403"),
    ("Failed to load nvidia driver", DRV + "vgpu-manager/rhel10/nvidia-driver", "GX403"),
    ("Could not unload NVIDIA driver kernel modules, driver is in use",
     DRV + "ubuntu22.04/nvidia-driver", "GX418"),
    ("FATAL: failed to update the dnf metadata cache after multiple attempts with releasevers "
     "9.4, 9", DRV + "rhel9/nvidia-driver", "GX403"),
    # ---- mig-parted / mig-manager
    ("error creating GPU instance for '1g.10gb': Insufficient Resources",
     MIG + "pkg/mig/config/config.go", "GX407"),
    ("error creating Compute instance for '(0, 0)': Insufficient Resources",
     MIG055 + "pkg/mig/state/state.go", "GX407"),
    ('level=fatal msg="error checking if nvidia module loaded: unable to read /proc/modules: '
     'open /proc/modules: no such file or directory"', MIG055 + "cmd/nvidia-mig-parted/util/mig.go",
     "GX407"),
    ('level=warning msg="Failed to reboot the node: exit status 1"',
     MIG + "pkg/mig/reconfigure/reconfigure.go", "GX407"),
    # ---- GFD
    ("error getting mig capability: error getting MIG mode: Insufficient Permissions",
     "NVIDIA/gpu-feature-discovery@v0.8.2:internal/lm/nvml.go", "GX417"),
    # ---- dcgm-exporter / DCGM
    ('level=fatal msg="Failed to watch metrics: Error watching fields: Host engine is running as '
     'non-root"', DCGMLIB, "GX406"),
    ('time="2023-01-01T10:00:00Z" level=fatal msg="Could not retrieve metrics: Host engine '
     'connection invalid/disconnected"', DCGMLIB, "GX406"),
    # ---- k8s-driver-manager
    ('level=error msg="error reported by drain helper: error when evicting pods/\\"train-0\\" '
     "-n \\\"ml\\\": Cannot evict pod as it would violate the pod's disruption budget.\"",
     KDM + "cmd/nvdrain/main.go", "GX418"),
    ('level=error msg="Failed to wait for mig-manager to shutdown: timed out waiting for the '
     'condition"', KDM + "cmd/driver-manager/main.go", "GX418"),
    ("Unable to unbind vfio-pci driver from all devices", KDM + "cmd/driver-manager/main.go",
     "GX418"),
    ("failed to unmount stale NVIDIA driver rootfs: failed to recursively unmount "
     "/run/nvidia/driver: device or resource busy", KDM + "cmd/driver-manager/main.go", "GX418"),
    ("Cannot proceed until all GPU pods are drained from the node. Exiting.",
     "NVIDIA/k8s-driver-manager@v0.6.2:driver-manager", "GX418"),
    # ---- NVRM
    ("NVRM: has the version 535.104.05, but this kernel module has",
     OGKM + "src/nvidia/arch/nvalloc/unix/src/osapi.c", "GX304"),
    ("NVRM: the version 535.86.10.  Please make sure that this",
     OGKM + "src/nvidia/arch/nvalloc/unix/src/osapi.c", "GX304"),
    ("NVRM: nvidia.ko because it does not include the required GPU",
     OGKM + "src/nvidia/arch/nvalloc/unix/src/osapi.c", "GX416"),
    ("NVRM: None of the NVIDIA devices were initialized.", OGKM + "kernel-open/nvidia/nv.c",
     "GX403"),
    ("NVRM: No NVIDIA GPU found.", OGKM + "kernel-open/nvidia/nv.c", "GX403"),
    ("NVRM: BAR1 is 0M @ 0x0 (PCI:0000:03:00.0)", OGKM + "kernel-open/nvidia/nv-pci.c", "GX403"),
    ("NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x22:0x56:884)",
     OGKM + "src/nvidia/arch/nvalloc/unix/src/osinit.c", "GX403"),
    # ---- dcgm-exporter 3.1-4.8 refusing its own configuration; the operator's DTK, RHCOS and
    # NFD readings; the validator without nvidia-smi in the driver root
    ('time="2023-03-02T08:15:00Z" level=error msg="Could not read metrics file '
     "'/etc/dcgm-exporter/default-counters.csv': open /etc/dcgm-exporter/default-counters.csv: "
     'permission denied\\n"', DCGM318 + "pkg/dcgmexporter/parser.go", "GX406"),
    ("Could not read metrics file '/etc/dcgm-exporter/dcp-metrics-included.csv'; err: record on "
     "line 12: wrong number of fields", DCGM + "internal/pkg/counters/counter_config.go",
     "GX406"),
    ('time="2023-03-02T08:15:00Z" level=fatal msg="Could not find DCGM field '
     'DCGM_FI_PROF_NVLINK_TX_BYTES"', DCGM318 + "pkg/dcgmexporter/parser.go", "GX406"),
    ("could not find DCGM field; err: unknown ExporterCounter field 'DCGM_FI_DEV_CLOCKS_EVENT'",
     DCGM + "internal/pkg/counters/counter_config.go", "GX406"),
    ('level=fatal msg="Could not retrieve ConfigMap \'monitoring:dcgm-metrics\': configmaps '
     '\\"dcgm-metrics\\" not found"', DCGM339 + "pkg/dcgmexporter/parser.go", "GX406"),
    ('level=fatal msg="Failed to Listen and Server HTTP server with err: `listen tcp: address '
     '9400: missing port in address`"', DCGM318 + "pkg/dcgmexporter/server.go", "GX406"),
    ('INFO ocpHasDriverToolkitImageStream: driver-toolkit imagestream not found '
     '{"Name": "driver-toolkit", "Namespace": "openshift"}',
     OP239 + "controllers/object_controls.go", "GX403"),
    ('{"level":"info","msg":"node doesn\'t have the proper NFD RHCOS version label.",'
     '"nodeName":"ocp-gpu-2","nfdLabel":"feature.node.kubernetes.io/system-os_release.'
     'OSTREE_VERSION"}', OP239 + "controllers/state_manager.go", "GX401"),
    ("  Message:  No NFD labels found", OP + "controllers/clusterpolicy_controller.go", "GX401"),
    ("Error: error validating driver installation: error validating driver: failed to locate "
     "nvidia-smi: error locating \"nvidia-smi\"", OP + "cmd/nvidia-validator/main.go", "GX403"),
    ("ERROR: failed to get path items for subscription entitlements: subscription paths not "
     "found for distribution almalinux9.4", OP + "controllers/object_controls.go", "GX412"),
    ("WARNING: RHCOS '414.92.202402201520-0' imagetag missing",
     DRV + "vgpu-manager/rhel8/ocp_dtk_entrypoint", "GX403"),
    ("NVIDIA GPU driver is already pre-installed on the node, disabling the containerized "
     "driver on the node", "NVIDIA/k8s-driver-manager@v0.7.0:driver-manager", "GX418"),
)

# lines the same components print on a healthy start or while waiting their turn
HEALTHY = (
    ('time="2026-03-01T10:00:00Z" level=info msg="No pre-installed driver detected on the host: '
     "failed to find an executable 'nvidia-smi' on the host\"",
     "NVIDIA/gpu-operator@v26.3.0:cmd/nvidia-validator/main.go"),
    ('level=info msg="Validating containerized driver installation"',
     OP + "cmd/nvidia-validator/main.go"),
    ("running command chroot with args [/run/nvidia/driver nvidia-smi]",
     OP239 + "validator/main.go"),
    ('level=info msg="pod nvidia-cuda-validator-x2k9p is curently in Pending phase"',
     OP239 + "validator/main.go"),
    ('level=info msg="No vGPU devices found, retrying after 5 seconds"',
     OP239 + "validator/main.go"),
    # mig-manager asserts the selected layout before applying it: a failed assert is its cue
    ("Assertion failure: selected configuration not currently applied",
     MIG + "cmd/nvidia-mig-parted/assert/assert.go"),
    ("Checking NVIDIA driver packages...", DRV + "ubuntu22.04/nvidia-driver"),
    ("Done, now waiting for signal", DRV + "ubuntu22.04/nvidia-driver"),
    ('time="2023-01-01T10:00:00Z" level=warning msg="Skipping line 17 '
     "('DCGM_FI_PROF_GR_ENGINE_ACTIVE'): metric not enabled\"",
     "NVIDIA/dcgm-exporter@3.3.5-3.4.1:pkg/dcgmexporter/parser.go"),
    ("Driver root directory does not exist, nothing to unmount",
     "NVIDIA/k8s-driver-manager@v0.12.0:cmd/driver-manager/main.go"),
    ("NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  Release Build",
     OGKM + "kernel-open/nvidia/nv.c"),
    # dcgm-exporter reading its file when no ConfigMap is named; the operator on a healthy
    # ClusterPolicy
    ('time="2024-03-01T14:31:05Z" level=info msg="Falling back to metric file '
     '\'/etc/dcgm-exporter/default-counters.csv\'"', DCGM339 + "pkg/dcgmexporter/parser.go"),
    ('level=INFO msg="Falling back to metric file '
     '\'/etc/dcgm-exporter/dcp-metrics-included.csv\'"',
     DCGM + "internal/pkg/counters/counter_config.go"),
    ("    Reason:                Reconciled", OP239 + "internal/conditions/consts.go"),
)


def _top(line: str) -> str | None:
    causes = triage([("paste", line)]).causes
    return causes[0].cause.code if causes else None


@pytest.mark.parametrize(("line", "source", "code"), FAILING, ids=lambda v: str(v)[:60])
def test_upstream_line_ranks_its_cause(line: str, source: str, code: str) -> None:
    assert source.startswith("NVIDIA/")
    assert _top(line) == code


@pytest.mark.parametrize(("line", "source"), HEALTHY, ids=lambda v: str(v)[:60])
def test_healthy_upstream_line_votes_nothing(line: str, source: str) -> None:
    assert source.startswith("NVIDIA/")
    assert _top(line) is None
