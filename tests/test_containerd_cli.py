"""``gpuxray containerd``: --root, --config, --add/--remove what-if on one tree and on a whole
bundle (--bundle), JSON keys and exit codes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from containerd_fixtures import (
    CRI_RT3,
    REGISTRY_DROPIN,
    ROOT_V2,
    ROOT_V3,
    node_with_files,
    toolkit_dropin,
    toolkit_dropin_v3,
)
from gpuxray.scenarios.builder import ClusterBuilder

GX = Callable[..., tuple[int, Any]]


def host(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "host"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


SEED = {"etc/containerd/config.toml": ROOT_V2,
        "etc/containerd/conf.d/99-nvidia.toml": toolkit_dropin()}


def test_root_json_contract(tmp_path: Path, gx: GX) -> None:
    root = host(tmp_path, SEED)
    code, doc = gx("containerd", "--root", str(root), "--containerd-version", "1.7.27",
                   "-o", "json")
    assert code == 0
    assert doc["schema"] == "gpuxray/v1" and doc["findings"] == []
    assert doc["containerd_version"] == "1.7.27"
    assert doc["files"] == ["/etc/containerd/config.toml",
                            "/etc/containerd/conf.d/99-nvidia.toml"]
    assert doc["runtimes"] == ["nvidia", "nvidia-cdi", "nvidia-legacy", "runc"]
    assert doc["default_runtime"] == "runc"
    assert doc["cdi"] == {"enable_cdi": False, "cdi_spec_dirs": ["/etc/cdi", "/var/run/cdi"]}


def test_root_with_culprit_exit_1_and_fail_on(tmp_path: Path, gx: GX) -> None:
    root = host(tmp_path, {**SEED, "etc/containerd/conf.d/registry.toml": REGISTRY_DROPIN})
    code, doc = gx("containerd", "--root", str(root), "--containerd-version", "1.7.27",
                   "-o", "json")
    assert code == 1
    [f] = doc["findings"]
    assert (f["code"], f["severity"], f["subject"]["name"]) == ("GX501", "error", "host")
    assert doc["runtimes"] == ["runc"]
    sec = doc["sections"]["io.containerd.grpc.v1.cri"]
    assert sec["culprit"] == "/etc/containerd/conf.d/registry.toml"
    # the same tree on 2.x merges sections: nothing lost
    code2, doc2 = gx("containerd", "--root", str(root), "--containerd-version", "2.1.4",
                     "-o", "json")
    assert code2 == 0 and "nvidia" in doc2["runtimes"]


def test_config_text_output(tmp_path: Path, gx: GX) -> None:
    root = host(tmp_path, {"c/config.toml": 'version = 2\nimports = ["d/*.toml"]\n',
                           "c/d/x.toml": REGISTRY_DROPIN})
    code, out = gx("containerd", "--config", str(root / "c/config.toml"),
                   "--containerd-version", "1.6.20")
    assert code == 0
    assert "Files in merge order" in out and str(root / "c/config.toml") in out


def test_add_what_if(tmp_path: Path, gx: GX) -> None:
    root = host(tmp_path, SEED)
    add = tmp_path / "50-registry.toml"  # sorts before 99-nvidia: harmless on 1.x
    add.write_text(REGISTRY_DROPIN)
    code, doc = gx("containerd", "--root", str(root), "--containerd-version", "1.7.27",
                   "--add", str(add), "-o", "json")
    wi = doc["what_if"]
    assert wi["placed_as"] == "/etc/containerd/conf.d/50-registry.toml" and not wi["appended"]
    assert wi["runtimes_removed"] == [] and code == 0  # only its own setting is lost:
    assert [w["key"] for w in wi["wiped"]] == ["registry.config_path"]  # a warning
    assert [(f["code"], f["severity"]) for f in doc["findings"]] == [("GX501", "warning")]
    late = tmp_path / "registry.toml"  # sorts after 99-nvidia: wipes the nvidia runtimes
    late.write_text(REGISTRY_DROPIN)
    code, doc = gx("containerd", "--root", str(root), "--containerd-version", "1.7.27",
                   "--add", str(late), "-o", "json")
    wi = doc["what_if"]
    assert code == 1
    assert wi["runtimes_before"] == ["nvidia", "nvidia-cdi", "nvidia-legacy", "runc"]
    assert wi["runtimes_after"] == ["runc"]
    assert wi["runtimes_removed"] == ["nvidia", "nvidia-cdi", "nvidia-legacy"]
    assert doc["files"][-1] == "/etc/containerd/conf.d/registry.toml"
    code, out = gx("containerd", "--root", str(root), "--containerd-version", "1.7.27",
                   "--add", str(late))
    assert code == 1 and "handlers before" in out


def test_add_appended_when_no_glob(tmp_path: Path, gx: GX) -> None:
    root = host(tmp_path, {"etc/containerd/config.toml": "version = 2\n"})
    add = tmp_path / "x.toml"
    add.write_text(toolkit_dropin())
    code, doc = gx("containerd", "--root", str(root), "--add", str(add), "-o", "json")
    assert code == 0 and doc["what_if"]["appended"]
    assert "nvidia" in doc["what_if"]["runtimes_added"]
    assert doc["version_assumed"] is True


def test_malformed_toml_is_gx509_finding(tmp_path: Path, gx: GX) -> None:
    root = host(tmp_path, {"etc/containerd/config.toml": "version = 2\n[plugins\n"})
    code, doc = gx("containerd", "--root", str(root), "-o", "json")
    assert code == 1 and [f["code"] for f in doc["findings"]] == ["GX509"]


@pytest.mark.parametrize("args", [
    ["--config", "/nonexistent/config.toml"],
    ["--root", "/nonexistent-root"],
    ["--containerd-version", "banana"],
])
def test_input_errors_exit_2_one_line(args: list[str], gx: GX,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = gx("containerd", *args)
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_missing_add_file_exit_2(tmp_path: Path, gx: GX) -> None:
    root = host(tmp_path, SEED)
    code, _ = gx("containerd", "--root", str(root), "--add", str(tmp_path / "nope.toml"))
    assert code == 2


def test_root_without_config_uses_defaults(tmp_path: Path, gx: GX) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    code, doc = gx("containerd", "--root", str(root), "-o", "json")
    assert code == 0 and doc["root_missing"] and doc["runtimes"] == ["runc"]


def test_root_on_bundle_node_reads_its_version(tmp_path: Path, gx: GX) -> None:
    files = host(tmp_path, {**SEED, "etc/containerd/conf.d/registry.toml": REGISTRY_DROPIN})
    cmd = tmp_path / "cmd"
    cmd.mkdir()
    (cmd / "containerd-version.txt").write_text("containerd containerd.io 2.1.4 abcdef\n")
    code, doc = gx("containerd", "--root", str(files), "-o", "json")
    assert doc["containerd_version"] == "2.1.4" and not doc["version_assumed"]
    assert code == 0 and "nvidia" in doc["runtimes"]


# ----- fleet what-if: --bundle --add/--remove -----------------------------------------------------
def _fleet(write_bundle: Callable[[ClusterBuilder], Path]) -> Path:
    """40 nodes: 12 on 1.7.27 and 28 on 2.x (v2 roots and v3 roots), each with the toolkit's
    drop-in in its own layout."""
    b = ClusterBuilder()
    b.runtimeclass("nvidia")
    v2 = {"etc/containerd/config.toml": ROOT_V2,
          "etc/containerd/conf.d/99-nvidia.toml": toolkit_dropin()}
    v3 = {"etc/containerd/config.toml": ROOT_V3,
          "etc/containerd/conf.d/99-nvidia.toml": toolkit_dropin_v3()}
    plan = ([("1.7.27", v2)] * 12 + [("2.1.4", v2)] * 10 + [("2.2.7", v3)] * 10
            + [("2.3.4", v2)] * 8)
    for i, (version, files) in enumerate(plan):
        node_with_files(b, f"gpu-{i:02d}", files,
                        version=f"containerd github.com/containerd/containerd v{version} x")
    return write_bundle(b)


def test_fleet_what_if_groups_nodes_by_outcome(tmp_path: Path, gx: GX,
                                               write_bundle: Callable[[ClusterBuilder], Path]
                                               ) -> None:
    bundle = _fleet(write_bundle)
    drop = tmp_path / "zz-registry.toml"
    drop.write_text(REGISTRY_DROPIN)
    code, doc = gx("containerd", "--bundle", str(bundle), "--add", str(drop), "-o", "json")
    assert code == 1
    wi = doc["what_if"]
    assert wi["headline"] == "would break 12 of 40 nodes: the 1.7.27 ones"
    assert (wi["nodes_total"], wi["nodes_breaking"]) == (40, 12)
    groups = {g["outcome"]: g for g in wi["groups"]}
    assert groups["loses nvidia"]["count"] == 12
    assert groups["loses nvidia"]["containerd_versions"] == ["1.7.27"]
    assert groups["loses nvidia"]["handlers_lost"] == ["nvidia", "nvidia-cdi", "nvidia-legacy"]
    assert "sandbox_image" in groups["loses nvidia"]["settings_changed"]
    # 2.x deep-merges the registry drop-in: only the registry path changes
    assert groups["resets settings"]["count"] == 28
    assert groups["resets settings"]["settings_changed"] == ["registry.config_path"]
    node = next(n for n in wi["nodes"] if n["node"] == "gpu-00")
    assert node["placed_as"] == "/etc/containerd/conf.d/zz-registry.toml"
    assert (node["nvidia_dump_lines_before"], node["nvidia_dump_lines_after"]) == (6, 0)
    assert {f["code"] for f in doc["findings"]} == {"GX501"}


def test_fleet_what_if_refusals_and_removal(tmp_path: Path, gx: GX,
                                            write_bundle: Callable[[ClusterBuilder], Path]
                                            ) -> None:
    bundle = _fleet(write_bundle)
    drop = tmp_path / "zz-cdi.toml"
    drop.write_text(f'version = 3\n[{CRI_RT3}]\nenable_cdi = true\n')
    code, doc = gx("containerd", "--bundle", str(bundle), "--add", str(drop), "-o", "json")
    groups = {g["outcome"]: g for g in doc["what_if"]["groups"]}
    # 2.3.4 refuses a v3 drop-in under a v2 root; 1.7.27 refuses version 3 as the last version;
    # 2.1.4 loads it, merged version 3: the v2 files' CRI settings are ignored
    assert [(g["containerd_versions"], g["count"]) for g in doc["what_if"]["groups"]
            if g["outcome"] == "refused"] == [(["1.7.27"], 12), (["2.3.4"], 8)]
    assert doc["what_if"]["headline"] == (
        "would break 30 of 40 nodes: the 1.7.27, 2.1.4, 2.3.4 ones")
    assert (groups["loses nvidia"]["count"], groups["loses nvidia"]["containerd_versions"]) == (
        10, ["2.1.4"])
    assert groups["no change"]["containerd_versions"] == ["2.2.7"]
    refused = {n["containerd_version"]: n["refused"] for n in doc["what_if"]["nodes"]
               if n["outcome"] == "refused"}
    assert refused["2.3.4"]["daemon"] == (
        "drop-in config version 3 higher than root config version 2")
    assert refused["1.7.27"]["daemon"].endswith("unsupported config version `3`")
    assert code == 1
    code, doc = gx("containerd", "--bundle", str(bundle), "--remove", "99-nvidia.toml")
    assert code == 1 and "would break 40 of 40 nodes" in doc
    code, _ = gx("containerd", "--bundle", str(bundle), "--remove", "nothing.toml")
    assert code == 0


def test_fleet_what_if_usage_errors(tmp_path: Path, gx: GX,
                                    write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    bundle = _fleet(write_bundle)
    assert gx("containerd", "--bundle", str(bundle))[0] == 2
    assert gx("containerd", "--bundle", str(bundle), "--remove", "x.toml",
              "--containerd-version", "2.1.4")[0] == 2
    assert gx("containerd", "--bundle", str(tmp_path / "nope"), "--remove", "x.toml")[0] == 2
