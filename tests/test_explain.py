"""``gpuxray explain``: topics rendered from the knowledge tables, code pages from the catalog."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gpuxray.knowledge.anatomy import TOPICS
from gpuxray.knowledge.codes import CATALOG
from gpuxray.knowledge.operands import OPERANDS

Run = Callable[..., tuple[int, Any]]


@pytest.mark.parametrize("topic", sorted(TOPICS))
def test_topic_json_is_the_table(gx: Run, topic: str) -> None:
    code, doc = gx("explain", topic, "-o", "json")
    assert code == 0 and doc["schema"] == "gpuxray/v1" and doc["topic"] == topic
    t = TOPICS[topic]
    assert [x["title"] for x in doc["tables"]][:len(t.tables)] == [x.title for x in t.tables]
    for table in doc["tables"]:
        assert all(len(r) == len(table["columns"]) for r in table["rows"])
    for c in doc["codes"]:
        assert c in CATALOG


def test_every_code_named_in_a_topic_exists() -> None:
    for t in TOPICS.values():
        for table in t.tables:
            for row in table.rows:
                for word in " ".join(row).split():
                    if word.startswith("GX") and word[2:5].isdigit():
                        assert word[:5] in CATALOG, (t.name, word)


def test_components_lists_every_operand(gx: Run) -> None:
    code, doc = gx("explain", "components", "-o", "json")
    assert code == 0
    operand_rows = doc["tables"][-1]["rows"]
    assert [r[0] for r in operand_rows] == [o.daemonset for o in OPERANDS]
    plugin = next(r for r in operand_rows if r[0] == "nvidia-device-plugin-daemonset")
    assert "toolkit-validation (toolkit)" in plugin[2] and plugin[3] == "nvidia"


@pytest.mark.parametrize("code_", ["GX403", "gx302", "GX501"])
def test_code_page(gx: Run, code_: str) -> None:
    code, doc = gx("explain", code_, "-o", "json")
    page = doc["page"]
    info = CATALOG[code_.upper()]
    assert code == 0
    assert (page["code"], page["name"], page["seed"], page["remedy"]) == (
        info.code, info.name, info.seed, info.remedy)


def test_code_page_lists_causes_and_signatures(gx: Run) -> None:
    _c, doc = gx("explain", "GX403", "-o", "json")
    assert {e["cause"] for e in doc["page"]["evidence"]} == {
        "nouveau", "secure-boot", "precompiled-kernel", "kernel-headers", "gpu-init",
        "driver-failing", "driver-install-leftover", "host-driver-absent"}
    assert "secure-boot-key" in doc["page"]["signatures"]


def test_text_output(gx: Run) -> None:
    code, out = gx("explain", "misconceptions")
    assert code == 0 and "replicas" in out
    code, out = gx("explain", "GX411")
    assert code == 0 and "operand-runtime-chain" in out


def test_list(gx: Run) -> None:
    code, doc = gx("explain", "list", "-o", "json")
    assert code == 0
    assert set(doc["topics"]) == set(TOPICS) and set(doc["codes"]) == set(CATALOG)


@pytest.mark.parametrize("bad", ["nope", "GX999"])
def test_unknown_topic_is_usage_error(gx: Run, bad: str, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    code, _ = gx("explain", bad)
    assert code == 2
    assert "Traceback" not in capsys.readouterr().err
