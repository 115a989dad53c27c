"""Server-side printing: the ``meta.k8s.io/v1 Table`` that kubectl asks for on list and get.

kubectl sends ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io,...`` and prints the
columns the server chooses; without a Table it can only print NAME and AGE. The real
kube-apiserver builds each kind's columns in ``kubernetes/kubernetes@v1.37.2:
pkg/printers/internalversion/printers.go`` (custom resources: ``staging/src/k8s.io/
apiextensions-apiserver/pkg/registry/customresource/tableconvertor``), so the columns and cell
formats here follow that file, checked cell for cell against kube-apiserver 1.37.2 in
``tests/test_controlplane_serve.py``. Every column the server knows is sent (priority 1 is what
``-o wide`` adds; kubectl hides it otherwise), exactly as the real server does.

Ages are counted from the bundle's collection time when the manifest records one — a bundle
is a picture of that moment, and "3m" should mean three minutes before it was taken — else
from now.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

Obj = dict[str, Any]
Cell = str | int
Column = tuple[str, str, str, int]  # name, type, format, priority
Printer = Callable[[Obj, datetime], tuple[list[Cell], list[Obj]]]

NAME: Column = ("Name", "string", "name", 0)
AGE: Column = ("Age", "string", "", 0)


@dataclass(frozen=True)
class TableKind:
    columns: tuple[Column, ...]
    printer: Printer


# ----- time ---------------------------------------------------------------------------------
def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp (``metav1.Time`` or ``MicroTime``) as an aware datetime."""
    if not isinstance(value, str) or not value:
        return None
    text = value.replace("Z", "+00:00")
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def human_duration(seconds: float) -> str:
    """``k8s.io/apimachinery/pkg/util/duration.HumanDuration``: two units while short,
    one when long."""
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return f"{s}s"
    minutes = s // 60
    if minutes < 10:
        return f"{minutes}m" if s % 60 == 0 else f"{minutes}m{s % 60}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = s // 3600
    if hours < 8:
        return f"{hours}h" if minutes % 60 == 0 else f"{hours}h{minutes % 60}m"
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if hours < 24 * 8:
        return f"{days}d" if hours % 24 == 0 else f"{days}d{hours % 24}h"
    if hours < 24 * 365 * 2:
        return f"{days}d"
    years = days // 365
    if hours < 24 * 365 * 8:
        return f"{years}y" if days % 365 == 0 else f"{years}y{days % 365}d"
    return f"{years}y"


def since(value: Any, now: datetime) -> str:
    t = parse_time(value)
    if t is None:
        return "<unknown>"
    return human_duration((now - t).total_seconds())


# ----- small readers ------------------------------------------------------------------------
def _d(obj: Any, *keys: str) -> Obj:
    for k in keys:
        obj = obj.get(k) if isinstance(obj, dict) else None
    return obj if isinstance(obj, dict) else {}


def _l(obj: Any, *keys: str) -> list[Any]:
    for k in keys[:-1]:
        obj = obj.get(k) if isinstance(obj, dict) else None
    v = obj.get(keys[-1]) if isinstance(obj, dict) else None
    return v if isinstance(v, list) else []


def _s(obj: Any, *keys: str) -> str:
    for k in keys:
        obj = obj.get(k) if isinstance(obj, dict) else None
    return obj if isinstance(obj, str) else ""


def _i(obj: Any, *keys: str) -> int:
    for k in keys:
        obj = obj.get(k) if isinstance(obj, dict) else None
    return obj if isinstance(obj, int) and not isinstance(obj, bool) else 0


def _meta(obj: Obj) -> Obj:
    return _d(obj, "metadata")


def _name(obj: Obj) -> str:
    return _s(obj, "metadata", "name")


def _created(obj: Obj, now: datetime) -> str:
    return since(_s(obj, "metadata", "creationTimestamp"), now)


def format_labels(labels: Obj) -> str:
    """``labels.FormatLabels``: sorted ``k=v`` joined by commas, ``<none>`` when empty."""
    if not labels:
        return "<none>"
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def format_selector(sel: Any) -> str:
    """``metav1.FormatLabelSelector``: matchLabels and matchExpressions as one selector
    string, ``<none>`` for a nil selector, ``<none>`` for an empty one too."""
    if not isinstance(sel, dict):
        return "<none>"
    parts: list[str] = []
    ml = sel.get("matchLabels")
    if isinstance(ml, dict):
        parts.extend(f"{k}={ml[k]}" for k in sorted(ml))
    for expr in sel.get("matchExpressions") or []:
        if not isinstance(expr, dict):
            continue
        key, op = str(expr.get("key", "")), str(expr.get("operator", ""))
        values = [str(v) for v in expr.get("values") or []]
        if op == "In":
            parts.append(f"{key} in ({','.join(sorted(values))})")
        elif op == "NotIn":
            parts.append(f"{key} notin ({','.join(sorted(values))})")
        elif op == "Exists":
            parts.append(key)
        elif op == "DoesNotExist":
            parts.append(f"!{key}")
    text = ",".join(sorted(parts))
    return text or "<none>"


def _containers(template_spec: Obj) -> tuple[str, str]:
    cs = [c for c in _l(template_spec, "containers") if isinstance(c, dict)]
    return (",".join(str(c.get("name", "")) for c in cs),
            ",".join(str(c.get("image", "")) for c in cs))


# ----- kinds --------------------------------------------------------------------------------
def _node(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    status: list[str] = []
    for c in _l(obj, "status", "conditions"):
        if isinstance(c, dict) and c.get("type") == "Ready":
            status = ["Ready" if c.get("status") == "True" else "NotReady"]
    if not status:
        status = ["Unknown"]
    if _d(obj, "spec").get("unschedulable") is True:
        status.append("SchedulingDisabled")
    roles: set[str] = set()
    for k, v in _d(obj, "metadata", "labels").items():
        if k.startswith("node-role.kubernetes.io/") and k[len("node-role.kubernetes.io/"):]:
            roles.add(k[len("node-role.kubernetes.io/"):])
        elif k == "kubernetes.io/role" and v:
            roles.add(str(v))
    info = _d(obj, "status", "nodeInfo")

    def addr(kind: str) -> str:
        for a in _l(obj, "status", "addresses"):
            if isinstance(a, dict) and a.get("type") == kind:
                return str(a.get("address", ""))
        return "<none>"

    kernel = _s(info, "kernelVersion") or "<unknown>"
    if _s(info, "architecture"):
        kernel = f"{kernel} ({_s(info, 'architecture')})"
    return [_name(obj), ",".join(status), ",".join(sorted(roles)) or "<none>",
            _created(obj, now), _s(info, "kubeletVersion"), addr("InternalIP"),
            addr("ExternalIP"), _s(info, "osImage") or "<unknown>", kernel,
            _s(info, "containerRuntimeVersion") or "<unknown>"], []


def _restartable(c: Any) -> bool:
    return isinstance(c, dict) and c.get("restartPolicy") == "Always"


def _later(a: datetime | None, b: Any) -> datetime | None:
    t = parse_time(b)
    return t if t is not None and (a is None or t > a) else a


def _pod(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    """The READY/STATUS/RESTARTS a kubelet-reported pod prints as: init containers first,
    then the app containers from last to first, the deletion state last (printPod)."""
    spec, st = _d(obj, "spec"), _d(obj, "status")
    phase = _s(st, "phase")
    reason = _s(st, "reason") or phase
    for c in _l(st, "conditions"):
        if isinstance(c, dict) and c.get("type") == "PodScheduled" \
                and c.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    conditions: list[Obj] = []
    if phase == "Succeeded":
        conditions = [{"type": "Completed", "status": "True", "reason": "Succeeded",
                       "message": "The pod has completed successfully."}]
    elif phase == "Failed":
        conditions = [{"type": "Completed", "status": "True", "reason": "Failed",
                       "message": "The pod failed."}]
    inits = {str(c.get("name")): c for c in _l(spec, "initContainers") if isinstance(c, dict)}
    total = len(_l(spec, "containers")) + sum(1 for c in inits.values() if _restartable(c))
    ready = restarts = sidecar_restarts = 0
    last: datetime | None = None
    sidecar_last: datetime | None = None
    initializing = False
    n_init = len(_l(spec, "initContainers"))
    for i, cs in enumerate(x for x in _l(st, "initContainerStatuses") if isinstance(x, dict)):
        restarts += _i(cs, "restartCount")
        finished = _d(cs, "lastState", "terminated").get("finishedAt")
        last = _later(last, finished)
        sidecar = _restartable(inits.get(str(cs.get("name"))))
        if sidecar:
            sidecar_restarts += _i(cs, "restartCount")
            sidecar_last = _later(sidecar_last, finished)
        term, wait = _d(cs, "state", "terminated"), _d(cs, "state", "waiting")
        has_term = isinstance(_d(cs, "state").get("terminated"), dict)
        if has_term and _i(term, "exitCode") == 0:
            continue
        if sidecar and cs.get("started") is True:
            if cs.get("ready") is True:
                ready += 1
            continue
        if has_term:
            if _s(term, "reason"):
                reason = "Init:" + _s(term, "reason")
            elif _i(term, "signal"):
                reason = f"Init:Signal:{_i(term, 'signal')}"
            else:
                reason = f"Init:ExitCode:{_i(term, 'exitCode')}"
        elif _s(wait, "reason") and _s(wait, "reason") != "PodInitializing":
            reason = "Init:" + _s(wait, "reason")
        else:
            reason = f"Init:{i}/{n_init}"
        initializing = True
        break
    initialized = any(isinstance(c, dict) and c.get("type") == "Initialized"
                      and c.get("status") == "True" for c in _l(st, "conditions"))
    if not initializing or initialized:
        restarts, last = sidecar_restarts, sidecar_last
        running = False
        for cs in reversed([x for x in _l(st, "containerStatuses") if isinstance(x, dict)]):
            restarts += _i(cs, "restartCount")
            last = _later(last, _d(cs, "lastState", "terminated").get("finishedAt"))
            state = _d(cs, "state")
            done = state.get("terminated")
            if _s(state, "waiting", "reason"):
                reason = _s(state, "waiting", "reason")
            elif isinstance(done, dict) and _s(done, "reason"):
                reason = _s(done, "reason")
            elif isinstance(done, dict):
                reason = (f"Signal:{_i(done, 'signal')}" if _i(done, "signal")
                          else f"ExitCode:{_i(done, 'exitCode')}")
            elif cs.get("ready") is True and isinstance(state.get("running"), dict):
                running = True
                ready += 1
        if reason == "Completed" and running:
            pod_ready = any(isinstance(c, dict) and c.get("type") == "Ready"
                            and c.get("status") == "True" for c in _l(st, "conditions"))
            reason = "Running" if pod_ready else "NotReady"
    if _s(obj, "metadata", "deletionTimestamp"):
        if _s(st, "reason") == "NodeLost":
            reason = "Unknown"
        elif phase not in ("Succeeded", "Failed"):
            reason = "Terminating"
    restarts_cell = str(restarts)
    if restarts and last is not None:
        restarts_cell = f"{restarts} ({human_duration((now - last).total_seconds())} ago)"
    ips = [p for p in _l(st, "podIPs") if isinstance(p, dict)]
    ip = str(ips[0].get("ip", "")) if ips else ""
    gates = [g for g in _l(spec, "readinessGates") if isinstance(g, dict)]
    gates_cell = "<none>"
    if gates:
        true = 0
        for g in gates:
            for c in _l(st, "conditions"):
                if isinstance(c, dict) and c.get("type") == g.get("conditionType"):
                    true += c.get("status") == "True"
                    break
        gates_cell = f"{true}/{len(gates)}"
    return [_name(obj), f"{ready}/{total}", reason, restarts_cell, _created(obj, now),
            ip or "<none>", _s(spec, "nodeName") or "<none>",
            _s(st, "nominatedNodeName") or "<none>", gates_cell], conditions


def _daemonset(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    st, tspec = _d(obj, "status"), _d(obj, "spec", "template", "spec")
    names, images = _containers(tspec)
    return [_name(obj), _i(st, "desiredNumberScheduled"), _i(st, "currentNumberScheduled"),
            _i(st, "numberReady"), _i(st, "updatedNumberScheduled"), _i(st, "numberAvailable"),
            format_labels(_d(tspec, "nodeSelector")), _created(obj, now), names, images,
            format_selector(_d(obj, "spec").get("selector"))], []


def _replicas(obj: Obj) -> int:
    v = _d(obj, "spec").get("replicas")
    return v if isinstance(v, int) and not isinstance(v, bool) else 1


def _deployment(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    st = _d(obj, "status")
    names, images = _containers(_d(obj, "spec", "template", "spec"))
    return [_name(obj), f"{_i(st, 'readyReplicas')}/{_replicas(obj)}",
            _i(st, "updatedReplicas"), _i(st, "availableReplicas"), _created(obj, now),
            names, images, format_selector(_d(obj, "spec").get("selector"))], []


def _replicaset(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    st = _d(obj, "status")
    names, images = _containers(_d(obj, "spec", "template", "spec"))
    return [_name(obj), _replicas(obj), _i(st, "replicas"), _i(st, "readyReplicas"),
            _created(obj, now), names, images,
            format_selector(_d(obj, "spec").get("selector"))], []


def _statefulset(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    names, images = _containers(_d(obj, "spec", "template", "spec"))
    return [_name(obj), f"{_i(obj, 'status', 'readyReplicas')}/{_replicas(obj)}",
            _created(obj, now), names, images], []


def _job(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    """STATUS from the first true terminal condition, COMPLETIONS as succeeded/wanted
    ("of N" when parallel without a completion count), DURATION start to completion or to
    now (printJob)."""
    spec, st = _d(obj, "spec"), _d(obj, "status")
    true = {str(c.get("type")) for c in _l(st, "conditions")
            if isinstance(c, dict) and c.get("status") == "True"}
    succeeded = _i(st, "succeeded")
    completions = spec.get("completions")
    if isinstance(completions, int) and not isinstance(completions, bool):
        done = f"{succeeded}/{completions}"
    else:
        parallel = _i(spec, "parallelism")
        done = f"{succeeded}/1 of {parallel}" if parallel > 1 else f"{succeeded}/1"
    start, end = parse_time(st.get("startTime")), parse_time(st.get("completionTime"))
    took = "" if start is None else human_duration(((end or now) - start).total_seconds())
    if "Complete" in true:
        status = "Complete"
    elif "Failed" in true:
        status = "Failed"
    elif _s(obj, "metadata", "deletionTimestamp"):
        status = "Terminating"
    else:
        status = next((c for c in ("Suspended", "FailureTarget", "SuccessCriteriaMet")
                       if c in true), "Running")
    names, images = _containers(_d(spec, "template", "spec"))
    return [_name(obj), status, done, took, _created(obj, now), names, images,
            format_selector(spec.get("selector"))], []


def _resourceslice(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    spec = _d(obj, "spec")
    return [_name(obj), _s(spec, "nodeName"), _s(spec, "driver"), _s(spec, "pool", "name"),
            _created(obj, now)], []


def _resourceclaim(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    """STATE: deleted, then pending or allocated (and reserved while a pod holds it)."""
    states: list[str] = []
    deleted = bool(_s(obj, "metadata", "deletionTimestamp"))
    if deleted:
        states.append("deleted")
    if not isinstance(_d(obj, "status").get("allocation"), dict):
        if not deleted:
            states.append("pending")
    else:
        states.append("allocated")
        if _l(obj, "status", "reservedFor"):
            states.append("reserved")
    return [_name(obj), ",".join(states), _created(obj, now)], []


def _event(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    """First/last seen fall back to the event time for events.k8s.io-style events; a series
    overrides both the last time and the count (printEvent). Rows keep the list's order:
    kube-apiserver 1.37.2 does not sort them by last seen (measured, see the oracle test)."""
    first = (since(obj.get("firstTimestamp"), now) if parse_time(obj.get("firstTimestamp"))
             else since(obj.get("eventTime"), now))
    last = since(obj.get("lastTimestamp"), now) if parse_time(obj.get("lastTimestamp")) \
        else first
    count = _i(obj, "count")
    series = obj.get("series")
    if isinstance(series, dict):
        last = since(series.get("lastObservedTime"), now)
        count = _i(series, "count")
    elif count == 0:
        count = 1
    inv = _d(obj, "involvedObject")
    src = _d(obj, "source")
    if _s(src, "component"):
        source = _s(src, "component") + (f", {_s(src, 'host')}" if _s(src, "host") else "")
    else:
        source = _s(obj, "reportingComponent")
        if _s(obj, "reportingInstance"):
            source += f", {_s(obj, 'reportingInstance')}"
    return [last, _s(obj, "type"), _s(obj, "reason"),
            f"{_s(inv, 'kind').lower()}/{_s(inv, 'name')}", _s(inv, "fieldPath"), source,
            _s(obj, "message").strip(),
            first, count, _name(obj)], []


def _runtimeclass(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    return [_name(obj), _s(obj, "handler"), _created(obj, now)], []


def _resourcequota(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    hard, used = _d(obj, "status", "hard"), _d(obj, "status", "used")
    req: list[str] = []
    lim: list[str] = []
    for k in sorted(hard):
        cell = f"{k}: {used.get(k, '')}/{hard[k]}"
        (lim if k.startswith("limits.") else req).append(cell)
    return [_name(obj), ", ".join(req), ", ".join(lim), _created(obj, now)], []


def _configmap(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    return [_name(obj), len(_d(obj, "data")) + len(_d(obj, "binaryData")),
            _created(obj, now)], []


def _namespace(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    return [_name(obj), _s(obj, "status", "phase"), _created(obj, now)], []


def _generic(obj: Obj, now: datetime) -> tuple[list[Cell], list[Obj]]:
    return [_name(obj), _created(obj, now)], []


_CONTAINERS: tuple[Column, ...] = (("Containers", "string", "", 1), ("Images", "string", "", 1))
_SELECTOR: Column = ("Selector", "string", "", 1)

KINDS: dict[tuple[str, str], TableKind] = {  # (group, plural) -> columns and printer
    ("", "nodes"): TableKind((NAME, ("Status", "string", "", 0), ("Roles", "string", "", 0),
                              AGE, ("Version", "string", "", 0),
                              ("Internal-IP", "string", "", 1), ("External-IP", "string", "", 1),
                              ("OS-Image", "string", "", 1), ("Kernel-Version", "string", "", 1),
                              ("Container-Runtime", "string", "", 1)), _node),
    ("", "pods"): TableKind((NAME, ("Ready", "string", "", 0), ("Status", "string", "", 0),
                             ("Restarts", "string", "", 0), AGE, ("IP", "string", "", 1),
                             ("Node", "string", "", 1), ("Nominated Node", "string", "", 1),
                             ("Readiness Gates", "string", "", 1)), _pod),
    ("apps", "daemonsets"): TableKind(
        (NAME, ("Desired", "integer", "", 0), ("Current", "integer", "", 0),
         ("Ready", "integer", "", 0), ("Up-to-date", "integer", "", 0),
         ("Available", "integer", "", 0), ("Node Selector", "string", "", 0), AGE,
         *_CONTAINERS, _SELECTOR), _daemonset),
    ("apps", "deployments"): TableKind(
        (NAME, ("Ready", "string", "", 0), ("Up-to-date", "string", "", 0),
         ("Available", "string", "", 0), AGE, *_CONTAINERS, _SELECTOR), _deployment),
    ("apps", "replicasets"): TableKind(
        (NAME, ("Desired", "integer", "", 0), ("Current", "integer", "", 0),
         ("Ready", "integer", "", 0), AGE, *_CONTAINERS, _SELECTOR), _replicaset),
    ("apps", "statefulsets"): TableKind(
        (NAME, ("Ready", "string", "", 0), AGE, *_CONTAINERS), _statefulset),
    ("batch", "jobs"): TableKind(
        (NAME, ("Status", "string", "", 0), ("Completions", "string", "", 0),
         ("Duration", "string", "", 0), AGE, *_CONTAINERS, _SELECTOR), _job),
    ("", "events"): TableKind(
        (("Last Seen", "string", "", 0), ("Type", "string", "", 0),
         ("Reason", "string", "", 0), ("Object", "string", "", 0),
         ("Subobject", "string", "", 1), ("Source", "string", "", 1),
         ("Message", "string", "", 0), ("First Seen", "string", "", 1),
         ("Count", "string", "", 1), ("Name", "string", "name", 1)), _event),
    ("node.k8s.io", "runtimeclasses"): TableKind(
        (NAME, ("Handler", "string", "", 0), AGE), _runtimeclass),
    ("", "resourcequotas"): TableKind(
        (NAME, ("Request", "string", "", 0), ("Limit", "string", "", 0), AGE), _resourcequota),
    ("", "configmaps"): TableKind((NAME, ("Data", "string", "", 0), AGE), _configmap),
    ("", "namespaces"): TableKind((NAME, ("Status", "string", "", 0), AGE), _namespace),
    ("resource.k8s.io", "deviceclasses"): TableKind((NAME, AGE), _generic),
    ("resource.k8s.io", "resourceclaimtemplates"): TableKind((NAME, AGE), _generic),
    ("resource.k8s.io", "resourceslices"): TableKind(
        (NAME, ("Node", "string", "", 0), ("Driver", "string", "", 0),
         ("Pool", "string", "", 0), AGE), _resourceslice),
    ("resource.k8s.io", "resourceclaims"): TableKind(
        (NAME, ("State", "string", "", 0), AGE), _resourceclaim),
}
# custom resources without additionalPrinterColumns: the apiextensions default, its Age a date
CUSTOM = TableKind((NAME, ("Age", "date", "", 0)), _generic)
CUSTOM_GROUPS = ("nvidia.com", "resource.nvidia.com")

_DESCRIPTIONS = {"Name": "Name of the object.", "Age": "Time since the object was created."}


def table_kind(group: str, plural: str) -> TableKind | None:
    """The columns for a served resource, or None where gpuxray has no printer for it yet
    (the answer is then a plain list, and kubectl prints NAME and AGE itself)."""
    kind = KINDS.get((group, plural))
    if kind is None and group in CUSTOM_GROUPS:
        return CUSTOM
    return kind


def wants_table(accept: str) -> str:
    """The Table version kubectl's Accept asks for first ("v1" or "v1beta1"), else ""."""
    for part in accept.split(","):
        params = dict(p.strip().partition("=")[::2] for p in part.split(";")[1:])
        if params.get("as") == "Table" and params.get("g") == "meta.k8s.io" \
                and params.get("v") in ("v1", "v1beta1"):
            return params["v"]
    return ""


def build_table(kind: TableKind, objs: list[Obj], list_meta: Obj, now: datetime,
                version: str, include: str, api_version: str, kind_name: str) -> Obj:
    """The Table of ``objs``; each row's ``object`` is PartialObjectMetadata (the default,
    ``includeObject=Metadata``), the whole object (``Object``) or absent (``None``)."""
    rows: list[Obj] = []
    for o in objs:
        cells, conditions = kind.printer(o, now)
        row: Obj = {"cells": cells}
        if conditions:
            row["conditions"] = conditions
        if include == "Object":
            row["object"] = o if o.get("kind") else {"kind": kind_name,
                                                     "apiVersion": api_version, **o}
        elif include != "None":
            row["object"] = {"kind": "PartialObjectMetadata",
                             "apiVersion": f"meta.k8s.io/{version}", "metadata": _meta(o)}
        rows.append(row)
    cols = [{"name": n, "type": t, "format": f,
             "description": _DESCRIPTIONS.get(n, f"The {n.lower()} column."), "priority": p}
            for n, t, f, p in kind.columns]
    return {"kind": "Table", "apiVersion": f"meta.k8s.io/{version}", "metadata": list_meta,
            "columnDefinitions": cols, "rows": rows}
