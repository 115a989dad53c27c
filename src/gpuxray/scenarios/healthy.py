"""Healthy GPU Operator clusters of many real shapes: the input of "a healthy cluster never warns".

Each :class:`Shape` is one real combination: operator release (25.10 / 26.3 / 26.7), CDI on or
off, the driver from the driver container, from the host, or precompiled, containerd 1.7 / 2.1 /
2.2 / 2.3, the node OS (Ubuntu / RHEL / Rocky), and how GPUs are handed out (whole GPUs, MIG
single or mixed, time-slicing or MPS with the device plugin's own README configs), optionally on
an NVSwitch system whose Fabric Manager runs in the driver container.

The containerd files are what the operator's toolkit leaves on such a node: the toolkit reads
``containerd config dump`` (``NVIDIA/nvidia-container-toolkit@v1.20.0:
pkg/config/engine/containerd/containerd.go``), starts its drop-in from the dump's whole CRI
runtime plugin table (``getBaseDropInConfigTree``: containerd before 2.1 replaces plugin tables
by key), adds the ``nvidia``, ``nvidia-cdi`` and ``nvidia-legacy`` runtimes with the default
runtime's options and its own ``BinaryName`` (``config.go AddRuntimeWithOptions``), sets
``enable_cdi`` when CDI is on (``EnableCDI``) and makes ``nvidia`` the default only when CDI is
off (the operator sets ``NVIDIA_RUNTIME_SET_AS_DEFAULT=false`` with CDI,
``NVIDIA/gpu-operator@v26.7.0:controllers/object_controls.go transformToolkitCtrForCDI``), then
writes ``/etc/containerd/conf.d/99-nvidia.toml`` and adds the ``imports`` glob to config.toml
(``config_drop_in.go``). The dump is given by a callable, so a test runs the node's real
containerd (or the merge engine where the binary is missing).
"""

from __future__ import annotations

import copy
import itertools
import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuxray.knowledge import cdi as cdik
from gpuxray.knowledge.driver_images import NFD_OS_ID, NFD_OS_VERSION_ID, os_tag
from gpuxray.scenarios.builder import OPERATOR_NS, ClusterBuilder, gfd_labels
from gpuxray.scenarios.cdi import device_plugin_spec, gpu_uuid, management_spec
from gpuxray.scenarios.dcgm import Gpu, scrape
from gpuxray.scenarios.operator import GPU_TOLERATION, add_gpu_operator

Obj = dict[str, Any]
# (config text, containerd version) -> the text of ``containerd config dump``
Dumper = Callable[[dict[str, str], str], str]

OPERATORS = ("v25.10.1", "v26.3.3", "v26.7.0")
CONTAINERDS = ("1.7.27", "2.1.9", "2.2.9", "2.3.4")
DRIVERS = ("container", "host", "precompiled")
OSES = ("ubuntu", "rhel", "rocky")
GPU_MODES = ("whole", "mig-single", "mig-mixed", "time-slicing", "mps")
DRIVER_VERSION = "580.95.05"
TOOLKIT_DIR = "/usr/local/nvidia/toolkit"

# osImage, kernel, os-release ID / VERSION_ID (what NFD labels)
OS_INFO: dict[str, tuple[str, str, str, str]] = {
    "ubuntu": ("Ubuntu 22.04.5 LTS", "5.15.0-126-generic", "ubuntu", "22.04"),
    "rhel": ("Red Hat Enterprise Linux 9.4 (Plow)", "5.14.0-427.42.1.el9_4.x86_64", "rhel",
             "9.4"),
    "rocky": ("Rocky Linux 9.4 (Blue Onyx)", "5.14.0-427.13.1.el9_4.x86_64", "rocky", "9.4"),
}

# The device plugin README's examples, verbatim (NVIDIA/k8s-device-plugin@v0.17.0:README.md;
# ../shared/corpus/device-plugin/k8sdp-readme-{timeslicing,mps}-10/config.yaml).
TIME_SLICING_10 = """version: v1
sharing:
  timeSlicing:
    resources:
    - name: nvidia.com/gpu
      replicas: 10
"""
MPS_10 = """version: v1
sharing:
  mps:
    resources:
    - name: nvidia.com/gpu
      replicas: 10
"""
REPLICAS = 10

# MIG layouts from the operator's default mig-parted config (NVIDIA/gpu-operator@v26.7.0:
# assets/state-mig-manager/0400_configmap.yaml): all-1g.10gb (7 per A100-80GB) and all-balanced
# (A100-80GB: 2×1g.10gb, 1×2g.20gb, 1×3g.40gb).
MIG_SINGLE = ("all-1g.10gb", {"1g.10gb": 7})
MIG_MIXED = ("all-balanced", {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1})
MIG_MEMORY = {"1g.10gb": 9728, "2g.20gb": 19968, "3g.40gb": 40192}
MIG_PARTED_CONFIG = """version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false
  all-1g.10gb:
    - devices: all
      mig-enabled: true
      mig-devices:
        "1g.10gb": 7
  all-balanced:
    - device-filter: ["0x20B210DE", "0x20B510DE", "0x20F310DE", "0x20F510DE"]
      devices: all
      mig-enabled: true
      mig-devices:
        "1g.10gb": 2
        "2g.20gb": 1
        "3g.40gb": 1
"""


@dataclass(frozen=True, slots=True)
class Shape:
    operator: str
    cdi: bool
    driver: str
    containerd: str
    os: str
    gpus: str
    nvswitch: bool = False

    @property
    def name(self) -> str:
        return (f"{self.operator}-cdi{'on' if self.cdi else 'off'}-{self.driver}-"
                f"containerd{self.containerd}-{self.os}-{self.gpus}"
                + ("-nvswitch" if self.nvswitch else ""))

    @property
    def product(self) -> str:
        # HGX boards (SXM) carry NVSwitches; a PCIe card does not
        return "NVIDIA-H100-80GB-HBM3" if self.nvswitch else "NVIDIA-A100-80GB-PCIe"


def valid(s: Shape) -> bool:
    """Real combinations only: precompiled driver images are published for Ubuntu only
    (NVIDIA/gpu-driver-container: ``ubuntu*/precompiled``); MPS does not share MIG devices
    (k8s-device-plugin ``internal/plugin/mps.go``); Fabric Manager in the driver container
    needs a driver container."""
    if s.driver == "precompiled" and s.os != "ubuntu":
        return False
    return not (s.nvswitch and (s.driver == "host" or s.gpus.startswith("mig")))


def all_shapes() -> list[Shape]:
    """Every valid combination of the axes (plus NVSwitch variants of whole-GPU shapes)."""
    out = []
    for op, cdi, drv, ctd, os_, gpus in itertools.product(
            OPERATORS, (True, False), DRIVERS, CONTAINERDS, OSES, GPU_MODES):
        for nvs in (False, True):
            s = Shape(op, cdi, drv, ctd, os_, gpus, nvs)
            if valid(s) and (not nvs or gpus == "whole"):
                out.append(s)
    return out


def covering_shapes() -> list[Shape]:
    """A pairwise-covering subset of :func:`all_shapes`: every value pair of any two axes
    appears in some shape (greedy), so each axis meets each other one."""
    shapes = all_shapes()
    axes = ("operator", "cdi", "driver", "containerd", "os", "gpus", "nvswitch")

    def pairs(s: Shape) -> set[tuple[str, Any, str, Any]]:
        vals = [(a, getattr(s, a)) for a in axes]
        return {(a, x, b, y) for (a, x), (b, y) in itertools.combinations(vals, 2)}

    todo = set().union(*(pairs(s) for s in shapes))
    chosen: list[Shape] = []
    while todo:
        best = max(shapes, key=lambda s: len(pairs(s) & todo))
        chosen.append(best)
        todo -= pairs(best)
    return chosen


# ----- containerd files -------------------------------------------------------------------
def base_config(version: str) -> str:
    """config.toml as the node image ships it (runc with the systemd cgroup driver)."""
    if version.startswith("1."):
        return ('version = 2\n\n[plugins."io.containerd.grpc.v1.cri"]\n'
                '  sandbox_image = "registry.k8s.io/pause:3.10"\n'
                '  [plugins."io.containerd.grpc.v1.cri".containerd]\n'
                '    default_runtime_name = "runc"\n'
                '    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n'
                '      runtime_type = "io.containerd.runc.v2"\n'
                '      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n'
                '        SystemdCgroup = true\n')
    # containerd 2.3 reads config version 4 and refuses a drop-in of a higher version than its
    # root config (2.3.0-2.3.4), so 2.3 images ship version 4 (kubespray's template does)
    ver = 4 if version.startswith("2.3") else 3
    return (f'version = {ver}\n\n[plugins."io.containerd.cri.v1.images".pinned_images]\n'
            '  sandbox = "registry.k8s.io/pause:3.10"\n\n'
            '[plugins."io.containerd.cri.v1.runtime".containerd]\n'
            '  default_runtime_name = "runc"\n'
            '  [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]\n'
            '    runtime_type = "io.containerd.runc.v2"\n'
            '    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]\n'
            '      SystemdCgroup = true\n')


def toolkit_dropin(dump: str, *, cdi: bool) -> str:
    """``99-nvidia.toml`` as the toolkit writes it from its source config ``dump`` (the daemon's
    ``config dump``, or config.toml itself; see the module docstring)."""
    src = tomllib.loads(dump)
    ver = int(src.get("version", 2))
    plugin = "io.containerd.grpc.v1.cri" if ver == 2 else "io.containerd.cri.v1.runtime"
    cri = copy.deepcopy(src.get("plugins", {}).get(plugin, {}))
    ctd = cri.setdefault("containerd", {})
    runtimes = ctd.setdefault("runtimes", {})
    default = ctd.get("default_runtime_name") or "runc"
    options = copy.deepcopy(runtimes.get(default) or runtimes.get("runc") or {
        "runtime_type": "io.containerd.runc.v2", "runtime_root": "", "runtime_engine": "",
        "privileged_without_host_devices": False})
    for name, binary in (("nvidia", "nvidia-container-runtime"),
                         ("nvidia-cdi", "nvidia-container-runtime.cdi"),
                         ("nvidia-legacy", "nvidia-container-runtime.legacy")):
        rt = copy.deepcopy(options)
        rt.setdefault("runtime_type", "io.containerd.runc.v2")
        rt.setdefault("options", {})["BinaryName"] = f"{TOOLKIT_DIR}/{binary}"
        runtimes[name] = rt
    if cdi:
        cri["enable_cdi"] = True
    else:
        ctd["default_runtime_name"] = "nvidia"
    return toml_text({"version": ver, "plugins": {plugin: cri}})


def toml_text(doc: Obj) -> str:
    """A small TOML writer for config trees (tables, strings, numbers, booleans, lists)."""
    lines: list[str] = []

    def val(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float):
            return str(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{_key(k)} = {val(x)}" for k, x in v.items()) + "}"
        raise TypeError(type(v))

    def table(path: list[str], t: Obj) -> None:
        scalars = {k: v for k, v in t.items() if not isinstance(v, dict)}
        subs = {k: v for k, v in t.items() if isinstance(v, dict)}
        if path and (scalars or not subs):
            lines.append("")
            lines.append("[" + ".".join(_key(p) for p in path) + "]")
        for k, v in scalars.items():
            lines.append(f"{_key(k)} = {val(v)}")
        for k, v in subs.items():
            table([*path, k], v)

    table([], doc)
    return "\n".join(lines).lstrip("\n") + "\n"


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)


def crictl_info(dump: str) -> str:
    """``crictl info``'s ``config`` (the CRI plugin's running config: runtimes, default, CDI) as
    the daemon started from those files reports it, read from that daemon's ``config dump``."""
    doc = tomllib.loads(dump)
    ver = int(doc.get("version", 2))
    plugin = "io.containerd.grpc.v1.cri" if ver == 2 else "io.containerd.cri.v1.runtime"
    cri = doc.get("plugins", {}).get(plugin, {})
    ctd = cri.get("containerd", {})
    runtimes = {n: {"runtimeType": r.get("runtime_type", ""),
                    "options": r.get("options", {})}
                for n, r in ctd.get("runtimes", {}).items()}
    return json.dumps({"status": {"conditions": [
        {"type": "RuntimeReady", "status": True}, {"type": "NetworkReady", "status": True}]},
        "config": {"containerd": {"defaultRuntimeName": ctd.get("default_runtime_name", "runc"),
                                  "runtimes": runtimes},
                   "enableCDI": bool(cri.get("enable_cdi", ver != 2)),
                   "cdiSpecDirs": cri.get("cdi_spec_dirs", ["/etc/cdi", "/var/run/cdi"])}},
        indent=2)


# ----- the cluster ------------------------------------------------------------------------
GPU_NODES = ("gpu-0", "gpu-1")
GPUS_PER_NODE = 8


def build(shape: Shape, *, dumper: Dumper | None = None) -> ClusterBuilder:
    """A healthy cluster of ``shape``: a CPU node, two 8-GPU nodes with their host files, the
    operator and its operands, and a running GPU workload on each GPU node. ``dumper`` runs
    ``containerd config dump`` for the node's version on its files (the real binary, or the
    merge engine in a test); without one the toolkit reads config.toml itself (its file source,
    ``toml.FromFile``) and the bundle has no dump or ``crictl info``."""
    dump = dumper
    b = ClusterBuilder()
    b.node("cpu-0")
    os_image, kernel, os_id, os_ver = OS_INFO[shape.os]
    for n in GPU_NODES:
        _gpu_node(b, n, shape, os_image, kernel, os_id, os_ver)
    add_gpu_operator(b, list(GPU_NODES), version=shape.operator)
    _policy(b, shape)
    _operands(b, shape, os_image)
    for n in GPU_NODES:
        _host(b, n, shape, kernel, dump)
    _workloads(b, shape)
    b.ensure("events")
    b.ensure("configmaps")
    return b


def advertised(shape: Shape) -> dict[str, int]:
    """What each GPU node advertises in this shape (resource -> count)."""
    if shape.gpus == "mig-single":
        return {"nvidia.com/gpu": GPUS_PER_NODE * sum(MIG_SINGLE[1].values())}
    if shape.gpus == "mig-mixed":
        return {f"nvidia.com/mig-{p}": GPUS_PER_NODE * c for p, c in MIG_MIXED[1].items()}
    if shape.gpus in ("time-slicing", "mps"):
        return {"nvidia.com/gpu": GPUS_PER_NODE * REPLICAS}
    return {"nvidia.com/gpu": GPUS_PER_NODE}


def _gpu_node(b: ClusterBuilder, name: str, shape: Shape, os_image: str, kernel: str,
              os_id: str, os_ver: str) -> None:
    taints = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    node = b.node(name, gpus=GPUS_PER_NODE, product=shape.product, os_image=os_image,
                  kernel=kernel, runtime=f"containerd://{shape.containerd}", taints=taints,
                  labels={NFD_OS_ID: os_id, NFD_OS_VERSION_ID: os_ver,
                          "feature.node.kubernetes.io/kernel-version.full": kernel})
    labels = node["metadata"]["labels"]
    if shape.driver == "host":
        labels["nvidia.com/gpu.deploy.driver"] = "pre-installed"
    cap, alloc = node["status"]["capacity"], node["status"]["allocatable"]
    if shape.gpus.startswith("mig"):
        cfg, layout = MIG_SINGLE if shape.gpus == "mig-single" else MIG_MIXED
        labels.update({"nvidia.com/mig.config": cfg, "nvidia.com/mig.config.state": "success",
                       "nvidia.com/mig.capable": "true"})
        if shape.gpus == "mig-single":
            for k in [k for k in labels if k.startswith("nvidia.com/gpu.") and k.split(".")[-1]
                      in ("count", "product", "memory", "replicas", "sharing-strategy")]:
                del labels[k]
            prof = next(iter(layout))
            labels["nvidia.com/mig.strategy"] = "single"
            labels.update(gfd_labels(GPUS_PER_NODE * layout[prof],
                                     f"{shape.product}-MIG-{prof}", MIG_MEMORY[prof],
                                     replicas=1, deploy=False))
            labels["nvidia.com/gpu.replicas"] = "0"  # GFD: MIG-enabled GPUs report 0
        else:
            # GFD under mixed keeps the whole-GPU labels (count = physical GPUs, replicas 0)
            # next to one label set per profile (../shared/corpus/nodes/
            # nvidia-docs-mig-mixed-node-labels)
            labels["nvidia.com/mig.strategy"] = "mixed"
            labels["nvidia.com/gpu.replicas"] = "0"
            cap.pop("nvidia.com/gpu", None)
            alloc.pop("nvidia.com/gpu", None)
            for prof, count in layout.items():
                res = f"nvidia.com/mig-{prof}"
                labels.update({f"{res}.count": str(GPUS_PER_NODE * count),
                               f"{res}.memory": str(MIG_MEMORY[prof]),
                               f"{res}.product": f"{shape.product}-MIG-{prof}",
                               f"{res}.replicas": "1", f"{res}.sharing-strategy": "none"})
        for res, n in advertised(shape).items():
            cap[res] = alloc[res] = str(n)
    elif shape.gpus in ("time-slicing", "mps"):
        labels.update({"nvidia.com/gpu.replicas": str(REPLICAS),
                       "nvidia.com/gpu.sharing-strategy": shape.gpus,
                       "nvidia.com/gpu.product": f"{shape.product}-SHARED",
                       "nvidia.com/device-plugin.config": shape.gpus})
        if shape.gpus == "mps":
            labels["nvidia.com/mps.capable"] = "true"
        cap["nvidia.com/gpu"] = alloc["nvidia.com/gpu"] = str(GPUS_PER_NODE * REPLICAS)


def _policy(b: ClusterBuilder, shape: Shape) -> None:
    cp = b.find("clusterpolicies", "cluster-policy")
    spec = cp["spec"]
    spec["cdi"] = {"enabled": shape.cdi}
    spec["driver"] = {"enabled": shape.driver != "host", "version": DRIVER_VERSION}
    if shape.driver == "precompiled":
        spec["driver"].update({"usePrecompiled": True, "version": DRIVER_VERSION.split(".")[0],
                               "repository": "nvcr.io/nvidia", "image": "driver"})
    if shape.gpus.startswith("mig"):
        spec["mig"] = {"strategy": "single" if shape.gpus == "mig-single" else "mixed"}
        spec["migManager"] = {"enabled": True, "config": {"name": "default-mig-parted-config",
                                                          "default": "all-disabled"}}
        b.configmap(OPERATOR_NS, "default-mig-parted-config",
                    {"config.yaml": MIG_PARTED_CONFIG})
    if shape.gpus in ("time-slicing", "mps"):
        spec["devicePlugin"]["config"] = {"name": "device-plugin-config", "default": ""}
        b.configmap(OPERATOR_NS, "device-plugin-config",
                    {"time-slicing": TIME_SLICING_10, "mps": MPS_10})


def _operands(b: ClusterBuilder, shape: Shape, os_image: str) -> None:
    """Make the operand pods match the shape: no driver pods with a host driver, the driver
    image tag the operator of that release builds, Fabric Manager in the driver container."""
    pods = b.cluster.get("pods", [])
    if shape.driver == "host":
        b.cluster["pods"] = [p for p in pods
                             if not p["metadata"]["name"].startswith("nvidia-driver-daemonset")]
        b.cluster["daemonsets"] = [d for d in b.cluster.get("daemonsets", [])
                                   if d["metadata"]["name"] != "nvidia-driver-daemonset"]
        return
    tag = os_tag(os_image, shape.operator)
    for p in pods:
        if not p["metadata"]["name"].startswith("nvidia-driver-daemonset"):
            continue
        node = b.find("nodes", p["spec"]["nodeName"])
        kernel = node["status"]["nodeInfo"]["kernelVersion"]
        image = (f"nvcr.io/nvidia/driver:{DRIVER_VERSION.split('.')[0]}-{kernel}-{tag}"
                 if shape.driver == "precompiled" else
                 f"nvcr.io/nvidia/driver:{DRIVER_VERSION}-{tag}")
        for c in p["spec"]["containers"]:
            if c["name"] == "nvidia-driver-ctr":
                c["image"] = image
                if shape.nvswitch:
                    # the driver container starts nv-fabricmanager when it finds NVSwitches
                    # (NVIDIA/gpu-driver-container ubuntu22.04/nvidia-driver: _start_fabricmanager)
                    c.setdefault("env", []).append({"name": "FABRIC_MANAGER", "value": "1"})
        for st in p.get("status", {}).get("containerStatuses", []):
            if st.get("name") == "nvidia-driver-ctr":
                st["image"] = image


def _workloads(b: ClusterBuilder, shape: Shape) -> None:
    """A busy training pod on each GPU node, and one dcgm-exporter scrape per node that shows
    it working (seed §6: allocation and use agree on a healthy cluster)."""
    tol = [dict(GPU_TOLERATION)]
    for i, n in enumerate(GPU_NODES):
        res, _count = next(iter(advertised(shape).items()))
        pod = f"train-{i}"
        # a shared GPU is requested one replica at a time (more can land on one GPU)
        want = 1 if shape.gpus in ("time-slicing", "mps") else 2
        b.pod("ml", pod, node=n, gpus=want, resource=res, tolerations=tol)
        gpus: list[Gpu] = []
        if shape.gpus.startswith("mig"):
            layout = (MIG_SINGLE if shape.gpus == "mig-single" else MIG_MIXED)[1]
            prof = next(iter(layout))
            for k in range(2):
                gpus.append(Gpu(k, util=80.0, fb_used=8000.0, fb_total=MIG_MEMORY[prof],
                                namespace="ml", pod=pod, container="main", mig_profile=prof,
                                mig_id=k + 7))
        else:
            gpus = [Gpu(k, util=85.0, fb_used=60000.0, namespace="ml", pod=pod,
                        container="main") for k in range(want)]
            gpus += [Gpu(k) for k in range(want, GPUS_PER_NODE)]
        b.metrics(n, scrape(n, gpus))


# ----- host files -------------------------------------------------------------------------
def _host(b: ClusterBuilder, node: str, shape: Shape, kernel: str,
          dump: Dumper | None) -> None:
    base = {"etc/containerd/config.toml": base_config(shape.containerd)}
    source = dump(base, shape.containerd) if dump else base["etc/containerd/config.toml"]
    dropin = toolkit_dropin(source, cdi=shape.cdi)
    main = ('imports = ["/etc/containerd/conf.d/*.toml"]\n' + base["etc/containerd/config.toml"])
    files = {"etc/containerd/config.toml": main, "etc/containerd/conf.d/99-nvidia.toml": dropin}
    for p, t in files.items():
        b.host_file(node, p, t)
    if dump is not None:
        dumped = dump(files, shape.containerd)
        b.host_cmd(node, "containerd-config-dump.toml", dumped)
        b.host_cmd(node, "crictl-info.json", crictl_info(dumped))
    b.host_cmd(node, "containerd-version.txt",
               f"containerd github.com/containerd/containerd/v2 v{shape.containerd} "
               "05044ec0a9a75232cad458027ca83437aae3f4da\n" if not shape.containerd.startswith(
                   "1.") else f"containerd containerd.io {shape.containerd} "
               "05044ec0a9a75232cad458027ca83437aae3f4da\n")
    b.host_cmd(node, "systemctl-show-containerd.txt",
               "Restart=always\nRestartUSec=5s\nNRestarts=1\nExecMainPID=48211\n"
               "ExecMainStartTimestamp=Mon 2026-11-23 09:14:07 UTC\n"
               "ActiveEnterTimestamp=Mon 2026-11-23 09:14:07 UTC\n")
    b.host_cmd(node, "stat-containerd-config.txt",
               "/etc/containerd/config.toml 1763888000\n"
               "/etc/containerd/conf.d/99-nvidia.toml 1763889240\n")
    b.host_cmd(node, "journal-containerd.txt",
               f"2026-11-23T09:14:06+0000 {node} systemd[1]: Starting containerd.service - "
               "containerd container runtime...\n"
               f"2026-11-23T09:14:07+0000 {node} systemd[1]: Started containerd.service - "
               "containerd container runtime.\n")
    b.host_file(node, "lib/systemd/system/containerd.service",
                "[Unit]\nDescription=containerd container runtime\n\n[Service]\n"
                "ExecStart=/usr/bin/containerd\nRestart=always\nRestartSec=5\n")
    os_image, _k, os_id, os_ver = OS_INFO[shape.os]
    b.host_file(node, "etc/os-release", f'PRETTY_NAME="{os_image}"\nID={os_id}\n'
                                        f'VERSION_ID="{os_ver}"\n')
    if os_id == "ubuntu":  # kernel and driver held back from unattended upgrades (seed §3)
        b.host_file(node, "etc/apt/apt.conf.d/20auto-upgrades",
                    'APT::Periodic::Update-Package-Lists "1";\n'
                    'APT::Periodic::Unattended-Upgrade "1";\n')
        b.host_file(node, "etc/apt/apt.conf.d/50unattended-upgrades",
                    "Unattended-Upgrade::Allowed-Origins {\n"
                    '        "${distro_id}:${distro_codename}-security";\n};\n'
                    'Unattended-Upgrade::Package-Blacklist {\n        "linux-";\n'
                    '        "nvidia-";\n};\n')
    b.host_cmd(node, "mokutil-sb-state.txt", "SecureBoot disabled\n")
    driver_loaded(b, node, kernel, DRIVER_VERSION, "Tue Sep 23 09:46:56 UTC 2025",
                  "[Fri Nov 20 08:00:09 2026] nvidia: loading out-of-tree module taints kernel.")
    dev = "2330" if shape.nvswitch else "20b5"
    name = "GH100 [H100 SXM5 80GB]" if shape.nvswitch else "GA100 [A100 PCIe 80GB]"
    lspci = "".join(f"{0x18 + i * 0x10:02x}:00.0 3D controller [0302]: NVIDIA Corporation "
                    f"{name} [10de:{dev}] (rev a1)\n" for i in range(GPUS_PER_NODE))
    if shape.nvswitch:
        lspci += "".join(f"{0x05 + i:02x}:00.0 Bridge [0680]: NVIDIA Corporation GH100 "
                         "[H100 NVSwitch] [10de:22a3] (rev a1)\n" for i in range(4))
    b.host_cmd(node, "lspci-nvidia.txt", lspci)
    b.host_cmd(node, "nvidia-smi-q.xml", _smi_xml(node, shape))
    if shape.nvswitch:
        b.host_cmd(node, "systemctl-show-fabricmanager.txt",
                   "ActiveState=active\nSubState=running\nLoadState=loaded\n")
        b.host_cmd(node, "nv-fabricmanager-version.txt",
                   f"Fabric Manager version is : {DRIVER_VERSION}\n")
    else:
        b.host_cmd(node, "systemctl-show-fabricmanager.txt",
                   "ActiveState=inactive\nSubState=dead\nLoadState=not-found\n")
    if shape.cdi:
        b.host_file(node, cdik.TOOLKIT_SPEC.path, management_spec(GPUS_PER_NODE))
        b.host_file(node, cdik.DEVICE_PLUGIN_SPEC.path, device_plugin_spec(
            node, GPUS_PER_NODE, mig_per_gpu=(sum(MIG_SINGLE[1].values()) if shape.gpus ==
                                               "mig-single" else sum(MIG_MIXED[1].values())
                                               if shape.gpus == "mig-mixed" else 0)))


def driver_loaded(b: ClusterBuilder, node: str, kernel: str, version: str, built: str,
                  *dmesg_before: str) -> None:
    """The host files of a node whose NVIDIA kernel module is loaded: uname, lsmod, the
    driver's /proc version line and its dmesg banner (the NVRM wording of the 5xx drivers)."""
    b.host_cmd(node, "uname.txt", f"Linux {node} {kernel} #1 SMP x86_64 GNU/Linux\n")
    b.host_cmd(node, "lsmod.txt", "Module                  Size  Used by\n"
               "nvidia_uvm           1785856  0\nnvidia_modeset       1605632  0\n"
               "nvidia              60878848  2 nvidia_uvm,nvidia_modeset\n")
    banner = f"NVIDIA UNIX x86_64 Kernel Module  {version}  {built}"
    b.host_file(node, "proc/driver/nvidia/version", f"NVRM version: {banner}\n")
    stamp = (dmesg_before[0].split("]")[0] + "]") if dmesg_before else "[Fri Nov 20 08:00:09 2026]"
    b.host_cmd(node, "dmesg.txt", "".join(f"{line}\n" for line in dmesg_before)
               + f"{stamp} NVRM: loading {banner}\n")


def _smi_xml(node: str, shape: Shape) -> str:
    mig = "Enabled" if shape.gpus.startswith("mig") else "Disabled"
    product = "NVIDIA H100 80GB HBM3" if shape.nvswitch else "NVIDIA A100 80GB PCIe"
    dev = "233010DE" if shape.nvswitch else "20B510DE"
    fabric = ("<fabric><state>Completed</state><status>Success</status><cliqueId>0</cliqueId>"
              "</fabric>" if shape.nvswitch else
              "<fabric><state>N/A</state><status>N/A</status></fabric>")
    gpus = []
    for i in range(GPUS_PER_NODE):
        bus = f"00000000:{0x18 + i * 0x10:02X}:00.0"
        gpus.append(f'  <gpu id="{bus}">\n    <product_name>{product}</product_name>\n'
                    f"    <mig_mode><current_mig>{mig}</current_mig><pending_mig>{mig}"
                    f"</pending_mig></mig_mode>\n    <uuid>{gpu_uuid(node, i)}</uuid>\n"
                    f"    <pci><pci_device_id>{dev}</pci_device_id><pci_bus_id>{bus}"
                    "</pci_bus_id></pci>\n"
                    "    <fb_memory_usage><total>81559 MiB</total><used>0 MiB</used>"
                    "</fb_memory_usage>\n"
                    f"    {fabric}\n  </gpu>")
    return (f'<?xml version="1.0" ?>\n<nvidia_smi_log>\n  <driver_version>{DRIVER_VERSION}'
            f"</driver_version>\n  <attached_gpus>{GPUS_PER_NODE}</attached_gpus>\n"
            + "\n".join(gpus) + "\n</nvidia_smi_log>\n")

