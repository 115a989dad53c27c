"""``gpuxray demo``: diagnose the example cluster shipped in the package (no cluster needed)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import click
from rich.rule import Rule

from gpuxray.checks.engine import run_all
from gpuxray.cli.common import out_console
from gpuxray.diagnose.incidents import snapshot_incidents
from gpuxray.diagnose.why import why
from gpuxray.render import json as render_json
from gpuxray.render import text as render_text
from gpuxray.scenarios.demo import build_demo
from gpuxray.sources.bundle import open_bundle

DEMO_POD = "ml/train-llm-0"


@click.command("demo")
@click.option("--save", "save", type=click.Path(file_okay=False), default=None,
              help="Also write the example bundle to this directory.")
@click.option("--output", "-o", type=click.Choice(["text", "json"]), default="text")
def command(save: str | None, output: str, **_: Any) -> int:
    """Run `check` and `why` on a bundle of seed §5's incident shipped inside gpuxray."""
    with tempfile.TemporaryDirectory(prefix="gpuxray-demo-") as tmp:
        root = Path(save) if save else Path(tmp)
        if save and root.exists() and any(root.iterdir()):
            raise click.UsageError(f"{root} is not empty")
        build_demo().write(root)
        with open_bundle(root) as snap:
            findings = run_all(snap)
            incidents = snapshot_incidents(snap, findings)
            d = why(snap, DEMO_POD)
            if output == "json":
                click.echo(render_json.render(findings, {"source": "demo", "why": d.as_json()},
                                              incidents), nl=False)
                return 0
            con = out_console()
            con.print(Rule(f"gpuxray why {DEMO_POD}   (example bundle: seed §5 incident)"))
            render_text.print_diagnosis(con, d)
            con.print()
            con.print(Rule("gpuxray check"))
            render_text.print_findings(con, findings, incidents=incidents, expand=False)
            if save:
                con.print(f"\nBundle saved to {root}; try: gpuxray check --bundle {root}")
    return 0
