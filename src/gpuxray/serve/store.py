"""The objects ``gpuxray serve`` answers with: a bundle's raw items, every field kept.

Unlike the Snapshot (typed Structs holding only what checks read), the served API must look like
the cluster did, so kubectl ``describe`` and ``-o json`` show what the bundle holds. Items are
loaded as plain JSON values once at start; the bundle is read-only, so no locking is needed.
"""

from __future__ import annotations

import contextlib
import hashlib
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from gpuxray.errors import InputError
from gpuxray.serve.tables import parse_time
from gpuxray.sources.apiresources import RESOURCES, ApiResource
from gpuxray.sources.archive import bundle_root, extract_bundle
from gpuxray.sources.bundle import is_bundle_dir
from gpuxray.sources.decode import _load_yaml

Obj = dict[str, Any]

NAMESPACES = ApiResource("namespaces", "namespace", "Namespace", "", "v1", False,
                         RESOURCES[0].inp, ("ns",))
DEFAULT_VERSION: Obj = {"major": "1", "minor": "31", "gitVersion": "v1.31.0",
                        "platform": "linux/amd64", "goVersion": "", "compiler": "gc",
                        "gitCommit": "", "gitTreeState": "clean", "buildDate": ""}


@dataclass
class BundleStore:
    root: Path
    items: dict[str, list[Obj]] = field(default_factory=dict)  # plural -> raw items
    version: Obj = field(default_factory=lambda: dict(DEFAULT_VERSION))
    resource_version: str = "1"
    collected_at: datetime | None = None  # manifest.json's collected_at: what ages count from
    _tmp: tempfile.TemporaryDirectory[str] | None = None

    @property
    def resources(self) -> list[ApiResource]:
        return [*RESOURCES, NAMESPACES]

    def now(self) -> datetime:
        """The moment a Table's ages are counted to: the bundle's, else the wall clock's."""
        return self.collected_at or datetime.now(UTC)

    def collected(self, res: ApiResource) -> bool:
        return res.plural in self.items

    def log_file(self, namespace: str, pod: str, container: str, previous: bool) -> Path | None:
        for part in (namespace, pod, container):
            if not part or "/" in part or part in (".", ".."):
                return None
        f = self.root / "logs" / namespace / pod / (
            f"{container}.previous.log" if previous else f"{container}.log")
        return f if f.is_file() and not f.is_symlink() else None

    def close(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def _read_doc(path: Path) -> list[Any]:
    data = path.read_bytes()
    if path.suffix == ".json":
        try:
            return [msgspec.json.decode(data)]
        except msgspec.DecodeError:
            if data.lstrip()[:1] in (b"{", b"["):
                raise InputError(f"{path.name}: malformed JSON") from None
    return _load_yaml(data, path.name)


def _items_of(docs: list[Any], name: str) -> list[Obj]:
    out: list[Obj] = []
    for doc in docs:
        if not isinstance(doc, dict):
            raise InputError(f"{name}: expected a Kubernetes object or List")
        items = doc.get("items")
        if isinstance(items, list):
            out.extend(i for i in items if isinstance(i, dict))
        elif not str(doc.get("kind", "")).endswith("List"):
            out.append(doc)
    return out


def load_store(path: str | Path) -> BundleStore:
    """Read a bundle directory or archive for serving (an archive stays extracted until close)."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such bundle")
    tmp = None
    root = p
    if not p.is_dir():
        tmp = extract_bundle(p)
        root = bundle_root(Path(tmp.name))
    try:
        if not is_bundle_dir(root):
            raise InputError(f"{p}: not a gpuxray bundle (no cluster/, nodes/ or manifest.json)")
        store = BundleStore(root=root, _tmp=tmp)
        digest = hashlib.sha1()
        cluster = root / "cluster"
        for res in RESOURCES:
            for ext in (".json", ".yaml", ".yml"):
                f = cluster / f"{res.plural}{ext}"
                if f.is_file():
                    store.items[res.plural] = _items_of(_read_doc(f), f"cluster/{f.name}")
                    st = f.stat()
                    digest.update(f"{f.name}{st.st_size}{st.st_mtime_ns}".encode())
                    break
        for ext in (".json", ".yaml", ".yml"):
            f = cluster / f"version{ext}"
            if f.is_file():
                docs = _read_doc(f)
                doc = docs[0] if docs and isinstance(docs[0], dict) else {}
                sv = doc.get("serverVersion", doc)
                if isinstance(sv, dict) and sv.get("gitVersion"):
                    store.version = {**DEFAULT_VERSION, **sv}
                break
        manifest = root / "manifest.json"
        if manifest.is_file():
            with contextlib.suppress(msgspec.DecodeError, OSError):
                doc = msgspec.json.decode(manifest.read_bytes())
                if isinstance(doc, dict):
                    store.collected_at = parse_time(doc.get("collected_at"))
        namespaces = sorted({str(o.get("metadata", {}).get("namespace"))
                             for lst in store.items.values() for o in lst
                             if isinstance(o.get("metadata"), dict)
                             and o["metadata"].get("namespace")})
        store.items["namespaces"] = [
            {"apiVersion": "v1", "kind": "Namespace",
             "metadata": {"name": ns, "uid": hashlib.sha1(ns.encode()).hexdigest()[:32]},
             "status": {"phase": "Active"}} for ns in namespaces]
        store.resource_version = str(int(digest.hexdigest()[:8], 16))
        return store
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.cleanup()
        raise
