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


def test_runner_reports_ratios_and_scaling(tmp_path: Path) -> None:
    """The runner end to end on a tiny cluster: rows for each size, ratios from the same run."""
    import json
    import subprocess

    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "run.py"), "--sizes", "10,20", "--main", "20",
         "--repeat", "1", "--no-live", "--work", str(tmp_path / "work"), "--json", str(out)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    rows = json.loads(out.read_text())["scale"]
    assert [r["nodes"] for r in rows] == [10, 20]
    for r in rows:
        assert r["pods"] == r["nodes"] * 20
        # ratios come from the unrounded seconds of the same run
        assert r["capacity_x"] == pytest.approx(r["capacity_s"] / r["floor_s"], rel=0.1)
        assert r["check_x"] == pytest.approx(r["check_s"] / r["floor_s"], rel=0.1)
        assert r["floor_s"] > 0 and r["peak_rss_mb"] > 0
    assert "Targets (20 nodes" in proc.stdout and "Scaling" in proc.stdout
