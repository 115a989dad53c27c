"""``gpuxray check``: every registered check over the snapshot, findings grouped by layer."""

from __future__ import annotations

from typing import Any

import click

from gpuxray.checks.engine import exit_code, run_all
from gpuxray.cli.common import (
    echo_bytes,
    fail_on_option,
    open_snapshot,
    out_console,
    output_option,
    severity,
    source_from_kwargs,
    source_options,
)
from gpuxray.cli.usage_opts import usage_from_kwargs, usage_options, with_usage
from gpuxray.diagnose.incidents import snapshot_incidents
from gpuxray.model.finding import Finding
from gpuxray.model.snapshot import Snapshot
from gpuxray.render import json as render_json

#: decode a large bundle's healthy pods lean (``sources/leanpods.py``); a test turns it off to
#: prove the reports equal
LEAN_PODS = True


def emit_findings(findings: list[Finding], output: str, snap: Snapshot,
                  extra: dict[str, Any] | None = None, title: str = "",
                  expand: bool = False) -> None:
    incidents = snapshot_incidents(snap, findings)
    if output == "json":
        doc_extra = {"source": snap.origin, **(extra or {})}
        echo_bytes(render_json.render_bytes(findings, doc_extra, incidents))
        return
    # the document and text renderers (and what they import) only for their outputs
    from gpuxray.cli import reports
    from gpuxray.render import text as render_text

    if output in reports.DOCUMENT_OUTPUTS:
        reports.emit_findings(findings, output, snap, title or f"gpuxray check — {snap.origin}",
                              incidents=incidents)
        return
    render_text.print_findings(out_console(), findings, title=title, incidents=incidents,
                               expand=expand)


@click.command("check")
@source_options
@output_option(("text", "json", "markdown", "html"))
@fail_on_option
@click.option("--code", "codes", multiple=True, help="Only these codes or prefixes (GX5, GX501).")
@click.option("--namespace", "-n", default=None,
              help="Only namespaced findings of this namespace (node and cluster findings stay).")
@click.option("--all-namespaces", "-A", is_flag=True, default=False,
              help="Findings of every namespace (the default; overrides -n).")
@usage_options
@click.option("--expand", is_flag=True, default=False,
              help="Text: print identical findings on many subjects one by one, not folded.")
def command(output: str, fail_on: str, codes: tuple[str, ...], namespace: str | None,
            all_namespaces: bool, expand: bool, **kw: Any) -> int:
    """Run every check and report findings by layer and subject."""
    url, window, policy = usage_from_kwargs(kw)
    opts = source_from_kwargs(kw)
    with open_snapshot(opts, lean_pods=LEAN_PODS) as snap0:
        # GX601 judges idleness over the Prometheus window when one is given, as capacity does
        snap = with_usage(snap0, url, window, policy)
        findings = run_all(snap, codes or None)
        if namespace and not all_namespaces:
            findings = [f for f in findings if f.subject.namespace in (None, namespace)]
        emit_findings(findings, output, snap, title=f"gpuxray check — {snap.origin}",
                      expand=expand)
    return exit_code(findings, severity(fail_on))
