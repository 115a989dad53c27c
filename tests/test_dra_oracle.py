"""DRA gate 1 against the real kube-scheduler's allocator.

Random clusters of DRA GPU nodes (ResourceSlices published as NVIDIA's driver does: 1–8 H100 or
A100 devices, some tainted, some nodes tainted, some with MIG devices) get filler pods the real
scheduler allocates first; then claim/pod shapes (counts, allocationMode All, the gpu and mig
classes, CEL selectors on memory, product, driver version and MIG profile, device-taint
tolerations, firstAvailable lists, two requests, a matchAttribute constraint, a second pod on a
filler's allocated claim pinned to some node) wait behind a scheduling gate. gpuxray reads the
cluster live and decides each pod; the pod is released alone, and the scheduler binds it
(allocating its claim) or refuses it. Each pod and its claim are removed before the next, so
every pod meets the cluster gpuxray saw.

Agreement: ``why`` finds no verdict exactly when the scheduler binds the pod; for refused pods
the scheduler's message is one of its DRA phrases or allocator errors.
"""

from __future__ import annotations

import os
import random
import time
from typing import Any

import pytest

import controlplane as cplane
from controlplane_fixture import control_plane, namespace  # noqa: F401
from gpuxray.diagnose.why import why_pod
from gpuxray.scenarios import dra as S
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources import live

pytestmark = pytest.mark.slow

CLUSTERS = int(os.environ.get("GPUXRAY_DRA_ORACLE_CLUSTERS", "30"))
PODS_PER_CLUSTER = 5
GATE = "gpuxray.test/hold"
RES = "/apis/resource.k8s.io/v1"
Obj = dict[str, Any]
NODE_TAINT = {"key": "dedicated", "value": "ml", "effect": "NoSchedule"}
DEVICE_TAINT = {"key": "gpu.nvidia.com/unhealthy", "value": "xid-79", "effect": "NoSchedule"}
SELECTORS = (
    None, None,
    "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0",
    "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('64Gi')) >= 0",
    "device.attributes['gpu.nvidia.com'].productName.lowerAscii().contains('h100')",
    "device.attributes['gpu.nvidia.com'].productName.lowerAscii().contains('a100')",
    "device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('590.0.0'))",
    "device.attributes['gpu.nvidia.com'].architecture == 'Hopper'",
)
#: the scheduler's DRA refusals (pkg/scheduler/framework/plugins/dynamicresources) and the
#: allocator errors that abort an attempt (structured/internal/stable/allocator_stable.go)
DRA_PHRASES = ("cannot allocate all claims", "resourceclaim not available on the node",
               "untolerated taint", "didn't match pod's node affinity/selector",
               "because a claim constraint would not be satisfied", "cel runtime error")


def _clean(obj: Obj) -> Obj:
    out = cplane.strip_server_fields(obj)
    out.pop("status", None)
    return out


def build_cluster(rng: random.Random, idx: int) -> tuple[list[Obj], list[Obj]]:
    b = ClusterBuilder()
    nodes, slices = [], []
    for n in range(rng.randint(2, 4)):
        name = f"d{idx:02d}-gpu-{n}"
        product = rng.choice((S.H100, S.A100_40))
        gpus = rng.choice((1, 2, 4, 8))
        taints = [NODE_TAINT] if rng.random() < 0.2 else None
        nodes.append(b.node(name, labels=S.dra_node_labels(), taints=taints))
        devs = [S.gpu_device(name, i, product,
                             [DEVICE_TAINT] if rng.random() < 0.1 else None)
                for i in range(gpus)]
        if rng.random() < 0.25:  # a partitioned GPU: its MIG devices beside the whole ones
            devs += [S.mig_device(name, gpus, start=k) for k in range(rng.randint(1, 7))]
        slices.append(S.add_slice(b, name, devs))
    return nodes, slices


def claim_obj(rng: random.Random, ns: str, name: str) -> Obj:
    def one(rname: str) -> Obj:
        if rng.random() < 0.15:
            return S.request(rname, "mig.nvidia.com", count=rng.choice((1, 2, 3)), selectors=[
                "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"]
                if rng.random() < 0.5 else None)
        mode = "All" if rng.random() < 0.1 else None
        sel = rng.choice(SELECTORS)
        tol = ([{"key": DEVICE_TAINT["key"], "operator": "Exists"}]
               if rng.random() < 0.3 else None)
        return S.request(rname, count=rng.choice((1, 1, 1, 2, 2, 3, 4, 8, 9)), mode=mode,
                         selectors=[sel] if sel else None, tolerations=tol)
    reqs = [one("gpu")]
    if rng.random() < 0.12:  # a prioritized list: the first subrequest that fits wins
        reqs = [S.first_available("gpu", [one(f"alt{k}") for k in range(rng.randint(2, 3))])]
    if rng.random() < 0.15:
        reqs.append(one("extra"))
    cons = ([{"requests": ["gpu"], "matchAttribute": "resource.kubernetes.io/pcieRoot"}]
            if rng.random() < 0.1 else None)
    b = ClusterBuilder()
    return _clean(S.add_claim(b, ns, name, reqs, constraints=cons))


def pod_obj(rng: random.Random, ns: str, name: str, claim: str, *, gated: bool,
            node: str | None = None) -> Obj:
    b = ClusterBuilder()
    tol = [{"key": NODE_TAINT["key"], "operator": "Exists"}] if rng.random() < 0.5 else []
    sel = {"kubernetes.io/hostname": node} if node else None
    p = S.dra_pod(b, ns, name, claim=claim, tolerations=tol, node_selector=sel)
    if gated:
        p["spec"]["schedulingGates"] = [{"name": GATE}]
    return _clean(p)


def create_claim_and_pod(cp: cplane.ControlPlane, ns: str, claim: Obj, pod: Obj) -> None:
    cp.ok("POST", f"{RES}/namespaces/{ns}/resourceclaims", claim)
    cp.ok("POST", f"/api/v1/namespaces/{ns}/pods", pod)


def decided(cp: cplane.ControlPlane, ns: str, name: str) -> tuple[str | None, str] | None:
    pod = cp.get(f"/api/v1/namespaces/{ns}/pods/{name}")
    if pod["spec"].get("nodeName"):
        return pod["spec"]["nodeName"], ""
    for c in pod.get("status", {}).get("conditions", []):
        if (c["type"] == "PodScheduled" and c.get("status") == "False" and c.get("message")
                and c.get("reason") != "SchedulingGated"):
            return None, str(c["message"])
    return None


def release_and_wait(cp: cplane.ControlPlane, ns: str, name: str) -> tuple[str | None, str]:
    cp.ok("PATCH", f"/api/v1/namespaces/{ns}/pods/{name}",
          [{"op": "remove", "path": "/spec/schedulingGates"}],
          content_type="application/json-patch+json")
    out: tuple[str | None, str] = cp.wait(f"the scheduler to decide {ns}/{name}",
                                          lambda: decided(cp, ns, name), timeout=60,
                                          interval=0.05)
    return out


def remove_pod(cp: cplane.ControlPlane, ns: str, pod: str) -> None:
    cp.request("DELETE", f"/api/v1/namespaces/{ns}/pods/{pod}?gracePeriodSeconds=0")
    cp.wait(f"{ns}/{pod} gone",
            lambda: cp.request("GET", f"/api/v1/namespaces/{ns}/pods/{pod}")[0] == 404)


def remove(cp: cplane.ControlPlane, ns: str, pod: str, claim: str) -> None:
    """Pod first, then the claim: its allocation cleared (no kubelet unprepares it here) and
    its finalizer dropped, so its devices are free for the next pod."""
    remove_pod(cp, ns, pod)
    path = f"{RES}/namespaces/{ns}/resourceclaims/{claim}"
    for _ in range(20):
        status, obj = cp.request("GET", path)
        if status == 404:
            return
        obj["status"] = {}
        s1, _ = cp.request("PUT", path + "/status", obj)
        status, obj = cp.request("GET", path)
        if status == 404:
            return
        obj["metadata"]["finalizers"] = []
        s2, _ = cp.request("PUT", path, obj)
        if s1 < 300 and s2 < 300:
            break
    cp.request("DELETE", path)
    cp.wait(f"claim {claim} gone", lambda: cp.request("GET", path)[0] == 404)


def gpuxray_schedulable(snap: Any, ns: str, name: str) -> tuple[bool, str]:
    pod = snap.find_pod(ns, name)
    assert pod is not None and pod.spec.resource_claims, name
    d = why_pod(snap, pod)
    if d.verdict is not None:
        return False, d.verdict.code
    failed = [s.step for s in d.path if s.result == "fail"]
    return (not failed), (failed[0] if failed else "fits")


def test_dra_gate1_agrees_with_kube_scheduler(control_plane: cplane.ControlPlane,  # noqa: F811
                                              namespace: str) -> None:  # noqa: F811
    cp, ns = control_plane, namespace
    rng = random.Random(21)
    b = ClusterBuilder()
    S.add_device_classes(b)
    for dc in b.cluster["deviceclasses"]:
        status, out = cp.request("POST", f"{RES}/deviceclasses", _clean(dc))
        assert status in (201, 409), out
    total = agree = bound = 0
    disagreements: list[str] = []
    codes: dict[str, int] = {}
    started = time.monotonic()
    try:
        for idx in range(CLUSTERS):
            nodes, slices = build_cluster(rng, idx)
            for n in nodes:
                cp.create(n)
            for s in slices:
                cp.ok("POST", f"{RES}/resourceslices", _clean(s))
            fillers = []
            for n in nodes:
                for k in range(rng.randint(0, 2)):
                    name = f"{n['metadata']['name']}-fill-{k}"
                    claim = _clean(S.add_claim(ClusterBuilder(), ns, name + "-c",
                                               [S.request(count=1)]))
                    pod = pod_obj(rng, ns, name, name + "-c", gated=False,
                                  node=n["metadata"]["name"])
                    pod["spec"]["tolerations"] = [{"operator": "Exists"}]
                    create_claim_and_pod(cp, ns, claim, pod)
                    fillers.append((name, name + "-c"))
            for name, _c in fillers:
                cp.wait(f"filler {name} decided", lambda name=name: decided(cp, ns, name),
                        timeout=60, interval=0.05)
            for i in range(PODS_PER_CLUSTER):
                name = f"d{idx:02d}-want-{i}"
                shared = rng.choice(fillers) if fillers and rng.random() < 0.15 else None
                if shared is not None:
                    # another pod on a claim a filler holds: the claim's node, or a node
                    # its selector names
                    target = rng.choice(nodes)["metadata"]["name"]
                    claim = {"spec": {"devices": f"shared {shared[1]} → {target}"}}
                    cp.ok("POST", f"/api/v1/namespaces/{ns}/pods",
                          pod_obj(rng, ns, name, shared[1], gated=True, node=target))
                else:
                    claim = claim_obj(rng, ns, name + "-c")
                    create_claim_and_pod(cp, ns, claim, pod_obj(rng, ns, name, name + "-c",
                                                                gated=True))
                time.sleep(0.3)  # informers see the claim before gpuxray and scheduler do
                snap = live.live_snapshot(str(cp.kubeconfig), None, quiet=True)
                predicted, code = gpuxray_schedulable(snap, ns, name)
                node, message = release_and_wait(cp, ns, name)
                total += 1
                actual = node is not None
                bound += actual
                codes[code] = codes.get(code, 0) + 1
                if predicted == actual and (actual or any(
                        p in message.lower() for p in DRA_PHRASES)):
                    agree += 1
                else:
                    disagreements.append(f"{name}: gpuxray {code}, scheduler "
                                         f"{'bound to ' + node if node else message}; claim "
                                         f"{claim['spec']['devices']}")
                if shared is None:
                    remove(cp, ns, name, name + "-c")
                else:
                    remove_pod(cp, ns, name)
                time.sleep(0.3)  # the scheduler's cache drops the pod and its devices
            for name, c in fillers:
                remove(cp, ns, name, c)
            for s in slices:
                cp.request("DELETE", f"{RES}/resourceslices/{s['metadata']['name']}")
            cp.delete_nodes([n["metadata"]["name"] for n in nodes])
    finally:
        cp.request("DELETE", f"{RES}/resourceslices")
        for dc in b.cluster["deviceclasses"]:
            cp.request("DELETE", f"{RES}/deviceclasses/{dc['metadata']['name']}")
        cp.delete_nodes()
    elapsed = time.monotonic() - started
    print(f"\nDRA gate 1 vs kube-scheduler {cp.version}: {total} claim/slice shapes in "
          f"{CLUSTERS} clusters, {bound} bound; agreement {agree}/{total}; leaves "
          f"{dict(sorted(codes.items()))}; {elapsed:.0f} s")
    assert not disagreements, "\n".join(disagreements[:40])
    assert total >= 100 and bound >= 20 and total - bound >= 20
