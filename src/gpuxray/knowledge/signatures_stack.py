"""Signatures read from the operator stack's own source: the lines its components print when a
node's GPU stack fails, that the core catalog (``signatures.py``) did not know yet.

Why a module of its own: these families were found by walking each component's failure paths at
real tags (every ``echo`` of a failure in the driver container's scripts, every error a
controller, the validator, the device plugin, mig-parted and dcgm-exporter return or log, the
kernel module's ``NVRM:`` lines, nvidia-installer's ``ui_error`` texts) and checking each
against the catalog; only the ones that name a cause and were not matched yet are here. Each is
keyed on the fixed words of the format string (format verbs as wildcards, one alternative per
wording a release changed), votes for the cause the surrounding code means, and is deciding only
where no other cause prints it. Components and tags: NVIDIA/gpu-operator v1.9.0–v26.7.0,
NVIDIA/gpu-driver-container (06a208ca), NVIDIA/k8s-device-plugin v0.13.0–v0.20.0,
NVIDIA/k8s-driver-manager v0.6.10–v0.12.0, NVIDIA/mig-parted v0.15.0,
NVIDIA/dcgm-exporter 3.1.8-3.1.5–4.5.3-4.8.2, NVIDIA/open-gpu-kernel-modules
515.43.04–595.45.04, NVIDIA/nvidia-installer 590.48.01 (seed §1, §3, §4).
"""

from __future__ import annotations

from gpuxray.knowledge.signature_types import (
    DESCRIBE,
    DMESG,
    EVENT,
    JOURNAL,
    LOG,
    SMI,
    STATUS,
    VALIDATOR,
    Example,
    Signature,
)


def _s(id: str, needle: str, pattern: str, votes: dict[str, float], kinds: tuple[str, ...],
       deciding: bool = False, *, examples: tuple[Example, ...]) -> Signature:
    return Signature(id, needle, pattern, tuple(votes.items()), kinds, deciding, examples)


def _x(line: str, source: str) -> Example:
    return Example(line, source)


OP = "NVIDIA/gpu-operator@v26.7.0:"
OP239 = "NVIDIA/gpu-operator@v23.9.0:"
OP249 = "NVIDIA/gpu-operator@v24.9.0:"
OP111 = "NVIDIA/gpu-operator@v1.11.0:"
OP263 = "NVIDIA/gpu-operator@v26.3.0:"
CTK1170 = "NVIDIA/nvidia-container-toolkit@v1.17.0:"
VGPU = "NVIDIA/gpu-driver-container@06a208ca:vgpu-manager/rhel10/nvidia-driver"
MIG055 = "NVIDIA/mig-parted@v0.5.5:"
GH = "https://github.com/"
GFD = "NVIDIA/gpu-feature-discovery@v0.8.2:"
DRV = "NVIDIA/gpu-driver-container@06a208ca:"
DRV2409 = "NVIDIA/gpu-driver-container@24.09.04:"
DP = "NVIDIA/k8s-device-plugin@v0.20.0:"
DP13 = "NVIDIA/k8s-device-plugin@v0.13.0:"
DP14 = "NVIDIA/k8s-device-plugin@v0.14.0:"
MIG = "NVIDIA/mig-parted@v0.15.0:"
DCGM = "NVIDIA/dcgm-exporter@4.5.3-4.8.2:"
DCGM318 = "NVIDIA/dcgm-exporter@3.1.8-3.1.5:"
DCGM339 = "NVIDIA/dcgm-exporter@3.3.9-3.6.1:"
OP19 = "NVIDIA/gpu-operator@v1.9.0:"
OGKM = "NVIDIA/open-gpu-kernel-modules@595.45.04:"
OGKM515 = "NVIDIA/open-gpu-kernel-modules@515.43.04:"
INST = "NVIDIA/nvidia-installer@590.48.01:"
DCGMLIB = "NVIDIA/DCGM@v4.6.0:dcgmlib/src/dcgm_errors.c"
GODCGM = "NVIDIA/go-dcgm@v1.4611.0:pkg/dcgm/admin.go"
GLIBC = "bminor/glibc@glibc-2.35:elf/dl-lookup.c"
KDM = "NVIDIA/k8s-driver-manager@v0.12.0:"
NVC = "NVIDIA/libnvidia-container@06deb20d:src/driver.c"
NVPD = "NVIDIA/nvidia-persistenced@535.309.01:nvidia-persistenced.c"
LINUX = "torvalds/linux@v6.8:"

STACK_SIGNATURES: tuple[Signature, ...] = (
    # ---- an operator release from before v1.7 --------------------------------------------------
    # releases 1.0-1.6.x (tags without the "v", the operator-sdk layout) log their ClusterPolicy
    # reconciler as "controller_clusterpolicy" (pkg/controller/clusterpolicy/
    # clusterpolicy_controller.go); from v1.7.0 it is "controllers.ClusterPolicy" (main.go).
    # Those releases are years out of support, and their known bugs are fixed only later
    _s("operator-pre-1.7-logger", "controller_clusterpolicy",
       r'"logger"\s*:\s*"controller_clusterpolicy"',
       {"unsupported-stack": 1.0}, (LOG,),
       examples=(_x('{"level":"info","ts":1611596227.7272515,"logger":"controller_clusterpolicy",'
                    '"msg":"Reconciling ClusterPolicy","Request.Namespace":"","Request.Name":'
                    '"cluster-policy"}',
                    "NVIDIA/gpu-operator@1.4.0:pkg/controller/clusterpolicy/"
                    "clusterpolicy_controller.go"),)),
    # ---- gpu-operator: controllers and validator -------------------------------------------
    # The ClusterPolicy controller reads each GPU node's kernel and OS from NFD's labels; a node
    # without them (NFD not deployed, or its worker not running there) gets no driver DaemonSet.
    # (up to v23.9 the driver tag lookup said so as "could not find kernel full version")
    _s("operator-nfd-label-missing", "is nfd installed|unable to retrieve os|"
       "could not find kernel full version",
       r"(?:could not find nfd labels? for node|node feature discovery \(nfd\) labels)\. "
       r"is nfd installed|unable to retrieve os (?:name|version) from label feature\.node|"
       r"could not find kernel full version: \(''",
       {"nodes-unlabelled": 3.0}, (LOG,), True,
       examples=(_x("ERROR Failed to get kernel version of GPU node using Node Feature Discovery "
                    "(NFD) labels. Is NFD installed in the cluster?",
                    OP + "controllers/object_controls.go"),
                 _x('INFO WARNING: Could not find NFD labels for node. Is NFD installed? '
                    '{"Node": "gpu-node-1"}', OP239 + "internal/state/nodepool.go"),
                 _x('INFO WARNING: Could not find NFD label for node. Is NFD installed? '
                    '{"Node": "gpu-node-1", "Label": "feature.node.kubernetes.io/'
                    'system-os_release.ID"}', OP + "internal/state/nodepool.go"),
                 _x("unable to retrieve OS name from label "
                    "feature.node.kubernetes.io/system-os_release.ID",
                    OP + "controllers/state_manager.go"),
                 _x("ERROR: Could not find kernel full version: ('', '')",
                    OP239 + "controllers/object_controls.go"))),
    # the operator's repo/cert/subscription mounts for a node OS it has no paths for (the
    # wording of v23.x, without the distribution's name; operator-distribution-unsupported
    # has the later one)
    _s("operator-config-distribution", "distribution not supported",
       r"(?:custom repo config|ssl key/cert config|custom cert config|subscription "
       r"entitlements): distribution not supported",
       {"driver-os-mismatch": 2.5, "unsupported-stack": 1.5}, (LOG,),
       examples=(_x("ERROR: failed to get destination directory for custom repo config: "
                    "distribution not supported", OP239 + "controllers/object_controls.go"),
                 _x("ERROR: failed to get path items for subscription entitlements: "
                    "distribution not supported", OP239 + "controllers/object_controls.go"))),
    # the driver state's own search for GPU nodes (nvidia.com/gpu.present=true) finding none
    _s("operator-no-gpu-present", "no nodes found with gpu present|gpu node os info is empty",
       r"no nodes found with gpu present|gpu node os info is empty",
       {"nodes-unlabelled": 2.5}, (LOG,),
       examples=(_x("no nodes found with GPU present", OP + "controllers/state_manager.go"),
                 _x('failed to retrieve GPU node OS info: GPU node OS info is empty: release="", '
                    'tag=""', OP + "controllers/state_manager.go"))),
    # NVIDIADriver CRs whose node selectors overlap: the controller refuses them (condition
    # ConflictingNodeSelector) and those nodes get no driver
    _s("operator-nvidiadriver-conflict", "conflicting nvidiadriver nodeselectors",
       r"conflicting nvidiadriver nodeselectors found for resource",
       {"driver-os-mismatch": 2.0, "driver-failing": 1.0}, (LOG, STATUS), True,
       examples=(_x('conflicting NVIDIADriver NodeSelectors found for resource: ubuntu-2204, '
                    'nodeSelector: map["nvidia.com/gpu.present":"true"]',
                    OP + "internal/validator/validator.go"),)),
    # GPUDirect Storage asks for the open kernel modules; the proprietary ones are refused
    _s("operator-gds-needs-openrm", "is only supported with nvidia openrm drivers",
       r"gpudirect storage driver '[^']*' is only supported with nvidia openrm drivers",
       {"unsupported-stack": 3.0}, (LOG, STATUS), True,
       examples=(_x("GPUDirect Storage driver '2.20.5' is only supported with NVIDIA OpenRM "
                    "drivers. Please set 'useOpenKernelModules=true' to enable OpenRM mode",
                    OP + "controllers/nvidiadriver_controller.go"),
                 _x("GPUDirect Storage driver '2.17.5' is only supported with NVIDIA OpenRM "
                    "drivers. Please set 'driver.useOpenKernelModules=true' in ClusterPolicy to "
                    "enable OpenRM mode", OP249 + "controllers/object_controls.go"))),
    _s("operator-precompiled-digest", "image digest is not supported when precompiled",
       r"specifying image digest is not supported when precompiled is enabled",
       {"unsupported-stack": 2.0, "precompiled-kernel": 1.0}, (LOG, STATUS), True,
       examples=(_x("failed to get driver image path: specifying image digest is not supported "
                    "when precompiled is enabled",
                    OP + "api/nvidia/v1alpha1/nvidiadriver_types.go"),)),
    # the validator with driver.enabled=false: no host driver installed where it looks
    # (the wording of v24.9-v25.10, then v26.x)
    # From v26.3 the validator logs the host check's error at info on every start with a
    # containerized driver ("No pre-installed driver detected on the host: ..."): that wrapping
    # is healthy and votes for nothing
    _s("validator-host-smi-missing", "'nvidia-smi' file|executable 'nvidia-smi' on the host",
       r"(?<!driver detected on the host: )(?:no 'nvidia-smi' file present on the host|"
       r"empty 'nvidia-smi' file found on the host|"
       r"failed to find an executable 'nvidia-smi' on the host)",
       {"nvml-init": 2.5, "driver-failing": 0.5}, (LOG, VALIDATOR), True,
       examples=(_x("error validating driver installation: no 'nvidia-smi' file present on the "
                    "host: stat /host/usr/bin/nvidia-smi: no such file or directory",
                    "NVIDIA/gpu-operator@v25.10.1:cmd/nvidia-validator/main.go"),
                 _x("empty 'nvidia-smi' file found on the host",
                    OP249 + "validator/main.go"),
                 _x("error validating driver installation: failed to find an executable "
                    "'nvidia-smi' on the host", OP + "cmd/nvidia-validator/main.go"))),
    # the ClusterPolicy held not-ready by an NVIDIADriver upgrade (pending, active or failed)
    _s("operator-nvidiadriver-upgrade-incomplete", "nvidiadriver upgrade has not completed",
       r"nvidiadriver upgrade has not completed",
       {"upgrade-failed": 1.5}, (LOG, STATUS),
       examples=(_x("ClusterPolicy is not ready; NVIDIADriver upgrade has not completed; one or "
                    "more NVIDIADriver-owned Nodes are marked pending, in-progress, or failed",
                    OP + "controllers/clusterpolicy_controller.go"),)),
    # ---- gpu-driver-container scripts --------------------------------------------------------
    # OpenShift: the Driver Toolkit image for this RHCOS is missing, or carries another kernel
    # than the node runs: the build falls back to entitlement-based package installs, which
    # need kernel-devel for the running kernel (and fail where there are no entitlements)
    # (the vGPU manager's entrypoint prints the first two without a fallback and exits)
    _s("dtk-fallback", "entitlement-based fallback|-n openshift' missing|broken driver toolkit "
       "detected|imagetag missing",
       r"(?:broken driver toolkit detected|rhcos '[^']*' imagetag missing)(?:, using "
       r"entitlement-based fallback|\W*$)|'istag/driver-toolkit:\S+ -n openshift' missing",
       {"kernel-headers": 2.0, "kernel-upgraded": 0.5}, (LOG,),
       examples=(_x("WARNING: broken driver toolkit detected, using entitlement-based fallback",
                    DRV + "rhel9/ocp_dtk_entrypoint"),
                 _x("WARNING: RHCOS '418.94.202501221327-0' imagetag missing, using "
                    "entitlement-based fallback", DRV + "rhel9/ocp_dtk_entrypoint"),
                 _x("WARNING: 'istag/driver-toolkit:418.94.202501221327-0 -n openshift' missing, "
                    "nothing to do in openshift-driver-toolkit-ctr container",
                    DRV + "rhel9/ocp_dtk_entrypoint"),
                 _x("WARNING: RHCOS '416.94.202407081958-0' imagetag missing",
                    DRV + "vgpu-manager/rhel8/ocp_dtk_entrypoint"),
                 _x("WARNING: broken driver toolkit detected",
                    DRV + "vgpu-manager/rhel10/ocp_dtk_entrypoint"))),
    _s("dtk-no-driver-built", "no nvidia driver generated|failed to find nvidia driver source",
       r"fatal: no nvidia driver generated|failed to find nvidia driver source, exiting",
       {"driver-failing": 2.5, "kernel-headers": 1.0}, (LOG,), True,
       examples=(_x("FATAL: no NVIDIA driver generated ...", DRV + "rhel9/ocp_dtk_entrypoint"),
                 _x("Failed to find NVIDIA driver source, exiting.",
                    DRV + "rhel9/ocp_dtk_entrypoint"))),
    # the pid-file lock: another driver container (a second DaemonSet, or one of another
    # NVIDIADriver CR) already runs on the node
    _s("driver-instance-running", "an instance of the nvidia driver is already running",
       r"an instance of the nvidia driver is already running, aborting",
       {"driver-in-use": 2.0, "driver-failing": 1.0}, (LOG,), True,
       examples=(_x("An instance of the NVIDIA driver is already running, aborting",
                    DRV + "ubuntu22.04/nvidia-driver"),)),
    _s("driver-module-type-invalid", "kernel_module_type variable",
       r"invalid value for the kernel_module_type variable",
       {"driver-failing": 2.5, "gpu-unsupported": 0.5}, (LOG,), True,
       examples=(_x("invalid value for the KERNEL_MODULE_TYPE variable: opensource",
                    DRV + "ubuntu22.04/nvidia-driver"),)),
    # the nvidia-peermem sidecar (GPUDirect RDMA) without MOFED: it exits and the driver pod
    # never becomes ready
    _s("driver-peermem-failed", "nvidia-peermem module|mofed drivers are not ready",
       r"failed to load nvidia-peermem module|mofed drivers are not ready, skipping probe",
       {"driver-failing": 2.0}, (LOG,),
       examples=(_x("failed to load nvidia-peermem module", DRV + "ubuntu22.04/nvidia-driver"),
                 _x("MOFED drivers are not ready, skipping probe to avoid container restarts...",
                    DRV + "rhel9/nvidia-driver"))),
    # the Fedora/SLES/Photon flavours (retired after 24.09): the running kernel's packages are
    # not in the repositories, or the repositories (and subscriptions) are out of reach
    _s("driver-kernel-packages-absent", "failed to find kernel-|failed to install kernel "
       "packages",
       r"failed to find kernel-(?:headers|devel|core|modules-core)-\S+ in (?:repositories|koji)|"
       r"failed to install kernel packages\. ensure sles subscription",
       {"kernel-headers": 3.5}, (LOG,), True,
       examples=(_x("Failed to find kernel-headers-6.5.6-300.fc39.x86_64 in repositories.",
                    DRV2409 + "fedora/nvidia-driver"),
                 _x("Failed to find kernel-headers-6.5.6-300.fc39.x86_64 in koji.",
                    DRV2409 + "fedora/nvidia-driver"),
                 _x("Failed to find kernel-devel-6.5.6-300.fc39.x86_64 in repositories.",
                    DRV2409 + "fedora/nvidia-driver"),
                 _x("FATAL: failed to install kernel packages. Ensure SLES subscription is "
                    "available.", DRV2409 + "sle15/nvidia-driver"))),
    _s("driver-repos-unreachable", "failed to reach|failed to install elfutils packages",
       r"fatal: failed to reach (?:suse )?package repositories|"
       r"fatal: failed to install elfutils packages\.?\s*$",
       {"kernel-headers": 2.0, "driver-failing": 1.0}, (LOG,),
       examples=(_x("FATAL: failed to reach package repositories.",
                    DRV2409 + "fedora/nvidia-driver"),
                 _x("FATAL: failed to reach SUSE package repositories.",
                    DRV2409 + "sle15/nvidia-driver"),
                 _x("FATAL: failed to install elfutils packages.",
                    DRV2409 + "fedora/nvidia-driver"))),
    # the vGPU manager's container: an older install it cannot remove, or a manager that will
    # not stop (the modules stay held), and its daemon dying under it
    _s("vgpu-manager-held", "cannot be removed|could not stop nvidia vgpu manager",
       r"previous nvidia driver installation cannot be removed|"
       r"could not stop nvidia vgpu manager",
       {"driver-in-use": 2.5, "driver-failing": 1.0}, (LOG,),
       examples=(_x("Previous NVIDIA driver installation cannot be removed. Exiting",
                    DRV2409 + "vgpu-manager/ubuntu22.04/nvidia-driver"),
                 _x("Could not stop NVIDIA vGPU Manager",
                    DRV2409 + "vgpu-manager/ubuntu22.04/nvidia-driver"))),
    _s("vgpu-manager-died", "nvidia-vgpu-mgr daemon is no longer running",
       r"nvidia-vgpu-mgr daemon is no longer running", {"driver-failing": 2.0}, (LOG,),
       examples=(_x("ERROR: nvidia-vgpu-mgr daemon is no longer running. Exiting.",
                    DRV2409 + "vgpu-manager/ubuntu22.04/nvidia-driver"),)),
    # the kernel's modpost refusing the module build: the kernel is newer than the driver
    # branch supports (a GPL-only symbol the module now reaches)
    _s("module-build-gpl-symbol", "uses gpl-only symbol",
       r"modpost: gpl-incompatible module nvidia[\w-]*\.ko uses gpl-only symbol",
       {"driver-failing": 2.5, "kernel-headers": 0.5}, (LOG,), True,
       examples=(_x("ERROR: modpost: GPL-incompatible module nvidia.ko uses GPL-only symbol "
                    "'rcu_read_unlock_strict'", LINUX + "scripts/mod/modpost.c"),)),
    # ---- k8s-driver-manager (the driver pod's init container) ---------------------------------
    # it unloads the old modules before the new driver loads; a GPU client (a host process, a
    # pod it may not evict, a DRA claim) keeps them in use
    _s("driver-manager-unload", "kernel module|unload driver|all gpu pods|gpu resource claims|"
       "gpu client pods to terminate",
       r"failed to unload kernel module nvidia\w*: |failed to cleanup nvidia driver: failed to "
       r"unload driver|cannot delete all gpu pods|failed to delete all gpu pods|"
       r"pod\(s\) still hold gpu resource claims|failed to wait for gpu client pods to terminate",
       {"driver-in-use": 3.0, "upgrade-failed": 0.5}, (LOG,), True,
       examples=(_x('level=warning msg="Failed to unload kernel module nvidia_uvm: resource '
                    'temporarily unavailable"', KDM + "cmd/driver-manager/main.go"),
                 _x("failed to cleanup NVIDIA driver: failed to unload driver: resource "
                    "temporarily unavailable", KDM + "cmd/driver-manager/main.go"),
                 _x('level=error msg="Cannot delete all GPU pods"',
                    KDM + "internal/kubernetes/client.go"),
                 _x("cannot drain the DRA kubelet-plugin: pod(s) still hold GPU resource claims: "
                    "ml/train-0", KDM + "cmd/driver-manager/main.go"),
                 _x("Failed to wait for GPU client pods to terminate: timed out waiting for the "
                    "condition", KDM + "cmd/driver-manager/main.go"))),
    # GPUDirect RDMA on: the driver waits for the MOFED driver that never arrives
    _s("driver-manager-mofed", "failed to wait for mofed driver",
       r"failed to wait for mofed driver", {"driver-failing": 2.0}, (LOG,),
       examples=(_x("failed to wait for MOFED driver: timed out waiting for the condition",
                    KDM + "cmd/driver-manager/main.go"),)),
    # ---- nvidia-persistenced (started by the driver container) ---------------------------------
    # no device nodes to open: the module is not loaded (or the container does not see it)
    _s("persistenced-no-devices", "failed to query nvidia devices|unable to find any nvidia "
       "devices",
       r"failed to query nvidia devices\. please ensure that|unable to find any nvidia devices",
       {"nvml-init": 2.5, "driver-failing": 0.5}, (LOG, JOURNAL), True,
       examples=(_x("nvidia-persistenced[1234]: Failed to query NVIDIA devices. Please ensure "
                    "that the NVIDIA device files (/dev/nvidia*) exist, and that user 0 has read "
                    "and write permissions for those files.", NVPD),
                 _x("nvidia-persistenced[1234]: Unable to find any NVIDIA devices", NVPD))),
    # a persistenced already holds the PID file: one from the host's own driver install
    _s("persistenced-pid-locked", "failed to lock pid file",
       r"nvidia-persistenced\S*:? failed to lock pid file", {"driver-in-use": 2.0}, (LOG, JOURNAL),
       examples=(_x("nvidia-persistenced[1234]: Failed to lock PID file: Resource temporarily "
                    "unavailable", NVPD),)),
    _s("persistenced-init-failed", "nvidia-persistenced failed to initialize",
       r"nvidia-persistenced failed to initialize", {"nvml-init": 1.0, "driver-failing": 1.0},
       (LOG,),
       examples=(_x("nvidia-persistenced failed to initialize. Check syslog for more details.",
                    NVPD),)),
    # ---- nvidia-installer (inside the driver container) --------------------------------------
    _s("installer-kernel-headers", "kernel header file|kernel output path",
       r"the kernel header file '[^']*' does not exist|"
       r"neither the '[^']*' nor the '[^']*' kernel header file exists|"
       r"the kernel output path '[^']*' does not exist",
       {"kernel-headers": 3.5}, (LOG,), True,
       examples=(_x("ERROR: The kernel header file '/lib/modules/5.15.0-91-generic/build/include/"
                    "linux/kernel.h' does not exist.  The most likely reason for this is that "
                    "the kernel source path '/lib/modules/5.15.0-91-generic/build' is incorrect.",
                    INST + "kernel.c"),
                 _x("ERROR: Neither the '/usr/src/kernels/5.14.0-427.el9.x86_64/include/"
                    "generated/uapi/linux/version.h' nor the '/usr/src/kernels/5.14.0-427.el9."
                    "x86_64/include/linux/version.h' kernel header file exists.",
                    INST + "kernel.c"),
                 _x("ERROR: The kernel output path '/lib/modules/5.15.0-91-generic/build' does "
                    "not exist.", INST + "kernel.c"))),
    _s("installer-toolchain-missing", "unable to find the development tool|libc header files",
       r"unable to find the development tool `[^`]*` in your path|"
       r"you do not appear to have libc header files installed",
       {"driver-failing": 2.5, "kernel-headers": 0.5}, (LOG,), True,
       examples=(_x("ERROR: Unable to find the development tool `cc` in your path; please make "
                    "sure that you have the package 'gcc' installed.", INST + "misc.c"),
                 _x("ERROR: You do not appear to have libc header files installed on your "
                    "system.  Please install your distribution's libc development package.",
                    INST + "misc.c"))),
    _s("installer-module-not-created", "kernel module was not created",
       r"the nvidia[\w-]* kernel module was not created",
       {"driver-failing": 2.0, "kernel-headers": 1.0}, (LOG,),
       examples=(_x("ERROR: The nvidia kernel module was not created.", INST + "kernel.c"),)),
    # the installer writing into a root that changes under it (mkdir failing with ENOENT, its
    # own files gone right after install): in the driver container, a stale or vanished
    # /run/nvidia/driver mount left by the previous driver pod
    _s("installer-install-root-broken", "failure creating directory|unable to find installed "
       "file",
       r"failure creating directory '[^']*' : \(no such file or directory\)|"
       r"unable to find installed file '[^']*' \(no such file or directory\)",
       {"driver-failing": 2.5, "gpu-init": 0.5}, (LOG,),
       examples=(_x("ERROR: Failure creating directory '/lib/firmware/nvidia' : (No such file or "
                    "directory)", INST + "common-utils/common-utils.c"),
                 _x("WARNING: Unable to find installed file '/lib/firmware/nvidia/580.126.20/"
                    "gsp_ga10x.bin' (No such file or directory).", INST + "misc.c"))),
    # the GPU list check: a GPU only a legacy branch drives, or none the branch supports
    _s("installer-gpu-unsupported", "legacy linux graphics drivers|nvidia gpu supported by the",
       r"supported through nvidia legacy linux graphics drivers and will be ignored|"
       r"you do not appear to have an nvidia gpu supported by the [\d.]+ nvidia linux",
       {"gpu-unsupported": 3.5}, (LOG,), True,
       examples=(_x("WARNING: The following NVIDIA GPUs are supported through NVIDIA legacy Linux "
                    "graphics drivers and will be ignored by the NVIDIA 580.95.05 Linux graphics "
                    "driver:", INST + "misc.c"),
                 _x("WARNING: You do not appear to have an NVIDIA GPU supported by the 580.95.05 "
                    "NVIDIA Linux graphics driver installed in this system.", INST + "misc.c"))),
    _s("installer-open-unsupported", "unlikely to support the open gpu kernel",
       r"is unlikely to support the open gpu kernel modules",
       {"gpu-unsupported": 3.0}, (LOG,), True,
       examples=(_x("WARNING: The unknown GPU with PCI device ID 0x1EB8 is unlikely to support "
                    "the open GPU kernel modules; assuming they are unsupported for this device.",
                    INST + "misc.c"),)),
    # an existing (host) driver installation the installer will not replace
    _s("installer-alternate-driver", "alternate driver installation",
       r"installation was canceled due to the availability or presence of an alternate driver",
       {"driver-in-use": 3.0}, (LOG,), True,
       examples=(_x("ERROR: The installation was canceled due to the availability or presence of "
                    "an alternate driver installation. Please see /var/log/nvidia-installer.log "
                    "for more details.", INST + "install-from-cwd.c"),)),
    _s("installer-nouveau-blacklisted", "disable nouveau are already present",
       r"modprobe configuration files to disable nouveau are already present",
       {"nouveau": 3.0, "nouveau-loaded": 2.0}, (LOG,), True,
       examples=(_x("ERROR: One or more modprobe configuration files to disable Nouveau are "
                    "already present at: /usr/lib/modprobe.d/nvidia-installer-disable-nouveau.conf",
                    INST + "misc.c"),)),
    # ---- the kernel module's NVRM lines --------------------------------------------------------
    _s("nvrm-rm-init-adapter-minor", "rm_init_adapter failed",
       r"rm_init_adapter failed, device minor number \d+", {"gpu-init": 3.0}, (DMESG, LOG), True,
       examples=(_x("NVRM: GPU 0000:3b:00.0: rm_init_adapter failed, device minor number 0",
                    OGKM + "kernel-open/nvidia/nv.c"),)),
    _s("nvrm-power-cables", "necessary power cables",
       r"gpu does not have the necessary power cables connected", {"gpu-init": 4.0},
       (DMESG, LOG), True,
       examples=(_x("NVRM: GPU 0000:3b:00.0: GPU does not have the necessary power cables "
                    "connected.", OGKM + "src/nvidia/arch/nvalloc/unix/src/osinit.c"),)),
    # the GSP firmware file for this driver version is not under /lib/firmware/nvidia/<ver>
    _s("nvrm-gsp-firmware-missing", "no firmware image found",
       r"nvrm:? rmfetchgsprmimages: no firmware image found", {"gpu-init": 3.5}, (DMESG, LOG),
       True,
       examples=(_x("NVRM: RmFetchGspRmImages: No firmware image found",
                    OGKM + "src/nvidia/arch/nvalloc/unix/src/osinit.c"),)),
    # GSP-RM would not start: firmware, hardware, or a GPU the open module cannot drive
    _s("nvrm-gsp-init", "cannot initialize gsp firmware rm|cannot proceed with booting gsp|"
       "failed to boot gsp",
       r"cannot initialize gsp firmware rm|unexpected wpr2 already up, cannot proceed with "
       r"booting gsp|nvrm:? \w+: failed to boot gsp",
       {"gpu-init": 2.0, "gpu-unsupported": 1.0}, (DMESG, LOG),
       examples=(_x("NVRM: RmInitAdapter: Cannot initialize GSP firmware RM",
                    OGKM + "src/nvidia/arch/nvalloc/unix/src/osinit.c"),
                 _x("NVRM: kgspBootstrap_TU102: unexpected WPR2 already up, cannot proceed with "
                    "booting GSP", OGKM + "src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c"),
                 _x("NVRM: kgspBootstrap_TU102: Failed to boot GSP.",
                    OGKM + "src/nvidia/src/kernel/gpu/gsp/arch/turing/kernel_gsp_tu102.c"))),
    # 515's open module on a GPU without the NVDEC engine its GSP boot needs
    _s("nvrm-gsp-missing-nvdec", "missing nvdec0 engine",
       r"missing nvdec0 engine, cannot initialize gsp-rm", {"gpu-unsupported": 4.0},
       (DMESG, LOG), True,
       examples=(_x("NVRM: kgspInitRm_IMPL: missing NVDEC0 engine, cannot initialize GSP-RM",
                    OGKM515 + "src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c"),)),
    # GSP stops answering RPCs (reported with Xid 119/120): a GPU/firmware fault at run time
    _s("nvrm-gsp-timeout", "gsp timeout|waiting for rpc response from gpu",
       r"\*+ gsp timeout \*+|timeout after \d+m?s of waiting for rpc response from gpu\d+ gsp",
       {"xid": 3.0, "unhealthy": 1.0}, (DMESG, JOURNAL, LOG), True,
       examples=(_x("NVRM: _kgspLogXid119: ********************************* GSP Timeout "
                    "**********************************",
                    OGKM + "src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c"),
                 _x("NVRM: Xid (PCI:0000:3b:00): 119, pid=1512, name=nvidia-smi, Timeout after "
                    "6s of waiting for RPC response from GPU0 GSP! Expected function 76 "
                    "(GSP_RM_CONTROL) sequence 1034 (0x20800a4c 0x4).",
                    OGKM + "src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c"))),
    # PCI resources the firmware assigned the GPU are unusable (BAR sizing, above-4G decoding)
    _s("nvrm-pci-resources", "pci i/o region assigned|find an irq|pci_enable_device failed",
       r"this pci i/o region assigned to your nvidia device is invalid|"
       r"can't find an irq for your nvidia card|nvrm: pci_enable_device failed",
       {"gpu-init": 3.5}, (DMESG, LOG), True,
       examples=(_x("NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:",
                    OGKM + "kernel-open/nvidia/nv-pci.c"),
                 _x("NVRM: Can't find an IRQ for your NVIDIA card!",
                    OGKM + "kernel-open/nvidia/nv-pci.c"),
                 _x("NVRM: pci_enable_device failed, aborting",
                    OGKM + "kernel-open/nvidia/nv-pci.c"))),
    # another driver owns the registers, or took the device before nvidia probed it
    _s("nvrm-device-claimed", "request_mem_region failed|obtained ownership of the nvidia",
       r"nvrm: request_mem_region failed for \d+m @|obtained ownership of the nvidia device",
       {"nouveau": 2.0, "gpu-init": 1.0}, (DMESG, LOG),
       examples=(_x("NVRM: request_mem_region failed for 16M @ 0xf6000000. This can",
                    OGKM + "kernel-open/nvidia/nv-pci.c"),
                 _x("NVRM: obtained ownership of the NVIDIA device(s).",
                    OGKM + "kernel-open/nvidia/nv.c"))),
    _s("nvrm-legacy-gpu", "ignoring the legacy gpu",
       r"nvrm: ignoring the legacy gpu", {"gpu-unsupported": 4.0}, (DMESG, LOG), True,
       examples=(_x("NVRM: ignoring the legacy GPU 0000:01:00.0",
                    OGKM + "kernel-open/nvidia/nv-pci.c"),)),
    # the module cannot be removed while a client holds the GPU
    _s("nvrm-remove-in-use", "with non-zero usage count",
       r"nvrm: attempting to remove device \S+ with non-zero usage count",
       {"driver-in-use": 3.0}, (DMESG, LOG), True,
       examples=(_x("NVRM: Attempting to remove device 0000:3b:00.0 with non-zero usage count!",
                    OGKM + "kernel-open/nvidia/nv-pci.c"),)),
    # the probe reading all-ones from the GPU's registers: it does not answer on PCIe at all
    # (the message wraps over three NVRM lines; the last one is the fixed one)
    _s("nvrm-probe-off-bus", "fallen off the bus and is not responding",
       r"^\W*(?:nvrm:\s*)?fallen off the bus and is not responding to commands",
       {"gpu-init": 2.5, "xid": 1.5}, (DMESG, LOG), True,
       examples=(_x("NVRM: fallen off the bus and is not responding to commands.",
                    OGKM + "src/nvidia/arch/nvalloc/unix/src/osapi.c"),)),
    # ---- NVML's own return codes, as its callers print them -----------------------------------
    # go-nvml names the code (ERROR_LIB_RM_VERSION_MISMATCH) where nvidia-smi prints
    # "Driver/library version mismatch": the loaded module and the library differ
    _s("nvml-rm-version-mismatch", "error_lib_rm_version_mismatch",
       r"\berror_lib_rm_version_mismatch\b", {"nvml-mismatch": 4.0}, (LOG, STATUS), True,
       examples=(_x("W0312 10:02:10.000000 1 factory.go:107] nvml init failed: "
                    "ERROR_LIB_RM_VERSION_MISMATCH", DP + "internal/plugin/factory.go"),
                 _x("Failed to initialize NVML: ERROR_LIB_RM_VERSION_MISMATCH",
                    "NVIDIA/go-nvml@v0.13.3-0:pkg/nvml/return.go"))),
    # libnvidia-container's NVML calls failing on a GPU that faulted (it needs a reset, or fell
    # off the bus): the container cannot start, but the runtime is not what broke
    _s("nvml-gpu-fault-cli", "nvml error: gpu requires reset|nvml error: gpu is lost",
       r"nvml error: gpu (?:requires reset|is lost)", {"xid": 4.0, "unhealthy": 1.0},
       (LOG, EVENT, STATUS), True,
       examples=(_x("nvidia-container-cli: detection error: nvml error: gpu requires reset", NVC),
                 _x("stderr: nvidia-container-cli: initialization error: nvml error: gpu is lost: "
                    "unknown", NVC))),
    # ---- k8s-device-plugin and GFD -------------------------------------------------------------
    # a MIG-enabled GPU without MIG devices (the layout was never applied, or was cleared)
    _s("plugin-mig-no-devices", "has no mig devices configured|has an invalid mig configuration",
       r"device \d+ has (?:no mig devices configured|an invalid mig configuration)",
       {"mig-failed": 3.0, "plugin-config-invalid": 0.5}, (LOG,), True,
       examples=(_x("W0312 10:02:10.000000 1 device_map.go:174] device 0 has no MIG devices "
                    "configured", DP + "internal/rm/device_map.go"),
                 _x("invalid MIG configuration: device 0 has an invalid MIG configuration",
                    DP14 + "internal/rm/device_map.go"))),
    # single's "same migEnabled value" / "more than one MIG device type" refusals are the MIG
    # strategy against the layout (GX419): knowledge/signatures_config.py
    # the config's resources/sharing sections that name devices or patterns the node lacks, or
    # are malformed
    _s("plugin-config-resources", "does not match any resource patterns|devices to be replicated|"
       "no matching device|devices set as|resource name|field set|no replicas specified|"
       "unknown mig strategy|unknown strategy",
       r"(?:gpu name|mig profile) '[^']*' does not match any resource patterns|"
       r"requested \d+ devices to be replicated, but only \d+ devices available|"
       r"no matching device (?:with uuid|at index): |"
       r"devices set as '[^']*' but (?:the only valid string input is 'all'|a count of devices)|"
       r"incorrect format for resource name '|fully-qualified resource name must be \d+ "
       r"characters|resources must have a '(?:pattern|name)' field set|"
       r"\bno replicas specified|unknown (?:mig )?strategy: ",
       {"plugin-config-invalid": 3.5}, (LOG,), True,
       examples=(_x("error building device map from config.resources: error building GPU device "
                    "map: GPU name 'NVIDIA H100 80GB HBM3' does not match any resource patterns",
                    DP + "internal/rm/device_map.go"),
                 _x("MIG profile '1g.10gb' does not match any resource patterns",
                    DP + "internal/rm/device_map.go"),
                 _x("error updating device map with replicas from replicatedResources config: "
                    "requested 4 devices to be replicated, but only 2 devices available",
                    DP + "internal/rm/device_map.go"),
                 _x("no matching device with UUID: GPU-5c0f2a11", DP + "internal/rm/device_map.go"),
                 _x("devices set as 'some' but the only valid string input is 'all'",
                    DP + "api/config/v1/replicas.go"),
                 _x("incorrect format for resource name 'nvidia.com/GPU': a lowercase RFC 1123 "
                    "label must consist of lower case alphanumeric characters",
                    DP + "api/config/v1/resources.go"),
                 _x("resources must have a 'pattern' field set", DP + "api/config/v1/resources.go"),
                 _x("unable to parse config file: no replicas specified",
                    DP + "api/config/v1/replicas.go"),
                 _x("unable to validate flags: unknown MIG strategy: mix",
                    DP + "cmd/nvidia-device-plugin/main.go"),
                 _x("error creating plugin manager: unknown strategy: mix",
                    DP13 + "cmd/nvidia-device-plugin/plugin-manager.go"))),
    # MPS sharing asked for with what it cannot run with
    _s("plugin-mps-invalid", "not supported with mps|requires --mps-root|mps sharing is not "
       "supported|maximum allowed replicas exceeded|invalid mps configuration|"
       "sharing using mps is not supported",
       r"using --mig-strategy=mixed is not supported with mps|using mps requires --mps-root|"
       r"mps sharing is not supported for mig devices|maximum allowed replicas exceeded: \d+ > "
       r"\d+|invalid mps configuration: |sharing using mps is not supported for mig devices",
       {"plugin-config-invalid": 3.0}, (LOG,), True,
       examples=(_x("unable to validate flags: using --mig-strategy=mixed is not supported with "
                    "MPS", DP + "cmd/nvidia-device-plugin/main.go"),
                 _x("using MPS requires --mps-root to be specified",
                    DP + "cmd/nvidia-device-plugin/main.go"),
                 _x("MPS sharing is not supported for MIG devices; skipping daemon creation",
                    DP + "cmd/mps-control-daemon/mps/manager.go"),
                 _x("invalid MPS configuration: invalid device: maximum allowed replicas "
                    "exceeded: 64 > 48", DP + "cmd/mps-control-daemon/mps/device.go"),
                 # the plugin's own check (v0.15 on): MPS asked for over a MIG-mode GPU
                 _x("E0312 10:02:10.000000 1 main.go:173] error starting plugins: error getting "
                    "plugins: unable to create plugins: failed to create plugin: sharing using "
                    "MPS is not supported for MIG devices",
                    "NVIDIA/k8s-device-plugin@v0.17.0:internal/plugin/mps.go"))),
    # CDI device lists, or mixed MIG, where the plugin found no NVML (a Tegra system, or NVML
    # not injected into the plugin's container)
    _s("plugin-needs-nvml", "only supported on nvml-based systems|is only supported with nvml",
       r"cdi --device-list-strategy options are only supported on nvml-based systems|"
       r"mig-strategy=\S+ is only supported with nvml",
       {"runtime-not-default": 2.5, "plugin-config-invalid": 1.0, "not-advertised": 0.5},
       (LOG,),
       examples=(_x("unable to validate flags: CDI --device-list-strategy options are only "
                    "supported on NVML-based systems", DP + "cmd/nvidia-device-plugin/main.go"),
                 _x('W0312 10:02:10.000000 1 rm.go:121] mig-strategy="mixed" is only supported '
                    "with NVML", DP + "internal/rm/rm.go"))),
    # the health checker cannot place a device (its NVML event registration failed)
    _s("plugin-placement-unhealthy", "could not determine device placement",
       r"could not determine device placement for \S+: .*marking it unhealthy",
       {"unhealthy": 3.0}, (LOG,), True,
       examples=(_x("W0312 10:02:10.000000 1 health.go:82] Could not determine device placement "
                    "for GPU-5c0f2a11: Not Supported; Marking it unhealthy.",
                    DP + "internal/rm/health.go"),
                 _x("2022/03/01 10:02:51 Warning: could not determine device placement for "
                    "GPU-5c0f2a11: Unknown Error; Marking it unhealthy.",
                    DP13 + "internal/rm/health.go"))),
    # the allocator's per-device NVML queries failing after NVML came up: the GPU (or the
    # driver's view of it) stopped answering; not the container's lost device access alone
    _s("plugin-nvml-device-query", "error creating nvml.device",
       r"error creating nvml\.device \d+: nvml: (?:unknown error|gpu is lost|not supported)",
       {"nvml-init": 1.5, "gpu-init": 1.0, "device-lost": 1.0, "xid": 0.5}, (LOG, EVENT, STATUS),
       examples=(_x("error getting list of preferred allocation devices: unable to retrieve list "
                    "of available devices: error creating nvml.Device 0: nvml: Unknown Error",
                    DP14 + "vendor/github.com/NVIDIA/go-gpuallocator/gpuallocator/device.go"),)),
    # a kubelet that does not serve the plugin's registration API version (a plugin release
    # newer than the kubelet supports); plugin-register-failed votes the GX202 symptom
    _s("plugin-kubelet-api-unknown", "unknown service v1",
       r"could not register device plugin: .*unknown service v1\w*\.registration",
       {"unsupported-stack": 4.5}, (LOG,), True,
       examples=(_x("Could not register device plugin: rpc error: code = Unimplemented desc = "
                    "unknown service v1beta1.Registration", DP + "internal/plugin/server.go"),)),
    # a GPU whose NVML cannot report its memory (GB10's unified memory: Not Supported): plugins
    # up to v0.17.3 stop at enumeration, v0.17.4 on log "Ignoring error getting device memory"
    # and register the GPU, so the plugin release is older than the GPU it serves
    _s("plugin-device-memory", "error getting device memory",
       r"(?<!ignoring )error getting device memory: not supported",
       {"unsupported-stack": 3.5}, (LOG, STATUS), True,
       examples=(_x("E1101 10:02:10.000000       1 main.go:173] error starting plugins: error "
                    "getting plugins: unable to create plugins: failed to construct resource "
                    "managers: error building device map: error building device map from "
                    "config.resources: error building GPU device map: error building Device: "
                    "error getting device memory: Not Supported",
                    "NVIDIA/k8s-device-plugin@v0.17.3:internal/rm/devices.go"),)),
    # a binary built against a newer NVML than the node's driver ships (the driver branch is
    # older than the component supports); the dynamic loader stops it at the first call. A
    # ticket often quotes the loader's last words only (``undefined symbol: nvml…``)
    _s("nvml-undefined-symbol", "undefined symbol: nvml",
       r"(?:symbol lookup error: .*)?undefined symbol: nvml[a-z]\w+",
       {"unsupported-stack": 3.5}, (LOG, STATUS), True,
       examples=(_x("nvidia-device-plugin: symbol lookup error: nvidia-device-plugin: undefined "
                    "symbol: nvmlDeviceGetPciInfo_v3", GLIBC),
                 _x("dcgm-exporter: symbol lookup error: /usr/lib/x86_64-linux-gnu/libdcgm.so.4: "
                    "undefined symbol: nvmlDeviceGetGpuFabricInfoV", GLIBC))),
    # ---- the kernel driver's own build and packages -----------------------------------------
    # the compiler stopping in the driver's kernel sources (nvidia/nv.c, nvidia-uvm/…,
    # kernel-open/…), as DKMS or the installer print it in GCC's `file:line:col: error:` form:
    # the module was not built for this kernel (a kernel newer than the branch supports, an
    # API the kernel changed), so nothing loads it
    _s("driver-module-compile-error", ": error:",
       r"^\s*(?:\S*/)?(?:nvidia(?:-uvm|-modeset|-drm|-peermem)?|common/inc|kernel-open)/"
       r"[\w./-]+\.[ch]:\d+:\d+: (?:fatal )?error: ",
       {"driver-failing": 3.0, "kernel-headers": 1.0}, (LOG, DMESG, JOURNAL, STATUS), True,
       examples=(_x("nvidia/nv.c:130:18: error: expected ‘,’ or ‘;’ before ‘DMA_BUF’",
                    GH + "NVIDIA/open-gpu-kernel-modules/issues/751"),)),
    # the package manager finding no driver package by the name asked for (a repository that
    # lost the branch's meta-package, a name the distribution does not ship): nothing installs
    _s("driver-package-missing", "no package matching|unable to locate package",
       r"no package matching '(?:cuda-drivers|nvidia-driver|nvidia-dkms|kmod-nvidia)[\w.-]*' "
       r"is available|unable to locate package (?:cuda-drivers|nvidia-driver|nvidia-dkms)"
       r"[\w.-]*",
       {"driver-failing": 3.0}, (LOG, STATUS), True,
       examples=(_x('fatal: [nodename]: FAILED! => {"changed": false, "msg": "No package '
                    "matching 'cuda-drivers-510' is available\"}",
                    "ansible/ansible@v2.12.0:lib/ansible/modules/apt.py"),)),
    # the NVSwitch kernel driver refusing a user-space library of another driver version
    # (NSCQ or DCGM shipping their own copy): a kernel/user mismatch, as NVML's
    _s("nvswitch-version-mismatch", "nvidia-nvswitch: version mismatch",
       r"nvidia-nvswitch: version mismatch, kernel version \S+ user version \S+",
       {"nvml-mismatch": 3.5}, (LOG, DMESG, JOURNAL), True,
       examples=(_x("nvidia-nvswitch: Version mismatch, kernel version 450.80.02 user version "
                    "450.51.06", GH + "NVIDIA/libnvidia-container/issues/130"),)),
    # ---- mig-parted / mig-manager --------------------------------------------------------------
    _s("mig-parted-instances", "migconfig|mig device specified|orderings failed|"
       "error destroying|error creating gpu instance|error creating compute instance|"
       "subset of any valid configuration|all counts for all migprofiles",
       r"exceeded maximum attempts to clear migconfig|error clearing migconfig|"
       r"unsupported mig device specified \S+, expected|\ball orderings failed|"
       r"error destroying (?:gpu|compute) instance for profile|"
       r"error creating (?:gpu|compute) instance for '|"
       r"cannot configure as a subset of any valid configuration|"
       r"all counts for all migprofiles are 0",
       {"mig-failed": 3.5}, (LOG,), True,
       examples=(_x("Error clearing MigConfig: exceeded maximum attempts to clear MigConfig",
                    MIG + "pkg/mig/config/config.go"),
                 _x("unsupported MIG Device specified 0x233010DE, expected 0x20B010DE instead",
                    MIG + "pkg/mig/config/config.go"),
                 _x('level=error msg="Error attempting multiple config orderings: all orderings '
                    'failed"', MIG + "pkg/mig/config/config.go"),
                 _x("error destroying GPU instance for profile '19': In use by another client",
                    MIG + "pkg/mig/config/config.go"),
                 _x("error destroying Compute instance for profile '(0, 0)': In use by another "
                    "client", MIG + "pkg/mig/config/config.go"),
                 _x("invalid MigConfig: cannot configure as a subset of any valid configuration",
                    MIG + "pkg/types/mig_config_group.go"),
                 _x("all counts for all MigProfiles are 0", MIG + "pkg/types/mig_config.go"),
                 _x("error setting MigConfig: error creating GPU instance for '1g.10gb': "
                    "Insufficient Resources", MIG + "pkg/mig/config/config.go"),
                 _x("error creating Compute instance for '(0, 0)': Insufficient Resources",
                    MIG055 + "pkg/mig/state/state.go"))),
    # mig-parted run where the GPU or driver cannot do MIG
    _s("mig-parted-no-mig", "nvidia module not loaded|error checking if nvidia module|"
       "unsupported for performing mig|no mig-capable devices|non mig-capable gpu|"
       "waiting for gpu to boot",
       r"\bnvidia module not loaded|error checking if nvidia module loaded: |"
       r"nvml version unsupported for performing mig operations|"
       r"no mig-capable devices found on the system|unable to assert mig mode enabled on non "
       r"mig-capable gpu|error waiting for gpu to boot",
       {"mig-failed": 2.5, "nvml-init": 0.5}, (LOG,), True,
       examples=(_x('FATA[0000] Error checking if nvidia module loaded: nvidia module not loaded',
                    MIG + "cmd/nvidia-mig-parted/util/mig.go"),
                 _x("NVML version unsupported for performing MIG operations",
                    MIG + "cmd/nvidia-mig-parted/util/mig.go"),
                 _x("failed to setup MIG config: failed to generate MIG config: no MIG-capable "
                    "devices found on the system", MIG + "pkg/mig/discovery/discovery.go"),
                 _x("unable to assert MIG mode enabled on non MIG-capable GPU",
                    MIG + "cmd/nvidia-mig-parted/assert/mode.go"),
                 _x("error waiting for GPU to boot: timeout after 30 seconds",
                    MIG + "pkg/mig/mode/pci.go"),
                 _x('level=fatal msg="error checking if nvidia module loaded: unable to read '
                    '/proc/modules: open /proc/modules: no such file or directory"',
                    MIG055 + "cmd/nvidia-mig-parted/util/mig.go"))),
    # after a layout change the manager brings the GPU clients back; they do not come
    _s("mig-manager-restart-clients", "gpu clients|failed to run nvidia-smi|"
       "no config available and generation failed|host systemd services|already rebooted once",
       r"failed to restart (?:host|kubernetes) gpu clients|unable to restart gpu clients on "
       r"host|^\W*failed to run nvidia-smi\W*$|no config available and generation failed|"
       r"unable to restart host systemd services|machine already rebooted once -- not attempting",
       {"mig-failed": 2.5}, (LOG,),
       examples=(_x("failed to restart Kubernetes GPU clients: timed out waiting for the "
                    "condition", MIG + "pkg/mig/reconfigure/reconfigure.go"),
                 _x("Unable to restart GPU clients on host by restarting their systemd services",
                    MIG + "deployments/container/reconfigure-mig.sh"),
                 _x("Failed to run nvidia-smi", MIG + "deployments/container/reconfigure-mig.sh"),
                 _x("Error: No config available and generation failed",
                    MIG + "deployments/systemd/service.sh"),
                 _x("Unable to restart host systemd services",
                    MIG + "deployments/container/reconfigure-mig.sh"),
                 _x("Machine already rebooted once -- not attempting again",
                    "NVIDIA/mig-parted@v0.5.5:deployments/systemd/utils.sh"))),
    # ---- dcgm-exporter -----------------------------------------------------------------------
    # embedded DCGM without libdcgm in the image (or on the host it expects it from)
    _s("dcgm-lib-not-found", "library was not found. install data center gpu manager",
       r"libdcgm\S* library was not found\. install data center gpu manager",
       {"dcgm-connect": 3.0}, (LOG,), True,
       examples=(_x('level=ERROR msg="the libdcgm.so.4 library was not found. Install Data Center '
                    'GPU Manager (DCGM)."', DCGM + "internal/pkg/prerequisites/variables.go"),)),
    _s("dcgm-lib-arch", "library architecture mismatch with the system",
       r"libdcgm\S* library architecture mismatch with the system",
       {"unsupported-stack": 2.5, "dcgm-connect": 1.0}, (LOG,), True,
       examples=(_x("the libdcgm.so.4 library architecture mismatch with the system; wanted: "
                    "x86_64, received: aarch64", DCGM + "internal/pkg/prerequisites/"
                    "dcgmlib_rule.go"),)),
    # go-dcgm starting or initialising the engine itself (embedded or started mode), and the
    # DCGM library too old for the connection string it was given
    _s("dcgm-engine-start", "nv-hostengine|error initializing dcgm|dcgm connection strings",
       r"error (?:starting|finding|fork-execing) nv-hostengine|error initializing dcgm: |"
       r"dcgm connection strings require dcgm [\d.]+ or newer",
       {"dcgm-connect": 3.0}, (LOG,), True,
       examples=(_x('level=fatal msg="error starting nv-hostengine: DCGM initialization error"',
                    GODCGM),
                 _x("error initializing DCGM: NVML error", GODCGM),
                 _x("dcgmConnect_v3 is not available in libdcgm.so.4; DCGM connection strings "
                    "require DCGM 4.5.0 or newer", GODCGM))),
    # DCGM's own status strings, as the exporter (or dcgmi) wraps them; no NVML in DCGM's
    # container is the driver libraries not injected into it (as for the plugin's NVML)
    _s("dcgm-no-nvml", "nvml doesn't exist on this system",
       r"because nvml doesn't exist on this system",
       {"runtime-not-default": 2.5, "nvml-init": 1.5}, (LOG,), True,
       examples=(_x('level=fatal msg="Error watching fields: Cannot perform the requested '
                    'operation because NVML doesn\'t exist on this system."', DCGMLIB),)),
    _s("dcgm-driver-too-old", "driver version is insufficient for this api",
       r"the installed driver version is insufficient for this api",
       {"unsupported-stack": 3.0}, (LOG,), True,
       examples=(_x("Error watching fields: The installed driver version is insufficient for "
                    "this API", DCGMLIB),)),
    _s("dcgm-lib-missing", "dcgm library could not be found",
       r"dcgm library could not be found", {"dcgm-connect": 3.0}, (LOG,), True,
       examples=(_x('level=fatal msg="Error initializing DCGM: DCGM library could not be found"',
                    DCGMLIB),)),
    _s("dcgm-nvml-timeout", "nvml driver timeout error was detected",
       r"an nvml driver timeout error was detected", {"xid": 2.0, "unhealthy": 1.0}, (LOG,),
       examples=(_x("Cannot perform the requested operation because an NVML driver timeout "
                    "error was detected.", DCGMLIB),)),
    # profiling (DCP) metrics asked for without CAP_SYS_ADMIN: they are never exported
    _s("dcgm-profiling-privileges", "sufficient privileges to expose profiling metrics",
       r"doesn't have sufficient privileges to expose profiling metrics",
       {"dcgm-profiling": 2.0}, (LOG,),
       examples=(_x('level=WARN msg="dcgm-exporter doesn\'t have sufficient privileges to expose '
                    'profiling metrics. To get profiling metrics with dcgm-exporter, use '
                    '--cap-add SYS_ADMIN"', DCGM + "internal/pkg/capabilities/capabilities.go"),
                 _x("Warning #2: dcgm-exporter doesn't have sufficient privileges to expose "
                    "profiling metrics. To get profiling metrics with dcgm-exporter, use "
                    "--cap-add SYS_ADMIN", "NVIDIA/dcgm-exporter@3.3.5-3.4.1:docker/"
                    "dcgm-exporter-entrypoint.sh"))),
    # ---- Fabric Manager -------------------------------------------------------------------------
    # nvidia-smi -q's Fabric block: a GPU still registering with the NVLink fabric, which stays
    # so while Fabric Manager (or NVLSM on NVLink5+) is not running; CUDA reports "system not
    # yet initialized" meanwhile (a hint: registration also passes through it at boot)
    _s("smi-fabric-in-progress", "in progress",
       r"^\s*state\s*:\s*in progress\s*$", {"fm-missing": 2.0}, (SMI,),
       examples=(_x("        State                                          : In Progress",
                    "https://github.com/NVIDIA/gpu-operator/issues/2511"),)),
    # its config names a file or path it cannot use: it exits and the NVSwitch fabric stays down
    _s("fm-config-invalid", "fabric manager config file item",
       r"fabric manager config file item: \S+ has an invalid value",
       {"fm-missing": 3.0}, (JOURNAL, LOG), True,
       examples=(_x("fabric manager config file item: FABRIC_NODE_CONFIG_FILE has an invalid "
                    "value", "https://github.com/siderolabs/extensions/issues/511"),)),
    # ---- read across releases: validator v1.x-v26.x, operator, driver scripts, NVRM ----------
    # The validator's driver stage runs nvidia-smi in the driver root after the driver container
    # says it is ready (v1.x-v23.x: `chroot /run/nvidia/driver nvidia-smi`, its stderr passed
    # through): no binary there means the driver container never finished its install
    _s("validator-chroot-no-smi", "failed to run command",
       r"chroot: failed to run command '?nvidia-smi'?: no such file or directory",
       {"driver-failing": 1.5, "operand-init": 0.5}, (LOG, VALIDATOR),
       examples=(_x("chroot: failed to run command 'nvidia-smi': No such file or directory",
                    OP239 + "validator/main.go"),)),
    # the /dev/char symlinks the validator creates need the device nodes first (its module
    # loading fails with modprobe's own output, which the catalog reads): no nvidia major in
    # /proc/devices is a kernel module that is not loaded at all
    _s("validator-devchar-no-major", "missing required device major",
       r"missing required device major \S+", {"nvml-init": 2.5, "driver-failing": 0.5},
       (LOG, VALIDATOR),
       examples=(_x("Error: error validating driver installation: error creating symlink "
                    "creator: failed to create all possible device lister: missing required "
                    "device major nvidia-uvm",
                    CTK1170 + "cmd/nvidia-ctk/system/create-dev-char-symlinks/all.go"),)),
    # the cuda and plugin stages run a workload pod; one that cannot be created or never
    # completes keeps every later operand in Init
    _s("validator-workload-pod", "error validating cuda workload|validation pod|gave up waiting "
       "for pod",
       r"error validating cuda workload: |failed to create (?:cuda|plugin) validation pod|"
       r"gave up waiting for pod \S+ to be available",
       {"operand-init": 1.0, "driver-failing": 0.25}, (LOG, VALIDATOR),
       examples=(_x('time="2023-10-01T10:00:00Z" level=info msg="Error: error validating cuda '
                    'workload: gave up waiting for pod nvidia-cuda-validator-x2k9p to be '
                    'available"', OP239 + "validator/main.go"),
                 _x("Error: error validating plugin installation: failed to create plugin "
                    "validation pod nvidia-device-plugin-validator-x2k9p, err pods "
                    "\"nvidia-device-plugin-validator-x2k9p\" is forbidden: violates PodSecurity "
                    "\"restricted:latest\"", OP + "cmd/nvidia-validator/main.go"))),
    # GPUDirect add-on drivers (GDS nvidia-fs, GDRCopy, nvidia-peermem, MOFED) the driver stage
    # waits for: the driver pod's side containers did not load them
    _s("validator-addon-driver", "driver is not ready|driver installation",
       r"(?:nvidia-fs|gdrcopy|nvidia-peermem) driver is not ready|"
       r"error validating (?:nvidia-fs|gdrcopy|nvidia-peermem|mofed) driver installation",
       {"driver-failing": 1.5}, (LOG, VALIDATOR),
       examples=(_x("nvidia-fs driver is not ready", OP239 + "validator/main.go"),
                 _x("gdrcopy driver is not ready", OP + "cmd/nvidia-validator/main.go"),
                 _x('level=info msg="Error: error validating nvidia-peermem driver installation: '
                    'exit status 1"', OP + "cmd/nvidia-validator/main.go"),
                 _x("Error: error validating MOFED driver installation: exit status 1",
                    OP239 + "validator/main.go"))),
    # sandbox workloads: the vGPU manager (the host driver of vGPU) is not up, or created no
    # vGPU devices ("No vGPU devices found, retrying" is the wait, not the failure)
    _s("validator-vgpu-manager", "vgpu manager|vgpu devices",
       r"vgpu manager is not ready|error validating vgpu (?:manager installation|devices)|"
       r"vgpu manager parent devices not ready|\bno vgpu devices found(?!, retrying)",
       {"driver-failing": 1.5}, (LOG, VALIDATOR),
       examples=(_x("vGPU Manager is not ready", OP239 + "validator/main.go"),
                 _x("Error: error validating vGPU devices: No vGPU devices found",
                    OP239 + "validator/main.go"),
                 _x("Error: error validating vGPU Manager installation: vGPU Manager parent "
                    "devices not ready: timed out waiting for the condition",
                    OP + "cmd/nvidia-validator/main.go"))),
    # passthrough: a GPU still held by the nvidia driver (or by none) where vfio-pci should be
    _s("validator-vfio-unbound", "bound to 'vfio-pci'|is not bound to any driver",
       r"device not bound to 'vfio-pci'; device: \S+ driver: '(nvidia)?|"
       r"device \S+ is not bound to any driver",
       {"driver-in-use": 1.5, "driver-failing": 0.5}, (LOG, VALIDATOR),
       examples=(_x("Error: error validating vfio-pci driver installation: device not bound to "
                    "'vfio-pci'; device: 0000:3b:00.0 driver: 'nvidia'",
                    OP239 + "validator/main.go"),)),
    # precompiled drivers need each GPU node's kernel from NFD's labels (or, failing the same
    # lookup, one OS per kernel); logr writes the error as a key
    _s("operator-kernel-versions", "unable to obtain all kernel versions|did you run the node "
       "feature discovery",
       r"unable to obtain all kernel versions of the gpu nodes|"
       r"couldn't get kernelversion, did you run the node feature discovery",
       {"nodes-unlabelled": 2.0, "driver-os-mismatch": 0.75}, (LOG,),
       examples=(_x('INFO Unable to obtain all kernel versions of the GPU nodes in the cluster '
                    '{"err": "could not find NFD labels for node gpu-1"}',
                    OP + "controllers/state_manager.go"),
                 _x('INFO Couldn\'t get kernelVersion, did you run the node feature discovery? '
                    '{"Error": "kernel version label missing"}',
                    OP111 + "controllers/object_controls.go"))),
    _s("operator-precompiled-image-path", "image path for pre-compiled drivers",
       r"unable to resolve driver image path for pre-compiled drivers",
       {"driver-failing": 1.5, "precompiled-kernel": 1.0}, (LOG, STATUS), True,
       examples=(_x("unable to resolve driver image path for pre-compiled drivers, "
                    "driver.repository, driver.image and driver.version have to be specified in "
                    "the ClusterPolicy", OP + "controllers/object_controls.go"),)),
    # NVIDIADriver CRs that claim one node twice (or two defaults): the controller stops
    _s("operator-nvidiadriver-multiple", "multiple nvidiadrivers match|multiple default "
       "nvidiadrivers",
       r"multiple nvidiadrivers match the same node|multiple default nvidiadrivers found",
       {"driver-os-mismatch": 2.0, "driver-failing": 1.0}, (LOG, STATUS), True,
       examples=(_x("multiple NVIDIADrivers match the same node gpu-node-1: [ubuntu default]",
                    OP + "internal/validator/validator.go"),
                 _x("multiple default NVIDIADrivers found: [default-a default-b]",
                    OP + "internal/nvidiadriver/nvidiadriver.go"))),
    # ClusterPolicy/NVIDIADriver settings the controller refuses outright
    _s("operator-spec-refused", "not supported through nvidiadriver cr|nri plugin cannot be "
       "enabled",
       r"vgpu-host-manager driver type is not supported through nvidiadriver cr|"
       r"the nri plugin cannot be enabled when (?:cdi|the container toolkit) is disabled",
       {"unsupported-stack": 2.5}, (LOG, STATUS), True,
       examples=(_x("vgpu-host-manager driver type is not supported through NVIDIADriver CR",
                    OP239 + "controllers/nvidiadriver_controller.go"),
                 _x("the NRI Plugin cannot be enabled when CDI is disabled",
                    OP + "controllers/state_manager.go"),
                 _x("the NRI Plugin cannot be enabled when the Container Toolkit is disabled",
                    OP + "controllers/state_manager.go"))),
    # OpenShift: the operator finds no Driver Toolkit image for the node's RHCOS and falls back
    # to entitlement builds (the driver container's dtk-fallback is the same on its side)
    _s("operator-dtk-missing", "driver-toolkit image missing|drivertoolkit image tag missing|"
       "drivertoolkit was requested but could not",
       r"rhcos driver-toolkit image missing|drivertoolkit image tag missing|"
       r"drivertoolkit was requested but could not be enabled",
       {"kernel-headers": 2.0, "driver-failing": 0.5}, (LOG,),
       examples=(_x('INFO WARNINGs: RHCOS driver-toolkit image missing. Version-specific fallback '
                    'mode enabled. {"rhcosVersion": "418.94.202501221327-0"}',
                    OP + "controllers/object_controls.go"),
                 _x("WARNING: DriverToolkit image tag missing. Version-specific fallback mode "
                    "enabled.", OP239 + "controllers/object_controls.go"),
                 _x("WARNING: OpenShift DriverToolkit was requested but could not be enabled "
                    "(dependencies missing)", OP111 + "controllers/object_controls.go"))),
    # the driver scripts' kernel-version steps (RHEL flavours; precompiled images read the
    # version string out of vmlinuz)
    _s("driver-kernel-string", "could not resolve rhel version|all attempts to extract",
       r"^\W*could not resolve rhel version\W*$|all attempts to extract \S+vmlinuz failed",
       {"kernel-headers": 2.0, "precompiled-kernel": 1.0}, (LOG,),
       examples=(_x("Could not resolve RHEL version", DRV + "rhel8/nvidia-driver"),
                 _x("All attempts to extract /lib/modules/5.14.0-427.13.1.el9_4.x86_64/vmlinuz "
                    "failed", DRV + "rhel9/nvidia-driver"))),
    # the vGPU manager container: its modules not loaded after start, or not removable at exit
    _s("vgpu-manager-load", "failed to load nvidia driver|failed to cleanup driver",
       r"^\W*failed to load nvidia driver\W*$|^\W*failed to cleanup driver\W*$",
       {"driver-failing": 2.0, "driver-in-use": 0.5}, (LOG,),
       examples=(_x("Failed to load nvidia driver", VGPU),
                 _x("Failed to cleanup driver", VGPU))),
    # mig-manager reboots the node when the MIG mode change needs it; the reboot itself failed
    _s("mig-manager-reboot-failed", "failed to reboot the node",
       r"failed to reboot the node: ", {"mig-failed": 2.0}, (LOG,),
       examples=(_x('level=warning msg="Failed to reboot the node: exit status 1"',
                    MIG + "pkg/mig/reconfigure/reconfigure.go"),)),
    # DCGM_ST_REQUIRES_ROOT: the engine (embedded in the exporter) lacks root for what it was
    # asked to watch; profiling fields are the ones that need it
    _s("dcgm-requires-root", "host engine is running as non-root",
       r"host engine is running as non-root", {"dcgm-profiling": 2.0, "dcgm-connect": 0.5},
       (LOG,), True,
       examples=(_x('level=fatal msg="Failed to watch metrics: Error watching fields: Host '
                    'engine is running as non-root"', DCGMLIB),)),
    # the API mismatch message's later lines (it spans several NVRM lines; a paste may hold only
    # some): the kernel module and the user-space library differ
    _s("nvrm-api-mismatch-cont", "but this kernel module has|please make sure that this",
       r"nvrm: has the version \S+, but this kernel module has|"
       r"nvrm: the version \S+\.\s+please make sure that this",
       {"nvml-mismatch": 4.0}, (DMESG, LOG, JOURNAL), True,
       examples=(_x("NVRM: has the version 535.104.05, but this kernel module has",
                    OGKM + "src/nvidia/arch/nvalloc/unix/src/osapi.c"),
                 _x("NVRM: the version 535.86.10.  Please make sure that this",
                    OGKM + "src/nvidia/arch/nvalloc/unix/src/osapi.c"))),
    # the open module refusing a GPU without GSP (pre-Turing): the message's middle lines
    _s("nvrm-open-no-gsp", "does not include the required gpu|system processor (gsp).",
       r"nvrm: nvidia\.ko because it does not include the required gpu|"
       r"^\W*nvrm: system processor \(gsp\)\.",
       {"gpu-unsupported": 4.0}, (DMESG, LOG), True,
       examples=(_x("NVRM: nvidia.ko because it does not include the required GPU",
                    OGKM + "src/nvidia/arch/nvalloc/unix/src/osapi.c"),
                 _x("NVRM: System Processor (GSP).",
                    OGKM + "src/nvidia/arch/nvalloc/unix/src/osapi.c"))),
    # module init finding no GPU to drive: none on the bus, or every probe failed
    _s("nvrm-no-gpu-initialized", "none of the nvidia devices were initialized|no nvidia gpu "
       "found",
       r"nvrm: none of the nvidia devices were initialized|nvrm: no nvidia gpu found",
       {"gpu-init": 1.5, "nouveau": 0.5}, (DMESG, LOG),
       examples=(_x("NVRM: None of the NVIDIA devices were initialized.",
                    OGKM + "kernel-open/nvidia/nv.c"),
                 _x("NVRM: No NVIDIA GPU found.", OGKM + "kernel-open/nvidia/nv.c"))),
    # the invalid PCI region message's second line names the BAR (sized 0, or unassigned)
    _s("nvrm-bar-invalid", "nvrm: bar",
       r"nvrm: bar\d+ is \d+m @ 0x[0-9a-f]+ \(pci:",
       {"gpu-init": 3.0}, (DMESG, LOG), True,
       examples=(_x("NVRM: BAR1 is 0M @ 0x0 (PCI:0000:03:00.0)",
                    OGKM + "kernel-open/nvidia/nv-pci.c"),)),
    # ---- k8s-driver-manager v0.6-v0.12: what keeps the old driver from going ------------------
    # node drain refused (a PodDisruptionBudget, a pod it may not evict) or operands that do
    # not leave: the modules stay held and the new driver waits
    _s("driver-manager-drain-blocked", "error reported by drain helper|to shutdown: |"
       "evict gpu operator components",
       r"error reported by drain helper: |failed to wait for [\w-]+ to shutdown: |"
       r"failed to evict gpu operator components",
       {"driver-in-use": 2.0, "upgrade-failed": 0.75}, (LOG,),
       examples=(_x('level=error msg="error reported by drain helper: error when evicting '
                    'pods/\\"train-0\\" -n \\"ml\\": Cannot evict pod as it would violate the '
                    'pod\'s disruption budget."', KDM + "cmd/nvdrain/main.go"),
                 _x('level=error msg="Failed to wait for mig-manager to shutdown: timed out '
                    'waiting for the condition"', KDM + "cmd/driver-manager/main.go"),
                 _x('level=error msg="Failed to evict GPU operator components, attempting '
                    'cleanup"', KDM + "cmd/driver-manager/main.go"))),
    # sandbox nodes: GPUs left on vfio-pci, or the previous driver's rootfs still mounted busy
    _s("driver-manager-unbind-unmount", "unable to unbind vfio-pci|unmount stale",
       r"unable to unbind vfio-pci driver from all devices|"
       r"failed to unmount stale (?:nvidia driver )?rootfs: ",
       {"driver-in-use": 2.0, "driver-failing": 0.75}, (LOG,), True,
       examples=(_x('level=error msg="Unable to unbind vfio-pci driver from all devices"',
                    KDM + "cmd/driver-manager/main.go"),
                 _x("failed to unmount stale NVIDIA driver rootfs: failed to recursively unmount "
                    "/run/nvidia/driver: device or resource busy",
                    KDM + "cmd/driver-manager/main.go"))),
    # DCGM_ST_CONNECTION_NOT_VALID under any wrapping of the exporter's (watching fields,
    # retrieving metrics): the host engine went away or was never reached
    _s("dcgm-connection-not-valid", "host engine connection invalid/disconnected",
       r"host engine connection invalid/disconnected", {"dcgm-connect": 3.0}, (LOG,), True,
       examples=(_x('level=fatal msg="Could not retrieve metrics: Host engine connection '
                    'invalid/disconnected"', DCGMLIB),
                 _x("Failed to watch metrics: Error watching fields: Host engine connection "
                    "invalid/disconnected", DCGMLIB))),
    # ---- dcgm-exporter 3.1-4.8: its own configuration refused at start --------------------
    # (each ends the exporter with a fatal/exit 1 before it serves; 3.1 wrote "'%s': %v", 3.3 on
    # "'%s'; err: %v")
    # the metrics CSV (the -f file, or the one the ConfigMap mounts) unreadable or malformed
    _s("dcgm-exporter-metrics-file", "could not read metrics file|malformed csv record|"
       "could not find prometheus metric type",
       r"could not read metrics file '[^']*'(?::|; err:)|"
       r"malformed csv record[,;] (?:err: )?failed to parse line \d+|"
       r"could not find prometheus metric type '?\w",
       {"dcgm-exporter-failing": 3.0}, (LOG,), True,
       examples=(_x('time="2023-06-01T10:00:00Z" level=error msg="Could not read metrics file '
                    "'/etc/dcgm-exporter/dcp-metrics-included.csv': open /etc/dcgm-exporter/"
                    'dcp-metrics-included.csv: no such file or directory\\n"',
                    DCGM318 + "pkg/dcgmexporter/parser.go"),
                 _x('level=ERROR msg="Could not read metrics file '
                    '\'/etc/dcgm-exporter/custom.csv\'; err: record on line 3: wrong number of '
                    'fields"',
                    DCGM + "internal/pkg/counters/counter_config.go"),
                 _x("malformed CSV record; err: failed to parse line 3 "
                    "(`[DCGM_FI_DEV_SM_CLOCK gauge]`), expected 3 fields",
                    DCGM339 + "pkg/dcgmexporter/parser.go"),
                 _x("could not find Prometheus metric type 'guage'",
                    DCGM + "internal/pkg/counters/counter_config.go"))),
    # the CSV names a field this exporter's DCGM does not know (a metrics list written for a
    # newer exporter, or a typo)
    _s("dcgm-exporter-field-unknown", "could not find dcgm field",
       r"could not find dcgm field(?: dcgm_|; err: )",
       {"dcgm-exporter-failing": 3.0}, (LOG,), True,
       examples=(_x('time="2023-06-01T10:00:00Z" level=fatal msg="Could not find DCGM field '
                    'DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL"', DCGM318 + "pkg/dcgmexporter/parser.go"),
                 _x("could not find DCGM field; err: Unknown ExporterCounter field "
                    "'DCGM_FI_PROF_PIPE_FP8_ACTIVE'", DCGM339 + "pkg/dcgmexporter/parser.go"),
                 _x('level=ERROR msg="could not find DCGM field; err: unknown ExporterCounter '
                    'field \'DCGM_FI_DEV_GPU_TEMPP\'"',
                    DCGM + "internal/pkg/counters/counter_config.go"))),
    # --configmap-data names a ConfigMap the exporter cannot read (absent, no RBAC to get it,
    # no "metrics" key): it exits rather than fall back to its file
    _s("dcgm-exporter-configmap", "retrieve configmap|malformed configmap",
       r"could not retrieve configmap '[^']*'|malformed configmap '[^']*'[:;] no 'metrics' key|"
       r"malformed configmap-data",
       {"dcgm-exporter-failing": 3.0}, (LOG,), True,
       examples=(_x('time="2023-06-01T10:00:00Z" level=fatal msg="Could not retrieve ConfigMap '
                    "'gpu-operator:metrics-config': configmaps \\\"metrics-config\\\" not "
                    'found"', DCGM318 + "pkg/dcgmexporter/parser.go"),
                 _x('level=ERROR msg="could not retrieve ConfigMap '
                    '\'gpu-operator:metrics-config\'; err: configmaps \\"metrics-config\\" is '
                    'forbidden: User \\"system:serviceaccount:gpu-operator:nvidia-dcgm-exporter'
                    '\\" cannot get resource '
                    '\\"configmaps\\" in API group \\"\\" in the namespace \\"gpu-operator\\""',
                    DCGM + "internal/pkg/counters/counter_config.go"),
                 _x("malformed ConfigMap 'gpu-operator:metrics-config'; no 'metrics' key",
                    DCGM + "internal/pkg/counters/counter_config.go"))),
    # its listener cannot bind (the port taken on a host-network node, a malformed address)
    _s("dcgm-exporter-http-listen", "failed to listen and server http server",
       r"failed to listen and server http server",
       {"dcgm-exporter-failing": 2.5}, (LOG,), True,
       examples=(_x('time="2023-06-01T10:00:00Z" level=fatal msg="Failed to Listen and Server '
                    'HTTP server with err: `listen tcp :9400: bind: address already in use`"',
                    DCGM318 + "pkg/dcgmexporter/server.go"),
                 _x('level=ERROR msg="Failed to Listen and Server HTTP server." err="listen tcp '
                    ':9400: bind: address already in use"',
                    DCGM + "internal/pkg/server/server.go"))),
    # ---- k8s-driver-manager v0.6-v0.12: a host driver under the driver DaemonSet -------------
    # the init container finds NVIDIA's modules already loaded from the host, labels the node
    # gpu.deploy.driver=pre-installed and exits: the driver pod leaves that node, which runs on
    # the host's driver (a hint only: that may be what was meant)
    _s("driver-manager-host-driver", "already pre-installed on the node|driver is pre-installed "
       "on host",
       r"nvidia gpu driver is already pre-installed on the node, disabling the containerized "
       r"driver|\bdriver is pre-installed on host\b",
       {"driver-in-use": 1.0}, (LOG,),
       examples=(_x("NVIDIA GPU driver is already pre-installed on the node, disabling the "
                    "containerized driver on the node",
                    "NVIDIA/k8s-driver-manager@v0.6.10:driver-manager"),
                 _x('level=info msg="NVIDIA GPU driver is already pre-installed on the node, '
                    'disabling the containerized driver"', KDM + "cmd/driver-manager/main.go"),
                 _x('level=fatal msg="driver is pre-installed on host"',
                    KDM + "cmd/driver-manager/main.go"))),
    # ---- gpu-operator v1.9-v26.7: OpenShift's Driver Toolkit and RHCOS labels ---------------
    # no usable driver-toolkit imagestream: no DTK build for any RHCOS, so the driver falls back
    # to entitlement builds that need kernel-devel (a hint: the operator carries on)
    _s("operator-dtk-imagestream", "driver-toolkit imagestream",
       r"ocphasdrivertoolkitimagestream: driver-toolkit imagestream (?:not found|is broken)|"
       r"couldn't get the driver-toolkit imagestream",
       {"kernel-headers": 1.25, "driver-failing": 0.5}, (LOG,),
       examples=(_x('INFO ocpHasDriverToolkitImageStream: driver-toolkit imagestream not found '
                    '{"Name": "driver-toolkit", "Namespace": "openshift"}',
                    OP + "controllers/clusterinfo/clusterinfo.go"),
                 _x("WARNING: ocpHasDriverToolkitImageStream: driver-toolkit imagestream is "
                    "broken, see RHBZ#2015024", OP19 + "controllers/object_controls.go"))),
    # a GPU node on OpenShift without NFD's OSTREE_VERSION label: the operator cannot tell its
    # RHCOS, so no per-RHCOS driver DaemonSet selects it
    _s("operator-rhcos-label-missing", "proper nfd rhcos version label",
       r"node doesn't have the proper nfd rhcos version label",
       {"nodes-unlabelled": 2.5, "driver-failing": 0.5}, (LOG,),
       examples=(_x("WARNING: node doesn't have the proper NFD RHCOS version label.",
                    OP19 + "controllers/state_manager.go"),
                 _x("INFO node doesn't have the proper NFD RHCOS version label. "
                    '{"nodeName": "worker-gpu-0", "nfdLabel": '
                    '"feature.node.kubernetes.io/system-os_release.OSTREE_VERSION"}',
                    OP + "controllers/state_manager.go"))),
    # the ClusterPolicy's condition (describe/yaml) when no node carries NFD's labels or none
    # is a GPU node: the operator reports Ready and deploys nothing
    _s("operator-condition-no-nodes", "no nfd labels found|nfdlabelsmissing|nogpunodes",
       r"\bno nfd labels found\b|\breason:\s*['\"]?(?:nfdlabelsmissing|nogpunodes)\b",
       {"nodes-unlabelled": 3.0}, (STATUS, DESCRIBE, LOG), True,
       examples=(_x("    Message:               No NFD labels found",
                    OP + "controllers/clusterpolicy_controller.go"),
                 _x("    Reason:                NFDLabelsMissing",
                    OP239 + "internal/conditions/consts.go"),
                 _x("    reason: NoGPUNodes", OP239 + "internal/conditions/consts.go"))),
)
