"""Folded findings in the JSON report: every subject kept, nothing merged that differs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from generate import generate

from gpuxray.checks.engine import run_all
from gpuxray.model.factory import render_message
from gpuxray.model.finding import Evidence, Finding, Severity, Status, Subject
from gpuxray.model.fold import _masked, fold, unfold
from gpuxray.model.incident import finding_ids
from gpuxray.render.json import document, dumps
from gpuxray.scenarios.demo import build_demo
from gpuxray.sources.bundle import open_bundle

OWN_EVIDENCE = "(the first subject's, with its own values)"


def _expand(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A reader's view: one finding per subject listed, each with its own params put in and the
    message rendered over them (docs/json.md); where the subjects have own params the evidence
    is the first one's pattern, compared apart (``_masked``)."""
    out = []
    for e in entries:
        subjects = e.get("subjects", [e["subject"]])
        ids = e.get("ids", [e["id"]])
        own = e.get("subject_params")
        assert len(ids) == len(subjects) == len(own or subjects)
        for n, (s, i) in enumerate(zip(subjects, ids, strict=True)):
            one = {k: v for k, v in e.items() if k not in ("subjects", "ids", "subject_params")}
            one["subject"], one["id"] = s, i
            if own is not None:
                one["params"] = {**e["params"], **own[n]}
                one["message"] = render_message(e["code"], one["params"])
                one["evidence"] = OWN_EVIDENCE
            out.append(one)
    return out


def _without_subject(entry: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in entry.items()
                       if k not in ("subject", "subjects", "id", "ids")},
                      sort_keys=True)


def _bundles(tmp: Path) -> list[Path]:
    return [generate(tmp / "storm", 60, 20, shape="pending-storm"),
            generate(tmp / "fleet", 60, 20, shape="fleet"),
            generate(tmp / "dra", 100, 20, shape="dra"),
            build_demo().write(tmp / "demo")]


def test_folded_report_keeps_every_finding_and_subject(tmp_path: Path) -> None:
    for root in _bundles(tmp_path):
        with open_bundle(root) as snap:
            findings = run_all(snap)
        doc = json.loads(dumps(document(findings)))
        ids = finding_ids(findings)
        by_id = dict(zip(ids, findings, strict=True))
        own_ids = {i for e in doc["findings"] if "subject_params" in e for i in e["ids"]}
        flat = [{"id": i, **f.as_json()} for f, i in zip(findings, ids, strict=True)]
        for one in flat:
            if one["id"] in own_ids:
                one["evidence"] = OWN_EVIDENCE
        for e in doc["findings"]:  # their evidence: the first one's, but for their own values
            if "subject_params" in e:
                first = _masked(by_id[e["id"]])
                assert all(_masked(by_id[i]) == first for i in e["ids"])
        # the same findings, subject by subject: as a multiset, and in the report's order
        # within each folded group
        assert sorted(map(json.dumps, _expand(doc["findings"]))) == sorted(map(json.dumps, flat))
        # folding is exact: no two entries left that differ only in their subject
        keys = [_without_subject(e) for e in doc["findings"]]
        assert len(keys) == len(set(keys))
        for e in doc["findings"]:
            if "subjects" in e:
                assert len(e["subjects"]) > 1 and e["subject"] == e["subjects"][0]
                assert e["id"] == e["ids"][0]
        # the summary and exit code count subjects, as before folding
        assert doc["summary"]["total"] == len(findings)


def test_pending_storm_folds_the_identical_job_into_one_finding(tmp_path: Path) -> None:
    root = generate(tmp_path / "storm", 100, 20, shape="pending-storm")
    with open_bundle(root) as snap:
        findings = run_all(snap)
        job = sorted(f"{p.metadata.namespace}/{p.metadata.name}" for p in snap.pods
                     if p.metadata.name.startswith("llm-pretrain-"))
    doc = document(findings)
    entries = [e for e in doc["findings"] if any(
        s["name"].startswith("llm-pretrain-") for s in e.get("subjects", [e["subject"]]))]
    assert len(entries) == 1 and entries[0]["code"] in ("GX204", "GX206")
    assert sorted(f"{s['namespace']}/{s['name']}" for s in entries[0]["subjects"]) == job
    assert len(doc["findings"]) < len(findings) - len(job) + 2


def _f(subject: str, *, message: str = "m", params: dict[str, Any] | None = None,
       evidence: tuple[Evidence, ...] = ()) -> Finding:
    return Finding("GX204", "gpus-exhausted", Severity.ERROR, Status.FAIL,
                   Subject("Pod", subject, "ns"), message, evidence, "r", params or {})


@pytest.mark.parametrize("other", [
    _f("b", message="other"), _f("b", params={"requested": 2}),
    _f("b", evidence=(Evidence("cluster/pods.json", "x"),))])
def test_a_difference_other_than_the_subject_keeps_findings_apart(other: Finding) -> None:
    base = [_f("a", params={"requested": 1}) if other.params else _f("a"), other]
    groups = fold(base)
    assert len(groups) == 2 and unfold(groups) == base


def test_fold_then_unfold_is_the_identity_on_order_within_groups() -> None:
    fs = [_f("a"), _f("x", message="other"), _f("b"), _f("c"), _f("y", message="other")]
    groups = fold(fs)
    assert [(g.subject.name, [s.name for s in subs]) for g, subs in groups] == [
        ("a", ["a", "b", "c"]), ("x", ["x", "y"])]
    assert sorted(unfold(groups), key=lambda f: f.subject.name) == \
        sorted(fs, key=lambda f: f.subject.name)


def test_pods_pinned_to_their_own_full_nodes_fold_keeping_each_node(tmp_path: Path) -> None:
    """A DaemonSet-like pod per node, every node full: a few entries (one per node size), not
    one per pod, each pod's node and its holders listed as its own."""
    root = generate(tmp_path / "storm", 200, 20, shape="pending-storm")
    with open_bundle(root) as snap:
        findings = run_all(snap)
        pinned = {p.metadata.name: p.spec.affinity.node_affinity  # type: ignore[union-attr]
                  .required_during_scheduling_ignored_during_execution  # type: ignore[union-attr]
                  .node_selector_terms[0].match_fields[0].values[0]
                  for p in snap.pods if p.metadata.name.startswith("node-agent-")}
    gx204 = {f.subject.name: f for f in findings if f.code == "GX204"
             and f.subject.name in pinned}
    assert len(gx204) > 20
    doc = document(findings)
    entries = [e for e in doc["findings"] if e["code"] == "GX204"
               and e["subject"]["name"] in pinned]
    assert 1 <= len(entries) <= 3 < len(gx204)
    seen = 0
    for e in entries:
        for s, own in zip(e["subjects"], e["subject_params"], strict=True):
            f = gx204[s["name"]]
            assert own["nodes"] == [pinned[s["name"]]] == f.params["nodes"]
            assert own["holders"] == f.params["holders"] and own["allocated"] == \
                f.params["allocated"]
            seen += 1
    assert seen == len(gx204)


def test_pods_of_one_claim_template_fold_keeping_each_claim(tmp_path: Path) -> None:
    root = generate(tmp_path / "dra", 150, 20, shape="dra")
    with open_bundle(root) as snap:
        findings = run_all(snap)
        claims = {p.metadata.name: p.status.resource_claim_statuses[0].resource_claim_name
                  for p in snap.pods if p.metadata.name.startswith("dra-train-")}
    doc = document(findings)
    entries = [e for e in doc["findings"] if e["subject"]["name"] in claims]
    assert len(entries) == 1 and entries[0]["code"] == "GX213"
    e = entries[0]
    assert sorted(s["name"] for s in e["subjects"]) == sorted(claims)
    assert [p["claim"] for p in e["subject_params"]] == [claims[s["name"]]
                                                           for s in e["subjects"]]
    assert e["params"]["claim"] == claims[e["subject"]["name"]]


def _own(subject: str, node: str, message: str, detail: str) -> Finding:
    return Finding("GX204", "gpus-exhausted", Severity.ERROR, Status.FAIL,
                   Subject("Pod", subject, "ns"), message,
                   (Evidence("cluster/nodes.json", detail),), "r",
                   {"requested": 1, "nodes": [node]}, own=("nodes",))


def test_own_values_fold_only_what_they_explain() -> None:
    a = _own("a", "n-1", "full", "n-1: 8 of 8")
    b = _own("b", "n-2", "full", "n-2: 8 of 8")
    c = _own("c", "n-3", "full", "n-3: 4 of 4")  # a number of its own: not explained
    d = _own("d", "n-4", "other", "n-4: 8 of 8")
    groups = fold([a, b, c, d])
    assert [[s.name for s in subs] for _f, subs in groups] == [["a", "b"], ["c"], ["d"]]
    doc = document([a, b, c, d])
    assert doc["findings"][0]["subject_params"] == [{"nodes": ["n-1"]}, {"nodes": ["n-2"]}]
    assert "subject_params" not in doc["findings"][1]


def test_the_same_gpu_loss_on_many_nodes_folds_keeping_each_node(tmp_path: Path) -> None:
    from gpuxray.scenarios.builder import ClusterBuilder
    from gpuxray.scenarios.operator import add_gpu_operator

    b = ClusterBuilder()
    nodes = ["gpu-0", "gpu-1", "gpu-2", "gpu-3"]
    for n in nodes:
        b.node(n, gpus=4 if n == "gpu-3" else 8)
    add_gpu_operator(b, nodes, broken={"handler": ",".join(nodes)})  # all stop advertising
    with open_bundle(b.write(tmp_path / "b")) as snap:
        findings = run_all(snap, ["GX604"])
    assert sorted(f.subject.name for f in findings) == nodes
    entries = document(findings)["findings"]
    # gpu-0..2 lost 8 GPUs each: one entry naming each node; gpu-3 lost 4: its own entry
    assert sorted((len(e.get("subjects", [1])), e["params"]["missing"]) for e in entries) == [
        (1, 4), (3, 8)]
    [e] = [e for e in entries if "subjects" in e]
    assert [s["name"] for s in e["subjects"]] == ["gpu-0", "gpu-1", "gpu-2"]
    assert e["subject_params"] == [{"node": n} for n in ("gpu-0", "gpu-1", "gpu-2")]
    by_node = {f.subject.name: f for f in findings}
    for one in _expand([e]):  # each node's message, from the entry alone
        assert one["message"] == by_node[one["subject"]["name"]].message


def test_the_handler_gone_on_many_nodes_is_one_chain_entry(tmp_path: Path) -> None:
    from gpuxray.scenarios.builder import ClusterBuilder
    from gpuxray.scenarios.operator import add_gpu_operator

    b = ClusterBuilder()
    nodes = ["gpu-0", "gpu-1", "gpu-2"]
    for n in nodes:
        b.node(n, gpus=8)
    add_gpu_operator(b, nodes, broken={"handler": ",".join(nodes)})
    with open_bundle(b.write(tmp_path / "b")) as snap:
        both = run_all(snap, ["GX301", "GX411"])
    # GX301 too: the node and the pods its events name are its own
    gx301 = [f for f in both if f.code == "GX301"]
    assert sorted(f.subject.name for f in gx301) == nodes
    [e301] = document(gx301)["findings"]
    assert [p["pods"] for p in e301["subject_params"]] == [
        f.params["pods"] for f in sorted(gx301, key=lambda f: f.subject.name)]
    for one in _expand([e301]):
        assert one["message"] == next(f.message for f in gx301
                                      if f.subject.name == one["subject"]["name"])
    findings = [f for f in both if f.code == "GX411"]
    assert sorted(f.subject.name for f in findings) == nodes
    [e] = document(findings)["findings"]
    assert [s["name"] for s in e["subjects"]] == nodes
    by_node = {f.subject.name: f for f in findings}
    # each node's own values: its name, its chain, its plugin pod, the operand pods cited
    assert [p["plugin"] for p in e["subject_params"]] == [
        by_node[n].params["plugin"] for n in nodes]
    assert len({p["plugin"] for p in e["subject_params"]}) == 3
    for one in _expand([e]):
        f = by_node[one["subject"]["name"]]
        assert one["message"] == f.message and one["params"] == f.params
