"""``gpuxray triage FILE|DIR|-``: rank likely causes in pasted describe/events/logs/dmesg text."""

from __future__ import annotations

import click
from rich.text import Text

from gpuxray.cli.common import out_console, output_option
from gpuxray.diagnose.triage import triage
from gpuxray.render import json as render_json
from gpuxray.render.text import print_table
from gpuxray.sources.pasted import read_pasted

SHOW_CAUSES = 8
SHOW_LINES = 3


@click.command("triage")
@click.argument("source", metavar="FILE|DIR|-")
@output_option()
def command(source: str, output: str) -> int:
    """Rank known causes for pasted text: kubectl describe/events, operand logs, dmesg,
    journalctl, nvidia-smi. A directory is read file by file (size-limited); '-' reads stdin."""
    pasted = read_pasted(source)
    result = triage(((t.name, t.text) for t in pasted.inputs), pasted.skipped)
    if output == "json":
        click.echo(render_json.render(result.findings, result.extra()), nl=False)
        return 0
    con = out_console()
    con.print(Text(f"gpuxray triage — {', '.join(result.inputs[:3])}"
                   + (" …" if len(result.inputs) > 3 else ""), style="bold underline"))
    if not result.causes:
        con.print(Text(f"No known signature in {result.lines_scanned} line(s). Paste the pod's "
                       "`kubectl describe`, its events, the operand logs on its node, or "
                       "`dmesg -T | grep -iE 'NVRM|Xid'`.", style="yellow"))
        return 0
    rows = [(str(i), c.cause.code, c.cause.title, f"{c.score:.2f}",
             "yes" if c.deciding else "")
            for i, c in enumerate(result.causes[:SHOW_CAUSES], 1)]
    print_table(con, "Likely causes", ("#", "code", "cause", "score", "deciding"), rows,
                right=("#", "score"))
    for c in result.causes[:3]:
        con.print(Text(f"{c.cause.code} {c.cause.id}: matched", style="bold"))
        for line in c.matched[:SHOW_LINES]:
            t = Text("  · ", style="dim")
            t.append(line[:240])
            con.print(t)
    if result.decided:
        con.print(Text(f"Decided: {result.causes[0].cause.title} "
                       f"(a line only this cause prints). Confirm: "
                       f"{result.causes[0].cause.collect}", style="green"))
    else:
        con.print(Text("Not decided: no line separates the top causes.", style="yellow"))
        con.print(Text("Collect next: " + result.collect_next))
    if result.skipped:
        con.print(Text(f"Skipped {len(result.skipped)} input(s) "
                       f"(e.g. {result.skipped[0][0]}: {result.skipped[0][1]})", style="dim"))
    return 0
