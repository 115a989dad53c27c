"""``gpuxray exporter``: a real HTTP server on loopback over a scenario bundle, scraped and parsed
with prometheus_client's parser; promtool lints the scrape and the shipped alert rules."""

from __future__ import annotations

import json
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
    for needed in ('gpuxray_incidents{severity="error"}', "gpuxray_gpu_capacity == 0",
                   'code="GX601"'):
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


def _demo_exposition(tmp_path: Path) -> str:
    bundle = demo(tmp_path)
    exp = Exporter(_analyse(bundle), interval_s=3600)
    assert exp.run_once()
    return exposition(exp.latest())


def test_scrape_reports_one_series_per_incident(tmp_path: Path) -> None:
    m = _samples(_demo_exposition(tmp_path))
    inc = {(s["root_code"], s["severity"]): (s["incident"], v) for s, v in m["gpuxray_incidents"]}
    assert set(inc) == {("GX501", "error"), ("GX504", "warning"), ("GX601", "warning")}
    assert all(v == 1 for _, v in inc.values())
    dropin = inc[("GX501", "error")][0]
    assert dropin == "GX501:/etc/containerd/conf.d/registry.toml"
    lost = {s["incident"]: v for s, v in m["gpuxray_incident_gpus_lost"]}
    assert lost[dropin] == 4
    nodes = {s["node"] for s, _ in m["gpuxray_incident_node"] if s["incident"] == dropin}
    assert nodes == {"gpu-2", "gpu-3"}
    # eight error findings, one error incident
    errors = [s for s, _ in m["gpuxray_finding"] if s["severity"] == "error"]
    assert len(errors) == 8


def _series_line(name: str, labels: dict[str, str]) -> str:
    inner = ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(labels.items()))
    return f"{name}{{{inner}}}"


def test_rules_fire_once_per_incident_in_promtool(tmp_path: Path) -> None:
    """The shipped rules, evaluated by the real promtool over the demo's scrape held for 40
    minutes: one critical alert for the drop-in incident (not one per symptom), one warning for
    the restarts, and the capacity-0 alert only on a node no incident explains."""
    promtool = require_binary("promtool")
    text = _demo_exposition(tmp_path)
    series = [{"series": _series_line(s.name, dict(s.labels)), "values": f"{s.value:g}x50"}
              for fam in text_string_to_metric_families(text) for s in fam.samples
              if s.name.startswith(("gpuxray_incident", "gpuxray_finding", "gpuxray_gpu_"))]
    series.append({"series": _series_line("gpuxray_gpu_capacity",
                                          {"node": "gpu-9", "resource": "nvidia.com/gpu"}),
                   "values": "0x50"})
    doc = yaml.safe_load(RULES.read_text())
    groups = doc["spec"]["groups"]
    for g in groups:  # annotations are templates; promtool compares them verbatim, so drop them
        for rule in g["rules"]:
            rule.pop("annotations", None)
    (tmp_path / "rules.yml").write_text(yaml.safe_dump({"groups": groups}))
    dropin = "GX501:/etc/containerd/conf.d/registry.toml"
    expect = {
        "GpuxrayIncident": [{"exp_labels": {"incident": dropin, "root_code": "GX501",
                                            "root_name": "containerd-dropin-overwrote-cri",
                                            "severity": "critical"}}],
        "GpuxrayIncidentWarning": [{"exp_labels": {"incident": "GX504", "root_code": "GX504",
                                                   "root_name": "containerd-restarts",
                                                   "severity": "warning"}}],
        "GpuxrayGpusNotAdvertised": [{"exp_labels": {"node": "gpu-9",
                                                     "resource": "nvidia.com/gpu",
                                                     "severity": "critical"}}],
        "GpuxrayIdleButAllocated": [],  # for: 2h
    }
    test = {"rule_files": ["rules.yml"], "evaluation_interval": "1m",
            "tests": [{"interval": "1m", "input_series": series,
                       "alert_rule_test": [{"eval_time": "40m", "alertname": a, "exp_alerts": e}
                                           for a, e in expect.items()]}]}
    (tmp_path / "test.yml").write_text(yaml.safe_dump(test))
    r = subprocess.run([promtool, "test", "rules", str(tmp_path / "test.yml")],
                       capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
