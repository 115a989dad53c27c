"""``gpuxray serve``'s API, request by request (no sockets): discovery, LIST/GET, selectors,
pagination, logs, read-only verbs, and the fault-spec grammar."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpuxray.errors import InputError
from gpuxray.serve.api import handle
from gpuxray.serve.faults import FaultPlan, FaultSpecError, parse_fault
from gpuxray.serve.selectors import SelectorError, labels_of, parse_fields, parse_labels
from gpuxray.serve.store import BundleStore, load_store
from live_fixtures import scenario, write_scenario


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scenario(scenario(), tmp_path_factory.mktemp("serve") / "b")


@pytest.fixture(scope="module")
def store(bundle: Path) -> Iterator[BundleStore]:
    s = load_store(bundle)
    yield s
    s.close()


def get(store: BundleStore, target: str, method: str = "GET") -> tuple[int, Any]:
    r = handle(store, method, target)
    body = json.loads(r.body) if r.content_type == "application/json" else r.body.decode()
    return r.status, body


def names(doc: dict[str, Any]) -> list[str]:
    return [i["metadata"]["name"] for i in doc["items"]]


def bundle_items(bundle: Path, plural: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads((bundle / f"cluster/{plural}.json").read_text())[
        "items"]
    return items


def test_discovery_lists_every_group_and_resource(store: BundleStore) -> None:
    code, api = get(store, "/api")
    assert code == 200 and api["versions"] == ["v1"]
    code, core = get(store, "/api/v1")
    core_names = {r["name"] for r in core["resources"]}
    assert {"nodes", "pods", "pods/log", "events", "configmaps", "resourcequotas",
            "namespaces"} <= core_names
    code, groups = get(store, "/apis")
    gv = {v["groupVersion"] for g in groups["groups"] for v in g["versions"]}
    assert gv == {"apps/v1", "batch/v1", "node.k8s.io/v1", "nvidia.com/v1",
                  "nvidia.com/v1alpha1", "resource.k8s.io/v1", "resource.nvidia.com/v1beta1"}
    _, nv = get(store, "/apis/nvidia.com/v1")
    assert [r["name"] for r in nv["resources"]] == ["clusterpolicies"]
    _, nva = get(store, "/apis/nvidia.com/v1alpha1")
    assert [(r["name"], r["namespaced"]) for r in nva["resources"]] == [("nvidiadrivers", False)]
    code, apps = get(store, "/apis/apps/v1")
    assert {r["name"] for r in apps["resources"]} == {"daemonsets", "deployments",
                                                      "replicasets", "statefulsets"}
    assert get(store, "/apis/nope/v1")[0] == 404
    code, ver = get(store, "/version")
    assert code == 200 and ver["gitVersion"] == "v1.31.4"


def test_lists_keep_every_field_of_the_bundle(store: BundleStore, bundle: Path) -> None:
    code, doc = get(store, "/api/v1/nodes")
    assert code == 200
    assert doc["kind"] == "NodeList" and doc["apiVersion"] == "v1"
    assert doc["metadata"]["resourceVersion"]
    assert doc["items"] == bundle_items(bundle, "nodes")
    code, ds = get(store, "/apis/apps/v1/namespaces/gpu-operator/daemonsets")
    assert ds["kind"] == "DaemonSetList"
    assert ds["items"] == bundle_items(bundle, "daemonsets")


def test_namespaced_and_cluster_scoped_paths(store: BundleStore) -> None:
    _, ml = get(store, "/api/v1/namespaces/ml/pods")
    assert sorted(names(ml)) == ["big-job", "trainer-0", "trainer-1"]
    _, all_pods = get(store, "/api/v1/pods")
    assert len(all_pods["items"]) == 6
    code, pod = get(store, "/api/v1/namespaces/ml/pods/trainer-0")
    assert code == 200 and pod["kind"] == "Pod" and pod["spec"]["nodeName"] == "gpu-1"
    assert get(store, "/api/v1/namespaces/gpu-operator/pods/trainer-0")[0] == 404
    assert get(store, "/api/v1/pods/trainer-0")[0] == 404  # namespaced needs a namespace
    code, node = get(store, "/api/v1/nodes/gpu-3")
    assert code == 200 and node["metadata"]["name"] == "gpu-3"
    code, st = get(store, "/api/v1/nodes/gpu-9")
    assert code == 404 and st["kind"] == "Status" and st["reason"] == "NotFound"
    assert get(store, "/api/v1/namespaces/ml/nodes")[0] == 404
    _, nss = get(store, "/api/v1/namespaces")
    assert sorted(names(nss)) == ["default", "gpu-operator", "ml"]
    assert get(store, "/apis/node.k8s.io/v1/runtimeclasses/nvidia")[1]["handler"] == "nvidia"
    code, cp = get(store, "/apis/nvidia.com/v1/clusterpolicies/cluster-policy")
    assert code == 200 and cp["status"]["state"] == "ready"
    code, missing = get(store, "/apis/nvidia.com/v1alpha1/nvidiadrivers")
    assert code == 404 and missing["code"] == 404  # not in the bundle: like a missing CRD


@pytest.mark.parametrize(("selector", "expected"), [
    ("app=trainer", ["trainer-0", "trainer-1"]),
    ("app==trainer", ["trainer-0", "trainer-1"]),
    ("tier=batch,app!=trainer", ["big-job"]),
    ("app in (big-job, trainer)", ["big-job", "trainer-0", "trainer-1"]),
    ("tier=batch,app notin (trainer)", ["big-job"]),
    ("tier", ["big-job", "trainer-0", "trainer-1"]),
    ("!tier", ["nvidia-device-plugin-daemonset-1", "nvidia-device-plugin-daemonset-2",
               "nvidia-device-plugin-daemonset-3"]),
    ("app=nothing", []),
])
def test_label_selectors(store: BundleStore, selector: str, expected: list[str]) -> None:
    from urllib.parse import quote

    code, doc = get(store, f"/api/v1/pods?labelSelector={quote(selector)}")
    assert code == 200
    assert sorted(names(doc)) == expected


@pytest.mark.parametrize(("selector", "expected"), [
    ("spec.nodeName=gpu-1", ["nvidia-device-plugin-daemonset-1", "trainer-0"]),
    ("spec.nodeName=gpu-2,metadata.namespace=ml", ["trainer-1"]),
    ("status.phase!=Running", ["big-job"]),
    ("metadata.name=trainer-1", ["trainer-1"]),
    ("spec.nodeName=", ["big-job"]),
])
def test_field_selectors(store: BundleStore, selector: str, expected: list[str]) -> None:
    code, doc = get(store, f"/api/v1/pods?fieldSelector={selector}")
    assert code == 200
    assert sorted(names(doc)) == expected


def test_event_field_selectors_as_kubectl_describe_sends_them(store: BundleStore) -> None:
    pod = get(store, "/api/v1/namespaces/ml/pods/big-job")[1]
    sel = (f"involvedObject.name=big-job,involvedObject.namespace=ml,"
           f"involvedObject.kind=Pod,involvedObject.uid={pod['metadata']['uid']}")
    code, doc = get(store, f"/api/v1/namespaces/ml/events?fieldSelector={sel}")
    assert code == 200
    assert [e["reason"] for e in doc["items"]] == ["FailedScheduling"]
    code, none = get(store, "/api/v1/events?fieldSelector=involvedObject.uid=nope")
    assert none["items"] == []


def test_bad_selectors_are_400(store: BundleStore) -> None:
    assert get(store, "/api/v1/pods?labelSelector=app%20in%20(a")[0] == 400
    assert get(store, "/api/v1/pods?fieldSelector=spec.bogus=1")[0] == 400
    assert get(store, "/api/v1/pods?limit=x")[0] == 400


def test_pagination_returns_every_item_once(store: BundleStore) -> None:
    seen: list[str] = []
    token = ""
    pages = 0
    while True:
        q = "limit=4" + (f"&continue={token}" if token else "")
        code, doc = get(store, f"/api/v1/pods?{q}")
        assert code == 200
        pages += 1
        seen.extend(names(doc))
        token = doc["metadata"].get("continue", "")
        if not token:
            assert "remainingItemCount" not in doc["metadata"]
            break
        assert doc["metadata"]["remainingItemCount"] == 6 - len(seen)
    assert pages == 2
    _, full = get(store, "/api/v1/pods")
    assert seen == names(full)


def test_continue_token_is_bound_to_its_query(store: BundleStore) -> None:
    _, first = get(store, "/api/v1/pods?limit=2")
    token = first["metadata"]["continue"]
    assert get(store, f"/api/v1/nodes?limit=2&continue={token}")[0] == 400
    assert get(store, "/api/v1/pods?limit=2&continue=garbage!")[0] == 400


def test_logs(store: BundleStore) -> None:
    base = "/api/v1/namespaces/gpu-operator/pods/nvidia-device-plugin-daemonset-2/log"
    code, text = get(store, f"{base}?container=nvidia-device-plugin&tailLines=2")
    assert code == 200
    assert text.splitlines() == ["I1129 11:00:38 main.go:1] line 38 of gpu-2",
                                 "I1129 11:00:39 main.go:1] line 39 of gpu-2"]
    code, prev = get(store, f"{base}?container=nvidia-device-plugin&previous=true")
    assert code == 200 and "ERROR_LIBRARY_NOT_FOUND" in prev
    code, _ = get(store, f"{base}?container=toolkit-validation&previous=true")
    assert code == 400  # no previous instance in the bundle
    code, default = get(store, base)  # one main container: it is the default
    assert code == 200 and len(default.splitlines()) == 40
    assert get(store, f"{base}?container=nope")[0] == 400
    assert get(store, f"{base}?container=nvidia-device-plugin&limitBytes=10")[1] == "I1129 11:0"
    assert get(store, "/api/v1/namespaces/ml/pods/ghost/log")[0] == 404


@pytest.mark.parametrize("verb", ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
def test_write_verbs_are_refused(store: BundleStore, verb: str) -> None:
    code, st = get(store, "/api/v1/namespaces/ml/pods/trainer-0", method=verb)
    assert code == 405 and st["kind"] == "Status" and st["reason"] == "MethodNotAllowed"
    assert get(store, "/api/v1/namespaces/ml/pods/trainer-0")[0] == 200  # still there


def test_watch_and_unknown_paths(store: BundleStore) -> None:
    assert get(store, "/api/v1/pods?watch=true")[0] == 405
    assert get(store, "/openapi/v2")[0] == 404
    assert get(store, "/api/v1/secrets")[0] == 404  # never collected, never served
    assert get(store, "/api/v1/namespaces/ml/pods/trainer-0/exec")[0] == 404


def test_store_accepts_tarballs_and_rejects_junk(tmp_path: Path) -> None:
    tar = scenario().write_tar(tmp_path / "b.tar.gz")
    s = load_store(tar)
    try:
        assert len(s.items["nodes"]) == 4
        assert s.log_file("gpu-operator", "nvidia-device-plugin-daemonset-1",
                          "nvidia-device-plugin", False) is not None
    finally:
        s.close()
    junk = tmp_path / "junk"
    (junk / "cluster").mkdir(parents=True)
    (junk / "cluster" / "nodes.json").write_bytes(b"{\x00\xff not json")
    with pytest.raises(InputError):
        load_store(junk)
    with pytest.raises(InputError):
        load_store(tmp_path / "absent")


def test_label_parser_grammar() -> None:
    reqs = parse_labels("a=1,b!=2,c in (x, y),d notin (z),e,!f")
    assert [(r.key, r.op, r.values) for r in reqs] == [
        ("a", "=", ("1",)), ("b", "!=", ("2",)), ("c", "in", ("x", "y")),
        ("d", "notin", ("z",)), ("e", "exists", ()), ("f", "!", ())]
    labels = {"a": "1", "c": "y", "e": ""}
    assert all(r.matches(labels) for r in reqs)
    assert not parse_labels("a=2")[0].matches(labels)
    assert parse_labels("nvidia.com/gpu.present=true")[0].key == "nvidia.com/gpu.present"
    for bad in ("a in (x", "a=1,,b=2", "=x", "a)"):
        with pytest.raises(SelectorError):
            parse_labels(bad)
    assert labels_of({"metadata": {"labels": None}}) == {}
    assert [f.field for f in parse_fields("spec.nodeName=a,status.phase!=b")] == [
        "spec.nodeName", "status.phase"]


def test_fault_specs() -> None:
    f = parse_fault("429:every=3,retry-after=2,path=/api/v1/nodes")
    assert (f.kind, f.every, f.retry_after, f.path) == ("429", 3, 2.0, "/api/v1/nodes")
    assert parse_fault("410").times == 1
    assert parse_fault("500:continue").only_continue
    for bad in ("418", "429:every=0", "slow:delay=x", "500:bogus=1"):
        with pytest.raises(FaultSpecError):
            parse_fault(bad)
    plan = FaultPlan.parse(["500:every=2,after=1,times=2"])
    hits = [plan.pick("/api/v1/pods", False) is not None for _ in range(9)]
    # requests 1..9: after=1 skips the first; then every 2nd of the rest, at most twice
    assert hits == [False, False, True, False, True, False, False, False, False]
    cont = FaultPlan.parse(["410"])
    assert cont.pick("/api/v1/pods", False) is None
    assert cont.pick("/api/v1/pods", True) is not None
    assert cont.pick("/api/v1/pods", True) is None  # once by default
