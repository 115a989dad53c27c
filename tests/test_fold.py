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
from gpuxray.model.finding import Evidence, Finding, Severity, Status, Subject
from gpuxray.model.fold import fold, unfold
from gpuxray.model.incident import finding_ids
from gpuxray.render.json import document, dumps
from gpuxray.scenarios.demo import build_demo
from gpuxray.sources.bundle import open_bundle


def _expand(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A reader's view: one finding per subject listed."""
    out = []
    for e in entries:
        subjects = e.get("subjects", [e["subject"]])
        ids = e.get("ids", [e["id"]])
        assert len(ids) == len(subjects)
        for s, i in zip(subjects, ids, strict=True):
            one = {k: v for k, v in e.items() if k not in ("subjects", "ids")}
            one["subject"], one["id"] = s, i
            out.append(one)
    return out


def _without_subject(entry: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in entry.items()
                       if k not in ("subject", "subjects", "id", "ids")},
                      sort_keys=True)


def _bundles(tmp: Path) -> list[Path]:
    return [generate(tmp / "storm", 60, 20, shape="pending-storm"),
            generate(tmp / "fleet", 60, 20, shape="fleet"),
            build_demo().write(tmp / "demo")]


def test_folded_report_keeps_every_finding_and_subject(tmp_path: Path) -> None:
    for root in _bundles(tmp_path):
        with open_bundle(root) as snap:
            findings = run_all(snap)
        doc = json.loads(dumps(document(findings)))
        flat = [{"id": i, **f.as_json()} for f, i in zip(findings, finding_ids(findings),
                                                          strict=True)]
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
