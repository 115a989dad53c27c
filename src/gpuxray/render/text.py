"""Human output with rich: findings grouped by layer, capacity tables, the ``why`` tree.

Every string that came from a cluster goes through :class:`rich.text.Text` (never markup), so a
pod named ``[bold]x`` prints as itself.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console, Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from gpuxray.model.diagnosis import Diagnosis
from gpuxray.model.finding import Finding, Layer, Severity, Status

SEV_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
RESULT_STYLE = {"pass": "green", "fail": "bold red", "unknown": "magenta", "info": "cyan"}
LAYER_TITLE = {
    Layer.ADMISSION: "Admission (1xx)",
    Layer.SCHEDULING: "Gate 1 — scheduling (2xx)",
    Layer.RUNTIME: "Gate 2 — runtime (3xx)",
    Layer.OPERATOR: "Operator stack (4xx)",
    Layer.NODE: "Node (5xx)",
    Layer.CAPACITY: "Capacity (6xx)",
}


def finding_label(f: Finding) -> Text:
    t = Text()
    if f.status == Status.UNKNOWN:
        t.append("UNKNOWN ", style="magenta")
    else:
        t.append(f"{f.severity.label.upper():7} ", style=SEV_STYLE[f.severity])
    t.append(f"{f.code} ", style="bold")
    t.append(f"{f.name}  ")
    t.append(str(f.subject), style="bold")
    return t


def _indented(text: Text, marker: str = "", style: str = "") -> Padding:
    """A block whose wrapped lines stay under its first word, not at column 0."""
    body = Text(marker, style=style or "dim") if marker else Text()
    body.append_text(text)
    return Padding(body, (0, 0, 0, 4), expand=False)


def finding_block(f: Finding, *, evidence_limit: int = 6, remedy: bool = True) -> Group:
    parts: list[Any] = [finding_label(f), _indented(Text(f.message))]
    for ev in f.evidence[:evidence_limit]:
        line = Text(ev.detail)
        line.append(f"  [{ev.source}]", style="dim")
        parts.append(_indented(line, "· "))
    if len(f.evidence) > evidence_limit:
        parts.append(_indented(Text(f"… {len(f.evidence) - evidence_limit} more", style="dim"),
                               "· "))
    if remedy and f.remedy and f.status == Status.FAIL:
        parts.append(_indented(Text(f.remedy, style="green"), "→ ", "green"))
    return Group(*parts)


def print_findings(console: Console, findings: Sequence[Finding], *, title: str = "") -> None:
    if title:
        console.print(Text(title, style="bold underline"))
    if not findings:
        console.print(Text("No findings: every check that ran had the evidence it needed and "
                           "found nothing wrong.", style="green"))
        return
    by_layer: dict[Layer, list[Finding]] = defaultdict(list)
    for f in findings:
        by_layer[f.layer].append(f)
    for layer in Layer:
        fl = by_layer.get(layer)
        if not fl:
            continue
        console.print(Text(LAYER_TITLE[layer], style="bold"))
        for f in fl:
            console.print(finding_block(f))
        console.print()
    print_summary(console, findings)


def print_summary(console: Console, findings: Iterable[Finding]) -> None:
    counts: dict[str, int] = defaultdict(int)
    for f in findings:
        counts["unknown" if f.status == Status.UNKNOWN else f.severity.label] += 1
    t = Text("Summary: ")
    for key, style in (("error", "bold red"), ("warning", "yellow"), ("info", "cyan"),
                       ("unknown", "magenta")):
        t.append(f"{counts.get(key, 0)} {key}  ", style=style)
    console.print(t)


def print_table(console: Console, title: str, columns: Sequence[str],
                rows: Iterable[Sequence[Any]], *, right: Iterable[str] = ()) -> None:
    """Every column keeps its full width except the last, which wraps: names and numbers are
    never cut to an ellipsis, a long free-text column (notes, taints) folds instead."""
    right_set = set(right)
    cells = [[c if isinstance(c, Text) else Text("-" if c is None else str(c)) for c in row]
             for row in rows]
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    last = len(columns) - 1
    for i, col in enumerate(columns):
        widest = max([len(col), *(r[i].cell_len for r in cells if i < len(r))])
        if i == last and last > 0:
            table.add_column(col, justify="right" if col in right_set else "left",
                             overflow="fold", ratio=1)
        else:
            table.add_column(col, justify="right" if col in right_set else "left",
                             no_wrap=True, min_width=widest)
    for r in cells:
        table.add_row(*r)
    console.print(table)


def print_diagnosis(console: Console, d: Diagnosis) -> None:
    head = Text("why ", style="bold")
    head.append(d.target, style="bold")
    tree = Tree(head)
    for step in d.path:
        label = Text(f"[{step.result}] ", style=RESULT_STYLE.get(step.result, ""))
        label.append(step.step, style="bold")
        if step.detail:
            label.append(" — " + step.detail)
        node = tree.add(label)
        for ev in step.evidence[:6]:
            t = Text(ev.detail, style="dim")
            t.append(f"  [{ev.source}]", style="dim")
            node.add(t)
    console.print(tree)
    console.print()
    if d.verdict is None:
        console.print(Text("Verdict: " + (d.conclusion or "no GPU problem found for this pod"),
                           style="green"))
    else:
        v = Text("Verdict: ", style="bold")
        v.append(f"{d.verdict.code} {d.verdict.name}", style=SEV_STYLE[d.verdict.severity])
        console.print(v)
        console.print(finding_block(d.verdict))
    if d.related:
        console.print()
        console.print(Text("Underlying causes on those nodes (see `gpuxray check` for all "
                           "evidence):", style="bold"))
        for f in d.related:
            console.print(finding_block(f, evidence_limit=1, remedy=f is d.related[0]))
