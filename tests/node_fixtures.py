"""Host facts for node-check tests: a healthy GPU node and the knobs to break it.

The same (files, cmds) pair is written either into a bundle (``ClusterBuilder``) or into a
fake host tree for ``gpuxray node --root`` (commands under ``.gpuxray-cmd/``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gpuxray.model.snapshot import Snapshot
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.healthy import base_config, toolkit_dropin
from gpuxray.sources.bundle import load_bundle_dir
from gpuxray.sources.host import FAKE_CMD_DIR

DATA = Path(__file__).parent / "data" / "node"


def data(name: str) -> str:
    return (DATA / name).read_text()


def smi_xml(n: int, product: str, *, fabric: tuple[str, str] | None = None,
            driver: str = "580.95.05", bus0: int = 0x18) -> str:
    """An ``nvidia-smi -q -x`` document for ``n`` identical GPUs."""
    gpus = []
    for i in range(n):
        bus = f"00000000:{bus0 + i * 0x10:02X}:00.0"
        fab = (f"<fabric><state>{fabric[0]}</state><status>{fabric[1]}</status>"
               f"<cliqueId>0</cliqueId></fabric>" if fabric else
               "<fabric><state>N/A</state><status>N/A</status></fabric>")
        gpus.append(f"""  <gpu id="{bus}">
    <product_name>{product}</product_name>
    <mig_mode><current_mig>Disabled</current_mig><pending_mig>Disabled</pending_mig></mig_mode>
    <uuid>GPU-0000{i:04d}-aaaa-bbbb-cccc-ddddeeeeffff</uuid>
    <pci><pci_device_id>233010DE</pci_device_id><pci_bus_id>{bus}</pci_bus_id></pci>
    <fb_memory_usage><total>81559 MiB</total><used>0 MiB</used></fb_memory_usage>
    <utilization><gpu_util>0 %</gpu_util><memory_util>0 %</memory_util></utilization>
    {fab}
  </gpu>""")
    return (f'<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">\n'
            f"<nvidia_smi_log>\n  <driver_version>{driver}</driver_version>\n"
            f"  <cuda_version>13.0</cuda_version>\n  <attached_gpus>{n}</attached_gpus>\n"
            + "\n".join(gpus) + "\n</nvidia_smi_log>\n")


HEALTHY_JOURNAL = "\n".join(data("journal-containerd.txt").splitlines()[:5]) + "\n"
HEALTHY_DMESG = "\n".join(data("dmesg-T.txt").splitlines()[:5]) + "\n"
FM_NOT_FOUND = "ActiveState=inactive\nSubState=dead\nLoadState=not-found\n"
FM_RUNNING = "ActiveState=active\nSubState=running\nLoadState=loaded\n"
APT_SAFE_BLACKLIST = data("50unattended-upgrades").replace('//  "linux-";', '    "linux-";')


@dataclass
class Host:
    """A host's files (paths without "/") and command outputs; ``errs`` are ``.err`` files."""

    files: dict[str, str] = field(default_factory=dict)
    cmds: dict[str, str] = field(default_factory=dict)
    errs: dict[str, str] = field(default_factory=dict)

    def drop(self, *names: str) -> Host:
        for n in names:
            self.files.pop(n, None)
            self.cmds.pop(n, None)
            self.errs.pop(n, None)
        return self

    def to_builder(self, b: ClusterBuilder, node: str) -> None:
        for p, t in self.files.items():
            b.host_file(node, p, t)
        for n, t in self.cmds.items():
            b.host_cmd(node, n, t)
        for n, t in self.errs.items():
            b.host_cmd(node, f"{n}.err", t)

    def to_root(self, root: Path, hostname: str | None = None) -> Path:
        for p, t in self.files.items():
            f = root / p
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(t)
        cdir = root / FAKE_CMD_DIR
        cdir.mkdir(parents=True, exist_ok=True)
        for n, t in self.cmds.items():
            (cdir / n).write_text(t)
        for n, t in self.errs.items():
            (cdir / f"{n}.err").write_text(t)
        if hostname:
            (root / "etc").mkdir(parents=True, exist_ok=True)
            (root / "etc" / "hostname").write_text(hostname + "\n")
        return root


#: the node image's config with the nvidia runtimes written into it by the toolkit (in place, as
#: toolkits before drop-in support do)
HEALTHY_CONTAINERD_CONFIG = toolkit_dropin(base_config("1.7.27"), cdi=False)


def healthy_host() -> Host:
    """A PCIe A100 node, host driver, everything in order: no node finding expected."""
    return Host(
        files={
            "lib/systemd/system/containerd.service": data("containerd.service"),
            "etc/os-release": data("os-release"),
            "proc/driver/nvidia/version": data("proc-driver-nvidia-version"),
            "etc/apt/apt.conf.d/50unattended-upgrades": APT_SAFE_BLACKLIST,
            "etc/apt/apt.conf.d/20auto-upgrades": data("20auto-upgrades"),
            # the nvidia handler as `nvidia-ctk runtime configure --runtime=containerd` writes it
            "etc/containerd/config.toml": HEALTHY_CONTAINERD_CONFIG,
        },
        cmds={
            "systemctl-show-containerd.txt": data("systemctl-show-containerd.txt")
            .replace("NRestarts=2", "NRestarts=0"),
            "journal-containerd.txt": HEALTHY_JOURNAL,
            "dmesg.txt": HEALTHY_DMESG,
            "lsmod.txt": data("lsmod.txt"),
            "mokutil-sb-state.txt": "SecureBoot disabled\n",
            "nvidia-smi-q.xml": data("nvidia-smi-q.xml"),
            "lspci-nvidia.txt": data("lspci-pcie.txt"),
            "systemctl-show-fabricmanager.txt": FM_NOT_FOUND,
            "uname.txt": "Linux gpu-1 5.15.0-126-generic #136-Ubuntu SMP Wed Nov 6 10:38:22 UTC "
                         "2024 x86_64 x86_64 x86_64 GNU/Linux\n",
            "containerd-version.txt": "containerd containerd.io 1.7.27 "
                                      "05044ec0a9a75232cad458027ca83437aae3f4da\n",
        },
    )


def hgx_host(*, fabric: tuple[str, str] = ("Completed", "Success"),
             fm: str = FM_RUNNING, fm_version: str | None = "580.95.05") -> Host:
    """An 8×H100 SXM HGX node with NVSwitches (Fabric Manager needed)."""
    h = healthy_host()
    h.cmds["lspci-nvidia.txt"] = data("lspci-hgx.txt")
    h.cmds["nvidia-smi-q.xml"] = smi_xml(8, "NVIDIA H100 80GB HBM3", fabric=fabric)
    h.cmds["systemctl-show-fabricmanager.txt"] = fm
    if fm_version:
        h.cmds["nv-fabricmanager-version.txt"] = f"Fabric Manager version is : {fm_version}\n"
    return h


def bundle(tmp: Path, hosts: dict[str, Host], *, cluster_nodes: bool = True,
           clusterpolicy: dict[str, object] | None = None) -> Snapshot:
    b = ClusterBuilder()
    for name, h in hosts.items():
        if cluster_nodes:
            b.node(name, gpus=2)
        h.to_builder(b, name)
    if clusterpolicy is not None:
        b.custom("clusterpolicies", "ClusterPolicy", "cluster-policy", clusterpolicy,
                 {"state": "ready"})
    return load_bundle_dir(b.write(tmp / "bundle"))
