"""Node facts: a host's raw files and command outputs (``HostFacts``) parsed into typed
records once, for every node check (DESIGN.md: parsing happens outside the checks so they
stay pure).

Each accessor returns None when its input was not collected, so a check can turn absence
into an ``unknown`` naming the file (``missing_reason``) instead of a silent pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from gpuxray.engines.capacity import is_gpu_node
from gpuxray.knowledge.distributions import DISTRIBUTIONS, config_keys
from gpuxray.knowledge.distributions import UNIT_DIRS as DIST_UNIT_DIRS
from gpuxray.model.finding import Evidence
from gpuxray.model.snapshot import HostFacts, Input, Snapshot
from gpuxray.sources.parsers.systemctl import parse_systemctl_show, unit_directives

if TYPE_CHECKING:
    from gpuxray.sources.parsers.apt import AptConfig
    from gpuxray.sources.parsers.dmesg import KernelLine, KernelLog, Signature
    from gpuxray.sources.parsers.journal import UnitEvent
    from gpuxray.sources.parsers.lsmod import Module
    from gpuxray.sources.parsers.lspci import PciDevice
    from gpuxray.sources.parsers.mokutil import SecureBoot
    from gpuxray.sources.parsers.nvidia_smi import GpuInfo, SmiReport

#: the parsers' types this module hands on, imported when first asked for (:func:`__getattr__`)
_LAZY = {
    "GpuInfo": "nvidia_smi",
    "KernelLine": "dmesg",
    "SecureBoot": "mokutil",
    "Signature": "dmesg",
}


def __getattr__(name: str) -> Any:
    """The host-text parsers are imported by the accessors that parse (each compiles its
    patterns on import, ~0.03 s in all): a ``check`` on a bundle without node files parses
    none and imports none of them. Their types named here are handed on when asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"gpuxray.sources.parsers.{module}"), name)


__all__ = [
    "CMD",
    "DriverMode",
    "GpuInfo",
    "KernelLine",
    "NodeFacts",
    "RestartSetting",
    "SecureBoot",
    "Signature",
    "containerd_config_collected",
    "driver_mode",
    "node_facts",
]


class CMD:
    """Command output names (BUNDLE.md ``nodes/<node>/cmd/``)."""

    CONTAINERD_VERSION = "containerd-version.txt"
    SYSTEMCTL_CONTAINERD = "systemctl-show-containerd.txt"
    JOURNAL_CONTAINERD = "journal-containerd.txt"
    DMESG = "dmesg.txt"
    NVIDIA_SMI = "nvidia-smi.txt"
    NVIDIA_SMI_Q = "nvidia-smi-q.xml"
    LSMOD = "lsmod.txt"
    UNAME = "uname.txt"
    MOKUTIL = "mokutil-sb-state.txt"
    SYSTEMCTL_FM = "systemctl-show-fabricmanager.txt"
    LSPCI = "lspci-nvidia.txt"
    FM_VERSION = "nv-fabricmanager-version.txt"  # extension: `nv-fabricmanager --version`


# Unit file locations in systemd's precedence order (highest first).
UNIT_DIRS = ("etc/systemd/system", "run/systemd/system", "usr/lib/systemd/system",
             "lib/systemd/system")
APT_CONF_DIR = "etc/apt/apt.conf.d/"


@dataclass(frozen=True, slots=True)
class RestartSetting:
    """The effective ``Restart=`` of a unit and where it was decided."""

    value: str
    source: str
    detail: str


class DriverMode:
    CONTAINER = "driver-container"
    HOST = "host-driver"
    UNKNOWN = "unknown"


def driver_mode(snap: Snapshot) -> str:
    """ClusterPolicy ``spec.driver.enabled`` (default true) says whether the operator runs the
    driver in a container (seed §3); without a ClusterPolicy it is unknown."""
    if not snap.has(Input.CLUSTERPOLICIES) or not snap.clusterpolicies:
        return DriverMode.UNKNOWN
    driver = snap.clusterpolicies[0].spec.get("driver")
    enabled = driver.get("enabled", True) if isinstance(driver, dict) else True
    return DriverMode.HOST if enabled is False or str(enabled).lower() == "false" \
        else DriverMode.CONTAINER


class NodeFacts:
    """Parsed view of one ``HostFacts``; every parse runs at most once."""

    def __init__(self, host: HostFacts, *, gpu_hint: bool | None = None) -> None:
        self.host = host
        self.name = host.node
        self._gpu_hint = gpu_hint

    # ----- raw access -----------------------------------------------------------------------
    def cmd(self, name: str) -> str | None:
        return self.host.cmds.get(name)

    def file(self, path: str) -> str | None:
        return self.host.files.get(path)

    def cmd_src(self, name: str) -> str:
        return self.host.source("cmd", name)

    def file_src(self, path: str) -> str:
        return self.host.source("files", path)

    def missing_reason(self, name: str) -> str:
        """Why a command's output is absent: its ``.err`` (first line), unreadable, or not
        collected."""
        if ABSENT in self.host.unreadable:
            return self.host.unreadable[ABSENT]
        err = self.host.cmd_errors.get(name)
        if err is not None:
            first = next((ln.strip() for ln in err.splitlines() if ln.strip()), "")
            return f"failed: {first}" if first else "failed"
        if f"cmd/{name}" in self.host.unreadable:
            return f"unreadable: {self.host.unreadable[f'cmd/{name}']}"
        return "not collected"

    def cmd_ev(self, name: str, lineno: int | None, text: str) -> Evidence:
        where = f"line {lineno}: " if lineno else ""
        return Evidence(self.cmd_src(name), f"{where}{text.strip()[:300]}")

    def file_ev(self, path: str, lineno: int | None, text: str) -> Evidence:
        where = f"line {lineno}: " if lineno else ""
        return Evidence(self.file_src(path), f"{where}{text.strip()[:300]}")

    # ----- parsed inputs --------------------------------------------------------------------
    @cached_property
    def journal_events(self) -> list[UnitEvent] | None:
        text = self.cmd(CMD.JOURNAL_CONTAINERD)
        if text is None:
            return None
        from gpuxray.sources.parsers.journal import parse_journal, unit_events

        return unit_events(parse_journal(text), "containerd")

    @cached_property
    def kernel(self) -> KernelLog | None:
        text = self.cmd(CMD.DMESG)
        if text is None:
            return None
        from gpuxray.sources.parsers.dmesg import parse_kernel_log

        return parse_kernel_log(text)

    @cached_property
    def lsmod(self) -> dict[str, Module] | None:
        text = self.cmd(CMD.LSMOD)
        if text is None:
            return None
        from gpuxray.sources.parsers.lsmod import parse_lsmod

        return parse_lsmod(text)

    @cached_property
    def secure_boot(self) -> SecureBoot | None:
        """mokutil prints some states on stderr, so its ``.err`` counts as output too."""
        text = self.cmd(CMD.MOKUTIL)
        err = self.host.cmd_errors.get(CMD.MOKUTIL)
        if text is None and err is None:
            return None
        from gpuxray.sources.parsers.mokutil import SecureBoot, parse_sb_state

        state = parse_sb_state((text or "") + "\n" + (err or ""))
        if state is SecureBoot.UNKNOWN and text is None:
            return None
        return state

    @cached_property
    def smi(self) -> SmiReport | None:
        """``nvidia-smi -q -x``; without it, the text nvidia-smi printed (table, ``-q``, ``-L``:
        what a pasted ticket holds)."""
        text = self.cmd(CMD.NVIDIA_SMI_Q)
        if text is None:
            plain = self.cmd(CMD.NVIDIA_SMI)
            if plain is None:
                return None
            from gpuxray.sources.parsers.nvidia_smi import parse_nvidia_smi_text

            return parse_nvidia_smi_text(plain)
        from gpuxray.sources.parsers.nvidia_smi import NvidiaSmiParseError, parse_nvidia_smi_xml

        try:
            return parse_nvidia_smi_xml(text)
        except NvidiaSmiParseError:
            return None

    @cached_property
    def smi_error(self) -> str:
        text = self.cmd(CMD.NVIDIA_SMI_Q)
        if text is None:
            return self.missing_reason(CMD.NVIDIA_SMI_Q)
        from gpuxray.sources.parsers.nvidia_smi import NvidiaSmiParseError, parse_nvidia_smi_xml

        try:
            parse_nvidia_smi_xml(text)
        except NvidiaSmiParseError as exc:
            return f"malformed: {exc}"
        return ""

    @cached_property
    def lspci(self) -> list[PciDevice] | None:
        text = self.cmd(CMD.LSPCI)
        if text is None:
            return None
        from gpuxray.sources.parsers.lspci import parse_lspci

        return parse_lspci(text)

    @cached_property
    def containerd_show(self) -> dict[str, str] | None:
        text = self.cmd(CMD.SYSTEMCTL_CONTAINERD)
        return None if text is None else parse_systemctl_show(text)

    @cached_property
    def fabricmanager_show(self) -> dict[str, str] | None:
        text = self.cmd(CMD.SYSTEMCTL_FM)
        return None if text is None else parse_systemctl_show(text)

    @cached_property
    def fabricmanager_version(self) -> str | None:
        text = self.cmd(CMD.FM_VERSION)
        if text is None:
            return None
        from gpuxray.sources.parsers.versions import parse_fabricmanager_version

        return parse_fabricmanager_version(text)

    @cached_property
    def driver_version(self) -> tuple[str, Evidence] | None:
        """The loaded kernel module's version: /proc/driver/nvidia/version, else nvidia-smi,
        else the last ``NVRM: loading`` line of the kernel log."""
        text = self.file("proc/driver/nvidia/version")
        if text:
            from gpuxray.sources.parsers.versions import parse_driver_version

            v = parse_driver_version(text)
            if v:
                return v, self.file_ev("proc/driver/nvidia/version", 1, text.splitlines()[0])
        if self.smi and self.smi.driver_version:
            return self.smi.driver_version, self.cmd_ev(
                CMD.NVIDIA_SMI_Q, None, f"driver_version {self.smi.driver_version}")
        if self.kernel and self.kernel.nvrm_versions:
            from gpuxray.sources.parsers.dmesg import Signature

            v = self.kernel.nvrm_versions[-1]
            line = self.kernel.hits(Signature.NVRM_LOADED)[-1]
            return v, self.cmd_ev(CMD.DMESG, line.lineno, line.message)
        return None

    @cached_property
    def os_release(self) -> dict[str, str] | None:
        text = self.file("etc/os-release") or self.file("usr/lib/os-release")
        if text is None:
            return None
        from gpuxray.sources.parsers.versions import parse_os_release

        return parse_os_release(text)

    @cached_property
    def apt_files(self) -> list[str]:
        """Collected apt.conf.d files that configure unattended-upgrades, in apt's order."""
        return sorted(p for p in self.host.files if p.startswith(APT_CONF_DIR)
                      and re.search(r"unattended|auto-?upgrades|periodic", p[len(APT_CONF_DIR):]))

    @cached_property
    def apt(self) -> AptConfig | None:
        files = self.apt_files
        if not files:
            return None
        from gpuxray.sources.parsers.apt import parse_apt_conf

        return parse_apt_conf([(p, self.host.files[p]) for p in files])

    # ----- derived facts --------------------------------------------------------------------
    @cached_property
    def unit_restart(self) -> RestartSetting | None:
        """containerd's ``Restart=``: systemctl's answer, else the unit file and drop-ins
        (last assignment wins; an empty one resets to systemd's default ``no``)."""
        show = self.containerd_show
        if show is not None and "Restart" in show and not self.containerd_unit_absent:
            return RestartSetting(show["Restart"], self.cmd_src(CMD.SYSTEMCTL_CONTAINERD),
                                  f"Restart={show['Restart']}")
        main = next((f"{d}/containerd.service" for d in UNIT_DIRS
                     if f"{d}/containerd.service" in self.host.files), None)
        dropins: dict[str, str] = {}
        for d in reversed(UNIT_DIRS):  # higher-precedence dirs override same-named drop-ins
            prefix = f"{d}/containerd.service.d/"
            for p in self.host.files:
                if p.startswith(prefix) and p.endswith(".conf") and "/" not in p[len(prefix):]:
                    dropins[p[len(prefix):]] = p
        if main is None and not dropins:
            return None
        value, src, detail = "no", self.file_src(main) if main else "", "no Restart= (default no)"
        for path in ([main] if main else []) + [dropins[k] for k in sorted(dropins)]:
            for section, key, val, lineno in unit_directives(self.host.files[path]):
                if section == "Service" and key == "Restart":
                    value = val or "no"
                    src, detail = self.file_src(path), f"line {lineno}: Restart={val}"
        return RestartSetting(value, src or self.file_src(dropins[sorted(dropins)[0]]), detail)

    @cached_property
    def distribution_restart(self) -> tuple[str, RestartSetting] | None:
        """(unit, its ``Restart=``) of the k3s/RKE2 service whose child containerd is, from its
        unit file and drop-ins (knowledge/distributions.py); None when no such unit file was
        collected."""
        for d in DISTRIBUTIONS:
            for unit in d.units:
                main = next((f"{dd}/{unit}" for dd in DIST_UNIT_DIRS
                             if f"{dd}/{unit}" in self.host.files), None)
                if main is None:
                    continue
                paths = [main, *sorted(
                    p for dd in DIST_UNIT_DIRS for p in self.host.files
                    if p.startswith(f"{dd}/{unit}.d/") and p.endswith(".conf"))]
                value, src, detail = "no", self.file_src(main), "no Restart= (default no)"
                for path in paths:
                    for section, key, val, lineno in unit_directives(self.host.files[path]):
                        if section == "Service" and key == "Restart":
                            value = val or "no"
                            src, detail = self.file_src(path), f"line {lineno}: Restart={val}"
                return unit, RestartSetting(value, src, detail)
        return None

    @cached_property
    def containerd_unit_absent(self) -> bool:
        """systemctl prints defaults (``Restart=no``) for a unit it does not know, e.g. where
        k3s/rke2 run containerd themselves: no main PID, never active, no unit file."""
        show = self.containerd_show
        if show is None:
            return False
        if show.get("LoadState") == "not-found":
            return True
        never_ran = (show.get("ExecMainPID", "0") in ("0", "")
                     and show.get("ActiveEnterTimestamp", "") in ("", "n/a"))
        has_unit = any(f"{d}/containerd.service" in self.host.files for d in UNIT_DIRS)
        return never_ran and not has_unit

    @cached_property
    def nvidia_devices(self) -> list[PciDevice]:
        return [d for d in (self.lspci or []) if d.is_gpu]

    @property
    def is_gpu(self) -> bool:
        """A GPU node: the cluster says so (labels/resources), else the host shows an NVIDIA
        GPU or driver; a host with no evidence either way counts as one (it was collected
        as a GPU node)."""
        if self._gpu_hint is not None:
            return self._gpu_hint
        if self.lspci is not None:
            return bool(self.nvidia_devices) or bool(self.smi and self.smi.gpus)
        if self.smi is not None:
            return bool(self.smi.gpus)
        return True


ABSENT = "*"  # key in HostFacts.unreadable of a placeholder: why the node has no facts


def hosts_for_checks(snap: Snapshot) -> dict[str, HostFacts]:
    """Every host the node checks must speak about: the collected ones, plus an empty
    placeholder for each GPU node of the cluster that has no ``nodes/<node>/`` although host
    facts were collected for others (an agent pod that never reported, a node skipped by hand).
    Its checks then report ``unknown`` with the reason instead of staying silent."""
    hosts = dict(snap.hosts)
    if snap.has(Input.HOSTS) and snap.has(Input.NODES):
        errors = {what.strip("/"): err for what, err in snap.manifest.errors}
        for node in snap.nodes:
            name = node.metadata.name
            if name in hosts or not is_gpu_node(node):
                continue
            reason = errors.get(f"nodes/{name}") or f"no nodes/{name}/ in the bundle"
            hosts[name] = HostFacts(name, {}, {}, {}, {ABSENT: reason})
    return dict(sorted(hosts.items()))


def runs_containerd(snap: Snapshot, node: str) -> bool:
    """False where the kubelet reports another container runtime
    (``status.nodeInfo.containerRuntimeVersion`` ``cri-o://…``, as on OpenShift, or
    ``docker://…``): containerd's files and unit do not exist there and its checks do not apply.
    A node not in the snapshot, or reporting nothing, is taken to run containerd."""
    n = snap.node_by_name.get(node)
    if n is None:
        return True
    version = n.status.node_info.container_runtime_version
    return not version or version.startswith("containerd://")


def containerd_config_collected(host: HostFacts) -> bool:
    """The node's containerd config is in its facts: /etc/containerd/config.toml, or the file
    k3s/RKE2 render for their own containerd (knowledge/distributions.py)."""
    return any(k in host.files for k in ("etc/containerd/config.toml", *config_keys()))


def containerd_hosts(snap: Snapshot) -> dict[str, HostFacts]:
    """:func:`hosts_for_checks` less the nodes that run another runtime."""
    return {k: h for k, h in hosts_for_checks(snap).items() if runs_containerd(snap, k)}


@lru_cache(maxsize=4)
def node_facts(snap: Snapshot) -> dict[str, NodeFacts]:
    """Parsed facts of every host in the snapshot (cached per snapshot)."""
    out: dict[str, NodeFacts] = {}
    for name, hf in hosts_for_checks(snap).items():
        node = snap.node_by_name.get(name)
        hint = is_gpu_node(node) if node is not None else None
        out[name] = NodeFacts(hf, gpu_hint=hint)
    return out
