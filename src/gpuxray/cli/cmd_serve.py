"""``gpuxray serve BUNDLE``: a read-only Kubernetes API over a bundle, for kubectl/k9s."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

from gpuxray.cli.common import err_console
from gpuxray.errors import UsageError

LOOPBACK = ("127.0.0.1", "::1", "localhost")


@click.command("serve")
@click.argument("bundle", type=click.Path())
@click.option("--port", type=click.IntRange(0, 65535), default=8001, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--address", default="127.0.0.1", show_default=True,
              help="Address to listen on. Loopback by default: a bundle is a cluster inventory.")
@click.option("--write-kubeconfig", type=click.Path(), default=None,
              help="Write a kubeconfig pointing at this server to this file.")
@click.option("--request-log", type=click.Path(), default=None,
              help="Append every request (method, path, status) to this file as JSON lines.")
@click.option("--fault", "faults", multiple=True, metavar="SPEC",
              help="Testing aid: inject faults, e.g. 429:every=3,retry-after=1 | "
                   "500:path=/api/v1/nodes,continue | drop:every=4 | 410 | slow:delay=2. "
                   "Repeatable; see docs/live.md.")
def command(bundle: str, port: int, address: str, write_kubeconfig: str | None,
            request_log: str | None, faults: tuple[str, ...]) -> int:
    """Serve BUNDLE (directory or .tar.gz) as a read-only Kubernetes API.

    kubectl get/describe/logs work against it; every write verb answers 405.
    """
    from gpuxray.serve.faults import FaultPlan, FaultSpecError
    from gpuxray.serve.server import BundleServer, kubeconfig_text
    from gpuxray.serve.store import load_store

    try:
        plan = FaultPlan.parse(faults)
    except FaultSpecError as exc:
        raise UsageError(str(exc)) from exc
    store = load_store(bundle)
    con = err_console()
    try:
        try:
            server = BundleServer(store, address, port, plan, request_log)
        except OSError as exc:
            raise UsageError(f"cannot listen on {address}:{port}: {exc.strerror or exc}") from exc
        with server:
            if write_kubeconfig:
                dest = Path(write_kubeconfig)  # atomically: a waiting client never reads half
                tmp = dest.with_name(f".{dest.name}.tmp")
                tmp.write_text(kubeconfig_text(server.url))
                tmp.replace(dest)
            if address not in LOOPBACK:
                con.print(f"gpuxray: warning: serving on {address}, not loopback",
                          markup=False, highlight=False)
            con.print(f"gpuxray: serving {bundle} read-only at {server.url}", markup=False,
                      highlight=False)
            if faults:
                con.print(f"gpuxray: injecting faults: {', '.join(faults)}", markup=False,
                          highlight=False)
            with contextlib.suppress(KeyboardInterrupt):
                server.serve_forever()
    finally:
        store.close()
    return 0
