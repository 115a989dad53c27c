"""``kubectl get nodes|ds|deploy|events`` tables as pasted → the objects kubectl printed them from.

Why: after ``kubectl get pods``, these are the tables tickets show most: which nodes are Ready
and what they run, whether an operand DaemonSet has fewer ready pods than it wants (seed §1: the
driver pod failing leaves DESIRED > READY on every later operand), whether the operator's
Deployment is up, and what the events say. Pasted tables are cut by ``grep`` (no header), their
columns shifted by tabs or chat clients, so, as :mod:`pods_table` does for pods, a row is read
by its cells' shapes, not the header's positions:

- nodes (kubernetes/kubernetes@v1.34.0:pkg/printers/internalversion/printers.go
  ``nodeColumnDefinitions``): ``NAME STATUS ROLES AGE VERSION`` then with ``-o wide``
  ``INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME`` and with
  ``--show-labels`` a last ``LABELS`` cell; STATUS is ``Ready``/``NotReady``/``Unknown``, with
  ``,SchedulingDisabled`` for a cordoned node; kubectl before 1.9 printed no ROLES.
- DaemonSets (``daemonSetColumnDefinitions``): ``[NAMESPACE] NAME DESIRED CURRENT READY
  UP-TO-DATE AVAILABLE NODE SELECTOR AGE [CONTAINERS IMAGES SELECTOR]``.
- Deployments (``deploymentColumnDefinitions``): ``[NAMESPACE] NAME READY UP-TO-DATE AVAILABLE
  AGE [CONTAINERS IMAGES SELECTOR]``; kubectl before 1.15 printed ``NAME DESIRED CURRENT
  UP-TO-DATE AVAILABLE AGE``.
- events: ``kubectl get events`` (``eventColumnDefinitions``: ``LAST SEEN TYPE REASON OBJECT
  MESSAGE``, with ``-o wide`` ``SUBOBJECT SOURCE`` before and ``FIRST SEEN COUNT NAME`` after
  the message), ``kubectl events`` (kubernetes/kubectl@v0.34.0:pkg/cmd/events/event_printer.go:
  ``LAST SEEN TYPE REASON OBJECT MESSAGE``, LAST SEEN as ``5m (x12 over 10m)``), and the layout
  kubectl printed before 1.14 (``LAST SEEN FIRST SEEN COUNT NAME KIND SUBOBJECT TYPE REASON
  SOURCE MESSAGE``); an ``-A`` NAMESPACE cell first in each.

What a row does not show (a node's capacity and taints, a DaemonSet's tolerations) is not
invented: the caller marks it unknown. Bounded: rows longer than ``MAX_ROW`` are skipped and at
most ``MAX_ROWS`` are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpuxray.model import k8s

__all__ = [
    "KIND_WORDS",
    "DeployRow",
    "DsRow",
    "EventRow",
    "NodeRow",
    "deploy_object",
    "ds_object",
    "event_object",
    "node_object",
    "parse_deploy_rows",
    "parse_ds_rows",
    "parse_event_rows",
    "parse_node_rows",
    "parse_policy_rows",
]

MAX_ROW = 8192  # --show-labels rows run long
MAX_ROWS = 5000

_NAME = r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?"
_AGE = r"(?:\d{1,6}[smhdy])+|<unknown>|<invalid>"
_LABELS = r"(?:[\w./-]{1,253}=[\w.-]{0,63})(?:,[\w./-]{1,253}=[\w.-]{0,63})*|<none>"

_NODE_ROW = re.compile(
    rf"^(?P<name>{_NAME})\s+(?P<status>(?:Ready|NotReady|Unknown)(?:,SchedulingDisabled)?)\s+"
    rf"(?:(?P<roles>\S+)\s+)?(?P<age>{_AGE})\s+(?P<version>v\d+\.\d+\.\d+\S{{0,60}})"
    r"(?:\s+(?P<rest>.*))?$")
_DS_ROW = re.compile(
    rf"^(?:(?P<ns>{_NAME})\s+)?(?P<name>{_NAME})\s+(?P<desired>\d{{1,6}})\s+"
    r"(?P<current>\d{1,6})\s+(?P<ready>\d{1,6})\s+(?P<updated>\d{1,6})\s+"
    rf"(?P<available>\d{{1,6}})\s+(?P<selector>{_LABELS})\s+(?P<age>{_AGE})"
    r"(?:\s+(?P<containers>\S+)\s+(?P<images>\S+)(?:\s+(?P<podsel>\S+))?)?\s*$")
_DEPLOY_ROW = re.compile(
    rf"^(?:(?P<ns>{_NAME})\s+)?(?P<name>{_NAME})\s+(?P<ready>\d{{1,6}}/\d{{1,6}})\s+"
    rf"(?P<updated>\d{{1,6}})\s+(?P<available>\d{{1,6}})\s+(?P<age>{_AGE})"
    r"(?:\s+(?P<containers>\S+)\s+(?P<images>\S+)(?:\s+(?P<podsel>\S+))?)?\s*$")
_DEPLOY_OLD_ROW = re.compile(
    rf"^(?:(?P<ns>{_NAME})\s+)?(?P<name>{_NAME})\s+(?P<desired>\d{{1,6}})\s+"
    r"(?P<current>\d{1,6})\s+(?P<updated>\d{1,6})\s+(?P<available>\d{1,6})\s+"
    rf"(?P<age>{_AGE})\s*$")
_DEPLOY_HEAD = re.compile(r"^\s*(?:NAMESPACE\s+)?NAME\s+(?:READY|DESIRED\s+CURRENT)\s+"
                          r"UP-TO-DATE\s+AVAILABLE\s+AGE\b")
_DS_HEAD = re.compile(r"^\s*(?:NAMESPACE\s+)?NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE")

_WHEN = rf"(?:{_AGE})(?: \(x(?P<count>\d{{1,9}}) over (?:{_AGE})\))?"
_TYPE = r"(?P<type>Normal|Warning)"
_OBJ = r"(?P<kind>[a-z][\w.-]{0,80})/(?P<obj>[\w.:-]{1,253})"
_EVENT_ROW = re.compile(
    rf"^(?:(?P<ns>{_NAME})\s+)?(?P<when>{_WHEN})\s+{_TYPE}\s+(?P<reason>[A-Za-z][\w.:/-]{{0,120}})"
    rf"\s+{_OBJ}\s+(?P<msg>.*)$")
# before kubectl 1.14: LAST SEEN FIRST SEEN COUNT NAME KIND SUBOBJECT TYPE REASON SOURCE MESSAGE
_EVENT_OLD_ROW = re.compile(
    rf"^(?:(?P<ns>{_NAME})\s+)?(?:{_AGE})\s+(?:{_AGE})\s+(?P<count>\d{{1,9}})\s+"
    rf"(?P<obj>[\w.:-]{{1,253}})\s+(?P<kind>[A-Z]\w{{1,60}})\s+(?:\S+\s+)?{_TYPE}\s+"
    r"(?P<reason>[A-Za-z][\w.:/-]{0,120})\s+(?P<source>[\w.-]{1,80}(?:, [\w.-]{1,253})?)\s+"
    r"(?P<msg>\S.*)$")
# -o wide: … OBJECT SUBOBJECT SOURCE MESSAGE FIRST SEEN COUNT NAME; the message is cut from
# the row's end
_WIDE_TAIL = re.compile(rf"^(?P<msg>.*?)\s+(?:{_AGE})\s+(?P<count>\d{{1,9}})\s+"
                        r"(?P<name>[\w.:-]{1,300})\s*$")
_WIDE_HEAD = re.compile(r"^\s*(?:NAMESPACE\s+)?LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+SUBOBJECT\s+"
                        r"SOURCE\s+MESSAGE\s+FIRST SEEN\s+COUNT\s+NAME")
_SOURCE = re.compile(r"^(?:(?P<sub>spec\.\S+|\S+\{[^}\s]*\})\s+)?"
                     r"(?P<source>[\w.-]{1,80}(?:, [\w.-]{1,253})?)\s{2,}(?P<msg>\S.*)$")

#: the resource words kubectl prints in OBJECT cells (lower case) → the object's kind
KIND_WORDS = {
    "pod": "Pod", "node": "Node", "daemonset": "DaemonSet", "replicaset": "ReplicaSet",
    "deployment": "Deployment", "statefulset": "StatefulSet", "job": "Job",
    "service": "Service", "namespace": "Namespace", "resourceclaim": "ResourceClaim",
    "persistentvolumeclaim": "PersistentVolumeClaim", "clusterpolicy": "ClusterPolicy",
    "nvidiadriver": "NVIDIADriver", "computedomain": "ComputeDomain", "cronjob": "CronJob",
    "horizontalpodautoscaler": "HorizontalPodAutoscaler", "endpoints": "Endpoints",
}


@dataclass(frozen=True, slots=True)
class NodeRow:
    name: str
    ready: str  # "True" / "False" / "Unknown" (the Ready condition's status)
    unschedulable: bool
    roles: tuple[str, ...]
    version: str
    internal_ip: str = ""
    os_image: str = ""
    kernel: str = ""
    runtime: str = ""
    labels: dict[str, str] | None = None  # None: the table did not show them
    lineno: int = 0


@dataclass(frozen=True, slots=True)
class DsRow:
    namespace: str
    name: str
    desired: int
    current: int
    ready: int
    updated: int
    available: int
    node_selector: dict[str, str]
    containers: tuple[tuple[str, str], ...] = ()  # (name, image) with -o wide
    lineno: int = 0


@dataclass(frozen=True, slots=True)
class DeployRow:
    namespace: str
    name: str
    replicas: int
    ready: int
    updated: int
    available: int
    containers: tuple[tuple[str, str], ...] = ()
    lineno: int = 0


@dataclass(slots=True)
class EventRow:
    namespace: str
    type: str
    reason: str
    kind: str
    name: str
    message: str
    count: int = 1
    source: str = ""
    lineno: int = 0
    extra: dict[str, str] = field(default_factory=dict)


def _lines(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for i, raw in enumerate(text.splitlines(), 1):
        if len(out) >= MAX_ROWS:
            break
        line = raw.strip()
        if line and len(line) <= MAX_ROW:
            out.append((i, line))
    return out


def _label_map(cell: str) -> dict[str, str]:
    if not cell or cell == "<none>":
        return {}
    out: dict[str, str] = {}
    for kv in cell.split(","):
        k, sep, v = kv.partition("=")
        if sep and k:
            out[k] = v
    return out


def _containers(names: str | None, images: str | None) -> tuple[tuple[str, str], ...]:
    if not names or not images:
        return ()
    ns, im = names.split(","), images.split(",")
    return tuple((n, im[i] if i < len(im) else "") for i, n in enumerate(ns))


def parse_node_rows(text: str) -> list[NodeRow]:
    """``kubectl get nodes [-o wide] [--show-labels]`` rows, header or not."""
    out: list[NodeRow] = []
    for i, line in _lines(text):
        m = _NODE_ROW.match(line)
        if not m:
            continue
        status = m.group("status")
        ready = {"Ready": "True", "NotReady": "False"}.get(status.split(",")[0], "Unknown")
        rest = (m.group("rest") or "").split()
        labels: dict[str, str] | None = None
        if rest and ("=" in rest[-1] or rest[-1] == "<none>") and "://" not in rest[-1]:
            labels = _label_map(rest.pop())
        ip = os_image = kernel = runtime = ""
        if len(rest) >= 5 and "://" in rest[-1]:
            ip = rest[0] if rest[0] != "<none>" else ""
            runtime, kernel = rest[-1], rest[-2]
            os_image = " ".join(rest[2:-2])
        roles = tuple(r for r in (m.group("roles") or "").split(",") if r and r != "<none>")
        out.append(NodeRow(m.group("name"), ready, "SchedulingDisabled" in status, roles,
                           m.group("version"), ip, os_image, kernel, runtime, labels, i))
    return out


def parse_ds_rows(text: str) -> list[DsRow]:
    """``kubectl get ds [-A] [-o wide]`` rows, header or not (``| grep nvidia`` cuts it)."""
    out: list[DsRow] = []
    has_ns: bool | None = None
    for i, line in _lines(text):
        if _DS_HEAD.match(line):
            has_ns = line.startswith("NAMESPACE")
            continue
        m = _DS_ROW.match(line)
        if not m:
            continue
        ns = m.group("ns") or ""
        if (has_ns is False and ns) or (has_ns and not ns):
            continue
        out.append(DsRow(ns, m.group("name"), int(m.group("desired")), int(m.group("current")),
                         int(m.group("ready")), int(m.group("updated")),
                         int(m.group("available")), _label_map(m.group("selector")),
                         _containers(m.group("containers"), m.group("images")), i))
    return out


def parse_deploy_rows(text: str) -> list[DeployRow]:
    """``kubectl get deploy [-A] [-o wide]`` rows (and kubectl's pre-1.15 layout). Without a
    header, only the old layout's four counts tell a Deployment from other rows; the current
    layout (``1/1 1 1 5d``) is read where a header names it or the row stands alone."""
    out: list[DeployRow] = []
    has_ns: bool | None = None
    for i, line in _lines(text):
        if _DEPLOY_HEAD.match(line):
            has_ns = line.startswith("NAMESPACE")
            continue
        m = _DEPLOY_ROW.match(line)
        if m:
            ns = m.group("ns") or ""
            if (has_ns is False and ns) or (has_ns and not ns):
                continue
            ready, total = (int(x) for x in m.group("ready").split("/"))
            out.append(DeployRow(ns, m.group("name"), total, ready, int(m.group("updated")),
                                 int(m.group("available")),
                                 _containers(m.group("containers"), m.group("images")), i))
            continue
        m = _DEPLOY_OLD_ROW.match(line)
        if m and has_ns is not None:
            ns = m.group("ns") or ""
            if (has_ns is False and ns) or (has_ns and not ns):
                continue
            out.append(DeployRow(ns, m.group("name"), int(m.group("desired")),
                                 int(m.group("available")), int(m.group("updated")),
                                 int(m.group("available")), (), i))
    return out


def parse_event_rows(text: str) -> list[EventRow]:
    """Event rows of every ``kubectl get events`` / ``kubectl events`` layout, header or not."""
    out: list[EventRow] = []
    wide = False
    for i, line in _lines(text):
        if _WIDE_HEAD.match(line):
            wide = True
            continue
        m = _EVENT_ROW.match(line)
        if m:
            kind = KIND_WORDS.get(m.group("kind").split(".")[0].lower(), m.group("kind"))
            msg, source, count = m.group("msg").strip(), "", int(m.group("count") or 1)
            tail = _WIDE_TAIL.match(msg) if wide or re.search(r"\s\d+\s+\S+$", msg) else None
            if tail and (wide or _SOURCE.match(tail.group("msg"))):
                s = _SOURCE.match(tail.group("msg"))
                msg, count = tail.group("msg"), int(tail.group("count"))
                if s:
                    msg, source = s.group("msg"), s.group("source")
            out.append(EventRow(m.group("ns") or "", m.group("type"), m.group("reason"), kind,
                                m.group("obj"), msg.strip(), count, source, i))
            continue
        m = _EVENT_OLD_ROW.match(line)
        if m:
            # NAME is the involved object's (printers.go before 1.14); an event's own name
            # (``<object>.<hex nanoseconds>``) loses its suffix
            obj = re.sub(r"\.[0-9a-f]{16}$", "", m.group("obj"))
            out.append(EventRow(m.group("ns") or "", m.group("type"), m.group("reason"),
                                m.group("kind"), obj, m.group("msg").strip(),
                                int(m.group("count")), m.group("source"), i))
    return out


# ``kubectl get clusterpolicies|nvidiadrivers``: the CRDs' printer columns are Status
# (``.status.state``) and Age (``.metadata.creationTimestamp``, a string column, so kubectl
# prints the timestamp) (NVIDIA/gpu-operator@v26.3.3:api/nvidia/v1/clusterpolicy_types.go,
# api/nvidia/v1alpha1/nvidiadriver_types.go); states: ready, notReady, ignored, disabled
_POLICY_ROW = re.compile(rf"^(?P<name>{_NAME})\s+(?P<state>ready|notReady|ignored|disabled)\s+"
                         r"(?P<created>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\s*$")


def parse_policy_rows(text: str) -> list[tuple[str, str]]:
    """(name, state) rows of ``kubectl get clusterpolicy`` / ``nvidiadriver`` (Kyverno's own
    ClusterPolicy table has other columns and never matches)."""
    out = []
    for _i, line in _lines(text):
        m = _POLICY_ROW.match(line)
        if m:
            out.append((m.group("name"), m.group("state")))
    return out


# ----- rows → objects ------------------------------------------------------------------------
def node_object(row: NodeRow) -> k8s.Node:
    node = k8s.Node(metadata=k8s.ObjectMeta(name=row.name, labels=dict(row.labels or {})))
    if row.labels is None:
        for role in row.roles:  # ROLES is kubectl's reading of node-role.kubernetes.io/<r>
            node.metadata.labels[f"node-role.kubernetes.io/{role}"] = ""
    node.spec.unschedulable = row.unschedulable
    node.status.conditions = [k8s.Condition(type="Ready", status=row.ready)]
    info = node.status.node_info
    info.kubelet_version = row.version
    info.os_image, info.kernel_version = row.os_image, row.kernel
    info.container_runtime_version = row.runtime
    return node


def ds_object(row: DsRow, namespace: str) -> k8s.DaemonSet:
    ds = k8s.DaemonSet(metadata=k8s.ObjectMeta(name=row.name, namespace=namespace))
    ds.spec.template.spec.node_selector = dict(row.node_selector)
    ds.spec.template.spec.containers = [k8s.Container(name=n, image=im)
                                        for n, im in row.containers]
    st = ds.status
    st.desired_number_scheduled, st.current_number_scheduled = row.desired, row.current
    st.number_ready, st.updated_number_scheduled = row.ready, row.updated
    st.number_available = row.available
    st.number_unavailable = max(0, row.desired - row.available)
    return ds


def deploy_object(row: DeployRow, namespace: str) -> k8s.Workload:
    d = k8s.Workload(metadata=k8s.ObjectMeta(name=row.name, namespace=namespace),
                     kind="Deployment")
    d.spec.replicas = row.replicas
    d.spec.template.spec.containers = [k8s.Container(name=n, image=im)
                                       for n, im in row.containers]
    d.status.replicas = row.replicas
    d.status.ready_replicas, d.status.available_replicas = row.ready, row.available
    return d


def event_object(row: EventRow, namespace: str, index: int) -> k8s.Event:
    ns = row.namespace or namespace or None
    component, _, host = row.source.partition(",")
    ev = k8s.Event(metadata=k8s.ObjectMeta(name=f"{row.name}.pasted.{index}",
                                           namespace=ns or "default"),
                   involved_object=k8s.ObjectReference(kind=row.kind, name=row.name,
                                                       namespace=None if row.kind == "Node"
                                                       else ns),
                   reason=row.reason, message=row.message, type=row.type, count=row.count,
                   source=k8s.EventSource(component=component.strip(), host=host.strip()))
    return ev
