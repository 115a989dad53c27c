"""A paste read as evidence: cut into parts, parsed with the bundle's parsers into a partial
Snapshot, and checked by the same checks a bundle gets (GX203 arithmetic from a describe node,
GX301 from a real ``containerd config dump``, GX505 from dmesg); look-alikes apart only by
their deciding lines."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gpuxray.diagnose.triage import triage
from gpuxray.sources.parsers import paste

REPO = Path(__file__).resolve().parents[1]
DESCRIBE = (REPO / "tests/data/mustgather/describe_node_cordoned.txt").read_text()


def _flat(text: str) -> str:
    return "\n".join(line.strip() for line in text.splitlines()) + "\n"


@pytest.mark.parametrize("shape", ["kept", "flat", "prompt-and-fence", "indented", "quoted"])
def test_describe_node_capacity_above_allocatable_is_gx203_with_the_count(shape: str) -> None:
    text = {"kept": DESCRIBE, "flat": _flat(DESCRIBE),
            # a markdown code block by indentation, and a reply quoting the paste
            "indented": "".join("    " + ln for ln in DESCRIBE.splitlines(keepends=True)),
            "quoted": "".join("> " + ln for ln in DESCRIBE.splitlines(keepends=True)),
            "prompt-and-fence": "user@host:~$ kubectl describe node gpu-node-7\n```\n"
                                + DESCRIBE + "```\n"}[shape]
    r = triage([("paste", text)])
    assert r.causes[0].cause.code == "GX203" and r.decided
    gx203 = [f for f in r.findings if f.code == "GX203" and "lost" in f.params]
    assert gx203 and gx203[0].params["lost"] == 1  # capacity 8, allocatable 7
    assert gx203[0].params["nodes"] == "gpu-node-7"


def test_capacity_excerpt_without_name_still_counts() -> None:
    text = ("Capacity:\n  cpu:  8\n  nvidia.com/gpu:  8\nAllocatable:\n  cpu:  8\n"
            "  nvidia.com/gpu:  5\n")
    r = triage([("paste", text)])
    assert r.causes[0].cause.code == "GX203"
    lost = [f.params["lost"] for f in r.findings if f.code == "GX203" and "lost" in f.params]
    assert lost == [3]


def test_two_capacity_excerpts_are_two_readings_not_one() -> None:
    """The same node pasted before and after a GPU went unhealthy: the second pair's loss counts
    (it used to be read as one node, the first pair kept)."""
    text = ("Capacity:\n  nvidia.com/gpu:  4\nAllocatable:\n  nvidia.com/gpu:  4\n\n"
            "Capacity:\n  nvidia.com/gpu:  4\nAllocatable:\n  nvidia.com/gpu:  3\n")
    r = triage([("paste", text)])
    assert r.causes[0].cause.code == "GX203"
    lost = [f for f in r.findings if f.code == "GX203" and f.subject.kind == "Node"]
    assert [f.subject.name for f in lost] == ["pasted-node-2"]


def test_node_yaml_fragment_counts() -> None:
    text = ("    status:\n      allocatable:\n        cpu: \"48\"\n        nvidia.com/gpu: \"0\"\n"
            "      capacity:\n        cpu: \"48\"\n        nvidia.com/gpu: \"16\"\n")
    r = triage([("paste", text)])
    assert r.causes[0].cause.code == "GX203"
    lost = [f.params["lost"] for f in r.findings if f.code == "GX203" and "lost" in f.params]
    assert lost == [16]


def _containerd() -> list[Path]:
    found = sorted((REPO / ".cache/containerd-builds").glob("*/containerd"))
    debian = REPO / ".cache/containerd/usr/bin/containerd"
    found += [debian] if debian.is_file() else []
    found = [p for p in found if os.access(p, os.X_OK)]
    if not found:
        if os.environ.get("CI"):
            pytest.fail("no containerd binary under .cache (scripts/test builds them)")
        pytest.skip("no containerd binary under .cache; run scripts/test")
    return found


def test_config_dump_without_nvidia_runtime_is_gx301_with_the_handlers(tmp_path: Path) -> None:
    """The dump is produced by the real containerd binaries on a config with only runc."""
    for binary in _containerd():
        cfg = tmp_path / "config.toml"
        v2 = "2.0" <= binary.parent.name < "9" and binary.parent.name[0] == "2"
        cri = "io.containerd.cri.v1.runtime" if v2 else "io.containerd.grpc.v1.cri"
        cfg.write_text(f"version = {3 if v2 else 2}\n"
                       f"[plugins.\"{cri}\".containerd.runtimes.runc]\n"
                       "runtime_type = \"io.containerd.runc.v2\"\n")
        out = subprocess.run([str(binary), "--config", str(cfg), "config", "dump"],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        r = triage([("paste", "$ containerd config dump\n" + out.stdout)])
        gx301 = [f for f in r.findings if f.code == "GX301" and "runtimes" in f.params]
        assert r.causes[0].cause.code == "GX301", binary
        assert gx301 and "runc" in gx301[0].params["runtimes"], binary
        assert "nvidia" not in gx301[0].params["runtimes"]


def test_config_dump_with_nvidia_runtime_gives_no_gx301(tmp_path: Path) -> None:
    binary = _containerd()[-1]
    cfg = tmp_path / "config.toml"
    cfg.write_text("version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes."
                   "nvidia]\nruntime_type = \"io.containerd.runc.v2\"\n")
    out = subprocess.run([str(binary), "--config", str(cfg), "config", "dump"],
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:  # a 2.x binary refuses version 2 without migration flags
        pytest.skip(out.stderr.splitlines()[0] if out.stderr else "dump failed")
    r = triage([("paste", out.stdout)])
    assert not any(f.code == "GX301" for f in r.findings)


def test_dmesg_xids_run_the_xid_check() -> None:
    text = ("[Sat Nov 29 11:02:51 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
            "name=<unknown>, GPU has fallen off the bus.\n")
    r = triage([("paste", text)])
    assert r.causes[0].cause.code == "GX505" and r.decided
    assert any(f.code == "GX505" and f.params.get("xid") == 79 for f in r.findings)


def test_text_that_decides_nothing_is_not_decided() -> None:
    for text in ("0/3 nodes are available: 3 Insufficient nvidia.com/gpu.\n",
                 "hello\nthe GPU does not work, please help\n", ""):
        r = triage([("paste", text)])
        assert not r.decided
        if r.causes:
            assert r.collect_next


def test_parts_are_typed_by_command_and_shape() -> None:
    text = ("$ lsmod | grep nvidia\nnvidia  123  0\n"
            "# mokutil --sb-state\nSecureBoot enabled\n"
            "```\n[  12.3] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.15\n```\n"
            "$ kubectl -n gpu-operator logs ds/nvidia-device-plugin-daemonset -c plugin\n"
            "I1129 main.go:1] Starting\n"
            "$ systemctl status nvidia-fabricmanager\n"
            "Unit nvidia-fabricmanager.service could not be found.\n")
    parts = paste.split_paste(text)
    assert [p.kind for p in parts] == [paste.LSMOD, paste.MOKUTIL, paste.DMESG, paste.POD_LOG,
                                      paste.SYSTEMCTL_STATUS]
    assert parts[3].unit == "plugin" and parts[4].unit == "nvidia-fabricmanager"


# ----- look-alikes: only the deciding line tells them apart ----------------------------------
INSERT_FAILED = "modprobe: ERROR: could not insert 'nvidia': No such device\n"


@pytest.mark.parametrize(("extra", "cause", "decided"), [
    ("", None, False),
    ("nouveau              2359296  0\n", "nouveau-loaded", True),
    ("modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n",
     "secure-boot-enforced", True),
    ("ERROR: Unable to find the kernel source tree for the currently running kernel.\n",
     "kernel-headers", True),
])
def test_nouveau_secure_boot_headers(extra: str, cause: str | None, decided: bool) -> None:
    r = triage([("paste", INSERT_FAILED + extra)])
    assert r.decided is decided
    if cause:
        assert r.causes[0].cause.id == cause


def test_module_verification_line_is_not_secure_boot() -> None:
    """`module verification failed … tainting kernel` means the module loaded unsigned."""
    line = ("[  21.25] nvidia: module verification failed: signature and/or required key "
            "missing - tainting kernel\n")
    r = triage([("paste", line)])
    assert not any(c.cause.id == "secure-boot" for c in r.causes)
    both = triage([("paste", line + "modprobe: ERROR: could not insert 'nvidia': Key was "
                                    "rejected by service\n")])
    top = both.causes[0]
    assert top.cause.id == "secure-boot-enforced" and not top.deciding and not both.decided
    assert both.causes[1].cause.id == "secure-boot" and not both.causes[1].deciding


@pytest.mark.parametrize(("text", "cause"), [
    ("I1129 health.go:169] XidCriticalError: Xid=79 on Device=GPU-1; marking device as "
     "unhealthy.\n", "unhealthy"),
    ("Capacity:\n  nvidia.com/gpu: 8\nAllocatable:\n  nvidia.com/gpu: 8\nAllocated resources:\n"
     "  Resource  Requests  Limits\n  --------  --------  ------\n  nvidia.com/gpu  8  8\n",
     "exhausted"),
    ("Capacity:\n  nvidia.com/gpu: 0\nAllocatable:\n  nvidia.com/gpu: 0\n", "not-advertised"),
])
def test_unhealthy_exhausted_plugin_gone(text: str, cause: str) -> None:
    r = triage([("paste", text)])
    assert r.causes[0].cause.id == cause and r.decided


@pytest.mark.parametrize(("text", "cause"), [
    ("nv-fabricmanager[3228]: fabric manager NVIDIA GPU driver interface version 530.30.02 "
     "don't match with driver version 530.41.03. Please update with matching NVIDIA driver "
     "package.\n", "fm-version"),
    ("$ systemctl status nvidia-fabricmanager\nUnit nvidia-fabricmanager.service could not be "
     "found.\n", "fm-missing"),
])
def test_fabric_manager_missing_vs_mismatched(text: str, cause: str) -> None:
    r = triage([("paste", text)])
    assert r.causes[0].cause.id == cause and r.decided


@pytest.mark.parametrize(("text", "code"), [
    ('Warning FailedCreatePodSandBox kubelet Failed to create pod sandbox: rpc error: code = '
     'Unknown desc = failed to get sandbox runtime: no runtime for "nvidia" is configured\n',
     "GX301"),
    ("INFO[0000] Wrote updated config to /etc/containerd/config.d/99-nvidia.toml\n", "GX512"),
    ('disabled_plugins = ["cri"]\n', "GX513"),
])
def test_handler_wiped_vs_never_read_vs_cri_off(text: str, code: str) -> None:
    r = triage([("paste", text)])
    assert r.causes[0].cause.code == code


@pytest.mark.parametrize("text", [
    "\n" * 400_000 + "allocatable:\n",
    " " * 3_000_000 + "\n",
    ("$ " * 200_000) + "kubectl describe node x\n",
    "Name: a\nCapacity:\n" + "  nvidia.com/gpu: 8\n" * 100_000,
    "[plugins.x]\n" + "imports = [\n" * 50_000,
    "x=" * 500_000 + "\n",
    "`" * 400_000 + "x\n",
    "> " * 300_000 + "\n",
    "key: value\n\nmore: text\n" * 20_000,  # many short paragraphs (prose cut: once per line)
])
def test_pathological_pastes_stay_bounded(text: str) -> None:
    """Huge or repetitive pastes finish (no regex backtracking on long lines or many blank
    lines); the bound is generous, it only catches a hang."""
    import time

    t0 = time.perf_counter()
    triage([("paste", text)])
    assert time.perf_counter() - t0 < 60


def test_driver_install_stage_votes_where_it_stopped() -> None:
    log = ("========== NVIDIA Software Installer ==========\n"
           "Starting installation of NVIDIA driver version 550.90.07 for Linux kernel version "
           "5.15.0-1068-fips\nStopping NVIDIA persistence daemon...\nUnloading NVIDIA driver "
           "kernel modules...\nResolving Linux kernel version...\nProceeding with Linux kernel "
           "version 5.15.0-1068-fips\nInstalling Linux kernel headers...\nStopping NVIDIA "
           "persistence daemon...\nUnloading NVIDIA driver kernel modules...\n")
    r = triage([("driver.log", log)])
    assert r.causes[0].cause.id == "kernel-headers" and not r.decided
    done = log.replace("Installing Linux kernel headers...\nStopping NVIDIA persistence "
                       "daemon...\nUnloading NVIDIA driver kernel modules...\n",
                       "Loading NVIDIA driver kernel modules...\nDone, now waiting for signal\n")
    assert triage([("driver.log", done)]).causes == []


def test_operand_table_states_and_daemonsets_scheduling_nowhere() -> None:
    table = ("NAMESPACE      NAME                                   READY   STATUS"
             "             RESTARTS   AGE\n"
             "gpu-operator   nvidia-driver-daemonset-tm22t          0/1     CrashLoopBackOff"
             "   5          6m\n")
    r = triage([("pods", "$ kubectl get pods -A\n" + table)])
    assert r.causes[0].cause.id == "driver-failing" and not r.decided
    ds = ("$ kubectl get ds -A -o wide | grep nvid\n"
          "nvidia-device-plugin   nvdp-nvidia-device-plugin   0   0   0   0   0   <none>   4m\n")
    r2 = triage([("ds", ds)])
    assert {c.cause.id for c in r2.causes[:2]} == {"nodes-unlabelled", "operand-taint"}
    assert not r2.decided and r2.collect_next


def test_insufficient_with_all_gpus_healthy_points_at_the_request_size() -> None:
    text = ("0/3 nodes are available: 3 Insufficient nvidia.com/gpu.\n"
            "Capacity:\n  nvidia.com/gpu:  1\nAllocatable:\n  nvidia.com/gpu:  1\n")
    r = triage([("paste", text)])
    assert r.causes[0].cause.code == "GX205" and not r.decided
    assert {"GX202", "GX203"}.isdisjoint({c.cause.code for c in r.causes[:1]})


def test_ticket_wrapping_is_stripped_before_the_scan() -> None:
    for text in ("> nouveau              2359296  0\n", "`nouveau              2359296  0`\n",
                 "[pod/nvidia-driver-daemonset-x/nvidia-driver-ctr] nouveau  2359296  0\n"):
        r = triage([("paste", text)])
        assert r.causes and r.causes[0].cause.id == "nouveau-loaded", text


def test_a_config_block_ends_where_logfmt_lines_begin() -> None:
    lines = ['version = 2', '[plugins."io.containerd.grpc.v1.cri"]', '  x=1',
             'time="2026-01-21T12:32:09Z" level=fatal msg="Error: unable to load config"']
    assert paste.toml_extent(lines) == (lines[:3], lines[3:])


def test_a_filtered_dump_is_not_the_whole_config() -> None:
    # `containerd config dump | head` shows the first lines: no runtimes there is no GX301
    cut = "$ containerd config dump | head\nversion = 3\nroot = \"/var/lib/containerd\"\n"
    whole = cut.replace(" | head", "")
    assert "GX301" not in {c.cause.code for c in triage([("p", cut)]).causes
                           if "check:GX301" in c.signatures}
    assert "check:GX301" in {s for c in triage([("p", whole)]).causes for s in c.signatures}


@pytest.mark.parametrize("header", [
    "",
    "2024-05-01T10:00:00.123456789Z ",  # kubectl logs --timestamps
    "2024-05-01T10:00:00.123456789+00:00 stderr F ",  # a CRI log file under /var/log/pods
    "May  1 10:00:00 gpu-node-1 kernel: ",  # journalctl -k / syslog
    "[  201.910514] ",  # dmesg
    "[Wed May  1 10:00:00 2024] ",  # dmesg -T
])
@pytest.mark.parametrize(("line", "code"), [
    # NVIDIA/gpu-driver-container@06a208ca:ubuntu22.04/nvidia-driver and the vGPU manager's
    # script: whole-line messages, matched from the start of the component's words
    ("Could not resolve RHEL version", "GX403"),
    ("Failed to load nvidia driver", "GX403"),
    ("NVRM: fallen off the bus and is not responding to commands.", "GX403"),
])
def test_log_headers_do_not_hide_a_line_from_its_signature(header: str, line: str,
                                                           code: str) -> None:
    codes = [c.cause.code for c in triage([("paste", header + line + "\n")]).causes]
    assert codes[:1] == [code]
