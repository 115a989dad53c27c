"""Operand coverage against the real DaemonSet controller.

Random GPU nodes (deploy labels present, ``false`` or absent; operator, cordon, pressure,
NoExecute and PreferNoSchedule taints; a ``pool`` label or none) and the operator's DaemonSets
(deploy-label nodeSelectors, assorted tolerations, some with a required node affinity on the
pool label — In, NotIn, Exists, DoesNotExist, ORed terms — as the DRA driver's kubelet plugin
and user-set operand affinities carry) go into the real apiserver; the controller computes
``desiredNumberScheduled`` and creates one pod per node it covers. gpuxray's coverage (the
engine behind GX401/GX402) must name the same nodes, node by node, and GX402 must name exactly
the covered-by-selector GPU nodes the controller left out for a taint.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import controlplane as cplane
from controlplane_fixture import control_plane  # noqa: F401
from gpuxray.checks.engine import run_all
from gpuxray.checks.operator import gpu_nodes
from gpuxray.engines.operator import coverage
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources import live

pytestmark = pytest.mark.slow

NS = "gpu-operator"
OPERANDS = {
    "nvidia-device-plugin-daemonset": "device-plugin",
    "nvidia-container-toolkit-daemonset": "container-toolkit",
    "nvidia-dcgm-exporter": "dcgm-exporter",
    "gpu-feature-discovery": "gpu-feature-discovery",
}
TAINTS = [
    {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/disk-pressure", "effect": "NoSchedule"},
    {"key": "dedicated", "value": "training", "effect": "NoExecute"},
    {"key": "spot", "value": "true", "effect": "PreferNoSchedule"},
]
ROUNDS = 4
POOLS = ("a", "b", "c")
POOL_REQUIREMENTS: list[dict[str, Any]] = [
    {"key": "pool", "operator": "In", "values": ["a", "b"]},
    {"key": "pool", "operator": "NotIn", "values": ["c"]},
    {"key": "pool", "operator": "Exists"},
    {"key": "pool", "operator": "DoesNotExist"},
    {"key": "pool", "operator": "In", "values": ["c"]},
]

Obj = dict[str, Any]


def build(rng: random.Random, rnd: int) -> tuple[list[Obj], list[Obj]]:
    b = ClusterBuilder()
    nodes = []
    for i in range(rng.randint(5, 8)):
        n = b.node(f"r{rnd}-gpu-{i}", gpus=rng.choice((1, 8)),
                   taints=[t for t in TAINTS if rng.random() < 0.25] or None)
        labels = n["metadata"]["labels"]
        if rng.random() < 0.8:
            labels["pool"] = rng.choice(POOLS)
        for comp in OPERANDS.values():
            r = rng.random()
            if r < 0.15:
                labels.pop(f"nvidia.com/gpu.deploy.{comp}", None)
            elif r < 0.25:
                labels[f"nvidia.com/gpu.deploy.{comp}"] = "false"
        nodes.append(n)
    nodes.append(b.node(f"r{rnd}-cpu-0"))
    dss = []
    for name, comp in OPERANDS.items():
        tols: list[Obj] = []
        for t in TAINTS:
            if rng.random() < 0.35:
                tols.append({"key": t["key"], "operator": "Exists", "effect": t["effect"]}
                            if rng.random() < 0.6 else {"key": t["key"], "operator": "Exists"})
        if rng.random() < 0.1:
            tols = [{"operator": "Exists"}]
        ds = b.daemonset(NS, name, node_selector={f"nvidia.com/gpu.deploy.{comp}": "true"},
                         tolerations=tols, labels={"app": name})
        ds["spec"]["template"]["spec"]["priorityClassName"] = ""
        if rng.random() < 0.5:
            terms = [{"matchExpressions": [rng.choice(POOL_REQUIREMENTS)]}
                     for _ in range(rng.choice((1, 1, 2)))]
            ds["spec"]["template"]["spec"]["affinity"] = {"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
        del ds["status"]
        dss.append(ds)
    return nodes, dss


def covered_by_controller(cp: cplane.ControlPlane, name: str) -> tuple[int, set[str]]:
    """desiredNumberScheduled and the nodes the controller made a pod for."""
    def settled() -> Any:
        ds = cp.get(f"/apis/apps/v1/namespaces/{NS}/daemonsets/{name}")
        st = ds.get("status", {})
        if st.get("observedGeneration") != ds["metadata"]["generation"]:
            return None
        pods = [p for p in cp.get(f"/api/v1/namespaces/{NS}/pods?labelSelector=app%3D{name}")
                ["items"] if not p["metadata"].get("deletionTimestamp")]
        if len(pods) != st.get("desiredNumberScheduled", -1):
            return None
        nodes = set()
        for p in pods:
            terms = p["spec"]["affinity"]["nodeAffinity"][
                "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
            nodes.add(terms[0]["matchFields"][0]["values"][0])
        return st["desiredNumberScheduled"], nodes

    out: tuple[int, set[str]] = cp.wait(f"daemonset {name} settled", settled, timeout=90,
                                        interval=0.2)
    return out


def test_operand_coverage_agrees_with_daemonset_controller(
        control_plane: cplane.ControlPlane) -> None:  # noqa: F811
    cp = control_plane
    held = cp.request("GET", f"/apis/apps/v1/namespaces/{NS}/daemonsets")[1] or {}
    assert not held.get("items"), f"{NS} already holds operand DaemonSets: run this test first"
    rng = random.Random(401)
    compared = excluded_for_taint = 0
    problems: list[str] = []
    for rnd in range(ROUNDS):
        nodes, dss = build(rng, rnd)
        cp.ensure_namespace(NS)
        try:
            for n in nodes:
                cp.create(n)
            for ds in dss:
                cp.create(ds)
            real = {ds["metadata"]["name"]: covered_by_controller(cp, ds["metadata"]["name"])
                    for ds in dss}
            snap = live.live_snapshot(str(cp.kubeconfig), None, quiet=True)
            findings = run_all(snap, ["GX401", "GX402"])
            gx402 = {(f.subject.name, n) for f in findings if f.code == "GX402"
                     for n in f.params["nodes"]}
            gpu = {n.metadata.name for n in gpu_nodes(snap)}
            for ds in snap.daemonsets:
                name = ds.metadata.name
                desired, real_nodes = real[name]
                mine = {n.metadata.name for n in snap.nodes if coverage(ds, n).covered}
                compared += len(snap.nodes)
                if mine != real_nodes or desired != len(mine):
                    problems.append(f"round {rnd} {name}: controller desired {desired} on "
                                    f"{sorted(real_nodes)}; gpuxray covers {sorted(mine)}")
                for n in snap.nodes:
                    cov = coverage(ds, n)
                    want_402 = (n.metadata.name in gpu and cov.meant_for
                                and n.metadata.name not in real_nodes)
                    excluded_for_taint += want_402
                    if want_402 != ((name, n.metadata.name) in gx402):
                        problems.append(f"round {rnd} {name} {n.metadata.name}: GX402 "
                                        f"{'missing' if want_402 else 'wrongly raised'}")
        finally:
            cp.delete_namespace(NS)
            cp.delete_nodes([n["metadata"]["name"] for n in nodes])
    print(f"\noperand coverage vs DaemonSet controller {cp.version}: {compared} "
          f"(DaemonSet, node) pairs, {excluded_for_taint} excluded for a taint")
    assert compared >= 100 and excluded_for_taint >= 5
    assert not problems, "\n".join(problems[:40])
