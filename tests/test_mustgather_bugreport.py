"""nvidia-bug-report.log.gz sections → the bundle's host files and commands; hostile gz input."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import pytest

from gpuxray.sources.parsers import bugreport
from gpuxray.sources.parsers.bugreport import (
    BugReportError,
    modules_to_lsmod,
    parse_bug_report,
    read_bug_report,
    status_to_show,
)
from gpuxray.sources.parsers.dmesg import parse_kernel_log
from gpuxray.sources.parsers.lsmod import parse_lsmod
from gpuxray.sources.parsers.systemctl import parse_systemctl_show

SEP = "____________________________________________"

DATA = Path(__file__).parent / "data" / "mustgather"
REPORT = (DATA / "nvidia-bug-report-sample.log").read_text()


def test_sections_become_bundle_files_and_commands() -> None:
    rep = parse_bug_report(REPORT)
    assert rep.files["proc/driver/nvidia/version"].startswith(
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05")
    assert rep.files["etc/issue"] == "Ubuntu 24.04.1 LTS \\n \\l\n"
    assert "etc/redhat-release" not in rep.files
    assert rep.cmds["uname.txt"].startswith("Linux gpu-7 6.8.0-1019-aws")
    assert rep.cmds["lspci-nvidia.txt"].splitlines() == [
        "3b:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] "
        "[10de:2330] (rev a1)",
        "c4:00.0 Bridge [0680]: NVIDIA Corporation Device [10de:22a3] (rev a1)"]
    q = rep.cmds["nvidia-smi-q.txt"]
    assert "Attached GPUs" in q and "HIC Info" not in q  # the --unit run is not mixed in
    assert "nvidia-smi.txt" not in rep.cmds  # no plain table in this report


def test_kernel_lines_from_the_journal_scan_when_no_dmesg_section() -> None:
    rep = parse_bug_report(REPORT)
    lines = rep.cmds["dmesg.txt"].splitlines()
    assert lines[0].startswith("2026-11-29T11:02:03+0000 gpu-7 kernel: NVRM: Xid")
    log = parse_kernel_log(rep.cmds["dmesg.txt"])
    assert [(x.xid, x.pci) for x in log.xids] == [(79, "0000:3b:00")]


def test_dmesg_section_wins() -> None:
    text = REPORT.replace("End of NVIDIA", f"dmesg:\n\n[  12.5] NVRM: loading NVIDIA UNIX\n{SEP}\n"
                                           "\nEnd of NVIDIA")
    rep = parse_bug_report(text)
    assert rep.cmds["dmesg.txt"] == "[  12.5] NVRM: loading NVIDIA UNIX\n"


def test_proc_modules_to_lsmod() -> None:
    mods = parse_lsmod(parse_bug_report(REPORT).cmds["lsmod.txt"])
    assert set(mods) == {"nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia"}
    assert mods["nvidia"].used == 2
    assert mods["nvidia"].used_by == ("nvidia_uvm", "nvidia_modeset")
    assert modules_to_lsmod("junk\n\n") == "Module                  Size  Used by\n"


@pytest.mark.parametrize(("status", "expected"), [
    ("× nvidia-fabricmanager.service - NVIDIA fabric manager service\n"
     "     Loaded: loaded (/lib/systemd/system/nvidia-fabricmanager.service; enabled)\n"
     "     Active: failed (Result: exit-code) since Sun 2026-11-29 10:01:00 UTC; 2h ago\n",
     {"LoadState": "loaded", "ActiveState": "failed", "SubState": "Result"}),
    ("● nvidia-fabricmanager.service - NVIDIA fabric manager service\n"
     "     Loaded: loaded (/lib/systemd/system/nvidia-fabricmanager.service; enabled)\n"
     "     Active: active (running) since Sun 2026-11-29 10:01:00 UTC; 2h ago\n",
     {"LoadState": "loaded", "ActiveState": "active", "SubState": "running"}),
    ("Unit nvidia-fabricmanager.service could not be found.\n",
     {"LoadState": "not-found", "ActiveState": "inactive", "SubState": "dead"}),
])
def test_fabric_manager_status(status: str, expected: dict[str, str]) -> None:
    show = parse_systemctl_show(status_to_show(status))
    for k in ("LoadState", "ActiveState"):
        assert show[k] == expected[k]
    if expected["SubState"] != "Result":
        assert show["SubState"] == expected["SubState"]
    assert status_to_show("nothing useful\n") == ""


def test_fm_status_in_report() -> None:
    show = parse_systemctl_show(parse_bug_report(REPORT).cmds["systemctl-show-fabricmanager.txt"])
    assert (show["LoadState"], show["ActiveState"]) == ("loaded", "failed")


# ----- reading the .gz --------------------------------------------------------------------
def _members(text: str) -> bytes:
    return b"".join(gzip.compress(part.encode(), mtime=0) for part in text.split(SEP))


def test_multi_member_gzip(tmp_path: Path) -> None:
    f = tmp_path / "nvidia-bug-report.log.gz"
    f.write_bytes(_members(REPORT))
    text, notes = read_bug_report(f)
    assert notes == []
    assert text.replace(SEP, "") == REPORT.replace(SEP, "")


def test_truncated_gzip_keeps_what_was_read(tmp_path: Path) -> None:
    data = gzip.compress(REPORT.encode() * 50, mtime=0)
    f = tmp_path / "r.log.gz"
    f.write_bytes(data[: len(data) // 2])
    text, notes = read_bug_report(f)
    assert "truncated gzip stream" in notes
    assert text.startswith(SEP) and len(text) < len(REPORT) * 50


def test_gzip_bomb_is_capped(tmp_path: Path) -> None:
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    f = tmp_path / "bomb.log.gz"
    with open(f, "wb") as fh:
        fh.write(comp.compress(b"dmesg:\n\n"))
        chunk = b"A" * (1 << 20)
        for _ in range(16):  # 16 MiB decompressed, ~16 KiB on disk
            fh.write(comp.compress(chunk))
        fh.write(comp.flush())
    assert f.stat().st_size < 1 << 20
    text, notes = read_bug_report(f, cap=4 << 20)
    assert len(text) == 4 << 20
    assert any("cut there" in n for n in notes)


def test_junk_and_empty(tmp_path: Path) -> None:
    junk = tmp_path / "junk.log.gz"
    junk.write_bytes(b"\x00\x01\x02binary" * 100)
    with pytest.raises(BugReportError):
        read_bug_report(junk)
    bad = tmp_path / "bad.log.gz"
    bad.write_bytes(b"\x1f\x8b" + b"\xff" * 64)
    with pytest.raises(BugReportError):
        read_bug_report(bad)
    empty = tmp_path / "empty.log.gz"
    empty.write_bytes(gzip.compress(b""))
    with pytest.raises(BugReportError):
        read_bug_report(empty)
    plain = tmp_path / "plain.log"
    plain.write_text(REPORT)
    assert read_bug_report(plain)[0] == REPORT
    assert parse_bug_report("\x00garbage\n" * 10).cmds == {}
    assert bugreport.MAX_DECOMPRESSED >= 64 << 20
