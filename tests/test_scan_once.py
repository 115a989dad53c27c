"""Signature scans shared per distinct text give each pod the matches a scan of its own texts
gives, with each match's origin where that pod's copy came from."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from generate import generate

from gpuxray.engines.podtext import PodMatch, pod_texts, scan_pod
from gpuxray.engines.signatures import default_matcher
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.demo import build_demo
from gpuxray.scenarios.operator import add_gpu_operator
from gpuxray.sources.bundle import open_bundle


def _broken(tmp: Path) -> Path:
    b = ClusterBuilder()
    nodes = [f"gpu-{i}" for i in range(5)]
    for n in nodes:
        b.node(n, gpus=8)
    add_gpu_operator(b, nodes, broken={"handler": "gpu-1,gpu-2", "driver": "gpu-3",
                                       "runtime-hook": "gpu-4"})
    return b.write(tmp / "broken")


def test_shared_scans_equal_each_pods_own(tmp_path: Path) -> None:
    roots = [_broken(tmp_path), build_demo().write(tmp_path / "demo"),
             generate(tmp_path / "fleet", 40, 20, shape="fleet")]
    matched = 0
    for root in roots:
        with open_bundle(root) as snap:
            m = default_matcher()
            for pod in snap.pods:
                want = [PodMatch(match, t) for t in pod_texts(snap, pod)
                        for match in m.scan_text(t.text, t.source)]
                assert scan_pod(snap, pod) == want
                assert scan_pod(snap, pod) == want  # and again, from the shared scans
                matched += len(want)
    assert matched >= 10  # the scenarios hold failures to match


def test_stuck_pods_from_one_look_equal_each_nodes_walk(tmp_path: Path) -> None:
    from gpuxray.checks import runtime
    from gpuxray.engines.capacity import is_terminal

    with open_bundle(_broken(tmp_path)) as snap:
        seen = 0
        for node in snap.nodes:
            name = node.metadata.name
            want = [p for p in snap.pods_by_node.get(name, [])
                    if not is_terminal(p)
                    and any(runtime._requests_gpu(c) for c in p.spec.containers)
                    and any(st.state.waiting and st.state.waiting.reason in runtime.CREATE_STUCK
                            for st in p.status.container_statuses)]
            assert runtime._stuck_gpu_pods(snap, name) == want
            seen += len(want)
        assert seen >= 1  # the runtime-hook node holds a pod stuck at create
