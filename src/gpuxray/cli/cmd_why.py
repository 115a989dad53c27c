"""``gpuxray why NS/POD``: the §4 decision tree for one pod (or its controller)."""

from __future__ import annotations

from typing import Any

import click

from gpuxray.checks.engine import exit_code
from gpuxray.cli.common import (
    fail_on_option,
    open_snapshot,
    out_console,
    output_option,
    severity,
    source_from_kwargs,
    source_options,
)
from gpuxray.diagnose.why import core_enough, focus_pod, log_nodes, why
from gpuxray.model.snapshot import Input
from gpuxray.render import json as render_json

#: a bundle's other pods are decoded as PodCore where the answer reads no more of them
#: (``diagnose/why.py`` ``core_enough``). Tests turn it off to prove the output is the same.
CORE_PODS = True

#: what a pod's answer can read: every kind but the controllers only ``why_workload`` reads
#: (Deployments stay: the operator's own is read by the stack walk). A fleet's ReplicaSets and
#: Jobs are ~11 MB of a bundle's JSON; held by the same test as CORE_PODS.
POD_KINDS = frozenset(Input) - {Input.REPLICASETS, Input.JOBS, Input.STATEFULSETS}
#: what an answer from PodCore pods (``core_enough``) can read: no Deployment either (only the
#: node checks after a GX202/GX203 verdict read the operator's, and those answers read the
#: bundle again); a fleet's Deployments are ~8 MB of JSON. Held by the same test.
CORE_KINDS = POD_KINDS - {Input.DEPLOYMENTS}


@click.command("why")
@click.argument("target")
@click.option("--namespace", "-n", default=None, help="Namespace when TARGET is a bare name.")
@source_options
@output_option(("text", "json", "markdown", "html"))
@fail_on_option
def command(target: str, namespace: str | None, output: str, fail_on: str, **kw: Any) -> int:
    """Why does this pod get no GPU? TARGET is NS/POD, POD with -n, or deploy|job|sts/NAME."""
    opts = source_from_kwargs(kw)
    focus = focus_pod(target, namespace)
    with open_snapshot(opts, log_nodes=lambda s: log_nodes(s, target, namespace),
                       kinds=POD_KINDS if CORE_PODS and focus is not None else None,
                       focus=focus if CORE_PODS else None,
                       core_enough=lambda s: core_enough(s, target, namespace),
                       core_kinds=CORE_KINDS if CORE_PODS else None) as snap:
        d = why(snap, target, namespace)
        findings = [d.verdict] if d.verdict else []
        if output == "json":
            click.echo(render_json.render(findings, {"source": snap.origin, **d.as_json()}),
                       nl=False)
            return exit_code(findings, severity(fail_on))
        # the document and text renderers (and rich) only for their outputs: ~20 ms of a
        # JSON answer's start
        from gpuxray.cli import reports
        from gpuxray.render import text as render_text

        if output in reports.DOCUMENT_OUTPUTS:
            reports.emit_diagnosis(d, output, snap)
        else:
            render_text.print_diagnosis(out_console(), d)
    return exit_code(findings, severity(fail_on))
