"""The JSON report grows with the distinct problems, not with the pods or the fleet's claims."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from generate import generate

from gpuxray.checks.engine import run_all
from gpuxray.render.json import document, dumps
from gpuxray.sources.bundle import open_bundle


def _report(root: Path) -> tuple[dict[str, object], int]:
    with open_bundle(root) as snap:
        text = dumps(document(run_all(snap)))
    return json.loads(text), len(text)


def test_dra_exhausted_lists_a_bounded_sample_of_holders(tmp_path: Path) -> None:
    doc, _size = _report(generate(tmp_path / "dra", 150, 20, shape="dra"))
    gx213 = [f for f in doc["findings"] if f["code"] == "GX213"]  # type: ignore[attr-defined]
    assert gx213
    for f in gx213:
        p = f["params"]
        assert len(p["holder_list"]) <= 100 < p["holders_total"] == p["allocated"]


def test_pending_storm_report_does_not_grow_with_the_storm(tmp_path: Path) -> None:
    small, s_size = _report(generate(tmp_path / "s", 100, 20, shape="pending-storm"))
    large, l_size = _report(generate(tmp_path / "l", 300, 20, shape="pending-storm"))
    # three times the pending pods: the entries that fold stay one each; what grows is the
    # subject lists and the findings that name their own node (pinned pods)
    def folded(doc: dict[str, object]) -> int:
        return sum(1 for f in doc["findings"] if "subjects" in f)  # type: ignore[attr-defined]
    assert folded(small) == folded(large) >= 1
    assert l_size < 3 * s_size


def test_exhausted_lists_a_bounded_sample_of_holders(tmp_path: Path) -> None:
    from gpuxray.engines.gate1 import MAX_HOLDERS as GATE1_MAX

    doc, _size = _report(generate(tmp_path / "storm", 60, 20, shape="pending-storm"))
    gx204 = [f for f in doc["findings"] if f["code"] == "GX204"]  # type: ignore[attr-defined]
    big = [f for f in gx204 if f["params"]["holders_total"] > GATE1_MAX]
    assert big  # the identical jobs' findings: every GPU node's holders
    for f in gx204:
        p = f["params"]
        assert len(p["holders"]) == min(GATE1_MAX, p["holders_total"])


def test_fleet_report_entries_do_not_grow_with_the_fleet(tmp_path: Path) -> None:
    small, _s = _report(generate(tmp_path / "s", 100, 20, shape="fleet"))
    large, _l = _report(generate(tmp_path / "l", 300, 20, shape="fleet"))
    # three times the nodes, no host files: each entry, its subject lists aside, stays the
    # same (GX305's unknown counts the GPU nodes it is about instead of listing them)
    def body(doc: dict[str, object]) -> dict[str, int]:
        drop = ("id", "ids", "subject", "subjects", "subject_params")
        return {f"{f['code']}/{f['status']}": len(json.dumps({k: v for k, v in f.items()
                                                             if k not in drop}))
                for f in doc["findings"]}  # type: ignore[attr-defined]
    b_small, b_large = body(small), body(large)
    assert b_small.keys() == b_large.keys()
    assert "GX305/unknown" in b_small
    assert {k: n for k, n in b_large.items() if n > b_small[k] + 4} == {}
