"""CLI contract: JSON schema, exit codes and --fail-on (CODES.md), demo, module entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpuxray.scenarios.builder import ClusterBuilder

Run = Callable[..., tuple[int, Any]]


def fragmented() -> ClusterBuilder:
    b = ClusterBuilder()
    for r in ("events", "runtimeclasses"):
        b.ensure(r)
    b.node("gpu-1", gpus=4)
    b.node("gpu-2", gpus=4)
    b.pod("ml", "a", node="gpu-1", gpus=3)
    b.pod("ml", "b", node="gpu-2", gpus=3)
    b.pod("ml", "train", gpus=2)
    return b


def test_json_contract(gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    code, doc = gx("check", "--bundle", str(write_bundle(fragmented())), "-o", "json")
    assert doc["schema"] == "gpuxray/v1"
    f = doc["findings"][0]
    assert {"code", "name", "severity", "status", "subject", "message", "evidence",
            "remedy"} <= set(f)
    assert f["severity"] in ("error", "warning", "info") and f["status"] in ("fail", "unknown")
    assert set(f["subject"]) == {"kind", "name", "namespace"}
    assert all({"source", "detail"} == set(e) for e in f["evidence"])
    assert code == 1


def test_fail_on_thresholds(gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    gate1 = ("--code", "GX1", "--code", "GX2")  # this bundle has no node, operator or metric data
    b = ClusterBuilder()
    b.node("gpu-1", gpus=4)
    b.pod("ml", "train", gpus=1)  # fits; events not collected → GX101 can only be unknown
    assert gx("check", "--bundle", str(write_bundle(b)), *gate1)[0] == 3
    assert gx("check", "--bundle", str(write_bundle(b)), *gate1, "--fail-on", "error")[0] == 3
    b.ensure("events")
    assert gx("check", "--bundle", str(write_bundle(b)), *gate1)[0] == 0
    b.pod("ml", "wants-many", gpus=9)  # GX205, an error
    bundle = str(write_bundle(b))
    assert gx("check", "--bundle", bundle, *gate1)[0] == 1
    assert gx("check", "--bundle", bundle, "--code", "GX206")[0] == 0
    # a whole-stack check of a bundle without host files is incomplete, never healthy
    assert gx("check", "--bundle", bundle, "--code", "GX5")[0] == 3


def test_why_json_has_path_and_verdict(gx: Run,
                                       write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    code, doc = gx("why", "ml/train", "--bundle", str(write_bundle(fragmented())), "-o", "json")
    assert code == 1
    assert doc["pod"] == {"namespace": "ml", "name": "train"}
    assert doc["verdict"]["code"] == "GX206"
    assert all(s["result"] in ("pass", "fail", "unknown", "info") for s in doc["path"])
    assert doc["findings"][0]["code"] == "GX206"


def test_demo_runs_and_finds_the_incident(gx: Run) -> None:
    code, doc = gx("demo", "-o", "json")
    assert code == 0
    assert doc["why"]["verdict"]["code"] == "GX202"
    assert set(doc["why"]["verdict"]["params"]["nodes"]) == {"gpu-2", "gpu-3"}
    # the walk continues onto those nodes: the drop-in that wiped the handler is named
    related = {(f["code"], f["subject"]["name"]) for f in doc["why"]["related"]}
    assert {("GX501", "gpu-2"), ("GX501", "gpu-3"), ("GX301", "gpu-2"),
            ("GX411", "gpu-3")} <= related
    gx501 = next(f for f in doc["why"]["related"] if f["code"] == "GX501")
    assert gx501["evidence"][0]["source"].endswith("conf.d/registry.toml")
    codes = {(f["code"], s["name"]) for f in doc["findings"] if f["status"] == "fail"
             for s in f.get("subjects", [f["subject"]])}  # a folded entry: each of its subjects
    assert ("GX501", "gpu-1") not in codes and ("GX202", "train-llm-0") in codes
    assert {("GX411", "gpu-2"), ("GX601", "eval-nightly-28411"), ("GX604", "gpu-3")} <= codes
    idle = next(f for f in doc["findings"] if f["code"] == "GX601")
    assert idle["params"]["node"] == "gpu-1"
    # the example carries every input the checks need: nothing is left unknown
    assert [f["code"] for f in doc["findings"] if f["status"] == "unknown"] == []


def test_demo_save(gx: Run, tmp_path: Path) -> None:
    code, _ = gx("demo", "--save", str(tmp_path / "demo"))
    assert code == 0 and (tmp_path / "demo" / "cluster" / "nodes.json").is_file()
    code, doc = gx("check", "--bundle", str(tmp_path / "demo"), "-o", "json")
    assert any(f["code"] == "GX202" for f in doc["findings"])


def test_module_entry_and_broken_pipe(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "gpuxray", "--version"], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0 and "gpuxray" in r.stdout
    p = subprocess.run(f"{sys.executable} -m gpuxray demo | head -1", shell=True,
                       capture_output=True, text=True, check=False)
    assert p.returncode == 0 and "Traceback" not in p.stderr and p.stdout.strip()


def test_unknown_findings_name_their_input(gx: Run,
                                           write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = ClusterBuilder()
    b.node("gpu-1", gpus=4)
    b.pod("ml", "x", gpus=1, runtime_class="nvidia")
    _, doc = gx("check", "--bundle", str(write_bundle(b)), "-o", "json")
    unknown = [f for f in doc["findings"] if f["status"] == "unknown"]
    assert any(f["code"] == "GX102" and "runtimeclasses" in f["params"]["missing"]
               for f in unknown)
    json.dumps(doc)
