"""``gpuxray serve`` against the real kube-apiserver, with real kubectl on both.

The live-source scenario is replayed into the apiserver, collected by ``gpuxray collect`` and
served by ``gpuxray serve``: the same objects on both sides. kubectl's Table output (the
columns the server chooses per kind, ``-o wide`` included), ``-o json``, ``describe
node``/``describe pod``, events by field selector, label selectors and ``--chunk-size`` paging
must read the same from both. Ages are the only thing allowed to differ
(the two commands do not run in the same second); objects are compared as gpuxray stores them
(credential-looking values redacted at collection).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import controlplane as cplane
from controlplane_fixture import control_plane, namespace, replayed  # noqa: F401
from gpuxray.cli.main import run
from gpuxray.sources.redact import redact_obj
from live_fixtures import kubectl_path, served, write_kubeconfig

pytestmark = pytest.mark.slow

AGE = re.compile(r"^(?:\d+[ydhms]){1,2}$|^<invalid>$")


@pytest.fixture(scope="module")
def both(replayed: cplane.ControlPlane,  # noqa: F811
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    cp = replayed
    d = tmp_path_factory.mktemp("fidelity")
    bundle = d / "bundle"
    assert run(["collect", "--kubeconfig", str(cp.kubeconfig), "-o", str(bundle), "-q"]) == 0
    exe = kubectl_path()
    with served(bundle) as srv:
        kc_serve = write_kubeconfig(srv, d / "serve.kubeconfig")

        yield (kubectl_for(exe, cp.kubeconfig, d / "c1"),
               kubectl_for(exe, kc_serve, d / "c2"))


def kubectl_for(exe: str, kc: Path, cache: Path) -> Any:
    """The real kubectl bound to one server's kubeconfig and its own discovery cache."""
    def k(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([exe, f"--kubeconfig={kc}", f"--cache-dir={cache}", *args],
                              capture_output=True, text=True, timeout=60)
    return k


def ageless(text: str) -> list[list[str]]:
    """Lines as whitespace-split cells, each age ("5s", "3m2s", "2d") as one token; column
    widths follow the widest cell, so they are not compared."""
    return [["<age>" if AGE.match(tok) else tok for tok in line.split()]
            for line in text.splitlines()]


def unredacted(theirs: list[list[str]], mine: list[list[str]]) -> list[list[str]]:
    """``mine`` with each "<redacted>" cell replaced by the apiserver's cell at that place:
    the one difference collection makes on purpose (docs/live.md, Redaction)."""
    out = []
    for i, line in enumerate(mine):
        ref = theirs[i] if i < len(theirs) else []
        out.append([ref[j] if tok == "<redacted>" and j < len(ref) else tok
                    for j, tok in enumerate(line)])
    return out


def same(both: tuple[Any, Any], *args: str) -> str:
    real, srv = both
    a, b = real(*args), srv(*args)
    assert a.returncode == 0, a.stderr
    assert b.returncode == 0, (args, b.stderr)
    theirs = ageless(a.stdout)
    assert unredacted(theirs, ageless(b.stdout)) == theirs, (args, a.stdout, b.stdout)
    return str(a.stdout)


@pytest.mark.parametrize("args", [
    ("describe", "node", "gpu-2"),
    ("describe", "node", "gpu-1"),
    ("describe", "pod", "-n", "ml", "big-job"),
    ("describe", "pod", "-n", "ml", "trainer-0"),
    ("describe", "pod", "-n", "gpu-operator", "nvidia-device-plugin-daemonset-2"),
], ids=lambda a: " ".join(a))
def test_kubectl_reads_the_same(both: tuple[Any, Any], args: tuple[str, ...]) -> None:
    same(both, *args)


@pytest.mark.parametrize("args", [
    ("get", "nodes"),
    ("get", "nodes", "-o", "wide"),
    ("get", "node", "gpu-2", "-o", "wide"),
    ("get", "nodes", "--show-labels"),
    ("get", "pods", "-A"),
    ("get", "pods", "-A", "-o", "wide"),
    ("get", "pods", "-A", "-o", "wide", "--chunk-size=2"),
    ("get", "pods", "-n", "ml", "-o", "wide"),
    ("get", "pods", "-n", "gpu-operator", "nvidia-device-plugin-daemonset-2"),
    ("get", "ds", "-A"),
    ("get", "ds", "-A", "-o", "wide"),
    ("get", "deploy", "-A", "-o", "wide"),
    ("get", "rs", "-A", "-o", "wide"),
    ("get", "sts", "-A", "-o", "wide"),
    ("get", "jobs", "-A", "-o", "wide"),
    ("get", "events", "-A"),
    ("get", "events", "-A", "-o", "wide"),
    ("get", "runtimeclasses"),
    ("get", "resourcequotas", "-A"),
    ("get", "clusterpolicies.nvidia.com"),
    ("get", "cm", "-n", "gpu-operator", "time-slicing-config"),
], ids=lambda a: " ".join(a))
def test_tables_read_the_same(both: tuple[Any, Any], args: tuple[str, ...]) -> None:
    """kubectl prints the server's Table: the same headers and, ages aside, the same cells."""
    out = same(both, *args)
    assert len(out.splitlines()) > 1, out  # not a vacuous "No resources found"


@pytest.mark.parametrize("args", [
    ("get", "nodes", "-o", "json"),
    ("get", "pods", "-A", "-o", "json"),
    ("get", "pods", "-A", "-o", "json", "--chunk-size=2"),
    ("get", "daemonsets", "-n", "gpu-operator", "-o", "json"),
    ("get", "events", "-A", "-o", "json"),
    ("get", "clusterpolicies.nvidia.com", "-o", "json"),
], ids=lambda a: " ".join(a))
def test_json_is_the_same_objects(both: tuple[Any, Any], args: tuple[str, ...]) -> None:
    real, srv = both
    a, b = real(*args), srv(*args)
    assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
    theirs = [redact_obj(o) for o in json.loads(a.stdout)["items"]]
    mine = json.loads(b.stdout)["items"]
    assert mine == theirs


def _pod_states(ns: str) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(name, spec, status): the shapes printPod turns into READY/STATUS/RESTARTS."""
    def c(name: str, **state: Any) -> dict[str, Any]:
        return {"name": name, "image": "x", "imageID": "", "ready": False, "restartCount": 0,
                **state}
    two = {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "x"}]}
    init = {"initContainers": [{"name": "i0", "image": "x"}, {"name": "i1", "image": "x"}]}
    sidecar = {"initContainers": [{"name": "s", "image": "x", "restartPolicy": "Always"}]}
    run = {"running": {"startedAt": "2026-11-30T10:00:00Z"}}
    crash = {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}}
    last = {"terminated": {"exitCode": 1, "reason": "Error",
                           "startedAt": "2026-11-30T09:00:00Z",
                           "finishedAt": "2026-11-30T09:30:00Z"}}
    done = {"terminated": {"exitCode": 0, "reason": "Completed",
                           "startedAt": "2026-11-30T09:00:00Z",
                           "finishedAt": "2026-11-30T09:30:00Z"}}
    return [
        ("crashing", two, {"phase": "Running", "podIP": "10.9.0.1",
                           "podIPs": [{"ip": "10.9.0.1"}], "containerStatuses": [
            c("a", ready=True, state=run), c("b", restartCount=7, state=crash, lastState=last)]}),
        ("initializing", {**init, **two}, {"phase": "Pending", "initContainerStatuses": [
            c("i0", state=done), c("i1", state={"waiting": {"reason": "PodInitializing"}})],
            "containerStatuses": [c("a", state={"waiting": {"reason": "PodInitializing"}}),
                                  c("b", state={"waiting": {"reason": "PodInitializing"}})]}),
        ("init-failed", {**init, **two}, {"phase": "Pending", "initContainerStatuses": [
            c("i0", state={"terminated": {"exitCode": 2, "startedAt": "2026-11-30T09:00:00Z",
                                          "finishedAt": "2026-11-30T09:30:00Z"}}),
            c("i1", state={"waiting": {}})]}),
        ("sidecar", {**sidecar, "containers": [{"name": "a", "image": "x"}]}, {
            "phase": "Running", "conditions": [{"type": "Initialized", "status": "True"},
                                                {"type": "Ready", "status": "True"}],
            "initContainerStatuses": [c("s", ready=True, started=True, state=run)],
            "containerStatuses": [c("a", ready=True, state=run)]}),
        ("finished", two, {"phase": "Succeeded", "containerStatuses": [
            c("a", state=done), c("b", state=done)]}),
        ("oom", two, {"phase": "Running", "containerStatuses": [
            c("a", ready=True, state=run),
            c("b", restartCount=1, state={"terminated": {
                "exitCode": 137, "reason": "OOMKilled", "startedAt": "2026-11-30T09:00:00Z",
                "finishedAt": "2026-11-30T09:30:00Z"}})]}),
        ("gated", {**two, "readinessGates": [{"conditionType": "example.com/ok"}]}, {
            "phase": "Running",
            "conditions": [{"type": "example.com/ok", "status": "True"}]}),
    ]


def test_pod_states_and_event_order_read_the_same(
        replayed: cplane.ControlPlane, namespace: str,  # noqa: F811
        tmp_path: Path) -> None:
    """Container states through init, sidecar, crash, OOM and completion, and events whose
    last-seen order is not their name order, printed by both servers."""
    cp = replayed
    for name, spec, status in _pod_states(namespace):
        created = cp.create({"apiVersion": "v1", "kind": "Pod",
                             "metadata": {"name": name, "namespace": namespace},
                             "spec": {**spec, "nodeName": "cpu-1"}})
        created["status"] = {**created.get("status", {}), **status}
        cp.ok("PUT", f"/api/v1/namespaces/{namespace}/pods/{name}/status", created)
    for i, (reason, seen) in enumerate([("B", "2026-11-30T11:00:00Z"),
                                        ("A", "2026-11-30T09:00:00Z"),
                                        ("C", "2026-11-30T10:00:00Z")]):
        cp.create({"apiVersion": "v1", "kind": "Event",
                   "metadata": {"name": f"ev-{i}", "namespace": namespace},
                   "involvedObject": {"kind": "Pod", "name": "crashing", "namespace": namespace,
                                      "fieldPath": "spec.containers{b}"},
                   "reason": reason, "message": f"m {i}", "type": "Normal", "count": i + 2,
                   "firstTimestamp": "2026-11-30T08:00:00Z", "lastTimestamp": seen,
                   "source": {"component": "kubelet", "host": "cpu-1"}})
    dra = "/apis/resource.k8s.io/v1"
    slices = {"t-slice-node": {"nodeName": "cpu-1"}, "t-slice-all": {"allNodes": True}}
    cp.ok("POST", f"{dra}/deviceclasses", {"metadata": {"name": "t.example.com"}, "spec": {}})
    try:
        for name, where in slices.items():
            cp.ok("POST", f"{dra}/resourceslices", {"metadata": {"name": name}, "spec": {
                "driver": "t.example.com", "devices": [{"name": "d0"}],
                "pool": {"name": name, "generation": 1, "resourceSliceCount": 1}, **where}})
        for name in ("claim-pending", "claim-allocated"):
            cp.ok("POST", f"{dra}/namespaces/{namespace}/resourceclaims", {
                "metadata": {"name": name}, "spec": {"devices": {"requests": [
                    {"name": "r", "exactly": {"deviceClassName": "t.example.com"}}]}}})
        claim = cp.get(f"{dra}/namespaces/{namespace}/resourceclaims/claim-allocated")
        claim["status"] = {"allocation": {"devices": {"results": [
            {"request": "r", "driver": "t.example.com", "pool": "t-slice-node",
             "device": "d0"}]}}}
        cp.ok("PUT", f"{dra}/namespaces/{namespace}/resourceclaims/claim-allocated/status",
              claim)
        bundle = tmp_path / "bundle"
        assert run(["collect", "--kubeconfig", str(cp.kubeconfig), "-o", str(bundle), "-q"]) == 0
        exe = kubectl_path()
        with served(bundle) as srv:
            kc = write_kubeconfig(srv, tmp_path / "serve.kubeconfig")

            pair = (kubectl_for(exe, cp.kubeconfig, tmp_path / "c1"),
                    kubectl_for(exe, kc, tmp_path / "c2"))
            pods = same(pair, "get", "pods", "-n", namespace, "-o", "wide")
            events = same(pair, "get", "events", "-n", namespace, "-o", "wide")
            same(pair, "get", "resourceslices", "-o", "wide")
            claims = same(pair, "get", "resourceclaims", "-n", namespace)
            same(pair, "get", "deviceclasses", "t.example.com")
    finally:
        for name in slices:
            cp.request("DELETE", f"{dra}/resourceslices/{name}")
        cp.request("DELETE", f"{dra}/deviceclasses/t.example.com")
    assert [line.split()[1] for line in claims.splitlines()[1:]] == ["allocated", "pending"]
    assert len(pods.splitlines()) == 1 + len(_pod_states(namespace))
    # the server keeps the list's (name) order; it does not sort by last seen
    assert [line.split()[2] for line in events.splitlines()[1:]] == ["B", "A", "C"]
