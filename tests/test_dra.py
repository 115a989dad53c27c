"""GPUs through Dynamic Resource Allocation: every `why` leaf on a scenario (gate 1 over
ResourceSlices, gate 2 in the driver's kubelet plugin), `check` agreeing, `capacity` counting
DRA devices, and a healthy DRA cluster (mixed with device-plugin nodes) saying nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuxray.scenarios import dra as S
from gpuxray.scenarios.builder import ClusterBuilder
from whole_pods import also_from_whole_pods

Run = Callable[..., tuple[int, Any]]
Write = Callable[[ClusterBuilder], Path]
TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


def why(gx: Run, bundle: Path, target: str) -> dict[str, Any]:
    code, doc = gx("why", target, "--bundle", str(bundle), "-o", "json")
    assert also_from_whole_pods(gx, "why", target, "--bundle", str(bundle), "-o", "json") == (
        code, doc)
    assert doc["schema"] == "gpuxray/v1"
    assert code in (0, 1, 3)
    return doc


def findings(gx: Run, bundle: Path) -> list[dict[str, Any]]:
    _, doc = gx("check", "--bundle", str(bundle), "-o", "json")
    return list(doc["findings"])


def fails(gx: Run, bundle: Path) -> set[tuple[str, str]]:
    return {(f["code"], f["subject"]["name"]) for f in findings(gx, bundle)
            if f["status"] == "fail"}


def evidence(doc: dict[str, Any]) -> str:
    return " | ".join(f"{e['source']}: {e['detail']}" for e in doc["verdict"]["evidence"])


def pending(b: ClusterBuilder, name: str = "job-0", **kw: Any) -> dict[str, Any]:
    return S.dra_pod(b, "ml", name, **kw)


def fill(b: ClusterBuilder, node: str, devices: range, prefix: str) -> None:
    for i in devices:
        S.run_on(b, "ml", f"{prefix}-{i}", node, [f"gpu-{i}"])


# ----- healthy -------------------------------------------------------------------------------
def test_healthy_dra_cluster_says_nothing(gx: Run, write_bundle: Write) -> None:
    bundle = write_bundle(S.healthy_dra_cluster())
    found = findings(gx, bundle)
    bad = [(f["code"], f["subject"]["name"]) for f in found
           if f["status"] == "fail" and f["severity"] in ("error", "warning")]
    assert bad == []
    dra_codes = {f"GX2{n:02d}" for n in range(8, 19)} | {"GX202", "GX604", "GX308", "GX309",
                                                         "GX415"}
    assert not [f for f in found if f["code"] in dra_codes]
    for pod in ("train-0", "infer-0", "infer-1", "legacy-0"):
        doc = why(gx, bundle, f"ml/{pod}")
        assert doc["verdict"] is None, (pod, doc["verdict"])
        assert not [s for s in doc["path"] if s["result"] == "fail"]


def test_capacity_counts_dra_devices_beside_extended_resources(gx: Run,
                                                                write_bundle: Write) -> None:
    b = S.healthy_dra_cluster()
    S.dra_gpu_node(b, "dra-3", gpus=4, device_taints={3: [{"key": "gpu.nvidia.com/xid",
                                                             "value": "79",
                                                             "effect": "NoSchedule"}]})
    code, doc = gx("capacity", "--bundle", str(write_bundle(b)), "-o", "json")
    assert code == 0
    rows = {(r["node"], r["resource"]): r for r in doc["nodes"]}
    assert set(rows) == {("dp-1", "nvidia.com/gpu"), ("dra-1", "gpu.nvidia.com"),
                         ("dra-2", "gpu.nvidia.com"), ("dra-3", "gpu.nvidia.com")}
    r1 = rows[("dra-1", "gpu.nvidia.com")]
    assert (r1["sharing"], r1["capacity"], r1["allocatable"], r1["allocated"], r1["free"]) == \
        ("dra", 8, 8, 3, 5)
    assert {(h["namespace"], h["pod"], h["amount"]) for h in r1["holders"]} == \
        {("ml", "train-0", 2), ("ml", "infer-0", 1)}
    r3 = rows[("dra-3", "gpu.nvidia.com")]
    assert (r3["capacity"], r3["allocatable"], r3["allocated"], r3["free"], r3["unhealthy"]) == \
        (4, 3, 0, 3, 1)
    assert [d["device"] for d in r3["dra_devices"] if d["tainted"]] == ["gpu-3"]
    assert (r1["physical"], r3["physical"]) == (8, 4)
    assert doc["totals"]["gpu.nvidia.com"] == {"capacity": 20, "allocatable": 19,
                                               "allocated": 4, "free": 15, "unhealthy": 1}
    held = {(p["node"], p["device"]): p for p in doc["dra_pods"]}
    assert held[("dra-1", "gpu-0")]["pods"] == ["ml/train-0"]
    assert len(held) == 4


def test_dra_only_node_is_not_a_missing_plugin(gx: Run, write_bundle: Write) -> None:
    """No GX202/GX604 for a node whose GPUs are DRA devices, even with GFD count labels; a pod
    asking nvidia.com/gpu there is told the nodes serve ResourceClaims."""
    b = S.healthy_dra_cluster()
    S.dra_gpu_node(b, "dra-9", labels={"nvidia.com/gpu.count": "8",
                                       "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"})
    bundle = write_bundle(b)
    assert not {c for c, _n in fails(gx, bundle)} & {"GX202", "GX604"}
    assert not [f for f in findings(gx, bundle) if f["code"] == "GX604"]
    b.remove("nodes")
    b.node("cpu-1")
    S.dra_gpu_node(b, "dra-1", publish=False)
    S.dra_gpu_node(b, "dra-2", publish=False)
    b.pod("ml", "old-style", gpus=1)
    doc = why(gx, write_bundle(b), "ml/old-style")
    assert doc["verdict"]["code"] == "GX202"
    assert doc["verdict"]["params"]["nodes"] == []
    assert "DRA" in doc["verdict"]["params"]["detail"]


# ----- gate 1 leaves ------------------------------------------------------------------------
def test_claim_missing(gx: Run, write_bundle: Write) -> None:
    b = S.healthy_dra_cluster()
    pending(b, claim="shared-gpus")
    doc = why(gx, write_bundle(b), "ml/job-0")
    v = doc["verdict"]
    assert (v["code"], v["params"]["claim"], v["params"]["entry"]) == ("GX208", "shared-gpus",
                                                                       "gpu")
    assert "cluster/resourceclaims.json" in evidence(doc)


@pytest.mark.parametrize("template,exists", [("single-gpu", True), ("no-such-template", False)])
def test_template_not_instantiated(gx: Run, write_bundle: Write, template: str,
                                   exists: bool) -> None:
    b = S.healthy_dra_cluster()
    pending(b, template=template)
    bundle = write_bundle(b)
    doc = why(gx, bundle, "ml/job-0")
    v = doc["verdict"]
    assert v["code"] == "GX209" and v["params"]["template"] == template
    assert v["params"]["template_exists"] is exists
    assert "cluster/resourceclaimtemplates.json" in evidence(doc)
    assert ("GX209", "job-0") in fails(gx, bundle)


def test_device_class_missing(gx: Run, write_bundle: Write) -> None:
    b = S.healthy_dra_cluster()
    p = pending(b, template="single-gpu", generated="job-0-gpu-abcde")
    S.add_claim(b, "ml", "job-0-gpu-abcde", [S.request(device_class="gpu.nvidia.com.v2")],
                owner=p)
    doc = why(gx, write_bundle(b), "ml/job-0")
    v = doc["verdict"]
    assert (v["code"], v["params"]["device_class"], v["params"]["claim"]) == \
        ("GX210", "gpu.nvidia.com.v2", "job-0-gpu-abcde")
    assert "gpu.nvidia.com" in v["params"]["defined"]


def _claimed(b: ClusterBuilder, requests: list[dict[str, Any]], *, name: str = "job-0",
             constraints: list[dict[str, Any]] | None = None, **pod_kw: Any) -> None:
    claim = f"{name}-gpu-abcde"
    p = pending(b, name, template="single-gpu", generated=claim, **pod_kw)
    S.add_claim(b, "ml", claim, requests, owner=p, constraints=constraints)


def test_driver_not_publishing(gx: Run, write_bundle: Write) -> None:
    b = S.healthy_dra_cluster()
    b.remove("resourceslices")
    b.ensure("resourceslices")
    b.remove("daemonsets")
    S.add_kubelet_plugin(b, 2, ready=0)
    _claimed(b, [S.request()])
    bundle = write_bundle(b)
    doc = why(gx, bundle, "ml/job-0")
    v = doc["verdict"]
    assert (v["code"], v["params"]["driver"], v["params"]["device_class"]) == \
        ("GX211", "gpu.nvidia.com", "gpu.nvidia.com")
    assert "cluster/resourceslices.json" in evidence(doc)
    got = fails(gx, bundle)
    assert ("GX211", "job-0") in got
    assert ("GX415", "nvidia-dra-driver-gpu-kubelet-plugin") in got


def test_stale_pool_after_driver_restart(gx: Run, write_bundle: Write) -> None:
    """The driver restarted and republishes generation 2 in two slices; only an empty first
    slice is there yet: the old generation no longer counts."""
    b = ClusterBuilder()
    for res in ("events", "pods", "daemonsets"):
        b.ensure(res)
    S.dra_gpu_node(b, "dra-1", generation=1)
    S.add_slice(b, "dra-1", [], generation=2, slice_count=2, suffix="n3w00")
    S.add_device_classes(b)
    S.add_template(b, "ml", "single-gpu")
    _claimed(b, [S.request()])
    doc = why(gx, write_bundle(b), "ml/job-0")
    v = doc["verdict"]
    assert v["code"] == "GX211"
    assert "generation 2, 1 of 2 slice(s), 1 stale" in v["params"]["detail"]


@pytest.mark.parametrize("selector,attribute,value", [
    ("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('100Gi')) >= 0", "memory",
     "80Gi ×16"),
    ("device.attributes['gpu.nvidia.com'].productName.lowerAscii().contains('b200')",
     "productName", "NVIDIA H100 80GB HBM3 ×16"),
    ("device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('590.0.0'))",
     "driverVersion", "580.95.5 ×16"),
])
def test_selector_matches_nothing_names_the_attribute(gx: Run, write_bundle: Write,
                                                      selector: str, attribute: str,
                                                      value: str) -> None:
    b = S.healthy_dra_cluster()
    _claimed(b, [S.request(selectors=[
        "device.attributes['gpu.nvidia.com'].architecture == 'Hopper'", selector])])
    bundle = write_bundle(b)
    doc = why(gx, bundle, "ml/job-0")
    v = doc["verdict"]
    assert v["code"] == "GX212"
    assert v["params"]["attribute"] == attribute and v["params"]["failing"] == selector
    assert v["params"]["source"] == "request gpu" and v["params"]["published"] == 16
    assert value in v["params"]["values"]
    ev = evidence(doc)
    assert "cluster/resourceslices.json: " in ev and "dra-1-gpu.nvidia.com-x7k2p" in ev
    assert "ResourceClaim ml/job-0-gpu-abcde request gpu" in ev
    assert ("GX212", "job-0") in fails(gx, bundle)


def test_class_selector_matches_nothing(gx: Run, write_bundle: Write) -> None:
    """mig.nvidia.com on nodes whose GPUs are not partitioned: the class's own `type` test
    fails."""
    b = S.healthy_dra_cluster()
    _claimed(b, [S.request(device_class="mig.nvidia.com")])
    v = why(gx, write_bundle(b), "ml/job-0")["verdict"]
    assert (v["code"], v["params"]["source"], v["params"]["attribute"]) == \
        ("GX212", "DeviceClass mig.nvidia.com", "type")
    assert v["params"]["values"] == "gpu ×16"


def test_mig_devices_allocate(gx: Run, write_bundle: Write) -> None:
    b = S.healthy_dra_cluster()
    S.add_slice(b, "mig-1", [S.mig_device("mig-1", 0, start=s) for s in range(7)])
    b.node("mig-1", labels=S.dra_node_labels())
    _claimed(b, [S.request(device_class="mig.nvidia.com", count=2, selectors=[
        "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"])])
    doc = why(gx, write_bundle(b), "ml/job-0")
    assert doc["verdict"] is None
    assert "mig-1" in doc["path"][-1]["detail"]


def test_devices_exhausted_lists_holders(gx: Run, write_bundle: Write) -> None:
    b = S.healthy_dra_cluster()
    fill(b, "dra-1", range(3, 8), "a")
    fill(b, "dra-2", range(1, 8), "b")
    _claimed(b, [S.request()])
    bundle = write_bundle(b)
    doc = why(gx, bundle, "ml/job-0")
    v = doc["verdict"]
    assert (v["code"], v["params"]["matching"], v["params"]["allocated"]) == ("GX213", 16, 16)
    holders = v["params"]["holder_list"]
    assert len(holders) == 16
    assert any(h.startswith("ml/train-0-gpu-") and "(train-0)" in h
               and h.endswith("gpu.nvidia.com/dra-1/gpu-0") for h in holders)
    assert ("GX213", "job-0") in fails(gx, bundle)


def test_devices_tainted(gx: Run, write_bundle: Write) -> None:
    b = ClusterBuilder()
    for res in ("events", "pods", "daemonsets"):
        b.ensure(res)
    xid = [{"key": "gpu.nvidia.com/unhealthy", "value": "xid-79", "effect": "NoSchedule"}]
    S.dra_gpu_node(b, "dra-1", gpus=2, device_taints={0: xid, 1: xid})
    S.add_device_classes(b)
    S.add_template(b, "ml", "single-gpu")
    _claimed(b, [S.request()])
    v = why(gx, write_bundle(b), "ml/job-0")["verdict"]
    assert (v["code"], v["params"]["tainted"]) == ("GX214", 2)
    assert v["params"]["taints"] == "gpu.nvidia.com/unhealthy=xid-79:NoSchedule"
    # a toleration on the request lets it through
    b2 = ClusterBuilder()
    for res in ("events", "pods", "daemonsets"):
        b2.ensure(res)
    S.dra_gpu_node(b2, "dra-1", gpus=2, device_taints={0: xid, 1: xid})
    S.add_device_classes(b2)
    S.add_template(b2, "ml", "single-gpu")
    _claimed(b2, [S.request(tolerations=[{"key": "gpu.nvidia.com/unhealthy",
                                          "operator": "Exists", "effect": "NoSchedule"}])])
    assert why(gx, write_bundle(b2), "ml/job-0")["verdict"] is None


def test_claim_allocated_on_a_node_the_pod_cannot_go_to(gx: Run, write_bundle: Write) -> None:
    b = S.healthy_dra_cluster()
    first = b.find("pods", "infer-0", "ml")
    claim = first["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    S.dra_pod(b, "ml", "sidecar-0", claim=claim, node_selector={"kubernetes.io/hostname":
                                                                 "dra-2"})
    doc = why(gx, write_bundle(b), "ml/sidecar-0")
    v = doc["verdict"]
    assert (v["code"], v["params"]["claim"], v["params"]["nodes"]) == ("GX215", claim, "dra-1")
    assert "selector" in v["params"]["detail"]


def test_nodes_with_devices_exclude_the_pod(gx: Run, write_bundle: Write) -> None:
    b = ClusterBuilder()
    for res in ("events", "pods", "daemonsets"):
        b.ensure(res)
    S.dra_gpu_node(b, "dra-1", taints=[TAINT])
    S.dra_gpu_node(b, "dra-2", taints=[TAINT])
    S.add_device_classes(b)
    S.add_template(b, "ml", "single-gpu")
    _claimed(b, [S.request()], tolerations=[])
    v = why(gx, write_bundle(b), "ml/job-0")["verdict"]
    assert (v["code"], v["params"]["excluded"]) == ("GX201", 2)
    assert {n["reason"] for n in v["params"]["nodes"].values()} == {"taint"}


@pytest.mark.parametrize("req,wanted", [(S.request(count=9), 9)])
def test_count_no_single_node_has(gx: Run, write_bundle: Write, req: dict[str, Any],
                                  wanted: int) -> None:
    b = S.healthy_dra_cluster()
    _claimed(b, [req])
    v = why(gx, write_bundle(b), "ml/job-0")["verdict"]
    assert (v["code"], v["params"]["wanted"], v["params"]["largest"], v["params"]["total"]) == \
        ("GX216", wanted, 8, 16)


def test_allocation_mode_all(gx: Run, write_bundle: Write) -> None:
    """All: every matching device of one node, free: dra-2 has one held, dra-3 is whole."""
    b = S.healthy_dra_cluster()
    _claimed(b, [S.request(mode="All")])
    v = why(gx, write_bundle(b), "ml/job-0")["verdict"]
    assert v["code"] == "GX213"
    S.dra_gpu_node(b, "dra-3", gpus=2)
    doc = why(gx, write_bundle(b), "ml/job-0")
    assert doc["verdict"] is None and "dra-3" in doc["path"][-1]["detail"]


def test_constraint_no_node_satisfies(gx: Run, write_bundle: Write) -> None:
    """Five GPUs under one PCIe root: the driver publishes four per root."""
    b = S.healthy_dra_cluster()
    _claimed(b, [S.request(count=5)], constraints=[
        {"requests": ["gpu"], "matchAttribute": "resource.kubernetes.io/pcieRoot"}])
    v = why(gx, write_bundle(b), "ml/job-0")["verdict"]
    assert v["code"] == "GX217"
    assert "resource.kubernetes.io/pcieRoot" in v["params"]["detail"]


def test_selector_runtime_error(gx: Run, write_bundle: Write) -> None:
    b = S.healthy_dra_cluster()
    _claimed(b, [S.request(selectors=["device.attributes['gpu.nvidia.com'].profile == "
                                      "'1g.10gb'"])])
    bundle = write_bundle(b)
    v = why(gx, bundle, "ml/job-0")["verdict"]
    assert v["code"] == "GX218" and v["params"]["source"] == "request gpu"
    assert "CEL runtime error" in v["params"]["error"] and "profile" in v["params"]["error"]
    assert ("GX218", "job-0") in fails(gx, bundle)


# ----- gate 2 -------------------------------------------------------------------------------
@pytest.mark.parametrize("message,code,not_registered", [
    ("Failed to prepare dynamic resources: prepare dynamic resources: DRA driver gpu.nvidia.com "
     "is not registered", "GX308", True),
    ("Failed to prepare dynamic resources: NodePrepareResources failed for claim "
     "ml/job-0-gpu-abcde: error preparing devices for claim 5f0c: prepare devices failed: "
     "MPS control daemon is not yet ready", "GX308", False),
    ('failed to create containerd container: CDI device injection failed: unresolvable CDI '
     'devices k8s.gpu.nvidia.com/claim=5f0c-gpu-0', "GX309", None),
])
def test_prepare_failures(gx: Run, write_bundle: Write, message: str, code: str,
                          not_registered: bool | None) -> None:
    b = S.healthy_dra_cluster()
    p = S.dra_pod(b, "ml", "job-0", template="single-gpu", generated="job-0-gpu-abcde",
                  node="dra-2", phase="Pending",
                  container_statuses=[{"name": "main", "ready": False, "restartCount": 0,
                                       "state": {"waiting": {"reason": "ContainerCreating"}}}])
    S.add_claim(b, "ml", "job-0-gpu-abcde", [S.request()],
                allocated=[("gpu", "dra-2", "gpu-5")], reserved_for=[p], owner=p)
    reason = "FailedPrepareDynamicResources" if code == "GX308" else "Failed"
    b.event(p, reason, message, component="kubelet", host="dra-2")
    bundle = write_bundle(b)
    doc = why(gx, bundle, "ml/job-0")
    v = doc["verdict"]
    assert (v["code"], v["params"]["node"]) == (code, "dra-2")
    if not_registered is not None:
        assert v["params"]["not_registered"] is not_registered
    assert "cluster/events.json" in evidence(doc)
    assert (code, "job-0") in fails(gx, bundle)


def test_compute_domain_not_ready(gx: Run, write_bundle: Write) -> None:
    b = S.healthy_dra_cluster()
    b.add("computedomains", {"apiVersion": "resource.nvidia.com/v1beta1",
                             "kind": "ComputeDomain",
                             "metadata": {"name": "nvl72", "namespace": "ml", "uid": "cd1"},
                             "spec": {"numNodes": 2, "channel": {"resourceClaimTemplate": {
                                 "name": "nvl72-channel"}}},
                             "status": {"status": "NotReady", "nodes": [
                                 {"name": "dra-1", "status": "Ready"},
                                 {"name": "dra-2", "status": "NotReady"}]}})
    got = [f for f in findings(gx, write_bundle(b)) if f["code"] == "GX415"]
    assert [(f["subject"]["kind"], f["subject"]["name"], f["params"]["ready"],
             f["params"]["desired"]) for f in got] == [("ComputeDomain", "nvl72", 1, 2)]


# ----- inputs -------------------------------------------------------------------------------
def test_missing_dra_inputs_are_unknown_only_where_dra_is_used(gx: Run,
                                                               write_bundle: Write) -> None:
    b = S.healthy_dra_cluster()
    _claimed(b, [S.request()])
    b.remove("resourceclaims")
    doc = why(gx, write_bundle(b), "ml/job-0")
    v = doc["verdict"]
    assert (v["code"], v["status"], v["params"]["missing"]) == \
        ("GX208", "unknown", "cluster/resourceclaims.json")
    # a cluster that uses no DRA: no word about DRA files
    plain = ClusterBuilder()
    for res in ("events", "pods", "daemonsets"):
        plain.ensure(res)
    plain.node("gpu-1", gpus=4)
    plain.pod("ml", "a", node="gpu-1", gpus=1)
    text = str(findings(gx, write_bundle(plain)))
    for stem in ("resourceclaims", "resourceslices", "deviceclasses", "resourceclaimtemplates",
                 "computedomains"):
        assert stem not in text


def test_bundle_reads_dra_objects_typed(tmp_path: Path) -> None:
    from gpuxray.model.snapshot import Input
    from gpuxray.sources.bundle import open_bundle

    b = S.healthy_dra_cluster()
    b.write(tmp_path / "b")
    with open_bundle(tmp_path / "b") as snap:
        assert snap.has(Input.RESOURCESLICES) and snap.has(Input.DEVICECLASSES)
        assert snap.has(Input.COMPUTEDOMAINS)
        sl = {s.metadata.name: s for s in snap.resourceslices}["dra-1-gpu.nvidia.com-x7k2p"]
        d = sl.spec.devices[0]
        assert (sl.spec.driver, sl.spec.node_name, sl.spec.pool.name) == \
            ("gpu.nvidia.com", "dra-1", "dra-1")
        assert str(d.attributes["productName"]) == "NVIDIA H100 80GB HBM3"
        assert d.attributes["driverVersion"].version == "580.95.5"
        assert d.capacity["memory"].value == "80Gi"
        claim = next(c for c in snap.resourceclaims if c.metadata.name.startswith("train-0"))
        assert claim.status.allocation is not None
        assert [r.device for r in claim.status.allocation.devices.results] == ["gpu-0", "gpu-1"]
        assert [r.name for r in claim.status.reserved_for] == ["train-0"]
        pod = snap.find_pod("ml", "train-0")
        assert pod is not None and pod.spec.resource_claims[0].resource_claim_template_name == \
            "two-gpus"


def test_node_whose_plugin_stopped_publishing(gx: Run, write_bundle: Write) -> None:
    """dra-1 and dra-2 are full; dra-3 has the driver deployed but publishes nothing: the
    answer is its kubelet plugin, not "wait for GPUs"."""
    b = S.healthy_dra_cluster()
    fill(b, "dra-1", range(3, 8), "a")
    fill(b, "dra-2", range(1, 8), "b")
    S.dra_gpu_node(b, "dra-3", publish=False)
    _claimed(b, [S.request()])
    v = why(gx, write_bundle(b), "ml/job-0")["verdict"]
    assert (v["code"], v["params"]["nodes"], v["params"]["driver"]) == \
        ("GX211", ["dra-3"], "gpu.nvidia.com")


def test_all_with_a_constraint_that_cannot_hold_aborts(gx: Run, write_bundle: Write) -> None:
    """allocationMode All takes every matching device; a constraint one of them breaks is an
    allocator error on that node (`cannot add device … because a claim constraint would not
    be satisfied`), which aborts scheduling even where another node would fit."""
    b = ClusterBuilder()
    for res in ("events", "pods", "daemonsets"):
        b.ensure(res)
    S.dra_gpu_node(b, "dra-1", gpus=8)  # two PCIe roots
    S.dra_gpu_node(b, "dra-2", gpus=4)  # one
    S.add_device_classes(b)
    S.add_template(b, "ml", "single-gpu")
    _claimed(b, [S.request(mode="All")], constraints=[
        {"requests": ["gpu"], "matchAttribute": "resource.kubernetes.io/pcieRoot"}])
    v = why(gx, write_bundle(b), "ml/job-0")["verdict"]
    assert v["code"] == "GX217"
    assert "cannot add device gpu.nvidia.com/dra-1/gpu-" in v["params"]["detail"]


def test_mustgather_dra_dumps_where_present(tmp_path: Path) -> None:
    import json

    from gpuxray.model.snapshot import Input
    from gpuxray.sources.bundle import open_bundle

    b = S.healthy_dra_cluster()
    mg = tmp_path / "mg"
    mg.mkdir()
    (mg / "cluster_policy.missing").write_text("")
    for plural in ("resourceslices", "deviceclasses"):
        (mg / f"{plural}.yaml").write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                                       "items": b.cluster[plural]}))
    with open_bundle(mg) as snap:
        assert snap.manifest.source_kind == "must-gather"
        assert snap.has(Input.RESOURCESLICES) and len(snap.resourceslices) == 2
        assert snap.has(Input.DEVICECLASSES) and len(snap.deviceclasses) == 2
        assert not snap.has(Input.RESOURCECLAIMS)


def test_slices_without_claims_say_allocation_unknown(gx: Run, write_bundle: Write) -> None:
    b = S.healthy_dra_cluster()
    b.remove("resourceclaims")
    bundle = write_bundle(b)
    got = [f for f in findings(gx, bundle) if f["code"] == "GX213"]
    assert [(f["status"], f["params"]["missing"]) for f in got] == \
        [("unknown", "cluster/resourceclaims.json")]
    _, doc = gx("capacity", "--bundle", str(bundle), "-o", "json")
    row = next(r for r in doc["nodes"] if r["node"] == "dra-1")
    assert (row["capacity"], row["allocated_source"]) == (8, "unknown")
    assert doc["allocated_known"] is False


def test_first_available_takes_the_first_subrequest_that_fits(gx: Run,
                                                              write_bundle: Write) -> None:
    b = S.healthy_dra_cluster()
    _claimed(b, [S.first_available("gpu", [S.request("eight", count=8),
                                           S.request("four", count=4)])])
    doc = why(gx, write_bundle(b), "ml/job-0")
    assert doc["verdict"] is None
    assert "gpu/four" in doc["path"][-1]["detail"]
    b2 = S.healthy_dra_cluster()
    _claimed(b2, [S.first_available("gpu", [S.request("sixteen", count=16),
                                            S.request("nine", count=9)])])
    v = why(gx, write_bundle(b2), "ml/job-0")["verdict"]
    assert (v["code"], v["params"]["request"], v["params"]["wanted"]) == \
        ("GX216", "gpu/sixteen", 16)
