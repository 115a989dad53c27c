"""Real kubectl against ``gpuxray serve``: the served API is real enough for get/describe/logs,
shows exactly what the bundle holds, and refuses writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpuxray.serve.server import BundleServer
from live_fixtures import kubectl_path, scenario, served, write_kubeconfig, write_scenario

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scenario(scenario(), tmp_path_factory.mktemp("kubectl") / "b")


@pytest.fixture(scope="module")
def server(bundle: Path) -> Iterator[BundleServer]:
    with served(bundle) as srv:
        yield srv


@pytest.fixture(scope="module")
def kubectl(server: BundleServer, tmp_path_factory: pytest.TempPathFactory) -> Any:
    exe = kubectl_path()
    d = tmp_path_factory.mktemp("kubecfg")
    kc = write_kubeconfig(server, d / "kubeconfig")
    cache = d / "cache"

    def run(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        p = subprocess.run([exe, f"--kubeconfig={kc}", f"--cache-dir={cache}", *args],
                           capture_output=True, text=True, timeout=60,
                           env={**os.environ, "KUBECONFIG": str(kc)})
        if ok:
            assert p.returncode == 0, p.stderr
        return p

    return run


def items_of(bundle: Path, plural: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads((bundle / f"cluster/{plural}.json").read_text())[
        "items"]
    return items


def test_get_json_equals_the_bundle(kubectl: Any, bundle: Path) -> None:
    nodes = json.loads(kubectl("get", "nodes", "-o", "json").stdout)
    assert nodes["items"] == items_of(bundle, "nodes")
    pods = json.loads(kubectl("get", "pods", "-A", "-o", "json").stdout)
    assert pods["items"] == items_of(bundle, "pods")
    events = json.loads(kubectl("get", "events", "-A", "-o", "json").stdout)
    assert events["items"] == items_of(bundle, "events")
    ds = json.loads(kubectl("get", "ds", "-n", "gpu-operator", "-o", "json").stdout)
    assert ds["items"] == items_of(bundle, "daemonsets")
    cp = json.loads(kubectl("get", "clusterpolicies.nvidia.com", "-o", "json").stdout)
    assert [i["metadata"]["name"] for i in cp["items"]] == ["cluster-policy"]


def test_get_paginates_like_the_api(kubectl: Any, bundle: Path, server: BundleServer) -> None:
    before = len(server.records)
    pods = json.loads(kubectl("get", "pods", "-A", "-o", "json", "--chunk-size=2").stdout)
    assert pods["items"] == items_of(bundle, "pods")
    lists = [r for r in server.records[before:] if r.path.startswith("/api/v1/pods?")]
    assert len(lists) == 3  # 6 pods, 2 per page


def test_selectors(kubectl: Any) -> None:
    out = kubectl("get", "pods", "-A", "-l", "app=trainer", "-o", "name").stdout.split()
    assert out == ["pod/trainer-0", "pod/trainer-1"]
    out = kubectl("get", "pods", "-A", "--field-selector", "spec.nodeName=gpu-1",
                  "-o", "name").stdout.split()
    assert sorted(out) == ["pod/nvidia-device-plugin-daemonset-1", "pod/trainer-0"]
    table = kubectl("get", "pods", "-n", "ml", "-l", "tier in (batch),app!=trainer").stdout
    assert [ln.split()[0] for ln in table.splitlines()[1:]] == ["big-job"]


def test_describe_node_and_pod(kubectl: Any) -> None:
    node = kubectl("describe", "node", "gpu-2").stdout
    assert "Name:               gpu-2" in node
    assert "nvidia.com/gpu=present:NoSchedule" in node
    non_terminated = node.split("Non-terminated Pods:")[1].split("Allocated resources:")[0]
    assert "(2 in total)" in non_terminated
    assert "trainer-1" in non_terminated and "nvidia-device-plugin-daemonset-2" in non_terminated
    assert "Rebooted" in node.split("Events:")[1]
    pod = kubectl("describe", "pod", "-n", "ml", "big-job").stdout
    assert "FailedScheduling" in pod.split("Events:")[1]
    assert "nvidia.com/gpu:  16" in pod


def test_logs(kubectl: Any) -> None:
    pod = "nvidia-device-plugin-daemonset-2"
    out = kubectl("logs", "-n", "gpu-operator", pod, "-c", "nvidia-device-plugin",
                  "--tail", "3").stdout.splitlines()
    assert out == [f"I1129 11:00:{s} main.go:1] line {s} of gpu-2" for s in (37, 38, 39)]
    prev = kubectl("logs", "-n", "gpu-operator", pod, "-c", "nvidia-device-plugin",
                   "--previous").stdout
    assert "ERROR_LIBRARY_NOT_FOUND" in prev
    init = kubectl("logs", "-n", "gpu-operator", pod, "-c", "toolkit-validation").stdout
    assert init.splitlines()[-1] == "toolkit is ready"


def test_writes_are_refused_and_change_nothing(kubectl: Any, server: BundleServer,
                                               bundle: Path) -> None:
    before = len(server.records)
    p = kubectl("delete", "pod", "-n", "ml", "trainer-0", "--wait=false", ok=False)
    assert p.returncode != 0 and "MethodNotAllowed" in p.stderr
    p = kubectl("label", "node", "gpu-1", "x=y", ok=False)
    assert p.returncode != 0
    writes = [r for r in server.records[before:] if r.method not in ("GET", "HEAD")]
    assert writes and all(r.status == 405 for r in writes)
    nodes = json.loads(kubectl("get", "nodes", "-o", "json").stdout)
    assert nodes["items"] == items_of(bundle, "nodes")


def test_serve_command_in_a_subprocess(tmp_path: Path, bundle: Path) -> None:
    """``gpuxray serve`` as users run it: prints its URL, writes a kubeconfig, logs requests."""
    exe = kubectl_path()
    kc, log = tmp_path / "kc", tmp_path / "requests.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "gpuxray", "serve", str(bundle), "--port",
                             "0", "--write-kubeconfig", str(kc), "--request-log", str(log)],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 30
        while not kc.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert kc.exists(), "serve did not start"
        server = json.loads(kc.read_text())["clusters"][0]["cluster"]["server"]
        assert server.startswith("http://127.0.0.1:")
        p = subprocess.run([exe, f"--kubeconfig={kc}", f"--cache-dir={tmp_path / 'c'}", "get",
                            "runtimeclasses", "-o", "name"],
                           capture_output=True, text=True, timeout=60)
        assert p.stdout.split() == ["runtimeclass.node.k8s.io/nvidia"], p.stderr
        records = [json.loads(ln) for ln in log.read_text().splitlines()]
        assert any(r["path"].startswith("/apis/node.k8s.io/v1/runtimeclasses")
                   and r["status"] == 200 for r in records)
        assert {r["method"] for r in records} == {"GET"}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_command_rejects_bad_input(tmp_path: Path) -> None:
    from gpuxray.cli.main import run

    assert run(["serve", str(tmp_path / "absent"), "--port", "0"]) == 2
    assert run(["serve", str(tmp_path), "--port", "0", "--fault", "418"]) == 2
