"""``gpuxray collect``: write a BUNDLE.md bundle from the live API, read-only.

Each ``cluster/<resource>.json`` is the v1 List ``kubectl get <resource> -A -o json`` would print:
the pages of a LIST are streamed into one List as they arrive (items are re-encoded only when they
hold something to redact), so memory stays at one page whatever the cluster's size. A list that
fails part-way leaves no file and a manifest ``errors`` entry, so the reader reports its input as
not collected instead of trusting a partial list. A ``.tar.gz`` appears atomically (temp + rename).
Secrets are never listed; credentials in what is listed are redacted (:mod:`.redact`).
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import shutil
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import msgspec

from gpuxray import __version__
from gpuxray.errors import UsageError
from gpuxray.model.snapshot import Input
from gpuxray.sources import live
from gpuxray.sources.apiresources import ApiResource
from gpuxray.sources.live import (
    BUNDLE_FORMAT,
    LOG_TAIL_LINES,
    Client,
    FetchError,
    Gathered,
    KubeTransport,
    Page,
    Progress,
    RetryPolicy,
    Sink,
    Transport,
    decode_page,
    gather,
    kube_transport,
    now_iso,
    struct_type,
)
from gpuxray.sources.redact import finish_item, redact_text


class _RawPage(msgspec.Struct, gc=False):
    items: list[msgspec.Raw] | None = None
    metadata: dict[str, Any] = {}


_RAW_DECODER = msgspec.json.Decoder(_RawPage)


class FileSink:
    """Streams a LIST's pages into ``cluster/<plural>.json`` (via a ``.part`` file)."""

    def __init__(self, root: Path, res: ApiResource,
                 keep: Callable[[Any], bool] | None = None) -> None:
        self.res = res
        self.path = root / res.bundle_file
        self.part = self.path.with_name(self.path.name + ".part")
        self.fh: IO[bytes] | None = None
        self.count = 0
        self.first = True
        self.keep = keep
        self.typed: msgspec.json.Decoder[Any] | None = None
        self.items: list[Any] = []
        if keep is not None:
            self.typed = msgspec.json.Decoder(Page[struct_type(res)])  # type: ignore[misc]

    def reset(self) -> None:
        self.abort()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(self.part, "wb")  # noqa: SIM115 - closed in commit/abort
        self.count = 0
        self.first = True
        self.items = []

    def page(self, body: bytes) -> None:
        assert self.fh is not None
        pg = decode_page(_RAW_DECODER, body, self.res)
        meta = pg.metadata if isinstance(pg.metadata, dict) else {}
        if self.first:
            rv = str(meta.get("resourceVersion", ""))
            self.fh.write(b'{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":'
                          + json.dumps(rv).encode() + b'},"items":[')
        for raw in pg.items or []:
            try:
                item = finish_item(bytes(raw), self.res.kind, self.res.api_version)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise FetchError(0, f"malformed {self.res.plural} item ({exc})") from exc
            self.fh.write(b"\n" if self.first else b",\n")
            self.fh.write(item)
            self.first = False
            self.count += 1
        self.first = False
        if self.typed is not None and self.keep is not None:
            typed = decode_page(self.typed, body, self.res)
            self.items.extend(i for i in (typed.items or []) if self.keep(i))

    def commit(self) -> None:
        assert self.fh is not None
        self.fh.write(b"\n]}\n")
        self.fh.close()
        self.fh = None
        os.replace(self.part, self.path)
        for o in self.items:
            if getattr(o, "kind", None) == "":
                o.kind = self.res.kind

    def abort(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None
        self.part.unlink(missing_ok=True)


class FileLogs:
    """Writes ``logs/<ns>/<pod>/<container>[.previous].log`` (BUNDLE.md)."""

    def __init__(self, root: Path) -> None:
        self.root = root / "logs"
        self.root.mkdir(parents=True, exist_ok=True)

    def put(self, namespace: str, pod: str, container: str, previous: bool, text: bytes) -> None:
        for part in (namespace, pod, container):
            if not part or "/" in part or part in (".", ".."):
                return  # names come from the cluster: never let one escape the bundle
        d = self.root / namespace / pod
        d.mkdir(parents=True, exist_ok=True)
        # logs quote request headers and env dumps: redact before anything reaches the disk
        clean = redact_text(text.decode("utf-8", errors="replace")).encode()
        (d / f"{container}{'.previous' if previous else ''}.log").write_bytes(clean)


@dataclass
class CollectResult:
    path: Path
    gathered: Gathered


# Adds ``nodes/`` to the bundle after the read-only gathering (``--node-agent``); returns the
# manifest errors of the nodes it could not read.
NodeFactsStep = Callable[[Path, Client, Progress], list[tuple[str, str]]]


def collect_into(root: Path, client: Client, progress: Progress, *, context: str,
                 log_tail: int = LOG_TAIL_LINES,
                 node_facts: NodeFactsStep | None = None) -> Gathered:
    """Gather through ``client`` into the bundle directory ``root`` and write its manifest."""
    root.mkdir(parents=True, exist_ok=True)
    collected_at = now_iso()

    def make_sink(res: ApiResource, keep: Callable[[Any], bool] | None) -> Sink:
        return FileSink(root, res, keep)

    logs = FileLogs(root)
    # Pages are decoded and dropped one by one: refcounting frees them, and cyclic collections
    # triggered by their millions of short-lived containers cost ~30% of a large collection.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        g = gather(client, make_sink, logs, progress, log_tail=log_tail)
    finally:
        if was_enabled:
            gc.enable()
    if not g.inputs[Input.LOGS].collected:
        shutil.rmtree(root / "logs", ignore_errors=True)
        g.errors.append(("logs", g.inputs[Input.LOGS].reason))
    if node_facts is not None:
        g.errors.extend(node_facts(root, client, progress))
    if g.version is not None:
        version = msgspec.json.encode({"serverVersion": msgspec.Raw(g.version)})
        (root / "cluster").mkdir(parents=True, exist_ok=True)
        (root / "cluster" / "version.json").write_bytes(version)
    manifest = {
        "format": BUNDLE_FORMAT,
        "collected_at": collected_at,
        "collector": f"gpuxray {__version__}",
        "source": {"kind": "live", "context": context,
                   "server": getattr(client.transport, "host", "")},
        "operator_namespace": g.operator_namespace,
        "errors": [{"what": w, "error": e} for w, e in g.errors],
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return g


def is_archive_name(out: str) -> bool:
    return out.endswith((".tar.gz", ".tgz"))


def write_bundle(out: str, transport: Transport, progress: Progress, *, context: str,
                 log_tail: int = LOG_TAIL_LINES,
                 policy: RetryPolicy | None = None,
                 node_facts: NodeFactsStep | None = None) -> CollectResult:
    """Collect into ``out``: a new directory, or a ``.tar.gz`` written atomically."""
    client = Client(transport, policy or live.DEFAULT_POLICY)
    dest = Path(out)
    if not is_archive_name(out):
        if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
            raise UsageError(f"{out}: exists and is not an empty directory")
        created = not dest.exists()
        try:
            g = collect_into(dest, client, progress, context=context, log_tail=log_tail,
                             node_facts=node_facts)
        except BaseException:
            if created:  # no half-written bundle left behind to be mistaken for a whole one
                shutil.rmtree(dest, ignore_errors=True)
            raise
        return CollectResult(dest, g)
    parent = dest.parent if str(dest.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"{parent}: no such directory")
    top = dest.name[: -len(".tar.gz")] if dest.name.endswith(".tar.gz") else dest.name[:-4]
    with tempfile.TemporaryDirectory(prefix="gpuxray-collect-") as tmp:
        root = Path(tmp) / (top or "bundle")
        g = collect_into(root, client, progress, context=context, log_tail=log_tail,
                         node_facts=node_facts)
        fd, tmp_tar = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=parent)
        try:
            with os.fdopen(fd, "wb") as fh, tarfile.open(fileobj=fh, mode="w:gz") as tar:
                tar.add(root, arcname=root.name)
            os.replace(tmp_tar, dest)
        except BaseException:
            Path(tmp_tar).unlink(missing_ok=True)
            raise
    return CollectResult(dest, g)


def collect(out: str, kubeconfig: str | None, context: str | None, *, quiet: bool,
            log_tail: int = LOG_TAIL_LINES,
            node_facts: Callable[[KubeTransport], NodeFactsStep] | None = None,
            chunk_size: int | None = None) -> CollectResult:
    """``node_facts`` builds the node step from the transport (it needs its credentials);
    ``chunk_size`` is the LIST page size (``limit``), like kubectl's ``--chunk-size``."""
    transport, name = kube_transport(kubeconfig, context)
    policy = live.DEFAULT_POLICY
    if chunk_size:
        policy = dataclasses.replace(policy, page_size=chunk_size)
    progress = Progress(quiet)
    progress.line(f"gpuxray: collecting from {transport.host} (context {name or '-'}), read-only"
                  + (" + node agent" if node_facts else ""))
    return write_bundle(out, transport, progress, context=name, log_tail=log_tail,
                        policy=policy, node_facts=node_facts(transport) if node_facts else None)
