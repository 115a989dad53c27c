"""``gpuxray completion bash|zsh|fish``: print the shell completion script.

click generates the script; it calls back into ``gpuxray`` with ``_GPUXRAY_COMPLETE`` set, so
completions always match the installed commands and options. Install, e.g.:
``gpuxray completion bash > ~/.local/share/bash-completion/completions/gpuxray``.
"""

from __future__ import annotations

from typing import Any

import click
from click.shell_completion import get_completion_class

SHELLS = ("bash", "zsh", "fish")
PROG = "gpuxray"
COMPLETE_VAR = "_GPUXRAY_COMPLETE"


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS))
def command(shell: str, **_: Any) -> int:
    """Print the completion script for SHELL (bash, zsh or fish)."""
    from gpuxray.cli.main import cli

    cls = get_completion_class(shell)
    if cls is None:  # pragma: no cover - click ships all three
        raise click.UsageError(f"no completion for {shell}")
    comp = cls(cli, {}, PROG, COMPLETE_VAR)
    click.echo(comp.source())
    return 0
