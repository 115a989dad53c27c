"""The benchmark generator is deterministic and writes a bundle gpuxray reads (bench/)."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from generate import generate

from gpuxray.engines.capacity import capacity_rows
from gpuxray.engines.gate1 import pending_gpu_pods
from gpuxray.sources.bundle import open_bundle


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
