"""Markdown reports: tables, evidence bullets, the why path with ✓/✗/?, escaping of cluster
strings (a pipe must not open a table cell, a backtick must not open a code span)."""

from __future__ import annotations

import re
from pathlib import Path

from gpuxray.checks.engine import run_all
from gpuxray.cli.main import run
from gpuxray.diagnose.why import why
from gpuxray.model.finding import Evidence, Finding, Severity, Status, Subject
from gpuxray.render import markdown
from gpuxray.sources.bundle import open_bundle
from reports_fixtures import HOSTILE, demo, fragmented


def _cells(line: str) -> list[str]:
    """Split a GFM table row on unescaped pipes."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def _outside_code(text: str) -> str:
    """The text with CommonMark code spans removed (their content is never HTML)."""
    return re.sub(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", "", text)


def test_escape_keeps_tables_and_code_spans_intact() -> None:
    assert _cells(f"| {markdown.esc('a|b')} | c |") == ["a\\|b", "c"]
    assert markdown.esc("`rm -rf`") == "\\`rm -rf\\`"
    assert markdown.esc("<img src=x>") == "\\<img src=x\\>"
    assert "\n" not in markdown.esc("two\nlines")
    span = markdown.code("a ``b`` c")
    assert span.startswith("```") and span.endswith("```")  # fence longer than the content's
    assert markdown.code("`x`") == "`` `x` ``"


def test_findings_table_has_one_row_per_finding(tmp_path: Path) -> None:
    with open_bundle(demo(tmp_path / "demo")) as snap:
        findings = run_all(snap)
        text = markdown.render_findings(findings, title="t", source=snap.origin, capacity=[])
    table = text.split("| severity | code | name | subject | message |")[1].split("\n\n")[0]
    rows = [_cells(line) for line in table.strip().splitlines()[1:]]
    assert len(rows) == len(findings)
    assert all(len(r) == 5 for r in rows)
    assert sorted(r[1] for r in rows) == sorted(f.code for f in findings)
    # the summary counts match the findings
    errors = sum(1 for f in findings if f.status == Status.FAIL and f.severity == Severity.ERROR)
    assert f"**Summary:** {errors} error" in text


def test_why_path_is_a_list_with_marks(tmp_path: Path) -> None:
    with open_bundle(fragmented().write(tmp_path / "b")) as snap:
        d = why(snap, "ml/train")
        text = markdown.render_diagnosis(d, source="b")
    steps = [ln for ln in text.splitlines() if re.match(r"^- [✓✗?ℹ] \*\*", ln)]
    assert len(steps) == len(d.path)
    assert [ln[2] for ln in steps] == [markdown.MARK[s.result] for s in d.path]
    assert d.verdict is not None and f"**Verdict:** {d.verdict.code}" in text
    # evidence of a step is nested under it
    assert any(ln.startswith("  - ") for ln in text.splitlines())


def test_hostile_strings_are_escaped() -> None:
    f = Finding("GX202", "resource-not-advertised", Severity.ERROR, Status.FAIL,
                Subject("Pod", HOSTILE, "ml"), f"pod {HOSTILE} waits",
                (Evidence(f"cluster/pods.json|{HOSTILE}", HOSTILE),), "fix it")
    text = markdown.render_findings([f], title=HOSTILE, source="x", capacity=None)
    assert "<" not in _outside_code(text.replace("\\<", ""))
    row = next(ln for ln in text.splitlines() if ln.startswith("| error |"))
    assert len(_cells(row)) == 5
    bullet = next(ln for ln in text.splitlines() if ln.startswith("- ") and "pods.json" in ln)
    assert "\\|" in bullet and "<" not in _outside_code(bullet.replace("\\<", ""))


def test_capacity_markdown_numbers(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    bundle = fragmented().write(tmp_path / "b")
    assert run(["capacity", "--bundle", str(bundle), "-o", "markdown"]) == 0
    out = capsys.readouterr().out
    header = next(ln for ln in out.splitlines() if ln.startswith("| node |"))
    cols = _cells(header)
    rows = {(_cells(ln)[0]): dict(zip(cols, _cells(ln), strict=True))
            for ln in out.splitlines() if ln.startswith("| gpu-")}
    assert rows["gpu-1"]["allocated"] == "3" and rows["gpu-1"]["free"] == "1"
    assert rows["gpu-2"]["capacity"] == "4" and rows["gpu-2"]["allocatable"] == "4"
