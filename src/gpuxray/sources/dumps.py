"""A directory of ad-hoc ``kubectl get … -o yaml|json`` dumps, with any file names, as a Snapshot.

Why: users attach what they already ran — ``kubectl get pods -A -o yaml > pods.txt.yaml``,
``kubectl get node gpu-1 -o json > node1.json`` — not a gpuxray bundle (BUNDLE.md "Also
accepted as input"). Each document (a List, a single object, or several YAML documents) is
routed by its ``kind`` to the input it belongs to; ``kubectl version -o json|yaml`` output (no
kind, ``serverVersion``) becomes the version input. Objects of other kinds (Services, Secrets…)
and YAML that is not a Kubernetes object (Helm values) are ignored. An input is collected only
when at least one object of its kind was found; every other input is "not in the dump
directory", so its checks say unknown. The same object in two files is kept once (the last).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from gpuxray.errors import InputError
from gpuxray.model import dra, k8s
from gpuxray.model.snapshot import Input, InputState, Manifest, Snapshot
from gpuxray.sources.decode import yaml_docs

__all__ = ["KIND_ROUTES", "load_dump_dir", "scan_dump_dir"]

MAX_FILES = 5000
MAX_FILE_BYTES = 512 << 20
MAX_DEPTH = 4
NOT_IN = "not in the dump directory"
_EXTS = (".json", ".yaml", ".yml")

# kind -> (input, Snapshot field, struct type)
KIND_ROUTES: dict[str, tuple[Input, str, Any]] = {
    "Node": (Input.NODES, "nodes", k8s.Node),
    "Pod": (Input.PODS, "pods", k8s.Pod),
    "Event": (Input.EVENTS, "events", k8s.Event),
    "DaemonSet": (Input.DAEMONSETS, "daemonsets", k8s.DaemonSet),
    "Deployment": (Input.DEPLOYMENTS, "deployments", k8s.Workload),
    "ReplicaSet": (Input.REPLICASETS, "replicasets", k8s.Workload),
    "Job": (Input.JOBS, "jobs", k8s.Workload),
    "StatefulSet": (Input.STATEFULSETS, "statefulsets", k8s.Workload),
    "RuntimeClass": (Input.RUNTIMECLASSES, "runtimeclasses", k8s.RuntimeClass),
    "ResourceQuota": (Input.RESOURCEQUOTAS, "resourcequotas", k8s.ResourceQuota),
    "ConfigMap": (Input.CONFIGMAPS, "configmaps", k8s.ConfigMap),
    "ClusterPolicy": (Input.CLUSTERPOLICIES, "clusterpolicies", k8s.CustomResource),
    "NVIDIADriver": (Input.NVIDIADRIVERS, "nvidiadrivers", k8s.CustomResource),
    "DeviceClass": (Input.DEVICECLASSES, "deviceclasses", dra.DeviceClass),
    "ResourceSlice": (Input.RESOURCESLICES, "resourceslices", dra.ResourceSlice),
    "ResourceClaim": (Input.RESOURCECLAIMS, "resourceclaims", dra.ResourceClaim),
    "ResourceClaimTemplate": (Input.RESOURCECLAIMTEMPLATES, "resourceclaimtemplates",
                              dra.ResourceClaimTemplate),
    "ComputeDomain": (Input.COMPUTEDOMAINS, "computedomains", dra.ComputeDomain),
}


def _files(root: Path) -> Iterator[Path]:
    count = 0
    base_depth = len(root.parts)
    for dirpath, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if len(Path(dirpath).parts) - base_depth >= MAX_DEPTH:
            dirs[:] = []
        for name in sorted(names):
            if not name.endswith(_EXTS) or name.startswith("."):
                continue
            p = Path(dirpath) / name
            if p.is_symlink() or not p.is_file():
                continue
            count += 1
            if count > MAX_FILES:
                raise InputError(f"{root}: more than {MAX_FILES} YAML/JSON files; refusing")
            yield p


def _documents(path: Path, rel: str) -> list[Any]:
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise InputError(f"{rel}: {size} bytes, over the {MAX_FILE_BYTES} byte limit")
    data = path.read_bytes()
    if b"\x00" in data[:65536]:
        raise InputError(f"{rel}: binary data, not YAML or JSON")
    if data.lstrip()[:1] in (b"{", b"["):
        try:
            doc = msgspec.json.decode(data)
        except msgspec.DecodeError as exc:
            raise InputError(f"{rel}: malformed JSON ({str(exc).splitlines()[0]})") from exc
        return [doc]
    import yaml

    try:
        return yaml_docs(data)
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "YAMLError"
        raise InputError(f"{rel}: malformed YAML ({first})") from exc
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{rel}: unreadable YAML ({type(exc).__name__})") from exc


def _events_v1(obj: dict[str, Any]) -> dict[str, Any]:
    """``events.k8s.io/v1`` Event → the core/v1 shape the model reads."""
    if not str(obj.get("apiVersion", "")).startswith("events.k8s.io"):
        return obj
    out = dict(obj)
    out.setdefault("involvedObject", obj.get("regarding") or {})
    out.setdefault("message", obj.get("note", ""))
    if "deprecatedCount" in obj:
        out.setdefault("count", obj["deprecatedCount"])
    out.setdefault("source", obj.get("deprecatedSource") or {})
    out.setdefault("reportingComponent", obj.get("reportingController", ""))
    return out


def _objects(doc: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(doc, dict):
        return
    items = doc.get("items")
    kind = str(doc.get("kind", ""))
    if isinstance(items, list):
        item_kind = kind[: -len("List")] if kind.endswith("List") and kind != "List" else ""
        api = doc.get("apiVersion")
        for it in items:
            if isinstance(it, dict):
                if api and "apiVersion" not in it:  # `kind: EventList` items carry none
                    it = {**it, "apiVersion": api}
                yield str(it.get("kind") or item_kind), it
        return
    if kind:
        yield kind, doc
    elif "serverVersion" in doc or "clientVersion" in doc:
        yield "__version__", doc


class _Found:
    def __init__(self) -> None:
        self.objects: dict[str, dict[tuple[str, str], Any]] = {}
        self.sources: dict[Input, list[str]] = {}
        self.version: tuple[str, k8s.ClusterVersion] | None = None
        self.errors: list[tuple[str, str]] = []


def scan_dump_dir(root: Path, *, lenient: bool = False) -> _Found | None:
    """Route every object under ``root`` by kind; None when nothing Kubernetes-shaped is there.

    A malformed file raises a one-line InputError unless ``lenient`` — but a directory holding
    nothing recognisable except malformed files also raises, naming the first one, since that
    beats "not a bundle" for a user whose only dump is broken.
    """
    found = _Found()
    first_error: InputError | None = None
    for path in _files(root):
        rel = path.relative_to(root).as_posix()
        try:
            docs = _documents(path, rel)
            for kind, obj in (o for d in docs for o in _objects(d)):
                if kind == "__version__":
                    found.version = (rel, msgspec.convert(obj, k8s.ClusterVersion, strict=False))
                    continue
                route = KIND_ROUTES.get(kind)
                if route is None:
                    continue
                inp, attr, typ = route
                if kind == "Event":
                    obj = _events_v1(obj)
                typed = msgspec.convert(obj, typ, strict=False)
                if hasattr(typed, "kind") and not typed.kind:
                    typed.kind = kind
                raw_meta = obj.get("metadata")
                meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
                key = (str(meta.get("namespace") or ""), str(meta.get("name") or id(obj)))
                found.objects.setdefault(attr, {})[key] = typed
                srcs = found.sources.setdefault(inp, [])
                if rel not in srcs:
                    srcs.append(rel)
        except msgspec.ValidationError as exc:
            err = InputError(f"{rel}: unexpected content ({str(exc).splitlines()[0]})")
            first_error = first_error or err
            found.errors.append((rel, str(err)))
        except InputError as exc:
            first_error = first_error or exc
            found.errors.append((rel, str(exc)))
    if not found.objects and found.version is None:
        if first_error is not None:
            raise first_error
        return None
    if first_error is not None and not lenient:
        raise first_error
    return found


def load_dump_dir(root: Path, *, lenient: bool = False, origin: str = "") -> Snapshot | None:
    """The Snapshot of a dump directory, or None when it holds no Kubernetes objects."""
    found = scan_dump_dir(root, lenient=lenient)
    if found is None:
        return None
    inputs: dict[Input, InputState] = {inp: InputState(False, inp.value, NOT_IN) for inp in Input}
    fields: dict[str, Any] = {}
    for kind, (inp, attr, _typ) in KIND_ROUTES.items():
        del kind
        if attr in found.objects:
            fields[attr] = list(found.objects[attr].values())
            srcs = found.sources.get(inp, [])
            source = srcs[0] if len(srcs) == 1 else f"{srcs[0]} (+{len(srcs) - 1} more)"
            inputs[inp] = InputState(True, source)
    if found.version is not None:
        fields["version"] = found.version[1]
        inputs[Input.VERSION] = InputState(True, found.version[0])
    manifest = Manifest(format="kubectl-dumps", source_kind="dumps", errors=tuple(found.errors))
    return Snapshot(inputs=inputs, manifest=manifest, origin=origin or str(root), **fields)
