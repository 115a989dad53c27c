"""An HTTP-level fake Kubernetes API that accepts the node agent's writes.

Reads of cluster objects are answered by ``gpuxray serve``'s request handler over a bundle. On
top of it this fake accepts ``POST namespaces``, ``POST daemonsets`` and ``DELETE namespaces``,
and plays the DaemonSet controller and the kubelets: one pod per node the DaemonSet's
nodeSelector and tolerations admit (the scheduler's filters, plus the tolerations the real
controller adds), and, per node, a behaviour — ``ok``: the container's own command line is run
(``gpuxray node`` on that node's fake host tree, ``/host`` replaced by the tree) in a background
thread and its stdout becomes the pod log; ``image-pull``: ``ImagePullBackOff``; ``silent``:
running, never logging; ``pending``: never scheduled; ``fail``: gpuxray exits non-zero.
Every request is recorded (method, path, body), loopback only.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import msgspec

from gpuxray.knowledge.agent_manifests import DAEMONSET_AUTO_TOLERATIONS
from gpuxray.model import k8s
from gpuxray.model.placement import admissibility
from gpuxray.serve.api import handle
from gpuxray.serve.server import kubeconfig_text
from gpuxray.serve.store import load_store

Obj = dict[str, Any]


@dataclass
class Recorded:
    method: str
    path: str
    body: Obj | None = None


@dataclass
class FakeState:
    namespaces: dict[str, Obj] = field(default_factory=dict)
    daemonsets: dict[tuple[str, str], Obj] = field(default_factory=dict)
    pods: dict[tuple[str, str], Obj] = field(default_factory=dict)
    logs: dict[tuple[str, str], bytes] = field(default_factory=dict)


def _status(code: int, reason: str, message: str) -> bytes:
    return json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                       "reason": reason, "message": message, "code": code}).encode()


def _labels_match(obj: Obj, selector: str) -> bool:
    labels = obj.get("metadata", {}).get("labels", {}) or {}
    for part in filter(None, selector.split(",")):
        k, _, v = part.partition("=")
        if labels.get(k) != v.lstrip("="):
            return False
    return True


class FakeKube:
    def __init__(self, bundle: Path, roots: dict[str, Path],
                 behaviour: dict[str, str] | None = None,
                 reject_daemonsets: int | None = None, exec_status: int = 403) -> None:
        self.store = load_store(bundle)
        self.roots = roots
        self.behaviour = behaviour or {}
        self.reject_daemonsets = reject_daemonsets
        self.exec_status = exec_status  # pods/exec (a websocket upgrade) is refused with it
        self.state = FakeState()
        self.requests: list[Recorded] = []
        self.lock = threading.Lock()
        self.threads: list[threading.Thread] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                       daemon=True)

    # ----- lifecycle ------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def kubeconfig(self, path: Path) -> Path:
        path.write_text(kubeconfig_text(self.url, "fake"))
        return path

    def __enter__(self) -> FakeKube:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        for t in self.threads:
            t.join(timeout=30)
        self.store.close()

    def writes(self) -> list[Recorded]:
        return [r for r in self.requests if r.method not in ("GET", "HEAD")]

    # ----- the controller and kubelets ------------------------------------------------------
    def _schedule(self, ds: Obj) -> None:
        ns = ds["metadata"]["namespace"]
        tmpl = ds["spec"]["template"]
        spec = dict(tmpl["spec"])
        spec["tolerations"] = [*spec.get("tolerations", []), *DAEMONSET_AUTO_TOLERATIONS]
        pod_model = msgspec.convert({"spec": spec}, k8s.Pod)
        for raw in self.store.items.get("nodes", []):
            node = msgspec.convert(raw, k8s.Node)
            name = node.metadata.name
            if not admissibility(pod_model, node).ok:
                continue
            how = self.behaviour.get(name, "ok")
            if how == "no-pod":
                continue
            pod_name = f"{ds['metadata']['name']}-{uuid.uuid4().hex[:5]}"
            pod: Obj = {"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": pod_name, "namespace": ns,
                                     "labels": dict(tmpl["metadata"]["labels"]),
                                     "uid": str(uuid.uuid4())},
                        "spec": {**tmpl["spec"], "nodeName": "" if how == "pending" else name,
                                 # what the DaemonSet controller pins each pod with
                                 "affinity": {"nodeAffinity": {
                                     "requiredDuringSchedulingIgnoredDuringExecution": {
                                         "nodeSelectorTerms": [{"matchFields": [{
                                             "key": "metadata.name", "operator": "In",
                                             "values": [name]}]}]}}}},
                        "status": {"phase": "Pending"}}
            cname = tmpl["spec"]["containers"][0]["name"]
            if how == "pending":
                pod["status"]["conditions"] = [{
                    "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                    "message": "0/1 nodes are available: 1 Insufficient memory."}]
            elif how == "image-pull":
                pod["status"]["containerStatuses"] = [{
                    "name": cname, "ready": False, "restartCount": 0,
                    "image": tmpl["spec"]["containers"][0]["image"],
                    "state": {"waiting": {"reason": "ImagePullBackOff",
                                          "message": "Back-off pulling image"}}}]
            else:
                pod["status"]["containerStatuses"] = [{
                    "name": cname, "ready": False, "restartCount": 0,
                    "state": {"waiting": {"reason": "ContainerCreating"}}}]
            with self.lock:
                self.state.pods[(ns, pod_name)] = pod
            if how in ("ok", "fail", "silent"):
                t = threading.Thread(target=self._kubelet, args=(ns, pod_name, name, how, tmpl),
                                     daemon=True)
                self.threads.append(t)
                t.start()

    def _kubelet(self, ns: str, pod_name: str, node: str, how: str, tmpl: Obj) -> None:
        """Run the container's command (its gpuxray part) against the node's fake tree."""
        log = b""
        if how in ("ok", "fail"):
            script = tmpl["spec"]["containers"][0]["command"][2]
            argv = shlex.split(script.split("||")[0].replace('"$NODE_NAME"', node))
            root = str(self.roots[node]) if how == "ok" else "/nonexistent-root"
            argv = [root if a == "/host" else a for a in argv if a != "--agent"]
            assert argv[0] == "gpuxray", argv
            log = _run_agent(tuple(argv))
        with self.lock:
            pod = self.state.pods.get((ns, pod_name))
            if pod is None:
                return  # namespace deleted meanwhile
            pod["status"]["phase"] = "Running"
            pod["status"]["containerStatuses"][0]["state"] = {
                "running": {"startedAt": "2026-11-29T12:00:00Z"}}
            self.state.logs[(ns, pod_name)] = log

    # ----- HTTP ------------------------------------------------------------------------------
    def answer(self, method: str, target: str, body: Obj | None) -> tuple[int, bytes, str]:
        url = urlsplit(target)
        parts = [p for p in url.path.split("/") if p]
        q = {k: v[0] for k, v in parse_qs(url.query).items()}
        st = self.state
        if parts[-1:] == ["exec"]:
            return self.exec_status, _status(self.exec_status, "Forbidden",
                                             "pods/exec is forbidden"), "json"
        with self.lock:
            if method == "POST" and parts == ["api", "v1", "namespaces"]:
                assert body is not None
                name = body["metadata"]["name"]
                if name in st.namespaces:
                    return 409, _status(409, "AlreadyExists", f"{name} exists"), "json"
                obj = json.loads(json.dumps(body))
                obj["metadata"]["uid"] = str(uuid.uuid4())
                st.namespaces[name] = obj
                return 201, json.dumps(obj).encode(), "json"
            if (method == "POST" and len(parts) == 6 and parts[:3] == ["apis", "apps", "v1"]
                    and parts[5] == "daemonsets"):
                ns = parts[4]
                if self.reject_daemonsets:
                    code = self.reject_daemonsets
                    return code, _status(code, "Forbidden", "daemonsets is forbidden"), "json"
                if ns not in st.namespaces:
                    return 404, _status(404, "NotFound", f"namespace {ns} not found"), "json"
                assert body is not None
                st.daemonsets[(ns, body["metadata"]["name"])] = body
                ds = body
            elif (method == "DELETE" and parts[:3] == ["api", "v1", "namespaces"]
                  and len(parts) == 4):
                name = parts[3]
                if st.namespaces.pop(name, None) is None:
                    return 404, _status(404, "NotFound", f"{name} not found"), "json"
                for d in (st.daemonsets, st.pods, st.logs):
                    for k in [k for k in d if k[0] == name]:
                        del d[k]  # type: ignore[attr-defined]
                return 200, json.dumps({"kind": "Status", "status": "Success"}).encode(), "json"
            elif method == "GET" and parts == ["api", "v1", "namespaces"]:
                items = [n for n in st.namespaces.values()
                         if _labels_match(n, q.get("labelSelector", ""))]
                return 200, json.dumps({"kind": "NamespaceList", "apiVersion": "v1",
                                        "metadata": {}, "items": items}).encode(), "json"
            elif (method == "GET" and len(parts) >= 5 and parts[:3] == ["api", "v1", "namespaces"]
                  and parts[3] in st.namespaces and parts[4] == "pods"):
                ns = parts[3]
                if len(parts) == 5:
                    items = [p for (n, _), p in st.pods.items()
                             if n == ns and _labels_match(p, q.get("labelSelector", ""))]
                    return 200, json.dumps({"kind": "PodList", "apiVersion": "v1",
                                            "metadata": {}, "items": items}).encode(), "json"
                if len(parts) == 7 and parts[6] == "log":
                    log = st.logs.get((ns, parts[5]))
                    if log is None:
                        return 400, _status(400, "BadRequest", "container is waiting"), "json"
                    return 200, log, "text"
                return 404, _status(404, "NotFound", "not found"), "json"
            else:
                ds = None
        if ds is not None:
            self._schedule(ds)
            return 201, json.dumps(ds).encode(), "json"
        resp = handle(self.store, method, target)
        return resp.status, resp.body, "json" if resp.content_type.endswith("json") else "text"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body are separate writes

            def _any(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                body = json.loads(raw) if raw else None
                fake.requests.append(Recorded(self.command, self.path, body))
                code, data, kind = fake.answer(self.command, self.path, body)
                self.send_response(code)
                self.send_header("Content-Type", "application/json" if kind == "json"
                                 else "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = _any

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


_RUNS: dict[tuple[str, ...], bytes] = {}
_RUNS_LOCK = threading.Lock()


def _run_agent(argv: tuple[str, ...]) -> bytes:
    """The container's output for ``argv``: a real ``gpuxray node`` run, remembered per command
    line so that tests sharing the same fake host trees pay for each run once."""
    with _RUNS_LOCK:
        if argv in _RUNS:
            return _RUNS[argv]
    proc = subprocess.run([sys.executable, "-m", "gpuxray", *argv[1:]],
                          capture_output=True, timeout=120, check=False)
    log = proc.stdout + proc.stderr
    if proc.returncode != 0:
        log += f"gpuxray-node-agent: failed with status {proc.returncode}\n".encode()
    with _RUNS_LOCK:
        _RUNS[argv] = log
    return log


def roots_from_bundle(bundle: Path, dest: Path) -> dict[str, Path]:
    """Fake host trees (``gpuxray node --root``) from a bundle's ``nodes/<node>/``."""
    out: dict[str, Path] = {}
    for ndir in sorted((bundle / "nodes").iterdir()):
        root = dest / ndir.name
        for f in (ndir / "files").rglob("*"):
            if f.is_file():
                t = root / f.relative_to(ndir / "files")
                t.parent.mkdir(parents=True, exist_ok=True)
                t.write_bytes(f.read_bytes())
        cdir = root / ".gpuxray-cmd"
        cdir.mkdir(parents=True, exist_ok=True)
        for f in (ndir / "cmd").iterdir():
            (cdir / f.name).write_bytes(f.read_bytes())
        out[ndir.name] = root
    return out
