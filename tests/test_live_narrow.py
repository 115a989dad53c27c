"""Live commands that read less than everything answer as if they had read everything.

``capacity`` lists only the kinds its views depend on, and ``why`` reads operand logs only on
the nodes its walk reaches (``diagnose/why.py`` ``log_nodes``). Against ``gpuxray serve`` on
scenarios with broken operands, pending pods of every gate-1 verdict and bound pods on broken
nodes, both give exactly the output of a full listing, and skip what they claim to skip.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuxray.cli import cmd_capacity
from gpuxray.cli.main import run
from gpuxray.diagnose.why import log_nodes, why
from gpuxray.model.snapshot import Input
from gpuxray.scenarios import dra as S
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.demo import build_demo
from gpuxray.scenarios.operator import GPU_TOLERATION, add_gpu_operator
from gpuxray.sources import live
from live_fixtures import served, write_kubeconfig, write_scenario

FAST = live.RetryPolicy(attempts=3, backoff_s=0.01, max_backoff_s=0.05, connect_timeout_s=2,
                        read_timeout_s=5)


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "DEFAULT_POLICY", FAST)


def _broken_fleet() -> ClusterBuilder:
    b = ClusterBuilder()
    b.node("cpu-0")
    nodes = [f"gpu-{i}" for i in range(6)]
    for n in nodes:
        b.node(n, gpus=8, taints=[{"key": "nvidia.com/gpu", "value": "present",
                                   "effect": "NoSchedule"}])
    add_gpu_operator(b, nodes, broken={"handler": "gpu-1", "driver": "gpu-2",
                                       "toolkit": "gpu-3", "dcgm-exporter": "gpu-4",
                                       "runtime-hook": "gpu-5"})
    tol = [dict(GPU_TOLERATION)]
    for n in nodes:
        b.pod("ml", f"on-{n}", node=n, gpus=2, tolerations=tol)
    b.pod("ml", "full-node", node="gpu-0", gpus=6, tolerations=tol)
    pin = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                "values": ["gpu-1", "gpu-2"]}]}]}}}
    b.pod("ml", "wants-broken", gpus=8, tolerations=tol, affinity=pin)  # GX202 on gpu-1/2
    b.pod("ml", "wants-full", gpus=4, tolerations=tol, affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In",
                              "values": ["gpu-0"]}]}]}}})
    b.pod("ml", "no-toleration", gpus=1)
    b.pod("ml", "too-big", gpus=16, tolerations=tol)
    return b


def _dra() -> ClusterBuilder:
    b = S.healthy_dra_cluster()
    S.dra_pod(b, "ml", "job-0", template="no-such-template")
    return b


@pytest.fixture(scope="module", params=["broken-fleet", "demo", "dra"])
def kubeconfig(request: pytest.FixtureRequest,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    b = {"broken-fleet": _broken_fleet, "demo": build_demo, "dra": _dra}[request.param]()
    root = write_scenario(b, tmp_path_factory.mktemp("narrow") / "b")
    with served(root) as srv:
        yield str(write_kubeconfig(srv, tmp_path_factory.mktemp("kc") / "kubeconfig")), root


def _pods(root: Path) -> list[str]:
    doc = json.loads((root / "cluster" / "pods.json").read_text())
    return [f"{p['metadata']['namespace']}/{p['metadata']['name']}" for p in doc["items"]]


def test_why_with_scoped_logs_answers_as_with_every_log(kubeconfig: tuple[str, Path]) -> None:
    kc, root = kubeconfig
    full = live.live_snapshot(kc, None, quiet=True)
    targets = _pods(root)
    verdicts = set()
    for target in targets:
        scoped = live.live_snapshot(kc, None, quiet=True,
                                    log_nodes=lambda s, t=target: log_nodes(s, t, None))
        a, b = why(full, target), why(scoped, target)
        assert json.dumps(b.as_json(), sort_keys=True) == json.dumps(a.as_json(),
                                                                     sort_keys=True), target
        assert set(scoped.logs) <= set(full.logs)
        if a.verdict:
            verdicts.add(a.verdict.code)
    assert len(verdicts) >= (1 if "ml/job-0" in targets else 3)  # gate 1 and 2 answers
    # and logs are read only where the walk goes: a pending pod of a full node reads none
    if "ml/wants-full" in targets:
        s = live.live_snapshot(kc, None, quiet=True,
                               log_nodes=lambda s: log_nodes(s, "ml/wants-full", None))
        assert not s.logs and full.logs


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = run(list(args))
    return code, capsys.readouterr().out


@pytest.mark.parametrize("view", [("-o", "json"), ("-o", "text"), ("-o", "markdown"),
                                  ("-o", "html"), ("-o", "json", "--pods"),
                                  ("-o", "json", "--node", "gpu-1")])
def test_capacity_with_its_kinds_prints_what_the_full_listing_does(
        kubeconfig: tuple[str, Path], view: tuple[str, ...],
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    kc, root = kubeconfig
    if "--node" in view and "gpu-1" not in json.dumps(json.loads(
            (root / "cluster" / "nodes.json").read_text())):
        view = view[:2]
    narrow = _cli(capsys, "capacity", *view, "--kubeconfig", kc)
    monkeypatch.setattr(cmd_capacity, "CAPACITY_KINDS", None)
    wide = _cli(capsys, "capacity", *view, "--kubeconfig", kc)
    assert narrow == wide
    assert narrow[1].strip()


def test_capacity_skips_what_it_does_not_read(kubeconfig: tuple[str, Path]) -> None:
    kc, _root = kubeconfig
    snap = live.live_snapshot(kc, None, quiet=True, kinds=cmd_capacity.CAPACITY_KINDS)
    for inp in (Input.EVENTS, Input.LOGS, Input.DEPLOYMENTS, Input.RESOURCEQUOTAS):
        assert not snap.has(inp) and snap.state(inp).reason.startswith("not requested")
    assert snap.has(Input.NODES) and snap.has(Input.PODS) and not snap.logs


