"""The bundle source: a directory or archive laid out as BUNDLE.md says, read into a Snapshot.

Absent files are "not collected" (never "empty"), ``manifest.json`` errors mark inputs that the
collector could not read, and every input keeps the path it came from for evidence.
"""

# Annotations stay real objects: msgspec would compile each string annotation of the Structs
# here on first decode (see model/k8s.py).

import contextlib
import gc
import os
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from gpuxray.errors import InputError
from gpuxray.model import dra, k8s
from gpuxray.model.snapshot import (
    NOT_REQUESTED,
    HostFacts,
    Input,
    InputState,
    Manifest,
    PodLog,
    Snapshot,
)
from gpuxray.sources.archive import bundle_root, extract_bundle
from gpuxray.sources.decode import Whole, decode_file, decode_file_where, decode_one
from gpuxray.sources.files import HOST_FILE_LIMIT, printable_name, read_tail, utf8_name
from gpuxray.sources.leanpods import whole_pod_rule
from gpuxray.sources.shrink import Sharer

T = TypeVar("T")
#: given the snapshot without logs, the nodes whose operand logs to read (None: all of them)
LogNodes = Callable[[Snapshot], "Collection[str] | None"]

LOG_TAIL_BYTES = 1 << 20  # operand logs: the last MiB holds the failure
_EXTS = (".json", ".yaml", ".yml")

# Input -> (Snapshot field, element type, decode a list?)
_CLUSTER_INPUTS: dict[Input, tuple[str, Any]] = {
    Input.NODES: ("nodes", k8s.Node),
    Input.PODS: ("pods", k8s.Pod),
    Input.EVENTS: ("events", k8s.Event),
    Input.DAEMONSETS: ("daemonsets", k8s.DaemonSet),
    Input.DEPLOYMENTS: ("deployments", k8s.Workload),
    Input.REPLICASETS: ("replicasets", k8s.Workload),
    Input.JOBS: ("jobs", k8s.Workload),
    Input.STATEFULSETS: ("statefulsets", k8s.Workload),
    Input.RUNTIMECLASSES: ("runtimeclasses", k8s.RuntimeClass),
    Input.RESOURCEQUOTAS: ("resourcequotas", k8s.ResourceQuota),
    Input.CONFIGMAPS: ("configmaps", k8s.ConfigMap),
    Input.CLUSTERPOLICIES: ("clusterpolicies", k8s.CustomResource),
    Input.NVIDIADRIVERS: ("nvidiadrivers", k8s.CustomResource),
    Input.DEVICECLASSES: ("deviceclasses", dra.DeviceClass),
    Input.RESOURCESLICES: ("resourceslices", dra.ResourceSlice),
    Input.RESOURCECLAIMS: ("resourceclaims", dra.ResourceClaim),
    Input.RESOURCECLAIMTEMPLATES: ("resourceclaimtemplates", dra.ResourceClaimTemplate),
    Input.COMPUTEDOMAINS: ("computedomains", dra.ComputeDomain),
}
_WORKLOAD_KIND = {
    Input.DEPLOYMENTS: "Deployment",
    Input.REPLICASETS: "ReplicaSet",
    Input.JOBS: "Job",
    Input.STATEFULSETS: "StatefulSet",
    Input.CLUSTERPOLICIES: "ClusterPolicy",
    Input.NVIDIADRIVERS: "NVIDIADriver",
}


class _ManifestFile(msgspec.Struct):
    format: str = ""
    collected_at: str = ""
    collector: str = ""
    source: dict[str, Any] = {}
    operator_namespace: str = ""
    errors: list[dict[str, Any]] = []


class _InvolvedHead(msgspec.Struct, gc=False):
    kind: str = ""
    name: str = ""


class _EventHead(msgspec.Struct, rename="camel", gc=False):
    """What tells whose an event is, read as :class:`~gpuxray.model.k8s.Event` reads it."""

    involved_object: _InvolvedHead = msgspec.field(default_factory=_InvolvedHead)


def _about_pods(names: frozenset[str]) -> Callable[[Any], bool]:
    """Whether an event (or its head) is about a pod of one of ``names``, in any namespace:
    ``Snapshot.events_for`` then picks the pod's own."""
    def keep(e: Any) -> bool:
        o = e.involved_object
        return bool(o.kind == "Pod" and o.name in names)

    return keep


def is_bundle_dir(path: Path) -> bool:
    return any((path / d).exists() for d in ("cluster", "nodes", "manifest.json"))


@contextlib.contextmanager
def open_bundle(path: str | os.PathLike[str], *, lenient: bool = False,
                core_pods: bool = False, whole_pods: Collection[tuple[str, str]] = (),
                log_nodes: LogNodes | None = None, lean_pods: bool = False,
                kinds: Collection[Input] | None = None,
                pod_events: Collection[str] | None = None) -> Iterator[Snapshot]:
    """Yield the Snapshot of a bundle directory or archive; temporary files go on exit.
    ``core_pods``, ``whole_pods``, ``log_nodes``, ``lean_pods``, ``kinds`` and
    ``pod_events``: see :func:`load_bundle_dir`."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such bundle")
    if p.is_dir():
        yield load_bundle_dir(p, lenient=lenient, core_pods=core_pods, whole_pods=whole_pods,
                              log_nodes=log_nodes, lean_pods=lean_pods, kinds=kinds,
                              pod_events=pod_events)
        return
    tmp = extract_bundle(p)
    try:
        yield load_bundle_dir(bundle_root(Path(tmp.name)), lenient=lenient, origin=str(p),
                              core_pods=core_pods, whole_pods=whole_pods, log_nodes=log_nodes,
                              lean_pods=lean_pods, kinds=kinds, pod_events=pod_events)
    finally:
        tmp.cleanup()


def _find(root: Path, stem: str) -> Path | None:
    for ext in _EXTS:
        f = root / f"{stem}{ext}"
        if f.is_file():
            return f
    return None


def _load_manifest(root: Path) -> Manifest:
    f = root / "manifest.json"
    if not f.is_file():
        return Manifest()
    try:
        m = msgspec.json.decode(f.read_bytes(), type=_ManifestFile)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise InputError(f"manifest.json: malformed ({str(exc).splitlines()[0]})") from exc
    errors = tuple(
        (str(e.get("what", "")), str(e.get("error", ""))) for e in m.errors if isinstance(e, dict)
    )
    return Manifest(
        format=m.format,
        collected_at=m.collected_at,
        collector=m.collector,
        source_kind=str(m.source.get("kind", "")),
        context=str(m.source.get("context", "")),
        operator_namespace=m.operator_namespace,
        errors=errors,
    )


def _manifest_error(manifest: Manifest, stem: str) -> str | None:
    for what, err in manifest.errors:
        w = what.strip("/")
        if w == stem or w.startswith(stem + ".") or w == stem.split("/", 1)[-1]:
            return err or "collection failed"
    return None


def load_bundle_dir(root: Path, *, lenient: bool = False, origin: str = "",
                    core_pods: bool = False, whole_pods: Collection[tuple[str, str]] = (),
                    log_nodes: LogNodes | None = None, lean_pods: bool = False,
                    kinds: Collection[Input] | None = None,
                    pod_events: Collection[str] | None = None) -> Snapshot:
    """Read a bundle directory. The cyclic GC is paused while decoding: a fleet's objects hold
    millions of small dicts, and collections triggered mid-decode cost more than the decode
    itself (measured 3× on 100k pods); the objects form no cycles, refcounting frees them.
    They are frozen before the GC resumes: otherwise the first allocation after the load
    triggers a full collection over every one of them (measured ~0.4 s on 100k pods).

    ``core_pods`` decodes ``cluster/pods`` as :class:`~gpuxray.model.k8s.PodCore` (for
    ``capacity``, which reads nothing else of a pod); the Snapshot says so in ``core_pods``.
    ``whole_pods`` (namespace, name) are decoded whole all the same: ``why`` asks about one pod
    and reads only the core of the others (a small file gives every pod whole). Must-gather and
    ad-hoc dumps always decode full pods.

    ``log_nodes``, as for a live source: the snapshot is built without operand logs, then
    reads the logs of the pods bound to the nodes it names (all where it says None). Reading
    16k log files of a fleet cost ~0.9 s that a ``why`` about a pending pod never looks at.

    ``lean_pods`` (``check``): a large ``pods.json`` is decoded as
    :class:`~gpuxray.model.k8s.PodLean` but for the pods ``sources/leanpods.py`` wants whole
    (in trouble, operands, pending, GPU intent, with logs or warning events…). It is decoded
    after every other input, and after the logs, that tell which; errors are still raised in
    the inputs' order. Not with ``core_pods`` or ``log_nodes``.

    ``kinds``, as for a live source: only these cluster inputs are decoded, the others are
    marked not requested (``capacity`` reads no events, workloads or quotas: a fleet's
    20k events and 10k Deployments/ReplicaSets cost ~0.2 s to decode for nothing). The
    version, host files and metrics are read all the same; a must-gather or dump is read
    whole.

    ``pod_events``: only the events about pods of these names are decoded (``why``'s first
    read, whose answer reads its own pod's events alone: ``cli/common.py``); the input is
    collected all the same."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _load_bundle_dir(root, lenient=lenient, origin=origin, core_pods=core_pods,
                                whole_pods=whole_pods, log_nodes=log_nodes,
                                lean=lean_pods and not core_pods and log_nodes is None,
                                kinds=kinds, pod_events=pod_events)
    finally:
        if was_enabled:
            gc.freeze()
            gc.enable()


def _load_bundle_dir(root: Path, *, lenient: bool = False, origin: str = "",
                     core_pods: bool = False, whole_pods: Collection[tuple[str, str]] = (),
                     log_nodes: LogNodes | None = None, lean: bool = False,
                     kinds: Collection[Input] | None = None,
                     pod_events: Collection[str] | None = None) -> Snapshot:
    if root.is_dir() and not is_bundle_dir(root):
        # BUNDLE.md "Also accepted as input": NVIDIA must-gather, then ad-hoc kubectl dumps.
        from gpuxray.sources import dumps, mustgather

        mg = mustgather.find_mustgather_root(root)
        if mg is not None:
            return mustgather.load_mustgather(mg, lenient=lenient, origin=origin or str(root),
                                              log_nodes=log_nodes)
        other = dumps.load_dump_dir(root, lenient=lenient, origin=origin)
        if other is not None:
            return other
    if not root.is_dir() or not is_bundle_dir(root):
        raise InputError(f"{origin or root}: not a gpuxray bundle "
                         "(no cluster/, nodes/ or manifest.json)")
    manifest = _load_manifest(root)
    inputs: dict[Input, InputState] = {}
    fields: dict[str, Any] = {}

    decoded: dict[Input, list[Any] | InputError] = {}
    found: dict[Input, Path] = {}
    unread: dict[Input, Path] = {}  # present, not asked for (``kinds``)
    logs: dict[tuple[str, str, str], PodLog] | None = None
    # lean pods are told from the other inputs and the logs: decoded last, errors kept for
    # the inputs' order below
    order = [i for i in _CLUSTER_INPUTS if not (lean and i is Input.PODS)]
    for inp in [*order, Input.PODS] if lean else order:
        f = _find(root, inp.value)
        if f is None:
            continue
        if kinds is not None and inp not in kinds:
            unread[inp] = f
            continue
        found[inp] = f
        rel = f.relative_to(root).as_posix()
        typ = _CLUSTER_INPUTS[inp][1]
        whole = None
        each = None
        if core_pods and inp is Input.PODS:
            typ = k8s.PodCore
            whole = _whole_pods(whole_pods)
        elif lean and inp is Input.PODS:
            logs = _load_logs(root)
            typ = k8s.PodLean
            whole = _lean_whole(manifest, decoded, logs)
        elif inp is Input.PODS:
            each = Sharer().pods
        try:
            if inp is Input.EVENTS and pod_events is not None:
                decoded[inp] = decode_file_where(f, typ, rel, _EventHead,
                                                 _about_pods(frozenset(pod_events)))
            else:
                decoded[inp] = decode_file(f, typ, rel, whole, each)
        except InputError as exc:
            if not lenient and not lean:
                raise
            decoded[inp] = exc
    for inp, (attr, _typ) in _CLUSTER_INPUTS.items():
        stem = inp.value
        f = found.get(inp)
        err = _manifest_error(manifest, stem)
        if inp in unread:
            inputs[inp] = InputState(False, unread[inp].relative_to(root).as_posix(),
                                     NOT_REQUESTED)
            continue
        if f is None:
            inputs[inp] = InputState(False, f"{stem}.json", err or "not collected")
            continue
        rel = f.relative_to(root).as_posix()
        objs = decoded[inp]
        if isinstance(objs, InputError):
            if not lenient:
                raise objs
            inputs[inp] = InputState(False, rel, str(objs))
            continue
        kind = _WORKLOAD_KIND.get(inp)
        if kind:
            for o in objs:
                if not o.kind:
                    o.kind = kind
        fields[attr] = objs
        inputs[inp] = InputState(True, rel, f"partial: {err}" if err else "")

    vf = _find(root, Input.VERSION.value)
    if vf is not None:
        rel = vf.relative_to(root).as_posix()
        try:
            fields["version"] = decode_one(vf.read_bytes(), k8s.ClusterVersion, rel)
            inputs[Input.VERSION] = InputState(True, rel)
        except InputError as exc:
            if not lenient:
                raise
            inputs[Input.VERSION] = InputState(False, rel, str(exc))
    else:
        inputs[Input.VERSION] = InputState(False, "cluster/version.json", "not collected")

    if logs is None:
        logs = _load_logs(root) if log_nodes is None else {}
    inputs[Input.LOGS] = InputState(bool(logs) or (root / "logs").is_dir(), "logs/",
                                    "" if (root / "logs").is_dir() else "not collected")
    hosts = _load_hosts(root)
    inputs[Input.HOSTS] = InputState(bool(hosts), "nodes/", "" if hosts else "not collected")
    metrics = _load_metrics(root)
    inputs[Input.METRICS] = InputState(bool(metrics), "metrics/",
                                       "" if metrics else "not collected")

    snap = Snapshot(inputs=inputs, logs=logs, hosts=hosts, metrics=metrics, manifest=manifest,
                    origin=origin or str(root), core_pods=core_pods, **fields)
    if log_nodes is not None:
        nodes = log_nodes(snap)
        if nodes is None or nodes:
            wanted = None if nodes is None else {
                (p.metadata.namespace or "default", p.metadata.name)
                for p in snap.pods if p.spec.node_name in nodes}
            # the snapshot's own dict, filled before anything reads it (log_nodes reads no log)
            snap.logs.update(_load_logs(root, wanted))
            snap.__dict__.pop("logs_by_pod", None)
    return snap


def _lean_whole(manifest: Manifest, decoded: dict[Input, list[Any] | InputError],
                logs: dict[tuple[str, str, str], PodLog]) -> Whole:
    """The pods to decode whole among lean ones (``sources/leanpods.py``): the operator's
    namespace as the Snapshot will tell it, the pods with logs or a non-Normal event."""
    def got(inp: Input) -> list[Any]:
        objs = decoded.get(inp, [])
        return [] if isinstance(objs, InputError) else objs

    ns = Snapshot(inputs={}, manifest=manifest, daemonsets=got(Input.DAEMONSETS),
                  clusterpolicies=got(Input.CLUSTERPOLICIES)).operator_namespace
    looked_at = {(ns_, pod) for (ns_, pod, _c) in logs}
    for e in got(Input.EVENTS):
        o = e.involved_object
        if o.kind == "Pod" and e.type != "Normal":
            looked_at.add((o.namespace or "default", o.name))
    return Whole(k8s.Pod, (), lambda _p: False, want=whole_pod_rule(ns, looked_at),
                 shared=Sharer().pods)


def _whole_pods(keys: Collection[tuple[str, str]]) -> Whole | None:
    """The asked pods whole among PodCore ones (``why``), told by the names their core decode
    holds: a search of every piece's bytes for the pod's name cost ~0.08 s over a 330 MB
    ``pods.json``, a set lookup per decoded pod ~0.01 s."""
    if not keys:
        return None
    wanted = set(keys)
    names = {name for _ns, name in wanted}

    def want(p: k8s.PodCore) -> bool:
        meta = p.metadata
        return meta.name in names and (meta.namespace or "default", meta.name) in wanted

    return Whole(k8s.Pod, (), want, want=want, by_share=False)


def _load_logs(root: Path, pods: Collection[tuple[str, str]] | None = None,
               ) -> dict[tuple[str, str, str], PodLog]:
    """Operand logs under ``logs/<namespace>/<pod>/``; ``pods``: only those (None: all).

    Walked with ``os.scandir`` and plain names (sorted as the paths would sort: siblings by
    name), each file read by :func:`read_tail` from its path string: a fleet's 16k log files
    cost ~0.5 s through ``Path`` objects (a ``stat`` per ``is_dir``/``is_file``, sorting paths
    part by part), for files of a few hundred bytes. The operands of one DaemonSet often log
    the same text on every node: each distinct text is redacted once, and its
    pods share one string (which the signature scan then looks up once, ``engines/podtext.py``)."""
    base = root / "logs"
    if not base.is_dir():
        return {}
    # the redaction's patterns (~0.01 s to compile) only for a bundle with logs
    from gpuxray.sources.redact import redact_text

    found: dict[tuple[str, str, str], dict[str, str]] = {}
    texts: dict[str, str] = {}  # as read -> redacted (most often the same object)
    for ns_dir in _entries(str(base)):
        ns = ns_dir.name
        if not ns_dir.is_dir() or not utf8_name(ns):
            continue
        for pod_dir in _entries(ns_dir.path):
            pod = pod_dir.name
            if not pod_dir.is_dir() or not utf8_name(pod):
                continue
            if pods is not None and (ns, pod) not in pods:
                continue
            for f in _entries(pod_dir.path):
                name = f.name
                if not name.endswith(".log") or not f.is_file() or not utf8_name(name):
                    continue
                prev = name.endswith(".previous.log")
                container = name[: -len(".previous.log")] if prev else name[: -len(".log")]
                raw = read_tail(f.path, LOG_TAIL_BYTES)
                text = texts.get(raw)
                if text is None:
                    text = texts[raw] = redact_text(raw)
                found.setdefault((ns, pod, container), {})["previous" if prev else "current"] = text
    return {
        k: PodLog(k[0], k[1], k[2], v.get("current"), v.get("previous"),
                  f"logs/{k[0]}/{k[1]}/{k[2]}.log")
        for k, v in found.items()
    }


def _entries(path: str) -> list[os.DirEntry[str]]:
    """A directory's entries by name (``DirEntry.is_dir``/``is_file`` follow symlinks as
    ``Path``'s do, from the type the listing gives where it gives one)."""
    with os.scandir(path) as it:
        return sorted(it, key=_entry_name)


def _entry_name(e: os.DirEntry[str]) -> str:
    return e.name


def _walk_files(base: Path) -> Iterator[Path]:
    for dirpath, _dirs, files in os.walk(base, followlinks=False):
        for name in files:
            yield Path(dirpath) / name


def _load_hosts(root: Path) -> dict[str, HostFacts]:
    """Node files and command outputs. Credentials are redacted on the way in (a bundle written
    by other tools may carry them): registry auth in containerd configs and ``crictl info``,
    and anything credential-shaped in command outputs such as the journal."""
    base = root / "nodes"
    if not base.is_dir():
        return {}
    # imported only for host files: the redaction's parsers cost ~0.05 s of a command's start
    from gpuxray.sources.host import redact_host_text

    out: dict[str, HostFacts] = {}
    for node_dir in sorted(base.iterdir()):
        if not node_dir.is_dir() or not utf8_name(node_dir.name):
            continue
        files: dict[str, str] = {}
        cmds: dict[str, str] = {}
        errs: dict[str, str] = {}
        unreadable: dict[str, str] = {}
        fdir = node_dir / "files"
        if fdir.is_dir():
            for f in _walk_files(fdir):
                rel = f.relative_to(fdir).as_posix()
                if not utf8_name(rel):
                    unreadable[printable_name(rel)] = "file name is not UTF-8"
                    continue
                if f.is_symlink() or not f.is_file():
                    unreadable[rel] = "not a regular file"
                    continue
                try:
                    files[rel] = redact_host_text(rel, read_tail(f, HOST_FILE_LIMIT))
                except OSError as exc:
                    unreadable[rel] = str(exc)
        cdir = node_dir / "cmd"
        if cdir.is_dir():
            for f in sorted(cdir.iterdir()):
                if not utf8_name(f.name):
                    unreadable[f"cmd/{printable_name(f.name)}"] = "file name is not UTF-8"
                    continue
                if f.is_symlink() or not f.is_file():
                    continue
                try:
                    text = read_tail(f, HOST_FILE_LIMIT)
                except OSError as exc:
                    unreadable[f"cmd/{f.name}"] = str(exc)
                    continue
                if f.name.endswith(".err"):
                    errs[f.name[: -len(".err")]] = text
                else:
                    cmds[f.name] = redact_host_text(f"cmd:{f.name}", text)
        out[node_dir.name] = HostFacts(node_dir.name, files, cmds, errs, unreadable)
    return out


def _load_metrics(root: Path) -> dict[str, tuple[str, str]]:
    base = root / "metrics"
    if not base.is_dir():
        return {}
    out: dict[str, tuple[str, str]] = {}
    for f in sorted(base.glob("*.prom")):
        if not utf8_name(f.name):
            continue
        out[f.stem] = (f"metrics/{f.name}", read_tail(f, HOST_FILE_LIMIT))
    return out


