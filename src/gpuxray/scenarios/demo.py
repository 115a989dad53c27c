"""The example shipped in the package: seed §5's incident as a whole cluster.

A three-line registry drop-in (``conf.d/registry.toml``) sorts after the toolkit's
``99-nvidia.toml`` — letters sort after digits — so on containerd 1.7 it replaces the whole CRI
plugin section: the ``nvidia`` runtime vanishes, the device-plugin pods (``runtimeClassName:
nvidia``) cannot start their sandboxes, and two nodes stop advertising their GPUs. A training
pod sits Pending with ``Insufficient nvidia.com/gpu`` while ``cat 99-nvidia.toml`` looks fine.
"""

from __future__ import annotations

from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.dcgm import Gpu, scrape
from gpuxray.scenarios.operator import add_gpu_operator

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}

CONFIG_TOML = """\
version = 2
imports = ["/etc/containerd/conf.d/*.toml"]

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.10"

  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"

    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = true
"""

NVIDIA_DROPIN = """\
version = 2

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "registry.k8s.io/pause:3.10"

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "runc"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
          privileged_without_host_devices = false
          runtime_engine = ""
          runtime_root = ""
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
            BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime"
            SystemdCgroup = true

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
            SystemdCgroup = true
"""

REGISTRY_DROPIN = """\
version = 2
[plugins."io.containerd.grpc.v1.cri".registry]
  config_path = "/etc/containerd/certs.d"
"""

SYSTEMCTL_SHOW = """\
Restart=always
RestartUSec=5s
NRestarts=1
ExecMainPID=48211
ExecMainStartTimestamp=Mon 2026-11-23 09:14:07 UTC
ActiveEnterTimestamp=Mon 2026-11-23 09:14:07 UTC
"""

JOURNAL = """\
2026-11-20T08:01:12+0000 {node} systemd[1]: Starting containerd.service - containerd container runtime...
2026-11-20T08:01:12+0000 {node} containerd[1022]: time="2026-11-20T08:01:12.100000000Z" level=info msg="starting containerd" revision=05044ec0a9a75232cad458027ca83437aae3f4da version=v1.7.27
2026-11-20T08:01:13+0000 {node} systemd[1]: Started containerd.service - containerd container runtime.
2026-11-23T09:14:01+0000 {node} systemd[1]: containerd.service: Sent signal SIGHUP to main process 1022 (containerd) on client request.
2026-11-23T09:14:01+0000 {node} systemd[1]: containerd.service: Main process exited, code=killed, status=1/HUP
2026-11-23T09:14:01+0000 {node} systemd[1]: containerd.service: Failed with result 'signal'.
2026-11-23T09:14:06+0000 {node} systemd[1]: containerd.service: Scheduled restart job, restart counter is at 1.
2026-11-23T09:14:06+0000 {node} systemd[1]: Stopped containerd.service - containerd container runtime.
2026-11-23T09:14:06+0000 {node} systemd[1]: Starting containerd.service - containerd container runtime...
2026-11-23T09:14:07+0000 {node} containerd[48211]: time="2026-11-23T09:14:07.200000000Z" level=info msg="starting containerd" revision=05044ec0a9a75232cad458027ca83437aae3f4da version=v1.7.27
2026-11-23T09:14:07+0000 {node} systemd[1]: Started containerd.service - containerd container runtime.
"""

DMESG = """\
[Fri Nov 20 08:00:09 2026] nvidia: loading out-of-tree module taints kernel.
[Fri Nov 20 08:00:09 2026] nvidia-nvlink: Nvlink Core is being initialized, major device number 511
[Fri Nov 20 08:00:09 2026] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 09:46:56 UTC 2025
[Fri Nov 20 08:00:10 2026] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  580.95.05  Tue Sep 23 09:36:19 UTC 2025
[Fri Nov 20 08:00:10 2026] [drm] [nvidia-drm] [GPU ID 0x00000700] Loading driver
"""

APT_PERIODIC = 'APT::Periodic::Update-Package-Lists "1";\nAPT::Periodic::Unattended-Upgrade "1";\n'
APT_UNATTENDED = """\
Unattended-Upgrade::Allowed-Origins {
        "${distro_id}:${distro_codename}-security";
};
Unattended-Upgrade::Package-Blacklist {
        "linux-";
        "nvidia-";
};
"""

NO_RUNTIME = ('Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get '
              'sandbox runtime: no runtime for "nvidia" is configured')


def node_files(b: ClusterBuilder, node: str, *, registry_dropin: bool) -> None:
    """The host files of one GPU node of the example: containerd config (with or without the
    registry drop-in), unit, journal, modules, PCI devices, kernel log, apt settings."""
    b.host_file(node, "etc/containerd/config.toml", CONFIG_TOML)
    b.host_file(node, "etc/containerd/conf.d/99-nvidia.toml", NVIDIA_DROPIN)
    stat = ("/etc/containerd/config.toml 1763625600\n"
            "/etc/containerd/conf.d/99-nvidia.toml 1763889240\n")
    if registry_dropin:
        b.host_file(node, "etc/containerd/conf.d/registry.toml", REGISTRY_DROPIN)
        stat += "/etc/containerd/conf.d/registry.toml 1763888400\n"
    b.host_cmd(node, "containerd-version.txt",
               "containerd containerd.io 1.7.27 05044ec0a9a75232cad458027ca83437aae3f4da\n")
    b.host_cmd(node, "systemctl-show-containerd.txt", SYSTEMCTL_SHOW)
    b.host_cmd(node, "journal-containerd.txt", JOURNAL.format(node=node))
    b.host_cmd(node, "stat-containerd-config.txt", stat)
    b.host_cmd(node, "lsmod.txt", "Module                  Size  Used by\n"
               "nvidia_uvm           1785856  0\nnvidia_drm             126976  0\n"
               "nvidia_modeset       1605632  1 nvidia_drm\n"
               "nvidia              60878848  2 nvidia_uvm,nvidia_modeset\n")
    b.host_cmd(node, "mokutil-sb-state.txt", "SecureBoot disabled\n")
    gpus = 4 if node == "gpu-1" else 2
    b.host_cmd(node, "lspci-nvidia.txt", "".join(
        f"{bus:02x}:00.0 3D controller [0302]: NVIDIA Corporation GA100 [A100 SXM4 80GB] "
        f"[10de:20b2] (rev a1)\n" for bus in (0x07, 0x0f, 0x47, 0x4e)[:gpus]))
    b.host_cmd(node, "dmesg.txt", DMESG)
    b.host_file(node, "etc/apt/apt.conf.d/20auto-upgrades", APT_PERIODIC)
    b.host_file(node, "etc/apt/apt.conf.d/50unattended-upgrades", APT_UNATTENDED)
    b.host_file(node, "etc/os-release", 'PRETTY_NAME="Ubuntu 22.04.5 LTS"\nNAME="Ubuntu"\n'
                'VERSION_ID="22.04"\nID=ubuntu\n')
    b.host_file(node, "proc/driver/nvidia/version",
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 09:46:56 "
                "UTC 2025\nGCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n")


def build_demo() -> ClusterBuilder:
    b = ClusterBuilder()
    b.node("cp-1", cpu="8", memory="32879096Ki",
           labels={"node-role.kubernetes.io/control-plane": ""},
           taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}])
    b.node("cpu-0", cpu="32")
    b.node("gpu-1", gpus=4, taints=[GPU_TAINT])
    # gpu-2 and gpu-3: the drop-in wiped the nvidia runtime; the plugin has been gone for days,
    # so kubelet shows capacity 0 and keeps the name (facts.md §3).
    b.node("gpu-2", gpus=2, capacity=0, allocatable=0, taints=[GPU_TAINT])
    b.node("gpu-3", gpus=2, capacity=0, allocatable=0, taints=[GPU_TAINT])
    for n in ("gpu-1", "gpu-2", "gpu-3"):
        node_files(b, n, registry_dropin=n != "gpu-1")
    # The GPU Operator (healthy release); on gpu-2/gpu-3 the nvidia handler is gone, so operand
    # pods with runtimeClassName nvidia fail sandbox creation and the plugin never starts.
    add_gpu_operator(b, ["gpu-1", "gpu-2", "gpu-3"], version="v26.7.1",
                     broken={"handler": "gpu-2,gpu-3"})

    # Workloads: gpu-1 is full; a new training pod waits.
    b.pod("ml", "finetune-7b-0", node="gpu-1", gpus=2, tolerations=[GPU_TOLERATION])
    b.pod("ml", "eval-nightly-28411", node="gpu-1", gpus=2, tolerations=[GPU_TOLERATION])
    b.pod("ml", "batch-old-1", node="gpu-1", gpus=4, phase="Succeeded",
          tolerations=[GPU_TOLERATION])
    # One DCGM scrape of gpu-1 (seed §6's numbers: 0 % busy, 13.7 GiB held, 21 W): the nightly
    # eval holds two cards it does not use — idle, not free.
    b.metrics("gpu-1", scrape("gpu-1", [
        Gpu(0, util=91, fb_used=61440, power=385, namespace="ml", pod="finetune-7b-0",
            container="main"),
        Gpu(1, util=88, fb_used=60211, power=371, namespace="ml", pod="finetune-7b-0",
            container="main"),
        Gpu(2, util=0, fb_used=14029, power=21, namespace="ml", pod="eval-nightly-28411",
            container="main"),
        Gpu(3, util=0, fb_used=14029, power=21, namespace="ml", pod="eval-nightly-28411",
            container="main")]))
    pending = b.pod("ml", "train-llm-0", gpus=2, tolerations=[GPU_TOLERATION])
    b.event(pending, "FailedScheduling",
            "0/5 nodes are available: 1 node(s) had untolerated taint "
            "{node-role.kubernetes.io/control-plane: }, 1 Insufficient nvidia.com/gpu, "
            "3 Insufficient nvidia.com/gpu. preemption: 0/5 nodes are available: 1 Preemption "
            "is not helpful for scheduling, 4 No preemption victims found for incoming pod.",
            count=412)
    for res in ("events", "daemonsets", "deployments", "replicasets", "jobs", "statefulsets",
                "resourcequotas", "configmaps"):
        b.ensure(res)
    return b
