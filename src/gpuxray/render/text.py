"""Human output with rich: findings grouped by layer, capacity tables, the ``why`` tree.

Every string that came from a cluster goes through :class:`rich.text.Text` (never markup), so a
pod named ``[bold]x`` prints as itself.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from rich.cells import cell_len, chop_cells
from rich.console import Console, Group
from rich.padding import Padding
from rich.text import Text
from rich.tree import Tree

from gpuxray.model.diagnosis import Diagnosis
from gpuxray.model.finding import Finding, Layer, Severity, Status
from gpuxray.model.incident import Incident, root_verdict_text
from gpuxray.render import report

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


def print_incidents(console: Console, incidents: Sequence[Incident]) -> None:
    """One block per incident, highest impact first: root, evidence, consequence chain as a
    tree, impact, remedy, and the read-only command that confirms the root (seed §7)."""
    if not incidents:
        return
    console.print(Text(f"Incidents ({len(incidents)}): each a root cause and what it explains",
                       style="bold underline"))
    for v in report.incident_views(incidents, evidence_limit=2):
        head = Text(f"[{v.number}] ")
        head.append(f"{v.severity.upper():7} ", style=SEV_STYLE[Severity.parse(v.severity)])
        head.append(v.headline, style="bold")
        console.print()
        console.print(head)
        body: list[Any] = [_indented(Text("impact: " + v.impact, style="bold"))]
        body.append(_indented(Text(v.message)))
        for source, detail in v.evidence:
            line = Text(detail)
            line.append(f"  [{source}]", style="dim")
            body.append(_indented(line, "· "))
        tree = _chain_tree(v.chain)
        if tree is not None:
            body.append(Padding(tree, (0, 0, 0, 4), expand=False))
        for end in v.open_ends:
            body.append(_indented(Text(end, style="magenta"), "? not evaluated: ", "magenta"))
        if v.remedy:
            body.append(_indented(Text(v.remedy, style="green"), "→ ", "green"))
        body.append(_indented(Text(v.verify, style="bold"), "verify: ", "dim"))
        console.print(Group(*body))
    console.print()


def _chain_tree(chain: Sequence[report.ChainLine]) -> Tree | None:
    if len(chain) < 2:
        return None
    nodes: list[Tree] = []
    root: Tree | None = None
    for c in chain:
        label = Text(f"{c.code} {c.name}", style="magenta" if c.unknown else "bold")
        label.append(f"  {c.subjects}")
        if root is None:
            root = Tree(label, guide_style="dim")
            nodes = [root]
            continue
        nodes = nodes[:c.depth]
        node = nodes[-1].add(label)
        nodes.append(node)
    return root


def fold_groups(findings: Sequence[Finding]) -> list[list[Finding]]:
    """Identical findings on many subjects (same code, status and severity) as one group, in
    the order their first member appears."""
    groups: dict[tuple[str, str, int], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.code, f.status.value, int(f.severity)), []).append(f)
    return list(groups.values())


def folded_block(group: Sequence[Finding]) -> Group:
    """A group as one line naming every subject, then the first member's message and evidence
    as the example (``--expand`` prints each member)."""
    f = group[0]
    t = finding_label(f)
    t.append(f" (+{len(group) - 1})")
    parts: list[Any] = [t, _indented(Text(report.subjects_text(group[1:], limit=12),
                                          style="bold"), "also: ")]
    inner = finding_block(f, evidence_limit=2)
    parts.extend(list(inner.renderables)[1:])
    return Group(*parts)


def print_findings(console: Console, findings: Sequence[Finding], *, title: str = "",
                   incidents: Sequence[Incident] | None = None, expand: bool = True) -> None:
    if title:
        console.print(Text(title, style="bold underline"))
    if not findings:
        console.print(Text("No findings: every check that ran had the evidence it needed and "
                           "found nothing wrong.", style="green"))
        return
    if incidents:
        print_incidents(console, incidents)
        console.print(Text("Findings by layer", style="bold underline"))
    by_layer: dict[Layer, list[Finding]] = defaultdict(list)
    for f in findings:
        by_layer[f.layer].append(f)
    for layer in Layer:
        fl = by_layer.get(layer)
        if not fl:
            continue
        console.print(Text(LAYER_TITLE[layer], style="bold"))
        for group in ([[f] for f in fl] if expand else fold_groups(fl)):
            console.print(finding_block(group[0]) if len(group) == 1 else folded_block(group))
        console.print()
    print_summary(console, findings, incidents)


def print_summary(console: Console, findings: Iterable[Finding],
                  incidents: Sequence[Incident] | None = None) -> None:
    counts: dict[str, int] = defaultdict(int)
    for f in findings:
        counts["unknown" if f.status == Status.UNKNOWN else f.severity.label] += 1
    t = Text("Summary: ")
    for key, style in (("error", "bold red"), ("warning", "yellow"), ("info", "cyan"),
                       ("unknown", "magenta")):
        t.append(f"{counts.get(key, 0)} {key}  ", style=style)
    if incidents is not None:
        t.append(f"in {len(incidents)} incident(s)", style="bold")
    console.print(t)


HEAD_SEP, BODY_SEP = " ┃ ", " │ "
#: the narrowest the wrapping last column may get before lines are left long instead
MIN_LAST = 16
#: C0 controls and DEL dropped from cells, as rich's Text does, so a hostile name cannot move
#: the cursor; a newline inside a cell becomes a space
_CONTROLS = {c: None for c in (*range(0x20), 0x7F)} | {0x0A: 0x20, 0x09: 0x20}


def _cell(c: Any) -> str:
    s = c.plain if isinstance(c, Text) else "-" if c is None else str(c)
    return s.translate(_CONTROLS) if not s.isprintable() else s


def _fold(s: str, width: int) -> list[str]:
    """Wrap at spaces; a word longer than ``width`` starts its own line and is folded there.
    Nothing is ever dropped."""
    out: list[str] = []
    line = ""
    for word in s.split(" "):
        if line and cell_len(line) + 1 + cell_len(word) <= width:
            line += " " + word
            continue
        if line:
            out.append(line)
        if cell_len(word) > width:
            *whole, word = chop_cells(word, width)
            out.extend(whole)
        line = word
    out.append(line)
    return out


def print_table(console: Console, title: str, columns: Sequence[str],
                rows: Iterable[Sequence[Any]], *, right: Iterable[str] = ()) -> None:
    """Every column keeps its full width except the last, which wraps: names and numbers are
    never cut to an ellipsis, and no column is cropped at the terminal's edge; a long free-text
    last column (notes, taints) folds under itself instead.

    Laid out on plain strings rather than by :class:`rich.table.Table`, whose per-cell measuring
    took ~20 s for the 5,000-row capacity table of a 5,000-node cluster. Cells are taken as
    text: a styled cell prints unstyled."""
    n = len(columns)
    right_set = {i for i, c in enumerate(columns) if c in set(right)}
    cells = [[_cell(c) for c in row] + [""] * (n - len(row)) for row in rows]
    widths = [cell_len(c) for c in columns]
    for i in range(n):
        widths[i] = max([widths[i], *(cell_len(r[i]) for r in cells)])
    lead = sum(widths[:-1]) + len(BODY_SEP) * (n - 1)
    last = widths[-1]
    if n > 1 and console.width - lead >= max(MIN_LAST, cell_len(columns[-1])):
        last = min(last, console.width - lead)

    def just(s: str, i: int) -> str:
        gap = widths[i] - cell_len(s)
        return s if gap <= 0 else (" " * gap + s if i in right_set else s + " " * gap)

    blank = BODY_SEP.join(" " * w for w in widths[:-1]) + BODY_SEP if n > 1 else ""
    header = HEAD_SEP.join(just(c, i) for i, c in enumerate(columns)).rstrip()
    rule = "╇".join("━" * (w + (1 if i in (0, n - 1) else 2))
                    for i, w in enumerate([*widths[:-1], last]))
    lines = [title, header, rule] if title else [header, rule]
    for r in cells:
        head = BODY_SEP.join(just(r[i], i) for i in range(n - 1)) + (BODY_SEP if n > 1 else "")
        tail = r[n - 1]
        if cell_len(tail) <= last:
            lines.append((head + (just(tail, n - 1) if n - 1 in right_set else tail)).rstrip())
            continue
        pieces = _fold(tail, last)
        lines.append(head + pieces[0])
        lines.extend((blank + p).rstrip() for p in pieces[1:])
    if console.color_system is None and not console.record:
        # no styles to draw: hand the lines to the stream as they are, which is what keeps a
        # 100k-line table cheap (rich would re-segment every line)
        console.file.write("\n".join(lines) + "\n")
        return
    out = Text("\n".join(lines))
    at = 0
    if title:
        out.stylize("italic", 0, len(title))
        at = len(title) + 1
    out.stylize("bold", at, at + len(header))
    console.print(out, soft_wrap=True)


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
        return
    root = d.root_cause
    head = Text("Why the pod waits: " if root else "Verdict: ", style="bold")
    head.append(f"{d.verdict.code} {d.verdict.name}", style=SEV_STYLE[d.verdict.severity])
    console.print(head)
    console.print(finding_block(d.verdict))
    if d.related:
        console.print()
        console.print(Text("Underlying causes on those nodes (see `gpuxray check` for all "
                           "evidence):", style="bold"))
        for f in d.related:
            console.print(finding_block(f, evidence_limit=1, remedy=f is root))
    if root is not None:
        console.print()
        console.print(root_verdict(d))


def root_verdict(d: Diagnosis) -> Text:
    """The root the walk reached, then the gate step the pod waits at."""
    root, verdict = d.root_cause, d.verdict
    assert root is not None and verdict is not None
    t = Text("Verdict: ", style="bold")
    t.append(root_verdict_text(root, d.root_nodes, verdict, d.phase))
    return t
