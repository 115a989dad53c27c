"""A GPU node without host facts, while others have them, is unknown — never silently healthy."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.demo import build_demo

Run = Callable[..., tuple[int, Any]]


def test_gpu_node_without_facts_is_unknown_with_the_reason(
        gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = build_demo()
    b.files = {k: v for k, v in b.files.items() if not k.startswith("nodes/gpu-3/")}
    b.error("nodes/gpu-3/", "agent pod ImagePullBackOff")
    _, doc = gx("check", "--bundle", str(write_bundle(b)), "-o", "json")
    about = {(f["code"], f["status"]) for f in doc["findings"]
             if f["subject"]["name"] == "gpu-3"}
    for code in ("GX501", "GX502", "GX503", "GX504", "GX505", "GX506", "GX507", "GX509"):
        assert (code, "unknown") in about, code
    gx501 = next(f for f in doc["findings"]
                 if f["code"] == "GX501" and f["subject"]["name"] == "gpu-3")
    assert "ImagePullBackOff" in gx501["params"]["reason"]
    # the node that was collected is still judged on its files
    assert any(f["code"] == "GX501" and f["status"] == "fail" and f["subject"]["name"] == "gpu-2"
               for f in doc["findings"])


def test_bundle_without_any_host_facts_reports_one_unknown_per_check(
        gx: Run, write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = build_demo()
    b.files = {k: v for k, v in b.files.items() if not k.startswith("nodes/")}
    code, doc = gx("check", "--bundle", str(write_bundle(b)), "--code", "GX5", "-o", "json")
    assert code == 3
    per_code: dict[str, int] = {}
    for f in doc["findings"]:
        assert f["status"] == "unknown"
        per_code[f["code"]] = per_code.get(f["code"], 0) + 1
    assert per_code["GX501"] == 1 and per_code["GX503"] == 1
