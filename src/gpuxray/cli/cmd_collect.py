"""``gpuxray collect``: write a bundle (BUNDLE.md) from the live cluster, with read-only verbs."""

from __future__ import annotations

import click

from gpuxray.cli.common import err_console
from gpuxray.sources.live import LOG_TAIL_LINES


@click.command("collect")
@click.option("--output", "-o", "output", required=True, type=click.Path(),
              help="Bundle to write: a new directory, or FILE.tar.gz (written atomically).")
@click.option("--kubeconfig", default=None, help="Path to the kubeconfig.")
@click.option("--context", default=None, help="kubeconfig context.")
@click.option("--quiet", "-q", is_flag=True, default=False, help="No progress on stderr.")
@click.option("--log-tail", type=click.IntRange(min=1), default=LOG_TAIL_LINES,
              show_default=True, help="Lines of each operand container log to keep.")
def command(output: str, kubeconfig: str | None, context: str | None, quiet: bool,
            log_tail: int) -> int:
    """Collect the GPU stack's objects and operand logs into a bundle (GET/LIST only).

    Secrets are never read; credential-looking env values and arguments are redacted. Inputs
    that could not be read are listed in manifest.json "errors" and analysed as unknown.
    """
    from gpuxray.sources.collect import collect

    result = collect(output, kubeconfig, context, quiet=quiet, log_tail=log_tail)
    if not quiet:
        g = result.gathered
        con = err_console()
        con.print(f"gpuxray: wrote {result.path} ({g.requests} requests, "
                  f"{len(g.errors)} gap(s))", markup=False, highlight=False)
        for what, err in g.errors:
            con.print(f"  not collected: {what}: {err}", markup=False, highlight=False)
    return 0
