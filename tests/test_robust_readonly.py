"""Read-only guarantee: every command that reads a live cluster issues only GET requests (watch
allowed), never a write verb, and never asks for a Secret.

The recorder is the real ``gpuxray serve --request-log`` (a separate process, JSON lines), so
what is checked is what reached the wire. ``collect --node-agent`` is the one opt-in writer and is
covered by the node-agent tests, not here.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpuxray.cli.main import run
from gpuxray.scenarios.demo import build_demo
from gpuxray.serve.server import kubeconfig_text

READ_VERBS = {"GET"}
COMMANDS: list[tuple[str, ...]] = [
    ("check", "-o", "json"),
    ("why", "ml/train-llm-0", "-o", "json"),
    ("why", "deploy/nope", "-o", "json"),
    ("capacity", "-o", "json"),
    ("mig", "--nodes", "-o", "json"),
    ("exporter", "--once"),
    ("collect", "-q", "-o", "{tmp}/bundle.tgz"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def recorder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, str]]:
    tmp = tmp_path_factory.mktemp("ro")
    bundle = build_demo().write(tmp / "b")
    log = tmp / "requests.jsonl"
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpuxray", "serve", str(bundle), "--port", str(port),
         "--request-log", str(log)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            if proc.poll() is not None:
                pytest.fail(f"serve exited: {proc.stderr.read().decode() if proc.stderr else ''}")
            time.sleep(0.05)
    kc = tmp / "kubeconfig"
    kc.write_text(kubeconfig_text(url))
    try:
        yield str(kc), log, url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _records(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: "-".join(a[:2]))
def test_live_commands_only_read(recorder: tuple[str, Path, str], tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str],
                                 args: tuple[str, ...]) -> None:
    kc, log, _url = recorder
    before = len(_records(log))
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code = run([*argv, "--kubeconfig", kc])
    capsys.readouterr()
    assert code in (0, 1, 2, 3), argv
    time.sleep(0.05)  # the log line is written after the response
    recs = _records(log)[before:]
    assert recs, f"{argv}: no request reached the server"
    methods = {str(r.get("method")) for r in recs}
    assert methods <= READ_VERBS, (argv, methods)
    paths = [str(r.get("path", "")) for r in recs]
    assert not [p for p in paths if "/secrets" in p.split("?")[0]], argv
    for p in paths:  # subresources that act (exec, attach, portforward, eviction) never
        assert not any(f"/{sub}" in p.split("?")[0] for sub in
                       ("exec", "attach", "portforward", "eviction", "proxy", "binding")), p


def test_request_log_records_a_write_when_one_is_made(recorder: tuple[str, Path, str]) -> None:
    """The recorder itself sees non-GET verbs (so the assertions above cannot pass vacuously)."""
    import urllib.request

    _kc, log, url = recorder
    before = len(_records(log))
    req = urllib.request.Request(f"{url}/api/v1/namespaces/ml/pods", data=b"{}", method="POST")
    with contextlib.suppress(OSError):
        urllib.request.urlopen(req, timeout=5).close()
    time.sleep(0.05)
    assert "POST" in {r.get("method") for r in _records(log)[before:]}
