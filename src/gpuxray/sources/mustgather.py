"""NVIDIA must-gather output (gpu-operator ``hack/must-gather.sh``) read as a Snapshot.

Why: when a GPU node misbehaves, NVIDIA support asks for must-gather first, so it is what users
already have on the ticket (BUNDLE.md "Also accepted as input"). It is not a gpuxray bundle: it
holds YAML of the ClusterPolicy, the operator namespace's pods and DaemonSets, ``kubectl
describe`` text of the GPU nodes and operand pods, logs written with ``--all-containers
--prefix``, and one ``nvidia-bug-report_<node>.log.gz`` per driver pod. This module turns it into
the same Snapshot a bundle gives, and is explicit about what it lacks:

=====================  ============================================================  =========
input                  must-gather file(s)                                          collected
=====================  ============================================================  =========
nodes                  ``gpu_nodes.descr`` (+ ``gpu_nodes.labels``, ``.status``)     GPU nodes
pods                   ``gpu_operand_pods.yaml`` (+ ``gpu_operator_pod.yaml``)        no ¹
daemonsets             ``gpu_operand_ds.yaml``                                        operator ns
clusterpolicies        ``cluster_policy.yaml`` / ``cluster_policy.missing`` (= none)  yes
nvidiadrivers          ``nvidiadrivers.yaml``                                         if present
DRA objects            ``deviceclasses.yaml``, ``resourceslices.yaml``, …              if present
logs                   ``gpu_operator_pod*.log``, ``gpu_operand_pod_<pod>*.log``      yes
nodes/ (host facts)    ``nvidia-bug-report_<node>.log.gz``                            if present
events, quotas, …      — (events of described objects are kept, input not collected)  no
=====================  ============================================================  =========

¹ Pods outside the operator namespace appear only as rows of the nodes' describe text (no
specs), so the pods input is *not collected* and every check that needs it says unknown instead of
passing on a partial list; the operator namespace's pods are still in ``snap.pods`` for commands
that look up one pod. Each node's "Allocated resources" sums from describe are kept in
``status.described_allocated``.

:func:`iter_text_inputs` yields every text in a must-gather directory (bug reports decompressed,
capped) for text-scanning commands such as ``triage``.
"""

from __future__ import annotations

import codecs
import re
import sys
from collections.abc import Callable, Collection, Iterator
from itertools import chain, pairwise
from pathlib import Path
from typing import Any, TypeVar

from gpuxray.errors import InputError
from gpuxray.model import dra, k8s
from gpuxray.model.quantity import is_extended, safe_quantity
from gpuxray.model.snapshot import (
    OPERATOR_NAMESPACE_DEFAULT,
    HostFacts,
    Input,
    InputState,
    Manifest,
    PodLog,
    Snapshot,
)
from gpuxray.sources.decode import decode_yaml_file
from gpuxray.sources.files import printable_name, read_tail, utf8_name
from gpuxray.sources.parsers import bugreport, describe, prefixed_logs, wide
from gpuxray.sources.redact import redact_text
from gpuxray.sources.shrink import Sharer

__all__ = ["find_mustgather_root", "is_mustgather_dir", "iter_text_inputs", "load_mustgather"]

T = TypeVar("T")

MAX_YAML_BYTES = 512 << 20
TEXT_LIMIT = 8 << 20  # describe/log/status files: keep the tail beyond this
TRIAGE_BUGREPORT_LIMIT = 64 << 20
NOT_IN = "not in must-gather"

# Files only must-gather.sh writes; one is enough to recognise the directory.
MARKERS = ("cluster_policy.yaml", "cluster_policy.missing", "gpu_nodes.labels",
           "gpu_nodes.descr", "gpu_nodes.status", "gpu_operator_pod.yaml",
           "gpu_operand_pods.yaml", "gpu_operand_ds.yaml")
_OPERAND_FILE = re.compile(r"^gpu_operand_pod_(?P<pod>[a-z0-9][a-z0-9.-]*)\."
                           r"(?P<what>previous\.log|log|descr)$")
_DS_DESCR = re.compile(r"^gpu_operand_ds_(?P<ds>[a-z0-9][a-z0-9.-]*)\.descr$")
_BUGREPORT = re.compile(r"^nvidia-bug-report_(?P<node>[^/]+?)\.log(?:\.gz)?$")
_ARTIFACT_TIME = re.compile(r"(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})")
_NS_LINE = re.compile(r"Using '([a-z0-9-]+)' as operator namespace")
_TEXT_SUFFIXES = (".descr", ".log", ".status", ".labels", ".txt", ".yaml", ".list", ".missing")


# ----- detection --------------------------------------------------------------------------
def is_mustgather_dir(path: Path) -> bool:
    return path.is_dir() and any((path / m).is_file() for m in MARKERS)


def find_mustgather_root(path: Path, depth: int = 2) -> Path | None:
    """``path`` itself, or the one must-gather directory below it (``oc adm must-gather`` and a
    tarball of the artifact directory both add a level)."""
    if is_mustgather_dir(path):
        return path
    if depth <= 0 or not path.is_dir():
        return None
    try:
        subdirs = [p for p in sorted(path.iterdir())
                   if p.is_dir() and not p.is_symlink() and not p.name.startswith(".")]
    except OSError:
        return None
    found = [r for r in (find_mustgather_root(d, depth - 1) for d in subdirs[:50]) if r]
    return found[0] if len(found) == 1 else None


# ----- file helpers -----------------------------------------------------------------------
def _read_text(path: Path, limit: int = TEXT_LIMIT) -> str:
    """The tail of a text file; binary data is an InputError (a mangled or wrong file)."""
    try:
        text = read_tail(path, limit)
    except OSError as exc:
        raise InputError(f"{path.name}: unreadable ({exc.strerror or exc})") from exc
    if "\x00" in text[:65536]:
        raise InputError(f"{path.name}: binary data, not kubectl output")
    return text


def _read_yaml_objects(path: Path, typ: type[T],
                       each: Callable[[list[T]], None] | None = None) -> list[T]:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"{path.name}: unreadable ({exc.strerror or exc})") from exc
    if size > MAX_YAML_BYTES:
        raise InputError(f"{path.name}: {size} bytes, over the {MAX_YAML_BYTES} byte limit")
    with open(path, "rb") as fh:
        if b"\x00" in fh.read(65536):
            raise InputError(f"{path.name}: binary data, not YAML")
    return decode_yaml_file(path, typ, path.name, each)


def _read_aux(ld: _Loader, path: Path, limit: int = TEXT_LIMIT) -> str:
    """An auxiliary text (describe of one pod, a status table): unreadable or binary → skipped
    and recorded in the manifest errors, since the input it adds to stands without it."""
    try:
        return _read_text(path, limit)
    except InputError as exc:
        ld.errors.append((path.name, str(exc)))
        return ""


class _Loader:
    """Collects inputs one by one, turning an unreadable file into an uncollected input when
    ``lenient`` (``--keep-going``) and into a one-line InputError otherwise."""

    def __init__(self, root: Path, lenient: bool) -> None:
        self.root = root
        self.lenient = lenient
        self.inputs: dict[Input, InputState] = {}
        self.fields: dict[str, Any] = {}
        self.errors: list[tuple[str, str]] = []

    def file(self, name: str) -> Path | None:
        p = self.root / name
        return p if p.is_file() and not p.is_symlink() else None

    def failed(self, inp: Input, source: str, exc: InputError) -> None:
        if not self.lenient:
            raise exc
        self.inputs[inp] = InputState(False, source, str(exc))
        self.errors.append((source, str(exc)))

    def objects(self, name: str, typ: type[T],
                each: Callable[[list[T]], None] | None = None) -> list[T] | None:
        p = self.file(name)
        if p is None:
            return None
        return _read_yaml_objects(p, typ, each)


# ----- loading ----------------------------------------------------------------------------
def load_mustgather(root: Path, *, lenient: bool = False, origin: str = "",
                    log_nodes: Callable[[Snapshot], Collection[str] | None] | None = None,
                    ) -> Snapshot:
    """The Snapshot of a must-gather directory (see the module docstring for what it holds).

    ``log_nodes``, as for a bundle (``sources/bundle.py``): the snapshot is built without
    logs, then reads those of the operator's pods bound to the nodes it names (all where it
    says None). ``capacity`` reads none: 16k operand log files of a 5k-node fleet cost ~0.6 s
    that its report never looks at."""
    ld = _Loader(root, lenient)
    for inp in Input:
        ld.inputs[inp] = InputState(False, inp.value, NOT_IN)

    operator_pods = _load_pods(ld)
    namespace = _operator_namespace(ld, operator_pods)
    events: list[k8s.Event] = []
    _load_custom(ld, "cluster_policy.yaml", Input.CLUSTERPOLICIES, "ClusterPolicy",
                 "clusterpolicies", missing_marker="cluster_policy.missing")
    _load_custom(ld, "nvidiadrivers.yaml", Input.NVIDIADRIVERS, "NVIDIADriver", "nvidiadrivers")
    for inp, kind, typ in _DRA_DUMPS:
        plural = inp.value.split("/", 1)[1]
        _load_custom(ld, f"{plural}.yaml", inp, kind, plural, typ=typ)
    events += _load_nodes(ld)
    events += _load_daemonsets(ld, namespace)
    described = _described_pods(ld)
    for dp in described:
        events += dp.events
    if not operator_pods and described:
        operator_pods = [dp.pod for dp in described]
        ld.inputs[Input.PODS] = InputState(
            False, "gpu_operand_pod_*.descr",
            f"{NOT_IN}: pods of namespace {namespace} only (from describe text)")
        ld.inputs[Input.OPERATOR_PODS] = InputState(True, "gpu_operand_pod_*.descr")
    if not operator_pods:
        operator_pods = _pods_from_status(ld, namespace)
    ld.fields["pods"] = operator_pods
    ld.fields["events"] = events
    logs = _load_logs(ld, namespace, operator_pods) if log_nodes is None else {}
    if log_nodes is not None and _log_files(ld, operator_pods):
        ld.inputs[Input.LOGS] = InputState(True, "gpu_operand_pod_*.log")
    hosts = _load_hosts(ld)
    manifest = Manifest(format="nvidia-must-gather", collected_at=_collected_at(root),
                        collector=_collector(ld), source_kind="must-gather",
                        operator_namespace=namespace,
                        errors=tuple(ld.errors + _stderr_errors(ld)))
    snap = Snapshot(inputs=ld.inputs, logs=logs, hosts=hosts, manifest=manifest,
                    origin=origin or str(root), **ld.fields)
    if log_nodes is not None:
        nodes = log_nodes(snap)
        if nodes is None or nodes:
            wanted = None if nodes is None else {
                p.metadata.name for p in operator_pods if p.spec.node_name in nodes}
            # the snapshot's own dict, filled before anything reads it (log_nodes reads no log)
            snap.logs.update(_load_logs(ld, namespace, operator_pods, wanted))
            snap.__dict__.pop("logs_by_pod", None)
    return snap


def _load_pods(ld: _Loader) -> list[k8s.Pod]:
    pods: dict[tuple[str, str], k8s.Pod] = {}
    share = Sharer().pods  # 24k operand pods repeat tolerations, env, empty resources
    for name in ("gpu_operand_pods.yaml", "gpu_operator_pod.yaml"):
        try:
            objs = ld.objects(name, k8s.Pod, share)
        except InputError as exc:
            ld.failed(Input.PODS, name, exc)
            continue
        for p in objs or []:
            pods.setdefault((p.metadata.namespace or "default", p.metadata.name), p)
    if pods:
        ns = sorted({k[0] for k in pods})
        ld.inputs[Input.PODS] = InputState(
            False, "gpu_operand_pods.yaml",
            f"{NOT_IN}: only pods of namespace {', '.join(ns)}")
        ld.inputs[Input.OPERATOR_PODS] = InputState(True, "gpu_operand_pods.yaml")
    return list(pods.values())


def _operator_namespace(ld: _Loader, pods: list[k8s.Pod]) -> str:
    for p in pods:
        if p.metadata.labels.get("app") == "gpu-operator" and p.metadata.namespace:
            return p.metadata.namespace
    for p in pods:
        if p.metadata.namespace:
            return p.metadata.namespace
    log = ld.file("must-gather.log")
    if log is not None:
        m = _NS_LINE.search(_read_aux(ld, log, 1 << 20))
        if m:
            return m.group(1)
    return OPERATOR_NAMESPACE_DEFAULT


# DRA objects, where a must-gather script version dumps them as ``<plural>.yaml`` (the
# gpu-operator script checked does not: then they stay "not in the must-gather directory").
_DRA_DUMPS: tuple[tuple[Input, str, Any], ...] = (
    (Input.DEVICECLASSES, "DeviceClass", dra.DeviceClass),
    (Input.RESOURCESLICES, "ResourceSlice", dra.ResourceSlice),
    (Input.RESOURCECLAIMS, "ResourceClaim", dra.ResourceClaim),
    (Input.RESOURCECLAIMTEMPLATES, "ResourceClaimTemplate", dra.ResourceClaimTemplate),
    (Input.COMPUTEDOMAINS, "ComputeDomain", dra.ComputeDomain),
)


def _load_custom(ld: _Loader, name: str, inp: Input, kind: str, attr: str,
                 missing_marker: str | None = None, typ: Any = k8s.CustomResource) -> None:
    """A custom-resource dump (ClusterPolicy, NVIDIADriver). ``missing_marker`` is the file
    the script writes when it found none: a collected, empty list rather than not collected."""
    try:
        objs = ld.objects(name, typ)
    except InputError as exc:
        ld.failed(inp, name, exc)
        return
    if objs is not None:
        for o in objs:
            o.kind = o.kind or kind
        ld.fields[attr] = objs
        ld.inputs[inp] = InputState(True, name)
    elif missing_marker is not None and ld.file(missing_marker) is not None:
        ld.fields[attr] = []
        ld.inputs[inp] = InputState(True, missing_marker)


def parse_labels_file(text: str) -> dict[str, dict[str, str]]:
    """``gpu_nodes.labels``: a node name line, then ``- key=value`` lines (the script's sed/tr
    pipeline over ``{.metadata.labels}``; it turns every ``:`` into ``=``, so only the first
    ``=`` separates key and value)."""
    out: dict[str, dict[str, str]] = {}
    node: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("- "):
            if node is None:
                continue
            key, sep, value = line[2:].partition("=")
            if sep and key:
                out[node][key.strip()] = value.strip()
        elif " " not in line and len(line) <= 253:
            node = line.split("/", 1)[-1]
            out.setdefault(node, {})
    return out


def _load_nodes(ld: _Loader) -> list[k8s.Event]:
    """Nodes from ``gpu_nodes.descr``; ``gpu_nodes.labels`` adds labels to them.

    A node known only by its labels (NFD saw an NVIDIA PCI device but ``nvidia.com/gpu.present``
    is missing, so the script did not describe it) or only by a row of ``gpu_nodes.status`` is
    NOT put in the snapshot: its capacity and allocatable are unknown, and an empty capacity would
    read as "advertises no GPU". It is named in the input's reason instead.
    """
    nodes: dict[str, k8s.Node] = {}
    events: list[k8s.Event] = []
    descr = ld.file("gpu_nodes.descr")
    known_only: set[str] = set()
    try:
        if descr is not None:
            seen, blank = False, True
            for part in _describe_file_parts(descr, 64 << 20):
                blank = blank and not part.strip()
                for d in describe.parse_describe_nodes(part):
                    seen = True
                    d.node.status.described_allocated = _allocation(d.allocated)
                    _intern_labels(d.node)
                    nodes[d.node.metadata.name] = d.node
                    events.extend(d.events)
            if not seen and not blank:
                raise InputError("gpu_nodes.descr: no `kubectl describe node` text found in it")
        labels_f = ld.file("gpu_nodes.labels")
        if labels_f is not None:
            for name, labels in parse_labels_file(_read_text(labels_f)).items():
                if name in nodes:
                    merged = dict(labels)
                    merged.update(nodes[name].metadata.labels)
                    nodes[name].metadata.labels = merged
                else:
                    known_only.add(name)
    except InputError as exc:
        ld.failed(Input.NODES, "gpu_nodes.descr", exc)
        return events
    status = ld.file("gpu_nodes.status")
    if status is not None:
        known_only |= {r.get("NAME", "") for r in wide.parse_wide(_read_aux(ld, status))}
    known_only -= {"", *nodes}
    only = f"; not described, known only by name/labels: {', '.join(sorted(known_only))}" \
        if known_only else ""
    if descr is None:
        ld.inputs[Input.NODES] = InputState(False, "gpu_nodes.descr",
                                            f"{NOT_IN} (no gpu_nodes.descr){only}")
        return events
    ld.fields["nodes"] = list(nodes.values())
    ld.inputs[Input.NODES] = InputState(True, "gpu_nodes.descr", f"partial: GPU nodes only{only}")
    return events


DESCRIBE_PART_NODES = 128
_NAME_LINE = re.compile(r"^Name:", re.M)


def _describe_file_parts(path: Path, limit: int, chunk: int = 1 << 20) -> Iterator[str]:
    """The parts of :func:`_describe_parts` read from the file as it goes, so its whole text
    (24 MB for 4,000 nodes, twice while decoded) is never in memory. A file over ``limit``
    keeps the tail, read whole as :func:`_read_text` does."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"{path.name}: unreadable ({exc.strerror or exc})") from exc
    if size > limit:
        yield from _describe_parts(_read_text(path, limit))
        return
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    buf, head = "", ""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - read piecewise below
    except OSError as exc:
        raise InputError(f"{path.name}: unreadable ({exc.strerror or exc})") from exc
    with fh:
        while True:
            try:
                data = fh.read(chunk)
            except OSError as exc:
                raise InputError(f"{path.name}: unreadable ({exc.strerror or exc})") from exc
            piece = decoder.decode(data, final=not data)
            buf += piece
            if len(head) < 65536:  # the binary test of _read_text: the text's first 64 Ki
                head += piece[:65536 - len(head)]
                if "\x00" in head:
                    raise InputError(f"{path.name}: binary data, not kubectl output")
            if not data:
                break
            lines_end = buf.rfind("\n") + 1  # whole lines only: a cut is decided on one
            parts = list(_describe_parts(buf[:lines_end]))
            if len(parts) > 1:
                yield from parts[:-1]
                buf = parts[-1] + buf[lines_end:]
    yield from _describe_parts(buf)


def _describe_parts(text: str) -> Iterator[str]:
    """``gpu_nodes.descr`` a few nodes at a time, cut where a node's description starts (a
    ``Name:`` line the describe parser starts an object at): the parse of 4,000 nodes' text,
    its lines and pod rows alive at once, cost ~80 MB that outlived it (freed memory the
    allocator keeps), for objects the parse of one part gives alike."""
    cuts = [0]
    n = 0
    for m in _NAME_LINE.finditer(text):
        end = text.find("\n", m.start())
        line = text[m.start():end if end >= 0 else len(text)]
        if not describe.starts_object(line):
            continue
        n += 1
        if n > DESCRIBE_PART_NODES:
            cuts.append(m.start())
            n = 1
    cuts.append(len(text))
    for a, b in pairwise(cuts):
        yield text[a:b]


def _intern_labels(node: k8s.Node) -> None:
    """One string object per distinct label key and value across the nodes: 4,000 GPU nodes
    repeat the same ~60 feature-discovery labels, a fifth of their memory."""
    intern = sys.intern
    meta = node.metadata
    meta.labels = {intern(k): intern(v) for k, v in meta.labels.items()}


def _allocation(allocated: dict[str, tuple[str, str]]) -> dict[str, str | int | float]:
    """Requests per resource; for an extended resource the larger of requests and limits.

    Extended resources cannot be overcommitted: the API server defaults a missing request to the
    limit and rejects a request that differs from it, so on a real cluster both columns agree and
    the larger one is the allocation even for pods that skipped defaulting (seed §2, §9).
    """
    out: dict[str, str | int | float] = {}
    for res, (req, lim) in allocated.items():
        out[res] = req
        if is_extended(res) and safe_quantity(lim) > safe_quantity(req):
            out[res] = lim
    return out


def _load_daemonsets(ld: _Loader, namespace: str) -> list[k8s.Event]:
    events: list[k8s.Event] = []
    for f in sorted(ld.root.glob("gpu_operand_ds_*.descr")):
        if _DS_DESCR.match(f.name) and f.is_file():
            events += describe.parse_describe_events(_read_aux(ld, f), "DaemonSet")
    try:
        objs = ld.objects("gpu_operand_ds.yaml", k8s.DaemonSet)
    except InputError as exc:
        ld.failed(Input.DAEMONSETS, "gpu_operand_ds.yaml", exc)
        return events
    source = "gpu_operand_ds.yaml"
    if objs is None:
        status = ld.file("gpu_operand_ds.status")
        if status is None:
            return events
        source = "gpu_operand_ds.status"
        objs = [_ds_from_row(row, namespace)
                for row in wide.parse_wide(_read_aux(ld, status))]
    for o in objs:
        o.kind = o.kind or "DaemonSet"
    ld.fields["daemonsets"] = objs
    ld.inputs[Input.DAEMONSETS] = InputState(True, source,
                                             f"partial: only namespace {namespace}")
    return events


def _int(cell: str) -> int:
    return int(cell) if cell.isdigit() else 0


def _ds_from_row(row: dict[str, str], namespace: str) -> k8s.DaemonSet:
    sel = row.get("NODE SELECTOR", "")
    selector = {} if sel in ("", "<none>") else dict(
        kv.partition("=")[::2] for kv in sel.split(","))
    return k8s.DaemonSet(
        metadata=k8s.ObjectMeta(name=row.get("NAME", ""), namespace=namespace),
        spec=k8s.WorkloadSpec(template=k8s.PodTemplate(spec=k8s.PodSpec(node_selector=selector))),
        status=k8s.DaemonSetStatus(
            desired_number_scheduled=_int(row.get("DESIRED", "")),
            current_number_scheduled=_int(row.get("CURRENT", "")),
            number_ready=_int(row.get("READY", "")),
            updated_number_scheduled=_int(row.get("UP-TO-DATE", "")),
            number_available=_int(row.get("AVAILABLE", ""))))


def _described_pods(ld: _Loader) -> list[describe.DescribedPod]:
    out: list[describe.DescribedPod] = []
    for f in sorted(ld.root.glob("gpu_operand_pod_*.descr")):
        if _OPERAND_FILE.match(f.name) and f.is_file():
            out.extend(describe.parse_describe_pods(_read_aux(ld, f)))
    return out


def _pods_from_status(ld: _Loader, namespace: str) -> list[k8s.Pod]:
    f = ld.file("gpu_operand_pods.status")
    if f is None:
        return []
    pods = []
    for row in wide.parse_wide(_read_aux(ld, f)):
        node = row.get("NODE", "")
        status = row.get("STATUS", "")
        phase = status if status in ("Running", "Pending", "Succeeded", "Failed") else (
            "Running" if status in ("CrashLoopBackOff", "Error", "Completed") else "Pending")
        pods.append(k8s.Pod(
            metadata=k8s.ObjectMeta(name=row.get("NAME", ""), namespace=namespace),
            spec=k8s.PodSpec(node_name="" if node == "<none>" else node),
            status=k8s.PodStatus(phase=phase, reason=status if status != phase else "")))
    if pods:
        ld.inputs[Input.PODS] = InputState(
            False, "gpu_operand_pods.status",
            f"{NOT_IN}: pods of namespace {namespace} only, as a status table")
        # a status table has no container states: not enough for the operand checks
        ld.inputs[Input.OPERATOR_PODS] = InputState(
            False, "gpu_operand_pods.status", "only a status table of the operand pods")
    return pods


def _log_files(ld: _Loader, pods: list[k8s.Pod]) -> bool:
    """Whether the directory holds a log that :func:`_load_logs` reads (a non-empty file):
    the logs input is collected even where a command reads none of them."""
    operator = any(p.metadata.labels.get("app") == "gpu-operator" for p in pods)
    files = chain(ld.root.glob("gpu_operator_pod*log") if operator else (),
                  (f for f in ld.root.glob("gpu_operand_pod_*log") if _OPERAND_FILE.match(f.name)))
    return any(f.is_file() and not f.is_symlink() and f.stat().st_size > 0 for f in files)


def _load_logs(ld: _Loader, namespace: str, pods: list[k8s.Pod],
               wanted: Collection[str] | None = None) -> dict[tuple[str, str, str], PodLog]:
    """The operator's and operands' logs; ``wanted``: only those of these pods (None: all)."""
    found: dict[tuple[str, str, str], dict[str, str]] = {}
    srcs: dict[tuple[str, str, str], str] = {}
    operator = next((p for p in pods if p.metadata.labels.get("app") == "gpu-operator"), None)
    if operator is not None and wanted is not None and operator.metadata.name not in wanted:
        operator = None
    for suffix, slot in (("log", "current"), ("previous.log", "previous")):
        f = ld.file(f"gpu_operator_pod.{suffix}")
        if f is not None and operator is not None:
            container = operator.spec.containers[0].name if operator.spec.containers \
                else "gpu-operator"
            key = (namespace, operator.metadata.name, container)
            found.setdefault(key, {})[slot] = redact_text(read_tail(f, TEXT_LIMIT))
            srcs.setdefault(key, f"gpu_operator_pod.{suffix}")
    for f in sorted(ld.root.glob("gpu_operand_pod_*log")):
        m = _OPERAND_FILE.match(f.name)
        if not m or m.group("what") == "descr" or not f.is_file():
            continue
        slot = "previous" if m.group("what") == "previous.log" else "current"
        pod = m.group("pod")
        if wanted is not None and pod not in wanted:
            continue
        text = redact_text(read_tail(f, TEXT_LIMIT))
        for (p, container), part in prefixed_logs.split_prefixed_logs(text).items():
            key = (namespace, p or pod, container)
            found.setdefault(key, {})[slot] = part
            srcs.setdefault(key, f.name)
    if found:
        ld.inputs[Input.LOGS] = InputState(True, "gpu_operand_pod_*.log")
    return {k: PodLog(k[0], k[1], k[2], v.get("current"), v.get("previous"), srcs[k])
            for k, v in found.items()}


def _load_hosts(ld: _Loader) -> dict[str, HostFacts]:
    hosts: dict[str, HostFacts] = {}
    problems: list[str] = []
    for f in sorted(ld.root.glob("nvidia-bug-report_*")):
        m = _BUGREPORT.match(f.name)
        if not m or not f.is_file() or f.is_symlink():
            continue
        node = m.group("node")
        if not utf8_name(node):
            problems.append(f"{printable_name(f.name)}: file name is not UTF-8")
            continue
        try:
            text, notes = bugreport.read_bug_report(f)
        except (bugreport.BugReportError, OSError) as exc:
            problems.append(f"{f.name}: {exc}")
            continue
        rep = bugreport.parse_bug_report(text)
        del text  # the report can be tens of MiB; its sections are all that is kept
        rep.files = {k: redact_text(v) for k, v in rep.files.items()}
        rep.cmds = {k: redact_text(v) for k, v in rep.cmds.items()}
        unreadable = {f.name: "; ".join(notes)} if notes else {}
        hosts[node] = HostFacts(node, rep.files, rep.cmds, {}, unreadable)
    if hosts:
        ld.inputs[Input.HOSTS] = InputState(
            True, "nvidia-bug-report_*.log.gz",
            "partial: " + "; ".join(problems) if problems else "")
    elif problems:
        ld.inputs[Input.HOSTS] = InputState(False, "nvidia-bug-report_*.log.gz",
                                            "; ".join(problems))
    else:
        ld.inputs[Input.HOSTS] = InputState(False, "nvidia-bug-report_<node>.log.gz",
                                            f"{NOT_IN} (no nvidia-bug-report_<node>.log.gz)")
    for p in problems:
        ld.errors.append(("nvidia-bug-report", p))
    return hosts


def _collector(ld: _Loader) -> str:
    """The must-gather image writes ``version`` (``NVIDIA GPU Operator`` then its version)."""
    f = ld.file("version")
    words = _read_aux(ld, f, 4096).split() if f is not None else []
    version = words[-1] if len(words) > 3 and words[:3] == ["NVIDIA", "GPU", "Operator"] else ""
    return f"gpu-operator must-gather {version}".strip()


def _collected_at(root: Path) -> str:
    m = _ARTIFACT_TIME.search(root.name)
    if m:
        y, mo, d, h, mi = m.groups()
        return f"{y}-{mo}-{d}T{h}:{mi}:00Z"
    return ""


def _stderr_errors(ld: _Loader) -> list[tuple[str, str]]:
    """``Error from server (Forbidden): …`` lines: what the script could not read."""
    f = ld.file("must-gather.stderr.log")
    if f is None:
        return []
    out = []
    for line in _read_aux(ld, f, 4 << 20).splitlines():
        s = line.strip()
        if s.startswith(("Error from server", "error:")):
            out.append(("must-gather.stderr.log", s[:500]))
            if len(out) >= 50:
                break
    return out


# ----- text inputs for scanners (triage) --------------------------------------------------
def iter_text_inputs(path: str | Path, limit: int = TEXT_LIMIT) -> Iterator[tuple[str, str]]:
    """Every text of a must-gather directory as ``(file name, text)``, bug reports decompressed
    (capped) — for commands that scan text for signatures (``triage``). Binary or unreadable
    files are skipped; each text is at most ``limit`` bytes (the tail)."""
    root = find_mustgather_root(Path(path))
    if root is None:
        raise InputError(f"{path}: not a must-gather directory (no {MARKERS[0]}, "
                         f"{MARKERS[2]}, … )")
    for f in sorted(root.iterdir()):
        if not f.is_file() or f.is_symlink():
            continue
        if _BUGREPORT.match(f.name):
            try:
                text, _notes = bugreport.read_bug_report(f, TRIAGE_BUGREPORT_LIMIT)
            except (bugreport.BugReportError, OSError):
                continue
            yield f.name, redact_text(text)
            continue
        if not f.name.endswith(_TEXT_SUFFIXES) and f.name != "version":
            continue
        try:
            with open(f, "rb") as fh:
                head = fh.read(8192)
        except OSError:
            continue
        if b"\x00" in head:
            continue
        try:
            yield f.name, redact_text(_read_text(f, limit))
        except InputError:
            continue
