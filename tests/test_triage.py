"""``gpuxray triage``: ranking on a corpus of realistic pasted texts, look-alike pairs with and
without their deciding line, texts phrased unlike any sample, and bounded input handling."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuxray.diagnose.triage import triage
from gpuxray.errors import InputError
from gpuxray.sources.pasted import read_stream

DATA = Path(__file__).parent / "data" / "triage"
Run = Callable[..., tuple[int, Any]]

# sample -> (top cause id, decided?)
DECIDED: dict[str, tuple[str, bool]] = {
    "describe-pod-insufficient-with-xid.txt": ("unhealthy", True),
    "describe-node-advertises-zero.txt": ("not-advertised", True),  # capacity 0 decides
    "events-untolerated-taint.txt": ("taint-selector", False),
    "events-quota.txt": ("quota", True),
    "describe-pod-no-runtime.txt": ("handler-missing", True),
    # the host state first (GX506/GX507), the driver cause it explains (GX403) second
    "driver-log-nouveau.txt": ("nouveau-loaded", True),
    "driver-log-secureboot.txt": ("secure-boot-enforced", True),
    "dmesg-secureboot.txt": ("secure-boot-enforced", True),
    "validator-fm-missing.txt": ("fm-missing", True),
    "validator-fm-version.txt": ("fm-version", True),
    "container-nvml-mismatch.txt": ("nvml-mismatch", True),
    "container-nvml-unknown.txt": ("device-lost", True),
    "describe-pod-oci-hook.txt": ("injection-failed", True),
    "describe-pod-cdi.txt": ("cdi-unresolvable", True),
    "dcgm-exporter-connect.txt": ("dcgm-connect", True),
    "dcgm-exporter-profiling.txt": ("dcgm-profiling", True),
    "mig-manager-log.txt": ("mig-failed", True),
    "device-plugin-config-error.txt": ("plugin-config-invalid", True),
    "journal-containerd-restart.txt": ("containerd-restart", True),
    "driver-precompiled-event.txt": ("precompiled-kernel", True),
    "driver-headers-log.txt": ("kernel-headers", True),
    "apply-runtimeclass-missing.txt": ("runtimeclass-missing", True),
    "apply-fractional-gpu.txt": ("request-invalid", True),
    "describe-pod-shared-too-large.txt": ("shared-request", True),
    "get-pods-operands-init.txt": ("operand-init", False),
    "describe-driver-os-tag.txt": ("driver-os-mismatch", True),
    "nfd-master-denied.txt": ("gfd-labels", True),
    "config-manager-switch.txt": ("plugin-config-invalid", True),
    "toolkit-config-dump.txt": ("containerd-config", True),
    "toolkit-config-unprivileged.txt": ("envvar-ignored", True),
    "cdi-list-empty.txt": ("cdi-unresolvable", True),
    "describe-pod-runtime-binary.txt": ("injection-failed", True),
}

# look-alikes without the deciding line: (sample, the causes tied or close at the top)
UNDECIDED: dict[str, set[str]] = {
    "describe-pod-insufficient.txt": {"not-advertised", "unhealthy", "exhausted"},
    "driver-log-insert-failed-generic.txt": {"nouveau-loaded", "secure-boot-enforced"},
    "validator-system-not-initialized.txt": {"fm-missing", "fm-version"},
}


def run_file(name: str) -> Any:
    p = DATA / name
    return triage([(name, p.read_text())])


def test_corpus_is_complete() -> None:
    files = {p.name for p in DATA.iterdir()}
    assert files == set(DECIDED) | set(UNDECIDED)
    assert len(files) >= 20


@pytest.mark.parametrize("name", sorted(DECIDED))
def test_top_cause(name: str) -> None:
    cause, decided = DECIDED[name]
    r = run_file(name)
    assert r.causes[0].cause.id == cause
    assert r.decided is decided
    assert r.causes[0].matched  # the lines it stands on
    assert any(f.code == r.causes[0].cause.code for f in r.findings)


@pytest.mark.parametrize("name", sorted(UNDECIDED))
def test_lookalike_without_deciding_line_names_what_to_collect(name: str) -> None:
    r = run_file(name)
    assert not r.decided
    top = {c.cause.id for c in r.causes[:len(UNDECIDED[name])]}
    assert top == UNDECIDED[name]
    assert r.collect_next


def test_deciding_line_flips_a_lookalike() -> None:
    generic = (DATA / "describe-pod-insufficient.txt").read_text()
    xid = "[Sat Nov 29 11:02:51 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', " \
          "name=<unknown>, GPU has fallen off the bus.\n"
    r = triage([("a", generic + xid)])
    assert r.causes[0].cause.id == "xid" or r.causes[0].cause.id == "unhealthy"
    ids = [c.cause.id for c in r.causes]
    assert ids.index("unhealthy") < ids.index("exhausted")
    lsmod = "Module                  Size  Used by\nnouveau              2359296  0\n"
    r2 = triage([("b", (DATA / "driver-log-insert-failed-generic.txt").read_text() + lsmod)])
    assert r2.causes[0].cause.id == "nouveau-loaded" and r2.decided
    assert r2.causes[1].cause.id == "nouveau"


@pytest.mark.parametrize(("text", "cause"), [
    # phrased unlike any sample: CRI-O wording, JSON event, journal-format kernel log, nvidia-smi
    ('  Warning  FailedCreatePodSandBox  kubelet  Failed to create pod sandbox: rpc error: code '
     '= Unknown desc = RuntimeHandler "nvidia" not supported', "handler-missing"),
    ('{"reason": "FailedCreate", "message": "Error creating: pods \\"job-x\\" is forbidden: '
     'exceeded quota: team-a, requested: requests.nvidia.com/gpu=1"}', "quota"),
    ("Nov 29 11:02:51 gpu-5 kernel: NVRM: Xid (PCI:0000:b1:00): 48, pid=2231, name=python, "
     "DBE (0x00000000) detected", "xid"),
    ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
     "that the latest NVIDIA driver is installed and running.\n$ lsmod | grep -i nouveau\n"
     "nouveau              2359296  1", "nouveau-loaded"),
    ("level=error msg=\"Unable to connect to the remote hostengine at 10.0.4.7:5555\"",
     "dcgm-connect"),
    ("Error: failed to start container \"cuda\": Error response from daemon: failed to create "
     "task for container: failed to create shim task: OCI runtime create failed: "
     "exec: \"nvidia-container-runtime\": executable file not found in $PATH", "injection-failed"),
])
def test_generalises_to_other_phrasings(text: str, cause: str) -> None:
    r = triage([("x", text)])
    assert r.causes and r.causes[0].cause.id == cause


def test_no_signature_means_no_cause() -> None:
    r = triage([("x", "everything is fine\nGPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1)\n")])
    assert r.causes == [] and r.findings == [] and r.lines_scanned == 2


def test_repeats_do_not_outvote_a_deciding_line() -> None:
    noise = "modprobe: ERROR: could not insert 'nvidia': No such device\n" * 500
    r = triage([("x", noise + "ERROR: The Nouveau kernel driver is currently in use by your "
                              "system.\n")])
    assert [c.cause.id for c in r.causes[:2]] == ["nouveau-loaded", "nouveau"]


# ----- CLI -----------------------------------------------------------------------------------
def test_cli_json_contract(gx: Run) -> None:
    code, doc = gx("triage", str(DATA / "driver-log-nouveau.txt"), "-o", "json")
    assert code == 0 and doc["schema"] == "gpuxray/v1"
    top = doc["causes"][0]
    assert top["code"] == "GX506" and top["score"] > 0 and top["matched"]
    assert [c["code"] for c in doc["causes"][:2]] == ["GX506", "GX403"]
    assert [f["code"] for f in doc["findings"][:2]] == ["GX506", "GX403"]
    assert doc["decided"] is True


def test_cli_text_names_collect_next(gx: Run) -> None:
    code, out = gx("triage", str(DATA / "describe-pod-insufficient.txt"))
    assert code == 0
    assert "Collect next" in out and "GX202" in out


def test_cli_directory(gx: Run, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "driver.log").write_text((DATA / "driver-log-secureboot.txt").read_text())
    (tmp_path / "core.bin").write_bytes(b"\x7fELF\x00\x00\x01" * 100)
    code, doc = gx("triage", str(tmp_path), "-o", "json")
    assert code == 0
    assert [c["cause"] for c in doc["causes"][:2]] == ["secure-boot-enforced", "secure-boot"]
    assert doc["inputs"] == ["sub/driver.log"]
    assert [s["input"] for s in doc["skipped"]] == ["core.bin"]


def test_cli_binary_file_is_one_line_error(gx: Run, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "junk"
    p.write_bytes(os.urandom(20000))
    code, _ = gx("triage", str(p))
    err = capsys.readouterr().err
    assert code == 2 and "binary" in err and "Traceback" not in err


def test_cli_missing_file(gx: Run) -> None:
    code, _ = gx("triage", "/nonexistent/paste.txt")
    assert code == 2


def test_stdin(tmp_path: Path) -> None:
    text = (DATA / "describe-pod-no-runtime.txt").read_bytes()
    r = subprocess.run([sys.executable, "-m", "gpuxray", "triage", "-", "-o", "json"],
                       input=text, capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["causes"][0]["code"] == "GX301"


def test_huge_stream_keeps_the_tail() -> None:
    limit = 1 << 16
    data = b"noise line\n" * 50000 + b"Key was rejected by service\n"
    ti = read_stream(io.BytesIO(data), "big", limit=limit)
    assert ti.truncated and len(ti.text) <= limit
    assert ti.text.endswith("Key was rejected by service\n")
    with pytest.raises(InputError):
        read_stream(io.BytesIO(b"\x00\x01\x02" * 1000), "bin")


def test_long_lines_are_bounded() -> None:
    line = "x" * 2_000_000 + " Failed to initialize NVML: Unknown Error"
    r = triage([("x", line)])
    assert r.causes == []  # the signature sits past the line cap: bounded, not scanned


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=4096))
def test_random_bytes_never_crash(data: bytes) -> None:
    try:
        ti = read_stream(io.BytesIO(data), "fuzz", limit=1024)
    except InputError:
        return
    r = triage([(ti.name, ti.text)])
    assert all(c.score > 0 for c in r.causes)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([
    "Insufficient nvidia.com/gpu", "Key was rejected by service", "nouveau 2359296 0",
    "system not yet initialized", "NVML: Unknown Error", "random noise", "İ nvidia", ""]),
    max_size=30))
def test_rank_is_order_independent(lines: list[str]) -> None:
    a = triage([("a", "\n".join(lines))])
    b = triage([("b", "\n".join(reversed(lines)))])
    assert [(c.cause.id, round(c.score, 6)) for c in a.causes] == \
        [(c.cause.id, round(c.score, 6)) for c in b.causes]


def test_directory_limits_are_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuxray.sources import pasted

    monkeypatch.setattr(pasted, "MAX_FILES", 3)
    for i in range(10):
        (tmp_path / f"f{i:02d}.log").write_text("Key was rejected by service\n")
    out = pasted.read_dir(tmp_path)
    assert [t.name for t in out.inputs] == ["f00.log", "f01.log", "f02.log"]
    assert out.skipped == [("7 more file(s)", "input limit reached (3 files or 64 MiB)")]
