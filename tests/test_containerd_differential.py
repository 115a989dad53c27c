"""Differential test: the 1.x merge engine against the real ``containerd config dump``.

Oracle: Debian's containerd 1.6.20 (extracted from the .deb by scripts/test; path in
``GPUXRAY_CONTAINERD``). Hypothesis generates config trees — a root config plus conf.d drop-ins
touching CRI runtimes, the default runtime, registry, CNI, sandbox image, another plugin,
timeouts, proxy_plugins and disabled_plugins, in config versions absent/1/2, with v1 short IDs
or v2 URIs, absolute glob / relative literal / nested / circular imports — and both sides must
agree on:

- whether loading fails at all (containerd exits non-zero <=> the engine reports a fatal load
  problem; the engine's CRI default-runtime check is excluded: ``config dump`` does not run it);
- the effective runtime handler set and ``default_runtime_name``;
- these modelled CRI keys: ``sandbox_image``, ``registry.config_path``, ``cni.bin_dir``, and per
  runtime ``runtime_type``, ``options.BinaryName``, ``options.SystemdCgroup``;
- ``io.containerd.gc.v1.scheduler`` ``pause_threshold``; the timeouts and proxy_plugins set;
  ``disabled_plugins`` (order and duplicates); the top-level ``oom_score``.

Keys outside this list are not compared (the engine models only what the checks read).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuxray.engines.containerd import DirReader, analyse, resolve_version
from gpuxray.engines.containerd.defaults import plugin_defaults
from gpuxray.engines.containerd.merge import dig
from gpuxray.engines.containerd.model import ProblemKind
from gpuxray.engines.containerd.versions import Line

REPO = Path(__file__).resolve().parents[1]
BINARY = os.environ.get("GPUXRAY_CONTAINERD") or str(
    REPO / ".cache/containerd/usr/bin/containerd")


def _binary() -> str:
    if not os.access(BINARY, os.X_OK):
        if os.environ.get("CI"):
            pytest.fail(f"containerd binary missing at {BINARY} (scripts/test extracts it)")
        pytest.skip(f"containerd binary not found at {BINARY}; run scripts/test")
    return BINARY


pytestmark = pytest.mark.slow

# ----- generated trees ----------------------------------------------------------------------
CRI_FRAGMENTS: dict[str, str] = {
    "nvidia": '[{cri}.containerd.runtimes.nvidia]\nruntime_type = "io.containerd.runc.v2"\n'
              '[{cri}.containerd.runtimes.nvidia.options]\n'
              'BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime"\n',
    "nvidia-cdi": '[{cri}.containerd.runtimes.nvidia-cdi]\n'
                  'runtime_type = "io.containerd.runc.v2"\n',
    "runc": '[{cri}.containerd.runtimes.runc]\nruntime_type = "io.containerd.runc.v2"\n'
            '[{cri}.containerd.runtimes.runc.options]\nSystemdCgroup = true\n',
    "empty-rt": '[{cri}.containerd.runtimes.kata]\n',
    "default-nvidia": '[{cri}.containerd]\ndefault_runtime_name = "nvidia"\n',
    "registry": '[{cri}.registry]\nconfig_path = "/etc/containerd/certs.d"\n',
    "cni": '[{cri}.cni]\nbin_dir = "/opt/other/bin"\n',
    "sandbox": '[{cri}]\nsandbox_image = "example.com/pause:9"\n',
}
OTHER_FRAGMENTS: dict[str, str] = {
    "gc": '[{gc}]\npause_threshold = 0.05\n',
    "timeouts": '[timeouts]\n"io.containerd.timeout.shim.load" = "{n}s"\n',
    "proxy": '[proxy_plugins.p{n}]\ntype = "snapshot"\naddress = "/run/p{n}.sock"\n',
    "disabled": 'disabled_plugins = ["io.containerd.x.v1.off{n}"]\n',
    "oom": 'oom_score = {n}\n',
}
DROPIN_NAMES = ["10-a.toml", "50-registry.toml", "99-nvidia.toml", "zz.toml", "00-first.toml"]


@st.composite
def config_file(draw: st.DrawFn, n: int) -> dict[str, Any]:
    version = draw(st.sampled_from([None, 1, 2, 2, 2, 3]))
    # mostly the key style that matches the version; sometimes the other one (refusals)
    mismatch = draw(st.integers(0, 4)) == 0
    v1_style = (version in (None, 1)) != mismatch
    frags = draw(st.lists(st.sampled_from(sorted(CRI_FRAGMENTS) + sorted(OTHER_FRAGMENTS)),
                          max_size=4, unique=True))
    if "nvidia" not in frags and draw(st.integers(0, 2)) == 0:
        frags.append("nvidia")  # the handler the checks care about, often
    return {"version": version, "v1": v1_style, "frags": frags, "n": n}


@st.composite
def tree(draw: st.DrawFn) -> dict[str, Any]:
    root = draw(config_file(0))
    names = draw(st.lists(st.sampled_from(DROPIN_NAMES), min_size=1, max_size=4, unique=True))
    dropins = {name: draw(config_file(i + 1)) for i, name in enumerate(names)}
    imports = draw(st.sampled_from(["glob", "glob", "glob", "literal", "relative-glob",
                                     "none"]))
    nested = draw(st.sampled_from([None, "extra", "cycle"])) if names else None
    return {"root": root, "dropins": dropins, "imports": imports, "nested": nested}


def render(spec: dict[str, Any]) -> str:
    cri = 'plugins.cri' if spec["v1"] else 'plugins."io.containerd.grpc.v1.cri"'
    gc = 'plugins.scheduler' if spec["v1"] else 'plugins."io.containerd.gc.v1.scheduler"'
    top: list[str] = []
    tables: list[str] = []
    if spec["version"] is not None:
        top.append(f"version = {spec['version']}")
    for f in spec["frags"]:
        text = (CRI_FRAGMENTS.get(f) or OTHER_FRAGMENTS[f]).replace("{cri}", cri).replace(
            "{gc}", gc).replace("{n}", str(spec["n"] + 1))
        (top if f in ("disabled", "oom") else tables).append(text)
    # TOML: keys of the root table must precede every table header; merge repeated tables
    merged: dict[str, list[str]] = {}
    for chunk in tables:
        header = None
        for line in chunk.splitlines():
            if line.startswith("["):
                header = line
                merged.setdefault(header, [])
            elif header is not None:
                merged[header].append(line)
    body = "\n".join(f"{h}\n" + "\n".join(lines) for h, lines in merged.items())
    return "\n".join(top) + "\n" + body + "\n"


def materialise(base: Path, t: dict[str, Any]) -> Path:
    etc = base / "etc/containerd"
    (etc / "conf.d").mkdir(parents=True)
    (base / "extra").mkdir()
    root_imports: list[str] = []
    if t["imports"] == "glob":
        root_imports.append(f"{etc}/conf.d/*.toml")
    elif t["imports"] == "relative-glob":
        root_imports.append("etc/containerd/conf.d/*.toml")  # 1.6.20: relative to the cwd
    elif t["imports"] == "literal":
        root_imports += [f"conf.d/{n}" for n in sorted(t["dropins"])]
    root_text = render(t["root"])
    if root_imports:
        root_text = f"imports = {root_imports!r}\n".replace("'", '"') + root_text
    (etc / "config.toml").write_text(root_text)
    for i, (name, spec) in enumerate(sorted(t["dropins"].items())):
        text = render(spec)
        if i == 0 and t["nested"] == "extra":
            text = 'imports = ["../../../extra/nested.toml"]\n' + text
            (base / "extra/nested.toml").write_text(
                'version = 2\n[plugins."io.containerd.grpc.v1.cri".cni]\nconf_dir = "/n"\n')
        elif i == 0 and t["nested"] == "cycle":
            text = f'imports = ["{etc}/config.toml", "{etc}/conf.d/*.toml"]\n' + text
        (etc / "conf.d" / name).write_text(text)
    return etc / "config.toml"


# ----- the comparison -------------------------------------------------------------------------
def dump(binary: str, config: Path, cwd: Path) -> tuple[int, dict[str, Any], str]:
    p = subprocess.run([binary, "--config", str(config), "config", "dump"], cwd=cwd,
                       capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        return p.returncode, {}, p.stderr
    return 0, tomllib.loads(p.stdout), p.stderr


def modelled(cri: dict[str, Any]) -> dict[str, Any]:
    rts = dig(cri, "containerd", "runtimes") or {}
    return {
        "runtimes": sorted(rts),
        "default": dig(cri, "containerd", "default_runtime_name"),
        "sandbox_image": cri.get("sandbox_image"),
        "registry.config_path": dig(cri, "registry", "config_path") or "",
        "cni.bin_dir": dig(cri, "cni", "bin_dir"),
        "per_runtime": {name: (rt.get("runtime_type", ""),
                               dig(rt, "options", "BinaryName") or "",
                               bool(dig(rt, "options", "SystemdCgroup")))
                        for name, rt in rts.items()},
    }


def compare(binary: str, base: Path, config: Path) -> None:
    rc, doc, err = dump(binary, config, base)
    a = analyse(DirReader("/"), resolve_version(("1.6.20", "test")), str(config), cwd=str(base))
    load_fatal = [p for p in a.problems if p.fatal and p.kind is not
                  ProblemKind.CRI_DEFAULT_RUNTIME]
    files = {p.name: p.read_text() for p in sorted(config.parent.rglob("*.toml"))}
    if rc != 0:
        assert load_fatal, f"containerd failed ({err.strip()}) but the engine did not: {files}"
        return
    assert not load_fatal, f"engine failed ({load_fatal}) but containerd loaded: {files}"
    cri = doc["plugins"]["io.containerd.grpc.v1.cri"]
    ours = a.effective["io.containerd.grpc.v1.cri"]
    assert modelled(ours) == modelled(cri), files
    # every setting the engine calls lost is really not in effect (unless it equals the default)
    dflt = plugin_defaults(Line.V1, (1, 6, 20))["io.containerd.grpc.v1.cri"]
    for k in a.lost:
        if k.section != "io.containerd.grpc.v1.cri":
            continue
        path = k.key.split(".")
        if k.value != dig(dflt, *path):
            assert dig(cri, *path) != k.value, (k, files)
    gc_ours = dig(a.effective, "io.containerd.gc.v1.scheduler", "pause_threshold")
    assert gc_ours in (None, doc["plugins"]["io.containerd.gc.v1.scheduler"]["pause_threshold"])
    assert (a.merged.get("disabled_plugins") or []) == doc["disabled_plugins"], files
    assert a.merged.get("oom_score", 0) == doc["oom_score"], files
    for k, v in (a.merged.get("timeouts") or {}).items():
        assert doc["timeouts"][k] == v, files
    assert sorted(a.merged.get("proxy_plugins") or {}) == sorted(doc.get("proxy_plugins") or {})
    for name, p in (a.merged.get("proxy_plugins") or {}).items():
        assert doc["proxy_plugins"][name]["address"] == p.get("address", ""), files
    assert sorted(f.path for f in a.files) == sorted(doc["imports"]), files


#: 8 batches x 25 trees = 200 generated trees; the dumps of a batch run in parallel.
BATCH = 25
BATCHES = int(os.environ.get("GPUXRAY_DIFF_BATCHES", "8"))


def _one(binary: str, t: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as d:
        base = Path(d)
        compare(binary, base, materialise(base, t))


@settings(max_examples=BATCHES, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(batch=st.lists(tree(), min_size=BATCH, max_size=BATCH))
def test_engine_matches_containerd_config_dump(batch: list[dict[str, Any]]) -> None:
    binary = _binary()
    with ThreadPoolExecutor(max_workers=4) as pool:
        for fut in [pool.submit(_one, binary, t) for t in batch]:
            fut.result()


SEED_DROPIN = (
    'version = 2\n'
    '[plugins."io.containerd.grpc.v1.cri".registry]\n'
    'config_path = "/etc/containerd/certs.d"\n')


def test_seed_section5_against_binary(tmp_path: Path) -> None:
    """Seed §5 on the real binary: the 3-line registry drop-in after the toolkit's drop-in
    leaves no nvidia handler, and the engine says the same."""
    binary = _binary()
    etc = tmp_path / "etc/containerd"
    (etc / "conf.d").mkdir(parents=True)
    (etc / "config.toml").write_text(
        f'version = 2\nimports = ["{etc}/conf.d/*.toml"]\n'
        '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n'
        'runtime_type = "io.containerd.runc.v2"\n')
    (etc / "conf.d/99-nvidia.toml").write_text(
        'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n'
        'default_runtime_name = "nvidia"\n'
        '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n'
        'runtime_type = "io.containerd.runc.v2"\n'
        '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n'
        'runtime_type = "io.containerd.runc.v2"\n')
    (etc / "conf.d/zz-registry.toml").write_text(SEED_DROPIN)
    rc, doc, _ = dump(binary, etc / "config.toml", tmp_path)
    assert rc == 0
    assert "nvidia" not in doc["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]
    compare(binary, tmp_path, etc / "config.toml")
