"""``check`` decodes a large bundle's healthy pods lean and gives the report it gives from whole
pods, byte for byte.

Every scenario (operands broken each way, pending pods of each gate-1 verdict, DRA, the demo)
and every bench shape, small, is checked with the lean decode on and off, in JSON and text,
with ``pods.json`` streamed in small pieces (a small file is decoded whole: the lean path would
not run). The lean snapshot must really hold lean pods next to whole ones, else the comparison
proves nothing.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuxray.cli import cmd_check
from gpuxray.cli.main import run
from gpuxray.model import k8s
from gpuxray.scenarios import dra as S
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.demo import build_demo
from gpuxray.scenarios.operator import GPU_TOLERATION, add_gpu_operator
from gpuxray.sources import decode
from gpuxray.sources.bundle import load_bundle_dir
from small_pieces import stream_in_small_pieces

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from generate import SHAPES, generate


def _operator(broken: dict[str, str]) -> Callable[[], ClusterBuilder]:
    def build() -> ClusterBuilder:
        b = ClusterBuilder()
        b.node("cpu-0")
        nodes = [f"gpu-{i}" for i in range(4)]
        for n in nodes:
            b.node(n, gpus=8, taints=[{"key": "nvidia.com/gpu", "value": "present",
                                       "effect": "NoSchedule"}])
        add_gpu_operator(b, nodes, broken=broken)
        tol = [dict(GPU_TOLERATION)]
        for i, n in enumerate(nodes):
            b.pod("ml", f"train-{i}", node=n, gpus=2, tolerations=tol)
            b.pod("web", f"api-{i}", node="cpu-0")
        b.pod("ml", "done", node="gpu-3", gpus=8, tolerations=tol, phase="Succeeded")
        b.pod("ml", "wants-8", gpus=8, tolerations=tol)
        b.pod("ml", "no-toleration", gpus=1)
        b.pod("ml", "too-big", gpus=16, tolerations=tol)
        b.pod("ml", "visible-devices", node="gpu-0", containers=[{
            "name": "main", "image": "nvcr.io/nvidia/cuda:12.4.0-base-ubuntu22.04",
            "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}]}])
        return b
    return build


def _dra() -> ClusterBuilder:
    b = S.healthy_dra_cluster()
    S.dra_pod(b, "ml", "job-0", template="no-such-template")
    return b


SCENARIOS: dict[str, Callable[[], ClusterBuilder]] = {
    "demo": build_demo,
    "dra": _dra,
    "operator-healthy": _operator({}),
    "operator-driver-toolkit-handler": _operator(
        {"driver": "gpu-1", "toolkit": "gpu-2", "handler": "gpu-3"}),
    "operator-dcgm-mig-labels": _operator(
        {"dcgm-exporter": "gpu-0", "mig": "gpu-1", "labels": "gpu-2", "taint": "gpu-3",
         "clusterpolicy": "x"}),
    "operator-config-hook-os": _operator(
        {"plugin-config": "x", "runtime-hook": "gpu-0", "os-mix": "gpu-1",
         "gfd-labels": "gpu-2:restarts", "upgrade": "gpu-3"}),
}


def _reports(root: Path, capsys: pytest.CaptureFixture[str],
             monkeypatch: pytest.MonkeyPatch) -> None:
    for view in (("-o", "json"), ("-o", "text")):
        outs = []
        for lean in (True, False):
            monkeypatch.setattr(cmd_check, "LEAN_PODS", lean)
            capsys.readouterr()
            code = run(["check", "--bundle", str(root), *view])
            out = capsys.readouterr()
            outs.append((code, out.out, out.err))
        assert outs[0] == outs[1], view
        assert outs[0][0] in (0, 1, 3), outs[0]


def _kinds(root: Path) -> Counter[str]:
    snap = load_bundle_dir(root, lean_pods=True)
    return Counter(type(p).__name__ for p in snap.pods)


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_check_from_lean_pods_reports_as_from_whole_pods(
        scenario: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = SCENARIOS[scenario]().write(tmp_path / scenario)
    stream_in_small_pieces(monkeypatch)
    monkeypatch.setenv("COLUMNS", "200")
    kinds = _kinds(root)
    assert kinds["Pod"] > 0 and set(kinds) <= {"Pod", "PodLean"}
    _reports(root, capsys, monkeypatch)


@pytest.mark.parametrize("pieces", ["one-pod", "split", "runs"])
@pytest.mark.parametrize("shape", sorted(s for s in SHAPES if s != "mustgather"))
def test_check_from_lean_pods_reports_as_from_whole_pods_on_bench_shapes(
        shape: str, pieces: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``one-pod``: pieces of a pod or two (a wanted one makes its piece whole); ``split``:
    ~15 pods a piece, the wanted ones decoded from their own text; ``runs``: the rest of
    the file decoded whole after a piece that was mostly wanted (asked again only far on)."""
    root = generate(tmp_path / shape, 60, 20, shape=shape)
    stream_in_small_pieces(monkeypatch)
    if pieces != "one-pod":
        monkeypatch.setattr(decode, "_CHUNK_BYTES", 60_000)
        monkeypatch.setattr(decode, "_STEP_BYTES", 6_000)
    if pieces == "runs":
        monkeypatch.setattr(decode, "_PROBE_FIRST", 1000)
        monkeypatch.setattr(decode, "_PROBE_MAX", 1000)
    monkeypatch.setenv("COLUMNS", "200")
    kinds = _kinds(root)
    assert kinds["Pod"] > 0 and (kinds["PodLean"] > 0 or pieces == "runs"), kinds
    _reports(root, capsys, monkeypatch)


def test_a_run_of_wanted_pods_at_the_head_leaves_the_rest_lean(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """An apiserver lists pods by namespace and name: a fleet's operator namespace can come
    first as one run of pods wanted whole. The pieces after the run are asked again, and the
    healthy workload pods that follow are decoded lean, with the report unchanged."""
    # 6,000 pods, a quarter of them operands: more than a third of the first 4,000 are wanted
    root = generate(tmp_path / "fleet", 300, 20, shape="fleet")
    pods = root / "cluster" / "pods.json"
    doc = json.loads(pods.read_text())
    ns = next(p["metadata"]["namespace"] for p in doc["items"]
              if p["metadata"]["name"].startswith("nvidia-"))
    doc["items"].sort(key=lambda p: (p["metadata"]["namespace"] != ns,
                                     p["metadata"]["namespace"], p["metadata"]["name"]))
    pods.write_text(json.dumps(doc, separators=(",", ":")))
    stream_in_small_pieces(monkeypatch)
    monkeypatch.setattr(decode, "_CHUNK_BYTES", 600_000)  # ~200 pods a piece
    monkeypatch.setattr(decode, "_STEP_BYTES", 60_000)
    snap = load_bundle_dir(root, lean_pods=True)
    kinds = [type(p).__name__ for p in snap.pods]
    operands = sum(p.metadata.namespace == ns for p in snap.pods)
    assert operands > 50 and all(k == "Pod" for k in kinds[:operands])
    tail = kinds[-len(kinds) // 4:]
    assert tail.count("PodLean") > 0.5 * len(tail), Counter(tail)
    monkeypatch.setenv("COLUMNS", "200")
    _reports(root, capsys, monkeypatch)


def test_a_small_file_is_decoded_whole(tmp_path: Path) -> None:
    root = SCENARIOS["operator-healthy"]().write(tmp_path / "b")
    assert set(_kinds(root)) == {"Pod"}


def test_lean_pods_keep_the_fields_whole_pods_have_under_the_same_names() -> None:
    def names(t: type) -> set[str]:
        return set(t.__struct_fields__)  # type: ignore[attr-defined]

    assert names(k8s.PodLean) == names(k8s.Pod)
    for lean, whole in ((k8s.ObjectMetaLean, k8s.ObjectMeta),
                        (k8s.PodSpecLean, k8s.PodSpec), (k8s.PodStatusLean, k8s.PodStatus),
                        (k8s.ContainerLean, k8s.Container),
                        (k8s.ContainerStatusLean, k8s.ContainerStatus),
                        (k8s.EnvName, k8s.EnvVar)):
        assert names(lean) < names(whole), lean


@pytest.mark.parametrize("keep_going", [False, True])
def test_bad_inputs_give_the_same_answer_lean_or_whole(
        keep_going: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Pods are decoded last when lean; errors still come in the inputs' order."""
    root = SCENARIOS["operator-healthy"]().write(tmp_path / "b")
    (root / "cluster" / "pods.json").write_text('{"items": [{"metadata": ')
    (root / "cluster" / "events.json").write_text('{"items": 7}')
    stream_in_small_pieces(monkeypatch)
    outs = []
    for lean in (True, False):
        monkeypatch.setattr(cmd_check, "LEAN_PODS", lean)
        capsys.readouterr()
        code = run(["check", "--bundle", str(root), "-o", "json",
                    *(["--keep-going"] if keep_going else [])])
        out = capsys.readouterr()
        outs.append((code, out.out, out.err))
    assert outs[0] == outs[1]
    if not keep_going:
        assert outs[0][0] == 2 and "pods.json" in outs[0][2]


def test_finished_pods_stay_lean_and_failed_ones_are_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A Succeeded pod is read for nothing past its lean fields (it holds no GPU and is never
    troubled); a Failed one may carry kubelet's admission refusal, so it is decoded whole."""
    b = _operator({})()
    tol = [dict(GPU_TOLERATION)]
    b.pod("ml", "failed", node="gpu-2", gpus=8, tolerations=tol, phase="Failed")
    b.pod("ml", "done-too", node="gpu-1", gpus=2, tolerations=tol, phase="Succeeded")
    root = b.write(tmp_path / "b")
    stream_in_small_pieces(monkeypatch)
    monkeypatch.setattr(decode, "_WHOLE_PIECE_SHARE", 1.0)  # each wanted pod from its own text
    monkeypatch.setenv("COLUMNS", "200")
    snap = load_bundle_dir(root, lean_pods=True)
    kind = {p.metadata.name: type(p).__name__ for p in snap.pods}
    assert kind["done"] == kind["done-too"] == "PodLean"
    assert kind["failed"] == "Pod" and kind["wants-8"] == "Pod"
    _reports(root, capsys, monkeypatch)
