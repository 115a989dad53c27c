"""The operator stack's signature families (knowledge/signatures_stack.py): each example line a
component prints is ranked to the code of the cause it means, through the same engine triage
uses; look-alike lines of other causes stay on their own codes; routine lines vote for nothing."""

from __future__ import annotations

import pytest

from gpuxray.diagnose.triage import triage
from gpuxray.engines.signatures import default_matcher, full_matcher, rank
from gpuxray.knowledge.signatures import CAUSE_BY_ID, SIGNATURES, Signature
from gpuxray.knowledge.signatures_stack import STACK_SIGNATURES


def _engine_top(text: str) -> str | None:
    """The code of the cause the catalog's votes rank first for ``text``."""
    ranked = rank(full_matcher().scan_text(text))
    return ranked[0].cause.code if ranked else None


def _top_code(text: str) -> str | None:
    """The first code ``triage`` names for a paste of ``text`` (cause chain applied)."""
    causes = triage([("paste", text)]).causes
    return causes[0].cause.code if causes else None


def test_stack_family_is_joined_into_the_catalog() -> None:
    ids = {s.id for s in SIGNATURES}
    assert {s.id for s in STACK_SIGNATURES} <= ids
    assert len(STACK_SIGNATURES) >= 40


@pytest.mark.parametrize("sig", STACK_SIGNATURES, ids=lambda s: s.id)
def test_each_example_ranks_to_its_cause(sig: Signature) -> None:
    """A pasted line alone: the engine names the code of the cause the source means."""
    want = CAUSE_BY_ID[sig.primary].code
    for ex in sig.examples:
        assert sig in full_matcher().match_line(ex.line), ex.line
        assert _engine_top(ex.line) == want, (sig.id, ex.line)


@pytest.mark.parametrize("sig", STACK_SIGNATURES, ids=lambda s: s.id)
def test_examples_cite_a_stack_component_or_ticket(sig: Signature) -> None:
    for ex in sig.examples:
        assert ex.source.startswith(("NVIDIA/", "torvalds/linux@", "bminor/glibc@",
                                     "ansible/ansible@", "https://github.com/")), \
            ex.source


# (line, code): lines that look alike but mean different causes
_LOOK_ALIKES = (
    # the container lost its device access (cgroup reset) vs the plugin's per-device query of a
    # GPU that stopped answering after NVML came up
    ("Failed to initialize NVML: Unknown Error", "GX306"),
    ("error getting list of preferred allocation devices: unable to retrieve list of available "
     "devices: error creating nvml.Device 0: nvml: Unknown Error", "GX304"),
    # NFD not there (no labels at all) vs NFD dropping GFD's nvidia.com labels
    ("WARNING: Could not find NFD labels for node. Is NFD installed?", "GX401"),
    ('Namespace "nvidia.com" is not allowed. Ignoring label "nvidia.com/gpu.product"', "GX414"),
    # GSP-RM failing to start on a GPU (init) vs the open module lacking what the GPU needs
    ("NVRM: RmInitAdapter: Cannot initialize GSP firmware RM", "GX403"),
    ("NVRM kgspInitRm_IMPL: missing NVDEC0 engine, cannot initialize GSP-RM\n"
     "NVRM RmInitAdapter: Cannot initialize GSP firmware RM\n"
     "NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x63:0x56:1689)", "GX416"),
    # the module refused for a GPU a legacy branch drives vs RM failing to bring one up
    ("NVRM: ignoring the legacy GPU 0000:01:00.0", "GX416"),
    ("NVRM: GPU 0000:3b:00.0: rm_init_adapter failed, device minor number 0", "GX403"),
    # MIG mode on without MIG devices (layout not applied) vs a sharing config the node lacks
    ("device 0 has no MIG devices configured", "GX407"),
    ("GPU name 'NVIDIA A100-SXM4-40GB' does not match any resource patterns", "GX413"),
    # the DTK image lacking the running kernel (headers) vs a kernel upgraded under the driver
    ("WARNING: broken Driver Toolkit image detected:", "GX403"),
    ("nvidia: version magic '5.15.0-88-generic SMP mod_unload modversions ' should be "
     "'5.15.0-91-generic SMP mod_unload modversions '", "GX508"),
    # a host driver holding the GPU vs nouveau holding it
    ("ERROR: The installation was canceled due to the availability or presence of an alternate "
     "driver installation. Please see /var/log/nvidia-installer.log for more details.", "GX418"),
    ("ERROR: One or more modprobe configuration files to disable Nouveau are already present "
     "at: /etc/modprobe.d/nvidia-installer-disable-nouveau.conf", "GX506"),
    # libdcgm missing in the exporter (no DCGM at all) vs profiling not available to it
    ('level=ERROR msg="the libdcgm.so.4 library was not found. Install Data Center GPU Manager '
     '(DCGM)."', "GX406"),
    # the kubelet not reachable (nothing advertised) vs a kubelet without the plugin's API
    ("Could not register device plugin: rpc error: code = Unavailable desc = connection error",
     "GX202"),
    ("Could not register device plugin: rpc error: code = Unimplemented desc = unknown service "
     "v1beta1.Registration", "GX409"),
    # no NVML in the container (runtime) vs an NVML too old for the binary (driver branch)
    ("E1129 10:02:10.000000 1 factory.go:99] Failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND.",
     "GX514"),
    ("nvidia-device-plugin: symbol lookup error: nvidia-device-plugin: undefined symbol: "
     "nvmlDeviceGetPciInfo_v3", "GX409"),
    # the driver manager unable to unload nouveau vs unable to unload NVIDIA's own modules
    ("failed to unload nouveau driver: exit status 1", "GX506"),
    ('level=warning msg="Failed to unload kernel module nvidia_uvm: resource temporarily '
     'unavailable"', "GX418"),
    # the container CLI failing on a faulted GPU vs on a missing driver
    ("nvidia-container-cli: detection error: nvml error: gpu requires reset", "GX505"),
    ("nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown",
     "GX307"),
    # persistenced: no devices (driver not loaded) vs another persistenced holding the lock
    ("nvidia-persistenced[88]: Unable to find any NVIDIA devices", "GX304"),
    ("nvidia-persistenced[88]: Failed to lock PID file: Resource temporarily unavailable",
     "GX418"),
    # Fabric Manager's bad config vs its version not matching the driver: both GX405
    ("fabric manager config file item: DATABASE_PATH has an invalid value", "GX405"),
)


@pytest.mark.parametrize(("text", "code"), _LOOK_ALIKES)
def test_look_alikes_stay_apart(text: str, code: str) -> None:
    assert _top_code(text) == code


def test_fm_config_and_version_are_different_causes() -> None:
    cfg = rank(full_matcher().scan_text(
        "fabric manager config file item: FABRIC_NODE_CONFIG_FILE has an invalid value"))
    ver = rank(full_matcher().scan_text(
        "fabric manager NVIDIA GPU driver interface version 590.48.01 don't match with driver "
        "version 580.126.09."))
    assert cfg[0].cause.id == "fm-missing"
    assert ver[0].cause.id == "fm-version"


def test_nvml_mismatch_code_is_not_read_as_driver_not_loaded() -> None:
    """Both are GX304; the cause (and so what to collect) differs."""
    mismatch = triage([("p", "nvml init failed: ERROR_LIB_RM_VERSION_MISMATCH")]).causes
    not_loaded = triage([("p", "nvml init failed: ERROR_DRIVER_NOT_LOADED")]).causes
    assert mismatch[0].cause.id == "nvml-mismatch"
    assert not_loaded[0].cause.id == "nvml-init"


def test_a_driver_container_log_names_the_missing_headers() -> None:
    """The driver container's log around nvidia-installer's header check: the header line
    decides over the generic failures printed after it."""
    log = "\n".join((
        "========== NVIDIA Software Installer ==========",
        "Starting installation of NVIDIA driver version 550.127.05 for Linux kernel version "
        "5.15.0-91-generic",
        "Installing NVIDIA driver kernel modules...",
        "ERROR: The kernel header file '/lib/modules/5.15.0-91-generic/build/include/linux/"
        "kernel.h' does not exist.  The most likely reason for this is that the kernel source "
        "path '/lib/modules/5.15.0-91-generic/build' is incorrect.",
        "ERROR: Installation has failed.  Please see the file '/var/log/nvidia-installer.log' "
        "for details.",
        "Stopping NVIDIA persistence daemon...",
    ))
    ranked = rank(full_matcher().scan_text(log))
    assert ranked[0].cause.id == "kernel-headers"
    assert ranked[0].deciding


# lines the stack prints while working normally; none may vote for a cause
_ROUTINE = (
    # NVIDIA/gpu-driver-container@06a208ca:ubuntu22.04/nvidia-driver
    "The NVIDIA driver is already loaded with the desired configuration, performing "
    "userspace-only install",
    "successfully loaded nvidia-peermem module, now waiting for signal",
    "nvidia-peermem module already loaded, skipping modprobe",
    "Starting NVIDIA fabric manager daemon...",
    "Resetting GPUs to clear stale fabric partition states...",
    # NVIDIA/gpu-operator@v26.7.0:cmd/nvidia-validator/main.go
    "Driver is not pre-installed on the host and is managed by GPU Operator. Checking driver "
    "container status.",
    # NVIDIA/gpu-operator@v26.7.0:controllers/clusterpolicy_controller.go
    "ClusterPolicy is ready as all resources have been successfully reconciled",
    # NVIDIA/mig-parted@v0.15.0:cmd/nvidia-mig-parted/assert/assert.go (the check before apply)
    "Assertion failure: selected configuration not currently applied",
    # NVIDIA/k8s-device-plugin@v0.20.0:internal/rm/health.go (health checks skipped, not failed)
    "Device GPU-5c0f2a11 is too old to support healthchecking.",
    # nvidia-smi -q fields that are not the fabric registering
    "        State                                          : Completed",
    "    Performance State                     : P0",
    # Fabric Manager on success (https://github.com/NVIDIA/nvtrust/issues/128)
    "Successfully configured all the available NVSwitches to route GPU NVLink traffic. NVLink "
    "Peer-to-Peer support will be enabled once the GPUs are successfully registered with the "
    "NVLink fabric.",
)


@pytest.mark.parametrize("line", _ROUTINE)
def test_routine_stack_lines_vote_for_nothing(line: str) -> None:
    assert default_matcher().match_line(line) == []
