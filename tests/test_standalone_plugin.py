"""GPU clusters without the GPU Operator (scenarios/standalone.py) are quiet, and stay
diagnosable.

The shapes are real: EKS AL2023 NVIDIA nodes with the containerd config nodeadm writes
(containerd 1.x and 2.x, ../shared/corpus/containerd/eks-nodeadm-*), Bottlerocket's NVIDIA
variant (its rendered config, device plugin as a host service), and GKE (Google's device
plugin, the GCE COS containerd config without any nvidia runtime); ``config dump`` is the
node's real containerd where built. Healthy means nothing above info. The controls show the quiet is
earned: with a ClusterPolicy present the same unlabelled nodes are GX401 again; NVIDIA's
device plugin on GKE's runtime-less config is GX301 again; an operator
whose list could not be read (403) stays ``unknown``; a node advertising fewer GPUs than its
host lists is GX604 with the host's count.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpuxray.checks.engine import run_all
from gpuxray.engines.operator import operator_absent, operator_evidence
from gpuxray.model.finding import Status
from gpuxray.scenarios import standalone as S
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources.bundle import load_bundle_dir
from test_healthy_shapes import DUMPER, _above_info

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "containerd"
CONFIGS = {
    S.EKS_AL2023_C1.name: "eks-nodeadm-containerd1-nvidia.expected/config.toml",
    S.EKS_AL2023_C2.name: "eks-nodeadm-containerd2-nvidia.expected-v3/config.toml",
    S.BOTTLEROCKET.name: "bottlerocket-k8s-nvidia/config.rendered.toml",
}


def _config(flavour: S.Flavour) -> str:
    if flavour is S.GKE_COS:
        return S.GCE_CONFIG
    path = CORPUS / CONFIGS[flavour.name]
    if not path.is_file():
        pytest.skip(f"corpus file {path} is not here")
    return path.read_text()


def _cluster(flavour: S.Flavour) -> ClusterBuilder:
    return S.build(flavour, _config(flavour), dumper=DUMPER)


def _findings(b: ClusterBuilder, tmp: Path) -> list[Any]:
    return run_all(load_bundle_dir(b.write(tmp / "b")))


@pytest.mark.parametrize("flavour", S.FLAVOURS, ids=lambda f: f.name)
def test_standalone_cluster_is_quiet(flavour: S.Flavour, tmp_path: Path,
                                     gx: Any) -> None:
    b = _cluster(flavour)
    bundle = b.write(tmp_path / "b")
    snap = load_bundle_dir(bundle)
    assert operator_absent(snap) and operator_evidence(snap) is None
    fs = run_all(snap)
    assert [(f.code, str(f.subject)) for f in _above_info(fs)] == []
    for pod in ("ml/train-0", "ml/train-1"):
        _, doc = gx("why", pod, "--bundle", str(bundle), "-o", "json")
        assert doc["verdict"] is None, (pod, doc["verdict"])
    _, cap = gx("capacity", "--bundle", str(bundle), "-o", "json")
    gpu_rows = [r for r in cap["nodes"] if r["resource"] == "nvidia.com/gpu"]
    assert [(r["capacity"], r["allocated"], r["free"]) for r in gpu_rows] == [(4, 2, 2)] * 2


def test_a_clusterpolicy_brings_the_operator_checks_back(tmp_path: Path) -> None:
    b = _cluster(S.EKS_AL2023_C1)
    b.ensure("clusterpolicies")
    b.manifest["errors"] = [e for e in b.manifest["errors"]  # type: ignore[index]
                            if "clusterpolicies" not in e["what"]]
    b.custom("clusterpolicies", "ClusterPolicy", "cluster-policy", {"driver": {"enabled": False}},
             {"state": "ready", "namespace": "gpu-operator"})
    snap = load_bundle_dir(b.write(tmp_path / "b"))
    assert not operator_absent(snap)
    gx401 = sorted(f.subject.name for f in run_all(snap, ["GX401"]) if f.status == Status.FAIL)
    assert gx401 == sorted(S.GPU_NODES)


def test_unreadable_clusterpolicies_stay_unknown_without_other_evidence(tmp_path: Path) -> None:
    b = _cluster(S.BOTTLEROCKET)  # no device plugin DaemonSet either
    b.manifest["errors"] = [  # type: ignore[index]
        {"what": "cluster/clusterpolicies.json", "error": "403 Forbidden"}]
    snap = load_bundle_dir(b.write(tmp_path / "b"))
    assert not operator_absent(snap)
    gx410 = run_all(snap, ["GX410"])
    assert [(f.code, f.status) for f in gx410] == [("GX410", Status.UNKNOWN)]


def test_fewer_gpus_than_the_host_lists_is_gx604(tmp_path: Path) -> None:
    b = _cluster(S.EKS_AL2023_C2)
    node = b.find("nodes", S.GPU_NODES[0])
    node["status"]["capacity"]["nvidia.com/gpu"] = "3"
    node["status"]["allocatable"]["nvidia.com/gpu"] = "3"
    fs = [f for f in _findings(b, tmp_path) if f.code == "GX604"]
    assert [(f.subject.name, f.status, f.params["physical"], f.params["missing"])
            for f in fs] == [(S.GPU_NODES[0], Status.FAIL, 4, 1)]


def test_operator_owned_daemonset_is_evidence(tmp_path: Path) -> None:
    b = _cluster(S.EKS_AL2023_C1)
    ds = b.find("daemonsets", "nvidia-device-plugin-daemonset", "kube-system")
    ds["metadata"]["ownerReferences"] = [{"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy",
                                          "name": "cluster-policy", "uid": "u1",
                                          "controller": True}]
    snap = load_bundle_dir(b.write(tmp_path / "b"))
    assert "nvidia-device-plugin-daemonset" in (operator_evidence(snap) or "")
    assert not operator_absent(snap)


def test_nvidia_plugin_without_the_handler_is_gx301(tmp_path: Path) -> None:
    b = _cluster(S.GKE_COS)
    ds = b.find("daemonsets", "nvidia-gpu-device-plugin", "kube-system")
    ds["spec"]["template"]["spec"]["containers"][0]["image"] = S.PLUGIN_IMAGE
    fs = [f for f in _findings(b, tmp_path) if f.code == "GX301"]
    assert sorted((f.subject.name, f.status) for f in fs) == [
        (n, Status.FAIL) for n in sorted(S.GPU_NODES)]
    assert all("nvidia" not in f.params["runtimes"] for f in fs)
