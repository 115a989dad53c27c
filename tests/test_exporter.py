"""``gpuxray exporter``: a real HTTP server on loopback over a scenario bundle, scraped and parsed
with prometheus_client's parser; promtool lints the scrape and the shipped alert rules."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from gpuxray.checks.engine import run_all
from gpuxray.cli import reports
from gpuxray.cli.main import run
from gpuxray.exporter import Exporter
from gpuxray.model.finding import Status
from gpuxray.render.metrics import exposition
from gpuxray.sources.bundle import open_bundle
from reports_fixtures import demo, fragmented, require_binary

RULES = Path(__file__).resolve().parents[1] / "deploy" / "prometheusrule.yaml"


def _samples(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out.setdefault(s.name, []).append((dict(s.labels), s.value))
    return out


def _analyse(bundle: Path) -> Any:
    def analyse() -> Any:
        with open_bundle(bundle) as snap:
            return run_all(snap), reports.capacity_dicts(snap) or [], snap.origin
    return analyse


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Exporter, str, Path]]:
    """The exporter's loop and HTTP server on a free loopback port, always stopped."""
    bundle = fragmented().write(tmp_path / "b")
    exp = Exporter(_analyse(bundle), interval_s=3600)
    server, _ = exp.serve(0, "127.0.0.1")
    loop = threading.Thread(target=exp.loop, daemon=True)
    loop.start()
    try:
        deadline = time.monotonic() + 20
        while exp.latest().finished_at == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        yield exp, f"http://127.0.0.1:{server.server_port}/metrics", bundle
    finally:
        exp.stop()
        server.shutdown()
        server.server_close()
        loop.join(timeout=10)
        assert not loop.is_alive()


def test_scrape_reports_findings_and_capacity(served: tuple[Exporter, str, Path]) -> None:
    exp, url, bundle = served
    with urllib.request.urlopen(url, timeout=10) as resp:
        assert resp.status == 200
        text = resp.read().decode()
    m = _samples(text)
    with open_bundle(bundle) as snap:
        findings = run_all(snap)
    series = {(s["code"], s["subject_kind"], s["subject_namespace"], s["subject_name"],
               s["status"]) for s, _ in m["gpuxray_finding"]}
    assert series == {(f.code, f.subject.kind, f.subject.namespace or "", f.subject.name,
                       f.status.value) for f in findings}
    assert ("GX206", "Pod", "ml", "train", "fail") in series
    assert sum(v for _, v in m["gpuxray_finding"]) == len(findings)
    totals = {(s["severity"], s["status"]): v for s, v in m["gpuxray_findings"]}
    assert totals[("error", "fail")] == sum(
        1 for f in findings if f.status == Status.FAIL and f.severity.label == "error")
    cap = {(s["node"], s["resource"]): v for s, v in m["gpuxray_gpu_capacity"]}
    alloc = {(s["node"], s["resource"]): v for s, v in m["gpuxray_gpu_allocated"]}
    free = {(s["node"], s["resource"]): v for s, v in m["gpuxray_gpu_free"]}
    assert cap == {("gpu-1", "nvidia.com/gpu"): 4, ("gpu-2", "nvidia.com/gpu"): 4}
    assert alloc == {("gpu-1", "nvidia.com/gpu"): 3, ("gpu-2", "nvidia.com/gpu"): 3}
    assert free == {("gpu-1", "nvidia.com/gpu"): 1, ("gpu-2", "nvidia.com/gpu"): 1}
    assert m["gpuxray_last_run_timestamp_seconds"][0][1] == pytest.approx(time.time(), abs=120)
    assert m["gpuxray_last_run_success"][0][1] == 1
    assert m["gpuxray_run_errors_total"][0][1] == 0
    assert exp.runs == 1  # scrapes read the latest result; they never analyse


def test_scrape_passes_promtool(served: tuple[Exporter, str, Path]) -> None:
    promtool = require_binary("promtool")
    _, url, _ = served
    with urllib.request.urlopen(url, timeout=10) as resp:
        text = resp.read()
    r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True,
                       timeout=60, check=False)
    assert r.returncode == 0, (r.stdout + r.stderr).decode()


def test_prometheusrule_passes_promtool(tmp_path: Path) -> None:
    promtool = require_binary("promtool")
    doc = yaml.safe_load(RULES.read_text())
    assert doc["kind"] == "PrometheusRule"
    rules = tmp_path / "rules.yml"
    rules.write_text(yaml.safe_dump({"groups": doc["spec"]["groups"]}))
    r = subprocess.run([promtool, "check", "rules", str(rules)], capture_output=True, text=True,
                       timeout=60, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    exprs = " ".join(rule["expr"] for g in doc["spec"]["groups"] for rule in g["rules"])
    for needed in ('severity="error"', "gpuxray_gpu_capacity == 0", 'code="GX601"'):
        assert needed in exprs


def test_failed_run_is_counted_and_keeps_last_data() -> None:
    calls = {"n": 0}

    def analyse() -> Any:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("apiserver unreachable")
        return [], [{"node": "n", "resource": "nvidia.com/gpu", "capacity": 2}], "x"

    exp = Exporter(analyse, interval_s=3600)
    assert exp.run_once()
    first = exp.latest()
    assert exp.run_once()
    r = exp.latest()
    assert (r.ok, r.errors_total, r.finished_at) == (False, 1, first.finished_at)
    assert r.capacity == first.capacity and "apiserver unreachable" in r.error
    m = _samples(exposition(r))
    assert m["gpuxray_run_errors_total"][0][1] == 1 and m["gpuxray_last_run_success"][0][1] == 0
    assert exp.run_once() and exp.latest().ok and exp.latest().errors_total == 1


def test_runs_never_overlap() -> None:
    gate, started = threading.Event(), threading.Event()

    def slow() -> Any:
        started.set()
        gate.wait(10)
        return [], [], "x"

    exp = Exporter(slow, interval_s=3600)
    t = threading.Thread(target=exp.run_once)
    t.start()
    try:
        assert started.wait(10)
        assert exp.run_once() is False  # a second run while one is in flight does nothing
    finally:
        gate.set()
        t.join(10)
    assert exp.runs == 1


def test_once_prints_the_exposition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = demo(tmp_path / "demo")
    assert run(["exporter", "--once", "--bundle", str(bundle)]) == 0
    m = _samples(capsys.readouterr().out)
    with open_bundle(bundle) as snap:
        gx202 = [f for f in run_all(snap, ["GX202"]) if f.status == Status.FAIL]
    assert {(s["subject_namespace"], s["subject_name"]) for s, _ in m["gpuxray_finding"]
            if s["code"] == "GX202"} == {(f.subject.namespace, f.subject.name) for f in gx202}
    cap = {s["node"]: v for s, v in m["gpuxray_gpu_capacity"]}
    assert cap["gpu-2"] == 0 and cap["gpu-3"] == 0 and cap["gpu-1"] > 0


def test_interval_has_a_floor(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["exporter", "--interval", "5", "--once", "--bundle", "x"]) == 2
    assert "interval" in capsys.readouterr().err


def test_port_in_use_is_a_clear_error(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    bundle = fragmented().write(tmp_path / "b")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        code = run(["exporter", "--bundle", str(bundle), "--address", "127.0.0.1",
                    "--port", str(port)])
    assert code == 2
    err = capsys.readouterr().err
    assert f"127.0.0.1:{port}" in err and "Traceback" not in err
