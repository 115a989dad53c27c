"""``kubectl describe node`` / ``kubectl describe pod`` text → the model's Node, Pod and Events.

Why: the GPU Operator's ``must-gather.sh`` keeps GPU nodes only as ``kubectl describe nodes``
text (``gpu_nodes.descr``) and operand pods also as ``kubectl describe pod`` text, and users paste
describe output into tickets. Describe text holds what the checks read about a node: labels,
taints, capacity vs allocatable (seed §2 gate 1), conditions, system info, and — only here —
the per-node "Allocated resources" sums, including extended resources such as
``nvidia.com/gpu`` (seed §6).

The format is kubectl's ``PrefixWriter`` over a Go ``tabwriter`` (padding 2): top-level
``Key:<pad>value`` lines at column 0, nested blocks indented by two spaces per level, tables with
a header and (mostly) a dashes line. Cells are separated by at least two spaces, so rows are split
on runs of two or more spaces, falling back to the column positions of the dashes line when a
cell is empty. An event message spanning several lines continues at column 0 (tabwriter does not
indent after a newline inside a cell); the Events table is always last, so such lines are glued
to the previous message. The parser never raises on junk: unknown lines are skipped.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from gpuxray.model import k8s

__all__ = [
    "DescribedDaemonSet",
    "DescribedNode",
    "DescribedPod",
    "PodRow",
    "parse_describe_daemonsets",
    "parse_describe_events",
    "parse_describe_nodes",
    "parse_describe_pods",
    "parse_table",
    "rfc1123_to_iso",
    "split_objects",
]

_TOP = re.compile(r"^([A-Z][A-Za-z0-9 ()/._-]*?):(?:[ \t]+(.*?))?\s*$")
_NESTED_KV = re.compile(r"^(\s+)([^:]+?):(?:\s+(.*?))?\s*$")
_CELL_SPLIT = re.compile(r"\s{2,}")
_DASHES = re.compile(r"-+")
_NONE = "<none>"
MAX_LINE = 64 * 1024  # a pathological line is cut, not parsed for ever


@dataclass(frozen=True, slots=True)
class PodRow:
    """One row of a node's "Non-terminated Pods" table (requests/limits as printed)."""

    namespace: str
    name: str
    cpu_requests: str
    cpu_limits: str
    memory_requests: str
    memory_limits: str
    age: str


@dataclass(slots=True)
class DescribedNode:
    node: k8s.Node
    allocated: dict[str, tuple[str, str]] = field(default_factory=dict)  # res -> (req, lim)
    pods: list[PodRow] = field(default_factory=list)
    events: list[k8s.Event] = field(default_factory=list)
    roles: str = ""


@dataclass(slots=True)
class DescribedPod:
    pod: k8s.Pod
    events: list[k8s.Event] = field(default_factory=list)
    qos_class: str = ""


@dataclass(slots=True)
class _Entry:
    key: str
    value: str
    body: list[str]


# ----- generic layout ---------------------------------------------------------------------
def _lines(text: str) -> list[str]:
    return [ln[:MAX_LINE].rstrip("\r") for ln in text.replace("\t", "    ").split("\n")]


def split_objects(text: str) -> list[list[str]]:
    """Several objects' descriptions (``kubectl describe nodes``) split at each ``Name:`` line."""
    out: list[list[str]] = []
    cur: list[str] | None = None
    for ln in _lines(text):
        if ln.startswith("Name:") and _TOP.match(ln):
            cur = []
            out.append(cur)
        if cur is not None:
            cur.append(ln)
    return out


def starts_object(line: str) -> bool:
    """Whether :func:`split_objects` starts an object at this line (one line, no newline):
    a reader can then cut a large text there and split the parts alike."""
    ln = _lines(line)[0]
    return ln.startswith("Name:") and bool(_TOP.match(ln))


def _entries(lines: list[str]) -> list[_Entry]:
    out: list[_Entry] = []
    in_events = False
    for ln in lines:
        if in_events:
            out[-1].body.append(ln)
            continue
        m = _TOP.match(ln) if ln[:1] not in (" ", "") else None
        if m:
            out.append(_Entry(m.group(1), (m.group(2) or "").strip(), []))
            in_events = m.group(1) == "Events"
        elif out:
            out[-1].body.append(ln)
    return out


def _multi(entry: _Entry) -> list[str]:
    """A multi-line value (Labels, Taints, Tolerations…): first value then indented lines."""
    vals = [entry.value] + [b.strip() for b in entry.body]
    return [v for v in vals if v and v != _NONE]


def _nested(entry: _Entry) -> dict[str, str]:
    out: dict[str, str] = {}
    for b in entry.body:
        m = _NESTED_KV.match(b)
        if m:
            out[m.group(2).strip()] = (m.group(3) or "").strip()
    return out


def _column_starts(dashes: str) -> list[int]:
    return [m.start() for m in _DASHES.finditer(dashes)]


def parse_table(body: list[str]) -> list[dict[str, str]]:
    """A describe table: header row, optional dashes row, then rows; cells by ≥2 spaces.

    Returns one dict per row keyed by header names; rows that cannot be split into the header's
    cells (even by column positions) are skipped. Continuation lines (an indented row that does
    not split, or a column-0 line) are appended to the last cell of the previous row.
    """
    rows = [b for b in body if b.strip()]
    if not rows:
        return []
    header_line = rows[0]
    indent = len(header_line) - len(header_line.lstrip())
    headers = _CELL_SPLIT.split(header_line.strip())
    starts: list[int] | None = None
    i = 1
    if len(rows) > 1 and set(rows[1].strip()) <= {"-", " "} and rows[1].strip():
        starts = _column_starts(rows[1])
        i = 2
        if len(starts) != len(headers):
            headers = [header_line[s:e].strip() for s, e in
                       zip(starts, [*starts[1:], len(header_line) + 1], strict=True)]
    out: list[dict[str, str]] = []
    for row in rows[i:]:
        if not row.startswith(" " * indent) or (indent and row[:1] != " "):
            if out:  # a message continued on the next line
                last = headers[-1]
                out[-1][last] = (out[-1][last] + "\n" + row).strip()
            continue
        cells = _CELL_SPLIT.split(row.strip(), maxsplit=len(headers) - 1)
        if len(cells) != len(headers) and starts is not None:
            ends = [*starts[1:], max(len(row), starts[-1]) + 1]
            cells = [row[s:e].strip() for s, e in zip(starts, ends, strict=True)]
        if len(cells) < len(headers):
            cells += [""] * (len(headers) - len(cells))
        elif len(cells) > len(headers):  # a mangled paste: the rest joins the last cell
            cells = [*cells[: len(headers) - 1], " ".join(cells[len(headers) - 1:])]
        out.append(dict(zip(headers, (c.strip() for c in cells), strict=True)))
    return out


_RFC1123Z = re.compile(r"^[A-Z][a-z]{2}, (\d{1,2}) ([A-Z][a-z]{2}) (\d{4}) "
                       r"(\d{2}):(\d{2}):(\d{2}) ([+-]\d{4}|UTC|GMT)$")
_MONTHS = {m: i for i, m in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}


@functools.lru_cache(maxsize=4096)
def rfc1123_to_iso(text: str) -> str | None:
    """``Fri, 20 Nov 2026 08:00:00 +0000`` (kubectl's RFC1123Z) → ``2026-11-20T08:00:00Z``.

    A regex, not ``strptime``: describe output of a large cluster holds tens of thousands of
    timestamps, and they repeat (cached). Go's zero time (year 1) means unset → None.
    """
    m = _RFC1123Z.match(text.strip())
    if not m or m.group(2) not in _MONTHS:
        return None
    day, _mon, year, hh, mm, ss, zone = m.groups()
    if int(year) <= 1:
        return None
    try:
        dt = datetime(int(year), _MONTHS[m.group(2)], int(day), int(hh), int(mm), int(ss),
                      tzinfo=UTC)
    except ValueError:
        return None
    if zone[0] in "+-":
        sign = 1 if zone[0] == "+" else -1
        dt -= sign * timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5]))
    return f"{dt.year:04d}-{dt:%m-%dT%H:%M:%S}Z"


def _kv_list(items: list[str], sep: str = "=") -> dict[str, str]:
    out: dict[str, str] = {}
    for it in items:
        k, _, v = it.partition(sep)
        if k:
            out[k.strip()] = v.strip()
    return out


def _annotations(entry: _Entry) -> dict[str, str]:
    out: dict[str, str] = {}
    last: str | None = None
    for v in [entry.value, *entry.body]:
        s = v.strip()
        if not s or s == _NONE:
            continue
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9./_-]*): ?(.*)$", s)
        if m:
            last = m.group(1)
            out[last] = m.group(2)
        elif last is not None:
            out[last] += "\n" + s
    return out


def parse_taint(text: str) -> k8s.Taint | None:
    """``key=value:Effect`` or ``key:Effect`` (``Taint.ToString``)."""
    head, sep, effect = text.strip().rpartition(":")
    if not sep or not head:
        return None
    key, _, value = head.partition("=")
    return k8s.Taint(key=key, value=value, effect=effect)


def parse_toleration(text: str) -> k8s.Toleration:
    """``key=value:Effect op=Exists for 300s`` — the inverse of kubectl's toleration printer."""
    s = text.strip()
    seconds: int | None = None
    m = re.search(r"\s*for (\d+)s$", s)
    if m:
        seconds = int(m.group(1))
        s = s[: m.start()]
    op = "Equal"
    if s.endswith("op=Exists"):
        op = "Exists"
        s = s[: -len("op=Exists")].rstrip()
    key_value, _, effect = s.partition(":")
    key, _, value = key_value.partition("=")
    return k8s.Toleration(key=key, operator=op, value=value, effect=effect,
                          toleration_seconds=seconds)


def _events(entry: _Entry | None, kind: str, name: str, namespace: str | None,
            host: str = "") -> list[k8s.Event]:
    if entry is None or entry.value == _NONE:
        return []
    out = []
    for i, row in enumerate(parse_table(entry.body)):
        reason = row.get("Reason", "")
        if not reason:
            continue
        age = row.get("Age", "")
        m = re.search(r"\(x(\d+) over", age)
        component, _, src_host = row.get("From", "").partition(",")
        out.append(k8s.Event(
            metadata=k8s.ObjectMeta(name=f"{name}.described.{i}", namespace=namespace or "default"),
            involved_object=k8s.ObjectReference(kind=kind, name=name, namespace=namespace),
            reason=reason, message=row.get("Message", ""), type=row.get("Type", ""),
            count=int(m.group(1)) if m else 1,
            source=k8s.EventSource(component=component.strip(),
                                   host=src_host.strip() or host)))
    return out


def _by_key(entries: list[_Entry]) -> dict[str, _Entry]:
    out: dict[str, _Entry] = {}
    for e in entries:
        out.setdefault(e.key, e)
    return out


# ----- nodes ------------------------------------------------------------------------------
_SYSINFO = {
    "Kernel Version": "kernel_version",
    "OS Image": "os_image",
    "Container Runtime Version": "container_runtime_version",
    "Kubelet Version": "kubelet_version",
    "Architecture": "architecture",
    "Operating System": "operating_system",
}


def _node(lines: list[str]) -> DescribedNode | None:
    entries = _entries(lines)
    by = _by_key(entries)
    name_e = by.get("Name")
    if name_e is None or not name_e.value:
        return None
    name = name_e.value
    labels = _kv_list(_multi(by["Labels"])) if "Labels" in by else {}
    annotations = _annotations(by["Annotations"]) if "Annotations" in by else {}
    taints = [t for t in (parse_taint(s) for s in _multi(by["Taints"])) if t] \
        if "Taints" in by else []
    unsched = by.get("Unschedulable")
    conds = []
    if "Conditions" in by:
        for row in parse_table(by["Conditions"].body):
            conds.append(k8s.Condition(
                type=row.get("Type", ""), status=row.get("Status", ""),
                reason=row.get("Reason", ""), message=row.get("Message", ""),
                last_heartbeat_time=rfc1123_to_iso(row.get("LastHeartbeatTime", "")),
                last_transition_time=rfc1123_to_iso(row.get("LastTransitionTime", ""))))
    capacity: dict[str, str | int | float] = dict(_nested(by["Capacity"])) \
        if "Capacity" in by else {}
    allocatable: dict[str, str | int | float] = dict(_nested(by["Allocatable"])) \
        if "Allocatable" in by else {}
    info_raw = _nested(by["System Info"]) if "System Info" in by else {}
    info = k8s.NodeSystemInfo(**{attr: info_raw.get(key, "") for key, attr in _SYSINFO.items()})
    created = rfc1123_to_iso(by["CreationTimestamp"].value) if "CreationTimestamp" in by else None
    node = k8s.Node(
        metadata=k8s.ObjectMeta(name=name, labels=labels, annotations=annotations,
                                creation_timestamp=created),
        spec=k8s.NodeSpec(taints=taints,
                          unschedulable=bool(unsched and unsched.value.lower() == "true")),
        status=k8s.NodeStatus(capacity=capacity, allocatable=allocatable, conditions=conds,
                              node_info=info))
    out = DescribedNode(node=node, roles=by["Roles"].value if "Roles" in by else "")
    if "Non-terminated Pods" in by:
        for row in parse_table(by["Non-terminated Pods"].body):
            if not row.get("Name"):
                continue
            out.pods.append(PodRow(row.get("Namespace", ""), row["Name"],
                                   row.get("CPU Requests", ""), row.get("CPU Limits", ""),
                                   row.get("Memory Requests", ""),
                                   row.get("Memory Limits", ""), row.get("Age", "")))
    if "Allocated resources" in by:
        body = [b for b in by["Allocated resources"].body
                if not b.strip().startswith("(Total limits")]
        for row in parse_table(body):
            res = row.get("Resource", "")
            if res:
                out.allocated[res] = (_strip_pct(row.get("Requests", "")),
                                      _strip_pct(row.get("Limits", "")))
    out.events = _events(by.get("Events"), "Node", name, None, host=name)
    return out


def _strip_pct(cell: str) -> str:
    """``4Gi (0%)`` → ``4Gi``: the percentage is relative to allocatable, not data."""
    return re.sub(r"\s*\(\d+%\)$", "", cell.strip())


def parse_describe_nodes(text: str) -> list[DescribedNode]:
    """Every node in ``kubectl describe node(s)`` output; unparseable blocks are skipped."""
    return [d for block in split_objects(text) if (d := _node(block)) is not None]


# ----- pods -------------------------------------------------------------------------------
def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _container_blocks(body: list[str]) -> Iterator[tuple[str, list[str]]]:
    """``  name:`` at indent 2, its fields at indent 4 and deeper."""
    name: str | None = None
    cur: list[str] = []
    for ln in body:
        if not ln.strip():
            continue
        if _indent(ln) == 2 and ln.rstrip().endswith(":") and " " not in ln.strip()[:-1]:
            if name is not None:
                yield name, cur
            name, cur = ln.strip()[:-1], []
        elif name is not None:
            cur.append(ln)
    if name is not None:
        yield name, cur


def _container_fields(lines: list[str]) -> list[tuple[str, str, list[str]]]:
    """Fields at indent 4 (``Image:``, ``State:``…) each with its deeper lines."""
    out: list[tuple[str, str, list[str]]] = []
    for ln in lines:
        m = _NESTED_KV.match(ln)
        if _indent(ln) == 4 and m:
            out.append((m.group(2).strip(), (m.group(3) or "").strip(), []))
        elif out:
            out[-1][2].append(ln)
    return out


def _state(kind: str, sub: list[str]) -> k8s.ContainerState:
    kv: dict[str, str] = {}
    for ln in sub:
        m = _NESTED_KV.match(ln)
        if m and _indent(ln) == 6:
            kv[m.group(2).strip()] = (m.group(3) or "").strip()
    if kind == "Running":
        return k8s.ContainerState(running=k8s.ContainerStateRunning(
            started_at=rfc1123_to_iso(kv.get("Started", ""))))
    if kind == "Terminated":
        try:
            code = int(kv.get("Exit Code", "0"))
        except ValueError:
            code = 0
        return k8s.ContainerState(terminated=k8s.ContainerStateTerminated(
            reason=kv.get("Reason", ""), message=kv.get("Message", ""), exit_code=code,
            started_at=rfc1123_to_iso(kv.get("Started", "")),
            finished_at=rfc1123_to_iso(kv.get("Finished", ""))))
    if kind == "Waiting":
        return k8s.ContainerState(waiting=k8s.ContainerStateWaiting(
            reason=kv.get("Reason", ""), message=kv.get("Message", "")))
    return k8s.ContainerState()


def _resources(sub: list[str]) -> dict[str, str | int | float]:
    out: dict[str, str | int | float] = {}
    for ln in sub:
        m = _NESTED_KV.match(ln)
        if m and _indent(ln) == 6:
            out[m.group(2).strip()] = (m.group(3) or "").strip()
    return out


def _containers(entry: _Entry | None) -> tuple[list[k8s.Container], list[k8s.ContainerStatus]]:
    specs: list[k8s.Container] = []
    statuses: list[k8s.ContainerStatus] = []
    if entry is None:
        return specs, statuses
    for name, lines in _container_blocks(entry.body):
        fields = _container_fields(lines)
        f = {k: (v, sub) for k, v, sub in fields}
        env: list[k8s.EnvVar] = []
        if "Environment" in f:
            for ln in f["Environment"][1]:
                m = _NESTED_KV.match(ln)
                if m and _indent(ln) == 6:
                    env.append(k8s.EnvVar(name=m.group(2).strip(),
                                          value=(m.group(3) or "").strip()))
        specs.append(k8s.Container(
            name=name, image=f.get("Image", ("", []))[0],
            resources=k8s.ResourceRequirements(
                requests=_resources(f["Requests"][1]) if "Requests" in f else {},
                limits=_resources(f["Limits"][1]) if "Limits" in f else {}),
            env=env,
            restart_policy=f["Restart Policy"][0] if "Restart Policy" in f else None))
        if "State" in f or "Ready" in f:
            try:
                restarts = int(f.get("Restart Count", ("0", []))[0])
            except ValueError:
                restarts = 0
            st = f.get("State", ("", []))
            last = f.get("Last State", ("", []))
            statuses.append(k8s.ContainerStatus(
                name=name, ready=f.get("Ready", ("False", []))[0] == "True",
                restart_count=restarts, state=_state(st[0], st[1]),
                last_state=_state(last[0], last[1]), image=f.get("Image", ("", []))[0]))
    return specs, statuses


def _owner(text: str) -> list[k8s.OwnerReference]:
    kind, sep, name = text.partition("/")
    if not sep:
        return []
    return [k8s.OwnerReference(kind=kind, name=name, controller=True)]


def _pod(lines: list[str]) -> DescribedPod | None:
    entries = _entries(_reindent_containers(lines))
    by = _by_key(entries)
    name_e = by.get("Name")
    if name_e is None or not name_e.value:
        return None
    name = name_e.value
    ns = by["Namespace"].value if "Namespace" in by else "default"
    node = by["Node"].value if "Node" in by else ""
    node_name = "" if node in ("", _NONE) else node.split("/", 1)[0]
    for key in ("Init Containers", "Containers"):
        if key in by:
            by[key].body[:] = _relevel(by[key].body)
    init_specs, init_status = _containers(by.get("Init Containers"))
    specs, statuses = _containers(by.get("Containers"))
    conds = [k8s.PodCondition(type=r.get("Type", ""), status=r.get("Status", ""))
             for r in parse_table(by["Conditions"].body)] if "Conditions" in by else []
    phase = by["Status"].value.split(" ", 1)[0] if "Status" in by else "Pending"
    spec = k8s.PodSpec(
        node_name=node_name,
        node_selector=_kv_list(_multi(by["Node-Selectors"])) if "Node-Selectors" in by else {},
        tolerations=[parse_toleration(t) for t in _multi(by["Tolerations"])]
        if "Tolerations" in by else [],
        containers=specs, init_containers=init_specs,
        runtime_class_name=by["Runtime Class Name"].value if "Runtime Class Name" in by else None)
    status = k8s.PodStatusConditions(
        phase=phase if phase != "Terminating" else "Running", conditions=conds,
        container_statuses=statuses, init_container_statuses=init_status,
        reason=by["Reason"].value if "Reason" in by else "",
        message=by["Message"].value if "Message" in by else "",
        start_time=rfc1123_to_iso(by["Start Time"].value) if "Start Time" in by else None)
    meta = k8s.ObjectMeta(
        name=name, namespace=ns,
        labels=_kv_list(_multi(by["Labels"])) if "Labels" in by else {},
        annotations=_annotations(by["Annotations"]) if "Annotations" in by else {},
        owner_references=_owner(by["Controlled By"].value) if "Controlled By" in by else [])
    pod = k8s.PodWithConditions(metadata=meta, spec=spec, status=status)
    return DescribedPod(pod=pod, events=_events(by.get("Events"), "Pod", name, ns),
                        qos_class=by["QoS Class"].value if "QoS Class" in by else "")


# kubectl's describeContainers fields (LEVEL_2 under a container; kubernetes/kubectl@v0.34.0:
# pkg/describe/describe.go describeContainerBasicInfo … describeContainerVolumes)
_CONTAINER_FIELDS = frozenset({
    "Container ID", "Image", "Image ID", "Port", "Ports", "Host Port", "Host Ports",
    "SeccompProfile", "Command", "Args", "State", "Last State", "Ready", "Restart Count",
    "Limits", "Requests", "Liveness", "Readiness", "Startup", "Environment Variables from",
    "Environment", "Mounts", "Devices", "Allocated resources", "Resources", "Restart Policy",
    "Started"})
_NAME_LINE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?:$")
_FIELD_KEY = re.compile(r"^([A-Z][A-Za-z ]*?):(?:\s|$)")


def _reindent_containers(lines: list[str]) -> list[str]:
    """A describe pod whose indentation was lost (every line at column 0): the Containers and
    Init Containers blocks get kubectl's nesting back — a container's name at 2, its fields at
    4, what a field holds (state reason, resources, variables, mounts) at 6. Text that kept
    its indentation is returned unchanged."""
    if any(ln.startswith("  ") and _FIELD_KEY.match(ln.strip()) and
           _FIELD_KEY.match(ln.strip()).group(1) in _CONTAINER_FIELDS  # type: ignore[union-attr]
           for ln in lines):
        return lines
    out: list[str] = []
    inside = False
    for ln in lines:
        s = ln.strip()
        m = _TOP.match(s) if s else None
        key = m.group(1) if m else ""
        if key in ("Containers", "Init Containers") and not ln.startswith(" "):
            inside = True
            out.append(s)
            continue
        if inside and m and key not in _CONTAINER_FIELDS and key not in (
                "Reason", "Message", "Exit Code", "Signal", "Started", "Finished"):
            inside = False  # the next top-level section (Conditions, Volumes, QoS Class, …)
        if not inside or not s:
            out.append(ln)
        elif _NAME_LINE.match(s):
            out.append("  " + s)
        elif key in _CONTAINER_FIELDS:
            out.append("    " + s)
        else:
            out.append("      " + s)
    return out


def _relevel(body: list[str]) -> list[str]:
    """A container block indented in another unit than kubectl's two spaces (tabs, four
    spaces): its distinct indentation levels mapped back onto 2, 4, 6, …"""
    levels = sorted({_indent(ln) for ln in body if ln.strip()})
    if not levels or levels[0] <= 2:  # kubectl's own (a wrapped value may sit at column 0)
        return body
    want = {lv: 2 * (i + 1) for i, lv in enumerate(levels)}
    return [" " * want[_indent(ln)] + ln.strip() if ln.strip() else ln for ln in body]


def parse_describe_pods(text: str) -> list[DescribedPod]:
    """Every pod in ``kubectl describe pod(s)`` output; unparseable blocks are skipped."""
    return [d for block in split_objects(text) if (d := _pod(block)) is not None]


def parse_describe_events(text: str, kind: str) -> list[k8s.Event]:
    """The Events tables of any ``kubectl describe`` output (e.g. DaemonSets), per object."""
    out: list[k8s.Event] = []
    for block in split_objects(text):
        by = _by_key(_entries(block))
        name = by["Name"].value if "Name" in by else ""
        if not name:
            continue
        ns = by["Namespace"].value if "Namespace" in by else None
        out.extend(_events(by.get("Events"), kind, name, ns))
    return out


# ----- DaemonSets -------------------------------------------------------------------------
@dataclass(slots=True)
class DescribedDaemonSet:
    daemonset: k8s.DaemonSet
    tolerations_shown: bool  # kubectl prints the template's tolerations only since 1.30
    events: list[k8s.Event] = field(default_factory=list)


_DS_COUNTS = {
    "Desired Number of Nodes Scheduled": "desired_number_scheduled",
    "Current Number of Nodes Scheduled": "current_number_scheduled",
    "Number of Nodes Scheduled with Up-to-date Pods": "updated_number_scheduled",
    "Number of Nodes Scheduled with Available Pods": "number_available",
    "Number of Nodes Misscheduled": "number_misscheduled",
}
_TEMPLATE_KEY = re.compile(r"^  ([A-Z][A-Za-z -]*?):(?:[ \t]+(.*?))?\s*$")
_TEMPLATE_CONTAINER = re.compile(r"^   ([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?):\s*$")
_TEMPLATE_IMAGE = re.compile(r"^\s{4,}Image:\s+(\S+)\s*$")


def _template(body: list[str]) -> tuple[list[k8s.Container], list[k8s.Container],
                                        list[k8s.Toleration] | None, dict[str, str] | None]:
    """``Pod Template:`` (kubectl's ``DescribePodTemplate``): its containers and images, and —
    kubectl 1.30 on — its Node-Selectors and Tolerations (None when not printed)."""
    section, key = "", ""
    inits: list[k8s.Container] = []
    conts: list[k8s.Container] = []
    tol: list[str] | None = None
    sel: list[str] | None = None
    for ln in body:
        m = _TEMPLATE_KEY.match(ln)
        if m:
            key = m.group(1)
            value = (m.group(2) or "").strip()
            if key in ("Containers", "Init Containers"):
                section = key
            elif key == "Tolerations":
                tol = [value] if value and value != _NONE else []
            elif key == "Node-Selectors":
                sel = [value] if value and value != _NONE else []
            else:
                section = ""
            continue
        if key in ("Tolerations", "Node-Selectors") and ln.startswith("   ") and ln.strip():
            more = tol if key == "Tolerations" else sel
            if more is not None:
                more.append(ln.strip())  # one toleration (label) per continuation line
            continue
        c = _TEMPLATE_CONTAINER.match(ln)
        if c and section:
            (inits if section == "Init Containers" else conts).append(k8s.Container(
                name=c.group(1)))
            continue
        im = _TEMPLATE_IMAGE.match(ln)
        target = inits if section == "Init Containers" else conts
        if im and section and target and not target[-1].image:
            target[-1].image = im.group(1)
    tolerations = [parse_toleration(t) for t in tol] if tol is not None else None
    selector = _kv_list(sel) if sel is not None else None
    return inits, conts, tolerations, selector


def _daemonset(lines: list[str]) -> DescribedDaemonSet | None:
    by = _by_key(_entries(lines))
    if "Name" not in by or not by["Name"].value or not any(k in by for k in _DS_COUNTS):
        return None
    name = by["Name"].value
    ns = by["Namespace"].value if "Namespace" in by else "default"
    ds = k8s.DaemonSet(metadata=k8s.ObjectMeta(
        name=name, namespace=ns, labels=_kv_list(_multi(by["Labels"])) if "Labels" in by else {}))
    for key, attr in _DS_COUNTS.items():
        if key in by and by[key].value.isdigit():
            setattr(ds.status, attr, int(by[key].value))
    # describe prints no ready count; with the default minReadySeconds 0 a ready pod is an
    # available one (kubernetes/kubernetes@v1.34.0:pkg/controller/daemon/daemon_controller.go)
    ds.status.number_ready = ds.status.number_available
    ds.status.number_unavailable = max(0, ds.status.desired_number_scheduled
                                       - ds.status.number_available)
    spec = ds.spec.template.spec
    sel = by["Node-Selector"].value if "Node-Selector" in by else ""
    spec.node_selector = _kv_list([s for s in sel.split(",") if s]) if sel != _NONE else {}
    tolerations = None
    if "Pod Template" in by:
        inits, conts, tolerations, tsel = _template(by["Pod Template"].body)
        spec.init_containers, spec.containers = inits, conts
        if tsel:
            spec.node_selector = {**tsel, **spec.node_selector}
    spec.tolerations = tolerations or []
    return DescribedDaemonSet(ds, tolerations is not None,
                              _events(by.get("Events"), "DaemonSet", name, ns))


def parse_describe_daemonsets(text: str) -> list[DescribedDaemonSet]:
    """``kubectl describe ds`` (one or several DaemonSets) → DaemonSets with their counts,
    node selector, template containers and (kubectl ≥ 1.30) tolerations."""
    return [d for d in (_daemonset(b) for b in split_objects(text)) if d is not None]
