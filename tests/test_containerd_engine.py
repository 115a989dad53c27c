"""Unit tests of the containerd config engine: imports, each line's merge, migrations, the
mixed-version hazard, refusals, defaults and lost-key attribution (facts.md §1, seed §5)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from containerd_fixtures import (
    CRI,
    CRI_IMG3,
    CRI_RT3,
    REGISTRY_DROPIN,
    ROOT_V2,
    run,
    toolkit_dropin,
)
from gpuxray.engines.containerd import ProblemKind, resolve_version
from gpuxray.engines.containerd.versions import Line

ROOT = "/etc/containerd/config.toml"
CONF_D = "/etc/containerd/conf.d"


def kinds(a: object) -> list[ProblemKind]:
    return [p.kind for p in a.problems]  # type: ignore[attr-defined]


# ----- imports ----------------------------------------------------------------------------------
def test_imports_are_breadth_first_and_lexical() -> None:
    a = run({ROOT: 'version = 2\nimports = ["/etc/a.toml", "/etc/containerd/conf.d/*.toml"]\n',
             "/etc/a.toml": 'version = 2\nimports = ["nested/x.toml"]\n',
             "/etc/nested/x.toml": "version = 2\n",
             f"{CONF_D}/9-b.toml": "version = 2\n",
             f"{CONF_D}/10-a.toml": "version = 2\n"})
    assert [f.path for f in a.files] == [ROOT, "/etc/a.toml", f"{CONF_D}/10-a.toml",
                                         f"{CONF_D}/9-b.toml", "/etc/nested/x.toml"]
    assert a.problems == []


def test_only_star_globs_and_missing_literal_is_fatal() -> None:
    a = run({ROOT: 'version = 2\nimports = ["/etc/containerd/conf.d/[ab].toml"]\n',
             f"{CONF_D}/a.toml": "version = 2\n"})
    assert kinds(a) == [ProblemKind.MISSING_IMPORT]
    assert a.problems[0].fatal and a.problems[0].path == f"{CONF_D}/[ab].toml"


def test_glob_without_match_is_fine() -> None:
    a = run({ROOT: 'version = 2\nimports = ["/nowhere/*.toml"]\n'})
    assert a.problems == [] and [f.path for f in a.files] == [ROOT]


def test_cycle_is_harmless() -> None:
    a = run({ROOT: 'version = 2\nimports = ["conf.d/*.toml"]\n',
             f"{CONF_D}/a.toml": 'version = 2\nimports = ["../config.toml", "b.toml"]\n',
             f"{CONF_D}/b.toml": 'version = 2\nimports = ["a.toml"]\n'})
    assert a.problems == []
    assert [f.path for f in a.files] == [ROOT, f"{CONF_D}/a.toml", f"{CONF_D}/b.toml"]


def test_relative_glob_from_cwd_on_1_6_20_but_importer_dir_later() -> None:
    files = {ROOT: 'version = 2\nimports = ["conf.d/*.toml"]\n',
             f"{CONF_D}/a.toml": "version = 2\n", "/conf.d/z.toml": "version = 2\n"}
    assert [f.path for f in run(files, "1.6.20").files] == [ROOT, "conf.d/z.toml"]
    assert [f.path for f in run(files, "1.7.27").files] == [ROOT, f"{CONF_D}/a.toml"]


def test_thousands_of_files_glob_is_capped_quickly() -> None:
    files = {ROOT: 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n'}
    files.update({f"{CONF_D}/{i:05}.toml": "version = 2\n" for i in range(3000)})
    t0 = time.perf_counter()
    a = run(files)
    assert time.perf_counter() - t0 < 5
    assert kinds(a) == [ProblemKind.TOO_MANY_FILES] and not a.complete


def test_deep_import_chain_is_capped() -> None:
    files = {ROOT: 'version = 2\nimports = ["/c/0.toml"]\n'}
    files.update({f"/c/{i}.toml": f'version = 2\nimports = ["/c/{i + 1}.toml"]\n'
                  for i in range(60)})
    a = run(files)
    assert ProblemKind.TOO_DEEP in kinds(a)


@pytest.mark.parametrize("text", ["version = 2\n[plugins\n", "\x00\x01\xff junk",
                                  "a = " + "[" * 5000 + "]" * 5000 + "\n",
                                  'version = "2"\n', 'imports = "x"\n'])
def test_malformed_files_are_parse_problems(text: str) -> None:
    a = run({ROOT: 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n',
             f"{CONF_D}/bad.toml": text})
    assert kinds(a) == [ProblemKind.PARSE]
    assert a.problems[0].path == f"{CONF_D}/bad.toml" and a.problems[0].fatal


# ----- seed §5 ----------------------------------------------------------------------------------
SEED_CASES = {
    "nvidia-only": {f"{CONF_D}/99-nvidia.toml": toolkit_dropin()},
    "registry-only": {f"{CONF_D}/registry.toml": REGISTRY_DROPIN},
    "both": {f"{CONF_D}/99-nvidia.toml": toolkit_dropin(),
             f"{CONF_D}/registry.toml": REGISTRY_DROPIN},
}


@pytest.mark.parametrize(("case", "version", "nvidia"), [
    ("nvidia-only", "1.7.27", True), ("registry-only", "1.7.27", False),
    ("both", "1.7.27", False), ("both", "1.6.20", False),
    ("nvidia-only", "2.1.4", True), ("registry-only", "2.1.4", False),
    ("both", "2.0.0", True), ("both", "2.2.1", True), ("both", "2.3.5", True),
])
def test_seed_section5(case: str, version: str, nvidia: bool) -> None:
    a = run({ROOT: ROOT_V2, **SEED_CASES[case]}, version)
    assert ("nvidia" in a.runtimes) is nvidia
    if nvidia:
        assert {"nvidia", "nvidia-cdi", "nvidia-legacy", "runc"} <= set(a.runtimes)


def test_seed_both_on_1x_attributes_the_registry_dropin() -> None:
    a = run({ROOT: ROOT_V2, **SEED_CASES["both"]}, "1.7.27")
    sec = a.sections[CRI.split(".", 1)[1].strip('"')]
    assert sec.culprit == f"{CONF_D}/registry.toml"
    lost = {(k.key, k.file) for k in sec.lost}
    assert ("containerd.runtimes.nvidia.options.BinaryName", f"{CONF_D}/99-nvidia.toml") in lost
    assert ("sandbox_image", ROOT) in lost and ("sandbox_image", f"{CONF_D}/99-nvidia.toml") in lost
    assert {k.culprit for k in sec.lost} == {f"{CONF_D}/registry.toml"}
    assert a.lost_runtimes == ["nvidia", "nvidia-cdi", "nvidia-legacy"]
    # the winning section keeps the defaults: runc is back, SystemdCgroup is not
    assert a.runtimes == ["runc"]
    runc = a.effective["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["runc"]
    assert runc["options"]["SystemdCgroup"] is False


def test_lost_keys_exactly_those_absent() -> None:
    a = run({ROOT: ROOT_V2, f"{CONF_D}/registry.toml": REGISTRY_DROPIN}, "1.7.27")
    assert sorted(k.key for k in a.lost) == [
        "containerd.default_runtime_name", "containerd.runtimes.runc.options.SystemdCgroup",
        "containerd.runtimes.runc.runtime_type", "sandbox_image"]
    # on 2.x nothing is lost: the sections deep-merge
    assert run({ROOT: ROOT_V2, f"{CONF_D}/registry.toml": REGISTRY_DROPIN}, "2.1.0").lost == []


# ----- 1.x details ------------------------------------------------------------------------------
def test_1x_top_level_merge_rules() -> None:
    a = run({ROOT: 'version = 2\nimports = ["/d/*.toml"]\nroot = "/var/lib/c"\noom_score = 5\n'
                   'disabled_plugins = ["io.containerd.x.v1.a"]\n'
                   '[timeouts]\n"io.containerd.timeout.shim.load" = "9s"\n'
                   '"io.containerd.timeout.shim.cleanup" = "7s"\n',
             "/d/a.toml": 'version = 2\nroot = ""\noom_score = 0\n'
                          'disabled_plugins = ["io.containerd.x.v1.a", "io.containerd.x.v1.b"]\n'
                          '[timeouts]\n"io.containerd.timeout.shim.load" = "8s"\n'}, "1.7.27")
    m = a.merged
    assert m["root"] == "/var/lib/c" and m["oom_score"] == 5      # zero never overrides
    assert m["disabled_plugins"] == ["io.containerd.x.v1.a", "io.containerd.x.v1.a",
                                     "io.containerd.x.v1.b"]      # append, no dedupe
    assert m["timeouts"] == {"io.containerd.timeout.shim.load": "8s",
                             "io.containerd.timeout.shim.cleanup": "7s"}
    b = run({ROOT: 'version = 2\nimports = ["/d/*.toml"]\n'
                   'disabled_plugins = ["io.containerd.x.v1.a"]\n',
             "/d/a.toml": 'version = 2\ndisabled_plugins = ["io.containerd.x.v1.a"]\n'}, "2.1.0")
    assert b.merged["disabled_plugins"] == ["io.containerd.x.v1.a"]  # 2.x dedupes


def test_1x_version_one_reads_short_ids_only() -> None:
    a = run({ROOT: f'version = 2\nimports = ["/d/a.toml"]\n[{CRI}.registry]\nconfig_path = "/x"\n',
             "/d/a.toml": 'version = 1\n[plugins.cri.cni]\nbin_dir = "/b"\n'}, "1.6.20")
    assert a.config_version == 1 and a.problems == []
    cri = a.effective["io.containerd.grpc.v1.cri"]
    assert cri["cni"]["bin_dir"] == "/b" and cri["registry"]["config_path"] == ""
    assert [(k.key, k.reason, k.culprit) for k in a.lost] == [
        ("registry.config_path", "ignored-version", "/d/a.toml")]


def test_1x_v2_plugin_key_must_be_uri() -> None:
    a = run({ROOT: 'version = 2\n[plugins.cri.registry]\nconfig_path = "/x"\n'}, "1.7.27")
    assert kinds(a) == [ProblemKind.PLUGIN_KEY] and a.problems[0].fatal


@pytest.mark.parametrize(("version", "refused"), [("1.7.16", False), ("1.7.17", True),
                                                  ("1.6.31", False), ("1.6.32", True)])
def test_1x_refuses_version_3_dropin_from_1_6_32_and_1_7_17(version: str, refused: bool) -> None:
    a = run({ROOT: ROOT_V2, f"{CONF_D}/99-nvidia.toml":
             f'version = 3\n[{CRI_RT3}.containerd.runtimes.nvidia]\n'
             'runtime_type = "io.containerd.runc.v2"\n'}, version)
    assert (ProblemKind.VERSION_REFUSED in kinds(a)) is refused
    if refused:
        assert a.problems[0].path == f"{CONF_D}/99-nvidia.toml"
    else:
        assert "nvidia" not in a.runtimes and any("cri.v1.runtime" in n for n in a.notes)


def test_default_runtime_must_be_a_runtime() -> None:
    a = run({ROOT: ROOT_V2, f"{CONF_D}/99-nvidia.toml":
             f'version = 2\n[{CRI}.containerd.runtimes.nvidia]\n'
             'runtime_type = "io.containerd.runc.v2"\n'}, "1.7.27")
    assert a.runtimes == ["nvidia"] and a.default_runtime == "runc"
    assert kinds(a) == [ProblemKind.CRI_DEFAULT_RUNTIME]


# ----- 2.x --------------------------------------------------------------------------------------
def test_2x_deep_merge_scalars_override_with_zero_arrays_replace() -> None:
    a = run({ROOT: f'version = 3\nimports = ["/d/*.toml"]\n[{CRI_RT3}]\nenable_cdi = true\n'
                   'cdi_spec_dirs = ["/etc/cdi", "/var/run/cdi"]\n'
                   f'[{CRI_RT3}.containerd.runtimes.runc.options]\nSystemdCgroup = true\n',
             "/d/a.toml": f'version = 3\n[{CRI_RT3}]\nenable_cdi = false\n'
                          'cdi_spec_dirs = ["/x"]\n'}, "2.1.0")
    rt = a.effective[CRI_RT3.split(".", 1)[1].strip('"')]
    assert rt["enable_cdi"] is False and rt["cdi_spec_dirs"] == ["/x"]
    assert rt["containerd"]["runtimes"]["runc"]["options"]["SystemdCgroup"] is True
    assert a.cdi == {"enable_cdi": False, "cdi_spec_dirs": ["/x"]}


def test_2x_migrates_v2_cri_once_on_merged_config() -> None:
    a = run({ROOT: ROOT_V2, f"{CONF_D}/registry.toml": REGISTRY_DROPIN}, "2.0.0")
    assert a.config_version == 2
    img = a.effective["io.containerd.cri.v1.images"]
    assert img["registry"]["config_path"] == "/etc/containerd/certs.d"
    assert img["pinned_images"]["sandbox"] == "registry.k8s.io/pause:3.9"
    assert a.effective["io.containerd.cri.v1.runtime"]["containerd"]["runtimes"]["runc"][
        "options"]["SystemdCgroup"] is True


def test_mixed_versions_v2_root_v3_dropin_ignores_root_cri() -> None:
    """facts.md §1.2: the merged version becomes 3, no migration runs, the root's grpc.v1.cri
    settings — the nvidia runtime and the sandbox image included — are silently ignored."""
    root = ROOT_V2.replace('[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]',
                           f'[{CRI}.containerd.runtimes.nvidia]\n'
                           '    runtime_type = "io.containerd.runc.v2"\n'
                           '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]')
    drop = f'version = 3\n[{CRI_IMG3}.registry]\nconfig_path = "/etc/containerd/certs.d"\n'
    a = run({ROOT: root, f"{CONF_D}/50-registry.toml": drop}, "2.1.4")
    assert a.config_version == 3
    assert "nvidia" not in a.runtimes
    assert a.effective["io.containerd.cri.v1.images"]["pinned_images"]["sandbox"] == \
        "registry.k8s.io/pause:3.10"
    assert {k.culprit for k in a.lost} == {f"{CONF_D}/50-registry.toml"}
    assert {k.reason for k in a.lost} == {"ignored-version"}
    assert "nvidia" in a.lost_runtimes
    # 2.3 migrates each file before merging: nothing is ignored
    b = run({ROOT: root, f"{CONF_D}/50-registry.toml": drop.replace("version = 3",
                                                                   "version = 2")}, "2.3.5")
    assert "nvidia" in b.runtimes and b.lost == []


def test_mixed_versions_v3_root_v2_dropin_migration_fills_only_missing_keys() -> None:
    """facts.md §0: since 2.0.2 the v2->v3 migration of the merged config (version 2, the last
    one stated) takes only keys the v3 section lacks: the root's runtimes stay, the registry
    moves to the images plugin. 2.0.0-2.0.1 assigned the v2 map wholesale."""
    root = (f'version = 3\nimports = ["/etc/containerd/conf.d/*.toml"]\n'
            f'[{CRI_RT3}.containerd.runtimes.nvidia]\nruntime_type = "io.containerd.runc.v2"\n'
            f'[{CRI_RT3}.containerd.runtimes.runc]\nruntime_type = "io.containerd.runc.v2"\n')
    a = run({ROOT: root, f"{CONF_D}/registry.toml": REGISTRY_DROPIN}, "2.1.4")
    assert a.config_version == 2
    assert a.runtimes == ["nvidia", "runc"] and a.lost == []
    assert a.effective["io.containerd.cri.v1.images"]["registry"]["config_path"] == \
        "/etc/containerd/certs.d"
    b = run({ROOT: root, f"{CONF_D}/registry.toml": REGISTRY_DROPIN}, "2.0.1")
    assert "nvidia" not in b.runtimes
    assert {(k.culprit, k.reason) for k in b.lost} == {(f"{CONF_D}/registry.toml",
                                                        "migration-overwrote")}


def test_mixed_versions_v3_root_runtimes_table_keeps_v2_dropin_runtimes_out() -> None:
    """facts.md §0: a v3 root with a runtimes table and the toolkit's v2 drop-in on 2.1-2.2:
    the drop-in's nvidia runtime vanishes, its default_runtime_name is taken (the root had
    none), and the root is named as the file whose key kept them out; 2.3 keeps them."""
    root = (f'version = 3\nimports = ["/etc/containerd/conf.d/*.toml"]\n'
            f'[{CRI_RT3}.containerd.runtimes.runc.options]\nSystemdCgroup = true\n')
    drop = (f'version = 2\n[{CRI}.containerd]\ndefault_runtime_name = "nvidia"\n'
            f'[{CRI}.containerd.runtimes.nvidia]\nruntime_type = "io.containerd.runc.v2"\n')
    a = run({ROOT: root, f"{CONF_D}/99-nvidia.toml": drop}, "2.2.7")
    assert a.runtimes == ["runc"] and a.default_runtime == "nvidia"
    assert a.lost_runtimes == ["nvidia"]
    assert {(k.file, k.culprit, k.reason, k.blocking_key, k.blocked_by) for k in a.lost} == {
        (f"{CONF_D}/99-nvidia.toml", f"{CONF_D}/99-nvidia.toml", "migration-kept",
         "containerd.runtimes", (ROOT,))}
    assert kinds(a) == [ProblemKind.CRI_DEFAULT_RUNTIME]
    b = run({ROOT: root, f"{CONF_D}/99-nvidia.toml": drop}, "2.3.7")
    assert b.runtimes == ["nvidia", "runc"] and b.lost == [] and b.problems == []


@pytest.mark.parametrize(("version", "refused"), [("2.3.0", True), ("2.3.4", True),
                                                  ("2.3.5", False), ("2.2.7", False)])
def test_2_3_refuses_dropin_newer_than_root(version: str, refused: bool) -> None:
    drop = (f'version = 4\n[{CRI_RT3}.containerd.runtimes.nvidia]\n'
            'runtime_type = "io.containerd.runc.v2"\n')
    a = run({ROOT: ROOT_V2, f"{CONF_D}/99-nvidia.toml": drop}, version)
    assert (ProblemKind.DROPIN_HIGHER in kinds(a)) is refused
    if version == "2.2.7":  # 2.0-2.2 know no version 4
        assert kinds(a) == [ProblemKind.VERSION_REFUSED]


def test_2_3_service_migration_and_v2_dropin_under_v3_root() -> None:
    root = (f'version = 3\nimports = ["/etc/containerd/conf.d/*.toml"]\n[grpc]\n'
            'address = "/run/c.sock"\n'
            f'[{CRI_RT3}.containerd.runtimes.nvidia]\nruntime_type = "io.containerd.runc.v2"\n'
            f'[{CRI_RT3}.containerd.runtimes.runc]\nruntime_type = "io.containerd.runc.v2"\n')
    a = run({ROOT: root, f"{CONF_D}/registry.toml": REGISTRY_DROPIN}, "2.3.5")
    assert a.problems == [] and {"nvidia", "runc"} <= set(a.runtimes)
    assert a.merged["plugins"]["io.containerd.server.v1.grpc"]["address"] == "/run/c.sock"


# ----- defaults and versions ----------------------------------------------------------------------
@pytest.mark.parametrize(("version", "cdi"), [
    ("1.6.20", {}), ("1.7.27", {"enable_cdi": False, "cdi_spec_dirs": ["/etc/cdi",
                                                                       "/var/run/cdi"]}),
    ("2.1.4", {"enable_cdi": True, "cdi_spec_dirs": ["/etc/cdi", "/var/run/cdi"]})])
def test_defaults_per_line(version: str, cdi: dict[str, object]) -> None:
    a = run({ROOT: "version = 2\n"}, version)
    assert a.runtimes == ["runc"] and a.default_runtime == "runc" and a.cdi == cdi


def test_missing_root_means_defaults() -> None:
    a = run({}, "1.7.27")
    assert a.root_missing and a.runtimes == ["runc"] and a.files == []


@pytest.mark.parametrize(("text", "ver", "line"), [
    ("containerd containerd.io 1.7.27 05044ec0a9a7", (1, 7, 27), Line.V1),
    ("containerd github.com/containerd/containerd 1.6.20~ds1 1.6.20~ds1-1+deb12u3",
     (1, 6, 20), Line.V1),
    ("containerd://2.0.0", (2, 0, 0), Line.V2), ("v2.3.2", (2, 3, 2), Line.V23)])
def test_version_sources(text: str, ver: tuple[int, int, int], line: Line) -> None:
    rv = resolve_version((None, "a"), (text, "b"))
    assert rv.ver == ver and rv.line is line and rv.source == "b" and not rv.assumed


def test_unknown_version_is_assumed_visibly() -> None:
    rv = resolve_version((None, "x"), ("garbage", "y"))
    assert rv.assumed and rv.source == "assumed" and rv.line is Line.V1


# ----- robustness: odd but valid TOML never crashes the engine ------------------------------------
KEYS = ["version", "imports", "plugins", "disabled_plugins", "timeouts", "proxy_plugins", "grpc",
        "io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime", "cri", "containerd",
        "runtimes", "nvidia", "runc", "options", "default_runtime_name", "registry",
        "sandbox_image", "enable_cdi", "config_path"]


def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    assert isinstance(v, dict)
    return "{" + ", ".join(f'"{k}" = {_toml_value(x)}' for k, x in v.items()) + "}"


scalars = st.one_of(st.booleans(), st.integers(-3, 5), st.sampled_from(
    ["", "nvidia", "runc", "/etc/containerd/conf.d/*.toml", "conf.d/x.toml", "io.containerd.x"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
    max_leaves=12)


@settings(max_examples=150, derandomize=True, deadline=None)
@given(root=st.dictionaries(st.sampled_from(KEYS), values, max_size=5),
       drop=st.dictionaries(st.sampled_from(KEYS), values, max_size=5),
       version=st.sampled_from(["1.6.20", "1.7.27", "2.0.0", "2.2.1", "2.3.2"]))
def test_engine_never_crashes_on_odd_configs(root: dict[str, object], drop: dict[str, object],
                                             version: str) -> None:
    root = {**root, "imports": ["/etc/containerd/conf.d/*.toml"]}
    files = {ROOT: "\n".join(f'"{k}" = {_toml_value(v)}' for k, v in root.items()) + "\n",
             f"{CONF_D}/x.toml": "\n".join(f'"{k}" = {_toml_value(v)}'
                                           for k, v in drop.items()) + "\n"}
    a = run(files, version)
    assert all(isinstance(r, str) for r in a.runtimes) and a.runtimes == sorted(a.runtimes)
    assert all(p.path and p.detail for p in a.problems)
    assert (a.files and a.files[0].path == ROOT) or a.fatal
