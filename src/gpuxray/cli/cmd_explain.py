"""``gpuxray explain TOPIC``: the stack's anatomy from the knowledge tables (seed §1, §2, §8, §9).

Topics come from ``knowledge/anatomy.py``; ``components`` adds the operand table
(``knowledge/operands.py``); ``GXnnn`` prints that code's reference page from the catalog, with the
signatures that point to it; ``list`` lists topics and codes.
"""

from __future__ import annotations

import json
import re
from typing import Any

import click
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from gpuxray.cli.common import out_console, output_option
from gpuxray.errors import UsageError
from gpuxray.knowledge.anatomy import TOPICS, Table, Topic
from gpuxray.knowledge.codes import CATALOG
from gpuxray.knowledge.operands import OPERANDS, STAGES
from gpuxray.knowledge.signatures import CAUSES, SIGNATURES
from gpuxray.model.finding import Layer
from gpuxray.render.json import SCHEMA
from gpuxray.render.text import print_table

_CODE = re.compile(r"^gx\d{3}$", re.IGNORECASE)


def operands_table() -> Table:
    rows = []
    for op in OPERANDS:
        waits = " → ".join(f"{c} ({STAGES[s].name})" for c, s in zip(op.init, op.waits_for,
                                                                     strict=False))
        rows.append((op.daemonset, ", ".join(f"{k}={v}" for k, v in op.node_selector.items()),
                     waits or "-", "nvidia" if op.runtime_class else "-"))
    return Table("Operand DaemonSets in state order (facts.md §5.1, §5.4)",
                 ("DaemonSet", "nodeSelector", "init containers (waits for)", "runtimeClass"),
                 tuple(rows))


def topic_tables(topic: Topic) -> list[Table]:
    tables = list(topic.tables)
    if topic.name == "components":
        tables.append(operands_table())
    return tables


def code_page(code: str) -> dict[str, Any]:
    info = CATALOG[code]
    causes = [c for c in CAUSES if c.code == code]
    sigs = [s.id for s in SIGNATURES if any(CAUSES_BY_ID[c].code == code for c, _w in s.votes)]
    return {"code": info.code, "name": info.name, "severity": info.severity.label,
            "layer": Layer.of_code(code).value, "seed": info.seed, "meaning": info.summary,
            "message": info.message, "remedy": info.remedy,
            "evidence": [{"cause": c.id, "title": c.title, "collect": c.collect} for c in causes],
            "signatures": sigs}


CAUSES_BY_ID = {c.id: c for c in CAUSES}


def _print_table(con: Console, t: Table) -> None:
    """Prose cells wrap (unlike the fixed-width report tables); text is never markup."""
    table = RichTable(title=t.title, title_justify="left", show_lines=True, expand=False)
    for col in t.columns:
        table.add_column(col, overflow="fold")
    for row in t.rows:
        table.add_row(*[Text(c) for c in row])
    con.print(table)
    con.print()


def _print_code(con: Console, page: dict[str, Any]) -> None:
    con.print(Text(f"{page['code']} {page['name']}", style="bold underline"))
    for key in ("severity", "layer", "seed", "meaning", "remedy"):
        t = Text(f"{key:9} ", style="bold")
        t.append(str(page[key]))
        con.print(t)
    if page["evidence"]:
        con.print(Text("evidence / what to collect", style="bold"))
        for e in page["evidence"]:
            t = Text(f"  · {e['title']}: ")
            t.append(e["collect"], style="dim")
            con.print(t)
    if page["signatures"]:
        con.print(Text("signatures: " + ", ".join(page["signatures"]), style="dim"))


@click.command("explain")
@click.argument("topic", metavar="TOPIC")
@output_option()
def command(topic: str, output: str) -> int:
    """Explain the stack: components, gates, insufficient, timeslicing, mig, dropin,
    misconceptions, a code (GX501), or 'list'."""
    con = out_console()
    key = topic.strip()
    if _CODE.match(key):
        code = key.upper()
        if code not in CATALOG:
            raise UsageError(f"unknown code {code}; try 'gpuxray explain list'")
        page = code_page(code)
        if output == "json":
            click.echo(json.dumps({"schema": SCHEMA, "findings": [], "topic": code,
                                   "page": page}, indent=2, ensure_ascii=False))
        else:
            _print_code(con, page)
        return 0
    if key.lower() == "list":
        topics = {t.name: t.title for t in TOPICS.values()}
        codes = {c: i.name for c, i in CATALOG.items()}
        if output == "json":
            click.echo(json.dumps({"schema": SCHEMA, "findings": [], "topics": topics,
                                   "codes": codes}, indent=2))
        else:
            print_table(con, "Topics", ("topic", "about"), sorted(topics.items()))
            con.print()
            print_table(con, "Codes", ("code", "name"), sorted(codes.items()))
        return 0
    t = TOPICS.get(key.lower())
    if t is None:
        raise UsageError(f"unknown topic {topic!r}; topics: {', '.join(TOPICS)}, GXnnn, list")
    tables = topic_tables(t)
    if output == "json":
        click.echo(json.dumps({
            "schema": SCHEMA, "findings": [], "topic": t.name, "title": t.title,
            "seed": t.seed, "codes": list(t.codes),
            "tables": [{"title": x.title, "columns": list(x.columns),
                        "rows": [list(r) for r in x.rows]} for x in tables]},
            indent=2, ensure_ascii=False))
        return 0
    con.print(Text(f"{t.title} (seed {t.seed})", style="bold underline"))
    for x in tables:
        _print_table(con, x)
    if t.codes:
        con.print(Text("Related codes: " + ", ".join(
            f"{c} {CATALOG[c].name}" for c in t.codes if c in CATALOG), style="dim"))
    return 0
