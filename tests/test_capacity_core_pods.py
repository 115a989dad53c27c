"""``capacity`` decodes pods as PodCore: every output must be what full pods give.

The capacity path may only read the fields PodCore keeps; a read of anything else would raise
(exit 4) or change a number. Each scenario runs with core pods and with full pods, in every
output and view, and the two outputs must be byte-identical.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from capacity_fixtures import mig_cluster, sharing_cluster, usage_cluster
from gpuxray.cli import cmd_capacity
from gpuxray.model import k8s
from gpuxray.model.snapshot import Input
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.demo import build_demo
from gpuxray.sources.bundle import load_bundle_dir

SCENARIOS: dict[str, Callable[[], ClusterBuilder]] = {
    "demo": build_demo,
    "usage": lambda: usage_cluster()[0],
    "sharing": lambda: sharing_cluster(fail_gt_one=False, lost=1),
    "mig": mig_cluster,  # no pods at all
}
VIEWS: list[tuple[str, ...]] = [
    ("-o", "json"), ("-o", "text"), ("-o", "markdown"), ("-o", "html"),
    ("--pods", "-o", "text"), ("--pods", "-o", "json"),
]


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_core_pods_give_the_same_capacity_output(
        scenario: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        gx: Callable[..., tuple[int, Any]]) -> None:
    root = SCENARIOS[scenario]().write(tmp_path / scenario)
    snap = load_bundle_dir(root, core_pods=True)
    assert all(type(p) is k8s.PodCore for p in snap.pods)
    bound = {p.spec.node_name for p in snap.pods}
    node = next((n.metadata.name for n in snap.nodes if n.metadata.name in bound),
                snap.nodes[0].metadata.name)
    monkeypatch.setenv("COLUMNS", "200")
    for view in [*VIEWS, ("--node", node, "-o", "text"), ("--node", node, "-o", "json")]:
        monkeypatch.setattr(cmd_capacity, "CORE_PODS", True)
        core = gx("capacity", "--bundle", str(root), *view)
        monkeypatch.setattr(cmd_capacity, "CORE_PODS", False)
        full = gx("capacity", "--bundle", str(root), *view)
        assert core == full, view
        assert core[0] in (0, 1, 3), view


@pytest.mark.parametrize("scenario", [*sorted(SCENARIOS), "bench-fleet", "bench-dra"])
def test_capacity_decodes_only_its_kinds_of_a_bundle_and_prints_the_same(
        scenario: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        gx: Callable[..., tuple[int, Any]]) -> None:
    """A bundle's cluster files outside ``CAPACITY_KINDS`` (events, workloads, quotas…) are
    not decoded for ``capacity``: every output and view is what decoding all of them gives."""
    if scenario.startswith("bench-"):
        import sys

        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
        from generate import generate

        root = generate(tmp_path / scenario, 40, 20, shape=scenario.removeprefix("bench-"))
    else:
        root = SCENARIOS[scenario]().write(tmp_path / scenario)
    narrow = load_bundle_dir(root, core_pods=True, kinds=cmd_capacity.CAPACITY_KINDS)
    skipped = [i for i, st in narrow.inputs.items() if st.reason.startswith("not requested")]
    if (root / "cluster" / "events.json").exists():
        assert Input.EVENTS in skipped and not narrow.events
    else:
        assert scenario not in ("demo", "bench-fleet", "bench-dra")
    assert not set(skipped) & cmd_capacity.CAPACITY_KINDS
    if scenario == "bench-fleet":
        assert {Input.DEPLOYMENTS, Input.REPLICASETS, Input.JOBS} <= set(skipped)
    bound = {p.spec.node_name for p in narrow.pods}
    node = next((n.metadata.name for n in narrow.nodes if n.metadata.name in bound),
                narrow.nodes[0].metadata.name)
    monkeypatch.setenv("COLUMNS", "200")
    for view in [*VIEWS, ("--node", node, "-o", "text"), ("--node", node, "-o", "json")]:
        narrow_out = gx("capacity", "--bundle", str(root), *view)
        with monkeypatch.context() as m:
            m.setattr(cmd_capacity, "CAPACITY_KINDS", None)  # every kind decoded
            wide = gx("capacity", "--bundle", str(root), *view)
        assert narrow_out == wide, view
        assert narrow_out[0] in (0, 1, 3), view
