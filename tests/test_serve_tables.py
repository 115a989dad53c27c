"""``gpuxray serve``'s server-side printing, request by request: kubectl's Table Accept gets a
``meta.k8s.io`` Table with the kind's columns; the cell rules of ``printers.go`` (pod status
from container states, node roles, selectors, ages). ``test_controlplane_serve.py`` checks the
same tables cell for cell against kube-apiserver 1.37.2."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from gpuxray.serve.api import handle
from gpuxray.serve.store import load_store
from gpuxray.serve.tables import (
    KINDS,
    format_selector,
    human_duration,
    since,
    wants_table,
)
from live_fixtures import scenario, write_scenario

KUBECTL_ACCEPT = ("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;"
                  "v=v1beta1;g=meta.k8s.io,application/json")
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def ago(seconds: float) -> str:
    return (NOW - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize(("seconds", "text"), [
    (-5, "<invalid>"), (-1, "0s"), (0, "0s"), (119, "119s"), (120, "2m"), (125, "2m5s"),
    (600, "10m"), (179 * 60, "179m"), (3 * 3600, "3h"), (3 * 3600 + 60, "3h1m"),
    (8 * 3600, "8h"), (47 * 3600, "47h"), (48 * 3600, "2d"), (50 * 3600, "2d2h"),
    (8 * 86400, "8d"), (729 * 86400, "729d"), (730 * 86400, "2y"), (731 * 86400, "2y1d"),
    (9 * 365 * 86400, "9y"),
])
def test_human_duration(seconds: int, text: str) -> None:
    assert human_duration(seconds) == text


def test_since_unknown_without_a_time() -> None:
    assert since(None, NOW) == "<unknown>"
    assert since("not a time", NOW) == "<unknown>"
    assert since("2026-12-01T11:59:30.123456Z", NOW) == "29s"


def test_accept_negotiation() -> None:
    assert wants_table(KUBECTL_ACCEPT) == "v1"
    assert wants_table("application/json;as=Table;v=v1beta1;g=meta.k8s.io") == "v1beta1"
    assert wants_table("application/json") == ""
    assert wants_table("application/json;as=Table;v=v1;g=example.com") == ""


def test_selector_format() -> None:
    sel = {"matchLabels": {"b": "2", "a": "1"},
           "matchExpressions": [{"key": "tier", "operator": "In", "values": ["y", "x"]},
                                {"key": "gone", "operator": "DoesNotExist"},
                                {"key": "here", "operator": "Exists"}]}
    assert format_selector(sel) == "!gone,a=1,b=2,here,tier in (x,y)"
    assert format_selector(None) == "<none>"
    assert format_selector({}) == "<none>"


def pod_cells(pod: dict[str, Any]) -> list[Any]:
    cells, _ = KINDS[("", "pods")].printer({"metadata": {"name": "p",
                                                         "creationTimestamp": ago(60)}, **pod},
                                           NOW)
    return cells


def running(name: str, ready: bool = True, restarts: int = 0) -> dict[str, Any]:
    return {"name": name, "ready": ready, "restartCount": restarts,
            "state": {"running": {"startedAt": ago(30)}}}


def test_pod_status_rules() -> None:
    two = {"containers": [{"name": "a"}, {"name": "b"}]}
    cells = pod_cells({"spec": two, "status": {"phase": "Running", "containerStatuses": [
        running("a"), {"name": "b", "ready": False, "restartCount": 4,
                       "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                       "lastState": {"terminated": {"exitCode": 1, "finishedAt": ago(300)}}}]}})
    assert cells[1:4] == ["1/2", "CrashLoopBackOff", "4 (5m ago)"]
    # an init container still waiting: Init:<i>/<n>, app containers not looked at
    cells = pod_cells({"spec": {"initContainers": [{"name": "i0"}, {"name": "i1"}], **two},
                       "status": {"phase": "Pending", "initContainerStatuses": [
                           {"name": "i0", "state": {"terminated": {"exitCode": 0}}},
                           {"name": "i1", "state": {"running": {}}}]}})
    assert cells[1:3] == ["0/2", "Init:1/2"]
    cells = pod_cells({"spec": {"initContainers": [{"name": "i0"}], **two},
                       "status": {"phase": "Pending", "initContainerStatuses": [
                           {"name": "i0", "state": {"terminated": {"exitCode": 3}}}]}})
    assert cells[2] == "Init:ExitCode:3"
    # a restartable init container (sidecar) counts in READY and in the total
    cells = pod_cells({"spec": {"initContainers": [{"name": "s", "restartPolicy": "Always"}],
                                "containers": [{"name": "a"}]},
                       "status": {"phase": "Running", "conditions": [
                           {"type": "Initialized", "status": "True"}],
                           "initContainerStatuses": [dict(running("s"), started=True)],
                           "containerStatuses": [running("a")]}})
    assert cells[1:3] == ["2/2", "Running"]
    cells = pod_cells({"spec": two, "status": {"phase": "Succeeded", "containerStatuses": [
        {"name": n, "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}
        for n in ("a", "b")]}})
    assert cells[1:4] == ["0/2", "Completed", "0"]
    cells = pod_cells({"metadata": {"name": "p", "deletionTimestamp": ago(1)},
                       "spec": two, "status": {"phase": "Running"}})
    assert cells[2] == "Terminating"
    cells = pod_cells({"spec": {**two, "nodeName": "n1",
                                "readinessGates": [{"conditionType": "x"},
                                                   {"conditionType": "y"}]},
                       "status": {"phase": "Pending", "podIPs": [{"ip": "10.1.2.3"}],
                                  "conditions": [{"type": "x", "status": "True"}]}})
    assert cells[5:] == ["10.1.2.3", "n1", "<none>", "1/2"]


def test_node_cells() -> None:
    node = {"metadata": {"name": "n", "creationTimestamp": ago(3600), "labels": {
        "node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/": "",
        "kubernetes.io/role": "gpu"}},
        "spec": {"unschedulable": True},
        "status": {"conditions": [{"type": "Ready", "status": "Unknown"}],
                   "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}],
                   "nodeInfo": {"kubeletVersion": "v1.31.4", "architecture": "arm64"}}}
    cells, _ = KINDS[("", "nodes")].printer(node, NOW)
    assert cells == ["n", "NotReady,SchedulingDisabled", "gpu,worker", "60m", "v1.31.4",
                     "10.0.0.1", "<none>", "<unknown>", "<unknown> (arm64)", "<unknown>"]
    cells, _ = KINDS[("", "nodes")].printer({"metadata": {"name": "m"}}, NOW)
    assert cells[1:4] == ["Unknown", "<none>", "<unknown>"]


def test_event_cells_fall_back_to_event_time_and_series() -> None:
    ev = {"metadata": {"name": "e"}, "type": "Warning", "reason": "FailedScheduling",
          "involvedObject": {"kind": "Pod", "name": "p"}, "message": "0/4 nodes\n",
          "eventTime": "2026-12-01T11:59:00.000000Z", "reportingComponent": "default-scheduler",
          "reportingInstance": "default-scheduler-x",
          "series": {"count": 7, "lastObservedTime": "2026-12-01T11:59:50.000000Z"}}
    cells, _ = KINDS[("", "events")].printer(ev, NOW)
    assert cells == ["10s", "Warning", "FailedScheduling", "pod/p", "",
                     "default-scheduler, default-scheduler-x", "0/4 nodes", "60s", 7, "e"]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    b = write_scenario(scenario(), tmp_path_factory.mktemp("tables") / "b")
    manifest = b / "manifest.json"
    doc = json.loads(manifest.read_text()) if manifest.is_file() else {}
    manifest.write_text(json.dumps({**doc, "collected_at": "2030-01-01T00:00:00Z"}))
    (b / "cluster" / "resourceslices.json").write_text(json.dumps({"items": [
        {"metadata": {"name": "s"}, "spec": {"driver": "gpu.nvidia.com"}}]}))
    return b


def table(bundle: Path, target: str, accept: str = KUBECTL_ACCEPT) -> tuple[str, Any]:
    store = load_store(bundle)
    try:
        r = handle(store, "GET", target, accept=accept)
    finally:
        store.close()
    assert r.status == 200, r.body
    return r.content_type, json.loads(r.body)


def test_list_answers_a_table_with_partial_metadata(bundle: Path) -> None:
    ctype, doc = table(bundle, "/api/v1/nodes?limit=2")
    assert ctype == "application/json;as=Table;v=v1;g=meta.k8s.io"
    assert doc["kind"] == "Table" and doc["apiVersion"] == "meta.k8s.io/v1"
    assert [c["name"] for c in doc["columnDefinitions"]] == [
        "Name", "Status", "Roles", "Age", "Version", "Internal-IP", "External-IP", "OS-Image",
        "Kernel-Version", "Container-Runtime"]
    assert [c["priority"] for c in doc["columnDefinitions"]] == [0] * 5 + [1] * 5
    assert len(doc["rows"]) == 2 and doc["metadata"]["remainingItemCount"] == 2
    obj = doc["rows"][0]["object"]
    assert obj["kind"] == "PartialObjectMetadata" and obj["metadata"]["name"] == "gpu-1"
    assert doc["rows"][0]["cells"][0] == "gpu-1"
    # the ages are counted to the bundle's collection time, not to now
    created = datetime.fromisoformat(obj["metadata"]["creationTimestamp"].replace("Z", "+00:00"))
    want = human_duration((datetime(2030, 1, 1, tzinfo=UTC) - created).total_seconds())
    assert doc["rows"][0]["cells"][3] == want


def test_include_object_and_v1beta1(bundle: Path) -> None:
    _, doc = table(bundle, "/api/v1/namespaces/gpu-operator/pods?includeObject=Object")
    assert doc["rows"] and all(r["object"]["kind"] == "Pod" and "spec" in r["object"]
                               for r in doc["rows"])
    _, doc = table(bundle, "/api/v1/pods?includeObject=None")
    assert doc["rows"] and all("object" not in r for r in doc["rows"])
    ctype, doc = table(bundle, "/apis/apps/v1/namespaces/gpu-operator/daemonsets",
                       accept="application/json;as=Table;v=v1beta1;g=meta.k8s.io")
    assert doc["apiVersion"] == "meta.k8s.io/v1beta1" and ctype.endswith("v=v1beta1;g=meta.k8s.io")
    assert doc["rows"][0]["object"]["apiVersion"] == "meta.k8s.io/v1beta1"


def test_get_one_object_is_a_one_row_table(bundle: Path) -> None:
    _, doc = table(bundle, "/api/v1/nodes/gpu-2")
    assert [r["cells"][0] for r in doc["rows"]] == ["gpu-2"]


def test_plain_json_stays_a_list(bundle: Path) -> None:
    _, doc = table(bundle, "/api/v1/nodes", accept="application/json")
    assert doc["kind"] == "NodeList"
    _, doc = table(bundle, "/apis/nvidia.com/v1/clusterpolicies")
    # a custom resource: the apiextensions NAME/AGE default, its Age typed as a date
    assert [(c["name"], c["type"]) for c in doc["columnDefinitions"]] == [
        ("Name", "string"), ("Age", "date")]
    _, doc = table(bundle, "/apis/resource.k8s.io/v1/resourceslices")
    assert doc["rows"][0]["cells"][:4] == ["s", "", "gpu.nvidia.com", ""]


def test_job_cells() -> None:
    job = {"metadata": {"name": "j"}, "spec": {"parallelism": 3},
           "status": {"succeeded": 1, "startTime": ago(600), "completionTime": ago(480),
                      "conditions": [{"type": "Failed", "status": "False"},
                                     {"type": "Complete", "status": "True"}]}}
    cells, _ = KINDS[("batch", "jobs")].printer(job, NOW)
    assert cells[1:4] == ["Complete", "1/1 of 3", "2m"]
    cells, _ = KINDS[("batch", "jobs")].printer(
        {"metadata": {"name": "j"}, "spec": {"completions": 4}, "status": {}}, NOW)
    assert cells[1:4] == ["Running", "0/4", ""]
