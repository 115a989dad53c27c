"""Healthy clusters of every real shape never warn (scenarios/healthy.py): operator 25.10 / 26.3 /
26.7, CDI on/off, driver container / host driver / precompiled, containerd 1.7 / 2.1 / 2.2 / 2.3
with the drop-in the toolkit writes, Ubuntu / RHEL / Rocky, MIG single and mixed, time-slicing
and MPS with the device plugin's README configs, NVSwitch with Fabric Manager.

For every shape ``check`` reports nothing above info and ``why`` finds every running GPU pod
fine. Two findings are right on a healthy cluster and are asserted exactly, not filtered:
GX409 (warning) on 25.10 shapes, because the platform-support page lists 25.10.x as End of
Support; GX601 unknown on time-slicing/MPS shapes, because dcgm-exporter cannot attribute a
shared GPU's use to pods.

Each node's ``containerd config dump`` (and ``crictl info``, read from it) comes from the real
containerd of the node's version when ``tests/real_containerd.py`` finds its binary
(``.cache/containerd-builds/<version>/containerd``), else from the merge engine.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import pytest

from gpuxray.checks.engine import run_all
from gpuxray.cli.reports import capacity_dicts
from gpuxray.diagnose.why import why_pod
from gpuxray.engines.capacity import is_terminal
from gpuxray.model.diagnosis import Diagnosis
from gpuxray.model.finding import Finding, Severity, Status
from gpuxray.scenarios import healthy as hs
from gpuxray.sources.bundle import load_bundle_dir

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"
ALL = hs.all_shapes()


def _real_dumper() -> tuple[Callable[[dict[str, str], str], str] | None, set[str]]:
    """``containerd config dump`` by the real binary of the node's version, run on the node's
    files under a temporary root (imports rewritten into it and back)."""
    try:
        import real_containerd  # type: ignore[import-not-found]
    except ImportError:
        return None, set()
    bins = {v.lstrip("v"): p for v, p in real_containerd.binaries().items()}

    def dump(files: dict[str, str], version: str) -> str:
        binary = bins.get(version)
        if binary is None:
            return hs.engine_dump(files, version)
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            for p, t in files.items():
                f = root / p
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_text(t.replace('"/etc/containerd/', f'"{root}/etc/containerd/'))
            rc, out, err = real_containerd.config_dump(binary, root / "etc/containerd/config.toml")
            assert rc == 0, f"containerd {version} config dump failed: {err[-500:]}"
            return re.sub(re.escape(str(root)), "", out)

    return dump, set(bins)


DUMPER, REAL_VERSIONS = _real_dumper()


def _above_info(fs: list[Finding]) -> list[Finding]:
    return [f for f in fs if f.status == Status.UNKNOWN
            or (f.status == Status.FAIL and f.severity > Severity.INFO)]


def _expected(shape: hs.Shape, f: Finding) -> bool:
    if f.code == "GX409" and f.status == Status.FAIL:
        return shape.operator.startswith("v25.10") and f.params.get("status") == "EOL"
    if f.code == "GX601" and f.status == Status.UNKNOWN:
        return shape.gpus in ("time-slicing", "mps") and f.params.get("missing") == \
            "per-pod DCGM attribution"
    return False


@lru_cache(maxsize=1)
def _tmp() -> Path:
    return Path(tempfile.mkdtemp(prefix="gpuxray-healthy-"))


def _verdict(shape: hs.Shape) -> tuple[list[str], list[str], dict[str, int | None]]:
    """(unexpected findings, GPU pods ``why`` does not find fine — or a note when fewer than
    the two workload pods were asked about —, physical GPUs per row)."""
    snap = load_bundle_dir(hs.build(shape, dumper=DUMPER).write(_tmp() / shape.name))
    bad = [f"{f.code} {f.status} {f.subject.kind}/{f.subject.name}: {f.message[:160]}"
           for f in _above_info(run_all(snap)) if not _expected(shape, f)]
    unfine = []
    asked = 0
    for pod in snap.pods:
        gpu = any(k.startswith("nvidia.com/") for c in pod.spec.containers
                  for k in c.resources.limits)
        if not gpu or is_terminal(pod) or pod.status.phase != "Running":
            continue
        ns = pod.metadata.namespace or "default"
        asked += 1
        d = why_pod(snap, pod, Diagnosis(f"{ns}/{pod.metadata.name}", ns, pod.metadata.name))
        if d.verdict is not None or any(s.result == "fail" for s in d.path):
            unfine.append(f"{ns}/{pod.metadata.name}: "
                          f"{d.verdict.code if d.verdict else [s.step for s in d.path]}")
    if asked < len(hs.GPU_NODES):
        unfine.append(f"only {asked} running GPU pods")
    physical = {f"{r['node']} {r['resource']}": r["physical"]
                for r in capacity_dicts(snap) or []}
    return bad, unfine, physical


def test_the_shapes_cover_every_axis() -> None:
    """Every value of every axis is generated, and only real combinations."""
    for axis, values in (("operator", hs.OPERATORS), ("containerd", hs.CONTAINERDS),
                         ("driver", hs.DRIVERS), ("os", hs.OSES), ("gpus", hs.GPU_MODES),
                         ("cdi", (True, False)), ("nvswitch", (True, False))):
        assert {getattr(s, axis) for s in ALL} == set(values), axis
    assert all(hs.valid(s) for s in ALL)
    assert not any(s.driver == "precompiled" and s.os != "ubuntu" for s in ALL)
    assert len(ALL) == 936
    cover = hs.covering_shapes()
    assert set(cover) <= set(ALL) and len(cover) < len(ALL) // 10


@pytest.mark.parametrize("shape", hs.covering_shapes(), ids=lambda s: s.name)
def test_covering_shape_is_quiet(shape: hs.Shape) -> None:
    bad, unfine, physical = _verdict(shape)
    assert bad == []
    assert unfine == []
    # capacity -o json: physical = physical GPUs (8 per node), null for one MIG profile
    want = None if shape.gpus == "mig-mixed" else hs.GPUS_PER_NODE
    assert set(physical.values()) == {want}


@pytest.mark.slow
def test_every_shape_is_quiet() -> None:
    """The whole product (936 shapes): nothing above info, every GPU pod fine."""
    problems: Counter[str] = Counter()
    first: dict[str, str] = {}
    for shape in ALL:
        bad, unfine, _ = _verdict(shape)
        for line in bad + unfine:
            key = line.split(":", 1)[0]
            problems[key] += 1
            first.setdefault(key, f"{shape.name}: {line}")
    assert not problems, f"{sum(problems.values())} problems: {list(first.values())[:10]}"


def test_the_dump_comes_from_the_real_binary_when_built() -> None:
    """With CI=true every containerd version of the shapes must have its real binary once the
    binary locator exists; without the locator the engine's dump is used (and said so)."""
    versions = set(hs.CONTAINERDS)
    if DUMPER is None:
        if os.environ.get("CI") and (Path(__file__).parent / "real_containerd.py").exists():
            pytest.fail("tests/real_containerd.py exists but could not be imported")
        pytest.skip("tests/real_containerd.py not present: dumps come from the merge engine")
    missing = versions - REAL_VERSIONS
    if missing and os.environ.get("CI"):
        pytest.fail(f"no real containerd binary for {sorted(missing)}")
    if missing:
        pytest.skip(f"no real containerd binary for {sorted(missing)} (engine used)")


def test_device_plugin_configs_are_the_readme_ones() -> None:
    """The sharing configs are the device plugin README's, byte for byte."""
    for name, text in (("k8sdp-readme-timeslicing-10", hs.TIME_SLICING_10),
                       ("k8sdp-readme-mps-10", hs.MPS_10)):
        p = CORPUS / "device-plugin" / name / "config.yaml"
        if not p.is_file():
            pytest.skip(f"{p} not here")
        assert p.read_text().strip() == text.strip()


def test_the_drop_in_matches_the_toolkits_own_test_shape() -> None:
    """The toolkit keeps the dump's whole CRI table in its drop-in and adds its runtimes with
    the default runtime's options (ctk-test-v3-options: SystemdCgroup copied into nvidia)."""
    import tomllib

    s = hs.Shape("v26.7.0", True, "container", "2.1.4", "ubuntu", "whole")
    base = {"etc/containerd/config.toml": hs.base_config(s.containerd)}
    drop = tomllib.loads(hs.toolkit_dropin(hs.engine_dump(base, s.containerd), cdi=True))
    cri = drop["plugins"]["io.containerd.cri.v1.runtime"]
    rts = cri["containerd"]["runtimes"]
    assert set(rts) == {"runc", "nvidia", "nvidia-cdi", "nvidia-legacy"}
    assert rts["nvidia"]["options"] == {"SystemdCgroup": True, "BinaryName":
                                        "/usr/local/nvidia/toolkit/nvidia-container-runtime"}
    assert cri["containerd"]["default_runtime_name"] == "runc" and cri["enable_cdi"] is True
    off = tomllib.loads(hs.toolkit_dropin(hs.engine_dump(base, s.containerd), cdi=False))
    assert off["plugins"]["io.containerd.cri.v1.runtime"]["containerd"][
        "default_runtime_name"] == "nvidia"
    real = CORPUS / "containerd" / "ctk-test-v3-options.dropin" / "99-nvidia.toml"
    if real.is_file():
        rt = tomllib.loads(real.read_text())["plugins"]["io.containerd.cri.v1.runtime"][
            "containerd"]["runtimes"]
        assert {"nvidia", "nvidia-cdi", "nvidia-legacy"} <= set(rt)
        assert rt["nvidia"]["options"]["SystemdCgroup"] is True
