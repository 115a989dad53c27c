"""Gate-1 verdicts shared per pod shape equal the ones computed pod by pod, node by node.

The reference clears every derived table before each pod and matches every node with
``admissibility`` itself, so nothing is shared between pods; the shared path must give the same
steps, evidence, verdicts and conclusions for every pending pod.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from generate import generate

from gpuxray.engines import gate1
from gpuxray.model.k8s import Node, Pod
from gpuxray.model.placement import Admissibility, admissibility
from gpuxray.model.snapshot import _MEMO, Snapshot
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources.bundle import open_bundle

GPU_TOL = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def _pin(*terms: list[str], field: str = "metadata.name", op: str = "In",
         expr: bool = False) -> dict[str, Any]:
    key = "matchExpressions" if expr else "matchFields"
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{key: [{"key": field, "operator": op, "values": list(t)}]}
                              for t in terms]}}}


def _mixed(tmp: Path) -> Path:
    """Nodes cordoned, tainted, full, free, unlabelled; pending pods pinned by name to one, two,
    absent, cordoned or CPU nodes, pinned by hostname label, by NotIn, with and without
    tolerations and selectors — every way a shape can be decided."""
    b = ClusterBuilder()
    for i in range(8):
        b.node(f"gpu-{i}", gpus=8, unschedulable=i == 1,
               taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
               + ([{"key": "dedicated", "value": "ml", "effect": "NoSchedule"}] if i == 2 else []),
               labels={"pool": "a" if i % 2 else "b"})
    b.node("cpu-0")
    for i in range(8):  # fill some nodes
        if i in (3, 4, 5):
            b.pod("busy", f"hog-{i}", node=f"gpu-{i}", gpus=8 if i != 5 else 5,
                  tolerations=[GPU_TOL])
    variants: list[dict[str, Any]] = [
        {}, {"tolerations": [GPU_TOL]}, {"tolerations": [GPU_TOL], "node_selector": {"pool": "a"}},
        {"tolerations": [GPU_TOL], "node_selector": {"pool": "zzz"}},
        *({"tolerations": [GPU_TOL], "affinity": _pin([f"gpu-{i}"])} for i in range(8)),
        {"tolerations": [GPU_TOL], "affinity": _pin(["gpu-3"], ["gpu-6"])},
        {"tolerations": [GPU_TOL], "affinity": _pin(["gpu-3", "gpu-7", "nowhere"])},
        {"tolerations": [GPU_TOL], "affinity": _pin(["nowhere"])},
        {"tolerations": [GPU_TOL], "affinity": _pin(["cpu-0"])},
        {"tolerations": [GPU_TOL], "affinity": _pin([])},
        {"tolerations": [GPU_TOL], "affinity": _pin(["gpu-0"]), "node_selector": {"pool": "a"}},
        {"tolerations": [GPU_TOL], "affinity": _pin(["gpu-0", "gpu-6"], op="NotIn")},
        {"tolerations": [GPU_TOL],
         "affinity": _pin(["gpu-6"], field="kubernetes.io/hostname", expr=True)},
        {"tolerations": [GPU_TOL, {"operator": "Exists"}], "affinity": _pin(["gpu-1", "gpu-2"])},
    ]
    for k, v in enumerate(variants):
        for r in range(2):  # two pods per shape: the second one reuses the first's tables
            b.pod("ml", f"p{k}-{r}", gpus=(1, 4, 8)[k % 3], **v)
    return b.write(tmp / "mixed")


class _Naive(dict[str, Admissibility]):
    def __init__(self, pod: Pod, nodes: list[Node]) -> None:
        super().__init__((n.metadata.name, admissibility(pod, n)) for n in nodes)
        self.candidates = [n for n in nodes if self[n.metadata.name].ok]


def _reference(snap: Snapshot, monkeypatch: pytest.MonkeyPatch) -> dict[tuple[str, str], Any]:
    out = {}
    with monkeypatch.context() as m:
        m.setattr(gate1, "admissible_nodes", lambda s, pod, res: _Naive(
            pod, gate1.resource_view(s, res).gpu_nodes))
        for p in gate1.pending_gpu_pods(snap):
            _MEMO.pop(snap, None)
            out[(p.metadata.namespace or "default", p.metadata.name)] = gate1.walk(snap, p)
    _MEMO.pop(snap, None)
    return out


@pytest.mark.parametrize("shape", ["mixed", "pending-storm", "fleet"])
def test_shared_verdicts_equal_per_pod_ones(tmp_path: Path, shape: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    root = _mixed(tmp_path) if shape == "mixed" else generate(tmp_path / shape, 60, 20,
                                                              shape=shape)
    with open_bundle(root) as snap:
        want = _reference(snap, monkeypatch)
        gate1.verdicts.cache_clear()
        got = gate1.verdicts(snap)
        assert len(want) >= 10 and got.keys() == want.keys()
        for key, g in want.items():
            assert got[key] == g, key
        # the checks' verdicts, walked without steps, on a snapshot that has walked nothing
        _MEMO.pop(snap, None)
        gate1.verdict_findings.cache_clear()
        assert gate1.verdict_findings(snap) == {k: g.verdict for k, g in want.items()}
        codes = {g.verdict.code for g in got.values() if g.verdict}
        if shape == "mixed":  # it reaches several verdicts, not one
            assert len(codes) >= 2


def test_table_entries_equal_admissibility(tmp_path: Path) -> None:
    with open_bundle(_mixed(tmp_path)) as snap:
        nodes = gate1.resource_view(snap, "nvidia.com/gpu").gpu_nodes
        for p in gate1.pending_gpu_pods(snap):
            table = gate1.admissible_nodes(snap, p, "nvidia.com/gpu")
            assert dict(table) == {n.metadata.name: admissibility(p, n) for n in nodes}
            assert table.candidates == [n for n in nodes if admissibility(p, n).ok]


def _groups(tmp: Path) -> Path:
    """Several nodes per cordon/taint group with labels that differ inside a group, so a
    group's shared verdict and the per-node selector can disagree; pins to a tainted node, a
    cordoned one, a missing one, several names, and a pin plus a selector that excludes it."""
    b = ClusterBuilder()
    for i in range(12):
        taints = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
        if i % 4 == 1:
            taints.append({"key": "dedicated", "value": "ml", "effect": "NoSchedule"})
        b.node(f"g-{i}", gpus=8, unschedulable=i % 4 == 2, taints=taints,
               labels={"pool": "a" if i % 3 else "b", "zone": str(i % 2)})
    for i, n in ((0, 8), (3, 8), (4, 8), (5, 5)):  # full nodes, and one with 3 left
        b.pod("busy", f"hog-{i}", node=f"g-{i}", gpus=n, tolerations=[GPU_TOL])
    variants: list[dict[str, Any]] = [
        {"tolerations": [GPU_TOL]},
        {"tolerations": [GPU_TOL], "node_selector": {"pool": "a"}},
        {"tolerations": [GPU_TOL], "node_selector": {"pool": "a", "zone": "1"}},
        {"tolerations": [GPU_TOL, {"key": "dedicated", "operator": "Exists"}],
         "node_selector": {"pool": "b"}},
        {"tolerations": [GPU_TOL], "affinity": _pin(["g-1"])},  # tainted
        {"tolerations": [GPU_TOL], "affinity": _pin(["g-2"])},  # cordoned
        {"tolerations": [GPU_TOL], "affinity": _pin(["g-0", "g-4", "missing"])},
        {"tolerations": [GPU_TOL], "affinity": _pin(["g-3"], ["g-0"])},
        {"tolerations": [GPU_TOL], "affinity": _pin(["g-3"]), "node_selector": {"pool": "b"}},
        {"tolerations": [GPU_TOL], "affinity": _pin(["missing"])},
        {"tolerations": [GPU_TOL], "affinity": _pin(["g-5"], field="pool", expr=True)},
    ]
    for k, v in enumerate(variants):
        for r in range(2):
            b.pod("ml", f"q{k}-{r}", gpus=(1, 8)[k % 2], **v)
    return b.write(tmp / "groups")


def test_grouped_and_pinned_tables_equal_node_by_node(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The base table matched once per cordon/taint group, the pinned shapes matched on their
    pinned nodes only, and the fit, free and number tables read without ``resource_fit``
    equal their node-by-node definitions, and so do the walks built on them."""
    from fractions import Fraction

    from gpuxray.engines.scheduling import resource_fit

    res = "nvidia.com/gpu"
    with open_bundle(_groups(tmp_path)) as snap:
        nodes = gate1.resource_view(snap, res).gpu_nodes
        assert len(gate1._node_groups(snap, res)) < len(nodes)
        for p in gate1.pending_gpu_pods(snap):
            table = gate1.admissible_nodes(snap, p, res)
            assert table.candidates == [n for n in nodes if admissibility(p, n).ok]
            assert dict(table) == {n.metadata.name: admissibility(p, n) for n in nodes}
        fits = gate1._fit_table(snap, res)
        assert fits == {n.metadata.name: resource_fit(snap, n, res, Fraction(0)) for n in nodes}
        assert gate1._free_table(snap, res) == {k: int(f.free) for k, f in fits.items()}
        assert gate1._numbers(snap, res) == {k: (f.capacity, f.allocatable, f.used)
                                             for k, f in fits.items()}
        want = _reference(snap, monkeypatch)
        gate1.verdicts.cache_clear()
        got = gate1.verdicts(snap)
        assert got.keys() == want.keys() and len(got) == 22
        for key, g in want.items():
            assert got[key] == g, key
        # it reaches several leaves: GX201 for some shapes, a conclusion (fits) for others
        assert len({g.verdict.code if g.verdict else g.conclusion for g in got.values()}) >= 3
