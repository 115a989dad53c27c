"""The one-walk pod screens: which pods each check is narrowed to."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuxray.engines.podscan import runtime_scan, walk_bound
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources.bundle import load_bundle_dir


def names(pods: list[object]) -> list[str]:
    return [p.metadata.name for p in pods]  # type: ignore[attr-defined]


def test_screens(tmp_path: Path) -> None:
    b = ClusterBuilder()
    b.node("gpu-1", gpus=8)
    c = ClusterBuilder.container
    b.pod("ml", "gpu", node="gpu-1", gpus=2)
    b.pod("ml", "mig", node="gpu-1", gpus=1, resource="nvidia.com/mig-1g.10gb")
    b.pod("ml", "cpu", node="gpu-1")
    b.pod("ml", "pending-gpu", gpus=1)  # unbound: gate 1's business, not a holder
    b.pod("ml", "done-gpu", node="gpu-1", gpus=1, phase="Succeeded")
    b.pod("ml", "failed-gpu", node="gpu-1", gpus=1, phase="Failed")
    b.pod("ml", "sidecar", node="gpu-1",
          init_containers=[c("init", restart_policy="Always")])  # names no GPU: no holder
    b.pod("ml", "gpu-sidecar", node="gpu-1",
          init_containers=[c("init", gpus=1, restart_policy="Always")])
    b.pod("ml", "gpu-init", node="gpu-1", init_containers=[c("init", gpus=2)])
    overhead = b.pod("ml", "gpu-overhead", node="gpu-1", init_containers=[c("init")])
    overhead["spec"]["overhead"] = {"nvidia.com/gpu": "1"}
    b.pod("ml", "envvar", node="gpu-1",
          containers=[c("main", env={"NVIDIA_VISIBLE_DEVICES": "all"})])
    annotated = b.pod("ml", "annotated", node="gpu-1")
    annotated["metadata"]["annotations"] = {"nvidia.com/gpu-request": "1"}
    b.pod("ml", "crashing", node="gpu-1", container_statuses=[
        {"name": "main", "ready": False, "restartCount": 4,
         "state": {"waiting": {"reason": "CrashLoopBackOff"}}}])
    b.pod("ml", "restarted-once", node="gpu-1", container_statuses=[
        {"name": "main", "ready": True, "restartCount": 1, "state": {"running": {}}}])
    b.pod("ml", "creating", node="gpu-1", phase="Pending")
    snap = load_bundle_dir(b.write(tmp_path / "b"))
    scan = runtime_scan(snap)
    walk = walk_bound(snap.pods)
    named = ["gpu", "mig", "gpu-sidecar", "gpu-init", "gpu-overhead"]
    assert names(walk.gpu_named) == named
    live = ["gpu", "mig", "cpu", "sidecar", "gpu-sidecar", "gpu-init", "gpu-overhead", "envvar",
            "annotated", "crashing", "restarted-once", "creating"]
    assert {n: names(ps) for n, ps in walk.live_by_node.items()} == {"gpu-1": live}
    core = walk_bound(load_bundle_dir(b.write(tmp_path / "core"), core_pods=True).pods)
    assert names(core.gpu_named) == named
    assert names(core.live_by_node["gpu-1"]) == live
    assert names(scan.intent) == ["envvar", "annotated"]
    assert names(scan.troubled) == ["failed-gpu", "crashing", "restarted-once", "creating"]


def test_refuses_core_pods(tmp_path: Path) -> None:
    b = ClusterBuilder()
    b.node("gpu-1", gpus=8)
    b.pod("ml", "gpu", node="gpu-1", gpus=2)
    with pytest.raises(ValueError, match="whole pods"):
        runtime_scan(load_bundle_dir(b.write(tmp_path / "b"), core_pods=True))


def test_one_pass_equals_the_separate_walks(tmp_path: Path) -> None:
    """``fleet_walk`` gives the screens of the separate walks and the Snapshot's own groups."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from generate import generate

    from gpuxray.engines.podscan import _runtime_scan, fleet_walk
    from gpuxray.model.snapshot import Snapshot

    for shape in ("fleet", "pending-storm"):
        root = generate(tmp_path / shape, 40, 20, shape=shape)
        ref = load_bundle_dir(root)
        want_groups = Snapshot._pod_groups.func(ref)  # type: ignore[attr-defined]
        snap = load_bundle_dir(root)
        walk, scan, other = fleet_walk(snap)
        assert snap._pod_groups == want_groups  # filled by the one pass
        want_walk, want_scan = walk_bound(snap.pods), _runtime_scan(snap.pods)
        assert walk == want_walk and scan == want_scan
        assert walk.gpu_named and scan.intent is not None
        assert other.workers == [p for p in snap.pods if p.spec.node_name
                                 and "-worker" in p.metadata.name]
        assert other.with_reason == [p for p in snap.pods if p.status.reason]
