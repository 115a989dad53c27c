"""Differential test of the merge engine against **every** real containerd binary: Debian's
1.6 and the 1.7/2.x releases ``scripts/oracles/containerd.sh`` builds (tests/real_containerd.py).

Hypothesis generates host trees — a root config (version absent, 1, 2 or 3; with or without a
runtimes table) and conf.d drop-ins of version absent/1/2/3/4 in every order, in the layout their
version expects (sometimes the other one, as people write them; version-less files sometimes
with the short ``cri`` plugin ID), touching the runtime handlers
(``nvidia``, ``nvidia-cdi``, ``runc``), ``default_runtime_name``, ``enable_cdi``, the sandbox
image, the registry, CNI and ``SystemdCgroup``; imports by absolute glob, by relative literal
path, nested — and each tree is loaded by every binary (``config dump``) and by the engine
simulating that release. Both must agree on:

- whether the daemon refuses the config, and then on its own error line;
- the runtime handlers, each with ``runtime_type``, ``BinaryName`` and ``SystemdCgroup``;
- ``default_runtime_name``, ``enable_cdi``, the sandbox image, ``registry.config_path``, the CNI
  ``conf_dir``;
- how many lines of the dump ``grep -c runtimes.nvidia`` counts.

Every real config of ``../shared/corpus/containerd/`` is run the same way, alone and as the
toolkit's root + drop-in pairs.
"""

from __future__ import annotations

import os
import re
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from gpuxray.engines.containerd import Analysis, DirReader, analyse, resolve_version
from gpuxray.engines.containerd import defaults as D
from gpuxray.engines.containerd.merge import dig, nvidia_dump_lines
from gpuxray.engines.containerd.model import ProblemKind
from gpuxray.engines.containerd.versions import Line
from real_containerd import config_dump, require

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "containerd"

G = 'plugins."io.containerd.grpc.v1.cri"'
R = 'plugins."io.containerd.cri.v1.runtime"'
IMG = 'plugins."io.containerd.cri.v1.images"'


def _frag(name: str, v3: bool, n: int, flag: bool, short: bool = False
          ) -> list[tuple[str, str]]:
    """(table header, body line) pairs of one fragment in the v2 or v3 layout (``short``: the
    v2 layout under version 1's short plugin ID ``cri``)."""
    g = "plugins.cri" if short else G
    rt = R if v3 else g
    img = IMG if v3 else g
    rts = f"{rt}.containerd.runtimes"
    b = "true" if flag else "false"
    return {
        "nvidia": [(f"[{rts}.nvidia]", 'runtime_type = "io.containerd.runc.v2"'),
                   (f"[{rts}.nvidia.options]", f'BinaryName = "/usr/bin/nvidia-{n}"'),
                   (f"[{rts}.nvidia.options]", f"SystemdCgroup = {b}")],
        "nvidia-cdi": [(f"[{rts}.nvidia-cdi]", 'runtime_type = "io.containerd.runc.v2"'),
                       (f"[{rts}.nvidia-cdi.options]", f'BinaryName = "/usr/bin/cdi-{n}"')],
        "runc": [(f"[{rts}.runc]", 'runtime_type = "io.containerd.runc.v2"'),
                 (f"[{rts}.runc.options]", f"SystemdCgroup = {b}")],
        "runc-options": [(f"[{rts}.runc.options]", f"SystemdCgroup = {b}")],
        "default-nvidia": [(f"[{rt}.containerd]", 'default_runtime_name = "nvidia"')],
        "registry": [(f"[{img}.registry]", f'config_path = "/etc/containerd/certs{n}.d"')],
        "cni": [(f"[{rt}.cni]", f'conf_dir = "/etc/cni/net{n}.d"')],
        "sandbox": ([(f"[{img}.pinned_images]", f'sandbox = "example.com/pause:{n}"')] if v3
                    else [(f"[{g}]", f'sandbox_image = "example.com/pause:{n}"')]),
        "cdi": [(f"[{rt}]", f"enable_cdi = {b}")],
    }[name]


FRAGMENTS = ("nvidia", "nvidia-cdi", "runc", "runc-options", "default-nvidia", "registry",
             "cni", "sandbox", "cdi")
DROPIN_NAMES = ("10-base.toml", "50-registry.toml", "99-nvidia.toml", "zz-late.toml")


@st.composite
def config_file(draw: st.DrawFn, n: int, root: bool) -> dict[str, Any]:
    version = draw(st.sampled_from([2, 2, 3, 3, None, 1] if root
                                   else [2, 2, 3, 3, 4, None, 1]))
    v3 = (version in (3, 4)) != (draw(st.integers(0, 7)) == 0)  # sometimes the other layout
    short = not v3 and version in (None, 1) and draw(st.booleans())
    frags = draw(st.lists(st.sampled_from(FRAGMENTS), max_size=4, unique=True))
    if "nvidia" not in frags and draw(st.booleans()):
        frags.append("nvidia")
    return {"version": version, "v3": v3, "short": short, "frags": frags, "n": n,
            "flag": draw(st.booleans())}


@st.composite
def tree(draw: st.DrawFn) -> dict[str, Any]:
    root = draw(config_file(0, True))
    names = draw(st.lists(st.sampled_from(DROPIN_NAMES), min_size=1, max_size=3, unique=True))
    dropins = {name: draw(config_file(i + 1, False)) for i, name in enumerate(names)}
    imports = draw(st.sampled_from(["glob", "glob", "glob", "literal", "none"]))
    nested = draw(st.sampled_from([None, None, "extra", "cycle"]))
    return {"root": root, "dropins": dropins, "imports": imports, "nested": nested}


def render(spec: dict[str, Any]) -> str:
    tables: dict[str, dict[str, str]] = {}
    for f in spec["frags"]:
        for header, line in _frag(f, spec["v3"], spec["n"], spec["flag"],
                                  spec.get("short", False)):
            tables.setdefault(header, {})[line.split(" = ")[0]] = line  # one value per key
    top = [f"version = {spec['version']}"] if spec["version"] is not None else []
    body = "\n".join(f"{h}\n" + "\n".join(lines.values()) for h, lines in tables.items())
    return "\n".join(top) + "\n" + body + "\n"


def materialise(base: Path, t: dict[str, Any]) -> Path:
    etc = base / "etc/containerd"
    (etc / "conf.d").mkdir(parents=True)
    (base / "extra").mkdir()
    imports: list[str] = []
    if t["imports"] == "glob":
        imports.append(f"{etc}/conf.d/*.toml")
    elif t["imports"] == "literal":
        imports += [f"conf.d/{n}" for n in sorted(t["dropins"])]
    text = render(t["root"])
    if imports:
        text = "imports = [" + ", ".join(f'"{i}"' for i in imports) + "]\n" + text
    (etc / "config.toml").write_text(text)
    for i, (name, spec) in enumerate(sorted(t["dropins"].items())):
        body = render(spec)
        if i == 0 and t["nested"] == "extra":
            body = 'imports = ["../../../extra/nested.toml"]\n' + body
            (base / "extra/nested.toml").write_text(render(
                {"version": spec["version"], "v3": spec["v3"], "frags": ["cni", "nvidia-cdi"],
                 "n": 9, "flag": True}))
        elif i == 0 and t["nested"] == "cycle":
            body = f'imports = ["{etc}/config.toml"]\n' + body
        (etc / "conf.d" / name).write_text(body)
    return etc / "config.toml"


# ----- what is compared ---------------------------------------------------------------------
def _view(line: Line, plugins: dict[str, Any], nvidia_lines: int) -> dict[str, Any]:
    rt = plugins.get(D.runtime_plugin(line)) or {}
    img = plugins.get(D.images_plugin(line)) or {}
    rts = dig(rt, "containerd", "runtimes") or {}
    sandbox = img.get("sandbox_image") if line is Line.V1 else dig(img, "pinned_images",
                                                                   "sandbox")
    return {
        "runtimes": {name: (r.get("runtime_type") or "", dig(r, "options", "BinaryName") or "",
                            bool(dig(r, "options", "SystemdCgroup")))
                     for name, r in sorted(rts.items())},
        "default": dig(rt, "containerd", "default_runtime_name"),
        "enable_cdi": rt.get("enable_cdi"),
        "sandbox": sandbox,
        "registry": dig(img, "registry", "config_path") or "",
        "cni.conf_dir": dig(rt, "cni", "conf_dir"),
        "nvidia_lines": nvidia_lines,
    }


def daemon_error(stderr: str) -> str:
    """The daemon's own error line (``containerd: <message>``, or the Go panic's first line)."""
    lines = [ln for ln in stderr.splitlines() if ln.startswith("containerd: ")] or [
        ln for ln in stderr.splitlines() if ln.startswith("panic: ")][:1]
    return lines[-1].removeprefix("containerd: ") if lines else stderr.strip()[-300:]


def engine(version: str, config: Path) -> Analysis:
    return analyse(DirReader("/"), resolve_version((version, "test")), str(config),
                   cwd=str(config.parent))


def compare(version: str, binary: Path, config: Path) -> str | None:
    """None when the engine and the binary agree, else what differs."""
    rc, out, err = config_dump(binary, config, cwd=config.parent)
    a = engine(version, config)
    refused = [p for p in a.problems if p.fatal and p.kind is not ProblemKind.CRI_DEFAULT_RUNTIME]
    if rc != 0:
        msg = daemon_error(err)
        if not refused:
            return f"containerd refused ({msg}), the engine loads it"
        if refused[0].daemon != msg:
            return f"refusal message: containerd {msg!r}, engine {refused[0].daemon!r}"
        return None
    if refused and refused[0].kind is ProblemKind.MISSING_IMPORT and a.version.line is not \
            Line.V1:
        # 2.x ``config dump`` ignores a not-exist error and prints the merge so far, while
        # the daemon stops (test_containerd_daemon.py runs the daemon on this case)
        return None
    if refused:
        return f"engine refuses ({refused[0].detail}), containerd loads it"
    theirs = _view(a.version.line, tomllib.loads(out)["plugins"],
                   sum("runtimes.nvidia" in ln for ln in out.splitlines()))
    ours = _view(a.version.line, a.effective, nvidia_dump_lines(a))
    if theirs != ours:
        diff = {k: (theirs[k], ours[k]) for k in theirs if theirs[k] != ours[k]}
        return f"containerd vs engine: {diff}"
    return None


def _files(config: Path) -> str:
    base = config.parents[2]
    return "\n".join(f"--- {p.relative_to(base)}\n{p.read_text()}"
                     for p in sorted(base.rglob("*.toml")))


#: trees per hypothesis example; each is dumped by every binary, in parallel.
BATCH = 10
BATCHES = int(os.environ.get("GPUXRAY_CONTAINERD_BATCHES", "30"))


def _one(bins: dict[str, Path], t: dict[str, Any]) -> list[str]:
    with tempfile.TemporaryDirectory() as d:
        config = materialise(Path(d), t)
        out = []
        for version, binary in bins.items():
            why = compare(version, binary, config)
            if why:
                out.append(f"{version}: {why}\n{_files(config)}")
        return out


@settings(max_examples=BATCHES, derandomize=True, deadline=None, database=None,
          phases=[Phase.explicit, Phase.generate],  # no shrinking: each example runs 8 daemons
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(batch=st.lists(tree(), min_size=BATCH, max_size=BATCH))
def test_engine_agrees_with_every_containerd(batch: list[dict[str, Any]]) -> None:
    bins = require()
    with ThreadPoolExecutor(max_workers=2) as pool:
        problems = [p for fut in [pool.submit(_one, bins, t) for t in batch]
                    for p in fut.result()]
    assert not problems, "\n\n".join(problems[:3])


# ----- the corpus -----------------------------------------------------------------------------
def _corpus_configs() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    out = []
    for d in sorted(CORPUS.iterdir()):
        for p in sorted(d.iterdir()):
            if p.suffix == ".toml" and ".template." not in p.name and not p.name.endswith(
                    ".j2"):
                out.append(p)
    return out


def _corpus_pairs() -> list[tuple[str, Path, Path]]:
    """The toolkit's test scenarios: ``<case>.main`` at config.toml, ``<case>.dropin`` at
    conf.d/99-nvidia.toml."""
    out = []
    for main in sorted(CORPUS.glob("*.main")):
        drop = CORPUS / (main.name.removesuffix(".main") + ".dropin") / "99-nvidia.toml"
        cfg = next((p for p in sorted(main.iterdir()) if p.suffix == ".toml"), None)
        if cfg is not None and drop.is_file():
            out.append((main.name.removesuffix(".main"), cfg, drop))
    return out


def _place(base: Path, root_text: str, dropin: str | None) -> Path:
    etc = base / "etc/containerd"
    (etc / "conf.d").mkdir(parents=True)
    # corpus files import real host paths; point them at this tree
    root_text = root_text.replace('"/etc/containerd/', f'"{etc}/')
    (etc / "config.toml").write_text(root_text)
    if dropin is not None:
        (etc / "conf.d/99-nvidia.toml").write_text(dropin)
    return etc / "config.toml"


def test_corpus_configs_on_every_version(tmp_path: Path) -> None:
    bins = require()
    configs = _corpus_configs()
    pairs = _corpus_pairs()
    if os.environ.get("CI"):
        assert configs and pairs, f"no corpus under {CORPUS}"
    elif not configs:
        pytest.skip(f"corpus not found at {CORPUS}")
    problems: list[str] = []
    counts: dict[str, int] = {}
    for i, (name, root, drop) in enumerate(
            [(p.parent.name, p, None) for p in configs] + pairs):
        base = tmp_path / f"c{i}"
        config = _place(base, root.read_text(), drop.read_text() if drop else None)
        for version, binary in bins.items():
            why = compare(version, binary, config)
            if why:
                problems.append(f"{name} on {version}: {why}")
            else:
                counts[version] = counts.get(version, 0) + 1
    assert not problems, "\n".join(problems)
    total = len(configs) + len(pairs)
    assert all(counts[v] == total for v in bins), counts


def test_nvidia_dump_lines_seed_count(tmp_path: Path) -> None:
    """Seed §5's verification number on 1.7.27: the toolkit's drop-in alone gives 3 nvidia
    handlers, and ``config dump | grep -c runtimes.nvidia`` counts 6 lines."""
    binary = require("1.7.27")["1.7.27"]
    drop = (CORPUS / "ctk-test-v2-complex.dropin" / "99-nvidia.toml")
    if not drop.is_file():
        pytest.skip(f"corpus not found at {CORPUS}")
    etc = tmp_path / "etc/containerd"
    (etc / "conf.d").mkdir(parents=True)
    (etc / "config.toml").write_text(f'version = 2\nimports = ["{etc}/conf.d/*.toml"]\n')
    (etc / "conf.d/99-nvidia.toml").write_text(re.sub(r"(?m)^imports.*$", "", drop.read_text()))
    rc, out, _ = config_dump(binary, etc / "config.toml")
    assert rc == 0
    a = engine("1.7.27", etc / "config.toml")
    assert sum("runtimes.nvidia" in ln for ln in out.splitlines()) == nvidia_dump_lines(a)
    assert [r for r in a.runtimes if r.startswith("nvidia")] == ["nvidia", "nvidia-cdi",
                                                                "nvidia-legacy"]
    assert nvidia_dump_lines(a) == 6
