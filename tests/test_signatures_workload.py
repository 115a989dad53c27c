"""The workload side's signature families (knowledge/signatures_workload.py): every real line each
one carries ranks the cause the message means first, through the engine the bundle checks and
triage use; and the look-alikes that share their words stay apart."""

from __future__ import annotations

import pytest

from gpuxray.engines.signatures import full_matcher, rank
from gpuxray.knowledge.signatures import SIGNATURES, Signature
from gpuxray.knowledge.signatures_workload import WORKLOAD_SIGNATURES

# the code each family's lines must rank first, read from the code around each message
EXPECTED = {
    "torch-driver-too-old": "GX311",
    "cuda-ptx-unsupported-toolchain": "GX311",
    "cuda-call-requires-newer-driver": "GX311",
    "cuda-stub-library": "GX514",
    "cuda-devices-busy": "GX602",
    "cuda-unknown-error": "GX306",
    "libcuda-not-found": "GX514",
    "numba-cuinit-no-device": "GX303",
    "tf-kernel-driver-absent": "GX304",
    "jax-no-gpu": "GX303",
    "smi-nvml-library-version": "GX304",
    "smi-inforom-corrupted": "GX304",
    "docker-unknown-runtime-specified": "GX301",
    "engine-cdi-name-as-path": "GX409",
    "engine-nvidia-device-node-missing": "GX304",
    "ngc-driver-not-detected": "GX514",
    "ngc-compat-unavailable": "GX311",
    "ngc-built-for-newer-driver": "GX311",
    "ollama-no-gpu": "GX303",
    "ollama-no-gpu-libraries": "GX514",
    "cuda-not-permitted": "GX306",
    "pynvml-library-not-found": "GX514",
    "vllm-device-type-unknown": "GX303",
    "cuda-ecc-uncorrectable": "GX505",
    "engine-gpus-flag-unknown": "GX409",
    "cos-installer-download-failed": "GX403",
    "cos-installer-headers-missing": "GX403",
    "cos-installer-driver-gpu-unsupported": "GX416",
    "gke-plugin-mig-partitions": "GX407",
    "gke-partition-gpu-failed": "GX407",
    "gke-plugin-mps-not-running": "GX202",
    "gke-plugin-kubelet-register": "GX202",
    "aks-gpu-driver-install-failed": "GX403",
    "aks-cse-gpu-driver-exit": "GX403",
    "aks-cse-gpu-inforom-exit": "GX304",
    "scheduler-node-unschedulable": "GX201",
    "nccl-nvls-bind-failed": "GX405",
    "nccl-mnnvl-imex": "GX415",
    "nccl-duplicate-gpu": "GX602",
}

# the cause (finer than the code) a family's lines must rank first where codes are shared
EXPECTED_CAUSE = {
    "smi-nvml-library-version": "nvml-mismatch",
    "smi-inforom-corrupted": "nvml-gpu-error",
    "engine-nvidia-device-node-missing": "nvml-init",
    "tf-kernel-driver-absent": "nvml-init",
    "cos-installer-download-failed": "driver-failing",
    "cos-installer-headers-missing": "kernel-headers",
    "aks-cse-gpu-inforom-exit": "nvml-gpu-error",
}


def _ranked(text: str) -> list[tuple[str, str]]:
    return [(c.cause.code, c.cause.id) for c in rank(full_matcher().scan_text(text))]


def _top(text: str) -> list[str]:
    return list(dict.fromkeys(code for code, _cid in _ranked(text)))


def test_every_workload_family_is_joined_and_expected() -> None:
    ids = {s.id for s in SIGNATURES}
    assert {s.id for s in WORKLOAD_SIGNATURES} <= ids
    assert set(EXPECTED) == {s.id for s in WORKLOAD_SIGNATURES}


@pytest.mark.parametrize("sig", WORKLOAD_SIGNATURES, ids=lambda s: s.id)
def test_each_real_line_ranks_its_cause_first(sig: Signature) -> None:
    assert sig.examples
    for ex in sig.examples:
        assert sig in full_matcher().match_line(ex.line), ex.line
        ranked = _ranked(ex.line)
        assert ranked and ranked[0][0] == EXPECTED[sig.id], (ex.line, ranked)
        if sig.id in EXPECTED_CAUSE:
            assert ranked[0][1] == EXPECTED_CAUSE[sig.id], (ex.line, ranked)


@pytest.mark.parametrize(("text", "code", "cause"), [
    # nvidia-smi's two lines on a mismatch: both name the driver/library mismatch
    ("Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 570.124",
     "GX304", "nvml-mismatch"),
    # a framework's cuInit failing with no device is the core no-device family, not unknown
    ("2023-05-19 05:43:33.418184: E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed "
     "call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected", "GX303",
     "envvar-ignored"),
    # PyTorch's too-old driver outranks the generic unknown/no-device lines beside it
    ("RuntimeError: The NVIDIA driver on your system is too old (found version 11040)\n"
     "RuntimeError: No CUDA GPUs are available", "GX311", "cuda-requirement"),
    # the NGC banner's compatibility check with the detected version: the image's CUDA
    # ahead of the node's driver
    ("ERROR: This container was built for NVIDIA Driver Release 450.51 or later, but\n"
     "       version 440.33.01 was detected and compatibility mode is UNAVAILABLE.\n\n"
     "       [[CUDA Driver UNAVAILABLE (cuInit(0) returned 804)]]", "GX311", "cuda-requirement"),
    # a cordoned GPU node next to a taint: both exclude the node before resources count
    ("0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) had untolerated taint "
     "{nvidia.com/gpu: present}.", "GX201", "taint-selector"),
])
def test_lines_rank_the_cause_they_mean(text: str, code: str, cause: str) -> None:
    assert _ranked(text)[:1] == [(code, cause)]


@pytest.mark.parametrize(("line", "sig_id"), [
    # libnvidia-container's own dlopen failure is its family, not a workload's missing libcuda
    ("nvidia-container-cli: initialization error: load library failed: libcuda.so.1: cannot "
     "open shared object file: no such file or directory: unknown", "libcuda-not-found"),
    # a cordoned node beside nodes short of GPUs: the cordon is not why the pod waits
    ("0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient nvidia.com/gpu.",
     "scheduler-node-unschedulable"),
    # a device path, not a CDI name, missing
    ('error gathering device information while adding custom device "/dev/dri": no such file '
     "or directory", "engine-nvidia-device-node-missing"),
    ("stat /dev/nvidia0: no such file or directory", "engine-cdi-name-as-path"),
    # NVML's Unknown Error is the device-lost family of the core catalog
    ("Failed to initialize NVML: Unknown Error", "cuda-unknown-error"),
    ("failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
     "cuda-unknown-error"),
    # nvidia-smi --version names NVML's version on every healthy host
    ("NVML version                      : 550.54.15", "smi-nvml-library-version"),
    # another runtime missing from Docker's table is not the NVIDIA one
    ("docker: Error response from daemon: Unknown runtime specified crun.",
     "docker-unknown-runtime-specified"),
    # the GKE plugin's MIG manager starting fine logs its partitions, not a failure
    ("Discovered GPU partition: nvidia0/gi1", "gke-plugin-mig-partitions"),
    # the banner unable to read the driver's version proves no CUDA requirement
    ("       version  was detected and compatibility mode is UNAVAILABLE.",
     "ngc-compat-unavailable"),
    # the bootstrap's other exit codes are not the GPU's (34: the NIC's IP unset)
    ("Error message: 'Enable failed: failed to execute command: command terminated with exit "
     "status=34 [stdout]", "aks-cse-gpu-driver-exit"),
    ("command terminated with exit status=850", "aks-cse-gpu-driver-exit"),
    # the installer's transient retry is no give-up
    ("[WARNING 2021-07-15 10:02:10 UTC] Error fetching GPU installer from https://storage."
     "googleapis.com/x.run, retrying", "cos-installer-download-failed"),
    # a flag Docker does know, misspelt differently
    ("unknown flag: --gpu", "engine-gpus-flag-unknown"),
    # the partition step's progress lines are no failure
    ("I0312 10:02:10.000000       1 partition_gpu.go:117] Cleaning up any existing GPU "
     "partitions", "gke-partition-gpu-failed"),
    # JAX choosing the GPU reports its backend, not a fallback
    ("Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so", "jax-no-gpu"),
])
def test_look_alikes_stay_apart(line: str, sig_id: str) -> None:
    assert sig_id not in {s.id for s in full_matcher().match_line(line)}
