"""The runtime side's messages read from upstream source, each triaged as a user pastes it.

Each line is a message a runtime-side component prints when a GPU pod gets no GPU or a node stops
advertising GPUs, instantiated from the cited tag (format verbs filled in, Go wrapping chains as
they read when logged). Triage must rank the code the message means first: wording variants of
another release, sibling errors of the same function and the libraries' validation errors are
what blind tickets carry and the catalog had not seen (knowledge/signatures_runtime.py).
"""

from __future__ import annotations

import re

import pytest

from gpuxray.diagnose.triage import triage

SOURCE = re.compile(r"^(?:[\w.-]+/[\w.-]+@[\w.+-]+:\S+|https://\S+)$")

# (code ranked first, the upstream file that prints the line, the line)
LINES: list[tuple[str, str, str]] = [
    # ---- libnvidia-container: nvidia-container-cli's <stage> error lines, its debug log
    # the hook failing at create on a host with no loaded driver: where confirmed, the runtime
    # applied to a host without GPUs (ray-project/ray#11418, dstackai/dstack#1942)
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: initialization error: nvml error: driver not loaded'),
    ('GX304', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: initialization error: nvml error: driver/library version mismatch'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot '
     'open shared object file: no such file or directory'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: initialization error: nvml error: insufficient permissions'),
    ('GX304', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: initialization error: nvml error: unknown error'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: initialization error: open failed: /proc/sys/kernel/overflowuid: '
     'permission denied'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: initialization error: driver rpc error: timed out'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.0.0:src/cli/configure.c',
     'nvidia-container-cli: initialization error: cuda error: no cuda-capable device is detected'),
    ('GX304', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: detection error: nvml error: unknown error'),
    ('GX505', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: detection error: nvml error: gpu is lost'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: detection error: open failed: '
     '/proc/driver/nvidia/gpus/0000:3b:00.0/information: no such file or directory'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: device error: GPU-5c0f2a11-aaaa-bbbb-cccc-0123456789ab: unknown '
     'device'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: device error: 3: unknown device'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: mount error: file creation failed: '
     '/var/lib/docker/overlay2/abc/merged/usr/bin/nvidia-smi: file exists'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: mount error: failed to add device rules: unable to find any existing '
     'device filters attached to the cgroup: bpf_prog_query(BPF_CGROUP_DEVICE) failed: operation '
     'not permitted'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: mount error: stat failed: /dev/nvidia-uvm: no such file or directory'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: mount error: mount operation failed: '
     '/run/containerd/io.containerd.runtime.v2.task/k8s.io/abc/rootfs/proc/driver/nvidia: no '
     'such file or directory'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: container error: failed to get device cgroup mount path: no cgroup '
     'filesystem mounted for the devices subsytem in mountinfo file'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: ldcache error: open failed: /sbin/ldconfig.real: no such file or '
     'directory'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: ldcache error: process /sbin/ldconfig.real failed with error code: 1'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: ldcache error: process /sbin/ldconfig terminated with signal 9'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: permission error: capability change failed: operation not permitted'),
    ('GX311', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update '
     'your driver to a newer version, or use an earlier cuda container'),
    # a CLI too old to parse the image's NVIDIA_REQUIRE_CUDA (brand=, arch=): the image's
    # requirement against the node's stack, as the unsatisfied condition is
    ('GX311', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: requirement error: invalid expression'),
    ('GX307', 'NVIDIA/libnvidia-container@v1.17.0:src/cli/configure.c',
     'nvidia-container-cli: input error: invalid rootfs directory'),
    ('GX304', 'NVIDIA/libnvidia-container@v1.17.0:src/nvc.c',
     'E1129 10:02:10.123456 12345 nvc.c:356] could not load kernel module nvidia'),
    # ---- nvidia-container-toolkit: the runtime, its legacy hook, the CDI hook, nvidia-ctk
    ('GX307', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/runtime/runtime.go',
     'error loading config: (5, 12): was expecting token =, but got "runtimes" instead'),
    ('GX307', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/config/cli.go',
     'error loading config: invalid config: nvidia-container-cli.ldconfig value "/sbin/ldconfig" '
     "is not host-relative (does not start with a '@')"),
    ('GX307', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/modifier/cdi.go',
     'failed to create NVIDIA Container Runtime: failed to construct OCI spec modifier: failed '
     'to construct CDI modifier for mode "cdi": failed to create CDI registry: failed to create '
     'watcher: too many open files'),
    ('GX305', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/oci/runtime_modifier.go',
     'could not apply required modification to OCI specification: error modifying OCI spec: '
     'failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=all'),
    ('GX307', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/runtime/runtime_factory.go',
     'error constructing low-level runtime: error locating runtime: no runtime binary found from '
     'candidate list: [runc crun]'),
    ('GX307', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/oci/runtime_path.go',
     'failed to create NVIDIA Container Runtime: error constructing low-level runtime: error '
     "locating runtime: invalid path '/usr/local/sbin/runc': specified path "
     "'/usr/local/sbin/runc' is not an executable file"),
    ('GX307', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/runtime/runtime_factory.go',
     'failed to create NVIDIA Container Runtime: failed to construct OCI spec modifier: invalid '
     'runtime mode: cdi-auto'),
    ('GX307', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/discover/graphics.go',
     'failed to create NVIDIA Container Runtime: failed to construct OCI spec modifier: failed '
     'to construct discoverer: failed to create mounts discoverer: failed to get driver version: '
     'failed to locate libcuda.so: pattern libcuda.so.*.* not found'),
    ('GX307', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/modifier/discover.go',
     'could not apply required modification to OCI specification: error modifying OCI spec: '
     'failed to get required container edits: failed to discover devices: error discovering '
     'devices for discoverer 0: error getting info: stat /dev/nvidia-uvm: no such file or '
     'directory'),
    ('GX303', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/config/image/cuda_image.go',
     'level=info msg="Ignoring devices requested by environment variable(s) in unprivileged '
     'container: [NVIDIA_VISIBLE_DEVICES]"'),
    ('GX303', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/config/image/cuda_image.go',
     'Ignoring request by environment variable(s) in unprivileged container: '
     '[NVIDIA_VISIBLE_DEVICES]'),
    ('GX305', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/config/image/cuda_image.go',
     'level=warning msg="Ignoring invalid mount request for CDI device nvidia.com/gpu=0: invalid '
     'mount CDI device request: nvidia.com/gpu=0"'),
    ('GX307',
     'NVIDIA/nvidia-container-toolkit@v1.18.0:cmd/nvidia-container-runtime-hook/hook_config.go',
     "panic: couldn't open required configuration file: open "
     '/etc/nvidia-container-runtime/config.toml: no such file or directory'),
    ('GX307',
     'NVIDIA/nvidia-container-toolkit@v1.18.0:cmd/nvidia-container-runtime-hook/hook_config.go',
     'failed to load config: failed to load specified config file: open '
     '/etc/nvidia-container-runtime/config.toml: permission denied'),
    ('GX307', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/oci/runtime_syscall_exec.go',
     "could not exec '/usr/bin/runc': permission denied"),
    ('GX307',
     'NVIDIA/nvidia-container-toolkit@v1.17.0:cmd/nvidia-cdi-hook/update-ldcache/update-ldcache.go',
     'error running createContainer hook #1: exit status 1, stdout: , stderr: '
     'time="2025-03-04T10:00:00Z" level=error msg="failed to update ldcache: exit status 1"'),
    ('GX307',
     'NVIDIA/nvidia-container-toolkit@v1.18.0:cmd/nvidia-cdi-hook/create-symlinks/create-symlinks.go',
     'level=error msg="failed to determined container root: failed to load container state: '
     'failed to decode container state: EOF"'),
    ('GX307',
     'NVIDIA/nvidia-container-toolkit@v1.18.0:cmd/nvidia-cdi-hook/create-symlinks/create-symlinks.go',
     'level=error msg="failed to create link [libcuda.so.1 /usr/lib64/libcuda.so]: failed to '
     'create directory: mkdir '
     '/run/containerd/io.containerd.runtime.v2.task/k8s.io/abc/rootfs/usr/lib64: read-only file '
     'system"'),
    ('GX307',
     'NVIDIA/nvidia-container-toolkit@v1.18.0:cmd/nvidia-cdi-hook/disable-device-node-modification/params_linux.go',
     'level=error msg="failed to mount modified params file: operation not permitted"'),
    ('GX304', 'NVIDIA/nvidia-container-toolkit@v1.18.0:cmd/nvidia-ctk/cdi/generate/generate.go',
     'level=error msg="failed to generate CDI spec: failed to create device CDI specs: failed to '
     'initialize NVML: ERROR_DRIVER_NOT_LOADED"'),
    ('GX305', 'NVIDIA/nvidia-container-toolkit@v1.18.0:pkg/nvcdi/driver-nvml.go',
     'level=error msg="failed to generate CDI spec: failed to create edits common for entities: '
     'failed to create discoverer for common entities: failed to create discoverer for driver '
     'files: failed to get driver library locator: failed to determine driver version: failed to '
     'locate libcuda.so"'),
    ('GX305', 'NVIDIA/nvidia-container-toolkit@v1.18.0:pkg/nvcdi/management.go',
     'failed to generate CDI spec: failed to create edits common for entities: no NVIDIA device '
     'nodes found'),
    ('GX505', 'NVIDIA/nvidia-container-toolkit@v1.18.0:pkg/nvcdi/lib-nvml.go',
     'failed to create device CDI specs: failed to get device handle from index: '
     'ERROR_GPU_IS_LOST'),
    ('GX508',
     'NVIDIA/nvidia-container-toolkit@v1.18.0:cmd/nvidia-ctk/system/create-device-nodes/create-device-nodes.go',
     'level=error msg="failed to create NVIDIA control device nodes: failed to load NVIDIA '
     'kernel modules: failed to load module nvidia: exit status 1; output=modprobe: FATAL: '
     'Module nvidia not found in directory /lib/modules/6.8.0-1015-aws"'),
    ('GX304', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/system/nvdevices/devices.go',
     'failed to create NVIDIA device nodes: failed to create device node nvidia-uvm: failed to '
     'determine major: invalid device node'),
    ('GX305', 'NVIDIA/nvidia-container-toolkit@v1.18.0:cmd/nvidia-ctk/cdi/list/list.go',
     'level=warning msg="The following registry errors were reported:"'),
    ('GX305', 'NVIDIA/nvidia-container-toolkit@v1.18.0:cmd/nvidia-ctk/cdi/list/list.go',
     'level=warning msg="/etc/cdi/nvidia.yaml: failed to load CDI Spec invalid device, empty '
     'device edits"'),
    ('GX509',
     'NVIDIA/nvidia-container-toolkit@v1.18.0:cmd/nvidia-ctk/runtime/configure/configure.go',
     'level=error msg="unable to load config for runtime containerd: failed to load config: (3, '
     '9): was expecting token =, but got "x" instead"'),
    ('GX301',
     'NVIDIA/nvidia-container-toolkit@v1.18.0:cmd/nvidia-ctk/runtime/configure/configure.go',
     'level=fatal msg="unrecognized runtime \'containerd2\'"'),
    ('GX307', 'NVIDIA/nvidia-container-toolkit@v1.4.0:pkg/container_config.go',
     'panic: could not decode container state: unexpected end of JSON input'),
    ('GX307', 'NVIDIA/nvidia-container-toolkit@v1.4.0:cmd/nvidia-container-runtime-hook/main.go',
     "panic: couldn't open configuration file: open /etc/nvidia-container-runtime/config.toml: "
     'permission denied'),
    ('GX307',
     'NVIDIA/nvidia-container-toolkit@v1.4.0:cmd/nvidia-container-runtime-hook/capabilities.go',
     'panic: unknown driver capability: vidoe'),
    ('GX303', 'NVIDIA/nvidia-container-toolkit@v1.4.0:pkg/container_config.go',
     'panic: insufficient privileges to read device list from NVIDIA_VISIBLE_DEVICES envvar'),
    ('GX307', 'NVIDIA/nvidia-container-toolkit@v1.8.0:cmd/nvidia-container-runtime/main.go',
     'ERRO[0000] Error running [nvidia-container-runtime --root /run/containerd/runc/k8s.io '
     'create --bundle /run/containerd/io.containerd.runtime.v2.task/k8s.io/abc abc]: error '
     'creating runtime: error constructing NVIDIA Container Runtime: error constructing runc '
     'runtime: error locating runtime: no runtime binary found from candidate list: [docker-runc '
     'runc]'),
    ('GX307', 'NVIDIA/nvidia-container-toolkit@v1.8.0:cmd/nvidia-container-runtime/main.go',
     'error opening debug log file: open /var/log/nvidia-container-runtime.log: read-only file '
     'system'),
    ('GX307',
     'NVIDIA/nvidia-container-toolkit@v1.8.0:cmd/nvidia-container-runtime/runtime_factory.go',
     'error creating runtime: error constructing NVIDIA Container Runtime: error injecting '
     'NVIDIA Container Runtime hook: error loading OCI specification for modification: error '
     'reading OCI specification: unexpected end of JSON input'),
    ('GX409',
     'NVIDIA/nvidia-container-toolkit@v1.18.0:cmd/nvidia-ctk/runtime/configure/configure.go',
     'level=error msg="unable to update config: failed to get CRI runtime plugin name: '
     'unsupported config version: 4"'),
    ('GX301',
     'NVIDIA/nvidia-container-toolkit@v1.18.0:cmd/nvidia-ctk/runtime/configure/configure.go',
     'level=fatal msg="runtime docker does not support drop-in configs"'),
    ('GX301',
     'NVIDIA/nvidia-container-toolkit@v1.18.0:pkg/config/engine/containerd/config_drop_in.go',
     'level=error msg="unable to flush config: failed to save top-level config: unable to open '
     '/etc/containerd/config.toml for writing: open /etc/containerd/config.toml: read-only file '
     'system"'),
    ('GX305', 'NVIDIA/nvidia-container-toolkit@v1.18.0:internal/modifier/cdi/registry.go',
     'Error: failed to create containerd task: failed to create shim task: OCI runtime create '
     'failed: could not apply required modification to OCI specification: error modifying OCI '
     'spec: failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=GPU-5c0f: '
     'unknown'),
    # ---- the CDI library: spec validation and resolution
    ('GX305', 'cncf-tags/container-device-interface@v1.0.1:pkg/cdi/cache.go',
     'failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=0'),
    ('GX305', 'cncf-tags/container-device-interface@v1.0.1:pkg/cdi/cache.go',
     'failed to load CDI Spec invalid device, empty device edits'),
    ('GX305', 'cncf-tags/container-device-interface@v1.0.1:pkg/cdi/spec.go',
     'failed to load CDI Spec invalid CDI Spec: failed add device "0": invalid device, empty '
     'device edits'),
    ('GX305', 'cncf-tags/container-device-interface@v1.0.1:pkg/cdi/spec.go',
     'invalid CDI Spec: invalid device "0": invalid hook "createContainer" with empty path'),
    ('GX305', 'cncf-tags/container-device-interface@v1.0.1:pkg/cdi/spec.go',
     'failed to parse CDI Spec "/etc/cdi/nvidia.yaml": error converting YAML to JSON: yaml: line '
     '10: did not find expected key'),
    ('GX305', 'cncf-tags/container-device-interface@v1.0.1:specs-go/version.go',
     'failed to load CDI Spec invalid CDI Spec: invalid version "0.9.0"'),
    ('GX305', 'cncf-tags/container-device-interface@v1.0.1:pkg/cdi/annotations.go',
     'invalid CDI device name "gpu0"'),
    ('GX305', 'cncf-tags/container-device-interface@v1.0.1:pkg/cdi/container-edits_unix.go',
     'failed to inject devices: failed to stat CDI host device "/dev/nvidia0": no such file or '
     'directory'),
    ('GX305', 'cncf-tags/container-device-interface@v1.0.1:pkg/cdi/cache.go',
     'CDI registry refresh failed: conflicting device "nvidia.com/gpu=all" (specs '
     '"/etc/cdi/nvidia.yaml", "/var/run/cdi/nvidia.yaml")'),
    # ---- kubelet: device manager admission and plugin registration
    ('GX310', 'kubernetes/kubernetes@v1.30.0:pkg/kubelet/cm/devicemanager/manager.go',
     'Warning  UnexpectedAdmissionError  2m  kubelet  Allocate failed due to requested number of '
     'devices unavailable for nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected'),
    ('GX310', 'kubernetes/kubernetes@v1.20.0:pkg/kubelet/cm/devicemanager/manager.go',
     'Allocate failed due to pod 4c8a container cuda changed request for resource nvidia.com/gpu '
     'from 1 to 2, which is unexpected'),
    ('GX310', 'kubernetes/kubernetes@v1.30.0:pkg/kubelet/cm/devicemanager/manager.go',
     'Allocate failed due to pod "4c8a" container "cuda" changed request for resource '
     '"nvidia.com/gpu" from 1 to 2, which is unexpected'),
    ('GX310', 'kubernetes/kubernetes@v1.30.0:pkg/kubelet/cm/devicemanager/manager.go',
     'Allocate failed due to rpc error: code = Unknown desc = failed to get allocate response: '
     'failed to get CDI spec: failed to create device CDI specs, which is unexpected'),
    ('GX310', 'kubernetes/kubernetes@v1.30.0:pkg/kubelet/cm/devicemanager/manager.go',
     'Allocate failed due to device plugin PreStartContainer rpc failed with err: rpc error: '
     'code = Unavailable desc = connection error, which is unexpected'),
    ('GX202', 'kubernetes/kubernetes@v1.30.0:pkg/kubelet/cm/devicemanager/plugin/v1beta1/client.go',
     'E0312 10:02:10.000000    1655 client.go:62] "Unable to connect to device plugin client '
     'with socket path" err="failed to dial device plugin: context deadline exceeded" '
     'path="/var/lib/kubelet/device-plugins/nvidia-gpu.sock"'),
    ('GX202', 'kubernetes/kubernetes@v1.30.0:pkg/kubelet/cm/devicemanager/plugin/v1beta1/server.go',
     'I0312 10:02:10.000000    1655 server.go:160] "Bad registration request from device plugin '
     'with resource" resourceName="nvidia.com/gpu" err="requested API version \\"v1alpha\\" is not '
     'supported by kubelet. Supported version is \\"v1beta1\\""'),
    ('GX202', 'kubernetes/kubernetes@v1.30.0:pkg/kubelet/cm/devicemanager/plugin/v1beta1/server.go',
     'E0312 10:02:10.000000    1655 server.go:115] "Failed to serve device plugin registration '
     'grpc server, retrying..." err="listen unix /var/lib/kubelet/device-plugins/kubelet.sock: '
     'bind: address already in use"'),
    ('GX202', 'kubernetes/kubernetes@v1.20.0:pkg/kubelet/cm/devicemanager/manager.go',
     'E0312 10:02:10.000000    1655 manager.go:393] failed to dial device plugin with socketPath '
     '/var/lib/kubelet/device-plugins/nvidia-gpu.sock: context deadline exceeded'),
    ('GX202', 'kubernetes/kubernetes@v1.20.0:pkg/kubelet/cm/devicemanager/endpoint.go',
     'E0312 10:02:10.000000    1655 endpoint.go:106] listAndWatch ended unexpectedly for device '
     'plugin nvidia.com/gpu with error rpc error: code = Unavailable desc = transport is closing'),
    ('GX310', 'kubernetes/kubernetes@41915644:pkg/kubelet/cm/devicemanager/manager.go',
     'Allocate failed due to failed to write checkpoint file "kubelet_internal_checkpoint": '
     'write /var/lib/kubelet/device-plugins/.882934: no space left on device, which is unexpected'),
    ('GX310', 'kubernetes/kubernetes@v1.30.0:pkg/kubelet/cm/devicemanager/manager.go',
     'Warning  UnexpectedAdmissionError  kubelet  Allocate failed due to unknown Device Plugin '
     'nvidia.com/gpu, which is unexpected'),
    ('GX310', 'kubernetes/kubernetes@v1.30.0:pkg/kubelet/cm/devicemanager/manager.go',
     'Allocate failed due to no healthy devices present; cannot allocate unhealthy devices '
     'nvidia.com/gpu, which is unexpected'),
    ('GX203', 'kubernetes/kubernetes@v1.30.0:pkg/kubelet/cm/devicemanager/manager.go',
     'Pod Allocate failed due to previously allocated devices are no longer healthy; cannot '
     'allocate unhealthy devices nvidia.com/gpu, which is unexpected'),
    ('GX202', 'kubernetes/kubernetes@v1.20.0:pkg/kubelet/cm/devicemanager/manager.go',
     'I0312 10:02:10.000000    1655 manager.go:411] Bad registration request from device plugin '
     'with resource name "nvidia.com/gpu": requested API version "v1alpha" is not supported by '
     'kubelet. Supported version is "v1beta1"'),
    ('GX310', 'kubernetes/kubernetes@v1.30.0:pkg/kubelet/cm/devicemanager/manager.go',
     'Allocate failed due to device plugin GetPreferredAllocation rpc failed with err: rpc '
     'error: code = Unknown desc = error getting list of preferred allocation devices: unable to '
     'retrieve list of available devices: 1 unknown device: GPU-5c0f, which is unexpected'),
    # ---- containerd: the CRI plugin's runtime handlers, config and shim
    ('GX305', 'containerd/containerd@v1.7.0:pkg/cri/opts/spec_linux.go',
     'CDI device injection failed: unresolvable CDI devices '
     'k8s.device-plugin.nvidia.com/gpu=GPU-5c0f'),
    ('GX509', 'containerd/containerd@v1.7.0:pkg/cri/server/service_linux.go',
     'level=warning msg="failed to load plugin io.containerd.grpc.v1.cri" error="failed to '
     'configure CDI registry: failed to create watcher: too many open files"'),
    ('GX301', 'containerd/containerd@v1.7.0:pkg/cri/server/sandbox_run.go',
     'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox '
     'runtime: no runtime for "nvidia" is configured'),
    ('GX301', 'containerd/containerd@v2.1.0:internal/cri/server/container_create.go',
     'Error: failed to create containerd container: failed to get runtimeHandler "nvidia": no '
     'runtime for "nvidia" is configured'),
    ('GX301', 'containerd/containerd@v2.1.0:internal/cri/server/podsandbox/sandbox_run.go',
     'failed to find runtime handler "nvidia"'),
    ('GX301', 'containerd/containerd@v2.1.0:internal/cri/server/container_image_mount.go',
     'level=error msg="failed to get sandbox runtime handler \\"4f1c2a\\"" error="no runtime for '
     '\\"nvidia\\" is configured"'),
    ('GX307', 'containerd/containerd@v1.7.0:pkg/process/init.go',
     'Error: failed to create containerd task: failed to create shim task: OCI runtime create '
     'failed: unable to retrieve OCI runtime error (open '
     '/run/containerd/io.containerd.runtime.v2.task/k8s.io/abc/log.json: no such file or '
     'directory): fork/exec /usr/bin/nvidia-container-runtime: no such file or directory: unknown'),
    ('GX307', 'containerd/containerd@v1.7.0:pkg/process/init.go',
     'Error: failed to create containerd task: failed to create shim task: OCI runtime create '
     'failed: unable to retrieve OCI runtime error (open '
     '/run/containerd/io.containerd.runtime.v2.task/k8s.io/abc/log.json: no such file or '
     'directory): exec: "nvidia-container-runtime": executable file not found in $PATH: unknown'),
    ('GX509', 'containerd/containerd@v1.7.0:pkg/cri/config/config.go',
     'failed to load plugin io.containerd.grpc.v1.cri: invalid plugin config: `systemd_cgroup` '
     'only works for runtime io.containerd.runtime.v1.linux'),
    ('GX509', 'containerd/containerd@v1.7.0:pkg/cri/config/config.go',
     'level=warning msg="failed to load plugin io.containerd.grpc.v1.cri" error="invalid plugin '
     'config: `runtime_root` only works for runtime io.containerd.runtime.v1.linux"'),
    ('GX509', 'containerd/containerd@v1.6.0:services/server/config/config.go',
     'containerd: failed to load TOML: /etc/containerd/config.toml: (34, 5): duplicated tables'),
    ('GX509', 'containerd/containerd@v2.1.0:cmd/containerd/server/config/config.go',
     'containerd: failed to load TOML from /etc/containerd/config.toml: toml: line 34 (last key '
     '"plugins.\'io.containerd.grpc.v1.cri\'.containerd.runtimes.nvidia"): table nvidia already '
     'exists'),
    ('GX509', 'containerd/containerd@v1.7.0:runtime/v2/manager.go',
     'failed to create containerd task: failed to start shim: failed to resolve runtime path: '
     'invalid runtime name nvidia, correct runtime name should be either format like '
     '`io.containerd.runc.v1` or a full path to the binary: unknown'),
    ('GX509', 'containerd/containerd@v1.7.0:pkg/cri/config/config.go',
     'level=warning msg="failed to load plugin io.containerd.grpc.v1.cri" error="invalid plugin '
     'config: `default_runtime_name` is empty"'),
    ('GX509', 'containerd/containerd@v2.1.0:internal/cri/config/config.go',
     'level=warning msg="failed to load plugin" error="invalid plugin config: no corresponding '
     'runtime configured in `containerd.runtimes` for `containerd` `default_runtime_name = '
     '\\"nvidia\\"`" id=io.containerd.cri.v1.runtime type=io.containerd.cri.v1'),
    ('GX509', 'containerd/containerd@v1.7.0:pkg/cri/config/config.go',
     'level=warning msg="failed to load plugin io.containerd.grpc.v1.cri" error="invalid plugin '
     'config: conflicting definitions: configuration includes both `untrusted_workload_runtime` '
     'and `runtimes[\\"untrusted\\"]`"'),
    ('GX509', 'containerd/containerd@v2.1.0:cmd/containerd/server/config/config.go',
     'containerd: failed to load TOML from /etc/containerd/conf.d/99-nvidia.toml: toml: line 3 '
     '(last key "plugins.io.containerd.cri.v1.runtime"): expected \'.\' or \'=\', but got \''
     "]' instead"),
    # ---- runc: the hook wrapper across releases
    ('GX307', 'opencontainers/runc@v1.0.0-rc90:libcontainer/process_linux.go',
     'docker: Error response from daemon: OCI runtime create failed: container_linux.go:349: '
     'starting container process caused "process_linux.go:449: container init caused '
     '\\"process_linux.go:432: running prestart hook 0 caused \\\\\\"error running hook: ex'
     'it status '
     '1, stdout: , stderr: nvidia-container-cli: initialization error: nvml error: driver not '
     'loaded\\\\\\\\n\\\\\\"\\"": unknown.'),
    ('GX307', 'opencontainers/runc@v1.1.0:libcontainer/configs/config.go',
     'error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected '
     "mode as 'legacy'\nnvidia-container-cli: initialization error: nvml error: driver not "
     'loaded: unknown'),
    ('GX307', 'opencontainers/runc@v1.2.0:libcontainer/configs/config.go',
     'Error: failed to create containerd task: failed to create shim task: OCI runtime create '
     'failed: runc create failed: unable to start container process: error during container '
     'init: error running prestart hook #0: exit status 1, stdout: , stderr: Auto-detected mode '
     "as 'legacy'\nnvidia-container-cli: mount error: file creation failed: "
     '/run/containerd/io.containerd.runtime.v2.task/k8s.io/abc/rootfs/usr/bin/nvidia-smi: file '
     'exists: unknown'),
    ('GX307', 'opencontainers/runc@v1.1.0:libcontainer/configs/config.go',
     'OCI runtime create failed: runc create failed: unable to start container process: error '
     'during container init: error running hook #0: error running hook: exit status 1, stdout: , '
     "stderr: Auto-detected mode as 'legacy'"),
    ('GX311', 'opencontainers/runc@v1.0.0:libcontainer/process_linux.go',
     'OCI runtime create failed: container_linux.go:380: starting container process caused: '
     'process_linux.go:545: container init caused: Running hook #0:: error running hook: exit '
     'status 1, stdout: , stderr: nvidia-container-cli: requirement error: unsatisfied '
     'condition: cuda>=11.6, please update your driver to a newer version, or use an earlier '
     'cuda container: unknown'),
    ('GX304', 'opencontainers/runc@v1.2.0:libcontainer/configs/config.go',
     'Error: failed to create containerd task: failed to create shim task: OCI runtime create '
     'failed: runc create failed: unable to start container process: error during container '
     'init: error running prestart hook #0: exit status 1, stdout: , stderr: Auto-detected mode '
     "as 'legacy'\nnvidia-container-cli: initialization error: nvml error: unknown error: unknown"),
    ('GX307', 'opencontainers/runc@v1.1.0:libcontainer/configs/config.go',
     'Error: failed to create containerd task: failed to create shim task: OCI runtime create '
     'failed: runc create failed: unable to start container process: error during container '
     'init: error running hook #0: error running hook: exit status 1, stdout: , stderr: '
     "Auto-detected mode as 'legacy'\nnvidia-container-cli: initialization error: nvml error: "
     'driver not loaded: unknown'),
    ('GX311', 'opencontainers/runc@v1.1.0:libcontainer/configs/config.go',
     'Error: failed to create containerd task: failed to create shim task: OCI runtime create '
     'failed: runc create failed: unable to start container process: error during container '
     'init: error running hook #0: error running hook: exit status 1, stdout: , stderr: '
     "Auto-detected mode as 'legacy'\nnvidia-container-cli: requirement error: unsatisfied "
     'condition: cuda>=12.2, please update your driver to a newer version, or use an earlier '
     'cuda container: unknown'),
    ('GX304', 'opencontainers/runc@v1.1.0:libcontainer/configs/config.go',
     'Error: failed to create containerd task: failed to create shim task: OCI runtime create '
     'failed: runc create failed: unable to start container process: error during container '
     'init: error running hook #0: error running hook: exit status 1, stdout: , stderr: '
     "Auto-detected mode as 'legacy'\nnvidia-container-cli: initialization error: nvml error: "
     'driver/library version mismatch: unknown'),
    ('GX307', 'opencontainers/runc@v1.1.0:libcontainer/configs/config.go',
     'Error: failed to create containerd task: failed to create shim task: OCI runtime create '
     'failed: runc create failed: unable to start container process: error during container '
     'init: error running hook #0: error running hook: exit status 1, stdout: , stderr: '
     "Auto-detected mode as 'legacy'\nnvidia-container-cli: initialization error: load library "
     'failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: '
     'unknown'),
    # ---- crun: its hook wrapper
    ('GX307', 'containers/crun@1.8:src/libcrun/container.c',
     'crun: error executing hook `/usr/bin/nvidia-container-toolkit` (exit code: 1): OCI runtime '
     'error'),
    ('GX307', 'containers/crun@1.14:src/libcrun/container.c',
     'Error: OCI runtime error: crun: error executing hook '
     '`/usr/local/nvidia/toolkit/nvidia-container-runtime-hook` (exit code: 1)'),
    # ---- CRI-O: the runtime table
    ('GX301', 'cri-o/cri-o@v1.28.0:internal/oci/oci.go',
     'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to find runtime '
     'handler nvidia from runtime list map[crun:0xc000 runc:0xc001]'),
    ('GX307', 'cri-o/cri-o@v1.28.0:pkg/config/config.go',
     "validating runtime config: runtime validation: invalid runtime_path for runtime 'nvidia': "
     'stat /usr/bin/nvidia-container-runtime: no such file or directory'),
    ('GX307', 'cri-o/cri-o@v1.28.0:pkg/config/config.go',
     'invalid `runtime_type` "oci2" for runtime "nvidia"'),
    # ---- k8s-device-plugin: NVML, MIG strategy, config, registration
    ('GX304', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/plugin/factory.go',
     'E1129 10:02:10.000000       1 factory.go:88] Failed to initialize NVML: '
     'ERROR_DRIVER_NOT_LOADED.'),
    ('GX514', 'NVIDIA/k8s-device-plugin@v0.9.0:main.go',
     '2021/03/01 10:02:10 Failed to initialize NVML: could not load NVML library.'),
    ('GX304', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/device_map.go',
     'E1129 10:02:10.000000       1 main.go:173] error starting plugins: error getting plugins: '
     'unable to create plugins: failed to construct resource managers: error building device '
     'map: error building device map from config.resources: error building GPU device map: error '
     "getting device handle for index '0': ERROR_UNKNOWN"),
    ('GX505', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/device_map.go',
     'E1129 10:02:10.000000       1 main.go:173] error starting plugins: error getting plugins: '
     'unable to load resource managers to manage plugin devices: failed to construct NVML '
     'resource managers: error building device map: error building device map from '
     'config.resources: error building GPU device map: error getting device handle for index '
     "'1': ERROR_GPU_IS_LOST"),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.14.5:cmd/nvidia-device-plugin/plugin-manager.go',
     'E1129 10:02:10.000000       1 main.go:173] error starting plugins: error creating plugin '
     'manager: unable to create plugin manager: unknown strategy: balanced'),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.17.0:cmd/nvidia-device-plugin/main.go',
     'E1129 10:02:10.000000       1 main.go:173] unable to validate flags: unknown MIG strategy: '
     'balanced'),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.17.0:cmd/nvidia-device-plugin/main.go',
     'E1129 10:02:10.000000       1 main.go:173] unable to validate flags: using '
     '--mig-strategy=mixed is not supported with MPS'),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.17.0:cmd/nvidia-device-plugin/main.go',
     'E1129 10:02:10.000000       1 main.go:173] unable to validate flags: invalid '
     '--device-discovery-strategy option gpu'),
    ('GX419', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/device_map.go',
     'error starting plugins: error getting plugins: unable to load resource managers to manage '
     'plugin devices: failed to construct NVML resource managers: error building device map: '
     'error building device map from config.resources: invalid MIG configuration: for '
     'mig.strategy=single all devices on the node must all be configured with the same '
     'migEnabled value'),
    ('GX419', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/device_map.go',
     'error building device map from config.resources: invalid MIG configuration: all devices on '
     'the node must be configured with the same migEnabled value'),
    ('GX419', 'NVIDIA/k8s-device-plugin@v0.14.5:internal/lm/mig-strategy.go',
     'W1129 10:02:10.000000       1 mig-strategy.go:101] Invalid configuration detected for '
     'mig-strategy=single: more than one MIG device type present on node'),
    ('GX419', 'NVIDIA/k8s-device-plugin@v0.9.0:mig-strategy.go',
     'panic: For mig.strategy=single all devices on the node must all be configured with the '
     'same migEnabled value'),
    ('GX419', 'NVIDIA/k8s-device-plugin@v0.9.0:mig-strategy.go',
     'panic: More than one MIG device type present on node'),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.17.0:api/config/v1/config.go',
     'E1129 10:02:10.000000       1 main.go:173] unable to load config: unable to finalize '
     'config: unable to parse config file: unmarshal error: error unmarshaling JSON: while '
     'decoding JSON: json: unknown field "sharing.timeSlicing"'),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.17.0:api/config/v1/config.go',
     'unable to load config: unable to finalize config: unable to parse config file: error '
     'opening config file: open /config/config.yaml: no such file or directory'),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.17.0:api/config/v1/config.go',
     'unable to load config: unable to finalize config: unable to parse config file: unknown '
     'version: v2'),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/device_map.go',
     'error starting plugins: error getting plugins: unable to load resource managers to manage '
     'plugin devices: failed to construct NVML resource managers: error building device map: '
     'error updating device map with replicas from config.sharing.timeSlicing.resources: '
     'requested 8 devices to be replicated, but only 4 devices available'),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.17.0:api/config/v1/resources.go',
     'unable to load config: unable to finalize config: unable to parse config file: unmarshal '
     "error: incorrect format for resource name 'nvidia.com/gpu/shared': a lowercase RFC 1123 "
     'subdomain must consist of lower case alphanumeric characters'),
    ('GX202', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/plugin/server.go',
     'E1129 10:02:10.000000       1 server.go:146] Could not register device plugin: rpc error: '
     'code = Unknown desc = the ResourceName "nvidia.com/gpu.shared" is invalid'),
    ('GX202', 'NVIDIA/k8s-device-plugin@v0.17.0:cmd/nvidia-device-plugin/main.go',
     'E1129 10:02:10.000000       1 main.go:283] Failed to start plugin: failed to dial: context '
     'deadline exceeded'),
    ('GX202', 'NVIDIA/k8s-device-plugin@v0.17.0:cmd/nvidia-device-plugin/main.go',
     'I1129 10:02:10.000000       1 main.go:268] Failed to start one or more plugins. Retrying '
     'in 30s...'),
    ('GX202', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/plugin/server.go',
     "F1129 10:02:10.000000       1 server.go:192] GRPC server for 'nvidia.com/gpu' has "
     'repeatedly crashed recently. Quitting'),
    ('GX310', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/plugin/server.go',
     'Allocate failed due to rpc error: code = Unknown desc = invalid allocation request for '
     '"nvidia.com/gpu": unknown device: GPU-5c0f, which is unexpected'),
    ('GX310', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/plugin/server.go',
     'Allocate failed due to rpc error: code = Unknown desc = failed to get allocate response '
     'for CDI: failed to get CDI spec: failed to create device CDI specs: failed to initialize '
     'NVML: ERROR_UNKNOWN, which is unexpected'),
    ('GX514', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/plugin/factory.go',
     'W1129 10:02:10.000000       1 factory.go:98] mig-strategy="mixed" is only supported with '
     'NVML'),
    ('GX514', 'NVIDIA/k8s-device-plugin@v0.17.0:cmd/nvidia-device-plugin/main.go',
     'E1129 10:02:10.000000       1 main.go:173] unable to validate flags: CDI '
     '--device-list-strategy options are only supported on NVML-based systems'),
    ('GX514', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/plugin/factory.go',
     'E1129 10:02:10.000000       1 main.go:173] error starting plugins: error getting plugins: '
     'unable to create plugins: unable to create cdi handler: failed to create nvcdi library: '
     'failed to initialize nvml: ERROR_LIBRARY_NOT_FOUND'),
    ('GX202', 'NVIDIA/k8s-device-plugin@v0.17.0:cmd/nvidia-device-plugin/plugin-manager.go',
     'E1129 10:02:10.000000       1 main.go:173] error starting plugins: error getting plugins: '
     'unable to create plugins: unable to create cdi spec file: failed to get CDI spec: failed '
     'to create edits common for entities: failed to create discoverer for common entities: '
     'failed to create discoverer for driver files: failed to locate libraries for driver '
     'version 535.104.05'),
    ('GX202', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/plugin/server.go',
     'E1129 10:02:10.000000       1 main.go:173] error starting plugins: error starting plugins: '
     'failed to start MPS daemon: error waiting for MPS daemon: error checking MPS daemon '
     'health: failed to send command to MPS daemon: exit status 1'),
    ('GX304', 'NVIDIA/k8s-device-plugin@v0.12.3:cmd/nvidia-device-plugin/mig-strategy.go',
     'panic: Unable to load resource managers to manage plugin devices: error building device '
     'map from config.resources: error building GPU device map: error getting device handle for '
     "index '0': Unknown Error"),
    ('GX304', 'NVIDIA/k8s-device-plugin@v0.17.0:cmd/nvidia-device-plugin/main.go',
     'E1129 10:02:10.000000       1 main.go:173] unable to load config: unable to add default '
     'resources to config: failed to initialize NVML: ERROR_DRIVER_NOT_LOADED'),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/device_map.go',
     'E1129 10:02:10.000000       1 main.go:173] error starting plugins: error getting plugins: '
     'unable to create plugins: failed to construct resource managers: error building device '
     'map: error building device map from config.resources: error building GPU device map: GPU '
     "name 'NVIDIA H100 80GB HBM3' does not match any resource patterns"),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/device_map.go',
     'E1129 10:02:10.000000       1 main.go:173] error starting plugins: error getting plugins: '
     'unable to create plugins: failed to construct resource managers: error building device '
     'map: error building device map from config.resources: error building MIG device map: MIG '
     "profile '1g.10gb' does not match any resource patterns"),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/device_map.go',
     'E1129 10:02:10.000000       1 main.go:173] error starting plugins: error getting plugins: '
     'unable to create plugins: failed to construct resource managers: error building device '
     'map: error updating device map with replicas from config.sharing.timeSlicing.resources: no '
     'matching device with UUID: GPU-deadbeef'),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.17.0:cmd/nvidia-device-plugin/main.go',
     'E1129 10:02:10.000000       1 main.go:173] unable to validate flags: invalid '
     '--device-id-strategy option: serial'),
    ('GX413', 'NVIDIA/k8s-device-plugin@v0.17.0:cmd/nvidia-device-plugin/main.go',
     'E1129 10:02:10.000000       1 main.go:173] unable to validate flags: using MPS requires '
     '--mps-root to be specified'),
    ('GX602', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/rm.go',
     'Allocate failed due to rpc error: code = Unknown desc = invalid allocation request for '
     '"nvidia.com/gpu": invalid request: maximum request size for shared resources is 1; found '
     '2, which is unexpected'),
    ('GX202', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/plugin/server.go',
     'E1129 10:02:10.000000       1 server.go:135] Could not start device plugin for '
     "'nvidia.com/gpu': error waiting for MPS daemon: error checking MPS daemon health: failed "
     'to send command to MPS daemon: exit status 1'),
    ('GX203', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/health.go',
     'I1129 10:02:10.000000       1 health.go:108] unable to get device handle from UUID: '
     'ERROR_NOT_FOUND; marking it as unhealthy'),
    ('GX203', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/health.go',
     'I1129 10:02:10.000000       1 health.go:115] unable to determine the supported events for '
     'GPU-5c0f: ERROR_UNKNOWN; marking it as unhealthy'),
    ('GX203', 'NVIDIA/k8s-device-plugin@v0.14.5:internal/rm/health.go',
     'I1129 10:02:10.000000       1 health.go:116] Unable to determine the supported events for '
     'GPU-5c0f: ERROR_UNKNOWN; marking it as unhealthy'),
    ('GX203', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/health.go',
     'W1129 10:02:10.000000       1 health.go:98] Could not determine device placement for '
     'GPU-5c0f: failed to get parent device handle: ERROR_UNKNOWN; Marking it unhealthy.'),
    ('GX203', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/health.go',
     'I1129 10:02:10.000000       1 health.go:125] Marking device GPU-5c0f as unhealthy: '
     'ERROR_NOT_SUPPORTED'),
    ('GX203', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/health.go',
     'I1129 10:02:10.000000       1 health.go:142] Error waiting for event: ERROR_GPU_IS_LOST; '
     'Marking all devices as unhealthy'),
    ('GX203', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/health.go',
     'I1129 10:02:10.000000       1 health.go:163] Failed to determine uuid for event '
     '{Device:0x7f Type:8 EventData:79 GpuInstanceId:0 ComputeInstanceId:0}: ERROR_UNKNOWN; '
     'Marking all devices as unhealthy.'),
    ('GX203', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/health.go',
     'I1129 10:02:10.000000       1 health.go:185] XidCriticalError: Xid=79 on Device=GPU-5c0f; '
     'marking device as unhealthy.'),
    ('GX203', 'NVIDIA/k8s-device-plugin@v0.17.0:internal/plugin/server.go',
     "I1129 10:02:10.000000       1 server.go:276] 'nvidia.com/gpu' device marked unhealthy: "
     'GPU-5c0f'),
]


@pytest.mark.parametrize(("code", "source", "line"), LINES, ids=[f"{i}-{c[0]}" for i, c in
                                                                   enumerate(LINES)])
def test_upstream_line_ranks_its_cause_first(code: str, source: str, line: str) -> None:
    assert SOURCE.match(source), source
    result = triage([("paste", line)])
    codes = list(dict.fromkeys(c.cause.code for c in result.causes))
    assert codes[:1] == [code], (line, codes[:3])


def test_lines_are_distinct() -> None:
    lines = [line for _c, _s, line in LINES]
    assert len(lines) == len(set(lines))
