"""The benchmark generator is deterministic and writes a bundle gpuxray reads (bench/)."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from generate import generate

from gpuxray.engines.capacity import capacity_rows
from gpuxray.engines.gate1 import pending_gpu_pods
from gpuxray.sources.bundle import open_bundle

BENCH = Path(__file__).resolve().parent.parent / "bench"


def digest(root: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.json")):
        h.update(f.read_bytes())
    return h.hexdigest()


def test_same_seed_same_bytes_and_realistic_sizes(tmp_path: Path) -> None:
    a = generate(tmp_path / "a", 20, 10)
    b = generate(tmp_path / "b", 20, 10)
    assert digest(a) == digest(b)
    size = (a / "cluster" / "pods.json").stat().st_size
    with open_bundle(a) as snap:
        n = len(snap.pods)
        assert 2000 <= size / n <= 4500  # 2–4 KB per pod, managedFields and all
        assert len(snap.nodes) == 20 and len(pending_gpu_pods(snap)) == 1
        rows = capacity_rows(snap)
        assert len(rows) == 16  # 80 % GPU nodes
        assert all(r.allocated <= r.capacity for r in rows)


@pytest.mark.parametrize("shape", ["fleet", "pending-storm"])
def test_shapes_keep_the_pod_total_and_carry_their_features(tmp_path: Path, shape: str) -> None:
    root = generate(tmp_path / shape, 50, 20, shape=shape)
    with open_bundle(root) as snap:
        assert len(snap.pods) == 50 * 20
        pending = pending_gpu_pods(snap)
        if shape == "fleet":
            assert snap.clusterpolicies and snap.daemonsets
            operands = [p for p in snap.pods if p.metadata.namespace == "gpu-operator"]
            assert len(operands) == 40 * 6 + 1  # six operands per GPU node, and the operator
            assert len(snap.deployments) >= 50 and len(snap.jobs) >= 9
            assert sum(1 for p in snap.pods if p.spec.runtime_class_name == "nvidia") > 100
            assert len({p.metadata.namespace for p in snap.pods}) > 40
            warn = [e for e in snap.events if e.type == "Warning"]
            assert sum(e.reason == "FailedScheduling" for e in warn) == 5 * len(pending)
        else:
            assert len(pending) == 27 + 6 + 4 + 2 + 10
            pinned = [p for p in pending if p.spec.affinity is not None]
            assert len(pinned) == 10


def test_mustgather_shape_reads_as_the_same_cluster(tmp_path: Path) -> None:
    from gpuxray.sources.mustgather import load_mustgather

    root = generate(tmp_path / "mg", 20, 20, shape="mustgather")
    snap = load_mustgather(root)
    with open_bundle(tmp_path / "mg.bundle") as full:
        gpu = {n.metadata.name for n in full.nodes
               if n.metadata.labels.get("nvidia.com/gpu.present") == "true"}
        assert {n.metadata.name for n in snap.nodes} == gpu
        want = {(r.node, r.resource): (r.capacity, r.allocatable, r.allocated)
                for r in capacity_rows(full)}
    got = {(r.node, r.resource): (r.capacity, r.allocatable, r.allocated)
           for r in capacity_rows(snap)}
    assert got == want  # describe text's allocated sums equal the scheduler's from the pods


def test_runner_reports_ratios_per_shape(tmp_path: Path) -> None:
    """The runner end to end on tiny clusters: a row per shape, ratios from the same rounds."""
    import json
    import subprocess

    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "run.py"), "--shapes", "plain,pending-storm",
         "--sizes", "10,20", "--main", "20", "--repeat", "2", "--no-live", "--report-nodes", "10",
         "--work", str(tmp_path / "work"), "--json", str(out)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    res = json.loads(out.read_text())
    assert [r["shape"] for r in res["shapes"]] == ["plain", "pending-storm"]
    assert [r["nodes"] for r in res["scale"]] == [10, 20]
    for r in res["shapes"]:
        assert r["pods"] == r["nodes"] * 20
        # a ratio is the command's best time over the floor's best time (a stall in one
        # round's floor alone cannot make it); the spread is per round
        # (the times are printed to the millisecond: tiny clusters run in tens of them)
        near = {"rel": 0.03, "abs": 0.02}
        assert r["capacity_x"] == pytest.approx(r["capacity_s"] / r["floor_s"], **near)
        assert r["check_x"] == pytest.approx(r["check_s"] / r["floor_s"], **near)
        assert r["why_vs_capacity"] == pytest.approx(r["why_s"] / r["capacity_s"], **near)
        lo, hi = r["check_x_range"]
        assert lo <= hi and r["floor_s"] > 0 and r["peak_rss_mb"] > 0
        assert r["findings"] >= 1 and r["report_bytes"] > 0
        # the same shape at --report-nodes: its distinct findings, compared in the targets
        assert r["small_nodes"] == 10 and r["small_findings"] >= 1
    assert "Targets (20 nodes" in proc.stdout and "spread" in proc.stdout
    assert "pending-storm: distinct findings 10→20 nodes" in proc.stdout
