"""Host-output parsers on real-format samples, and on junk, binary and empty input."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuxray.sources.parsers.apt import parse_apt_conf
from gpuxray.sources.parsers.dmesg import Signature, parse_kernel_log
from gpuxray.sources.parsers.journal import UnitEventKind, parse_journal, unit_events
from gpuxray.sources.parsers.lsmod import parse_lsmod
from gpuxray.sources.parsers.lspci import parse_lspci
from gpuxray.sources.parsers.mokutil import SecureBoot, parse_sb_state
from gpuxray.sources.parsers.nvidia_smi import NvidiaSmiParseError, parse_nvidia_smi_xml
from gpuxray.sources.parsers.stat import parse_stat
from gpuxray.sources.parsers.systemctl import (
    parse_systemctl_show,
    parse_timestamp,
    parse_usec,
    unit_directives,
)
from gpuxray.sources.parsers.versions import (
    parse_containerd_version,
    parse_driver_version,
    parse_fabricmanager_version,
    parse_os_release,
    parse_uname,
)
from node_fixtures import data

JUNK = ["", "\x00\x01\x02\xff\xfe", "garbage line without structure\n\n=\n[[[", "é" * 500,
        "\n".join(["x=y=z", "[ 12.3] ", "-- Boot --", "   "])]
TEXT_PARSERS = [parse_systemctl_show, parse_journal, parse_kernel_log, parse_lsmod,
                parse_lspci, parse_stat, parse_sb_state, parse_containerd_version,
                parse_driver_version, parse_uname, parse_os_release, unit_directives,
                parse_fabricmanager_version]


@pytest.mark.parametrize("parser", TEXT_PARSERS, ids=lambda p: p.__name__)
@pytest.mark.parametrize("text", JUNK)
def test_junk_never_raises(parser: object, text: str) -> None:
    parser(text)  # type: ignore[operator]


@settings(max_examples=60, deadline=None)
@given(st.text())
def test_text_parsers_total(text: str) -> None:
    for p in TEXT_PARSERS:
        p(text)  # type: ignore[operator]
    parse_apt_conf([("f", text)])


def test_systemctl_show() -> None:
    d = parse_systemctl_show(data("systemctl-show-containerd.txt"))
    assert d["Restart"] == "always" and d["NRestarts"] == "2" and d["ExecMainPID"] == "5678"
    assert parse_usec(d["RestartUSec"]) == 5_000_000
    assert parse_usec("100ms") == 100_000 and parse_usec("1min 30s") == 90_000_000
    assert parse_usec("infinity") is None and parse_usec("5 parsecs") is None
    assert parse_timestamp(d["ActiveEnterTimestamp"]) == datetime(2026, 11, 23, 8, 1, 8,
                                                                  tzinfo=UTC)
    assert parse_timestamp("Mon 2026-11-23 17:01:08 +0900") == datetime(
        2026, 11, 23, 17, 1, 8, tzinfo=timezone(timedelta(hours=9)))
    assert parse_timestamp("n/a") is None and parse_timestamp("") is None


def test_unit_directives_continuation_and_reset() -> None:
    d = unit_directives(data("containerd.service") + "[Service]\nRestart=\n")
    restarts = [(v, ln) for s, k, v, ln in d if k == "Restart" and s == "Service"]
    assert restarts[0] == ("always", 14) and restarts[-1][0] == ""
    cont = unit_directives("[Service]\nExecStart=/usr/bin/containerd \\\n  --log-level debug\n")
    assert cont == [("Service", "ExecStart", "/usr/bin/containerd --log-level debug", 2)]


def test_journal_lines_and_events() -> None:
    lines = parse_journal(data("journal-containerd.txt"))
    assert len(lines) == 20 and lines[0].lineno == 2 and lines[0].ident == "systemd"
    assert lines[1].ident == "containerd" and lines[1].pid == 812
    kinds = [e.kind for e in unit_events(lines)]
    assert kinds.count(UnitEventKind.STARTED) == 3
    assert kinds.count(UnitEventKind.EXITED) == 2
    assert kinds.count(UnitEventKind.SIGNAL_SENT) == 1
    assert kinds.count(UnitEventKind.DAEMON_START) == 3
    sched = [e.fields["counter"] for e in unit_events(lines)
             if e.kind is UnitEventKind.SCHEDULED_RESTART]
    assert sched == ["1", "2"]


def test_journal_boots() -> None:
    lines = parse_journal(data("journal-containerd-reboot.txt") + "-- No entries --\n")
    assert [ln.boot for ln in lines] == [0, 0, 0, 0, 0, 1, 1]


def test_kernel_log_dmesg_t() -> None:
    k = parse_kernel_log(data("dmesg-T.txt"))
    assert [(x.xid, x.pci, x.pid, x.name) for x in k.xids] == [
        (79, "0000:3b:00", "<unknown>", "<unknown>"), (31, "0000:86:00", "40213", "python3"),
        (31, "0000:86:00", "40999", "python3"), (79, "0000:3b:00", "<unknown>", "<unknown>")]
    assert k.xids[0].line.ts == datetime(2026, 11, 23, 8, 1, 2, tzinfo=UTC)
    assert k.nvrm_versions == ["580.95.05"]


def test_kernel_log_raw_and_signatures() -> None:
    k = parse_kernel_log(data("dmesg-raw.txt"))
    assert len(k.hits(Signature.NOUVEAU)) == 3
    assert len(k.hits(Signature.SIG_REJECTED)) == 2
    assert k.hits(Signature.SIG_TAINT) == [] and k.xids == []
    assert k.lines[2].ts_text == "4.812345" and k.lines[2].ts is None


def test_kernel_log_journal_format() -> None:
    k = parse_kernel_log(data("journal-kernel.txt"))
    assert [x.xid for x in k.xids] == [48, 63] and k.xids[0].name == "trainer"
    assert len(k.hits(Signature.SIG_TAINT)) == 1 and k.hits(Signature.SIG_REJECTED) == []
    assert len(k.hits(Signature.API_MISMATCH)) == 1
    assert len(k.hits(Signature.FABRIC)) == 1
    assert k.nvrm_versions == ["580.95.05"]
    assert k.xids[0].line.ts == datetime(2026, 11, 23, 11, 0, 0, tzinfo=UTC)


def test_lsmod() -> None:
    m = parse_lsmod(data("lsmod.txt"))
    assert "Module" not in m and m["nvidia"].used == 19
    assert m["nvidia"].used_by == ("nvidia_uvm", "nvidia_modeset") and m["nvidia"].lineno == 5
    assert "nouveau" in parse_lsmod(data("lsmod-nouveau.txt"))


@pytest.mark.parametrize(("text", "state"), [
    ("SecureBoot enabled\n", SecureBoot.ENABLED),
    ("SecureBoot disabled\n", SecureBoot.DISABLED),
    ("SecureBoot enabled\nSecureBoot validation is disabled in shim\n", SecureBoot.DISABLED),
    ("EFI variables are not supported on this system\n", SecureBoot.NOT_EFI),
    ("something else\n", SecureBoot.UNKNOWN),
])
def test_mokutil(text: str, state: SecureBoot) -> None:
    assert parse_sb_state(text) is state


def test_lspci() -> None:
    devs = parse_lspci(data("lspci-hgx.txt"))
    assert sum(d.is_gpu for d in devs) == 8 and sum(d.is_nvswitch for d in devs) == 4
    g = devs[0]
    assert (g.slot, g.class_code, g.device, g.rev) == ("18:00.0", "0302", "2330", "a1")
    pcie = parse_lspci(data("lspci-pcie.txt"))
    assert not any(d.is_nvswitch for d in pcie) and len(pcie) == 2


def test_stat_names_with_spaces() -> None:
    st_ = parse_stat(data("stat-containerd-config.txt"))
    assert [(s.path, s.mtime) for s in st_][-1] == ("/etc/containerd/conf.d/my registry.toml",
                                                     1763884900)


def test_versions() -> None:
    docker = parse_containerd_version(
        "containerd containerd.io 1.7.27 05044ec0a9a75232cad458027ca83437aae3f4da\n")
    assert docker is not None and docker.tuple == (1, 7, 27) and docker.package == "containerd.io"
    debian = parse_containerd_version(
        "containerd github.com/containerd/containerd 1.6.20~ds1 1.6.20~ds1-1+b1\n")
    assert debian is not None and debian.tuple == (1, 6, 20)
    up2 = parse_containerd_version("containerd github.com/containerd/containerd/v2 v2.0.0 207ad7")
    assert up2 is not None and up2.version == "2.0.0"
    assert parse_driver_version(data("proc-driver-nvidia-version")) == "580.95.05"
    assert parse_driver_version(
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
        "(dvs-builder@U22)  Tue Sep 30 09:58:07 UTC 2025") == "580.95.05"
    assert parse_fabricmanager_version("Fabric Manager version is : 580.95.05\n") == "580.95.05"
    u = parse_uname("Linux gpu-1 5.15.0-126-generic #136-Ubuntu SMP Wed Nov 6 10:38:22 UTC 2024 "
                    "x86_64 x86_64 x86_64 GNU/Linux")
    assert u is not None and (u.hostname, u.release, u.machine) == (
        "gpu-1", "5.15.0-126-generic", "x86_64")
    osr = parse_os_release(data("os-release"))
    assert osr["ID"] == "ubuntu" and osr["PRETTY_NAME"] == "Ubuntu 22.04.5 LTS"


def test_apt_conf() -> None:
    cfg = parse_apt_conf([("20auto-upgrades", data("20auto-upgrades")),
                          ("50unattended-upgrades", data("50unattended-upgrades"))])
    assert cfg.get("APT::Periodic::Unattended-Upgrade") == "1"
    assert cfg.items("Unattended-Upgrade::Package-Blacklist") == []  # all commented out
    assert len(cfg.items("Unattended-Upgrade::Allowed-Origins")) == 4
    assert cfg.where["apt::periodic::unattended-upgrade"] == ("20auto-upgrades", 2)
    nested = parse_apt_conf([("a", 'APT { Periodic { Unattended-Upgrade "0"; }; };\n'
                                   'Unattended-Upgrade::Package-Blacklist:: "linux-";\n'
                                   '/* "x"; */ // c\n')])
    assert nested.get("apt::periodic::unattended-upgrade") == "0"
    assert nested.items("unattended-upgrade::package-blacklist") == ["linux-"]


def test_nvidia_smi_xml() -> None:
    r = parse_nvidia_smi_xml(data("nvidia-smi-q.xml"))
    assert (r.driver_version, r.cuda_version, r.attached_gpus) == ("580.95.05", "13.0", 2)
    g0, g1 = r.gpus
    assert g0.pci_bus_id == "00000000:3b:00.0" and g0.uuid.startswith("GPU-5a3c")
    assert (g0.mig_current, g0.mig_pending) == ("Enabled", "Disabled")
    assert (g0.fb_total_mib, g0.fb_used_mib, g0.gpu_util_pct) == (81920, 14029, 0)
    assert (g0.remapped_unc, g0.remap_pending) == (2, "Yes") and g0.retired_dbe is None
    assert not g0.has_fabric and g1.gpu_util_pct == 37


@pytest.mark.parametrize("text", [
    "", "not xml", "<other/>", "\x00\x01", "<nvidia_smi_log><gpu>",
    '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
    "<nvidia_smi_log>&b;</nvidia_smi_log>",
])
def test_nvidia_smi_bad_input_raises_parse_error(text: str) -> None:
    with pytest.raises(NvidiaSmiParseError):
        parse_nvidia_smi_xml(text)
