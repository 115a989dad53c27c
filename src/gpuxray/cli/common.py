"""Options shared by the analysing commands, and source selection (bundle or live cluster)."""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import click

from gpuxray.errors import UsageError
from gpuxray.model.finding import Severity
from gpuxray.model.snapshot import Input, Snapshot

if TYPE_CHECKING:
    from rich.console import Console

F = TypeVar("F", bound=Callable[..., Any])

OUTPUTS = ("text", "json", "markdown", "html")


@dataclass(frozen=True)
class SourceOpts:
    bundle: str | None
    kubeconfig: str | None
    context: str | None
    keep_going: bool
    quiet: bool = False


def source_options(fn: F) -> F:
    """``--bundle`` for an offline bundle, else the live cluster (kubectl-style flags)."""
    opts = [
        click.option("--bundle", "-b", "bundle", type=click.Path(), default=None,
                     help="Analyse this bundle (directory or .tar.gz) instead of a live cluster."),
        click.option("--kubeconfig", default=None, help="Path to the kubeconfig (live mode)."),
        click.option("--context", default=None, help="kubeconfig context (live mode)."),
        click.option("--keep-going", is_flag=True, default=False,
                     help="Treat malformed bundle files as not collected (unknown) instead of "
                          "failing with exit 2."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def output_option(choices: tuple[str, ...] = ("text", "json")) -> Callable[[F], F]:
    return click.option("--output", "-o", "output", type=click.Choice(choices), default="text",
                        show_default=True, help="Output format.")


def fail_on_option(fn: F) -> F:
    return click.option("--fail-on", type=click.Choice(["error", "warning", "info"]),
                        default="error", show_default=True,
                        help="Exit 1 when a finding at or above this severity fails "
                             "(3 when only unknowns reach it).")(fn)


def severity(name: str) -> Severity:
    return Severity.parse(name)


def source_from_kwargs(kw: dict[str, Any]) -> SourceOpts:
    return SourceOpts(kw.pop("bundle", None), kw.pop("kubeconfig", None), kw.pop("context", None),
                      bool(kw.pop("keep_going", False)), bool(kw.pop("quiet", False)))


@contextlib.contextmanager
def open_snapshot(opts: SourceOpts, *, core_pods: bool = False,
                  kinds: Collection[Input] | None = None,
                  log_nodes: Callable[[Snapshot], Collection[str] | None] | None = None,
                  focus: tuple[str, str] | None = None,
                  core_enough: Callable[[Snapshot], bool] | None = None,
                  core_kinds: Collection[Input] | None = None,
                  lean_pods: bool = False,
                  ) -> Iterator[Snapshot]:
    """The one place that turns command-line source options into a Snapshot.

    While a command works on the snapshot the cyclic GC is off, and the snapshot's objects
    are frozen out of its reach (``gc.freeze``) for when it resumes. The objects live until the
    command ends and form no cycles; the analysis allocates millions of short-lived objects
    (free at refcount zero) and builds tables that live to the end, and every collection
    re-walks those tables: measured ~0.2 s of collections per command on 100k pods, for
    nothing to collect.

    ``core_pods`` (``capacity`` only) decodes a bundle's pods as PodCore; a live source always
    reads whole pods (the API returns them whole anyway). ``lean_pods`` (``check``): a large
    bundle's pods as PodLean but for those a check may read whole (``sources/leanpods.py``).

    ``kinds`` and ``log_nodes`` narrow what a source reads (``sources/live.py``
    ``snapshot_from``): a command lists only the kinds its output can depend on, and reads
    operand logs only on the nodes it will look at. A bundle decodes only the cluster files of
    ``kinds`` and reads the logs ``log_nodes`` names (``sources/bundle.py``).

    ``focus`` (namespace, pod) and ``core_enough`` (``why``): a bundle's pods are first decoded
    as PodCore but for the focused pod, which is decoded whole; where ``core_enough`` says the
    command's answer reads no more of the others, that snapshot is the one used (without
    logs), else the bundle is read again with whole pods. That first read decodes only the
    events of pods of the focused pod's name, and only ``core_kinds`` (else ``kinds``): an
    answer taken from it reads no other pod's events, and no kind it leaves out.
    """
    if opts.bundle:
        from gpuxray.sources.bundle import open_bundle

        if focus is not None and core_enough is not None:
            with open_bundle(opts.bundle, lenient=opts.keep_going, core_pods=True,
                             whole_pods=(focus,), log_nodes=lambda _s: (),
                             kinds=kinds if core_kinds is None else core_kinds,
                             pod_events=(focus[1],)) as snap:
                enough = core_enough(snap)
                if enough:
                    with _gc_paused():
                        yield _kept(snap)
            del snap
            if enough:
                return
        with open_bundle(opts.bundle, lenient=opts.keep_going, core_pods=core_pods,
                         log_nodes=log_nodes, lean_pods=lean_pods,
                         kinds=kinds) as snap, _gc_paused():
            yield _kept(snap)
        return
    try:
        from gpuxray.sources import live
    except ImportError as exc:  # pragma: no cover - live source ships with the package
        raise UsageError("no --bundle given and the live source is unavailable") from exc
    snap = live.live_snapshot(kubeconfig=opts.kubeconfig, context=opts.context, quiet=opts.quiet,
                              kinds=kinds, log_nodes=log_nodes)
    with _gc_paused():
        yield _kept(snap)


#: Set by the process entry points, which leave through ``os._exit``: snapshots are then kept
#: to the end instead of freed object by object when a command's ``with`` block closes (a
#: 100k-pod snapshot took ~0.15 s to free, for a process about to exit). Tests run commands
#: in-process and leave it off, so their snapshots are freed.
KEEP_SNAPSHOTS: list[Snapshot] | None = None


def _kept(snap: Snapshot) -> Snapshot:
    if KEEP_SNAPSHOTS is not None:
        KEEP_SNAPSHOTS.append(snap)
    return snap


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    gc.freeze()
    try:
        yield
    finally:
        if KEEP_SNAPSHOTS is not None:
            # the process ends next (``os._exit``): what the command built stays frozen too.
            # Unfrozen, the first allocation after ``enable`` ran a collection over every
            # table and finding made since the freeze — ~0.14 s on 100k pods, for nothing.
            gc.freeze()
        else:
            gc.unfreeze()
        if was_enabled:
            gc.enable()


def out_console(width: int | None = None) -> Console:
    # rich is imported for text output only: a JSON report never loads it (~30 ms of a start)
    from gpuxray.console import make_console

    return make_console(sys.stdout, width=width)


def err_console() -> Console:
    from gpuxray.console import make_console

    return make_console(sys.stderr)


def echo_bytes(data: bytes) -> None:
    """Write an encoded document to stdout as it is, through its binary buffer; a text stream
    without one (a caller's ``redirect_stdout(io.StringIO())``) gets it decoded."""
    if getattr(sys.stdout, "buffer", None) is not None:
        click.echo(data, nl=False)
    else:
        click.echo(data.decode(), nl=False)
