"""The signature catalog itself: every signature matches a real-format example line (so its
needle prefilter cannot silently hide it), votes only for known causes, and scans linearly."""

from __future__ import annotations

import time

import pytest

from gpuxray.engines.signatures import MAX_LINE, Matcher, default_matcher, rank
from gpuxray.knowledge.codes import CATALOG
from gpuxray.knowledge.signatures import (
    CAUSE_BY_ID,
    CAUSES,
    DISTINGUISH,
    DRA_EXAMPLES,
    SIGNATURES,
)

EXAMPLES: dict[str, str] = {
    "exceeded-quota": 'Error creating: pods "a-1" is forbidden: exceeded quota: gpu-quota, '
                      "requested: requests.nvidia.com/gpu=2",
    "runtimeclass-not-found": 'pods "x" is forbidden: pod rejected: RuntimeClass "nvidia" not '
                              "found",
    "extended-not-integer": 'spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: '
                            '"0.5": must be an integer',
    "extended-requests-limits": 'spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid '
                                'value: "1": must be equal to nvidia.com/gpu limit of 2',
    "untolerated-taint": "0/3 nodes are available: 3 node(s) had untolerated taint "
                         "{nvidia.com/gpu: present}.",
    "selector-mismatch": "0/3 nodes are available: 3 node(s) didn't match Pod's node "
                         "affinity/selector.",
    "insufficient-gpu": "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.",
    "describe-gpu-zero": "  nvidia.com/gpu:     0",
    "shared-too-large": "request for 'nvidia.com/gpu: 2' too large: maximum request size for "
                        "shared resources is 1",
    "plugin-xid-unhealthy": "XidCriticalError: Xid=48 on Device=GPU-1; marking device as "
                            "unhealthy.",
    "plugin-marking-unhealthy": "'nvidia.com/gpu' device marked unhealthy: GPU-5c0f",
    "plugin-no-devices": "No devices found. Waiting indefinitely.",
    "plugin-register-failed": "Could not register device plugin: context deadline exceeded",
    "plugin-load-config": "error starting plugins: unable to load config: open /config: no such "
                          "file",
    "plugin-invalid-sharing": "unable to validate flags: invalid sharing config",
    "no-runtime-handler": 'failed to get sandbox runtime: no runtime for "nvidia" is configured',
    "cri-handler-unknown": 'failed to find runtime handler nvidia from runtime list map[crun:{}]',
    "cdi-unresolvable": "unresolvable CDI devices nvidia.com/gpu=all",
    "nvidia-cli-init": "nvidia-container-cli: initialization error: nvml error: driver not loaded",
    "oci-create-failed": "OCI runtime create failed: runc create failed: unable to start",
    "hook-failed": "error running createContainer hook #0: exit status 1",
    "runtime-binary-missing": 'exec: "nvidia-container-runtime": executable file not found in '
                              "$PATH",
    "nvml-version-mismatch": "Failed to initialize NVML: Driver/library version mismatch",
    "nvml-unknown-error": "Failed to initialize NVML: Unknown Error",
    "nvml-init-failed": "Failed to initialize NVML: could not load NVML library.",
    "nvml-lib-missing": "libnvidia-ml.so.1: cannot open shared object file: No such file",
    "smi-no-driver": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                     "driver.",
    "insert-nvidia-failed": "modprobe: ERROR: could not insert 'nvidia': No such device",
    "nvrm-probe-failed": "NVRM: The NVIDIA probe routine failed for 1 device(s).",
    "nouveau-in-use": "ERROR: The Nouveau kernel driver is currently in use by your system.",
    "secure-boot-key": "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service",
    "secure-boot-verify": "nvidia: module verification failed: signature and/or required key "
                          "missing - tainting kernel",
    "secure-boot-lockdown": "Lockdown: modprobe: unsigned module loading is restricted; see man "
                            "kernel_lockdown.7",
    "secure-boot-enabled": "SecureBoot enabled",
    "precompiled-missing": "Could not find precompiled driver packages for kernel "
                           "5.15.0-130-generic",
    "driver-image-kernel-tag": 'Failed to pull image "nvcr.io/nvidia/driver:570-5.15.0-130-'
                               'generic-ubuntu22.04": not found',
    "kernel-source-missing": "ERROR: Unable to find the kernel source tree for the currently "
                             "running kernel.",
    "kernel-headers-missing": "E: Unable to locate package linux-headers-6.5.0-1024-oem",
    "kernel-version-unresolved": "Could not resolve Linux kernel version",
    "upgrade-failed-label": "nvidia.com/gpu-driver-upgrade-state=upgrade-failed",
    "system-not-initialized": "cudaGetDeviceCount returned 802 -> system not yet initialized",
    "fm-unit-missing": "Unit nvidia-fabricmanager.service could not be found.",
    "fm-state-inactive": "ActiveState=inactive",
    "fm-version-mismatch": "fabric manager version 570.86.15 does not match the driver version",
    "dcgm-cannot-connect": "Cannot connect to DCGM: Host engine connection invalid/disconnected",
    "dcgm-profiling": "Profiling module returned an unrecoverable error: not supported",
    "dcgm-fr": "DCGM_ST_IN_USE: another client holds the profiling module",
    "mig-apply-error": "Error applying MIG configuration with hooks",
    "mig-state-failed": "Changing the 'nvidia.com/mig.config.state' node label to 'failed'",
    "xid-kernel": "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has "
                  "fallen off the bus.",
    "containerd-signal": "containerd.service: Sent signal SIGHUP to main process 1187 "
                         "(containerd) on client request.",
    "containerd-config-error": "containerd: failed to load TOML: /etc/containerd/config.toml: "
                               "toml: line 3",
    "toolkit-config-dump-failed": "failed to load config: error running containerd config dump: "
                                  "exit status 1",
    "waiting-for-validation": "waiting for nvidia container stack to be setup",
    "config-manager-switch": "Error: error updating symlink: unable to find config file "
                             "/available-configs/a100-ts8 for label value 'a100-ts8'",
    "cdi-none-generated": "INFO[0000] Found 0 CDI devices",
    "envvar-unprivileged": "accept-nvidia-visible-devices-envvar-when-unprivileged = false",
    "driver-image-os-tag": 'Failed to pull image "nvcr.io/nvidia/driver:580.95.05-rocky9.4": '
                           "rpc error: code = NotFound desc = nvcr.io/nvidia/driver:"
                           "580.95.05-rocky9.4: not found",
    "nfd-label-denied": 'denied label "nvidia.com/gpu.product": namespace not allowed',
    "init-status": "nvidia-device-plugin-daemonset-9b4rk   0/1   Init:0/1   0   22m",
}


EXAMPLES.update(DRA_EXAMPLES)  # the DRA block keeps its real-format lines with its sources


def test_every_signature_has_an_example() -> None:
    assert set(EXAMPLES) == {s.id for s in SIGNATURES}


@pytest.mark.parametrize("sig", SIGNATURES, ids=lambda s: s.id)
def test_signature_matches_its_example(sig: object) -> None:
    from gpuxray.knowledge.signatures import Signature

    assert isinstance(sig, Signature)
    found = default_matcher().match_line(EXAMPLES[sig.id])
    assert sig in found


def test_catalog_is_consistent() -> None:
    ids = [s.id for s in SIGNATURES]
    assert len(ids) == len(set(ids))
    assert len({c.id for c in CAUSES}) == len(CAUSES)
    for c in CAUSES:
        assert c.code in CATALOG
    for s in SIGNATURES:
        assert s.votes and all(cid in CAUSE_BY_ID and w > 0 for cid, w in s.votes)
        assert s.needle == s.needle.lower()
    for pair in DISTINGUISH:
        assert len(pair) == 2 and pair <= set(CAUSE_BY_ID)


def test_every_cause_is_reachable() -> None:
    voted = {cid for s in SIGNATURES for cid, _w in s.votes}
    assert voted == set(CAUSE_BY_ID)


def test_rank_counts_a_signature_once_with_bounded_bonus() -> None:
    m = Matcher(SIGNATURES)
    one = rank(m.scan_text("Insufficient nvidia.com/gpu"))
    many = rank(m.scan_text("\n".join(f"{i} Insufficient nvidia.com/gpu" for i in range(100))))
    assert one[0].score == 1.0
    assert many[0].score == 2.0  # 1 + 0.25 × 4 at most


def test_scan_is_linear_and_capped() -> None:
    m = default_matcher()
    big = "\n".join(f"I1129 10:02:{i % 60:02d}.000 1 main.go:317] Retrieving plugins {i}"
                    for i in range(100_000))
    t0 = time.perf_counter()
    assert m.scan_text(big) == []
    elapsed = time.perf_counter() - t0
    assert elapsed < 5.0
    # a pathological line costs no more than the cap
    t1 = time.perf_counter()
    m.match_line("(" * 10 * MAX_LINE + "no runtime for")
    assert time.perf_counter() - t1 < 1.0


def test_patterns_are_lower_case() -> None:
    """Patterns run on the lower-cased line without re.IGNORECASE (faster): no upper-case
    literal may appear outside an escape like \\d or \\S."""
    import re

    for s in SIGNATURES:
        assert not re.search(r"[A-Z]", re.sub(r"\\[A-Za-z]", "", s.pattern)), s.id
