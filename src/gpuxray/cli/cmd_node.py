"""``gpuxray node``: this host's node-layer findings (containerd unit and restarts, Xid,
nouveau, Secure Boot, kernel auto-upgrades, Fabric Manager, and the containerd config
checks), from its own files and commands; ``--save`` writes them as a bundle node."""

from __future__ import annotations

from typing import Any

import click

from gpuxray.checks.engine import exit_code, sort_findings
from gpuxray.checks.registry import CheckSpec, all_checks, run_check
from gpuxray.cli.common import fail_on_option, out_console, output_option, severity
from gpuxray.model.finding import Finding, Layer
from gpuxray.model.snapshot import Input, Snapshot
from gpuxray.render import json as render_json
from gpuxray.render import text as render_text
from gpuxray.sources.host import collect_host, host_snapshot, save_host

# Node-side codes outside the 5xx layer: Fabric Manager lives on the host; the runtime
# handler check has a node side (the effective containerd config).
EXTRA_CODES = frozenset({"GX405", "GX301"})


def node_checks(snap: Snapshot) -> list[CheckSpec]:
    """Node-layer checks whose inputs this host-only snapshot can satisfy."""
    return [s for s in all_checks().values()
            if (s.layer is Layer.NODE or s.code in EXTRA_CODES)
            and all(snap.has(i) for i in s.needs)
            and (Input.HOSTS in s.needs or s.code in EXTRA_CODES)]


def run_node_checks(snap: Snapshot) -> list[Finding]:
    out: list[Finding] = []
    for spec in node_checks(snap):
        out.extend(run_check(spec, snap))
    return sort_findings(out)


@click.command("node")
@click.option("--root", type=click.Path(file_okay=False), default=None,
              help="Read the host tree under DIR instead of / ; command outputs come from "
                   "DIR/.gpuxray-cmd/<name> and nothing is executed.")
@click.option("--name", "node", default=None,
              help="Node name (default: DIR/etc/hostname with --root, else the hostname).")
@click.option("--save", type=click.Path(file_okay=False), default=None,
              help="Also write the collected files as DIR/nodes/<node>/ (a bundle; other "
                   "nodes in DIR are kept).")
@click.option("--agent", is_flag=True, default=False,
              help="Node agent mode (with --root on the host's read-only mounts): run the "
                   "journal/dmesg/uname/lsmod/stat commands in this container.")
@click.option("--timeout", type=float, default=15.0, show_default=True,
              help="Seconds each host command may run.")
@output_option(("text", "json", "bundle-json"))
@fail_on_option
def command(root: str | None, node: str | None, save: str | None, timeout: float,
            output: str, fail_on: str, agent: bool = False, **_: Any) -> int:
    """Check this host: containerd restart policy and restarts, Xid errors, nouveau, Secure
    Boot, kernel auto-upgrades, Fabric Manager, containerd config.

    ``-o bundle-json`` prints the collected files and command outputs as one JSON line (what
    ``collect --node-agent`` reads from the agent pods' logs) and exits 0."""
    if agent:
        from gpuxray.sources.agent_host import agent_collect

        col = agent_collect(root, node, timeout=timeout)
    else:
        col = collect_host(root, node, timeout=timeout)
    if output == "bundle-json":  # the node agent's output: the raw facts, no analysis
        from gpuxray.sources.nodefacts_wire import encode

        click.echo(encode(col.facts, col.notes).decode(), nl=False)
        if save:
            save_host(col.facts, save)
        return 0
    if save:
        save_host(col.facts, save)
    snap = host_snapshot(col)
    findings = run_node_checks(snap)
    if output == "json":
        extra = {"source": snap.origin, "node": col.facts.node, "notes": col.notes,
                 "checks": [s.code for s in node_checks(snap)],
                 "saved": save}
        click.echo(render_json.render(findings, extra), nl=False)
    else:
        render_text.print_findings(out_console(), findings,
                                   title=f"gpuxray node — {col.facts.node} ({snap.origin})")
        for note in col.notes:
            click.echo(f"note: {note}", err=True)
    return exit_code(findings, severity(fail_on))
