"""``gpuxray collect``: write a bundle (BUNDLE.md) from the live cluster, with read-only verbs
(``--node-agent`` is the one opt-in exception: see :mod:`gpuxray.sources.agent`)."""

from __future__ import annotations

from typing import Any

import click

from gpuxray.cli.agent_opts import agent_options, cleanup_command, node_step
from gpuxray.cli.common import err_console
from gpuxray.errors import UsageError
from gpuxray.sources.live import LOG_TAIL_LINES


@click.command("collect")
@click.option("--output", "-o", "output", default=None, type=click.Path(),
              help="Bundle to write: a new directory, or FILE.tar.gz (written atomically).")
@click.option("--kubeconfig", default=None, help="Path to the kubeconfig.")
@click.option("--context", default=None, help="kubeconfig context.")
@click.option("--quiet", "-q", is_flag=True, default=False, help="No progress on stderr.")
@click.option("--log-tail", type=click.IntRange(min=1), default=LOG_TAIL_LINES,
              show_default=True, help="Lines of each operand container log to keep.")
@click.option("--chunk-size", type=click.IntRange(min=1), default=None,
              help="Objects per LIST page (the API's limit; default 500), like kubectl's.")
@agent_options
def command(output: str | None, kubeconfig: str | None, context: str | None, quiet: bool,
            log_tail: int, chunk_size: int | None, **agent: Any) -> int:
    """Collect the GPU stack's objects and operand logs into a bundle (GET/LIST only, unless
    --node-agent).

    Secrets are never read; credential-looking env values and arguments are redacted. Inputs
    that could not be read are listed in manifest.json "errors" and analysed as unknown.

    --node-agent also gathers node files and journals by running a short-lived DaemonSet in a
    namespace of its own (the only writes gpuxray makes; deleted at the end, see
    docs/node-agent.md); --via-operands reads node files through the operand pods instead.
    """
    from gpuxray.sources.collect import collect

    if agent["node_agent_cleanup"]:
        return cleanup_command(kubeconfig, context, quiet, agent)
    if not output:
        raise UsageError("collect: -o/--output is required")
    step = node_step(agent)
    result = collect(output, kubeconfig, context, quiet=quiet, log_tail=log_tail,
                     node_facts=step, chunk_size=chunk_size)
    if not quiet:
        g = result.gathered
        con = err_console()
        con.print(f"gpuxray: wrote {result.path} ({g.requests} requests, "
                  f"{len(g.errors)} gap(s))", markup=False, highlight=False)
        for what, err in g.errors:
            con.print(f"  not collected: {what}: {err}", markup=False, highlight=False)
    return 0
