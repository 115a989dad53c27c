"""``gpuxray``: the command group, error-to-exit-code mapping, and the kubectl plugin entry.

Exit codes (CODES.md): 0 nothing at or above ``--fail-on``; 1 findings at or above it; 2 usage or
input error (one line on stderr, no traceback); 3 analysis incomplete (only unknowns reach the
threshold); 4 internal error (a bug: one line, set GPUXRAY_DEBUG=1 for the traceback);
130 interrupted.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from gpuxray import __version__
from gpuxray.errors import GpuxrayError

# One module per command, each exporting ``command`` (a click.Command).
COMMAND_MODULES = [
    "check",
    "why",
    "capacity",
    "collect",
    "serve",
    "demo",
    "node",
    "containerd",
    "triage",
    "explain",
    "mig",
    "exporter",
    "completion",
]

EXIT_INTERNAL = 4


class _Group(click.Group):
    """Commands load on first use: ``gpuxray capacity`` never imports the live client, the HTTP
    server or the MIG planner, which keeps start-up small next to the work (bench/)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMAND_MODULES))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        cmd = super().get_command(ctx, cmd_name)
        if cmd is None and cmd_name in COMMAND_MODULES:
            mod = importlib.import_module(f"gpuxray.cli.cmd_{cmd_name}")
            cmd = mod.command
            assert isinstance(cmd, click.Command) and cmd.name == cmd_name, cmd_name
            self.add_command(cmd)
        return cmd


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"],
                                           "max_content_width": 100})
@click.version_option(__version__, prog_name="gpuxray")
def cli() -> None:
    """Read-only diagnostics for the NVIDIA GPU Operator stack on Kubernetes.

    Works on a live cluster (kubeconfig) or, identically, on an offline bundle (--bundle).
    """






def run(args: list[str] | None = None, prog_name: str = "gpuxray") -> int:
    """Run the CLI; return the exit code instead of raising (used by tests and ``main``)."""
    try:
        rv: Any = cli.main(args=args, prog_name=prog_name, standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("gpuxray: interrupted", err=True)
        return 130
    except click.ClickException as exc:
        first = exc.format_message().splitlines()[0] if exc.format_message() else str(exc)
        click.echo(f"gpuxray: error: {first}", err=True)
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            click.echo(f"Try '{exc.ctx.command_path} --help' for help.", err=True)
        return 2
    except GpuxrayError as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        click.echo(f"gpuxray: error: {msg}", err=True)
        return exc.exit_code
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except KeyboardInterrupt:
        click.echo("gpuxray: interrupted", err=True)
        return 130
    except Exception as exc:  # a bug: say so in one line; traceback only on request
        if os.environ.get("GPUXRAY_DEBUG"):
            raise
        click.echo(f"gpuxray: internal error: {type(exc).__name__}: {exc}".splitlines()[0],
                   err=True)
        return EXIT_INTERNAL
    return int(rv or 0)


def _silence_stdout() -> None:
    """After EPIPE (``gpuxray check | head``) point stdout at devnull so exit does not crash."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _finish(code: int) -> None:
    """Flush and leave without tearing down the heap: freeing a fleet's million objects one by
    one at interpreter exit takes seconds and nothing needs it (temporary files are already
    gone: every source cleans up in its context manager)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            _silence_stdout()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _process_entry() -> None:
    """This process ends in :func:`_finish`: nothing needs freeing before it."""
    from gpuxray.cli import common

    common.KEEP_SNAPSHOTS = []


def main() -> None:
    _process_entry()
    _finish(run(sys.argv[1:]))


def kubectl_plugin_main() -> None:
    """``kubectl gpu-xray …``: the same CLI under kubectl's plugin name."""
    _process_entry()
    _finish(run(sys.argv[1:], prog_name="kubectl gpu-xray"))
