"""Pasted text for ``triage``: a file, stdin, or a directory of text files (e.g. must-gather).

Bounded by design: each input keeps only its last ``FILE_LIMIT`` bytes (failures are at the end
of logs), a directory stops after ``TOTAL_LIMIT`` bytes or ``MAX_FILES`` files, stdin is read in
chunks keeping the tail, and binary data is refused (one file) or skipped (in a directory) —
never a traceback.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
import textwrap
import tomllib
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import msgspec
import yaml

from gpuxray.errors import InputError
from gpuxray.knowledge.operands import operand_for
from gpuxray.model import k8s
from gpuxray.model.finding import Finding
from gpuxray.model.snapshot import (
    OPERATOR_NAMESPACE_DEFAULT,
    HostFacts,
    Input,
    InputState,
    Manifest,
    PodLog,
    Snapshot,
)
from gpuxray.sources.decode import yaml_docs
from gpuxray.sources.files import printable_name
from gpuxray.sources.parsers import (
    describe,
    dmesg,
    helm,
    hostcmds,
    lsmod,
    lspci,
    paste,
    pods_table,
    prefixed_logs,
    tables,
    wide,
)
from gpuxray.sources.parsers.bugreport import status_to_show
from gpuxray.sources.parsers.cleanup import clean_lines
from gpuxray.sources.parsers.paste import Part, split_paste
from gpuxray.sources.redact import redact_text

FILE_LIMIT = 4 << 20
TOTAL_LIMIT = 64 << 20
MAX_FILES = 5000
CHUNK = 1 << 16
_TEXT_BYTES = bytes(range(32, 127)) + b"\t\n\r\f\b\x1b"


@dataclass(frozen=True, slots=True)
class TextInput:
    name: str
    text: str
    truncated: bool = False


@dataclass(slots=True)
class Pasted:
    inputs: list[TextInput] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name, why)


def looks_binary(sample: bytes) -> bool:
    """NUL bytes, or more than 30% of bytes that are neither ASCII text nor UTF-8 sequences."""
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    try:
        sample.decode("utf-8")
        return False
    except UnicodeDecodeError as exc:
        if exc.start >= len(sample) - 4:  # a multi-byte char cut at the sample's end
            return False
    odd = sum(1 for b in sample if b not in _TEXT_BYTES and b < 0x80)
    high = sum(1 for b in sample if b >= 0x80)
    return (odd + high) / len(sample) > 0.30


def _decode(data: bytes, cut_partial: bool) -> str:
    if cut_partial:
        nl = data.find(b"\n")
        data = data[nl + 1:] if nl >= 0 else data
    return data.decode("utf-8", errors="replace")


def read_stream(fh: BinaryIO, name: str, limit: int = FILE_LIMIT) -> TextInput:
    """Read a stream in chunks, keeping only the last ``limit`` bytes."""
    chunks: deque[bytes] = deque()
    kept = 0
    total = 0
    first = b""
    while True:
        chunk = fh.read(CHUNK)
        if not chunk:
            break
        if not first:
            first = chunk[:8192]
            if looks_binary(first):
                raise InputError(f"{name}: binary data, not text")
        chunks.append(chunk)
        kept += len(chunk)
        total += len(chunk)
        while kept - len(chunks[0]) >= limit:
            kept -= len(chunks.popleft())
    data = b"".join(chunks)
    truncated = total > limit
    if truncated:
        data = data[-limit:]
    return TextInput(name, redact_text(_decode(data, truncated)), truncated)


def read_file(path: Path, limit: int = FILE_LIMIT) -> TextInput:
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(8192)
            if looks_binary(head):
                raise InputError(f"{path}: binary data, not text")
            if size > limit:
                fh.seek(size - limit)
                return TextInput(printable_name(str(path)),
                                 redact_text(_decode(fh.read(limit), True)), True)
            return TextInput(printable_name(str(path)), redact_text((head + fh.read()).decode(
                "utf-8", errors="replace")))
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from exc


def _walk(root: Path) -> Iterator[Path]:
    for dirpath, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            yield Path(dirpath) / name


def read_dir(root: Path) -> Pasted:
    out = Pasted()
    total = 0
    over = 0
    for p in _walk(root):
        rel = printable_name(p.relative_to(root).as_posix())  # names are printed in reports
        if len(out.inputs) >= MAX_FILES or total >= TOTAL_LIMIT:
            over += 1  # counted, not listed: a huge tree must not make a huge report
            continue
        if p.is_symlink() or not p.is_file():
            out.skipped.append((rel, "not a regular file"))
            continue
        try:
            ti = read_file(p, min(FILE_LIMIT, TOTAL_LIMIT - total))
        except InputError as exc:
            out.skipped.append((rel, str(exc).split(": ", 1)[-1]))
            continue
        out.inputs.append(TextInput(rel, ti.text, ti.truncated))
        total += len(ti.text)
    if over:
        out.skipped.append((f"{over} more file(s)", "input limit reached "
                            f"({MAX_FILES} files or {TOTAL_LIMIT >> 20} MiB)"))
    if not out.inputs:
        raise InputError(f"{root}: no readable text files")
    return out


def read_pasted(arg: str) -> Pasted:
    """``-`` for stdin, a directory (every text file in it), or one file."""
    if arg == "-":
        return Pasted([read_stream(sys.stdin.buffer, "<stdin>")])
    p = Path(arg)
    if not p.exists():
        raise InputError(f"{arg}: no such file or directory")
    if p.is_dir():
        return read_dir(p)
    return Pasted([read_file(p)])


# ----- the paste as evidence: a partial Snapshot ----------------------------------------------
PASTED_HOST = "pasted-node"
ROOT_CONFIG = "etc/containerd/config.toml"  # BUNDLE.md nodes/<node>/files/ path
# a pipeline that keeps part of the output (the first lines, the matching ones)
_FILTERED = re.compile(r"\|\s*(?:head|tail|grep|egrep|fgrep|rg|sed|awk|cut|less|more)\b")


class CMD:
    """BUNDLE.md ``nodes/<node>/cmd/`` names the pasted outputs are filed under."""

    DMESG = "dmesg.txt"
    LSMOD = "lsmod.txt"
    MOKUTIL = "mokutil-sb-state.txt"
    NVIDIA_SMI = "nvidia-smi.txt"
    NVIDIA_SMI_Q = "nvidia-smi-q.xml"
    SYSTEMCTL_FM = "systemctl-show-fabricmanager.txt"
    SYSTEMCTL_CONTAINERD = "systemctl-show-containerd.txt"
    JOURNAL_CONTAINERD = "journal-containerd.txt"
    JOURNAL_KUBELET = "journal-kubelet.txt"
    CONTAINERD_VERSION = "containerd-version.txt"
    UNAME = "uname.txt"


PROC_DRIVER_VERSION = "proc/driver/nvidia/version"  # BUNDLE.md nodes/<node>/files/ path


# The journals a node check reads, by the unit ``journalctl -u`` names (BUNDLE.md cmd/ names).
JOURNAL_CMD = {"containerd": CMD.JOURNAL_CONTAINERD, "kubelet": CMD.JOURNAL_KUBELET}


# The first containerd release that writes each config version in `config dump` (measured with
# the real 2.0.14, 2.1.9, 2.2.9 and 2.3.4 binaries: 3, 3, 3, 4): what a pasted dump says of
# the daemon that printed it, in `containerd --version` form so the merge engine reads it.
DUMP_VERSION_FIRST = {3: "2.0.0", 4: "2.3.0"}


# checks that read a node's capacity or allocatable: the scheduling arithmetic (GX2xx) and the
# capacity codes (GX602 sharing, GX603 MIG layout, GX604 advertised count)
CAPACITY_CODES = ("GX2", "GX602", "GX603", "GX604")


@dataclass(slots=True)
class PasteEvidence:
    """What the parsers made of a paste: a partial Snapshot (only the inputs the paste holds are
    ``collected``; everything else is "not in the paste", so checks answer unknown for it), the
    parts it was cut into, and the text each part left for the signature scan."""

    snapshot: Snapshot
    parts: list[tuple[str, Part]]  # (input name, part)
    kinds: dict[str, int] = field(default_factory=dict)
    plugin_configs: list[tuple[str, str]] = field(default_factory=list)  # (name, YAML text)
    # nodes whose labels the paste does not show (a Capacity excerpt, a status fragment): a
    # label check on them would read "not pasted" as "absent"
    labels_unknown: set[str] = field(default_factory=set)
    # ClusterPolicies built from values or a spec excerpt: their status is not pasted, so a
    # status check would read "not shown" as "empty"
    status_unknown: set[str] = field(default_factory=set)
    # hosts whose pasted root config imports files the paste does not hold: the handlers those
    # files add are unknown, so "no nvidia handler in the files" is not shown
    imports_unpasted: dict[str, list[str]] = field(default_factory=dict)
    # nodes known only from a `kubectl get nodes` row: their capacity and taints are not pasted
    capacity_unknown: set[str] = field(default_factory=set)
    # DaemonSets known only from a `kubectl get ds` row: their tolerations (and, without
    # `-o wide`, their selector and images) are not pasted
    spec_unknown: set[str] = field(default_factory=set)
    # hosts whose pasted lsmod is a grep that does not show the nvidia module's row
    lsmod_nvidia_unknown: set[str] = field(default_factory=set)

    def reads_unpasted(self, f: Finding) -> bool:
        """Whether a finding stands on what the paste does not show: the capacity of a node
        known from a table row (the scheduling arithmetic and the count checks would read
        "not pasted" as zero GPUs) or the tolerations of a DaemonSet known from a row."""
        if f.code == "GX402" and f.subject.kind == "DaemonSet" and \
                f.subject.name in self.spec_unknown:
            return True
        if f.code == "GX507" and f.params.get("suspected") and \
                f.subject.name in self.lsmod_nvidia_unknown:
            return True  # "no nvidia module" read from a `lsmod | grep` that did not look
        if not self.capacity_unknown or not f.code.startswith(CAPACITY_CODES):
            return False
        return f.subject.kind != "Node" or f.subject.name in self.capacity_unknown


def _strip_imports(toml_text: str) -> str:
    """A ``containerd config dump`` is the merged result: its ``imports`` were already applied,
    so the files it names must not be read again (they are not in the paste)."""
    return re.sub(r"(?m)^[ \t]*imports[ \t]*=[ \t]*\[[^\]]{0,65536}\][ \t]*$", "", toml_text,
                  count=1)


def _decode_k8s(text: str) -> dict[str, list[Any]]:
    """Nodes, pods, events, runtime classes and daemonsets from a JSON/YAML fragment; a fragment
    that does not decode yields nothing (its lines are still scanned)."""
    out: dict[str, list[Any]] = {}
    try:
        docs = yaml_docs(text)
    except (InputError, ValueError, RecursionError, yaml.YAMLError):  # a fragment: lines still
        # go through the signature scan
        return out
    types: dict[str, tuple[str, type[Any]]] = {
        "Node": ("nodes", k8s.Node), "Pod": ("pods", k8s.Pod), "Event": ("events", k8s.Event),
        "RuntimeClass": ("runtimeclasses", k8s.RuntimeClass),
        "DaemonSet": ("daemonsets", k8s.DaemonSet),
        "ClusterPolicy": ("clusterpolicies", k8s.CustomResource),
        "ConfigMap": ("configmaps", k8s.ConfigMap)}
    items: list[Any] = []
    for d in docs:
        if isinstance(d, dict) and isinstance(d.get("items"), list):
            items.extend(d["items"])
        elif isinstance(d, dict):
            items.append(d)
    for it in items:
        if not isinstance(it, dict):
            continue
        kind = it.get("kind")
        if kind not in types:
            continue
        key, typ = types[kind]
        try:
            out.setdefault(key, []).append(msgspec.convert(it, typ, strict=False))
        except (msgspec.ValidationError, TypeError, ValueError):
            continue
    return out


def _find_status(obj: Any, budget: int = 20000) -> list[dict[str, Any]]:
    """Mappings holding both ``capacity`` and ``allocatable``, breadth-first over at most
    ``budget`` nodes (a YAML alias bomb shares nodes; walking it must stay bounded)."""
    out: list[dict[str, Any]] = []
    queue: deque[Any] = deque([obj])
    while queue and budget > 0:
        cur = queue.popleft()
        budget -= 1
        if isinstance(cur, dict):
            if isinstance(cur.get("capacity"), dict) and isinstance(cur.get("allocatable"), dict):
                out.append(cur)
                continue
            queue.extend(cur.values())
        elif isinstance(cur, list):
            queue.extend(cur)
    return out


def _node_fragments(text: str) -> list[k8s.Node]:
    """Nodes from an excerpt of ``kubectl get node -o yaml|json`` that kept ``status`` with
    ``capacity`` and ``allocatable`` but not the whole object (the rest of it was cut)."""
    try:
        docs = yaml_docs(textwrap.dedent(text))
    except (InputError, ValueError, RecursionError, yaml.YAMLError):
        return []
    out: list[k8s.Node] = []
    for d in docs:
        for st in _find_status(d):
            name = next((a.get("address", "") for a in st.get("addresses") or []
                         if isinstance(a, dict) and a.get("type") == "Hostname"), "") \
                or PASTED_HOST
            try:
                node = msgspec.convert({"metadata": {"name": str(name)},
                                        "status": {"capacity": st["capacity"],
                                                   "allocatable": st["allocatable"]}},
                                       k8s.Node, strict=False)
            except (msgspec.ValidationError, TypeError, ValueError):
                continue
            out.append(node)
    return out


_CAPACITY_HEAD = re.compile(r"^[ \t]*Capacity:[ \t]*$", re.M)


def _name_excerpts(text: str) -> str:
    """A describe excerpt without its ``Name:`` line, named so the describe parser reads it: one
    Capacity/Allocatable pair is the pasted node; several pairs (the same node before and after,
    or a node each) are read as one node each (``pasted-node``, ``pasted-node-2``, ...), so each
    pair's arithmetic is its own and a later pair does not overwrite an earlier one."""
    starts = [m.start() for m in _CAPACITY_HEAD.finditer(text)]
    if len(starts) < 2:
        return f"Name:  {PASTED_HOST}\n" + text
    cuts = [0, *starts[1:], len(text)]
    out = []
    for i in range(len(cuts) - 1):
        name = PASTED_HOST if i == 0 else f"{PASTED_HOST}-{i + 1}"
        out.append(f"Name:  {name}\n" + text[cuts[i]:cuts[i + 1]])
    return "\n".join(out)


def paste_evidence(inputs: list[TextInput], cleaned: bool = False) -> PasteEvidence:
    """Cut each input into parts and parse each with the bundle path's parser for its kind.

    Every reader below sees each input once without the ticket's wrapping (CRLF line ends,
    ``> `` quote markers, HTML, markdown tables: ``cleanup.clean_lines``, one line in, one
    out), the part splitter as much as the line-anchored readers of the whole input
    (``containerd --version``, a driver's version file, ``lspci -k``). ``cleaned``: the
    caller has already cleaned them (``triage`` scans the same cleaned lines); cleaning is
    not idempotent (an HTML entity decodes once)."""
    if not cleaned:
        inputs = [TextInput(ti.name, "\n".join(clean_lines(ti.text.splitlines())),
                            ti.truncated) for ti in inputs]
    from gpuxray.sources.mustgather import _allocation  # the must-gather's describe arithmetic

    nodes: dict[str, k8s.Node] = {}
    pods: dict[tuple[str, str], k8s.Pod] = {}
    events: list[k8s.Event] = []
    rcs: list[k8s.RuntimeClass] = []
    dss: list[k8s.DaemonSet] = []
    cps: list[k8s.CustomResource] = []
    cmds: dict[str, str] = {}
    files: dict[str, str] = {}
    parts: list[tuple[str, Part]] = []
    kinds: dict[str, int] = {}
    plugin_cfgs: list[tuple[str, str]] = []
    no_labels: set[str] = set()
    rows: list[tuple[pods_table.PodRow, str]] = []  # (row, namespace the command names)
    raw_logs: list[tuple[Part, str]] = []
    rc_listed = False  # a `kubectl get runtimeclass` listing was pasted (even an empty one)
    tabled = _Tables()  # nodes, DaemonSets, Deployments and events of pasted `kubectl get` rows
    cli_gpus = ""  # `nvidia-container-cli info`'s GPUs, in `nvidia-smi -L` form
    lsmod_partial = False  # the filed lsmod is a grep that does not show the nvidia module
    for ti in inputs:
        for part in split_paste(ti.text, cleaned=True):
            parts.append((ti.name, part))
            kinds[part.kind] = kinds.get(part.kind, 0) + 1
            k, t = part.kind, part.text
            ns_flag = paste.namespace_of(part.command)
            if k in (paste.GET_TABLE, paste.TEXT):
                rows += [(r, ns_flag) for r in pods_table.parse_pods_table(t)]
                tabled.add_tables(t, ns_flag)
            elif k == paste.EVENTS_TABLE and not tabled.add_events(t, ns_flag):
                events.extend(_table_events(t))  # a layout only the header's columns tell
            if k == paste.POD_LOG or (k == paste.TEXT and "[pod/" in t):
                raw_logs.append((part, t))
            if k == paste.NODE_STATUS or (k == paste.K8S_OBJECTS and not _decode_k8s(t)):
                for n in _node_fragments(t):
                    nodes.setdefault(n.metadata.name, n)
                    no_labels.add(n.metadata.name)
            if k == paste.DESCRIBE_NODE:
                if not re.search(r"^Name:", t, re.M):
                    t = _name_excerpts(t)  # Capacity/Allocatable excerpts, one node each
                for d in describe.parse_describe_nodes(reindent_describe(t)):
                    d.node.status.described_allocated = _allocation(d.allocated)
                    if not re.search(r"^[ \t]*Labels:", t, re.M):
                        no_labels.add(d.node.metadata.name)
                    nodes[d.node.metadata.name] = d.node
                    events.extend(d.events)
            elif k == paste.DESCRIBE_POD:
                for dp in describe.parse_describe_pods(t):
                    meta = dp.pod.metadata
                    pods[(meta.namespace or "default", meta.name)] = dp.pod
                    events.extend(dp.events)
            elif k == paste.DESCRIBE_OTHER:
                events.extend(describe.parse_describe_events(t, "DaemonSet"))
                for dd in describe.parse_describe_daemonsets(t):
                    if any(x.metadata.name == dd.daemonset.metadata.name for x in dss):
                        continue
                    if not dd.tolerations_shown:  # kubectl before 1.30 does not print them
                        dd.daemonset.metadata.annotations = {
                            TABLE_ORIGIN: "kubectl describe ds (no tolerations printed)"}
                    dss.append(dd.daemonset)
            elif k == paste.K8S_OBJECTS:
                got = _decode_k8s(t)
                if not got:
                    cp = _values_policy(t)  # `-o yaml` cut to its spec
                    if cp is not None:
                        cps.append(cp)
                for n in got.get("nodes", []):
                    nodes[n.metadata.name] = n
                for p in got.get("pods", []):
                    pods[(p.metadata.namespace or "default", p.metadata.name)] = p
                events += got.get("events", [])
                rcs += got.get("runtimeclasses", [])
                dss += got.get("daemonsets", [])
                cps += got.get("clusterpolicies", [])
                for cm in got.get("configmaps", []):
                    for key, value in sorted(cm.data.items()):
                        if re.search(r"^[ \t]*version:\s*v1[ \t]*$", value, re.M):
                            plugin_cfgs.append((f"ConfigMap {cm.metadata.name} key {key}",
                                                value))
            elif k == paste.HELM_VALUES:
                cp = _values_policy(t, "gpu-operator" in part.command)
                if cp is not None:
                    cps.append(cp)
            elif k == paste.RUNTIMECLASS_TABLE:
                listed, classes = _runtimeclass_table(t)
                rc_listed = rc_listed or listed
                rcs += classes
            elif k == paste.PLUGIN_CONFIG:
                plugin_cfgs.append((f"{ti.name}:{part.start}", t))
            elif k == paste.DMESG:
                cmds[CMD.DMESG] = cmds.get(CMD.DMESG, "") + "\n".join(
                    dmesg.join_continuations(t.splitlines())) + "\n"
            elif k == paste.LSMOD:
                kept, nvidia_unknown = _lsmod_rows(t, part.command)
                if kept is not None:
                    cmds[CMD.LSMOD] = kept
                    lsmod_partial = nvidia_unknown
            elif k == paste.UNAME and t.lstrip().startswith("Linux "):
                cmds[CMD.UNAME] = t  # `uname -a`, the bundle's form
            elif k == paste.CONTAINER_CLI:
                info = hostcmds.parse_container_cli_info(t)
                if info is not None and info.gpus:
                    cli_gpus = cli_gpus or _cli_gpu_list(info)
            elif k == paste.MOKUTIL:
                cmds[CMD.MOKUTIL] = t
            elif k == paste.SMI_XML:
                cmds[CMD.NVIDIA_SMI_Q] = t
            elif k in (paste.SMI, paste.SMI_QUERY):
                cmds[CMD.NVIDIA_SMI] = cmds.get(CMD.NVIDIA_SMI, "") + t
            elif k in (paste.SYSTEMCTL_STATUS, paste.SYSTEMCTL_SHOW):
                show = t if k == paste.SYSTEMCTL_SHOW else status_to_show(t)
                unit = part.unit or _status_unit(t)
                if show and "fabricmanager" in unit:
                    cmds[CMD.SYSTEMCTL_FM] = show
                elif show and unit == "containerd":
                    cmds[CMD.SYSTEMCTL_CONTAINERD] = show
            elif k == paste.JOURNAL and part.unit in JOURNAL_CMD:
                # `journalctl -u <unit>`: every line is the unit's, whatever its layout
                cmds[JOURNAL_CMD[part.unit]] = cmds.get(JOURNAL_CMD[part.unit], "") + t
            elif k == paste.CONTAINERD_DUMP:
                if not _FILTERED.search(part.command):
                    # a dump cut by a filter (`| head`, `| grep`) shows part of the config:
                    # what it leaves out is not missing from the daemon's config
                    files[ROOT_CONFIG] = _strip_imports(t)
                mv = re.search(r"^version\s*=\s*(\d+)[ \t]*$", t, re.M)
                first = DUMP_VERSION_FIRST.get(int(mv.group(1))) if mv else None
                if first:
                    # a dump is written in the newest config version its daemon knows
                    cmds.setdefault(CMD.CONTAINERD_VERSION,
                                    f"containerd github.com/containerd/containerd/v2 v{first} "
                                    f"(from config version {mv.group(1) if mv else ''})\n")
            elif k == paste.CONTAINERD_TOML and part.unit.startswith("/"):
                # `cat /etc/containerd/…toml`: the file at its path, so the merge engine reads
                # the root config and the drop-ins it imports the way containerd would
                files.setdefault(part.unit.lstrip("/"), t)
            if k in (paste.JOURNAL, paste.TEXT, paste.POD_LOG, paste.SYSTEMCTL_STATUS) and not (
                    k == paste.JOURNAL and part.unit in JOURNAL_CMD):
                # journal entries of the units a node check reads, wherever they were pasted
                for unit, lines in paste.journal_by_unit(t).items():
                    cmds[JOURNAL_CMD[unit]] = cmds.get(JOURNAL_CMD[unit], "") + lines
            if k not in (paste.DMESG, paste.SMI_XML):
                kl = paste.kernel_lines(dmesg.join_continuations(t.splitlines()))
                if kl:
                    cmds[CMD.DMESG] = cmds.get(CMD.DMESG, "") + "\n".join(kl) + "\n"
    # /proc/driver/nvidia/version printed anywhere (a `cat`, a bug report's section)
    drv = next((v for ti in inputs if (v := hostcmds.driver_version_file(ti.text))), "")
    if drv:
        files.setdefault(PROC_DRIVER_VERSION, drv)
    if cli_gpus and CMD.NVIDIA_SMI not in cmds and CMD.NVIDIA_SMI_Q not in cmds:
        cmds[CMD.NVIDIA_SMI] = cli_gpus
    # `containerd --version` printed anywhere: the daemon's own word, over what a dump's
    # config version implies
    version = next((v for ti in inputs if (v := _containerd_version_line(ti.text))), "")
    if version and "(from config version" in cmds.get(CMD.CONTAINERD_VERSION,
                                                       "(from config version"):
        cmds[CMD.CONTAINERD_VERSION] = version + "\n"
    if not cps:
        # `helm install … nvidia/gpu-operator --set …`, anywhere in the paste
        set_values: dict[str, Any] = {}
        for ti in inputs:
            set_values.update(helm.values_from_commands(ti.text))
        spec = helm.clusterpolicy_spec(set_values)
        if spec:
            cps.append(_policy(spec, "helm --set"))
    host_node = next(iter(nodes)) if len(nodes) == 1 else ""  # before table-only nodes join
    _policy_states(cps, tabled.policies)
    lsmod_partial = _bound_drivers(inputs, cmds) or lsmod_partial
    caps_unknown = tabled.merge_nodes(nodes, no_labels)
    events += tabled.events
    dss += [d for d in tabled.daemonsets(rows)
            if not any(x.metadata.name == d.metadata.name for x in dss)]
    deploys = tabled.deployments
    operator_ns = _table_pods(rows, pods, nodes) or tabled.operator_namespace
    logs = _pod_logs(raw_logs, pods)
    if all(name in no_labels for name in nodes):  # no pasted node shows its labels
        labels = _label_list(inputs)
        if labels:
            node = k8s.Node()
            node.metadata.name = PASTED_HOST
            node.metadata.labels = labels
            nodes[PASTED_HOST] = node
    snap = _snapshot(nodes, pods, events, rcs, dss, cps, cmds, files, operator_ns, logs,
                     rc_listed, deploys, host_node)
    unpasted = _unpasted_imports(files)
    return PasteEvidence(snap, parts, kinds, plugin_cfgs, no_labels,
                         {c.metadata.name for c in cps if "gpuxray/pasted-from" in
                          c.metadata.annotations and STATE_ORIGIN not in c.metadata.annotations},
                         {h: unpasted for h in snap.hosts} if unpasted else {},
                         caps_unknown, {d.metadata.name for d in dss
                                        if d.metadata.annotations.get(TABLE_ORIGIN)},
                         set(snap.hosts) if lsmod_partial else set())


# ``containerd --version`` (containerd/containerd@v2.0.0:version/version.go prints "containerd
# <package> <version> <revision>"): Docker's ``containerd.io`` package or upstream's module path.
_CONTAINERD_VERSION = re.compile(
    r"^[ \t]*(containerd (?:containerd\.io|github\.com/containerd/containerd(?:/v2)?) "
    r"v?\d+\.\d+\.\d+\S{0,40}(?: [0-9a-f]{7,40})?)[ \t]*$", re.M)


def _containerd_version_line(text: str) -> str:
    m = _CONTAINERD_VERSION.search(text[:FILE_LIMIT])
    return m.group(1) if m else ""


def _runtimeclass_table(text: str) -> tuple[bool, list[k8s.RuntimeClass]]:
    """``kubectl get runtimeclass`` (NAME HANDLER AGE) → (whether it is the whole listing,
    the classes). kubectl prints ``No resources found`` for an empty cluster-scoped list."""
    rows = wide.parse_wide(text)
    out = [k8s.RuntimeClass(metadata=k8s.ObjectMeta(name=r["NAME"]), handler=r["HANDLER"])
           for r in rows if r.get("NAME") and r.get("HANDLER")]
    empty = bool(re.search(r"^[ \t]*No resources found\.?[ \t]*$", text, re.M))
    return bool(out) or empty, out


def _unpasted_imports(files: dict[str, str]) -> list[str]:
    """``imports`` of the pasted root config that match no pasted file (a `config dump` has
    had its imports applied and removed: ``_strip_imports``)."""
    text = files.get(ROOT_CONFIG)
    if not text:
        return []
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return []
    imports = doc.get("imports")
    if not isinstance(imports, list):
        return []
    out = []
    for pat in imports[:100]:
        if not isinstance(pat, str):
            continue
        key = pat.lstrip("/")
        if not any(fnmatch.fnmatchcase(f, key) for f in files if f != ROOT_CONFIG):
            out.append(pat)
    return out


TABLE_ORIGIN = "gpuxray/pasted-from"
# DaemonSet names only the GPU Operator gives its operands (NVIDIA/gpu-operator@v25.10.1:
# assets/state-*/0500_daemonset.yaml); the standalone charts name theirs after the release
OPERATOR_ONLY_DS = frozenset({
    "nvidia-driver-daemonset", "nvidia-container-toolkit-daemonset",
    "nvidia-device-plugin-daemonset", "nvidia-operator-validator", "nvidia-mig-manager",
    "nvidia-node-status-exporter", "nvidia-device-plugin-mps-control-daemon"})


class _Tables:
    """Rows of pasted ``kubectl get nodes|ds|deploy|events`` tables, made objects once the whole
    paste is read (a richer paste of the same object — a describe, its YAML — wins)."""

    def __init__(self) -> None:
        self.nodes: dict[str, tables.NodeRow] = {}
        self.ds: dict[tuple[str, str], tuple[tables.DsRow, str]] = {}
        self.deploys: dict[tuple[str, str], tuple[tables.DeployRow, str]] = {}
        self.events: list[k8s.Event] = []
        self.policies: dict[str, str] = {}  # ClusterPolicy name → status.state

    def add_tables(self, text: str, ns_flag: str) -> None:
        for name, state in tables.parse_policy_rows(text):
            self.policies.setdefault(name, state)
        for n in tables.parse_node_rows(text):
            self.nodes.setdefault(n.name, n)
        for d in tables.parse_ds_rows(text):
            self.ds.setdefault((d.namespace or ns_flag, d.name), (d, ns_flag))
        for w in tables.parse_deploy_rows(text):
            self.deploys.setdefault((w.namespace or ns_flag, w.name), (w, ns_flag))
        self.add_events(text, ns_flag)

    def add_events(self, text: str, ns_flag: str) -> bool:
        rows = tables.parse_event_rows(text)
        self.events += [tables.event_object(r, ns_flag, len(self.events) + i)
                        for i, r in enumerate(rows)]
        return bool(rows)

    def merge_nodes(self, nodes: dict[str, k8s.Node], no_labels: set[str]) -> set[str]:
        """Add the table's nodes the paste shows nothing richer for; a row's labels complete a
        node whose labels were not pasted. Returns the nodes whose capacity is unknown."""
        unknown: set[str] = set()
        for name, row in list(self.nodes.items())[:MAX_TABLE_PODS]:
            have = nodes.get(name)
            if have is not None:
                if row.labels is not None and name in no_labels:
                    have.metadata.labels = {**row.labels, **have.metadata.labels}
                    no_labels.discard(name)
                continue
            nodes[name] = tables.node_object(row)
            unknown.add(name)
            if row.labels is None:
                no_labels.add(name)
        return unknown

    @property
    def operator_namespace(self) -> str:
        """The namespace the operand DaemonSets' rows show ("" when no operand is listed)."""
        names = [(ns, name) for (ns, name) in self.ds if operand_for(name) is not None]
        return next((ns for ns, _n in names if ns), OPERATOR_NAMESPACE_DEFAULT if names else "")

    def daemonsets(self, rows: list[tuple[pods_table.PodRow, str]]) -> list[k8s.DaemonSet]:
        pod_ns = next((r.namespace or ns for r, ns in rows
                       if operand_for(r.name) is not None and (r.namespace or ns)), "")
        out = []
        for (ns, name), (row, _flag) in list(self.ds.items())[:MAX_TABLE_PODS]:
            op = operand_for(name)
            if not ns:  # no NAMESPACE cell, no -n: an operand's is the operator's namespace
                ns = (pod_ns or OPERATOR_NAMESPACE_DEFAULT) if op is not None \
                    and op.daemonset == name else "default"
            ds = tables.ds_object(row, ns)
            ds.metadata.annotations = {TABLE_ORIGIN: "kubectl get ds" + (
                " -o wide" if row.containers else "")}
            if name in OPERATOR_ONLY_DS:
                # the operator's own operand names: owned by its ClusterPolicy
                ds.metadata.owner_references = [k8s.OwnerReference(kind="ClusterPolicy",
                                                                   name=HELM_POLICY)]
            out.append(ds)
        return out

    @property
    def deployments(self) -> list[k8s.Workload]:
        return [tables.deploy_object(row, ns or "default")
                for (ns, _n), (row, _f) in list(self.deploys.items())[:MAX_TABLE_PODS]]


STATE_ORIGIN = "gpuxray/state-from"


def _policy_states(cps: list[k8s.CustomResource], states: dict[str, str]) -> None:
    """``kubectl get clusterpolicy`` rows: the state of a policy the paste otherwise shows (its
    values, its spec) or, alone, a policy whose spec is not pasted."""
    for name, state in list(states.items())[:100]:
        cp = next((c for c in cps if c.metadata.name == name), None)
        if cp is None and len(cps) == 1 and cps[0].metadata.annotations.get(
                "gpuxray/pasted-from"):
            cp = cps[0]  # values render the chart's policy; the table names the real one
        if cp is None:
            cp = k8s.CustomResource(kind="ClusterPolicy")
            cp.metadata.name = name
            cp.metadata.annotations = {"gpuxray/pasted-from": "kubectl get clusterpolicy"}
            cps.append(cp)
        cp.metadata.name = name
        cp.status.state = state
        cp.metadata.annotations = {**cp.metadata.annotations, STATE_ORIGIN: "kubectl get"}


def _bound_drivers(inputs: list[TextInput], cmds: dict[str, str]) -> bool:
    """``lspci -k``'s ``Kernel driver in use`` of the NVIDIA GPUs, where no lsmod is pasted:
    the driver bound to a GPU is a loaded module, so it is filed as the lsmod row it would
    print (size and users unknown: 0, 1). Returns whether the nvidia module's state is then
    unknown (a GPU bound to nouveau says nothing of whether nvidia is loaded)."""
    if CMD.LSMOD in cmds:
        return False
    bound = [b for ti in inputs for b in lspci.bound_drivers(ti.text)]
    if not bound:
        return False
    drivers = list(dict.fromkeys(drv for _slot, drv, _ln in bound))
    cmds[CMD.LSMOD] = "Module                  Size  Used by\n" + "".join(
        f"{d:<23} 0  1\n" for d in drivers)
    return "nvidia" not in drivers


def _lsmod_rows(text: str, command: str) -> tuple[str | None, bool]:
    """The lsmod rows to file as the node's ``lsmod``, and whether the nvidia module's state is
    unknown. The whole table, or a ``lsmod | grep …`` whose pattern covers ``nvidia``, shows it
    (no nvidia row: not loaded); a grep for other words (``grep nouveau``) shows only the
    modules it kept, so an absent nvidia row says nothing. None: no rows to file."""
    words = hostcmds.lsmod_grep(command)
    if words is None or (all(words) and any("nvidia" in w for w in words)):
        return text, False
    if not lsmod.parse_lsmod(text):
        return None, True
    return text, True


def _cli_gpu_list(info: hostcmds.CliInfo) -> str:
    """``nvidia-container-cli info``'s devices in ``nvidia-smi -L`` form (``GPU i: Model (UUID:
    …)``): the same list, from the same NVML, in the shape the host GPU reader takes."""
    return "".join(f"GPU {g.index}: {g.model or 'NVIDIA GPU'} (UUID: {g.uuid})\n"
                   for g in info.gpus if g.uuid.startswith("GPU-"))


MAX_TABLE_PODS = 5000  # pods read from pasted tables (a ticket shows tens; bounded work)
HELM_POLICY = "cluster-policy"  # the name the chart gives its ClusterPolicy


def _policy(spec: dict[str, Any], origin: str) -> k8s.CustomResource:
    cp = k8s.CustomResource(kind="ClusterPolicy", spec=spec)
    cp.metadata.name = HELM_POLICY
    cp.metadata.annotations = {"gpuxray/pasted-from": origin}
    return cp


def _values_policy(text: str, named: bool = False) -> k8s.CustomResource | None:
    """The ClusterPolicy of a values excerpt (``values.yaml``, ``helm get values``) or of a
    ClusterPolicy cut to its ``spec:``; None when the text is neither."""
    doc = helm.values_from_yaml(text, named)
    if doc is None:
        return None
    spec = doc.get("spec")
    if isinstance(spec, dict) and helm.looks_like_values(spec):
        return _policy(spec, "ClusterPolicy spec")
    got = helm.clusterpolicy_spec(doc)
    return _policy(got, "helm values") if got else None


def _pod_logs(raw: list[tuple[Part, str]],
              pods: dict[tuple[str, str], k8s.Pod]) -> dict[tuple[str, str, str], PodLog]:
    """``kubectl logs`` output filed as the bundle files pod logs: per (namespace, pod,
    container), current or ``--previous``. The pod comes from the command (or the
    ``--prefix`` tags), the container from ``-c``, the tags, or kubectl's "Defaulted container"
    line. A log alone is filed under the pod its command names but makes no pod: it says
    nothing of its pod's state, and the operand checks would read an unknown state as a
    failing one; the checks that read logs by their pod's name (NFD's master) still see it."""
    by_name: dict[str, list[tuple[str, str]]] = {}
    for ns, name in pods:
        by_name.setdefault(name, []).append((ns, name))
    found: dict[tuple[str, str, str], dict[str, str]] = {}
    for part, text in raw:
        pod, container, previous = paste.log_target(part.command)
        ns_flag = paste.namespace_of(part.command)
        container = container or paste.defaulted_container(text)
        for (p, c), body in prefixed_logs.split_prefixed_logs(
                text, container or "<default>").items():
            name = p or pod
            keys = by_name.get(name, [])
            key = next((k for k in keys if k[0] == ns_flag), keys[0] if len(keys) == 1
                       else None) if keys else None
            if key is None and name and not keys:
                # a log pasted alone: filed under the pod its command (or prefix) names, in
                # the namespace it names (an operand's: the operator's); no pod is made of it
                key = (ns_flag or (OPERATOR_NAMESPACE_DEFAULT if operand_for(name) else
                                   "default"), name)
            if key is None:
                continue
            slot = "previous" if previous else "current"
            cur = found.setdefault((key[0], key[1], c), {})
            cur[slot] = cur.get(slot, "") + body
    return {k: PodLog(k[0], k[1], k[2], v.get("current"), v.get("previous"), "pasted text")
            for k, v in found.items()}


def _table_pods(rows: list[tuple[pods_table.PodRow, str]],
                pods: dict[tuple[str, str], k8s.Pod], nodes: dict[str, k8s.Node]) -> str:
    """Pods of pasted ``kubectl get pods`` rows, where the paste holds nothing richer for them
    (a describe, the object's YAML); returns the operator's namespace the rows show ("" when
    none). A row's namespace is its NAMESPACE cell, else the command's ``-n``; an operand pod
    with neither is taken to be in the operator's namespace (its name says what it is), any
    other pod in ``default`` (kubectl's). Without a NODE cell (``-o wide``) a pod is on the
    one node the paste shows, else on the pasted host."""
    rows = rows[:MAX_TABLE_PODS]
    operator_ns = next((r.namespace or ns for r, ns in rows
                        if operand_for(r.name) is not None and (r.namespace or ns)), "")
    default_node = next(iter(nodes)) if len(nodes) == 1 else PASTED_HOST
    # a DaemonSet runs one pod per node: its second pod in a table without NODE is on another
    # node, which the paste does not name
    per_ds: dict[str, int] = {}
    for r, ns_flag in rows:
        ns = r.namespace or ns_flag or (
            (operator_ns or OPERATOR_NAMESPACE_DEFAULT) if operand_for(r.name) else "default")
        key = (ns, r.name)
        if key in pods:
            continue
        node = r.node
        if not node:
            op = operand_for(r.name)
            seen = per_ds.get(op.daemonset, 0) if op is not None else 0
            if op is not None:
                per_ds[op.daemonset] = seen + 1
            node = default_node if seen == 0 else f"{PASTED_HOST}-{seen + 1}"
        pods[key] = pods_table.row_pod(r, ns, node)
    return operator_ns or (OPERATOR_NAMESPACE_DEFAULT if any(
        operand_for(r.name) for r, _ns in rows) else "")


_LABEL = re.compile(r"(?:^|[\s,`'\"])((?:[a-z0-9-]+\.)+[a-z]+/[\w.-]{1,63})=([\w.-]{0,63})"
                    r"(?=$|[\s,`'\"])")
# the same labels in a `-o yaml` (``key: "value"``) or `-o json` (``"key": "value",``) excerpt
_LABEL_YAML = re.compile(r"^[ \t]*\"?((?:[a-z0-9-]+\.)+[a-z]+/[\w.-]{1,63})\"?:[ \t]*"
                         r"[\"']?([\w.-]{0,63})[\"']?,?[ \t]*$")


def _label_list(inputs: list[TextInput]) -> dict[str, str]:
    """A node's labels pasted on their own (``--show-labels``, a Labels block cut out of a
    describe): taken only when they hold NFD's PCI labels, the ones that make a GPU node."""
    labels: dict[str, str] = {}
    for ti in inputs:
        for line in ti.text.splitlines()[:20000]:
            line = line[:paste.MAX_LINE]
            for m in _LABEL.finditer(line):
                labels[m.group(1)] = m.group(2)
            y = _LABEL_YAML.match(line)
            if y:
                labels[y.group(1)] = y.group(2)
    if not any(k.startswith("feature.node.kubernetes.io/pci-") for k in labels):
        return {}
    return labels


def _status_unit(text: str) -> str:
    m = re.search(r"([\w@.-]+)\.service", text)
    return m.group(1) if m else ""


_EVENT_HEAD = re.compile(r"^[ \t]*(?:NAMESPACE\s+)?LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE")


def _table_events(text: str) -> list[k8s.Event]:
    """``kubectl get events`` rows → Events (the message is the row's last column, to the end
    of the line)."""
    out: list[k8s.Event] = []
    for row in wide.parse_wide(text):
        obj = row.get("OBJECT", "")
        kind, _, name = obj.partition("/")
        msg = row.get("MESSAGE", "")
        if not msg:
            continue
        ev = k8s.Event(reason=row.get("REASON", ""), message=msg, type=row.get("TYPE", ""))
        ev.involved_object.kind = kind.capitalize() if kind.islower() else kind
        ev.involved_object.name = name
        ev.involved_object.namespace = row.get("NAMESPACE") or None
        out.append(ev)
    return out


# Top-level keys of ``kubectl describe node``; after ``Capacity:`` and its kin, a key that is not
# one of these belongs to the block above (a paste that lost its indentation).
_NODE_TOP = frozenset({
    "Name", "Roles", "Labels", "Annotations", "CreationTimestamp", "Taints", "Unschedulable",
    "Lease", "Conditions", "Addresses", "Capacity", "Allocatable", "System Info", "PodCIDR",
    "PodCIDRs", "ProviderID", "Non-terminated Pods", "Allocated resources", "Events"})
_KEY = re.compile(r"^([A-Za-z][\w ./()-]*?):(?:\s|$)")


def reindent_describe(text: str) -> str:
    """Give a describe-node paste whose indentation was lost (chat clients, some ticket forms)
    the two-space nesting kubectl prints, so the describe parser reads its blocks; text that
    kept its indentation is returned unchanged."""
    lines = text.splitlines()
    if any(ln.startswith("  ") and _KEY.match(ln.strip()) for ln in lines
           if ln.strip().startswith(("cpu:", "nvidia.com/", "memory:", "pods:"))):
        return text
    out: list[str] = []
    inside = False
    for ln in lines:
        s = ln.strip()
        m = _KEY.match(s)
        if not ln.startswith((" ", "\t")) and m and m.group(1) in _NODE_TOP:
            inside = m.group(1) not in ("Name", "Roles", "CreationTimestamp", "Unschedulable",
                                        "PodCIDR", "PodCIDRs", "ProviderID")
            out.append(s if not s.startswith(("Labels:", "Annotations:", "Taints:")) else ln)
            continue
        out.append(("  " + s) if inside and s and not ln.startswith((" ", "\t")) else ln)
    return "\n".join(out) + "\n"


def _snapshot(nodes: dict[str, k8s.Node], pods: dict[tuple[str, str], k8s.Pod],
              events: list[k8s.Event], rcs: list[k8s.RuntimeClass], dss: list[k8s.DaemonSet],
              cps: list[k8s.CustomResource], cmds: dict[str, str],
              files: dict[str, str], operator_ns: str = "",
              logs: dict[tuple[str, str, str], PodLog] | None = None,
              rc_listed: bool = False, deployments: list[k8s.Workload] | None = None,
              host_node: str = "") -> Snapshot:
    src = "pasted text"
    inputs: dict[Input, InputState] = {}
    for inp, have in ((Input.NODES, nodes), (Input.PODS, pods), (Input.OPERATOR_PODS, pods),
                      (Input.EVENTS, events),
                      (Input.RUNTIMECLASSES, rcs), (Input.DAEMONSETS, dss),
                      (Input.CLUSTERPOLICIES, cps), (Input.LOGS, logs),
                      (Input.DEPLOYMENTS, deployments)):
        inputs[inp] = InputState(bool(have), src, "partial: what the paste shows" if have
                                 else "not in the paste")
    if rc_listed:
        # `kubectl get runtimeclass` lists every class: "No resources found" is an empty list
        inputs[Input.RUNTIMECLASSES] = InputState(True, src, "`kubectl get runtimeclass`")
    hosts: dict[str, HostFacts] = {}
    if cmds or files:
        name = host_node or (next(iter(nodes)) if len(nodes) == 1 else PASTED_HOST)
        hosts[name] = HostFacts(name, files, cmds, {})
        inputs[Input.HOSTS] = InputState(True, src, "partial: what the paste shows")
    else:
        inputs[Input.HOSTS] = InputState(False, src, "not in the paste")
    for inp in Input:
        inputs.setdefault(inp, InputState(False, src, "not in the paste"))
    return Snapshot(inputs=inputs, nodes=list(nodes.values()), pods=list(pods.values()),
                    events=events, daemonsets=dss, deployments=deployments or [],
                    runtimeclasses=rcs, clusterpolicies=cps,
                    hosts=hosts, logs=logs or {}, origin="pasted",
                    manifest=Manifest(source_kind="pasted", operator_namespace=operator_ns))
