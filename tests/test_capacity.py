"""Capacity accounting exactly as the scheduler does it (seed §2, §6), checked by hand."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuxray.engines.capacity import (
    _gpu_requests_simple,
    gpu_requests,
    is_gpu_resource,
    pod_requests,
)
from gpuxray.model.k8s import Pod
from gpuxray.model.quantity import QuantityError, parse_quantity
from gpuxray.scenarios.builder import ClusterBuilder

Run = Callable[..., tuple[int, Any]]


def as_pod(obj: dict[str, Any]) -> Pod:
    return msgspec.convert(obj, Pod)


@pytest.mark.parametrize(("text", "value"), [
    ("2", Fraction(2)), ("500m", Fraction(1, 2)), ("1.5Gi", Fraction(3 * 2**29)),
    ("1e3", Fraction(1000)), ("100M", Fraction(10**8)), ("0.1", Fraction(1, 10)), (3, Fraction(3)),
])
def test_quantities(text: str | int, value: Fraction) -> None:
    assert parse_quantity(text) == value


@pytest.mark.parametrize("bad", ["", "abc", "1.2.3", "5Qi", "--1"])
def test_bad_quantities(bad: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(bad)


def test_effective_request_init_sidecar_overhead() -> None:
    b = ClusterBuilder()
    init = [
        b.container("warmup", gpus=4, requests={"cpu": "2"}),                   # plain init: 4 GPUs
        b.container("proxy", gpus=1, requests={"cpu": "500m"}, restart_policy="Always"),  # sidecar
        b.container("fetch", gpus=0, requests={"cpu": "8"}),                    # init after sidecar
    ]
    apps = [b.container("a", gpus=1, requests={"cpu": "1"}),
            b.container("b", gpus=2, requests={"cpu": "1"})]
    pod = as_pod(b.pod("ml", "p", containers=apps, init_containers=init,
                       overhead={"cpu": "250m", "nvidia.com/gpu": "0"}))
    req = pod_requests(pod)
    # GPUs: max(init 4, sidecar-before-fetch 1+0, apps 1+2 + sidecar 1 = 4) = 4
    assert req["nvidia.com/gpu"] == 4
    # cpu: max(2, 0.5, 8 + 0.5 = 8.5, apps 2 + sidecar 0.5 = 2.5) + overhead 0.25 = 8.75
    assert req["cpu"] == Fraction(35, 4)


def test_sidecar_adds_to_apps() -> None:
    b = ClusterBuilder()
    pod = as_pod(b.pod("ml", "p", containers=[b.container("a", gpus=2)],
                       init_containers=[b.container("s", gpus=1, restart_policy="Always")]))
    assert pod_requests(pod)["nvidia.com/gpu"] == 3


def test_limits_stand_in_for_requests() -> None:
    b = ClusterBuilder()
    c = b.container("a", limits={"nvidia.com/gpu": "2"}, requests={})
    assert pod_requests(as_pod(b.pod("ml", "p", containers=[c])))["nvidia.com/gpu"] == 2


def build_cluster() -> ClusterBuilder:
    b = ClusterBuilder()
    b.node("cpu-1")
    b.node("gpu-1", gpus=8, taints=[{"key": "nvidia.com/gpu", "effect": "NoSchedule"}])
    b.node("gpu-2", gpus=4, capacity=4, allocatable=3)
    b.node("gpu-3", gpus=2, replicas=4, resource="nvidia.com/gpu.shared")
    b.node("gpu-4", gpus=2, advertise=False)
    # gpu-1: init 4 (max) vs apps 1+2: holds 4; a sidecar pod 2+1 = 3; limits-only 1
    init = [b.container("warmup", gpus=4)]
    b.pod("ml", "init-heavy", node="gpu-1", containers=[b.container("a", gpus=1),
                                                        b.container("b", gpus=2)],
          init_containers=init)
    b.pod("ml", "with-sidecar", node="gpu-1", containers=[b.container("a", gpus=2)],
          init_containers=[b.container("s", gpus=1, restart_policy="Always")])
    b.pod("ml", "limits-only", node="gpu-1",
          containers=[b.container("a", limits={"nvidia.com/gpu": "1"}, requests={})])
    b.pod("ml", "finished", node="gpu-1", gpus=8, phase="Succeeded")
    b.pod("ml", "failed", node="gpu-1", gpus=8, phase="Failed")
    b.pod("ml", "pending", gpus=8)  # unbound: holds nothing
    b.pod("ml", "g2", node="gpu-2", gpus=2)
    b.pod("ml", "shared", node="gpu-3", gpus=3, resource="nvidia.com/gpu.shared")
    return b


def test_capacity_table_matches_hand_computation(
        gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    code, doc = gx("capacity", "--bundle", str(write_bundle(build_cluster())), "-o", "json")
    assert code == 0
    rows = {(r["node"], r["resource"]): r for r in doc["nodes"]}
    assert set(rows) == {("gpu-1", "nvidia.com/gpu"), ("gpu-2", "nvidia.com/gpu"),
                         ("gpu-3", "nvidia.com/gpu.shared"), ("gpu-4", "nvidia.com/gpu")}
    g1 = rows[("gpu-1", "nvidia.com/gpu")]
    assert (g1["capacity"], g1["allocatable"], g1["allocated"], g1["free"]) == (8, 8, 8, 0)
    assert g1["taints"] == ["nvidia.com/gpu:NoSchedule"]  # tainted nodes are shown
    assert {h["pod"]: h["amount"] for h in g1["holders"]} == {
        "init-heavy": 4, "with-sidecar": 3, "limits-only": 1}
    g2 = rows[("gpu-2", "nvidia.com/gpu")]
    assert (g2["capacity"], g2["allocatable"], g2["allocated"], g2["free"], g2["unhealthy"]) == \
        (4, 3, 2, 1, 1)
    g3 = rows[("gpu-3", "nvidia.com/gpu.shared")]
    assert (g3["capacity"], g3["allocated"], g3["free"], g3["sharing"]) == (8, 3, 5, "time-slicing")
    # CODES.md: physical = physical GPUs; 2 GPUs shared 4 ways advertise 8 slots
    assert (g3["physical"], g3["devices"], g3["replicas"], g3["advertised_slots"]) == (2, 2, 4, 8)
    g4 = rows[("gpu-4", "nvidia.com/gpu")]
    assert (g4["capacity"], g4["name_present"], g4["physical"]) == (0, False, 2)
    assert doc["totals"]["nvidia.com/gpu"] == {"capacity": 12, "allocatable": 11,
                                               "allocated": 10, "free": 1, "unhealthy": 1}


def test_capacity_node_view_and_text(gx: Run,
                                     write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    bundle = write_bundle(build_cluster())
    code, out = gx("capacity", "--bundle", str(bundle), "--node", "gpu-1")
    assert code == 0 and "init-heavy" in out and "gpu-2" not in out
    code, _ = gx("capacity", "--bundle", str(bundle), "--node", "nope")
    assert code == 2


_qty = st.sampled_from(["0", "1", "2", "4", 1, 3, "500m", "1.5"])
_res = st.dictionaries(st.sampled_from(["nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "cpu"]),
                       _qty, max_size=3)


@settings(max_examples=300, derandomize=True)
@given(st.lists(st.tuples(_res, _res), min_size=1, max_size=3))
def test_integer_fast_path_equals_scheduler_formula(containers: list[Any]) -> None:
    spec = {"containers": [{"name": f"c{i}", "resources": {"limits": lim, "requests": req}}
                           for i, (lim, req) in enumerate(containers)]}
    pod = as_pod({"spec": spec})
    full = {k: v for k, v in pod_requests(pod, is_gpu_resource).items()}
    fast = _gpu_requests_simple(pod)
    if fast is not None:  # None: a fraction or an odd value, left to the full formula
        assert fast == full
    assert gpu_requests(pod) == {k: int(v) for k, v in full.items()}
