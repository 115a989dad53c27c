"""The read-only Kubernetes API over a bundle: routing, discovery, LIST/GET, pod logs.

Pure request → response (no sockets here), so it is tested directly as well as through
kubectl. What it answers is what kubectl needs for ``get``, ``describe`` and ``logs``: legacy
discovery (``/api``, ``/apis``, resource lists — kubectl falls back to it when the server does
not speak aggregated discovery), LIST with ``limit``/``continue``, ``labelSelector`` and
``fieldSelector``, GET of one object, and the ``log`` subresource. Every write verb is a 405
Status; anything unknown is a 404 Status, as the real server says it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import msgspec

from gpuxray.serve.selectors import (
    SelectorError,
    labels_of,
    parse_fields,
    parse_labels,
)
from gpuxray.serve.store import BundleStore, Obj
from gpuxray.serve.tables import build_table, table_kind, wants_table
from gpuxray.sources.apiresources import ApiResource

READ_VERBS = ("GET", "HEAD")
JSON = "application/json"


@dataclass
class Response:
    status: int
    body: bytes
    content_type: str = JSON
    headers: dict[str, str] = field(default_factory=dict)


def status_response(code: int, reason: str, message: str, **details: Any) -> Response:
    body: Obj = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                 "message": message, "reason": reason, "code": code}
    if details:
        body["details"] = details
    return Response(code, msgspec.json.encode(body))


def _ok(obj: Any) -> Response:
    return Response(200, msgspec.json.encode(obj))


def _table(store: BundleStore, res: ApiResource, objs: list[Obj], meta: Obj, table: str,
           query: dict[str, list[str]]) -> Response | None:
    """The Table kubectl asked for, when there is a printer for this resource."""
    kind = table_kind(res.group, res.plural) if table else None
    if kind is None:
        return None
    include = query.get("includeObject", ["Metadata"])[0] or "Metadata"
    body = build_table(kind, objs, meta, store.now(), table, include, res.api_version,
                       res.kind)
    return Response(200, msgspec.json.encode(body),
                    f"application/json;as=Table;v={table};g=meta.k8s.io")


# ----- discovery ----------------------------------------------------------------------------
def _resource_list(group_version: str, resources: list[ApiResource]) -> Obj:
    out: list[Obj] = []
    for r in resources:
        entry: Obj = {"name": r.plural, "singularName": r.singular, "namespaced": r.namespaced,
                      "kind": r.kind, "verbs": ["get", "list"]}
        if r.short_names:
            entry["shortNames"] = list(r.short_names)
        out.append(entry)
        if r.plural == "pods":
            out.append({"name": "pods/log", "singularName": "", "namespaced": True,
                        "kind": "Pod", "verbs": ["get"]})
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version,
            "resources": out}


def _groups(store: BundleStore) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for r in store.resources:
        if r.group and r.version not in groups.setdefault(r.group, []):
            groups[r.group].append(r.version)
    return groups


def _group_obj(name: str, versions: list[str]) -> Obj:
    vs = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
    return {"name": name, "versions": vs, "preferredVersion": vs[0]}


def _discovery(store: BundleStore, parts: list[str], host: str) -> Response | None:
    if parts == ["api"]:
        return _ok({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": host}]})
    if parts == ["api", "v1"]:
        return _ok(_resource_list("v1", [r for r in store.resources if not r.group]))
    if parts == ["apis"]:
        return _ok({"kind": "APIGroupList", "apiVersion": "v1",
                    "groups": [_group_obj(g, vs) for g, vs in _groups(store).items()]})
    groups = _groups(store)
    if len(parts) == 2 and parts[0] == "apis" and parts[1] in groups:
        return _ok({"kind": "APIGroup", "apiVersion": "v1",
                    **_group_obj(parts[1], groups[parts[1]])})
    if len(parts) == 3 and parts[0] == "apis" and parts[2] in groups.get(parts[1], []):
        rs = [r for r in store.resources if r.group == parts[1] and r.version == parts[2]]
        return _ok(_resource_list(f"{parts[1]}/{parts[2]}", rs))
    return None


# ----- lists and objects --------------------------------------------------------------------
def _continue_key(path: str, query: dict[str, list[str]]) -> str:
    basis = json.dumps([path, query.get("labelSelector", [""])[0],
                        query.get("fieldSelector", [""])[0]])
    return hashlib.sha1(basis.encode()).hexdigest()[:12]


def encode_continue(offset: int, key: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"o": offset, "k": key}).encode()).decode()


def decode_continue(token: str, key: str) -> int:
    try:
        doc = json.loads(base64.urlsafe_b64decode(token.encode() + b"==="))
        if not isinstance(doc, dict) or doc.get("k") != key or not isinstance(doc.get("o"), int):
            raise ValueError
        return max(0, int(doc["o"]))
    except (ValueError, TypeError, UnicodeDecodeError):
        raise SelectorError("continue key is not valid for this request") from None


def _namespace_of(obj: Obj) -> str:
    meta = obj.get("metadata")
    return str(meta.get("namespace") or "") if isinstance(meta, dict) else ""


def _name_of(obj: Obj) -> str:
    meta = obj.get("metadata")
    return str(meta.get("name") or "") if isinstance(meta, dict) else ""


def _list(store: BundleStore, res: ApiResource, namespace: str | None, path: str,
          query: dict[str, list[str]], table: str = "") -> Response:
    if not store.collected(res):
        return status_response(404, "NotFound",
                               f"the server could not find the requested resource "
                               f"({res.plural} not in this bundle)")
    try:
        labels = parse_labels(query.get("labelSelector", [""])[0])
        fields = parse_fields(query.get("fieldSelector", [""])[0])
        key = _continue_key(path, query)
        token = query.get("continue", [""])[0]
        offset = decode_continue(token, key) if token else 0
        limit_text = query.get("limit", ["0"])[0] or "0"
        limit = int(limit_text)
    except SelectorError as exc:
        return status_response(400, "BadRequest", str(exc))
    except ValueError:
        return status_response(400, "BadRequest", "limit must be an integer")
    matched = [o for o in store.items[res.plural]
               if (namespace is None or _namespace_of(o) == namespace)
               and all(r.matches(labels_of(o)) for r in labels)
               and all(f.matches(o) for f in fields)]
    page = matched[offset:offset + limit] if limit > 0 else matched[offset:]
    meta: Obj = {"resourceVersion": store.resource_version}
    end = offset + len(page)
    if limit > 0 and end < len(matched):
        meta["continue"] = encode_continue(end, key)
        meta["remainingItemCount"] = len(matched) - end
    return _table(store, res, page, meta, table, query) or _ok(
        {"kind": f"{res.kind}List", "apiVersion": res.api_version, "metadata": meta,
         "items": page})


def _get(store: BundleStore, res: ApiResource, namespace: str | None, name: str,
         query: dict[str, list[str]], table: str = "") -> Response:
    for o in store.items.get(res.plural, []):
        if _name_of(o) == name and (not res.namespaced or _namespace_of(o) == namespace):
            tbl = _table(store, res, [o], {"resourceVersion": store.resource_version}, table,
                         query)
            if tbl is not None:
                return tbl
            if o.get("kind") and o.get("apiVersion"):
                return _ok(o)
            return _ok({"kind": res.kind, "apiVersion": res.api_version, **o})
    return status_response(404, "NotFound", f'{res.plural} "{name}" not found',
                           name=name, kind=res.plural)


def _log(store: BundleStore, namespace: str, pod: str, query: dict[str, list[str]]) -> Response:
    pods = store.items.get("pods", [])
    obj = next((o for o in pods if _name_of(o) == pod and _namespace_of(o) == namespace), None)
    if obj is None:
        return status_response(404, "NotFound", f'pods "{pod}" not found', name=pod, kind="pods")
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    names = [str(c.get("name")) for key in ("initContainers", "containers")
             for c in (spec or {}).get(key, []) if isinstance(c, dict)]
    container = query.get("container", [""])[0]
    if not container:
        main = [str(c.get("name")) for c in (spec or {}).get("containers", [])
                if isinstance(c, dict)]
        if len(main) != 1:
            return status_response(400, "BadRequest",
                                   f"a container name must be specified for pod {pod}, "
                                   f"choose one of: {main}")
        container = main[0]
    if container not in names:
        return status_response(400, "BadRequest",
                               f"container {container} is not valid for pod {pod}")
    previous = query.get("previous", ["false"])[0] == "true"
    f = store.log_file(namespace, pod, container, previous)
    if f is None:
        what = "previous terminated container" if previous else "log of container"
        return status_response(400, "BadRequest",
                               f'{what} "{container}" in pod "{pod}" not found in this bundle')
    data = f.read_bytes()
    try:
        tail = int(query.get("tailLines", ["-1"])[0])
        limit = int(query.get("limitBytes", ["0"])[0])
    except ValueError:
        return status_response(400, "BadRequest", "tailLines and limitBytes must be integers")
    if tail >= 0:
        lines = data.splitlines(keepends=True)
        data = b"".join(lines[-tail:]) if tail else b""
    if limit > 0:
        data = data[:limit]
    return Response(200, data, "text/plain")


# ----- routing ------------------------------------------------------------------------------
def _split_api_path(store: BundleStore, parts: list[str]) -> tuple[list[ApiResource], list[str]]:
    """(resources of this group/version, the path segments after it)."""
    if parts[:2] == ["api", "v1"]:
        return [r for r in store.resources if not r.group], parts[2:]
    if len(parts) >= 3 and parts[0] == "apis":
        return ([r for r in store.resources if r.group == parts[1] and r.version == parts[2]],
                parts[3:])
    return [], []


def handle(store: BundleStore, method: str, target: str, host: str = "",
           accept: str = "") -> Response:
    """Answer one request. ``target`` is the request line's path with its query; ``accept``
    the Accept header (kubectl's ``get`` asks for a Table, see ``tables``)."""
    url = urlsplit(target)
    parts = [p for p in url.path.split("/") if p]
    query = parse_qs(url.query, keep_blank_values=True)
    if method not in READ_VERBS:
        return status_response(405, "MethodNotAllowed",
                               f"{method} is not allowed: gpuxray serve is read-only")
    if query.get("watch", ["false"])[0] in ("true", "1"):
        return status_response(405, "MethodNotAllowed", "watch is not supported by gpuxray serve")
    if parts == ["version"]:
        return _ok(store.version)
    if parts in (["healthz"], ["livez"], ["readyz"]):
        return Response(200, b"ok", "text/plain")
    disc = _discovery(store, parts, host)
    if disc is not None:
        return disc
    resources, rest = _split_api_path(store, parts)
    by_name = {r.plural: r for r in resources}
    namespace: str | None = None
    if len(rest) >= 3 and rest[0] == "namespaces":
        namespace, rest = rest[1], rest[2:]
    res = by_name.get(rest[0]) if rest else None
    if res is None and len(parts) == 7 and parts[:3] == ["apis", "coordination.k8s.io", "v1"] \
            and parts[3] == "namespaces" and parts[5] == "leases":
        # every real API server has node leases; a bundle holds none (kubectl describe node
        # asks for one and prints the answer, as measured against kube-apiserver 1.37)
        return status_response(404, "NotFound", f'leases.coordination.k8s.io "{parts[6]}" not '
                               "found", name=parts[6], kind="leases")
    if res is None or (namespace is not None and not res.namespaced):
        return status_response(404, "NotFound", "the server could not find the requested resource")
    if len(rest) == 1:
        return _list(store, res, namespace, url.path, query, wants_table(accept))
    if len(rest) == 2:
        if res.namespaced and namespace is None:
            return status_response(404, "NotFound",
                                   "the server could not find the requested resource")
        return _get(store, res, namespace, rest[1], query, wants_table(accept))
    if len(rest) == 3 and res.plural == "pods" and rest[2] == "log" and namespace is not None:
        return _log(store, namespace, rest[1], query)
    return status_response(404, "NotFound", "the server could not find the requested resource")
