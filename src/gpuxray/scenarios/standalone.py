"""Healthy GPU clusters without the GPU Operator: the device plugin alone on hosts whose image
carries the driver and the toolkit.

Many real GPU clusters never install the operator (seed §1 describes what it deploys; the same
gates of §2 hold without it): on Amazon EKS the accelerated AL2023 image ships the NVIDIA driver
and toolkit and sets the ``nvidia`` runtime as containerd's default (awslabs/amazon-eks-ami
nodeadm, ../shared/corpus/containerd/eks-nodeadm-*-nvidia*), and users apply the device
plugin's static manifest (NVIDIA/k8s-device-plugin@v0.17.1:deployments/static/
nvidia-device-plugin.yml: DaemonSet ``nvidia-device-plugin-daemonset`` in ``kube-system``, no
node selector, ``FAIL_ON_INIT_ERROR=false`` so CPU nodes idle); Bottlerocket's NVIDIA variants
run the device plugin as a host service, so no DaemonSet exists at all
(bottlerocket-os/bottlerocket-core-kit, ../shared/corpus/containerd/bottlerocket-k8s-nvidia);
GKE deploys Google's own device plugin (GoogleCloudPlatform/container-engine-accelerators@v1.0.20:
cmd/nvidia_gpu/device-plugin.yaml: ``nvidia-gpu-device-plugin`` in ``kube-system`` on nodes
labelled ``cloud.google.com/gke-accelerator``), which hands containers the device nodes and the
driver's files itself, so containerd there has no ``nvidia`` runtime at all (:data:`GCE_CONFIG`).
No ClusterPolicy CRD is served there: ``collect`` records its list as 404.

The containerd files are given by the caller (the corpus texts), and so is ``config dump``
(the node's real containerd in a test).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.dcgm import Gpu, scrape
from gpuxray.scenarios.healthy import crictl_info, driver_loaded

Dumper = Callable[[dict[str, str], str], str]

DRIVER_VERSION = "570.172.08"
PLUGIN_IMAGE = "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"
GPUS = 4
GPU_NODES = ("ip-10-0-2-11.ec2.internal", "ip-10-0-2-12.ec2.internal")
CPU_NODE = "ip-10-0-1-10.ec2.internal"
NOT_SERVED = "404 Not Found"  # what collect records for a CRD the cluster does not serve


#: /etc/containerd/config.toml of a GCE Container-Optimized OS node, rendered from
#: kubernetes/kubernetes@v1.37.2:cluster/gce/gci/configure-helper.sh ``setup-containerd`` with
#: its defaults (KUBE_HOME=/home/kubernetes, cgroup v2 so SystemdCgroup = true, the cni
#: template kept, no pull-through cache, no test handler, no docker group)
GCE_CONFIG = """version = 2
# Kubernetes requires the cri plugin.
required_plugins = ["io.containerd.grpc.v1.cri"]
# Kubernetes doesn't use containerd restart manager.
disabled_plugins = ["io.containerd.internal.v1.restart"]
oom_score = -999

[debug]
  level = "info"

[plugins."io.containerd.grpc.v1.cri"]
  stream_server_address = "127.0.0.1"
  max_container_log_line_size = 262144
  sandbox_image = "registry.k8s.io/pause:3.10.2"
[plugins."io.containerd.grpc.v1.cri".cni]
  bin_dir = "/home/kubernetes/bin"
  conf_dir = "/etc/cni/net.d"
  conf_template = "/home/kubernetes/cni.template"
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "runc"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
  SystemdCgroup = true
# enable hosts config
[plugins."io.containerd.grpc.v1.cri".registry]
  config_path = "/etc/containerd/certs.d"
"""
GKE_PLUGIN_IMAGE = "gcr.io/gke-release/nvidia-gpu-device-plugin@sha256:5881b00412e4fbd0715741eba696ddf040a92a1680773d8937189181b4313c3f"  # noqa: E501


@dataclass(frozen=True, slots=True)
class Pool:
    """The nodes' names, labels and GPUs (an EKS pool of 4-GPU A10G g5.12xlarge by default)."""

    cpu_node: str = CPU_NODE
    gpu_nodes: tuple[str, ...] = GPU_NODES
    pool_label: str = "eks.amazonaws.com/nodegroup"
    cpu_pool: str = "system"
    gpu_pool: str = "gpu"
    zone: str = "us-west-2a"
    cpu_type: str = "m6i.2xlarge"
    gpu_type: str = "g5.12xlarge"
    product: str = "NVIDIA-A10G"  # the node's nvidia.com/gpu.product-like name
    smi_name: str = "NVIDIA A10G"
    lspci: str = "GA102GL [A10G] [10de:2237]"
    device_id: str = "223710DE"
    fb_total: float = 23028.0
    gpu_taint: tuple[tuple[str, str], ...] = ()  # (key, value), NoSchedule
    node_labels: tuple[tuple[str, str], ...] = ()  # extra labels on the GPU nodes


EKS_POOL = Pool()


@dataclass(frozen=True, slots=True)
class Flavour:
    name: str
    os_image: str
    kernel: str
    containerd: str  # the version whose binary dumps the config
    plugin: str  # "static" (NVIDIA's manifest), "host" (a host service), "gke" (Google's)
    pool: Pool = EKS_POOL
    config_path: str = "etc/containerd/config.toml"

    @property
    def plugin_daemonset(self) -> bool:
        return self.plugin != "host"

    @property
    def runtime(self) -> str:
        return f"containerd://{self.containerd}"


EKS_AL2023_C1 = Flavour("eks-al2023-containerd1", "Amazon Linux 2023.8.20250818",
                        "6.1.147-172.266.amzn2023.x86_64", "1.7.27", "static")
EKS_AL2023_C2 = Flavour("eks-al2023-containerd2", "Amazon Linux 2023.8.20250818",
                        "6.1.147-172.266.amzn2023.x86_64", "2.1.9", "static")
BOTTLEROCKET = Flavour("bottlerocket-nvidia", "Bottlerocket OS 1.44.0 (aws-k8s-1.33-nvidia)",
                       "6.1.146", "1.7.27", "host")
GKE_COS = Flavour("gke-cos", "Container-Optimized OS from Google", "6.6.87+", "1.7.27", "gke")
FLAVOURS = (EKS_AL2023_C1, EKS_AL2023_C2, BOTTLEROCKET, GKE_COS)


def build(flavour: Flavour, config_toml: str, *, dumper: Dumper | None = None) -> ClusterBuilder:
    """A CPU node and two 4-GPU nodes (g5.12xlarge A10G unless the flavour's pool says
    otherwise) with ``config_toml`` as their containerd config, the device plugin (DaemonSet or
    host service), a training pod on each GPU node, dcgm-exporter scrapes that show it busy,
    and the ClusterPolicy and NVIDIADriver lists not served."""
    b = ClusterBuilder()
    pool = flavour.pool
    common = {pool.pool_label: pool.gpu_pool, "topology.kubernetes.io/zone": pool.zone}
    b.node(pool.cpu_node, labels={**common, pool.pool_label: pool.cpu_pool,
                                  "node.kubernetes.io/instance-type": pool.cpu_type},
           os_image=flavour.os_image, kernel=flavour.kernel, runtime=flavour.runtime)
    for n in pool.gpu_nodes:
        b.node(n, gpus=GPUS, gpu_labels=False, product=pool.product,
               labels={**common, "node.kubernetes.io/instance-type": pool.gpu_type,
                       **dict(pool.node_labels)},
               os_image=flavour.os_image, kernel=flavour.kernel, runtime=flavour.runtime)
        if pool.gpu_taint:
            b.find("nodes", n)["spec"]["taints"] = [
                {"key": k, "value": v, "effect": "NoSchedule"} for k, v in pool.gpu_taint]
    if flavour.plugin == "gke":
        for n in pool.gpu_nodes:
            node = b.find("nodes", n)
            node["metadata"]["labels"]["cloud.google.com/gke-accelerator"] = "nvidia-a10g"
            node["spec"]["taints"] = [{"key": "nvidia.com/gpu", "value": "present",
                                       "effect": "NoSchedule"}]
        _gke_plugin(b)
    elif flavour.plugin == "static":
        _static_plugin(b, pool)
    # GKE's ExtendedResourceToleration admission adds the GPU taint's toleration; a pool taint
    # (AKS's sku=gpu) is tolerated by the workload itself
    tol = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    tol += [{"key": k, "operator": "Equal", "value": v, "effect": "NoSchedule"}
            for k, v in pool.gpu_taint]
    for i, n in enumerate(pool.gpu_nodes):
        pod = f"train-{i}"
        b.pod("ml", pod, node=n, gpus=2,
              tolerations=tol if flavour.plugin == "gke" or pool.gpu_taint else None)
        gpus = [Gpu(k, util=85.0, fb_used=min(20000.0, pool.fb_total - 1000.0),
                    fb_total=pool.fb_total, namespace="ml", pod=pod, container="main")
                for k in range(2)]
        b.metrics(n, scrape(n, gpus + [Gpu(k, fb_total=pool.fb_total) for k in range(2, GPUS)]))
        _host(b, n, flavour, config_toml, dumper)
    for kind in ("daemonsets", "events", "configmaps", "deployments", "replicasets", "jobs",
                 "statefulsets", "runtimeclasses", "resourcequotas"):
        b.ensure(kind)
    b.remove("clusterpolicies")
    b.remove("nvidiadrivers")
    b.error("cluster/clusterpolicies.json", NOT_SERVED)
    b.error("cluster/nvidiadrivers.json", NOT_SERVED)
    return b


def _static_plugin(b: ClusterBuilder, pool: Pool = EKS_POOL) -> None:
    """The static manifest's DaemonSet: every node (no selector), one Running pod each."""
    nodes = [pool.cpu_node, *pool.gpu_nodes]
    labels = {"name": "nvidia-device-plugin-ds"}
    tolerations = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    tolerations += [{"key": k, "operator": "Equal", "value": v, "effect": "NoSchedule"}
                    for k, v in pool.gpu_taint]
    ds = b.daemonset("kube-system", "nvidia-device-plugin-daemonset", node_selector={},
                     tolerations=tolerations,
                     containers=["nvidia-device-plugin-ctr"], desired=len(nodes), labels=labels)
    ds["spec"]["template"]["spec"].pop("nodeSelector", None)
    ctr = ds["spec"]["template"]["spec"]["containers"][0]
    ctr["image"] = PLUGIN_IMAGE
    ctr["env"] = [{"name": "FAIL_ON_INIT_ERROR", "value": "false"}]
    for i, n in enumerate(nodes):
        b.pod("kube-system", f"nvidia-device-plugin-daemonset-{'abcde'[i]}x7k2", node=n,
              labels=labels, owner=ds, containers=[ClusterBuilder.container(
                  "nvidia-device-plugin-ctr", image=PLUGIN_IMAGE)])


def _gke_plugin(b: ClusterBuilder) -> None:
    """Google's DaemonSet: GPU nodes only (required affinity on the accelerator label)."""
    labels = {"k8s-app": "nvidia-gpu-device-plugin"}
    ds = b.daemonset("kube-system", "nvidia-gpu-device-plugin", node_selector={},
                     tolerations=[{"operator": "Exists", "effect": "NoExecute"},
                                  {"operator": "Exists", "effect": "NoSchedule"}],
                     containers=["nvidia-gpu-device-plugin"], desired=len(GPU_NODES),
                     labels=labels)
    spec = ds["spec"]["template"]["spec"]
    spec.pop("nodeSelector", None)
    spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "cloud.google.com/gke-accelerator", "operator": "Exists"}]}]}}}
    spec["containers"][0]["image"] = GKE_PLUGIN_IMAGE
    tol = spec["tolerations"]
    for i, n in enumerate(GPU_NODES):
        b.pod("kube-system", f"nvidia-gpu-device-plugin-{'ab'[i]}m4q2", node=n, labels=labels,
              owner=ds, tolerations=tol, containers=[ClusterBuilder.container(
                  "nvidia-gpu-device-plugin", image=GKE_PLUGIN_IMAGE)])


def _host(b: ClusterBuilder, node: str, flavour: Flavour, config_toml: str,
          dump: Dumper | None) -> None:
    files = {flavour.config_path: config_toml}
    b.host_file(node, flavour.config_path, config_toml)
    if dump is not None:
        dumped = dump(files, flavour.containerd)
        b.host_cmd(node, "containerd-config-dump.toml", dumped)
        b.host_cmd(node, "crictl-info.json", crictl_info(dumped))
    mod = "github.com/containerd/containerd/v2" if flavour.containerd.startswith("2.") \
        else "github.com/containerd/containerd"
    b.host_cmd(node, "containerd-version.txt", f"containerd {mod} v{flavour.containerd} "
               "05044ec0a9a75232cad458027ca83437aae3f4da\n")
    b.host_cmd(node, "systemctl-show-containerd.txt",
               "Restart=always\nRestartUSec=5s\nNRestarts=0\nExecMainPID=2211\n"
               "ExecMainStartTimestamp=Mon 2026-11-23 09:14:07 UTC\n"
               "ActiveEnterTimestamp=Mon 2026-11-23 09:14:07 UTC\n")
    b.host_cmd(node, "journal-containerd.txt",
               f"2026-11-23T09:14:06+0000 {node} systemd[1]: Starting containerd.service - "
               "containerd container runtime...\n"
               f"2026-11-23T09:14:07+0000 {node} systemd[1]: Started containerd.service - "
               "containerd container runtime.\n")
    os_id = {"host": "ID=bottlerocket\nVERSION_ID=1.44.0\n",
             "gke": "ID=cos\nVERSION_ID=121\n"}.get(flavour.plugin,
                                                     'ID="amzn"\nVERSION_ID="2023"\n')
    b.host_file(node, "etc/os-release", f'PRETTY_NAME="{flavour.os_image}"\n{os_id}')
    driver_loaded(b, node, flavour.kernel, DRIVER_VERSION, "Wed Jul 16 21:43:49 UTC 2025")
    b.host_cmd(node, "lspci-nvidia.txt", "".join(
        f"{0x1b + i:02x}:00.0 3D controller [0302]: NVIDIA Corporation {flavour.pool.lspci} "
        "(rev a1)\n" for i in range(GPUS)))
    b.host_cmd(node, "systemctl-show-fabricmanager.txt",
               "ActiveState=inactive\nSubState=dead\nLoadState=not-found\n")
    b.host_cmd(node, "nvidia-smi-q.xml", _smi_xml(flavour.pool))


def _smi_xml(pool: Pool = EKS_POOL) -> str:
    gpus = []
    for i in range(GPUS):
        bus = f"00000000:{0x1b + i:02X}:00.0"
        gpus.append(f'  <gpu id="{bus}">\n    <product_name>{pool.smi_name}</product_name>\n'
                    "    <mig_mode><current_mig>N/A</current_mig><pending_mig>N/A</pending_mig>"
                    "</mig_mode>\n"
                    f"    <uuid>GPU-5b1f0a3c-9d2e-4f61-8a7b-0c{i:02d}e4d5f6a7</uuid>\n"
                    f"    <pci><pci_device_id>{pool.device_id}</pci_device_id><pci_bus_id>{bus}"
                    "</pci_bus_id></pci>\n"
                    f"    <fb_memory_usage><total>{pool.fb_total:.0f} MiB</total><used>0 MiB</used>"
                    "</fb_memory_usage>\n"
                    "    <fabric><state>N/A</state><status>N/A</status></fabric>\n  </gpu>")
    return (f'<?xml version="1.0" ?>\n<nvidia_smi_log>\n  <driver_version>{DRIVER_VERSION}'
            f"</driver_version>\n  <attached_gpus>{GPUS}</attached_gpus>\n"
            + "\n".join(gpus) + "\n</nvidia_smi_log>\n")
