"""The daemon side, measured: every real containerd binary is started as a daemon with a private
root, state, gRPC/ttrpc sockets and opt dir, the CRI (and NRI) plugins disabled, then signalled.
What it does must be what ``gpuxray.knowledge.containerd_daemon`` states (and so what GX503,
GX504 and ``explain dropin`` say). Also: a missing literal import, which 2.x ``config dump``
ignores, stops the daemon with the message the engine predicts.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuxray.engines.containerd import DirReader, analyse, resolve_version
from gpuxray.engines.containerd.model import ProblemKind
from gpuxray.knowledge.codes import CATALOG
from gpuxray.knowledge.containerd_daemon import MEASURED_VERSIONS, SIGNALS
from real_containerd import binaries, debian_version, expected_versions, require

pytestmark = pytest.mark.slow

BOOTED = b"successfully booted"
DISABLED = ["io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime",
            "io.containerd.cri.v1.images", "io.containerd.nri.v1.nri"]


def _config(d: Path, extra: str = "") -> Path:
    cfg = d / "config.toml"
    cfg.write_text(
        f'version = 2\n{extra}root = "{d}/root"\nstate = "{d}/state"\n'
        "disabled_plugins = [" + ", ".join(f'"{p}"' for p in DISABLED) + "]\n"
        f'[grpc]\n  address = "{d}/c.sock"\n[ttrpc]\n  address = "{d}/c.sock.ttrpc"\n'
        f'[plugins."io.containerd.internal.v1.opt"]\n  path = "{d}/opt"\n')
    return cfg


def _debian() -> Path:
    require("debian")
    v = debian_version()
    assert v is not None
    return binaries()[v]


def _binary(version: str) -> Path:
    return _debian() if version == "debian" else require(version)[version]


VERSIONS = ["debian", *expected_versions()]


def _default_signals() -> None:
    for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)


def _start(binary: Path, d: Path) -> tuple[subprocess.Popen[bytes], Path]:
    log = d / "log"
    with log.open("wb") as out:
        # systemd starts the daemon with every signal at its default; a runner started under
        # nohup would hand down SIGHUP ignored, and Go keeps an inherited SIG_IGN
        p = subprocess.Popen([str(binary), "--config", str(_config(d))], stdout=out,
                             stderr=subprocess.STDOUT, cwd=d, preexec_fn=_default_signals)
    sock = d / "c.sock"
    deadline = time.monotonic() + 60
    # booted: the socket is there and the daemon has said so ("containerd successfully booted
    # in …s", its last boot line): a log still growing from the boot would read as a shutdown
    # message after the signal, on a loaded machine
    while not sock.exists() or BOOTED not in log.read_bytes():
        if p.poll() is not None or time.monotonic() > deadline:
            p.kill()
            p.wait()
            pytest.fail(f"{binary} did not start: {log.read_text()[-2000:]}")
        time.sleep(0.05)
    time.sleep(0.2)
    return p, log


@pytest.mark.parametrize("version", VERSIONS)
def test_signals_as_the_knowledge_table_says(version: str, tmp_path: Path) -> None:
    binary = _binary(version)
    for name, sig in (("SIGHUP", signal.SIGHUP), ("SIGTERM", signal.SIGTERM)):
        d = tmp_path / name
        d.mkdir()
        p, log = _start(binary, d)
        try:
            before = log.stat().st_size
            assert p.poll() is None, log.read_text()[-2000:]
            p.send_signal(sig)
            rc = p.wait(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        want = SIGNALS[name]
        shell_status = 128 - rc if rc < 0 else rc
        assert shell_status == want.exit_status, (version, name, rc)
        assert (rc < 0) is want.killed
        assert (log.stat().st_size > before) is want.logs_shutdown, (version, name)
        assert (d / "c.sock").exists() is want.socket_left, (version, name)
    assert (debian_version() if version == "debian" else version) in MEASURED_VERSIONS


@pytest.mark.parametrize("version", [v for v in expected_versions() if not v.startswith("1.")])
def test_missing_import_stops_the_daemon_though_config_dump_passes(version: str,
                                                                   tmp_path: Path) -> None:
    binary = _binary(version)
    missing = tmp_path / "conf.d" / "99-nvidia.toml"
    cfg = _config(tmp_path, f'imports = ["{missing}"]\n')
    dump = subprocess.run([str(binary), "--config", str(cfg), "config", "dump"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert dump.returncode == 0  # the dump ignores a not-exist error
    daemon = subprocess.run([str(binary), "--config", str(cfg)], capture_output=True,
                            text=True, timeout=60, check=False)
    assert daemon.returncode != 0
    a = analyse(DirReader("/"), resolve_version((version, "test")), str(cfg))
    [p] = [p for p in a.problems if p.kind is ProblemKind.MISSING_IMPORT]
    assert p.fatal and p.daemon is not None
    assert f"containerd: {p.daemon}" in daemon.stderr.splitlines()


def test_explanations_state_the_measured_signal_behaviour(
        gx: Callable[..., tuple[int, Any]]) -> None:
    """``explain dropin`` and the GX503/GX504 pages carry the table the daemons were checked
    against above, for every measured release."""
    code, doc = gx("explain", "dropin", "-o", "json")
    assert code == 0
    rows = [r for t in doc["tables"] for r in t["rows"]]
    [toolkit] = [r for r in rows if r[0] == "toolkit"]
    assert SIGNALS["SIGHUP"].summary in toolkit[-1]
    assert all(v in toolkit[-1] for v in MEASURED_VERSIONS)
    for c in ("GX503", "GX504"):
        assert SIGNALS["SIGHUP"].summary in CATALOG[c].summary


CRI_RT = 'plugins."io.containerd.cri.v1.runtime"'
GRPC_CRI = 'plugins."io.containerd.grpc.v1.cri"'


@pytest.mark.parametrize("version", [v for v in expected_versions() if not v.startswith("1.")])
def test_v3_root_v2_dropin_cri_plugin_outcome_on_the_daemon(version: str,
                                                            tmp_path: Path) -> None:
    """facts.md §0 on the running daemon, CRI runtime plugin enabled (the CRI gRPC service
    stays disabled): a v3 root with a runtimes table plus a v2 drop-in setting
    default_runtime_name = "nvidia" — on 2.0.2-2.2 the migration keeps the drop-in's runtimes
    out but takes its default, so the CRI runtime plugin refuses its config (the engine's
    CRI_DEFAULT_RUNTIME problem, with the same message); 2.3+ keep nvidia and load it."""
    binary = _binary(version)
    conf_d = tmp_path / "conf.d"
    conf_d.mkdir()
    (conf_d / "99-nvidia.toml").write_text(
        f'version = 2\n[{GRPC_CRI}.containerd]\ndefault_runtime_name = "nvidia"\n'
        f'[{GRPC_CRI}.containerd.runtimes.nvidia]\nruntime_type = "io.containerd.runc.v2"\n')
    cfg = tmp_path / "config.toml"
    d = tmp_path
    cfg.write_text(
        f'version = 3\nimports = ["{conf_d}/*.toml"]\nroot = "{d}/root"\nstate = "{d}/state"\n'
        'disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.nri.v1.nri"]\n'
        f'[grpc]\n  address = "{d}/c.sock"\n[ttrpc]\n  address = "{d}/c.sock.ttrpc"\n'
        f'[plugins."io.containerd.internal.v1.opt"]\n  path = "{d}/opt"\n'
        f'[{CRI_RT}.containerd.runtimes.runc.options]\n  SystemdCgroup = true\n')
    log = d / "log"
    with log.open("wb") as out:
        p = subprocess.Popen([str(binary), "--config", str(cfg)], stdout=out,
                             stderr=subprocess.STDOUT, cwd=d)
    try:
        deadline = time.monotonic() + 30
        while not (d / "c.sock").exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        assert p.poll() is None, log.read_text()[-2000:]  # containerd runs on without CRI
    finally:
        p.terminate()
        p.wait(timeout=30)
    failed = [ln for ln in log.read_text().splitlines()
              if "failed to load plugin" in ln and "id=io.containerd.cri.v1.runtime " in ln]
    a = analyse(DirReader("/"), resolve_version((version, "test")), str(cfg))
    probs = [pr for pr in a.problems if pr.kind is ProblemKind.CRI_DEFAULT_RUNTIME]
    if failed:
        [pr] = probs
        assert pr.daemon is not None
        assert 'error="' + pr.daemon.replace('"', '\\"') + '"' in failed[0]
        assert a.runtimes == ["runc"] and a.lost_runtimes == ["nvidia"]
    else:
        assert probs == [] and "nvidia" in a.runtimes
    assert bool(failed) is (tuple(int(x) for x in version.split(".")) < (2, 3, 0))
