"""Node checks GX503–GX508 and GX405 over scenario bundles: each fires on its scenario with
the right subject and numbers, and stays silent on a healthy node."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuxray.checks.engine import run_all
from gpuxray.model.finding import Finding, Severity, Status
from node_fixtures import (
    FM_NOT_FOUND,
    Host,
    bundle,
    data,
    healthy_host,
    hgx_host,
    smi_xml,
)

MINE = ("GX405", "GX503", "GX504", "GX505", "GX506", "GX507", "GX508")


def run(tmp: Path, hosts: dict[str, Host], **kw: object) -> list[Finding]:
    snap = bundle(tmp, hosts, **kw)  # type: ignore[arg-type]
    return run_all(snap, MINE)


def of(findings: list[Finding], code: str, status: Status = Status.FAIL) -> list[Finding]:
    return [f for f in findings if f.code == code and f.status == status]


def test_healthy_node_is_silent(tmp_path: Path) -> None:
    assert run(tmp_path, {"gpu-1": healthy_host()}) == []


def test_healthy_hgx_is_silent(tmp_path: Path) -> None:
    assert run(tmp_path, {"gpu-1": hgx_host()}) == []


# ----- GX503 ---------------------------------------------------------------------------------

def test_gx503_from_systemctl_show(tmp_path: Path) -> None:
    h = healthy_host()
    h.cmds["systemctl-show-containerd.txt"] = "Restart=on-failure\nRestartUSec=100ms\nNRestarts=0\n"
    [f] = of(run(tmp_path, {"gpu-1": h}), "GX503")
    assert f.subject.name == "gpu-1" and f.subject.kind == "Node"
    assert f.params["restart"] == "on-failure"
    assert f.params["restarts_after_sighup"] is False
    assert f.severity == Severity.WARNING
    assert f.evidence[0].source == "nodes/gpu-1/cmd/systemctl-show-containerd.txt"


def test_gx503_dropin_overrides_unit_file(tmp_path: Path) -> None:
    h = healthy_host().drop("systemctl-show-containerd.txt")
    h.files["etc/systemd/system/containerd.service.d/10-restart.conf"] = "[Service]\nRestart=no\n"
    [f] = of(run(tmp_path, {"gpu-1": h}), "GX503")
    assert f.params["restart"] == "no"
    assert f.evidence[0].source.endswith("containerd.service.d/10-restart.conf")
    assert "line 2" in f.evidence[0].detail


def test_gx503_later_dropin_restores_always(tmp_path: Path) -> None:
    h = healthy_host().drop("systemctl-show-containerd.txt")
    h.files["etc/systemd/system/containerd.service.d/10-a.conf"] = "[Service]\nRestart=no\n"
    h.files["etc/systemd/system/containerd.service.d/20-b.conf"] = "[Service]\nRestart=always\n"
    assert of(run(tmp_path, {"gpu-1": h}), "GX503") == []


def test_gx503_unit_not_loaded_is_unknown_not_restart_no(tmp_path: Path) -> None:
    h = healthy_host().drop("lib/systemd/system/containerd.service")
    # what systemctl prints for a unit it does not know (k3s runs containerd itself)
    h.cmds["systemctl-show-containerd.txt"] = (
        "Restart=no\nRestartUSec=100ms\nNRestarts=0\nExecMainStartTimestamp=\n"
        "ExecMainPID=0\nActiveEnterTimestamp=\n")
    fs = run(tmp_path, {"gpu-1": h})
    assert of(fs, "GX503") == []
    [u] = of(fs, "GX503", Status.UNKNOWN)
    assert u.params["nodes"] == ["gpu-1"]


def test_gx503_unknown_lists_nodes_once(tmp_path: Path) -> None:
    hosts = {n: healthy_host().drop("systemctl-show-containerd.txt",
                                    "lib/systemd/system/containerd.service")
             for n in ("gpu-1", "gpu-2")}
    [u] = of(run(tmp_path, hosts), "GX503", Status.UNKNOWN)
    assert u.params["nodes"] == ["gpu-1", "gpu-2"]
    assert u.params["file"] == "cmd/systemctl-show-containerd.txt"


def test_gx503_unknown_on_many_nodes_counts_them(tmp_path: Path) -> None:
    hosts = {f"gpu-{i}": healthy_host().drop("systemctl-show-containerd.txt",
                                             "lib/systemd/system/containerd.service")
             for i in range(40)}
    [u] = of(run(tmp_path, hosts), "GX503", Status.UNKNOWN)
    assert (len(u.params["nodes"]), u.params["node_count"]) == (40, 40)
    assert len(u.message) < 200  # the nodes are listed in params, not in the message


# ----- GX504 ---------------------------------------------------------------------------------

def test_gx504_restart_timeline(tmp_path: Path) -> None:
    h = healthy_host()
    h.cmds["journal-containerd.txt"] = data("journal-containerd.txt")
    h.cmds["systemctl-show-containerd.txt"] = data("systemctl-show-containerd.txt")
    [f] = of(run(tmp_path, {"gpu-1": h}), "GX504")
    p = f.params
    assert (p["count"], p["sighup"], p["not_restarted"], p["n_restarts"]) == (2, 2, 0, 2)
    assert p["first"] == "2026-11-23T08:01:02+0000" and p["last"] == "2026-11-23T08:03:40+0000"
    t0, t1 = p["timeline"]
    assert t0["sender"] == "another process (not systemd)" and t0["restart_counter"] == 1
    assert t0["down_seconds"] == 6.0
    assert t1["sender"].startswith("client request") and t1["restart_counter"] == 2
    assert all(e.source == "nodes/gpu-1/cmd/journal-containerd.txt" for e in f.evidence[:-1])


def test_gx504_reboot_is_not_a_restart(tmp_path: Path) -> None:
    h = healthy_host()
    h.cmds["journal-containerd.txt"] = data("journal-containerd-reboot.txt")
    assert of(run(tmp_path, {"gpu-2": h}), "GX504") == []


def test_gx504_left_down_is_error(tmp_path: Path) -> None:
    h = healthy_host()
    lines = data("journal-containerd.txt").splitlines()[:7]  # exits, never restarted
    h.cmds["journal-containerd.txt"] = "\n".join(lines) + "\n"
    [f] = of(run(tmp_path, {"gpu-1": h}), "GX504")
    assert f.params["not_restarted"] == 1 and f.params["count"] == 0
    assert f.severity == Severity.ERROR


# ----- GX505 ---------------------------------------------------------------------------------

def test_gx505_one_finding_per_xid_code(tmp_path: Path) -> None:
    h = healthy_host()
    h.cmds["dmesg.txt"] = data("dmesg-T.txt")
    fs = of(run(tmp_path, {"gpu-1": h}), "GX505")
    by = {f.params["xid"]: f for f in fs}
    assert sorted(by) == [31, 79]
    x79, x31 = by[79], by[31]
    assert x79.params["count"] == 2 and x79.params["critical"] is True
    assert x79.severity == Severity.ERROR
    assert x79.params["pci"] == ["0000:3b:00"]
    assert x79.params["first"] == "Mon Nov 23 08:01:02 2026"
    assert x79.params["last"] == "Mon Nov 23 10:00:00 2026"
    # tied to nvidia-smi's GPU by PCI address
    assert "GPU-5a3c4f1e-2b7d-4c8e-9f10-112233445566" in x79.params["gpus"][0]
    assert x31.params["critical"] is False and x31.severity == Severity.WARNING
    assert x31.params["processes"] == ["python3"] and x31.params["count"] == 2
    assert x79.evidence[0].source == "nodes/gpu-1/cmd/dmesg.txt"
    assert x79.evidence[0].detail.startswith("line 6:")


def test_gx505_journal_kernel_format(tmp_path: Path) -> None:
    h = healthy_host()
    h.cmds["dmesg.txt"] = data("journal-kernel.txt")
    fs = of(run(tmp_path, {"gpu-3": h}), "GX505")
    assert sorted(f.params["xid"] for f in fs) == [48, 63]
    assert all(f.severity == Severity.ERROR for f in fs)


def test_gx505_unknown_when_dmesg_failed(tmp_path: Path) -> None:
    h = healthy_host().drop("dmesg.txt")
    h.errs["dmesg.txt"] = "dmesg: read kernel buffer failed: Operation not permitted\nexit status 1"
    [u] = of(run(tmp_path, {"gpu-1": h}), "GX505", Status.UNKNOWN)
    assert u.subject.name == "gpu-1"
    assert "Operation not permitted" in u.params["reason"]


# ----- GX506 ---------------------------------------------------------------------------------

def test_gx506_nouveau_in_lsmod(tmp_path: Path) -> None:
    h = healthy_host()
    h.cmds["lsmod.txt"] = data("lsmod-nouveau.txt")
    [f] = of(run(tmp_path, {"gpu-1": h}), "GX506")
    assert f.params["in_lsmod"] is True and f.params["nvidia_loaded"] is False
    assert f.evidence[0].detail.startswith("line 2:")


def test_gx506_nouveau_in_kernel_log_only(tmp_path: Path) -> None:
    h = healthy_host()
    h.cmds["dmesg.txt"] = data("dmesg-raw.txt")
    [f] = of(run(tmp_path, {"gpu-1": h}), "GX506")
    assert f.params["in_lsmod"] is False and f.params["kernel_lines"] == 3


def test_gx506_not_on_non_gpu_node(tmp_path: Path) -> None:
    h = healthy_host()
    h.cmds["lsmod.txt"] = data("lsmod-nouveau.txt")
    h.cmds["lspci-nvidia.txt"] = ""
    h.drop("nvidia-smi-q.xml")
    assert run(tmp_path, {"cpu-1": h}, cluster_nodes=False) == []


# ----- GX507 ---------------------------------------------------------------------------------

def test_gx507_secure_boot_rejects_module(tmp_path: Path) -> None:
    h = healthy_host()
    h.cmds["mokutil-sb-state.txt"] = "SecureBoot enabled\n"
    h.cmds["dmesg.txt"] = data("dmesg-raw.txt")
    h.cmds["lsmod.txt"] = data("lsmod-nouveau.txt")
    [f] = of(run(tmp_path, {"gpu-1": h}), "GX507")
    assert f.params["secure_boot"] == "enabled" and f.params["rejections"] == 2
    assert f.params["suspected"] is False and f.severity == Severity.ERROR


def test_gx507_generic_rejection_ignored_when_nvidia_loaded(tmp_path: Path) -> None:
    h = healthy_host()
    h.cmds["mokutil-sb-state.txt"] = "SecureBoot enabled\n"
    h.cmds["dmesg.txt"] = data("dmesg-raw.txt")  # lsmod shows nvidia loaded
    assert of(run(tmp_path, {"gpu-1": h}), "GX507") == []


def test_gx507_taint_only_is_not_rejection(tmp_path: Path) -> None:
    h = healthy_host()
    h.cmds["mokutil-sb-state.txt"] = "SecureBoot disabled\n"
    h.cmds["dmesg.txt"] = data("journal-kernel.txt")
    assert of(run(tmp_path, {"gpu-1": h}), "GX507") == []


def test_gx507_suspected_when_no_module_and_sb_on(tmp_path: Path) -> None:
    h = healthy_host()
    h.cmds["mokutil-sb-state.txt"] = "SecureBoot enabled\n"
    h.cmds["lsmod.txt"] = "Module                  Size  Used by\noverlay 151552 12\n"
    h.cmds["dmesg.txt"] = "[    0.000000] Linux version 6.8.0-48-generic\n"
    [f] = of(run(tmp_path, {"gpu-1": h}), "GX507")
    assert f.params["suspected"] is True and f.severity == Severity.WARNING


def test_gx507_mokutil_stderr_not_efi(tmp_path: Path) -> None:
    h = healthy_host().drop("mokutil-sb-state.txt")
    h.errs["mokutil-sb-state.txt"] = "EFI variables are not supported on this system\nexit status 1"
    h.cmds["dmesg.txt"] = data("dmesg-raw.txt")
    h.cmds["lsmod.txt"] = data("lsmod-nouveau.txt")
    [f] = of(run(tmp_path, {"gpu-1": h}), "GX507")
    assert f.params["secure_boot"] == "not-efi"


# ----- GX508 ---------------------------------------------------------------------------------

def test_gx508_enabled_without_kernel_blacklist(tmp_path: Path) -> None:
    h = healthy_host()
    h.files["etc/apt/apt.conf.d/50unattended-upgrades"] = data("50unattended-upgrades")
    cp = {"driver": {"enabled": True}}
    [f] = of(run(tmp_path, {"gpu-1": h}, clusterpolicy=cp), "GX508")
    assert f.params["enabled"] is True and f.params["blacklist"] == []
    assert f.params["driver_mode"] == "driver-container"
    assert f.severity == Severity.WARNING
    assert any(e.source == "nodes/gpu-1/files/etc/apt/apt.conf.d/20auto-upgrades"
               for e in f.evidence)


def test_gx508_host_driver_is_info(tmp_path: Path) -> None:
    h = healthy_host()
    h.files["etc/apt/apt.conf.d/50unattended-upgrades"] = data("50unattended-upgrades")
    [f] = of(run(tmp_path, {"gpu-1": h}, clusterpolicy={"driver": {"enabled": False}}), "GX508")
    assert f.severity == Severity.INFO and f.params["driver_mode"] == "host-driver"


def test_gx508_disabled_periodic_is_silent(tmp_path: Path) -> None:
    h = healthy_host()
    h.files["etc/apt/apt.conf.d/50unattended-upgrades"] = data("50unattended-upgrades")
    h.files["etc/apt/apt.conf.d/20auto-upgrades"] = 'APT::Periodic::Unattended-Upgrade "0";\n'
    assert of(run(tmp_path, {"gpu-1": h}), "GX508") == []


@pytest.mark.parametrize("pattern", ["linux-", "linux-image", "^linux-.*", "linux-image-.*"])
def test_gx508_kernel_blacklist_patterns(tmp_path: Path, pattern: str) -> None:
    h = healthy_host()
    h.files["etc/apt/apt.conf.d/50unattended-upgrades"] = (
        f'Unattended-Upgrade::Package-Blacklist {{ "{pattern}"; }};\n'
        'Unattended-Upgrade::Allowed-Origins { "${distro_id}:${distro_codename}-security"; };\n')
    assert of(run(tmp_path, {"gpu-1": h}), "GX508") == []


def test_gx508_unknown_on_debian_without_apt_files(tmp_path: Path) -> None:
    h = healthy_host().drop("etc/apt/apt.conf.d/50unattended-upgrades",
                            "etc/apt/apt.conf.d/20auto-upgrades")
    [u] = of(run(tmp_path, {"gpu-1": h}), "GX508", Status.UNKNOWN)
    assert u.params["nodes"] == ["gpu-1"]


def test_gx508_not_apt_os_is_silent(tmp_path: Path) -> None:
    h = healthy_host().drop("etc/apt/apt.conf.d/50unattended-upgrades",
                            "etc/apt/apt.conf.d/20auto-upgrades")
    h.files["etc/os-release"] = 'NAME="Rocky Linux"\nID="rocky"\nID_LIKE="rhel centos fedora"\n'
    assert run(tmp_path, {"gpu-1": h}) == []


# ----- GX405 ---------------------------------------------------------------------------------

def test_gx405_missing_fabric_manager(tmp_path: Path) -> None:
    h = hgx_host(fabric=("In Progress", "N/A"), fm=FM_NOT_FOUND, fm_version=None)
    [f] = of(run(tmp_path, {"hgx-1": h}), "GX405")
    assert f.subject.name == "hgx-1"
    assert f.params["causes"] == ["fabric-not-initialized", "missing"]
    assert f.params["load_state"] == "not-found"
    assert any(e.source == "nodes/hgx-1/cmd/lspci-nvidia.txt" for e in f.evidence)


def test_gx405_stopped(tmp_path: Path) -> None:
    h = hgx_host(fm="ActiveState=failed\nSubState=failed\nLoadState=loaded\n")
    [f] = of(run(tmp_path, {"hgx-1": h}), "GX405")
    assert f.params["causes"] == ["stopped"] and f.params["active_state"] == "failed"


def test_gx405_version_mismatch(tmp_path: Path) -> None:
    h = hgx_host(fm_version="570.86.15")
    [f] = of(run(tmp_path, {"hgx-1": h}), "GX405")
    assert f.params["causes"] == ["version-mismatch"]
    assert (f.params["fm_version"], f.params["driver_version"]) == ("570.86.15", "580.95.05")


def test_gx405_driver_container_mode_tolerates_no_host_unit(tmp_path: Path) -> None:
    h = hgx_host(fm=FM_NOT_FOUND, fm_version=None)
    cp = {"driver": {"enabled": True}}
    assert of(run(tmp_path, {"hgx-1": h}, clusterpolicy=cp), "GX405") == []


def test_gx405_pcie_node_is_not_nvswitch(tmp_path: Path) -> None:
    h = healthy_host()
    h.cmds["systemctl-show-fabricmanager.txt"] = FM_NOT_FOUND
    assert of(run(tmp_path, {"gpu-1": h}), "GX405") == []


def test_gx405_hgx_detected_from_product_without_lspci(tmp_path: Path) -> None:
    h = hgx_host(fabric=("N/A", "N/A"), fm=FM_NOT_FOUND, fm_version=None).drop("lspci-nvidia.txt")
    h.cmds["nvidia-smi-q.xml"] = smi_xml(8, "NVIDIA H100 80GB HBM3")
    [f] = of(run(tmp_path, {"hgx-1": h}), "GX405")
    assert f.params["causes"] == ["missing"]


def test_gx405_unknown_without_pci_inputs(tmp_path: Path) -> None:
    h = healthy_host().drop("lspci-nvidia.txt", "nvidia-smi-q.xml")
    [u] = of(run(tmp_path, {"gpu-1": h, "gpu-2": h}), "GX405", Status.UNKNOWN)
    assert u.params["nodes"] == ["gpu-1", "gpu-2"] and u.subject.kind == "Cluster"


def test_malformed_smi_xml_is_not_a_crash(tmp_path: Path) -> None:
    h = hgx_host(fm=FM_NOT_FOUND, fm_version=None)
    h.cmds["nvidia-smi-q.xml"] = "<nvidia_smi_log><gpu id='x'>\x00\x01 broken"
    # lspci still shows NVSwitches; no fabric state to trust -> FM missing is reported
    [f] = of(run(tmp_path, {"hgx-1": h}), "GX405")
    assert f.params["causes"] == ["missing"]
