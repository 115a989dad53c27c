"""Node-layer checks over host facts (seed §3, §5; facts.md §1.4, §2.3, §8): containerd's
restart policy and restarts, Xids, nouveau, Secure Boot, kernel auto-upgrades, and Fabric
Manager (GX405, an operator component that lives on the host).

Every check reads parsed facts from :mod:`gpuxray.engines.nodefacts`. When a GPU node lacks a
check's input, the check reports ONE unknown listing the nodes and the missing file, never a
pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from gpuxray.checks.registry import check
from gpuxray.engines.nodefacts import (
    CMD,
    DriverMode,
    NodeFacts,
    driver_mode,
    node_facts,
    runs_containerd,
)
from gpuxray.model.factory import fail, unknown
from gpuxray.model.finding import CLUSTER, Evidence, Finding, Severity, Subject
from gpuxray.model.incident import short_list
from gpuxray.model.snapshot import Input, Snapshot

if TYPE_CHECKING:
    from gpuxray.engines.nodefacts import GpuInfo, KernelLine

HOSTS = (Input.HOSTS,)


def _subject(nf: NodeFacts) -> Subject:
    return Subject("Node", nf.name)


def _gpu_facts(snap: Snapshot) -> list[NodeFacts]:
    return [nf for nf in node_facts(snap).values() if nf.is_gpu]


def _containerd_facts(snap: Snapshot) -> list[NodeFacts]:
    """GPU nodes whose kubelet runs on containerd (the containerd unit's checks)."""
    return [nf for nf in _gpu_facts(snap) if runs_containerd(snap, nf.name)]


def _unknown(code: str, missing: str, gaps: list[tuple[str, str]]) -> Iterator[Finding]:
    """One unknown for all nodes lacking ``missing`` (``nodes/*/cmd/<file>``): the nodes listed
    once, in ``nodes`` (docs/json.md, "Unknowns about many nodes"); the message names the first
    few and counts the rest, so a file missing on 3,000 nodes is not 3,000 names in the text."""
    if not gaps:
        return
    nodes = [n for n, _ in gaps]
    reasons = sorted({r for _, r in gaps})
    subject = Subject("Node", nodes[0]) if len(nodes) == 1 else CLUSTER
    path = f"nodes/{nodes[0]}/{missing}" if len(nodes) == 1 else f"nodes/*/{missing}"
    f = unknown(code, subject, path, f"{'; '.join(reasons)} on {short_list(nodes, 3)}",
                evidence=[Evidence(f"nodes/{n}/{missing}", r) for n, r in gaps[:20]])
    yield replace(f, params={**f.params, "nodes": nodes, "node_count": len(nodes),
                             "file": missing})


# ---------------------------------------------------------------------------------------------
# GX503 containerd-restart-policy

# Restart= values that restart the daemon after SIGHUP: systemd counts SIGHUP among the
# "clean" exit signals, so only always and on-success restart it (systemd.service(5)).
_RESTARTS_AFTER_SIGHUP = frozenset({"always", "on-success"})


@check("GX503", needs=HOSTS)
def containerd_restart_policy(snap: Snapshot) -> Iterator[Finding]:
    """Seed §5 / facts.md §1.4, §2.3: the toolkit restarts containerd with SIGHUP, which ends
    the daemon; only ``Restart=always`` brings it back (upstream's unit has it)."""
    gaps: list[tuple[str, str]] = []
    for nf in _containerd_facts(snap):
        setting = nf.unit_restart
        parent = nf.distribution_restart
        if parent is not None and (setting is None or nf.containerd_unit_absent):
            # k3s/RKE2: containerd is the service's child and the service exits with it, so
            # the service's Restart= brings it back (knowledge/distributions.py)
            unit, setting = parent
            if setting.value == "always":
                continue
            yield fail("GX503", _subject(nf), [Evidence(setting.source, setting.detail)],
                       severity=Severity.INFO if setting.value in _RESTARTS_AFTER_SIGHUP
                       else None, node=nf.name, restart=setting.value, unit=unit,
                       restarts_after_sighup=setting.value in _RESTARTS_AFTER_SIGHUP,
                       restart_usec="")
            continue
        if setting is None:
            why = ("containerd.service is not a loaded unit (containerd may run under another "
                   "unit, e.g. k3s or rke2)" if nf.containerd_unit_absent else
                   nf.missing_reason(CMD.SYSTEMCTL_CONTAINERD)
                   + " and no containerd.service unit file")
            gaps.append((nf.name, why))
            continue
        if setting.value == "always":
            continue
        after_hup = setting.value in _RESTARTS_AFTER_SIGHUP
        restart_usec = (nf.containerd_show or {}).get("RestartUSec", "")
        yield fail("GX503", _subject(nf), [Evidence(setting.source, setting.detail)],
                   severity=Severity.INFO if after_hup else None,
                   node=nf.name, restart=setting.value, restarts_after_sighup=after_hup,
                   restart_usec=restart_usec)
    yield from _unknown("GX503", f"cmd/{CMD.SYSTEMCTL_CONTAINERD}", gaps)


# ---------------------------------------------------------------------------------------------
# GX504 containerd-restarts


@check("GX504", needs=HOSTS)
def containerd_restarts(snap: Snapshot) -> Iterator[Finding]:
    """Seed §5, §7: the journal shows each SIGHUP → exit → scheduled restart → started; every
    toolkit (re)start causes two (facts.md §2.3). One finding per node with the timeline."""
    gaps: list[tuple[str, str]] = []
    for nf in _containerd_facts(snap):
        events = nf.journal_events
        if events is None:
            gaps.append((nf.name, nf.missing_reason(CMD.JOURNAL_CONTAINERD)))
            continue
        from gpuxray.engines.unit_restarts import restart_episodes  # imports the journal's parser

        episodes = restart_episodes(events)
        if not episodes:
            continue
        restarted = [e for e in episodes if e.restarted is not None]
        down = [e for e in episodes if e.restarted is None]
        hup = [e for e in episodes if e.signal == "SIGHUP"]
        senders = sorted({e.sender for e in episodes if e.sender})
        n_restarts = (nf.containerd_show or {}).get("NRestarts", "")
        evidence = [nf.cmd_ev(CMD.JOURNAL_CONTAINERD, ln.lineno, ln.raw)
                    for e in episodes[-5:] for ln in (*e.lines[:3], *(
                        [e.restarted] if e.restarted and e.restarted not in e.lines else []))]
        if n_restarts:
            evidence.append(nf.cmd_ev(CMD.SYSTEMCTL_CONTAINERD, None, f"NRestarts={n_restarts}"))
        yield fail("GX504", _subject(nf), evidence[:16],
                   severity=Severity.ERROR if down else None,
                   node=nf.name, count=len(restarted), sighup=len(hup),
                   not_restarted=len(down), senders=senders,
                   first=episodes[0].began.ts_text, last=episodes[-1].began.ts_text,
                   n_restarts=int(n_restarts) if n_restarts.isdigit() else None,
                   timeline=[e.as_params() for e in episodes[-20:]])
    yield from _unknown("GX504", f"cmd/{CMD.JOURNAL_CONTAINERD}", gaps)


# ---------------------------------------------------------------------------------------------
# GX505 xid-errors


@check("GX505", needs=HOSTS)
def xid_errors(snap: Snapshot) -> Iterator[Finding]:
    """facts.md §8: critical Xids make the device plugin mark the GPU unhealthy until the
    plugin restarts (capacity > allocatable, seed §2); application Xids (13, 31, 43, 45, 68,
    109) are skipped by it. One finding per node and Xid code."""
    gaps: list[tuple[str, str]] = []
    for nf in _gpu_facts(snap):
        klog = nf.kernel
        if klog is None:
            gaps.append((nf.name, nf.missing_reason(CMD.DMESG)))
            continue
        from gpuxray.knowledge.xid import xid_info  # only for a collected kernel log

        by_code: dict[int, list[int]] = {}
        for i, x in enumerate(klog.xids):
            by_code.setdefault(x.xid, []).append(i)
        gpus = {g.pci_bus_id: g for g in (nf.smi.gpus if nf.smi else [])}
        for code in sorted(by_code):
            events = [klog.xids[i] for i in by_code[code]]
            info = xid_info(code)
            pcis = sorted({x.pci for x in events})
            procs = sorted({x.name for x in events if x.name and x.name != "<unknown>"})
            affected = [_gpu_label(p, gpus) for p in pcis]
            ev = [nf.cmd_ev(CMD.DMESG, x.line.lineno, x.line.message)
                  for x in (events if len(events) <= 3 else [events[0], events[-1]])]
            yield fail("GX505", _subject(nf), ev, severity=info.severity,
                       node=nf.name, xid=code, mnemonic=info.mnemonic, meaning=info.meaning,
                       count=len(events), pci=pcis, where=", ".join(pcis), gpus=affected,
                       processes=procs,
                       gpu_instances=sorted({x.gpu_instance for x in events
                                             if x.gpu_instance is not None}),
                       first=events[0].line.ts_text, last=events[-1].line.ts_text,
                       critical=info.critical,
                       plugin=("marks the GPU unhealthy until the plugin restarts"
                               if info.critical else
                               "ignored by the device plugin (application error)"
                               + (f" since v{info.skipped_since}" if info.skipped_since else "")))
    yield from _unknown("GX505", f"cmd/{CMD.DMESG}", gaps)


def _bus_dev(addr: str) -> str:
    """``00000000:3B:00.0`` / ``0000:3b:00`` → ``3b:00`` (bus:device, domain and function
    dropped), so the Xid line's address meets nvidia-smi's."""
    a = addr.lower().rsplit(".", 1)[0] if "." in addr else addr.lower()
    return a.split(":", 1)[1] if a.count(":") == 2 else a


def _gpu_label(pci: str, gpus: dict[str, GpuInfo]) -> str:
    for bus, g in gpus.items():
        if _bus_dev(bus) == _bus_dev(pci):
            return f"{pci} {g.product_name} {g.uuid}".strip()
    return pci


# ---------------------------------------------------------------------------------------------
# GX506 nouveau-loaded


@check("GX506", needs=HOSTS)
def nouveau_loaded(snap: Snapshot) -> Iterator[Finding]:
    """Seed §1, §3: nouveau bound to the GPU keeps the NVIDIA driver from loading, so the
    driver pod (or host driver) fails and every later operand waits in Init."""
    from gpuxray.engines.nodefacts import Signature  # the kernel log's parser, lazily

    gaps: list[tuple[str, str]] = []
    for nf in _gpu_facts(snap):
        mods = nf.lsmod
        kernel_hits = nf.kernel.hits(Signature.NOUVEAU) if nf.kernel else []
        ev: list[Evidence] = []
        if mods is not None and "nouveau" in mods:
            m = mods["nouveau"]
            ev.append(nf.cmd_ev(CMD.LSMOD, m.lineno, f"nouveau {m.size} {m.used}"))
        ev.extend(nf.cmd_ev(CMD.DMESG, k.lineno, k.message) for k in kernel_hits[:3])
        if ev:
            in_lsmod = mods is not None and "nouveau" in mods
            seen = [w for w, ok in (("lsmod", in_lsmod), ("the kernel log", bool(kernel_hits)))
                    if ok]
            yield fail("GX506", _subject(nf), ev, node=nf.name, seen_in=" and ".join(seen),
                       in_lsmod=in_lsmod,
                       kernel_lines=len(kernel_hits),
                       nvidia_loaded=bool(mods and "nvidia" in mods))
        elif mods is None:
            gaps.append((nf.name, nf.missing_reason(CMD.LSMOD)))
    yield from _unknown("GX506", f"cmd/{CMD.LSMOD}", gaps)


# ---------------------------------------------------------------------------------------------
# GX507 secure-boot-unsigned


def _mentions_nvidia(line: KernelLine) -> bool:
    return bool(re.search(r"nvidia", line.message, re.I))


@check("GX507", needs=HOSTS)
def secure_boot_unsigned(snap: Snapshot) -> Iterator[Finding]:
    """Seed §3: with Secure Boot on, an unsigned NVIDIA module is refused (``Loading of
    unsigned module is rejected``, ``Key was rejected by service``) and no driver loads.
    A ``module verification failed … tainting kernel`` line is different: the module
    loaded (enforcement off), so it is not reported."""
    from gpuxray.engines.nodefacts import SecureBoot, Signature  # the parsers, lazily

    gaps: list[tuple[str, str]] = []
    for nf in _gpu_facts(snap):
        klog = nf.kernel
        if klog is None:
            gaps.append((nf.name, nf.missing_reason(CMD.DMESG)))
            continue
        sb = nf.secure_boot
        mods = nf.lsmod
        nvidia_loaded = None if mods is None else "nvidia" in mods
        rejected = [k for k in klog.hits(Signature.SIG_REJECTED)
                    if _mentions_nvidia(k) or nvidia_loaded is not True]
        sb_text = sb.value if sb is not None else "not collected"
        sb_ev = ([nf.cmd_ev(CMD.MOKUTIL, None, f"SecureBoot {sb.value}")]
                 if sb is not None else [])
        if rejected:
            yield fail("GX507", _subject(nf),
                       [*sb_ev, *(nf.cmd_ev(CMD.DMESG, k.lineno, k.message)
                                  for k in rejected[:4])],
                       node=nf.name, secure_boot=sb_text, rejections=len(rejected),
                       nvidia_loaded=nvidia_loaded, suspected=False,
                       detail=f"NVIDIA module rejected as unsigned ({len(rejected)} kernel "
                              f"line(s)); Secure Boot {sb_text}")
        elif sb is SecureBoot.ENABLED and nvidia_loaded is False and not klog.nvrm_versions:
            # the refusal may have scrolled out of the ring buffer: no module, SB on
            yield fail("GX507", _subject(nf),
                       [*sb_ev, nf.cmd_ev(CMD.LSMOD, None, "no nvidia module loaded")],
                       severity=Severity.WARNING, node=nf.name, secure_boot=sb_text,
                       rejections=0, nvidia_loaded=False, suspected=True,
                       detail="Secure Boot enabled and no NVIDIA module loaded; the kernel log "
                              "holds no load or refusal (signing suspected)")
    yield from _unknown("GX507", f"cmd/{CMD.DMESG}", gaps)


# ---------------------------------------------------------------------------------------------
# GX508 kernel-auto-upgrade

# A kernel package name unattended-upgrades would consider; a blacklist pattern matching it
# protects the kernel.
_KERNEL_PACKAGES = ("linux-image-6.8.0-48-generic", "linux-image-generic",
                    "linux-modules-6.8.0-48-generic", "linux-image-amd64")
_BLACKLIST_KEYS = ("unattended-upgrade::package-blacklist", "unattended-upgrade::package-blocklist")
_DEBIAN_LIKE = re.compile(r"\b(debian|ubuntu)\b", re.I)


def _protects_kernel(pattern: str) -> bool:
    """unattended-upgrades matches blacklist entries as regular expressions from the start
    of the package name (and plain prefixes such as ``linux-`` match that way too)."""
    for pkg in _KERNEL_PACKAGES:
        try:
            if re.match(pattern, pkg):
                return True
        except re.error:
            if pkg.startswith(pattern):
                return True
    return False


@check("GX508", needs=HOSTS)
def kernel_auto_upgrade(snap: Snapshot) -> Iterator[Finding]:
    """Seed §3: the operator's docs advise turning off unattended kernel upgrades; a new
    kernel under a driver container has no matching module until the driver is rebuilt (or
    a precompiled ``<branch>-<kernel>-<os>`` tag exists)."""
    mode = driver_mode(snap)
    gaps: list[tuple[str, str]] = []
    for nf in _gpu_facts(snap):
        apt = nf.apt
        if apt is None:
            osr = nf.os_release
            if osr is not None and not _DEBIAN_LIKE.search(
                    f"{osr.get('ID', '')} {osr.get('ID_LIKE', '')}"):
                continue  # not an apt system: unattended-upgrades does not apply
            gaps.append((nf.name, "not collected"))
            continue
        periodic = apt.get("APT::Periodic::Unattended-Upgrade")
        if periodic is not None and periodic.strip() in ("0", "", "false"):
            continue
        enabled = periodic is not None
        blacklist = [p for k in _BLACKLIST_KEYS for p in apt.items(k)]
        protecting = [p for p in blacklist if _protects_kernel(p)]
        if protecting:
            continue
        origins = apt.items("Unattended-Upgrade::Allowed-Origins") + apt.items(
            "Unattended-Upgrade::Origins-Pattern")
        if not origins and apt.where.get("unattended-upgrade::allowed-origins") is not None:
            continue  # an explicitly empty origin list upgrades nothing
        ev: list[Evidence] = []
        for key in ("apt::periodic::unattended-upgrade", *_BLACKLIST_KEYS,
                    "unattended-upgrade::allowed-origins"):
            w = apt.where.get(key)
            if w:
                items = ", ".join(apt.items(key)) or "(empty)"
                ev.append(nf.file_ev(w[0], w[1], f"{key}: {items}"))
        if not ev:
            ev.append(Evidence(nf.file_src(nf.apt_files[0]), "unattended-upgrades configured"))
        sev = (Severity.WARNING if enabled and mode != DriverMode.HOST else Severity.INFO)
        detail = ("unattended-upgrades " + ("enabled" if enabled else "installed (enablement "
                  "not collected)") + " and kernel packages not blacklisted"
                  + (f" ({mode})" if mode != DriverMode.UNKNOWN else ""))
        yield fail("GX508", _subject(nf), ev, severity=sev, node=nf.name, enabled=enabled,
                   blacklist=blacklist, origins=origins, driver_mode=mode, detail=detail)
    yield from _unknown("GX508", "files/etc/apt/apt.conf.d/50unattended-upgrades", gaps)


# ---------------------------------------------------------------------------------------------
# GX405 fabric-manager-missing

# 8-GPU HGX boards route NVLink through NVSwitches; 4-GPU boards do not.
_HGX_PRODUCT = re.compile(r"SXM|HBM3|H200|B200|GB200", re.I)
_FM_BAD_ACTIVE = frozenset({"inactive", "failed", "deactivating"})
# cause code -> words for the message ("missing" vs "stopped" vs "version-mismatched")
_FM_CAUSE_WORDS = {
    "missing": "not installed (no nvidia-fabricmanager unit)",
    "stopped": "installed but not running",
    "version-mismatch": "at a different version than the driver",
    "fabric-not-initialized": "has not initialised the NVLink fabric",
    "fabric-errors": "fabric errors in the kernel log",
}


def _nvswitch_evidence(nf: NodeFacts) -> tuple[bool | None, list[Evidence]]:
    """Is this an NVSwitch system? None when neither lspci nor nvidia-smi -q was collected."""
    ev: list[Evidence] = []
    switches = [d for d in (nf.lspci or []) if d.is_nvswitch]
    for d in switches[:2]:
        ev.append(nf.cmd_ev(CMD.LSPCI, d.lineno, f"{d.slot} {d.class_name} [{d.class_code}]: "
                                                 f"{d.description} [{d.vendor}:{d.device}]"))
    smi = nf.smi
    fabric = [g for g in (smi.gpus if smi else []) if g.has_fabric]
    for g in fabric[:1]:
        ev.append(nf.cmd_ev(CMD.NVIDIA_SMI_Q, None, f"{g.pci_bus_id} fabric state "
                                                    f"{g.fabric_state}, status {g.fabric_status}"))
    if switches or fabric:
        return True, ev
    if smi is not None and len(smi.gpus) >= 8 and all(
            _HGX_PRODUCT.search(g.product_name) for g in smi.gpus):
        ev.append(nf.cmd_ev(CMD.NVIDIA_SMI_Q, None,
                            f"{len(smi.gpus)} x {smi.gpus[0].product_name} (HGX 8-GPU board)"))
        return True, ev
    if nf.lspci is None and smi is None:
        return None, ev
    return False, ev


@check("GX405", needs=HOSTS)
def fabric_manager_missing(snap: Snapshot) -> Iterator[Finding]:
    """Seed §1: on NVSwitch systems (HGX) GPUs cannot form the NVLink fabric without Fabric
    Manager, and CUDA fails with ``system not yet initialized``. The operator's driver
    container installs it there; with a host driver it must be installed by hand, at the
    driver's exact version."""
    from gpuxray.engines.nodefacts import Signature  # the kernel log's parser, lazily

    mode = driver_mode(snap)
    gaps: list[tuple[str, str]] = []
    state_gaps: list[tuple[str, str]] = []
    for nf in _gpu_facts(snap):
        is_sw, sw_ev = _nvswitch_evidence(nf)
        if is_sw is None:
            gaps.append((nf.name, nf.missing_reason(CMD.LSPCI)))
            continue
        if not is_sw:
            continue
        causes: list[str] = []
        ev = list(sw_ev)
        show = nf.fabricmanager_show
        fabric = [g for g in (nf.smi.gpus if nf.smi else []) if g.has_fabric]
        fabric_ready = bool(fabric) and all(g.fabric_ready for g in fabric)
        if fabric and not fabric_ready:
            causes.append("fabric-not-initialized")
        load = active = sub = ""
        if show is not None:
            load, active, sub = (show.get("LoadState", ""), show.get("ActiveState", ""),
                                 show.get("SubState", ""))
            ev.append(nf.cmd_ev(CMD.SYSTEMCTL_FM, None,
                                f"LoadState={load} ActiveState={active} SubState={sub}"))
            if load == "not-found":
                # in driver-container mode FM runs inside the driver container, not as a unit
                if not (mode == DriverMode.CONTAINER or fabric_ready):
                    causes.append("missing")
            elif active in _FM_BAD_ACTIVE:
                causes.append("stopped")
        elif not fabric:
            state_gaps.append((nf.name, nf.missing_reason(CMD.SYSTEMCTL_FM)))
            continue
        fm_v = nf.fabricmanager_version
        drv = nf.driver_version
        if fm_v and drv and fm_v != drv[0]:
            causes.append("version-mismatch")
            ev.extend([nf.cmd_ev(CMD.FM_VERSION, None, f"Fabric Manager {fm_v}"), drv[1]])
        log_hits = nf.kernel.hits(Signature.FABRIC) if nf.kernel else []
        not_init = [k for k in log_hits if re.search(r"not yet initialized|fail|error", k.message,
                                                     re.I)]
        if causes:
            ev.extend(nf.cmd_ev(CMD.DMESG, k.lineno, k.message) for k in not_init[:3])
        elif not_init and not fabric_ready:
            causes.append("fabric-errors")
            ev.extend(nf.cmd_ev(CMD.DMESG, k.lineno, k.message) for k in not_init[:3])
        if not causes:
            continue
        detail = (f"unit {load or 'state not collected'}"
                  + (f"/{active}" if active else "")
                  + f", Fabric Manager {fm_v or 'version unknown'}"
                  + f", driver {drv[0] if drv else 'unknown'}")
        yield fail("GX405", _subject(nf), ev, node=nf.name, causes=causes, detail=detail,
                   cause="; ".join(_FM_CAUSE_WORDS[c] for c in causes), load_state=load,
                   active_state=active,
                   sub_state=sub, fm_version=fm_v, driver_version=drv[0] if drv else None,
                   fabric_states=sorted({f"{g.fabric_state}/{g.fabric_status}" for g in fabric}),
                   driver_mode=mode)
    yield from _unknown("GX405", f"cmd/{CMD.LSPCI}", gaps)
    yield from _unknown("GX405", f"cmd/{CMD.SYSTEMCTL_FM}", state_gaps)


def node_layer_codes() -> Iterable[str]:
    """Codes this module registers (the ``gpuxray node`` command runs these and GX5xx)."""
    return ("GX405", "GX503", "GX504", "GX505", "GX506", "GX507", "GX508")
