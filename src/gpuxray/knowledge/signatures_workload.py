"""Signatures of what users paste next to the stack's own logs: the workload's output, the
container engine outside Kubernetes, a managed cloud's GPU node setup, and the scheduler's and
kubelet's events (seed §4's symptom column, §8).

Why a module of its own: these lines are printed by programs that are not part of the GPU
Operator stack, yet they are often the only text a ticket carries ("my pod says CUDA unknown
error"). Each family was read from the component that prints it, at the cited tag, or from the
CUDA runtime's error string table, or from the public ticket it was pasted in:

* the CUDA runtime and driver API's error strings (``cudaGetErrorString`` / ``cuGetErrorString``)
  and the wording the frameworks wrap them in (PyTorch, TensorFlow, JAX/XLA, numba), the GPU
  discovery of inference servers (vLLM, Ollama, pynvml users) and NGC images' start banner;
* ``nvidia-smi``'s own lines beyond NVML's error strings;
* Docker and Podman run with GPUs (the engine's runtime table, CDI names an old engine takes for
  paths);
* GKE's GPU device plugin (``GoogleCloudPlatform/container-engine-accelerators``) and COS
  driver installer (``GoogleCloudPlatform/cos-gpu-installer``), AKS's node bootstrap
  (``Azure/AgentBaker``);
* kube-scheduler's filter reasons the core catalog does not already hold.
* NCCL's communicator-init warnings that name a node-side cause (NVLS multicast and Fabric
  Manager, MNNVL and IMEX, two ranks on one GPU) (``NVIDIA/nccl`` ``src/transport/nvls.cc``,
  ``src/mnnvl.cc``, ``src/init.cc``).

The CUDA error strings say little about *which* stack layer failed, so most families here vote
for several causes with modest weights and are not deciding; a family decides only where one
cause alone prints the line (the image's CUDA newer than the node's driver).
"""

from __future__ import annotations

from gpuxray.knowledge.signature_types import (
    DESCRIBE,
    EVENT,
    JOURNAL,
    LOG,
    SMI,
    STATUS,
    Signature,
    family_signature,
)

TORCH = "pytorch/pytorch@v2.3.0:c10/cuda/CUDAFunctions.cpp"
NUMBA = "numba/numba@0.56.0:numba/cuda/cudadrv/driver.py"
GKE = "GoogleCloudPlatform/container-engine-accelerators@v1.0.20:"
AKS = "Azure/AgentBaker@v0.20260805.0:parts/linux/cloud-init/artifacts/cse_config.sh"
COS = "GoogleCloudPlatform/cos-gpu-installer@v20210715:cos-gpu-installer-docker/entrypoint.sh"
# the Go rewrite lives in COS's tools repository (no GitHub tags)
COS2 = ("https://cos.googlesource.com/cos/tools/+/refs/heads/master/src/cmd/cos_gpu_installer/"
        "internal/commands/install.go")
K = "kubernetes/kubernetes@v1.30.0:"
GH = "https://github.com/"

_WORKLOAD = (LOG, STATUS)  # what a container prints: its log, its terminated status message
_ENGINE = (EVENT, STATUS, DESCRIBE, LOG)  # an engine/runtime refusal at create


_s = family_signature


WORKLOAD_SIGNATURES: tuple[Signature, ...] = (
    # ---- CUDA error strings, as programs print them --------------------------------------
    # cudaErrorInsufficientDriver as PyTorch words it (c10/cuda: "found version" is the
    # driver's CUDA version): the wheel's CUDA is newer than the node's driver supports
    _s("torch-driver-too-old", "driver on your system is too old",
       r"the nvidia driver on your system is too old \(found version \d+\)",
       {"cuda-requirement": 3.5}, _WORKLOAD, True,
       ("UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found "
        "version 12080). Please update your GPU driver by downloading and installing a new "
        "version from the URL: http://www.nvidia.com/Download/index.aspx", TORCH),
       ("RuntimeError: The NVIDIA driver on your system is too old (found version 12090)",
        TORCH)),
    # cudaErrorUnsupportedPtxVersion (222): the program carries PTX from a newer toolchain
    # than the node's driver can JIT, the image's CUDA ahead of the driver
    _s("cuda-ptx-unsupported-toolchain", "ptx was compiled with an unsupported toolchain",
       r"the provided ptx was compiled with an unsupported toolchain",
       {"cuda-requirement": 3.0}, _WORKLOAD, True,
       ("CUDA error: the provided PTX was compiled with an unsupported toolchain.",
        GH + "haotian-liu/LLaVA/issues/1418"),
       ("Cuda failure: 222 the provided PTX was compiled with an unsupported toolchain.",
        GH + "mit-han-lab/inter-operator-scheduler/issues/4")),
    # cudaErrorCallRequiresNewerDriver (36): an API the image's runtime uses that the node's
    # driver predates (a weaker sign of the same mismatch; an app may probe for it)
    _s("cuda-call-requires-newer-driver", "not supported in the installed cuda driver",
       r"api call is not supported in the installed cuda driver",
       {"cuda-requirement": 2.5}, _WORKLOAD, False,
       ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you "
        "run some cuda functions before calling NumCudaDevices() that might have already set an "
        "error? Error 36: API call is not supported in the installed CUDA driver", TORCH)),
    # cudaErrorStubLibrary (34): the process loaded the toolkit's link-time stub libcuda.so,
    # so no real driver library is in the container (nothing injected it: runc, or no GPU
    # asked for), and a stubs directory on the library path stood in
    _s("cuda-stub-library", "cuda driver is a stub library|cuda_error_stub_library",
       r"cuda driver is a stub library|cuda_error_stub_library",
       {"runtime-not-default": 1.5, "envvar-ignored": 1.25}, _WORKLOAD, False,
       ("CUDA API Error at line 28: CUDA driver is a stub library",
        GH + "xmake-io/xmake/issues/4686"),
       ("Error: Could not detect active GPU device ID [CUDA driver is a stub library]",
        GH + "NVIDIA/cutlass/issues/1636"),
       ("numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit "
        "results in CUDA_ERROR_STUB_LIBRARY (34)", NUMBA)),
    # cudaErrorDevicesUnavailable (46): the GPU admits no further context (compute mode
    # EXCLUSIVE_PROCESS or PROHIBITED, or another process holding it): on Kubernetes, a GPU
    # shared between pods (time-slicing) that is set to exclusive mode; the wording changed in
    # CUDA 11
    _s("cuda-devices-busy", "busy or unavailable",
       r"cuda-capable device\(s\) is/are busy or unavailable|"
       r"all cuda-capable devices are busy or unavailable",
       {"shared-memory": 1.0, "nvml-gpu-error": 0.5}, _WORKLOAD, False,
       ("RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable",
        GH + "AILab-CVC/YOLO-World/issues/385"),
       ("RuntimeError: cuda runtime error (46) : all CUDA-capable devices are busy or "
        "unavailable at /opt/conda/conda-bld/pytorch_1502004572321/work/torch/lib/THC/generic/"
        "THCStorage.cu:66", GH + "pytorch/pytorch/issues/2704")),
    # cuInit answering CUDA_ERROR_UNKNOWN (999): the device nodes are there but the driver
    # will not give a context. In a container that ran fine before, the device cgroup rules
    # were reset under it; at first start, the host's driver (nvidia-uvm not loaded, a GPU in a
    # bad state). Every framework wraps it in its own words.
    _s("cuda-unknown-error", "unknown error|cuda_error_unknown|unknown_cuda_error",
       r"cuda unknown error - this may be due to an incorrectly set up environment|"
       r"found an unknown error - this may be due to an incorrectly set up environment|"
       r"failed call to cuinit: (?:internal: cuda error: failed call to cuinit: )?"
       r"cuda_error_unknown\b|"
       r"call to cuinit results in (?:cuda_error_unknown|unknown_cuda_error)",
       {"device-lost": 1.5, "nvml-init": 1.0, "nvml-gpu-error": 0.5}, _WORKLOAD, False,
       ("RuntimeError: CUDA unknown error - this may be due to an incorrectly set up "
        "environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. "
        "Setting the available devices to be zero.", TORCH),
       ("E0508 18:40:25.340945  8217 common_gpu.cc:55] Found an unknown error - this may be due "
        "to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES "
        "after program start. I will set the available devices to be zero.",
        GH + "pytorch/pytorch/issues/7377"),
       ("2020-06-01 16:16:58.387976: E tensorflow/stream_executor/cuda/cuda_driver.cc:318] "
        "failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error",
        "tensorflow/tensorflow@v2.3.0:tensorflow/stream_executor/cuda/cuda_driver.cc"),
       ("2026-01-22 22:32:40.809897: E external/xla/xla/stream_executor/cuda/"
        "cuda_platform.cc:51] failed call to cuInit: INTERNAL: CUDA error: Failed call to "
        "cuInit: CUDA_ERROR_UNKNOWN: unknown error",
        GH + "KosinskiLab/AlphaPulldown/issues/571"),
       ("numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit "
        "results in CUDA_ERROR_UNKNOWN (999)", NUMBA),
       ("Call to cuInit results in UNKNOWN_CUDA_ERROR", GH + "rapidsai/cudf/issues/432")),
    # ---- frameworks finding no driver in the container ------------------------------------
    # TensorFlow's loader (and any program linked to libcuda) finding no driver library: none
    # was injected (the pod under runc, or it asked for no GPU); TensorFlow then reports cuInit
    # failing with the stub's own code 303. Not nvidia-container-cli's wording, which is its
    # own family.
    _s("libcuda-not-found", "libcuda.so.1|unknown error (303)|cuda driver library cannot be found",
       r"^(?!.*nvidia-container-cli)(?:.*could not load dynamic library 'libcuda\.so\.1'|"
       r".*error at driver init: cuda driver library cannot be found|"
       r".*libcuda\.so\.1: cannot open shared object file|"
       r".*failed call to cuinit: unknown error \(303\))",
       {"runtime-not-default": 1.5, "envvar-ignored": 1.25, "nvml-init": 0.5}, _WORKLOAD, False,
       ("2021-05-17 16:30:37.270382: W tensorflow/stream_executor/platform/default/"
        "dso_loader.cc:55] Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: "
        "cannot open shared object file: No such file or directory",
        "tensorflow/tensorflow@v2.3.0:tensorflow/stream_executor/platform/default/"
        "dso_loader.cc"),
       ("2022-09-07 05:24:22.256586: W tensorflow/stream_executor/cuda/cuda_driver.cc:269] "
        "failed call to cuInit: UNKNOWN ERROR (303)",
        "tensorflow/tensorflow@v2.10.0:tensorflow/stream_executor/cuda/cuda_driver.cc"),
       ("numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: CUDA driver library "
        "cannot be found.", NUMBA)),
    # numba's driver init finding no device (cuInit's CUDA_ERROR_NO_DEVICE in its words): no
    # GPU reached the container, as the core no-device family reads CUDA's own string
    _s("numba-cuinit-no-device", "call to cuinit results in cuda_error_no_device",
       r"call to cuinit results in cuda_error_no_device",
       {"envvar-ignored": 1.5, "runtime-not-default": 1.25, "device-lost": 0.5}, _WORKLOAD,
       False,
       ("numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit "
        "results in CUDA_ERROR_NO_DEVICE (100)", NUMBA),
       ("numba.cuda.cudadrv.driver.CudaAPIError: [100] Call to cuInit results in "
        "CUDA_ERROR_NO_DEVICE", NUMBA)),
    # TensorFlow's diagnostics reading /proc/driver/nvidia/version: that file is the loaded
    # kernel module's, visible in any container on a node where the driver is loaded, so its
    # absence means no driver on this node (or a node without GPUs: the pod asked for none)
    _s("tf-kernel-driver-absent", "kernel driver does not appear to be running",
       r"kernel driver does not appear to be running on this host \(\S*\): "
       r"/proc/driver/nvidia/version does not exist",
       {"nvml-init": 1.25, "envvar-ignored": 1.0}, _WORKLOAD, False,
       ("2023-03-14 01:14:42.776285: I tensorflow/compiler/xla/stream_executor/cuda/"
        "cuda_diagnostics.cc:156] kernel driver does not appear to be running on this host "
        "(c4df3ead4b0c): /proc/driver/nvidia/version does not exist",
        "tensorflow/tensorflow@v2.12.0:tensorflow/compiler/xla/stream_executor/cuda/"
        "cuda_diagnostics.cc")),
    # JAX finding no GPU backend: no GPU reached the process, most often a pod that asked for
    # none (or the jaxlib is CPU-only, so a weak vote)
    _s("jax-no-gpu", "no gpu/tpu found|no visible gpu devices",
       r"no gpu/tpu found, falling back to cpu|failed_precondition: no visible gpu devices",
       {"envvar-ignored": 1.0, "runtime-not-default": 0.75}, _WORKLOAD, False,
       ("No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more "
        "info.)", GH + "jax-ml/jax/issues/17624"),
       ("jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: No visible GPU devices.",
        GH + "jax-ml/jax/issues/28376")),
    # ---- NGC images' entrypoint banner ------------------------------------------------------
    # the banner's driver check finding no driver in the container (no libcuda.so.1 or no
    # /dev/nvidiactl): nothing injected one. Its second line's wording changed from
    # "Use 'nvidia-docker run'" to "Use the NVIDIA Container Toolkit"; the first stayed.
    _s("ngc-driver-not-detected", "the nvidia driver was not detected",
       r"the nvidia driver was not detected\.\s+gpu functionality will not be available",
       {"runtime-not-default": 1.5, "envvar-ignored": 1.25, "nvml-init": 0.5}, _WORKLOAD, False,
       ("WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.",
        GH + "NVIDIA/nvidia-docker/issues/1071")),
    # the banner's compatibility check: the image's CUDA needs a newer driver branch than the
    # node has, and forward compatibility does not apply (not a data-center GPU, or the
    # compat libraries refuse this driver). The second line, with the detected version, is
    # printed only then. The first line alone is weaker: it also precedes an empty detected
    # version when the banner could not read the driver's (seen with a working GPU).
    _s("ngc-compat-unavailable", "was detected and compatibility mode is unavailable",
       r"version \d[\d.]* was detected and compatibility mode is unavailable",
       {"cuda-requirement": 3.5}, _WORKLOAD, True,
       ("       version 440.33.01 was detected and compatibility mode is UNAVAILABLE.",
        GH + "NVIDIA/nvidia-docker/issues/1479"),
       ("This container was built for NVIDIA Driver Release 545.23 or later, butversion "
        "535.104.05 was detected and compatibility mode is UNAVAILABLE",
        GH + "hiyouga/LlamaFactory/issues/5962")),
    _s("ngc-built-for-newer-driver", "this container was built for nvidia driver release",
       r"this container was built for nvidia driver release [\d.]+ or later",
       {"cuda-requirement": 1.5}, _WORKLOAD, False,
       ("ERROR: This container was built for NVIDIA Driver Release 535.86 or later, but",
        GH + "NVIDIA/TensorRT-LLM/issues/23")),
    # Ollama's GPU discovery finding no usable GPU library or device in the container
    _s("ollama-no-gpu", "no compatible gpus were discovered",
       r"no compatible gpus were discovered",
       {"envvar-ignored": 1.0, "runtime-not-default": 0.75}, _WORKLOAD, False,
       ('time=2024-10-15T09:18:18.299Z level=INFO source=gpu.go:347 msg="no compatible GPUs '
        'were discovered"', "ollama/ollama@v0.3.13:gpu/gpu.go")),
    # Ollama's library search (debug level) finding no file of a GPU library: libcuda.so is the
    # driver's, mounted only by the nvidia runtime, so a container that ran under runc (or asked
    # for no GPU) finds none; a weak vote, the line repeats for each library it searches
    _s("ollama-no-gpu-libraries", "discovered gpu libraries",
       # (before 0.1.3x the list was printed inside the message, at info level)
       r"msg=\"?discovered gpu libraries(?:\"? paths=\[\]|: \[\]\")",
       {"runtime-not-default": 1.0, "envvar-ignored": 0.75}, _WORKLOAD, False,
       ('time=2024-08-15T15:39:41.513Z level=DEBUG source=gpu.go:525 msg="discovered GPU '
        'libraries" paths=[]', "ollama/ollama@v0.3.13:gpu/gpu.go"),
       ('time=2024-02-16T15:55:38.880Z level=INFO source=gpu.go:308 msg="Discovered GPU '
        'libraries: []"', "ollama/ollama@v0.1.25:gpu/gpu.go")),
    # CUDA_ERROR_NOT_PERMITTED (800) creating the first context on a GPU the container can see:
    # the device nodes are there but opening them is refused, what a container whose device
    # cgroup rules were reset under it (a systemd daemon-reload) gets (the driver API's error
    # table: https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html); Ollama
    # words it "nvcuda failed to get primary device context 800"
    _s("cuda-not-permitted", "primary device context 800|cuda_error_not_permitted",
       r"failed to get primary device context 800\b|cuda_error_not_permitted",
       {"device-lost": 2.0, "envvar-ignored": 0.5}, _WORKLOAD, False,
       ('time=2024-05-24T03:58:55.594Z level=INFO source=gpu.go:197 msg="error looking up nvidia '
        'GPU memory" error="nvcuda failed to get primary device context 800"',
        GH + "ollama/ollama/issues/4604")),
    # NVML's library missing as pynvml words NVML_ERROR_LIBRARY_NOT_FOUND (vLLM's platform
    # probe, gpustat and other Python tools): no driver user space in the container
    _s("pynvml-library-not-found", "nvml shared library not found",
       r"nvml shared library not found",
       {"runtime-not-default": 1.5, "envvar-ignored": 1.0, "nvml-init": 1.0}, _WORKLOAD, False,
       ("DEBUG 10-22 05:47:43 [platforms/__init__.py:99] CUDA platform is not available "
        "because: NVML Shared Library Not Found", GH + "vllm-project/vllm/issues/27318")),
    # vLLM finding no accelerator platform at all: no GPU reached the container (a weak vote;
    # a CPU-only build prints it too)
    _s("vllm-device-type-unknown", "failed to infer device type",
       r"failed to infer device type",
       {"envvar-ignored": 1.0, "runtime-not-default": 0.75}, _WORKLOAD, False,
       ("RuntimeError: Failed to infer device type", GH + "ai-dynamo/dynamo/issues/391")),
    # cudaErrorECCUncorrectable (214): the GPU's memory reported a double-bit error (the
    # kernel logs an Xid 48/63/94 beside it); the device plugin marks such a GPU unhealthy
    _s("cuda-ecc-uncorrectable", "uncorrectable ecc error encountered",
       r"uncorrectable ecc error encountered",
       {"xid": 2.5, "unhealthy": 1.0}, _WORKLOAD, False,
       ("RuntimeError: CUDA error: uncorrectable ECC error encountered",
        GH + "vllm-project/vllm/issues/5222")),
    # ---- nvidia-smi's own lines ------------------------------------------------------------
    # newer nvidia-smi follows NVML's "Driver/library version mismatch" with the user-space
    # library's version, on its own line (the paste's first line is often cut)
    _s("smi-nvml-library-version", "nvml library version",
       r"^\s*nvml library version: \d+\.\d+",
       {"nvml-mismatch": 3.0}, (SMI, LOG), False,
       ("NVML library version: 570.124", GH + "tinygrad/open-gpu-kernel-modules/issues/47"),
       ("NVML library version: 550.144", GH + "intel/llvm/issues/17614")),
    # the GPU's infoROM failing its checksum: nvidia-smi warns and exits 14; AKS's node
    # bootstrap fails the node on it (ERR_GPU_INFO_ROM_CORRUPTED). The board, not the stack.
    _s("smi-inforom-corrupted", "inforom is corrupted",
       r"inforom is corrupted at gpu\s*[0-9a-f:.]+",
       {"nvml-gpu-error": 2.0}, (SMI, LOG), False,
       ("WARNING: infoROM is corrupted at gpu 0000:B3:00.0", GH + "NVIDIA/gpu-operator/issues/20"),
       ("WARNING: infoROM is corrupted at gpu 0000:00:1E.0", GH + "pytorch/pytorch/pull/87464")),
    # ---- Docker and Podman ------------------------------------------------------------------
    # Docker before 19.03's wording of a --runtime=nvidia the daemon's runtime table lacks
    # (daemon.json without the nvidia runtime, or dockerd not reloaded after it was added)
    _s("docker-unknown-runtime-specified", "unknown runtime specified",
       r"unknown runtime specified nvidia",
       {"handler-missing": 2.5, "runtime-not-default": 1.0}, _ENGINE, True,
       ("docker: Error response from daemon: Unknown runtime specified nvidia.",
        GH + "NVIDIA/nvidia-docker/issues/838")),
    # the engine's CLI predating --gpus (Docker before 19.03, Podman before 3.2): the GPU
    # request never reaches a runtime; the engine is older than the request needs
    _s("engine-gpus-flag-unknown", "unknown flag: --gpus",
       r"unknown flag: --gpus\b",
       {"unsupported-stack": 2.5, "handler-missing": 0.5}, (LOG, STATUS), False,
       ("Error: unknown flag: --gpus", GH + "podman-container-tools/podman/issues/10420"),
       ("unknown flag: --gpus", GH + "NVIDIA/gpu-monitoring-tools/issues/81")),
    # an engine that does not know CDI names takes nvidia.com/gpu=all for a device path and
    # stats it: Podman before 4.1, or a compose client that passes it as a device mapping.
    # The engine is too old for the CDI request, not the spec missing.
    _s("engine-cdi-name-as-path", "stat nvidia.com/",
       r"stat nvidia\.com/[\w.-]+=[\w.:-]+: no such file or directory",
       {"unsupported-stack": 2.5, "cdi-unresolvable": 1.0}, _ENGINE, False,
       ("Error: stat nvidia.com/gpu=all: no such file or directory",
        GH + "podman-container-tools/podman/issues/24474"),
       ("Error: stat nvidia.com/gpu=0: no such file or directory",
        GH + "podman-container-tools/podman/issues/20257"),
       ("Error response from daemon: container create: stat nvidia.com/gpu=all: no such file "
        "or directory", GH + "podman-container-tools/podman/issues/28309")),
    # the engine (docker, podman, or kubelet's old in-tree GPU support) adding /dev/nvidiaN or
    # /dev/nvidiactl as a plain device that the host does not have: no driver loaded there
    _s("engine-nvidia-device-node-missing", "while adding custom device",
       r"error gathering device information while adding custom device \W*/dev/nvidia",
       {"nvml-init": 2.0, "driver-failing": 0.5}, _ENGINE, False,
       ("Failed to start container with docker id aa5a0319488f with error: Error response from "
        'daemon: {"message":"linux runtime spec devices: error gathering device information '
        'while adding custom device \\"/dev/nvidia0\\": lstat /dev/nvidia0: no such file or '
        'directory"}', GH + "k8sp/sextant/issues/397"),
       ("docker: Error response from daemon: linux runtime spec devices: error gathering device "
        'information while adding custom device "/dev/nvidia0": lstat /dev/nvidia0: no such file '
        "or directory.", GH + "kersny/airsim_nvidia_docker/issues/4"),
       ("Error response from daemon: linux runtime spec devices: error gathering device "
        'information while adding custom device "/dev/nvidia-uvm": lstat /dev/nvidia-uvm: no such '
        "file or directory", GH + "webanck/docker-wine-steam/issues/15")),
    # ---- GKE's GPU device plugin (container-engine-accelerators) ------------------------
    # the plugin's MIG manager finding the GPUs not partitioned as the node pool's
    # gpu-partition-size asks (the partition_gpu init step did not run or failed): it never
    # starts, so no nvidia.com/gpu is advertised
    _s("gke-plugin-mig-partitions", "mig device manager|partitioned as expected|"
       "expected partition count",
       r"failed to start mig device manager: |not all gpus are partitioned as expected|"
       r"number of partitions \(\d+\) for gpu \S+ does not match expected partition count",
       {"mig-failed": 3.0, "not-advertised": 0.5}, (LOG,), True,
       ("E0312 10:02:10.000000       1 nvidia_gpu.go:117] failed to start GPU device manager: "
        "failed to start mig device manager: Number of partitions (0) for GPU nvidia0 does not "
        "match expected partition count (7)", GKE + "pkg/gpu/nvidia/mig/mig.go"),
       ("failed to start GPU device manager: failed to start mig device manager: Not all GPUs "
        "are partitioned as expected. Total number of GPUs: 8, number of partitioned GPUs: 0",
        GKE + "pkg/gpu/nvidia/mig/mig.go")),
    # GKE's partition_gpu step (run before the plugin on MIG node pools) failing to switch
    # MIG on or to lay out the pool's gpu-partition-size: the GPUs stay unpartitioned
    _s("gke-partition-gpu-failed", "mig mode|gpu partitions|gpu instances|compute instances",
       r"failed to (?:check if mig mode is enabled|enable mig mode|cleanup gpu partitions|"
       r"create gpu partitions|trigger node reboot after enabling mig mode): |"
       r"failed to create (?:gpu instances|compute instances): output: ",
       {"mig-failed": 3.0}, (LOG,), True,
       ("E0312 10:02:10.000000       1 partition_gpu.go:125] Failed to create GPU partitions: "
        "failed to create GPU Instances: output: Unable to create a GPU instance on GPU 0 using "
        "profile 19: Insufficient Resources, error: exit status 2",
        GKE + "partition_gpu/partition_gpu.go"),
       ("E0312 10:02:10.000000       1 partition_gpu.go:103] Failed to enable MIG mode: exit "
        "status 1", GKE + "partition_gpu/partition_gpu.go")),
    # MPS sharing asked for but the MPS control daemon is not up on the node: the plugin
    # retries start forever and advertises nothing
    _s("gke-plugin-mps-not-running", "nvidia mps is not running on this node",
       r"nvidia mps is not running on this node",
       {"not-advertised": 2.5}, (LOG,), False,
       ("E0312 10:02:10.000000       1 nvidia_gpu.go:117] failed to start GPU device manager: "
        "NVIDIA MPS is not running on this node: failed to health check NVIDIA MPS: exit status 1",
        GKE + "pkg/gpu/nvidia/manager.go")),
    # the plugin failing to reach or register with kubelet's device-plugin socket
    _s("gke-plugin-kubelet-register", "to kubelet service",
       r"device-plugin: cannot (?:connect|register) to kubelet service",
       {"not-advertised": 3.0}, (LOG,), True,
       ("device-plugin: cannot register to kubelet service: rpc error: code = Unavailable desc "
        "= connection error", GKE + "pkg/gpu/nvidia/beta_plugin.go"),
       ("device-plugin: cannot connect to kubelet service: context deadline exceeded",
        GKE + "pkg/gpu/nvidia/beta_plugin.go")),
    # ---- GKE's COS driver installer (cos-gpu-installer) ---------------------------------------
    # the installer giving up on a download it needs: the driver runfile for this COS
    # release (a driver version not published for it, or no route to the bucket) or the
    # kernel headers it builds against; no driver gets installed, so the plugin never starts
    _s("cos-installer-download-failed", "giving up",
       r"could not download (?:gpu installer|toolchain archive|kernel_info file|"
       r"toolchain_env file) from \S+, giving up",
       {"driver-failing": 2.0}, (LOG,), False,
       ("[ERROR   2021-07-15 10:02:10 UTC] Could not download GPU installer from "
        "https://storage.googleapis.com/nvidia-drivers-us-public/tesla/450.119.04/"
        "NVIDIA-Linux-x86_64-450.119.04.run, giving up.", COS),
       ("[ERROR   2021-07-15 10:02:10 UTC] Could not download toolchain archive from "
        "https://storage.googleapis.com/cos-tools/13816.0.0/toolchain.tar.xz, giving up.",
        COS)),
    _s("cos-installer-headers-missing", "could not download kernel headers",
       r"could not download kernel headers from \S+, giving up",
       {"kernel-headers": 2.5, "driver-failing": 0.5}, (LOG,), False,
       ("[ERROR   2021-07-15 10:02:10 UTC] Could not download kernel headers from "
        "https://storage.googleapis.com/cos-tools/13816.0.0/kernel-headers.tgz, giving up.",
        COS)),
    # the Go installer (cos_gpu_installer v2) checking the chosen driver against the GPU's
    # last supported branch (its fallback table): the default driver is too new or too old
    # for this GPU; when the fallback branch's artifact is missing too, no driver installs
    _s("cos-installer-driver-gpu-unsupported", "gpu devices",
       r"driver version \S+ doesn't support \S+ gpu devices",
       {"gpu-unsupported": 3.0, "driver-failing": 0.5}, (LOG,), True,
       ("W0625 05:36:32.745071    5389 install.go:488] Driver version 470.182.03 doesn't "
        "support L4 GPU devices.", COS2),
       ("Driver version 535.129.03 doesn't support K80 GPU devices.", COS2)),
    # ---- AKS node bootstrap (AgentBaker's CSE) ------------------------------------------------
    # the node's GPU driver install step failing: the node joins without a working driver
    _s("aks-gpu-driver-install-failed", "failed to install gpu driver",
       r"failed to install gpu driver, exiting",
       {"driver-failing": 1.5, "nvml-init": 1.0}, (LOG, JOURNAL), False,
       ("Failed to install GPU driver, exiting...", AKS)),
    # the node's bootstrap script (vmssCSE) exiting with its GPU codes, as Azure reports the
    # extension failing (cse_helpers.sh: 83 driver download timeout, 84 nvidia-modprobe /
    # nvidia-smi failing after install, 85 driver install timeout): the node has no working
    # driver, so it never joins the pool
    _s("aks-cse-gpu-driver-exit", "command terminated with exit status=8",
       r"command terminated with exit status=8[345]\b",
       {"driver-failing": 2.0, "nvml-init": 1.0}, (LOG, EVENT, STATUS), False,
       ("VM has reported a failure when processing extension 'vmssCSE'. Error message: "
        '\\"Enable failed: failed to execute command: command terminated with exit '
        "status=84\\n[stdout]\\n\\n[stderr]\\n\\\".", GH + "Azure/acs-engine/issues/4064"),
       ("VM has reported a failure when processing extension 'vmssCSE'. Error message: \"Enable "
        "failed: failed to execute command: command terminated with exit status=85 [stdout] "
        '[stderr] Connection to k8s.gcr.io 443 port [tcp/https] succeeded!".',
        GH + "Azure/aks-engine/issues/2406")),
    # ... 87: nvidia-smi reported the GPU's infoROM corrupted (the board, not the install)
    _s("aks-cse-gpu-inforom-exit", "command terminated with exit status=87",
       r"command terminated with exit status=87\b",
       {"nvml-gpu-error": 2.5}, (LOG, EVENT, STATUS), False,
       ("VM has reported a failure when processing extension 'vmssCSE'. Error message: \"Enable "
        'failed: failed to execute command: command terminated with exit status=87".',
        "Azure/AgentBaker@v0.20260805.0:parts/linux/cloud-init/artifacts/cse_helpers.sh")),
    # ---- kube-scheduler filter reasons --------------------------------------------------------
    # cordoned nodes (spec.unschedulable): like a taint, they are excluded before resources
    # are counted; when the same message also says Insufficient nvidia.com/…, some node passed
    # the filter, so the cordon is not why
    _s("scheduler-node-unschedulable", "node(s) were unschedulable",
       r"^(?!.*insufficient nvidia\.com/).*\d+ node\(s\) were unschedulable",
       {"taint-selector": 2.0}, (EVENT, DESCRIBE), False,
       ("0/2 nodes are available: 2 node(s) were unschedulable.",
        K + "pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go")),
    # ---- NCCL's init warnings (src/transport/nvls.cc, src/mnnvl.cc, src/init.cc) ----------
    # NVLink SHARP's multicast bind failing at communicator init: NCCL itself names Fabric
    # Manager or the NVSwitches (from 2.27; the WARN's second line is pasted alone too). The
    # INFO twin that goes on without NVLS (2.27, NVLS not forced on) is no failure.
    _s("nccl-nvls-bind-failed", "nvlink sharp (nvls) multicast|error in the fabric manager",
       r"failed to bind nvlink sharp \(nvls\) multicast memory(?!.*proceeding without nvls)|"
       r"usually caused by a system or "
       r"configuration error in the fabric manager or nvswitches",
       {"fm-missing": 2.5, "fm-version": 0.75}, _WORKLOAD, False,
       ("gpu12:3341:3520 [0] transport/nvls.cc:284 NCCL WARN Failed to bind NVLink SHARP (NVLS) "
        "Multicast memory of size 1073741824 : CUDA error 801 'operation not supported'.",
        "NVIDIA/nccl@v2.27.3-1:src/transport/nvls.cc"),
       ("This is usually caused by a system or configuration error in the Fabric Manager or "
        "NVSwitches.", "NVIDIA/nccl@v2.29.7-1:src/transport/nvls.cc")),
    # a multi-node NVLink clique whose fabric memory handles do not work: no IMEX channel in
    # the container or no IMEX daemon serving the node (2.26 wording, then 2.27's)
    _s("nccl-mnnvl-imex", "mnnvl (cliquesize",
       r"mnnvl \(cliquesize \d+\) is available but not (?:supported|working) on this system",
       {"dra-imex-down": 2.0}, _WORKLOAD, False,
       ("gb200-07:812:990 [0] mnnvl.cc:69 NCCL WARN MNNVL (cliqueSize 72) is available but not "
        "supported on this system. Check the IMEX configuration.",
        "NVIDIA/nccl@v2.26.2-1:src/mnnvl.cc"),
       ("gb200-07:812:990 [0] mnnvl.cc:68 NCCL WARN MNNVL (cliqueSize 72) is available but not "
        "working on this system. Check the IMEX channel configuration "
        "(/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this issue.",
        "NVIDIA/nccl@v2.29.7-1:src/mnnvl.cc")),
    # two ranks on one physical GPU: under Kubernetes, a pod given several replicas of one
    # time-sliced (or MPS) GPU, which failRequestsGreaterThanOne exists to refuse
    _s("nccl-duplicate-gpu", "duplicate gpu detected",
       r"duplicate gpu detected : rank \d+ and rank \d+ both on cuda device",
       {"shared-request": 1.5}, _WORKLOAD, False,
       ("trainer-0:95:95 [1] init.cc:943 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 "
        "both on CUDA device 1b000", "NVIDIA/nccl@v2.21.5-1:src/init.cc")),
)
