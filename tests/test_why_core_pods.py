"""``why`` from a bundle decodes the other pods as PodCore where its answer reads no more.

Every pod of scenarios with pending pods of each gate-1 verdict, bound pods on broken nodes,
finished pods and DRA claims is asked about with the slim decode on and off, in JSON and text,
read whole and in streamed pieces: the outputs must be byte-identical. The slim snapshot must
really be the one answering for pending pods (else the comparison proves nothing), hold the
asked pod whole and every other pod as PodCore, and read no log.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuxray.cli import cmd_why
from gpuxray.cli.main import run
from gpuxray.diagnose.why import core_enough, focus_pod
from gpuxray.model import k8s
from gpuxray.scenarios import dra as S
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.demo import build_demo
from gpuxray.scenarios.operator import GPU_TOLERATION, add_gpu_operator
from gpuxray.sources import decode
from gpuxray.sources.bundle import load_bundle_dir
from small_pieces import stream_in_small_pieces


def _fleet() -> ClusterBuilder:
    b = ClusterBuilder()
    b.node("cpu-0")
    nodes = [f"gpu-{i}" for i in range(5)]
    for n in nodes:
        b.node(n, gpus=8, taints=[{"key": "nvidia.com/gpu", "value": "present",
                                   "effect": "NoSchedule"}])
    add_gpu_operator(b, nodes, broken={"handler": "gpu-1", "driver": "gpu-2",
                                       "toolkit": "gpu-3"})
    tol = [dict(GPU_TOLERATION)]
    for n in nodes:
        b.pod("ml", f"on-{n}", node=n, gpus=2, tolerations=tol)
    b.pod("ml", "full-node", node="gpu-0", gpus=6, tolerations=tol)
    b.pod("ml", "done", node="gpu-4", gpus=8, tolerations=tol, phase="Succeeded")

    def pin(*names: str) -> dict[str, Any]:
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                    "values": list(names)}]}]}}}

    b.pod("ml", "wants-broken", gpus=8, tolerations=tol, affinity=pin("gpu-1", "gpu-2"))
    b.pod("ml", "wants-full", gpus=4, tolerations=tol, affinity=pin("gpu-0"))
    b.pod("ml", "no-toleration", gpus=1)
    b.pod("ml", "too-big", gpus=16, tolerations=tol)
    b.pod("ml", "fits", gpus=1, tolerations=tol)
    return b


def _dra() -> ClusterBuilder:
    b = S.healthy_dra_cluster()
    S.dra_pod(b, "ml", "job-0", template="no-such-template")
    return b


SCENARIOS: dict[str, Callable[[], ClusterBuilder]] = {
    "fleet": _fleet, "demo": build_demo, "dra": _dra}


def _targets(root: Path) -> list[str]:
    doc = json.loads((root / "cluster" / "pods.json").read_text())
    return [f"{p['metadata']['namespace']}/{p['metadata']['name']}" for p in doc["items"]]


@pytest.mark.parametrize("streamed", [False, True], ids=["whole-file", "pieces"])
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_why_from_core_pods_answers_as_from_whole_pods(
        scenario: str, streamed: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    def gx(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = run(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err

    root = SCENARIOS[scenario]().write(tmp_path / scenario)
    if streamed:
        stream_in_small_pieces(monkeypatch)
    monkeypatch.setenv("COLUMNS", "200")
    targets = _targets(root)
    slim_answered = 0
    for target in [*targets, "ml/no-such-pod"]:
        key = focus_pod(target, None)
        assert key is not None
        snap = load_bundle_dir(root, core_pods=True, whole_pods=[key], log_nodes=lambda _s: ())
        asked = [p for p in snap.pods if (p.metadata.namespace, p.metadata.name) == key]
        assert all(type(p) is k8s.Pod for p in asked), target
        others = [p for p in snap.pods if (p.metadata.namespace, p.metadata.name) != key]
        if streamed:  # a small file is decoded whole: every pod is then a Pod
            assert all(type(p) is k8s.PodCore for p in others), target
        assert not snap.logs
        slim_answered += core_enough(snap, target, None)
        for view in (("-o", "json"), ("-o", "text")):
            monkeypatch.setattr(cmd_why, "CORE_PODS", True)
            core = gx("why", target, "--bundle", str(root), *view)
            monkeypatch.setattr(cmd_why, "CORE_PODS", False)
            full = gx("why", target, "--bundle", str(root), *view)
            assert core == full, (target, view)
            assert core[0] in (0, 1, 2, 3), (target, core)
    if scenario == "fleet":
        # pending pods of several gate-1 verdicts and the finished pod took the slim path
        assert slim_answered >= 4


def test_whole_pod_pieces_match_the_full_decode(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    root = _fleet().write(tmp_path / "fleet")
    f = root / "cluster" / "pods.json"
    full = decode.decode_objects(f.read_bytes(), k8s.Pod, "pods.json")
    stream_in_small_pieces(monkeypatch)
    for pick in (full[0], full[len(full) // 2], full[-1]):
        key = (pick.metadata.namespace, pick.metadata.name)
        got = decode.decode_file(f, k8s.PodCore, "pods.json", decode.Whole(
            k8s.Pod, (json.dumps(pick.metadata.name).encode(),),
            lambda p, k=key: (p.metadata.namespace, p.metadata.name) == k))
        assert len(got) == len(full)
        for g, w in zip(got, full, strict=True):
            if (w.metadata.namespace, w.metadata.name) == key:
                assert g == w
            else:
                assert type(g) is k8s.PodCore
                assert (g.metadata.name, g.spec.node_name, g.status.phase) == (
                    w.metadata.name, w.spec.node_name, w.status.phase)
