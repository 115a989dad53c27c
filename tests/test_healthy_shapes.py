"""Healthy clusters of every real shape never warn (scenarios/healthy.py): operator 25.10 / 26.3 /
26.7, CDI on/off, driver container / host driver / precompiled, containerd 1.7 / 2.1 / 2.2 / 2.3
with the drop-in the toolkit writes, Ubuntu / RHEL / Rocky, MIG single and mixed, time-slicing
and MPS with the device plugin's README configs, NVSwitch with Fabric Manager.

For every shape ``check`` reports nothing above info and ``why`` finds every running GPU pod
fine (GX409 on 25.10 shapes is info: the platform-support page lists 25.10.x as End of
Support, a planning item, not a fault). One finding is right on a healthy cluster and is asserted
exactly, not filtered: GX601 unknown on time-slicing/MPS shapes, because dcgm-exporter cannot
attribute a shared GPU's use to pods.

Each node's ``containerd config dump`` (and ``crictl info``, read from it) comes from the real
containerd of the node's version when ``tests/real_containerd.py`` finds its binary
(``.cache/containerd-builds/<version>/containerd``), else from the merge engine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Callable
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


ROOT = Path(__file__).resolve().parents[1]


def engine_dump(files: dict[str, str], version: str) -> str:
    """``containerd config dump`` as the merge engine computes it, where no binary is built."""
    from gpuxray.engines.containerd.merge import analyse
    from gpuxray.engines.containerd.reader import FactsReader
    from gpuxray.engines.containerd.versions import resolve_version

    a = analyse(FactsReader(files), resolve_version((version, "shape")))
    doc = {"version": a.config_version, "plugins": a.effective,
           "imports": sorted(f"/{p}" for p in files)}
    return hs.toml_text(doc)


def _binaries() -> tuple[dict[str, Path], bool]:
    """version -> real containerd binary: ``tests/real_containerd.py`` when it is there, else
    the same layout it reads (``.cache/containerd-builds/<version>/containerd``)."""
    try:
        import real_containerd  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        found = {p.parent.name: p for p in (ROOT / ".cache" / "containerd-builds").glob(
            "*/containerd") if p.is_file()}
        return found, False
    return {str(v).lstrip("v"): Path(p) for v, p in real_containerd.binaries().items()}, True


def _run_dump(binary: Path, config: Path) -> tuple[int, str, str]:
    try:
        import real_containerd
    except ImportError:
        r = subprocess.run([str(binary), "--config", str(config), "config", "dump"],
                           capture_output=True, text=True, timeout=60, check=False)
        return r.returncode, r.stdout, r.stderr
    rc, out, err = real_containerd.config_dump(binary, config)
    return int(rc), str(out), str(err)


def _real_dumper() -> tuple[Callable[[dict[str, str], str], str], set[str]]:
    """``containerd config dump`` by the real binary of the node's version, run on the node's
    files under a temporary root (imports rewritten into it and back)."""
    bins, _ = _binaries()

    def dump(files: dict[str, str], version: str) -> str:
        binary = bins.get(version)
        if binary is None:
            return engine_dump(files, version)
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            for p, t in files.items():
                f = root / p
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_text(t.replace('"/etc/containerd/', f'"{root}/etc/containerd/'))
            rc, out, err = _run_dump(binary, root / "etc/containerd/config.toml")
            assert rc == 0, f"containerd {version} config dump failed: {err[-500:]}"
            return out.replace(str(root), "")

    return dump, set(bins)


DUMPER, REAL_VERSIONS = _real_dumper()


def _above_info(fs: list[Finding]) -> list[Finding]:
    return [f for f in fs if f.status == Status.UNKNOWN
            or (f.status == Status.FAIL and f.severity > Severity.INFO)]


def _expected(shape: hs.Shape, f: Finding) -> bool:
    if f.code == "GX601" and f.status == Status.UNKNOWN:
        return shape.gpus in ("time-slicing", "mps") and f.params.get("missing") == \
            "per-pod DCGM attribution"
    return False


def _verdict(shape: hs.Shape, tmp: Path) -> tuple[list[str], list[str], dict[str, int | None]]:
    """(unexpected findings, GPU pods ``why`` does not find fine — or a note when fewer than
    the two workload pods were asked about —, physical GPUs per row)."""
    snap = load_bundle_dir(hs.build(shape, dumper=DUMPER).write(tmp / shape.name))
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
def test_covering_shape_is_quiet(shape: hs.Shape, tmp_path: Path) -> None:
    bad, unfine, physical = _verdict(shape, tmp_path)
    assert bad == []
    assert unfine == []
    # capacity -o json: physical = physical GPUs (8 per node), null for one MIG profile
    want = None if shape.gpus == "mig-mixed" else hs.GPUS_PER_NODE
    assert set(physical.values()) == {want}


@pytest.mark.slow
def test_every_shape_is_quiet(tmp_path: Path) -> None:
    """The whole product (936 shapes): nothing above info, every GPU pod fine."""
    problems: Counter[str] = Counter()
    first: dict[str, str] = {}
    for shape in ALL:
        bad, unfine, _ = _verdict(shape, tmp_path)
        shutil.rmtree(tmp_path / shape.name)
        for line in bad + unfine:
            key = line.split(":", 1)[0]
            problems[key] += 1
            first.setdefault(key, f"{shape.name}: {line}")
    assert not problems, f"{sum(problems.values())} problems: {list(first.values())[:10]}"


def test_the_dump_comes_from_the_real_binary() -> None:
    """Every containerd version of the shapes has its real binary (scripts/test builds them into
    .cache/containerd-builds); with CI=true a missing one fails, elsewhere the engine stands in
    and the test says so."""
    missing = set(hs.CONTAINERDS) - REAL_VERSIONS
    if missing and os.environ.get("CI"):
        pytest.fail(f"no real containerd binary for {sorted(missing)}")
    if missing:
        pytest.skip(f"no real containerd binary for {sorted(missing)}: the merge engine's dump "
                    "is used for those shapes")
    base = {"etc/containerd/config.toml": hs.base_config("2.3.4")}
    assert 'version = 4' in DUMPER(base, "2.3.4")


def test_real_containerd_refuses_the_toolkits_dropin_on_a_v3_root() -> None:
    """Why 2.3 shapes ship config version 4: containerd 2.3's dump of a version-3 file says
    version 4, the toolkit copies that version into its drop-in (pkg/config/engine/containerd/
    containerd.go parseVersion on the dump), and 2.3.4 then refuses to start."""
    bins, _ = _binaries()
    if "2.3.4" not in bins:
        if os.environ.get("CI"):
            pytest.fail("no real containerd 2.3.4 binary")
        pytest.skip("no real containerd 2.3.4 binary in .cache/containerd-builds")
    v3 = hs.base_config("2.2.9")  # a version-3 root
    drop = hs.toolkit_dropin(DUMPER({"etc/containerd/config.toml": v3}, "2.3.4"), cdi=True)
    assert drop.startswith("version = 4")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "conf.d").mkdir()
        (root / "config.toml").write_text(f'imports = ["{root}/conf.d/*.toml"]\n' + v3)
        (root / "conf.d" / "99-nvidia.toml").write_text(drop)
        rc, _out, err = _run_dump(bins["2.3.4"], root / "config.toml")
    assert rc != 0 and "drop-in config version 4 higher than root config version 3" in err


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
    drop = tomllib.loads(hs.toolkit_dropin(engine_dump(base, s.containerd), cdi=True))
    cri = drop["plugins"]["io.containerd.cri.v1.runtime"]
    rts = cri["containerd"]["runtimes"]
    assert set(rts) == {"runc", "nvidia", "nvidia-cdi", "nvidia-legacy"}
    assert rts["nvidia"]["options"] == {"SystemdCgroup": True, "BinaryName":
                                        "/usr/local/nvidia/toolkit/nvidia-container-runtime"}
    assert cri["containerd"]["default_runtime_name"] == "runc" and cri["enable_cdi"] is True
    off = tomllib.loads(hs.toolkit_dropin(engine_dump(base, s.containerd), cdi=False))
    assert off["plugins"]["io.containerd.cri.v1.runtime"]["containerd"][
        "default_runtime_name"] == "nvidia"
    real = CORPUS / "containerd" / "ctk-test-v3-options.dropin" / "99-nvidia.toml"
    if real.is_file():
        rt = tomllib.loads(real.read_text())["plugins"]["io.containerd.cri.v1.runtime"][
            "containerd"]["runtimes"]
        assert {"nvidia", "nvidia-cdi", "nvidia-legacy"} <= set(rt)
        assert rt["nvidia"]["options"]["SystemdCgroup"] is True
