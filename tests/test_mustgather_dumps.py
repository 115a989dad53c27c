"""A directory of ad-hoc ``kubectl get -o yaml|json`` dumps with arbitrary names reads like the
bundle it was dumped from: objects are routed by kind."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuxray.checks.engine import run_all
from gpuxray.checks.registry import all_checks
from gpuxray.model.finding import Status
from gpuxray.model.snapshot import Input
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.operator import add_gpu_operator
from gpuxray.sources.bundle import open_bundle


def scenario() -> ClusterBuilder:
    b = ClusterBuilder()
    for n in ("gpu-1", "gpu-2"):
        b.node(n, gpus=8)
    b.node("cpu-1")
    add_gpu_operator(b, ["gpu-1", "gpu-2"], broken={"driver": "gpu-2"})
    b.pod("ml", "train", node="gpu-1", gpus=4)
    big = b.pod("ml", "big", gpus=16)
    b.event(big, "FailedScheduling", "0/3 nodes are available: 2 Insufficient nvidia.com/gpu.")
    b.quota("ml", "gpu-quota", {"requests.nvidia.com/gpu": "8"}, {"requests.nvidia.com/gpu": "4"})
    return b


def _as_list(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
            "items": items}


def write_dumps(b: ClusterBuilder, root: Path) -> Path:
    """What a user attaches: odd names, JSON and YAML, Lists, single objects, several docs."""
    root.mkdir(parents=True)
    (root / "sub").mkdir()
    for i, (resource, items) in enumerate(sorted(b.cluster.items())):
        if resource == "pods":  # two YAML documents in one file, plus one pod again elsewhere
            half = len(items) // 2
            (root / "all the pods.txt.yaml").write_text(yaml.safe_dump_all(
                [_as_list(items[:half]), _as_list(items[half:])]))
            (root / "sub" / "one-pod.yml").write_text(yaml.safe_dump(items[0]))
        elif resource == "nodes":  # `kubectl get node X -o json` one by one
            for n in items:
                (root / f"node-{n['metadata']['name']}.json").write_text(json.dumps(n))
        elif i % 2:
            (root / f"dump{i}.json").write_text(json.dumps(_as_list(items)))
        else:
            (root / "sub" / f"{resource}-{i}.yaml").write_text(yaml.safe_dump(_as_list(items)))
    (root / "values.yaml").write_text("driver:\n  enabled: true\ntoolkit:\n  enabled: true\n")
    (root / "secret.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n"
                                      "data:\n  token: c2VjcmV0\n")
    (root / "kversion.json").write_text(json.dumps(
        {"clientVersion": {"gitVersion": "v1.32.4"}, "serverVersion": {"gitVersion": "v1.31.4",
                                                                       "major": "1",
                                                                       "minor": "31"}}))
    return root


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    b = scenario()
    return b.write(tmp_path / "bundle"), write_dumps(b, tmp_path / "attachments")


def test_routed_by_kind(dirs: tuple[Path, Path]) -> None:
    bundle, dumps = dirs
    with open_bundle(bundle) as full, open_bundle(dumps) as snap:
        assert snap.manifest.source_kind == "dumps"
        assert sorted(p.metadata.name for p in snap.pods) == sorted(
            p.metadata.name for p in full.pods)  # the pod dumped twice is kept once
        assert sorted(n.metadata.name for n in snap.nodes) == ["cpu-1", "gpu-1", "gpu-2"]
        for inp in (Input.NODES, Input.PODS, Input.EVENTS, Input.DAEMONSETS,
                    Input.RESOURCEQUOTAS, Input.CLUSTERPOLICIES, Input.RUNTIMECLASSES,
                    Input.DEPLOYMENTS, Input.VERSION):
            assert snap.has(inp), inp
        assert snap.version is not None and snap.version.server_version is not None
        assert snap.version.server_version.git_version == "v1.31.4"
        for inp in (Input.LOGS, Input.HOSTS, Input.METRICS, Input.NVIDIADRIVERS):
            assert not snap.has(inp)
            assert snap.state(inp).reason == "not in the dump directory"
        assert [c.kind for c in snap.clusterpolicies] == ["ClusterPolicy"]
        assert {w.kind for w in snap.deployments} == {"Deployment"}


def test_same_findings_as_the_bundle(dirs: tuple[Path, Path]) -> None:
    bundle, dumps = dirs
    with open_bundle(bundle) as full, open_bundle(dumps) as snap:
        specs = all_checks()
        a = run_all(full)
        b = run_all(snap)
        compared = 0
        for code, spec in specs.items():
            if snap.missing(spec.needs):
                assert [f.status for f in b if f.code == code] == [Status.UNKNOWN], code
                continue
            want = {(f.status, str(f.subject)) for f in a if f.code == code}
            got = {(f.status, str(f.subject)) for f in b if f.code == code}
            assert got == want, code
            compared += bool(want)
        assert compared >= 3


def test_capacity_identical(dirs: tuple[Path, Path], gx: Callable[..., tuple[int, Any]]) -> None:
    bundle, dumps = dirs
    _, a = gx("capacity", "--bundle", str(bundle), "-o", "json")
    code, b = gx("capacity", "--bundle", str(dumps), "-o", "json")
    assert code == 0
    def rows(doc: dict[str, Any]) -> list[dict[str, Any]]:  # `used` names its missing source
        return [{k: v for k, v in r.items() if k != "used"} for r in doc["nodes"]]

    assert rows(b) == rows(a) and b["totals"] == a["totals"]
    assert b["allocated_known"] is True


def test_events_k8s_io_v1(tmp_path: Path) -> None:
    d = tmp_path / "d"
    d.mkdir()
    (d / "ev.yaml").write_text(
        "apiVersion: events.k8s.io/v1\nkind: EventList\nitems:\n"
        "- metadata: {name: big.1, namespace: ml}\n"
        "  regarding: {kind: Pod, name: big, namespace: ml}\n"
        "  reason: FailedScheduling\n  note: '0/3 nodes are available'\n"
        "  type: Warning\n  deprecatedCount: 7\n  reportingController: default-scheduler\n")
    with open_bundle(d) as snap:
        [e] = snap.events_for("Pod", "ml", "big")
        assert (e.reason, e.message, e.count, e.reporting_component) == (
            "FailedScheduling", "0/3 nodes are available", 7, "default-scheduler")


def test_malformed_dump(dirs: tuple[Path, Path], gx: Callable[..., tuple[int, Any]],
                        capsys: pytest.CaptureFixture[str]) -> None:
    _bundle, dumps = dirs
    (dumps / "broken.yaml").write_text("kind: Pod\nmetadata: {name: [unclosed\n")
    code, _ = gx("check", "--bundle", str(dumps))
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "broken.yaml" in err
    code, _ = gx("check", "--bundle", str(dumps), "--keep-going", "-o", "json")
    assert code in (1, 3)
    with open_bundle(dumps, lenient=True) as snap:
        assert snap.has(Input.PODS)
        assert any(w == "broken.yaml" for w, _e in snap.manifest.errors)


def test_only_broken_files_name_the_file(tmp_path: Path, gx: Callable[..., tuple[int, Any]],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "d"
    d.mkdir()
    (d / "pods.json").write_bytes(b'{"kind": "List", "items": [')
    code, _ = gx("capacity", "--bundle", str(d))
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "pods.json" in err
    (d / "pods.json").write_bytes(b"\x00\xff" * 500)
    code, _ = gx("capacity", "--bundle", str(d))
    err = capsys.readouterr().err.strip()
    assert code == 2 and "binary" in err
