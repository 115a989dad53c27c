"""Two correct pieces that do not fit (knowledge/signatures_config.py, checks/operator_config.py):
GX419, the MIG strategy the device plugin and GFD run with against the node's applied MIG layout,
and GX420, the operator's CRDs older than its chart or image.

The lines are the family's real examples, ranked through the engine triage uses; the bundle
checks run on scenario clusters whose nodes carry what GFD and mig-manager write, and GX420's
healthy case is the operator chart's own rendered ClusterPolicy (../shared/corpus)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuxray.checks.engine import run_all
from gpuxray.diagnose.triage import triage
from gpuxray.engines.signatures import full_matcher, rank
from gpuxray.knowledge.signatures import CAUSE_BY_ID, CHECK_CAUSE, SIGNATURES, Signature
from gpuxray.knowledge.signatures_config import CONFIG_SIGNATURES
from gpuxray.model.finding import Finding, Status
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.healthy import MIG_PARTED_CONFIG
from operator_fixtures import cluster, snapshot

NS = "gpu-operator"
RENDERED = (Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "clusterpolicy-mig"
            / "gpu-operator-helm-clusterpolicy-rendered" / "clusterpolicy.rendered.yaml")


def _top(text: str) -> str | None:
    ranked = rank(full_matcher().scan_text(text))
    return ranked[0].cause.code if ranked else None


# ----- the signature family ----------------------------------------------------------------
def test_family_is_joined_and_maps_both_codes() -> None:
    ids = {s.id for s in SIGNATURES}
    assert {s.id for s in CONFIG_SIGNATURES} <= ids
    assert CHECK_CAUSE["GX419"] == "mig-strategy" and CHECK_CAUSE["GX420"] == "crd-stale"
    assert {CAUSE_BY_ID[s.primary].code for s in CONFIG_SIGNATURES} == {"GX407", "GX419",
                                                                        "GX420"}


@pytest.mark.parametrize("sig", CONFIG_SIGNATURES, ids=lambda s: s.id)
def test_each_example_ranks_to_its_cause(sig: Signature) -> None:
    want = CAUSE_BY_ID[sig.primary].code
    for ex in sig.examples:
        assert sig in full_matcher().match_line(ex.line), ex.line
        assert _top(ex.line) == want, (sig.id, ex.line)


@pytest.mark.parametrize(("line", "code"), [
    # single over two profiles: the strategy, not mig-manager or the sharing config
    ("error building device map from config.resources: invalid MIG configuration: more than "
     "one MIG device type present on node", "GX419"),
    # MIG mode on without MIG devices: the layout was never applied (mixed only warns of it)
    ("device 0 has no MIG devices configured", "GX407"),
    ("W0312 10:02:10.000000 1 mig-strategy.go:245] Invalid configuration detected for "
     "mig-strategy=single: at least one MIG device is enabled but empty", "GX407"),
    # a CDI spec the toolkit's library cannot read: same words, another object
    ('failed to load CDI Spec failed to parse CDI Spec "/var/run/cdi/nvidia.yaml": failed to '
     'unmarshal CDI Spec: error unmarshaling JSON: while decoding JSON: json: unknown field '
     '"additionalGids"', "GX305"),
])
def test_look_alikes_stay_apart(line: str, code: str) -> None:
    assert _top(line) == code


@pytest.mark.parametrize("line", [
    # the plugin's single strategy on a node without MIG: routine
    "2022/08/11 06:57:10 No MIG devices found. Falling back to mig.strategy=none",
    # another operator's CRD missing, another resource's unknown field
    'E0709 16:21:09.198204 1 kind.go:71] "if kind is a CRD, it should be installed before '
    'calling Start" err="no matches for kind \\"Module\\" in version '
    '\\"kmm.sigs.x-k8s.io/v1beta1\\""',
    'Error from server (BadRequest): error when creating "deployment.yaml": Deployment in '
    'version "v1" cannot be handled as a Deployment: strict decoding error: unknown field '
    '"spec.strategy.rollingUpdate.maxUnaivailable"',
])
def test_other_lines_vote_for_neither(line: str) -> None:
    assert not {CAUSE_BY_ID[m.signature.primary].code for m in full_matcher().scan_text(line)} \
        & {"GX419", "GX420"}


def test_a_pasted_helm_upgrade_error_is_triaged_as_the_stale_crd() -> None:
    r = triage([("paste", "Error: UPGRADE FAILED: error validating \"\": error validating data: "
                          "ValidationError(ClusterPolicy.spec): unknown field \"hostPaths\" in "
                          "com.nvidia.v1.ClusterPolicy.spec")])
    assert r.causes[0].cause.code == "GX420" and r.causes[0].deciding


# ----- GX419 on a bundle -------------------------------------------------------------------
def _mig(strategy: str | None, config: str, *, state: str = "success",
         product: str = "NVIDIA-A100-SXM4-80GB", configmap: bool = True) -> ClusterBuilder:
    """Both GPU nodes with ``config`` applied by mig-manager and GFD's labels for ``strategy``
    (None: no nvidia.com/mig.strategy label, and a ClusterPolicy without spec.mig)."""
    b = cluster(workloads=False)
    for name in ("gpu-0", "gpu-1"):
        labels = b.find("nodes", name)["metadata"]["labels"]
        labels.update({"nvidia.com/mig.config": config, "nvidia.com/mig.config.state": state,
                       "nvidia.com/gpu.product": product, "nvidia.com/gpu.count": "8"})
        labels.pop("nvidia.com/mig.strategy", None)
        if strategy:
            labels["nvidia.com/mig.strategy"] = strategy
    if configmap:
        b.configmap(NS, "default-mig-parted-config", {"config.yaml": MIG_PARTED_CONFIG})
    return b


def _gx(b: ClusterBuilder, tmp_path: Path, code: str) -> list[Finding]:
    return [f for f in run_all(snapshot(b, tmp_path), (code,)) if f.code == code]


@pytest.mark.parametrize(("strategy", "config"), [
    ("single", "all-1g.10gb"), ("mixed", "all-balanced"), ("mixed", "all-1g.10gb"),
    ("none", "all-disabled"), ("single", "all-disabled")])
def test_a_strategy_that_fits_the_layout_is_quiet(tmp_path: Path, strategy: str,
                                                  config: str) -> None:
    assert _gx(_mig(strategy, config), tmp_path, "GX419") == []


def test_single_over_several_profiles_fails_each_node(tmp_path: Path) -> None:
    fs = _gx(_mig("single", "all-balanced"), tmp_path, "GX419")
    assert {(f.status, f.subject.kind, f.subject.name) for f in fs} == {
        (Status.FAIL, "Node", "gpu-0"), (Status.FAIL, "Node", "gpu-1")}
    assert {(f.params["strategy"], f.params["config"]) for f in fs} == {
        ("single", "all-balanced")}
    assert "3 MIG profiles" in fs[0].params["detail"]
    assert any(e.source.endswith("cluster/configmaps.json") for e in fs[0].evidence)


def test_none_over_mig_enabled_gpus_fails(tmp_path: Path) -> None:
    fs = _gx(_mig("none", "all-1g.10gb"), tmp_path, "GX419")
    assert [(f.status, f.params["strategy"]) for f in fs] == [(Status.FAIL, "none")] * 2
    assert "8 of 8 GPU(s) in MIG mode" in fs[0].params["detail"]


def test_gfd_invalid_product_label_fails_without_the_configmap(tmp_path: Path) -> None:
    b = _mig("single", "custom-mixed", product="NVIDIA-A100-SXM4-80GB-MIG-INVALID",
             configmap=False)
    for name in ("gpu-0", "gpu-1"):
        b.find("nodes", name)["metadata"]["labels"]["nvidia.com/gpu.count"] = "0"
    fs = _gx(b, tmp_path, "GX419")
    assert {(f.status, f.subject.name) for f in fs} == {(Status.FAIL, "gpu-0"),
                                                        (Status.FAIL, "gpu-1")}
    assert any("MIG-INVALID" in e.detail for e in fs[0].evidence)


def test_layout_not_applied_is_left_to_gx407(tmp_path: Path) -> None:
    assert _gx(_mig("single", "all-balanced", state="pending"), tmp_path, "GX419") == []


def test_strategy_from_the_clusterpolicy_when_gfd_wrote_no_label(tmp_path: Path) -> None:
    b = _mig(None, "all-balanced")
    b.find("clusterpolicies", "cluster-policy")["spec"]["mig"] = {"strategy": "single"}
    fs = _gx(b, tmp_path, "GX419")
    assert [(f.status, f.params["strategy"]) for f in fs] == [(Status.FAIL, "single")] * 2
    assert any("spec.mig.strategy=single" in e.detail for e in fs[0].evidence)


def test_unknown_strategy_or_layout_names_the_input(tmp_path: Path) -> None:
    fs = _gx(_mig(None, "all-balanced"), tmp_path / "a", "GX419")
    assert [(f.status, f.params["missing"]) for f in fs] == [
        (Status.UNKNOWN, "cluster/nodes.json label nvidia.com/mig.strategy")] * 2
    b = _mig("single", "all-balanced", configmap=False)
    b.cluster.pop("configmaps")
    fs = _gx(b, tmp_path / "b", "GX419")
    assert [f.status for f in fs] == [Status.UNKNOWN] * 2
    assert fs[0].params["missing"].startswith("cluster/configmaps")


def test_the_plugins_refusal_is_filed_on_its_pod(tmp_path: Path) -> None:
    b = _mig("single", "all-1g.10gb")
    pod = next(p for p in b.cluster["pods"]
               if p["metadata"]["name"].startswith("nvidia-device-plugin-daemonset")
               and p["spec"]["nodeName"] == "gpu-1")
    name = pod["metadata"]["name"]
    b.log(NS, name, "nvidia-device-plugin",
          "I1129 11:50:01.000000 1 main.go:317] Retrieving plugins.\n"
          "E1129 11:50:01.000000 1 main.go:173] error starting plugins: error getting plugins: "
          "unable to load resource managers to manage plugin devices: failed to construct NVML "
          "resource managers: error building device map: error building device map from "
          "config.resources: all devices on the node must be configured with the same "
          "migEnabled value\n")
    fs = _gx(b, tmp_path, "GX419")
    assert [(f.status, f.subject.kind, f.subject.name) for f in fs] == [
        (Status.FAIL, "Pod", name)]
    assert fs[0].params["cause"] == "mig-strategy"


# ----- GX420 on a bundle -------------------------------------------------------------------
def _rendered() -> dict[str, Any]:
    if not RENDERED.is_file():
        pytest.skip(f"{RENDERED} not present")
    doc: dict[str, Any] = yaml.safe_load(RENDERED.read_text(encoding="utf-8"))
    return doc


def _with_policy(labels: dict[str, str], spec: dict[str, Any]) -> ClusterBuilder:
    b = cluster(workloads=False)
    cp = b.find("clusterpolicies", "cluster-policy")
    cp["metadata"]["labels"] = dict(labels)
    cp["spec"] = spec
    return b


def test_the_charts_own_rendering_is_quiet(tmp_path: Path) -> None:
    doc = _rendered()
    assert _gx(_with_policy(doc["metadata"]["labels"], doc["spec"]), tmp_path, "GX420") == []


def test_keys_the_chart_always_writes_missing_mean_a_pruning_crd(tmp_path: Path) -> None:
    doc = _rendered()
    spec = {k: v for k, v in doc["spec"].items() if k not in ("hostPaths", "psa")}
    fs = _gx(_with_policy(doc["metadata"]["labels"], spec), tmp_path, "GX420")
    assert [(f.status, f.subject.kind, f.params["lost"]) for f in fs] == [
        (Status.FAIL, "ClusterPolicy", ["psa", "hostPaths"])]
    assert "predates v23.6.0" in fs[0].params["detail"]


def test_an_older_chart_or_a_hand_made_policy_needs_no_newer_key(tmp_path: Path) -> None:
    doc = _rendered()
    spec = {k: v for k, v in doc["spec"].items() if k != "hostPaths"}
    old = {**doc["metadata"]["labels"], "app.kubernetes.io/version": "v24.3.0",
           "helm.sh/chart": "gpu-operator-v24.3.0"}
    assert _gx(_with_policy(old, spec), tmp_path / "a", "GX420") == []
    by_hand = {"app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/version": "v25.10.1"}
    assert _gx(_with_policy(by_hand, {"driver": {"enabled": True}}), tmp_path / "b",
               "GX420") == []
    no_cdi = {k: v for k, v in spec.items() if k != "cdi"}
    fs = _gx(_with_policy(old, no_cdi), tmp_path / "c", "GX420")
    assert [f.params["lost"] for f in fs] == [["cdi"]]


@pytest.mark.parametrize(("version", "fails"), [("v24.9.0", True), ("v23.6.2", False)])
def test_nvidiadriver_not_served_under_an_operator_that_watches_it(
        tmp_path: Path, version: str, fails: bool) -> None:
    b = cluster(workloads=False, version=version)
    b.error("cluster/nvidiadrivers.json", "404 Not Found")
    fs = _gx(b, tmp_path, "GX420")
    if not fails:
        assert fs == []
        return
    assert [(f.status, f.subject.kind) for f in fs] == [(Status.FAIL, "Deployment")]
    assert fs[0].evidence[-1].detail == "404 Not Found"


def test_the_operators_missing_kind_line_is_filed_on_its_pod(tmp_path: Path) -> None:
    b = cluster(workloads=False, version="v24.9.0")
    pod = next(p for p in b.cluster["pods"] if p["metadata"]["name"].startswith("gpu-operator-"))
    name = pod["metadata"]["name"]
    b.log(NS, name, "gpu-operator",
          '{"level":"error","ts":"2026-11-29T11:50:03Z","logger":'
          '"controller-runtime.source.EventHandler","msg":"if kind is a CRD, it should be '
          'installed before calling Start","kind":"NVIDIADriver.nvidia.com","error":"no matches '
          'for kind \\"NVIDIADriver\\" in version \\"nvidia.com/v1alpha1\\""}\n')
    fs = _gx(b, tmp_path, "GX420")
    assert [(f.status, f.subject.kind, f.subject.name) for f in fs] == [
        (Status.FAIL, "Pod", name)]
