"""DRA gate-1 verdicts shared per claim shape equal the ones computed pod by pod.

The reference clears every derived table before each pod, so nothing is shared between pods of
one job; the shared path must give the same steps, evidence, verdicts and conclusions for every
pending claim-based pod — healthy and broken clusters alike.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from generate import generate

from gpuxray.engines import dra_gate1
from gpuxray.model.snapshot import _MEMO, Snapshot
from gpuxray.scenarios import dra as S
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources.bundle import open_bundle

XID = [{"key": "gpu.nvidia.com/unhealthy", "value": "xid-79", "effect": "NoSchedule"}]
NODE_TAINT = {"key": "dedicated", "value": "ml", "effect": "NoSchedule"}


def _job(b: ClusterBuilder, job: str, requests: list[dict[str, Any]], *, pods: int = 3,
         constraints: list[dict[str, Any]] | None = None, **pod_kw: Any) -> None:
    """Pods of one job: one template, each pod's own generated claim, spread over namespaces
    (claims of one shape in different namespaces share their verdict too)."""
    for k in range(pods):
        ns = ("ml", "team-a")[k % 2]
        name = f"{job}-{k}"
        claim = f"{name}-gpu-{k:05d}"
        p = S.dra_pod(b, ns, name, template=job, generated=claim, **pod_kw)
        S.add_claim(b, ns, claim, requests, owner=p, constraints=constraints)


def _broken(tmp: Path) -> Path:
    """DRA nodes full, partly full, tainted, device-tainted, unpublished; jobs that fit, that
    want more than a node has, name no class, select nothing, are held off by taints or by
    full nodes, ask for All, pin to another claim's node, or need two claims together."""
    b = S.healthy_dra_cluster()
    S.dra_gpu_node(b, "dra-3", taints=[NODE_TAINT])
    S.dra_gpu_node(b, "dra-4", gpus=2, device_taints={0: XID, 1: XID})
    S.dra_gpu_node(b, "dra-5", publish=False, taints=[NODE_TAINT])
    for i in range(3, 8):
        S.run_on(b, "ml", f"a-{i}", "dra-1", [f"gpu-{i}"])
    for i in range(1, 8):
        S.run_on(b, "ml", f"b-{i}", "dra-2", [f"gpu-{i}"])
    _job(b, "fits", [S.request()])
    _job(b, "fits-tolerated", [S.request()], tolerations=[
        {"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}])
    _job(b, "too-many", [S.request(count=9)])
    _job(b, "eight", [S.request(count=8)])
    _job(b, "no-class", [S.request(device_class="no-such-class")])
    _job(b, "no-match", [S.request(selectors=[
        "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA B200'"])])
    _job(b, "cel-error", [S.request(selectors=["device.attributes['gpu.nvidia.com'].nope > 1"])])
    _job(b, "all", [S.request(mode="All")])
    _job(b, "tainted-only", [S.request()], node_selector={"kubernetes.io/hostname": "dra-4"})
    _job(b, "two", [S.request("a"), S.request("b", count=2)],
         constraints=[{"requests": ["a", "b"],
                       "matchAttribute": "gpu.nvidia.com/productName"}])
    _job(b, "first", [S.first_available("gpu", [S.request("big", count=8), S.request("one")])])
    _job(b, "excluded", [S.request()], node_selector={"pool": "none"})
    first = b.find("pods", "infer-0", "ml")
    held = first["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    for k in range(2):
        S.dra_pod(b, "ml", f"sidecar-{k}", claim=held)
        S.dra_pod(b, "ml", f"sidecar-far-{k}", claim=held,
                  node_selector={"kubernetes.io/hostname": "dra-2"})
    return b.write(tmp / "broken")


def _reference(snap: Snapshot) -> dict[tuple[str, str], Any]:
    out = {}
    for p in dra_gate1.pending_dra_pods(snap):
        _MEMO.pop(snap, None)
        out[(p.metadata.namespace or "default", p.metadata.name)] = dra_gate1.walk(snap, p)
    _MEMO.pop(snap, None)
    return out


@pytest.mark.parametrize("shape", ["broken", "healthy", "dra"])
def test_shared_dra_verdicts_equal_per_pod_ones(tmp_path: Path, shape: str) -> None:
    if shape == "broken":
        root = _broken(tmp_path)
    elif shape == "healthy":
        b = S.healthy_dra_cluster()
        _job(b, "fits", [S.request()])
        _job(b, "pair", [S.request(count=2)])
        root = b.write(tmp_path / "healthy")
    else:
        root = generate(tmp_path / shape, 250, 20, shape=shape)
    with open_bundle(root) as snap:
        want = _reference(snap)
        got = dra_gate1.verdicts(snap)
        assert len(want) >= 6 and got.keys() == want.keys()
        for key, g in want.items():
            assert got[key] == g, key
        codes = {g.verdict.code for g in got.values() if g.verdict}
        if shape == "broken":  # it reaches many leaves, not one
            assert len(codes) >= 6, codes
        if shape == "healthy":
            assert not codes


SELECTOR_SETS = [
    (("DeviceClass gpu", "device.driver == 'gpu.nvidia.com'"),),
    (("request a", "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA B200'"),),
    (("request a", "device.attributes['gpu.nvidia.com'].nope > 1"),),  # absent: an error
    (("request a", "device.attributes['other.example.com'].x == 1"),),  # absent domain
    (("request a", "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"),),
    (("request a", "device.attributes['gpu.nvidia.com'].uuid.startsWith('GPU-')"),),
    (("request a", "'gpu.nvidia.com' in device.attributes"),),  # not a named read: per device
]


@pytest.mark.parametrize("shape", ["broken", "dra"])
def test_devices_alike_in_what_a_selector_reads_share_its_result(tmp_path: Path,
                                                                  shape: str) -> None:
    """The matcher evaluates a selector once per group of devices alike in the values it
    reads; every device's result equals its own evaluation."""
    from gpuxray.engines import dra

    root = _broken(tmp_path) if shape == "broken" else generate(tmp_path / shape, 100, 20,
                                                                  shape=shape)
    with open_bundle(root) as snap:
        devices = dra.view(snap).devices
        m = dra.matcher(snap)
        for sels in SELECTOR_SETS:
            for pd in devices:
                assert m.match(pd, sels) == dra._eval_all(sels, dra.cel_device(pd)), (sels, pd.ref)
        assert len(m.alike) < len(devices) * len(SELECTOR_SETS) // 4  # shared, not per device
        assert dra._reads(SELECTOR_SETS[-1]) is None
