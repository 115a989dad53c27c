"""Gate 1 against the real kube-scheduler.

Random clusters from the scenario builder (nvidia.com/gpu, .shared and MIG resource names,
capacity > allocatable, taints, selectors, node affinity, init containers and sidecars,
RuntimeClass overhead, already-bound and finished pods) go into the real apiserver with their
pending GPU pods held by a scheduling gate. gpuxray reads the cluster live and decides every pod;
then each pod is released alone, the real scheduler binds it or writes its FailedScheduling
reasons, and the pod is removed before the next one, so every pod meets the cluster gpuxray saw.

For every pod: ``why`` says schedulable exactly when the scheduler binds it; for pods left
Pending, gpuxray's per-node filter results (the walk's building blocks in
``engines/scheduling.py``) add up to the scheduler's per-reason node counts, and the walk's
verdict is the GPU leaf those counts imply.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

import pytest

import controlplane as cplane
from controlplane_fixture import control_plane, namespace  # noqa: F401
from gpuxray.diagnose.why import why_pod
from gpuxray.engines.capacity import gpu_requests, pod_requests
from gpuxray.engines.scheduling import parse_fit_error, resource_fit
from gpuxray.model.k8s import Pod
from gpuxray.model.placement import admissibility
from gpuxray.model.snapshot import Snapshot
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources import live

pytestmark = pytest.mark.slow

CLUSTERS = 20
PODS_PER_CLUSTER = 11
GATE = "gpuxray.test/hold"
RESOURCES = ("nvidia.com/gpu", "nvidia.com/gpu.shared", "nvidia.com/mig-1g.10gb")
TAINTS = [
    {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
    {"key": "dedicated", "value": "ml", "effect": "NoExecute"},
    {"key": "maintenance", "effect": "NoSchedule"},
    {"key": "spot", "value": "true", "effect": "PreferNoSchedule"},  # does not filter
]
OVERHEAD_RC = "kata-nvidia"

Obj = dict[str, Any]


# ----- the random cluster -------------------------------------------------------------------
def build_cluster(rng: random.Random, idx: int, ns: str) -> tuple[ClusterBuilder, list[Obj],
                                                                   list[Obj]]:
    """Nodes and bound pods (the builder's objects) plus the pending pods to decide."""
    b = ClusterBuilder()
    res = rng.choice(RESOURCES)
    replicas = 4 if res.endswith(".shared") else 1
    nodes = []
    for n in range(rng.randint(3, 6)):
        name = f"c{idx:02d}-gpu-{n}"
        gpus = rng.choice((1, 2, 4, 8))
        total = gpus * replicas
        alloc = total
        if rng.random() < 0.2:
            alloc = rng.choice((0, max(total - 1, 0), total // 2))
        taints = [t for t in TAINTS if rng.random() < 0.3]
        labels = {"pool": rng.choice(("a", "b"))}
        if rng.random() < 0.3:
            labels["zone"] = rng.choice(("z1", "z2"))
        cpu = rng.choice(("8", "96"))
        nodes.append(b.node(name, gpus=gpus, resource=res, replicas=replicas,
                            allocatable=alloc, taints=taints, labels=labels, cpu=cpu,
                            unschedulable=rng.random() < 0.08))
    if rng.random() < 0.5:
        nodes.append(b.node(f"c{idx:02d}-cpu-0", cpu="32",
                            labels={"pool": rng.choice(("a", "b"))}))
    bound = []
    for node in nodes:
        alloc = int(node["status"]["allocatable"].get(res, "0"))
        for k in range(rng.randint(0, 2)):
            if alloc <= 0:
                break
            take = rng.randint(1, alloc)
            alloc -= take
            phase = "Succeeded" if rng.random() < 0.2 else None
            p = b.pod(ns, f"{node['metadata']['name']}-run-{k}", node=node["metadata"]["name"],
                      gpus=take, resource=res,
                      tolerations=[{"operator": "Exists"}], phase=phase)
            bound.append(p)
    pending = [pending_pod(rng, b, ns, idx, i, res) for i in range(PODS_PER_CLUSTER)]
    return b, nodes, bound + pending


def pending_pod(rng: random.Random, b: ClusterBuilder, ns: str, idx: int, i: int,
                res: str) -> Obj:
    want = res if rng.random() < 0.9 else rng.choice([r for r in RESOURCES if r != res])
    qty = rng.choice((1, 1, 1, 2, 2, 3, 4, 4, 8, 8, 16, 32))
    cpu = rng.choice(("1", "1", "4", "7"))
    kind = rng.random()
    init: list[Obj] | None = None
    containers = [b.container("main", gpus=qty, resource=want, requests={"cpu": cpu})]
    if kind < 0.15:  # an init container asking for more than the app
        init = [b.container("prep", gpus=qty + rng.randint(1, 4), resource=want)]
    elif kind < 0.3:  # a sidecar that keeps its GPU for the pod's life
        init = [b.container("sidecar", gpus=rng.randint(1, 2), resource=want,
                            restart_policy="Always")]
    elif kind < 0.4:  # the GPU on a second container
        containers.append(b.container("helper", gpus=rng.randint(1, 2), resource=want))
    tolerations: list[Obj] = []
    for t in TAINTS:
        if rng.random() < 0.5:
            tol = {"key": t["key"], "operator": "Exists"} if rng.random() < 0.5 else {
                "key": t["key"], "operator": "Equal", "value": t.get("value", ""),
                "effect": t["effect"]}
            tolerations.append(tol)
    if rng.random() < 0.1:
        tolerations = [{"operator": "Exists"}]
    selector = {"pool": rng.choice(("a", "b"))} if rng.random() < 0.3 else None
    affinity = None
    r = rng.random()
    if r < 0.15:
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "zone", "operator": rng.choice(("In", "NotIn")), "values": ["z1"]}]}]}}}
    elif r < 0.25:
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "Exists"}]},
                {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["b"]}]}]}}}
    p = b.pod(ns, f"c{idx:02d}-want-{i}", containers=containers, init_containers=init,
              tolerations=tolerations, node_selector=selector, affinity=affinity,
              runtime_class=OVERHEAD_RC if rng.random() < 0.2 else None)
    p["spec"]["schedulingGates"] = [{"name": GATE}]
    return p


# ----- what gpuxray says ---------------------------------------------------------------------
_ADMISSION_REASON = {
    "unschedulable": "unschedulable",
    "taint": "taint",
    "selector": "affinity/selector",
    "affinity": "affinity/selector",
}


def scheduler_reason(text: str) -> str:
    """One FitError reason as a category: ``Insufficient <res>`` keeps its resource."""
    if text.startswith("Insufficient "):
        return text
    if "untolerated taint" in text:
        return "taint"
    if "node affinity/selector" in text:
        return "affinity/selector"
    if "unschedulable" in text:
        return "unschedulable"
    return text


def gpuxray_reasons(snap: Snapshot, pod: Pod) -> Counter[str]:
    """Per node, the first filter that rejects the pod (gpuxray's order) — or, at the resource
    filter, every resource that does not fit — counted as the scheduler's FitError counts."""
    out: Counter[str] = Counter()
    reqs = pod_requests(pod)
    for node in snap.nodes:
        a = admissibility(pod, node)
        if not a.ok:
            out[_ADMISSION_REASON[a.reason]] += 1
            continue
        for res, q in sorted(reqs.items()):
            if res in ("ephemeral-storage",) or res.startswith("hugepages-"):
                continue
            if not resource_fit(snap, node, res, q).fits:
                out[f"Insufficient {res}"] += 1
    return out


def gpuxray_schedulable(snap: Snapshot, pod: Pod) -> tuple[bool, str]:
    d = why_pod(snap, pod)
    if d.verdict is not None:
        return False, d.verdict.code
    failed = [s.step for s in d.path if s.result == "fail"]
    return (not failed), (failed[0] if failed else "fits")


# ----- the scheduler's answer -----------------------------------------------------------------
def release_and_wait(cp: cplane.ControlPlane, ns: str, name: str) -> tuple[str | None, str]:
    """Lift the gate; return (node it was bound to, FailedScheduling message)."""
    cp.ok("PATCH", f"/api/v1/namespaces/{ns}/pods/{name}",
          [{"op": "remove", "path": "/spec/schedulingGates"}],
          content_type="application/json-patch+json")

    def decided() -> tuple[str | None, str] | None:
        pod = cp.get(f"/api/v1/namespaces/{ns}/pods/{name}")
        if pod["spec"].get("nodeName"):
            return pod["spec"]["nodeName"], ""
        for c in pod.get("status", {}).get("conditions", []):
            if (c["type"] == "PodScheduled" and c.get("reason") == "Unschedulable"
                    and c.get("message")):
                return None, str(c["message"])
        return None

    out: tuple[str | None, str] = cp.wait(f"the scheduler to decide {ns}/{name}", decided,
                                          timeout=60, interval=0.05)
    return out


def remove_pod(cp: cplane.ControlPlane, ns: str, name: str) -> None:
    cp.request("DELETE", f"/api/v1/namespaces/{ns}/pods/{name}?gracePeriodSeconds=0")
    cp.wait(f"{ns}/{name} gone",
            lambda: cp.request("GET", f"/api/v1/namespaces/{ns}/pods/{name}")[0] == 404)


def test_gate1_agrees_with_kube_scheduler(control_plane: cplane.ControlPlane,  # noqa: F811
                                          namespace: str) -> None:  # noqa: F811
    cp, ns = control_plane, namespace
    rng = random.Random(20)
    cp.create({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
               "metadata": {"name": OVERHEAD_RC}, "handler": "kata",
               "overhead": {"podFixed": {"cpu": "2", "memory": "2Gi"}}})
    total = agree_bind = agree_reasons = 0
    bound_count = 0
    disagreements: list[str] = []
    verdicts: Counter[str] = Counter()
    made: list[str] = []
    started = time.monotonic()
    try:
        for idx in range(CLUSTERS):
            _b, nodes, pods = build_cluster(rng, idx, ns)
            for n in nodes:
                cp.create(n)
                made.append(n["metadata"]["name"])
            pending = []
            for p in pods:
                created = cp.create(p)
                if p["status"].get("phase") == "Succeeded":
                    created["status"]["phase"] = "Succeeded"
                    cp.ok("PUT", f"/api/v1/namespaces/{ns}/pods/{p['metadata']['name']}/status",
                          created)
                if p["spec"].get("schedulingGates"):
                    pending.append(p["metadata"]["name"])
            time.sleep(0.5)  # the scheduler's informers see the nodes and bound pods
            snap = live.live_snapshot(str(cp.kubeconfig), None, quiet=True)
            by_name = {pod.metadata.name: pod for pod in snap.pods
                       if pod.metadata.namespace == ns}
            for name in pending:
                pod = by_name[name]
                assert gpu_requests(pod), name
                predicted, why_code = gpuxray_schedulable(snap, pod)
                reasons = gpuxray_reasons(snap, pod)
                verdicts[why_code] += 1
                node, message = release_and_wait(cp, ns, name)
                total += 1
                actual = node is not None
                bound_count += actual
                if predicted == actual:
                    agree_bind += 1
                else:
                    disagreements.append(f"{name}: gpuxray {why_code}, scheduler "
                                         f"{'bound to ' + node if node else message}")
                if not actual:
                    fit = parse_fit_error(message)
                    assert fit is not None, message
                    theirs = Counter({scheduler_reason(k): 0 for k in fit.reasons})
                    for k, v in fit.reasons.items():
                        theirs[scheduler_reason(k)] += v
                    if fit.total == len(snap.nodes) and +theirs == +reasons:
                        agree_reasons += 1
                    else:
                        disagreements.append(f"{name}: gpuxray per-node {dict(reasons)} "
                                             f"({why_code}), scheduler {message}")
                remove_pod(cp, ns, name)
                if actual:
                    # the scheduler's cache must drop the pod before the next one is decided
                    time.sleep(0.5)
            cp.request("DELETE", f"/api/v1/namespaces/{ns}/pods?gracePeriodSeconds=0")
            cp.wait("cluster pods gone", lambda: not cp.get(
                f"/api/v1/namespaces/{ns}/pods")["items"])
            cp.delete_nodes([n["metadata"]["name"] for n in nodes])
            made.clear()
    finally:
        cp.request("DELETE", f"/apis/node.k8s.io/v1/runtimeclasses/{OVERHEAD_RC}")
        cp.delete_nodes(made)
    elapsed = time.monotonic() - started
    print(f"\ngate 1 vs kube-scheduler {cp.version}: {total} pods in {CLUSTERS} clusters, "
          f"{bound_count} bound; bind agreement {agree_bind}/{total}, reason agreement "
          f"{agree_reasons}/{total - bound_count}; {elapsed:.0f} s; gpuxray verdicts "
          f"{dict(sorted(verdicts.items()))}")
    assert total >= 200 and bound_count >= 20 and total - bound_count >= 20
    assert not disagreements, "\n".join(disagreements[:40])

