"""``gpuxray mig`` and GX603 on scenario bundles (seed §6 "MIG"; facts.md §6.3, §7)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from capacity_fixtures import MIG_PARTED, mig_cluster
from gpuxray.checks.engine import run_all
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources.bundle import open_bundle

Gx = Callable[..., tuple[int, Any]]


def test_layout_validation_json(gx: Gx) -> None:
    code, doc = gx("mig", "--model", "A100-40GB", "--layout", "1g.5gb=7", "-o", "json")
    assert code == 0 and doc["schema"] == "gpuxray/v1" and doc["findings"] == []
    v = doc["validation"]
    assert v["valid"] is True
    assert (v["unused_memory_slices"], v["unused_compute_slices"], v["unused_memory_gb"]) == (
        1, 0, 5.0)
    assert len(v["placements"]) == 7


def test_infeasible_layout_exits_1_with_reason(gx: Gx) -> None:
    code, doc = gx("mig", "--model", "a100", "--layout", "4g.20gb=1,2g.10gb=2", "-o", "json")
    assert code == 1
    assert doc["validation"]["valid"] is False
    assert {p["reason"] for p in doc["validation"]["problems"]} == {"compute-budget"}


def test_wrong_model_profile_is_reported(gx: Gx) -> None:
    code, doc = gx("mig", "--model", "H200-141GB", "--layout", "1g.5gb=1", "-o", "json")
    assert code == 1
    assert doc["validation"]["problems"][0]["reason"] == "unknown-profile"


def test_pack_json(gx: Gx) -> None:
    code, doc = gx("mig", "--model", "A100-40GB", "--gpus", "4", "--want",
                   "1g.5gb=10,3g.20gb=3", "-o", "json")
    assert code == 0
    plan = doc["plan"]
    assert plan["placed"] == {"1g.5gb": 10, "3g.20gb": 3} and plan["unplaced"] == {}
    assert plan["gpus_used"] <= 4 and all(g["valid"] for g in plan["per_gpu"])
    code, doc = gx("mig", "--model", "A100-40GB", "--gpus", "1", "--want", "3g.20gb=3",
                   "-o", "json")
    assert code == 1 and doc["plan"]["unplaced"] == {"3g.20gb": 1}


def test_usage_errors_exit_2(gx: Gx, capsys: Any) -> None:
    assert gx("mig", "--layout", "1g.5gb=7")[0] == 2
    assert gx("mig", "--model", "RTX-4090")[0] == 2
    assert gx("mig", "--model", "a100", "--layout", "1g.5gb=lots")[0] == 2
    assert "Traceback" not in capsys.readouterr().err


def test_config_file_validation(gx: Gx, tmp_path: Path) -> None:
    good = tmp_path / "config.yaml"
    good.write_text(MIG_PARTED)
    code, doc = gx("mig", "--config", str(good), "--gpus", "2", "-o", "json")
    res = {(r["config"], r["model"]): r for r in doc["config"]["results"]}
    assert doc["config"]["issues"] == []
    one = res[("all-1g.5gb", "A100-40GB")]
    assert one["valid"] is True and one["unused_memory_slices"] == 2  # 1 per GPU × 2
    assert res[("all-1g.5gb", "A100-80GB")]["unused_memory_gb"] == 20.0
    assert code == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: v1\nmig-configs:\n  x:\n    - devices: 3\n      mig-enabled: true\n"
                   "      mig-devices: {\"1g.5gb\": 9}\n")
    code, doc = gx("mig", "--config", str(bad), "--model", "A100-40GB", "-o", "json")
    assert code == 1
    assert [i["path"] for i in doc["config"]["issues"]] == ["mig-configs.x[0].devices"]
    junk = tmp_path / "junk.yaml"
    junk.write_bytes(b"\x00\x01\x02binary")
    assert gx("mig", "--config", str(junk))[0] == 2
    assert gx("mig", "--config", str(tmp_path / "absent.yaml"))[0] == 2


def test_nodes_from_bundle_and_gx603(gx: Gx, write_bundle: Callable[..., Path]) -> None:
    root = write_bundle(mig_cluster())
    code, doc = gx("mig", "--bundle", str(root), "-o", "json")
    assert code == 3  # waste is info; mig-4's layout cannot be worked out
    nodes = {n["node"]: n for n in doc["nodes"]}
    assert nodes["mig-1"]["unused_memory_slices"] == 4 and nodes["mig-1"]["gpus"] == 4
    assert nodes["mig-1"]["unused_memory_gb"] == 20.0
    assert nodes["mig-2"]["unused_memory_slices"] == 0
    assert nodes["mig-2"]["unused_compute_slices"] == 0
    assert nodes["mig-3"]["unused_compute_slices"] == 2
    assert nodes["mig-4"]["missing"]
    got = {(f["code"], f["subject"]["name"], f["status"]) for f in doc["findings"]}
    assert got == {("GX603", "mig-1", "fail"), ("GX603", "mig-3", "fail"),
                   ("GX603", "mig-4", "unknown")}


def test_gx603_params_and_missing_configmap(write_bundle: Callable[..., Path]) -> None:
    b = mig_cluster()
    with open_bundle(write_bundle(b)) as snap:
        f = {x.subject.name: x for x in run_all(snap, ["GX603"])}
    p = f["mig-1"].params
    assert (p["model"], p["gpus"], p["unused_mem_slices"], p["unused_compute_slices"],
            p["unused_gb"]) == ("A100-40GB", 4, 4, 0, 20.0)
    b.remove("configmaps")
    with open_bundle(write_bundle(b)) as snap:
        fl = run_all(snap, ["GX603"])
    assert {(x.subject.name, x.status.value) for x in fl} == {
        (n, "unknown") for n in ("mig-1", "mig-2", "mig-3", "mig-4")}
    assert all(x.params["missing"] == "cluster/configmaps.json" for x in fl)


def test_invalid_node_layout_exits_1(gx: Gx, write_bundle: Callable[..., Path]) -> None:
    b = mig_cluster()
    b.find("nodes", "mig-4")["metadata"]["labels"]["nvidia.com/mig.config"] = "all-balanced"
    mig2 = b.find("nodes", "mig-2")["metadata"]["labels"]
    mig2["nvidia.com/gpu.product"] = "NVIDIA-A30"
    mig2["nvidia.com/mig.config"] = "custom-half"  # 3g.20gb is no A30 profile
    code, doc = gx("mig", "--bundle", str(write_bundle(b)), "-o", "json")
    nodes = {n["node"]: n for n in doc["nodes"]}
    assert nodes["mig-2"]["valid"] is False and nodes["mig-2"]["model"] == "A30-24GB"
    assert code == 1
    empty = ClusterBuilder()
    empty.node("cpu-1")
    code, doc = gx("mig", "--bundle", str(write_bundle(empty)), "-o", "json")
    assert code == 0 and doc["nodes"] == []
