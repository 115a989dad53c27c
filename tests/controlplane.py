"""A real Kubernetes control plane on loopback: etcd, kube-apiserver, kube-scheduler and
kube-controller-manager, built from ``tests/oracles/kube`` into ``.cache/kube/<version>/`` by
``scripts/oracles/kube.sh``.

There is no kubelet. Nodes are API objects whose ``status`` the caller writes (capacity,
allocatable, conditions, labels, taints), as the kubelet and the device plugin would leave them;
a pod created with ``spec.nodeName`` is bound, and the scheduler counts it as it counts a pod a
kubelet runs. The node-lifecycle and taint-eviction controllers are not started, so a node is
never tainted for a missing heartbeat and a pod is never evicted.

Authentication is a static token file (an admin in ``system:masters``) plus ServiceAccount
tokens issued by the TokenRequest API; the apiserver serves a certificate signed by a CA made
for the session. Every request is written to an audit log at Metadata level.

Used by the oracle tests (``tests/test_controlplane_*.py``, fixture ``control_plane``) and by
``scripts/controlplane up|down`` (``python tests/controlplane.py up DIR`` / ``down DIR``).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "tests" / "oracles" / "kube"
BINARIES = ("etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager")
ADMIN_TOKEN_USER = "gpuxray-admin"
# The controllers the oracles need; the node-lifecycle and taint-eviction controllers are left
# out on purpose (nodes have no kubelet sending heartbeats).
CONTROLLERS = ("deployment-controller", "replicaset-controller", "daemonset-controller",
               "resourcequota-controller", "namespace-controller", "serviceaccount-controller",
               "garbage-collector-controller", "job-controller", "statefulset-controller",
               "resourceclaim-controller")
# Extra feature gates for every component, e.g. "DRAPrioritizedList=true" (comma-separated).
FEATURE_GATES_ENV = "GPUXRAY_CP_FEATURE_GATES"

Obj = dict[str, Any]


def kube_version() -> str:
    """The Kubernetes release the oracle module pins (``k8s.io/kubernetes vX.Y.Z`` in go.mod)."""
    for line in (MODULE / "go.mod").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "k8s.io/kubernetes":
            return parts[1].lstrip("v")
    raise RuntimeError("tests/oracles/kube/go.mod names no k8s.io/kubernetes version")


def bin_dir() -> Path:
    return ROOT / ".cache" / "kube" / kube_version()


def missing_binaries() -> list[str]:
    d = bin_dir()
    return [b for b in BINARIES if not os.access(d / b, os.X_OK)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_pki(d: Path) -> None:
    """A CA, the apiserver's serving certificate (127.0.0.1, localhost) and the ServiceAccount
    signing key."""
    d.mkdir(parents=True, exist_ok=True)
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
             "ca.crt", "-days", "7", "-subj", "/CN=gpuxray-test-ca", cwd=d)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
             "server.csr", "-subj", "/CN=kube-apiserver", cwd=d)
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "server.crt", "-days", "7", "-extfile", "san.ext", cwd=d)
    _openssl("genrsa", "-out", "sa.key", "2048", cwd=d)


def kubeconfig_doc(server: str, ca: Path, user: str, token: str) -> str:
    doc = {"apiVersion": "v1", "kind": "Config", "current-context": user,
           "clusters": [{"name": "oracle", "cluster": {
               "server": server,
               "certificate-authority-data": base64.b64encode(ca.read_bytes()).decode()}}],
           "users": [{"name": user, "user": {"token": token}}],
           "contexts": [{"name": user, "context": {"cluster": "oracle", "user": user}}]}
    return json.dumps(doc, indent=1)


@dataclass
class ControlPlane:
    """A running control plane: its URL, admin kubeconfig, audit log and a small API client."""

    root: Path
    url: str
    admin_token: str
    version: str
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def kubeconfig(self) -> Path:
        return self.root / "admin.kubeconfig"

    @property
    def audit_log(self) -> Path:
        return self.root / "audit.log"

    @property
    def ca(self) -> Path:
        return self.root / "pki" / "ca.crt"

    # ----- HTTP ---------------------------------------------------------------------------
    def _ctx(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca))

    def request(self, method: str, path: str, body: Any = None, *, token: str | None = None,
                content_type: str = "application/json",
                timeout: float = 30) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {token or self.admin_token}",
            "Content-Type": content_type, "Accept": "application/json"})
        try:
            with urllib.request.urlopen(req, context=self._ctx(), timeout=timeout) as resp:
                raw = resp.read()
                status = int(resp.status)
        except urllib.error.HTTPError as exc:
            raw, status = exc.read(), int(exc.code)
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw.decode(errors="replace")

    def ok(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        status, out = self.request(method, path, body, **kw)
        if status >= 300:
            raise RuntimeError(f"{method} {path}: {status} {out}")
        return out

    def get(self, path: str) -> Any:
        return self.ok("GET", path)

    # ----- objects ------------------------------------------------------------------------
    def create(self, obj: Obj) -> Any:
        """POST an object to its collection (the apiserver's own admission runs)."""
        return self.ok("POST", collection_path(obj), strip_server_fields(obj))

    def try_create(self, obj: Obj) -> tuple[int, Any]:
        return self.request("POST", collection_path(obj), strip_server_fields(obj))

    def ensure_namespace(self, name: str) -> None:
        status, out = self.request("POST", "/api/v1/namespaces",
                                   {"apiVersion": "v1", "kind": "Namespace",
                                    "metadata": {"name": name}})
        if status not in (201, 409):
            raise RuntimeError(f"namespace {name}: {status} {out}")

    def delete_namespace(self, name: str, wait: bool = True) -> None:
        """Force-deletes the namespace's pods first (no kubelet would confirm a graceful delete),
        then the namespace, and waits until it is gone."""
        self.request("DELETE", f"/api/v1/namespaces/{name}/pods?gracePeriodSeconds=0")
        self.request("DELETE", f"/api/v1/namespaces/{name}")
        deadline = time.monotonic() + 120
        while wait and time.monotonic() < deadline:
            status, _ = self.request("GET", f"/api/v1/namespaces/{name}")
            if status == 404:
                return
            # pods a controller re-created while the namespace terminates
            self.request("DELETE", f"/api/v1/namespaces/{name}/pods?gracePeriodSeconds=0")
            time.sleep(0.2)
        if wait:
            raise RuntimeError(f"namespace {name} was not deleted in 120 s")

    def delete_nodes(self, names: Iterable[str] | None = None) -> None:
        if names is None:
            names = [n["metadata"]["name"] for n in self.get("/api/v1/nodes")["items"]]
        for n in names:
            self.request("DELETE", f"/api/v1/nodes/{n}")

    def wait(self, what: str, predicate: Any, timeout: float = 60,
             interval: float = 0.1) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            out = predicate()
            if out:
                return out
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out waiting for {what}")
            time.sleep(interval)

    def service_account_kubeconfig(self, namespace: str, name: str, path: Path) -> Path:
        """A kubeconfig holding a TokenRequest token for the ServiceAccount (1 h)."""
        out = self.ok("POST", f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token",
                      {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                       "spec": {"expirationSeconds": 3600}})
        path.write_text(kubeconfig_doc(self.url, self.ca, f"{namespace}-{name}",
                                       out["status"]["token"]))
        return path

    def kubectl(self, *args: str, kubeconfig: Path | None = None, input: str | None = None,
                check: bool = True) -> subprocess.CompletedProcess[str]:
        exe = shutil.which("kubectl")
        if not exe:
            raise RuntimeError("kubectl not on PATH")
        p = subprocess.run([exe, f"--kubeconfig={kubeconfig or self.kubeconfig}",
                            f"--cache-dir={self.root / 'kubectl-cache'}", *args],
                           capture_output=True, text=True, timeout=120, input=input)
        if check and p.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args)}: {p.stderr.strip()}")
        return p

    def audit_events(self) -> list[Obj]:
        if not self.audit_log.exists():
            return []
        out = []
        for line in self.audit_log.read_text().splitlines():
            with contextlib.suppress(ValueError):
                out.append(json.loads(line))
        return out

    # ----- lifecycle ----------------------------------------------------------------------
    def alive(self) -> list[str]:
        return [k for k, p in self.procs.items() if p.poll() is None]

    def stop(self) -> None:
        for name in reversed(list(self.procs)):
            p = self.procs[name]
            if p.poll() is None:
                p.terminate()
        for p in self.procs.values():
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)


def collection_path(obj: Obj) -> str:
    api = obj.get("apiVersion", "v1")
    plural = PLURALS[obj["kind"]]
    ns = obj.get("metadata", {}).get("namespace")
    base = "/api/v1" if api == "v1" else f"/apis/{api}"
    if ns and obj["kind"] not in CLUSTER_SCOPED:
        return f"{base}/namespaces/{ns}/{plural}"
    return f"{base}/{plural}"


PLURALS = {"Node": "nodes", "Pod": "pods", "Namespace": "namespaces", "Event": "events",
           "ConfigMap": "configmaps", "ResourceQuota": "resourcequotas",
           "ServiceAccount": "serviceaccounts", "DaemonSet": "daemonsets",
           "Deployment": "deployments", "ReplicaSet": "replicasets",
           "StatefulSet": "statefulsets", "Job": "jobs", "RuntimeClass": "runtimeclasses",
           "ClusterRole": "clusterroles", "ClusterRoleBinding": "clusterrolebindings",
           "Role": "roles", "RoleBinding": "rolebindings",
           "CustomResourceDefinition": "customresourcedefinitions",
           "ClusterPolicy": "clusterpolicies", "NVIDIADriver": "nvidiadrivers",
           "DeviceClass": "deviceclasses", "ResourceSlice": "resourceslices",
           "ResourceClaim": "resourceclaims", "ResourceClaimTemplate": "resourceclaimtemplates",
           "ComputeDomain": "computedomains"}
CLUSTER_SCOPED = {"Node", "Namespace", "RuntimeClass", "ClusterRole", "ClusterRoleBinding",
                  "CustomResourceDefinition", "ClusterPolicy", "NVIDIADriver", "DeviceClass",
                  "ResourceSlice"}


def strip_server_fields(obj: Obj) -> Obj:
    """What a client may send: no uid/resourceVersion/creationTimestamp/ownerReferences (the
    builder's owners are not objects of this apiserver)."""
    out = json.loads(json.dumps(obj))
    if out.get("kind") == "Node" and "status" in out:
        # the apiserver dials a node's address for logs and exec: only ever loopback here
        out["status"]["addresses"] = [
            {"type": "InternalIP", "address": "127.0.0.1"},
            {"type": "Hostname", "address": out["metadata"]["name"]}]
    m = out.setdefault("metadata", {})
    for k in ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields",
              "ownerReferences", "selfLink"):
        m.pop(k, None)
    return out


# ----- replaying a cluster ----------------------------------------------------------------
CRDS = (("nvidia.com", "clusterpolicies", "ClusterPolicy", "v1", "Cluster"),
        ("nvidia.com", "nvidiadrivers", "NVIDIADriver", "v1alpha1", "Cluster"),
        ("resource.nvidia.com", "computedomains", "ComputeDomain", "v1beta1", "Namespaced"))
LOAD_ORDER = ("runtimeclasses", "nodes", "deviceclasses", "resourceslices", "resourcequotas",
              "configmaps", "resourceclaimtemplates", "resourceclaims", "deployments",
              "replicasets", "statefulsets", "jobs", "daemonsets", "pods", "events",
              "clusterpolicies", "nvidiadrivers", "computedomains")
# kinds whose status is written as recorded; a ResourceQuota's is the quota controller's own
# count, and the controllers may rewrite the workloads' later
STATUS_KINDS = {"Pod", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet", "Job",
                "ClusterPolicy", "NVIDIADriver", "ResourceClaim", "ComputeDomain"}


def install_crds(cp: ControlPlane) -> None:
    """The GPU Operator's two CRDs and the DRA driver's ComputeDomain, schema-less (status as
    a subresource), so their objects can be replayed."""
    for group, plural, kind, version, scope in CRDS:
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": f"{plural}.{group}"},
               "spec": {"group": group, "scope": scope,
                        "names": {"plural": plural, "kind": kind,
                                  "singular": kind.lower(), "listKind": kind + "List"},
                        "versions": [{"name": version, "served": True, "storage": True,
                                      "subresources": {"status": {}},
                                      "schema": {"openAPIV3Schema": {
                                          "type": "object",
                                          "x-kubernetes-preserve-unknown-fields": True}}}]}}
        status, out = cp.request("POST", "/apis/apiextensions.k8s.io/v1/"
                                 "customresourcedefinitions", crd)
        if status not in (201, 409):
            raise RuntimeError(f"CRD {plural}: {status} {out}")
    for group, plural, _kind, version, _scope in CRDS:
        cp.wait(f"CRD {plural} served", lambda g=group, p=plural, v=version: cp.request(
            "GET", f"/apis/{g}/{v}/{p}")[0] == 200, timeout=60)


def _replayable_job(body: Obj) -> None:
    """A Job as collected carries the selector and labels the apiserver generated for it;
    a new Job must leave them to the apiserver, and its pods never restart Always."""
    spec = body.get("spec", {})
    if spec.get("manualSelector"):
        return
    spec.pop("selector", None)
    tmpl = spec.get("template", {})
    labels = tmpl.get("metadata", {}).get("labels", {})
    for k in ("controller-uid", "batch.kubernetes.io/controller-uid", "job-name",
              "batch.kubernetes.io/job-name"):
        labels.pop(k, None)
    pod = tmpl.get("spec", {})
    if pod.get("restartPolicy") not in ("OnFailure", "Never"):
        pod["restartPolicy"] = "Never"


def load_cluster(cp: ControlPlane, cluster: dict[str, list[Obj]], *,
                 refused: list[str] | None = None) -> dict[str, Obj]:
    """Replay a builder's ``cluster`` objects: namespaces first, each object created, then its
    status written through the status subresource (the apiserver drops status on create for
    most kinds, as a kubelet or controller would write it later). Events keep their
    involvedObject but point at the new uid. Returns the created objects by kind/ns/name.
    With ``refused`` given, an object the apiserver refuses is named there and skipped;
    without it the refusal raises."""
    namespaces = sorted({o["metadata"]["namespace"] for items in cluster.values()
                         for o in items if o.get("metadata", {}).get("namespace")})
    for ns in namespaces:
        cp.ensure_namespace(ns)
    created: dict[str, Obj] = {}
    for plural in LOAD_ORDER:
        for obj in cluster.get(plural, []):
            body = strip_server_fields(obj)
            if obj["kind"] == "Event":
                key = _key(obj["involvedObject"])
                if key in created:
                    body["involvedObject"]["uid"] = created[key]["metadata"]["uid"]
            if obj["kind"] == "Job":
                _replayable_job(body)
            status, out = cp.request("POST", collection_path(body), body)
            if status >= 300:
                if refused is None:
                    raise RuntimeError(f"POST {collection_path(body)}: {status} {out}")
                msg = out.get("message", out) if isinstance(out, dict) else out
                refused.append(f"{_key(obj)}: {status} {msg}")
                continue
            if obj["kind"] in STATUS_KINDS and obj.get("status"):
                out = _write_status(cp, obj, out)
            created[_key(obj)] = out
    return created


def _write_status(cp: ControlPlane, obj: Obj, current: Obj) -> Obj:
    """PUT the recorded status, re-reading on a conflict with a controller's own write."""
    path = collection_path(obj) + f"/{obj['metadata']['name']}"
    for _ in range(10):
        current["status"] = obj["status"]
        status, out = cp.request("PUT", path + "/status", current)
        if status < 300:
            return dict(out)
        if status != 409:
            raise RuntimeError(f"PUT {path}/status: {status} {out}")
        current = cp.get(path)
    raise RuntimeError(f"PUT {path}/status: conflicts kept coming")


def _key(obj: Obj) -> str:
    m = obj.get("metadata", obj)
    return f"{obj['kind']}/{m.get('namespace') or ''}/{m['name']}"


# ----- start ------------------------------------------------------------------------------
def _spawn(name: str, args: list[str], logdir: Path) -> subprocess.Popen[bytes]:
    log = open(logdir / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process's fds
    try:
        return subprocess.Popen([str(bin_dir() / name), *args], stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    finally:
        log.close()


def _wait_http(url: str, ctx: ssl.SSLContext | None, token: str | None, procs: dict[str, Any],
               what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        dead = [k for k, p in procs.items() if p.poll() is not None]
        if dead:
            raise RuntimeError(f"{', '.join(dead)} exited while waiting for {what}")
        req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"}
                                     if token else {})
        try:
            with urllib.request.urlopen(req, context=ctx, timeout=5) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, OSError, ssl.SSLError) as exc:
            last = str(exc)
        time.sleep(0.3)
    raise TimeoutError(f"{what} not ready after {timeout:.0f} s ({last})")


def start(root: Path, timeout: float = 180,
          components: tuple[str, ...] = BINARIES,
          apiserver_args: tuple[str, ...] = ()) -> ControlPlane:
    """Start etcd, the apiserver, the scheduler and the controller manager (those of them in
    ``components``) under ``root`` (a fresh directory), wait until the apiserver is serving, and
    return the handle. ``apiserver_args`` go to kube-apiserver last (e.g. ``--runtime-config``
    to serve the API versions of an older release)."""
    missing = [b for b in missing_binaries() if b in components]
    if missing:
        raise FileNotFoundError(f"{', '.join(missing)} not built in {bin_dir()} "
                                "(run scripts/oracles/kube.sh)")
    root.mkdir(parents=True, exist_ok=True)
    logs = root / "logs"
    logs.mkdir(exist_ok=True)
    make_pki(root / "pki")
    pki = root / "pki"
    token = base64.b16encode(os.urandom(16)).decode().lower()
    (root / "tokens.csv").write_text(f'{token},{ADMIN_TOKEN_USER},admin,"system:masters"\n')
    (root / "audit-policy.yaml").write_text(
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n")
    gates = os.environ.get(FEATURE_GATES_ENV, "")
    gate_args = [f"--feature-gates={gates}"] if gates else []
    etcd_client, etcd_peer, api_port = free_port(), free_port(), free_port()
    url = f"https://127.0.0.1:{api_port}"
    cp = ControlPlane(root=root, url=url, admin_token=token, version=kube_version())
    (root / "state.json").write_text(json.dumps({"url": url, "pids": {}}))
    try:
        cp.procs["etcd"] = _spawn("etcd", [
            "--name=oracle", f"--data-dir={root / 'etcd'}",
            f"--listen-client-urls=http://127.0.0.1:{etcd_client}",
            f"--advertise-client-urls=http://127.0.0.1:{etcd_client}",
            f"--listen-peer-urls=http://127.0.0.1:{etcd_peer}",
            f"--initial-advertise-peer-urls=http://127.0.0.1:{etcd_peer}",
            f"--initial-cluster=oracle=http://127.0.0.1:{etcd_peer}",
            "--unsafe-no-fsync", "--log-level=warn", "--listen-metrics-urls="], logs)
        _wait_http(f"http://127.0.0.1:{etcd_client}/health", None, None, cp.procs, "etcd",
                   timeout)
        cp.procs["kube-apiserver"] = _spawn("kube-apiserver", [
            f"--etcd-servers=http://127.0.0.1:{etcd_client}",
            "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
            f"--secure-port={api_port}", f"--cert-dir={root / 'apiserver-certs'}",
            f"--tls-cert-file={pki / 'server.crt'}",
            f"--tls-private-key-file={pki / 'server.key'}",
            f"--client-ca-file={pki / 'ca.crt'}",
            f"--token-auth-file={root / 'tokens.csv'}",
            "--authorization-mode=RBAC",
            f"--service-account-key-file={pki / 'sa.key'}",
            f"--service-account-signing-key-file={pki / 'sa.key'}",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            "--service-cluster-ip-range=10.96.0.0/24",
            # no kubelet provisions service account tokens, so pods need not name one; and no
            # node-lifecycle controller would lift the not-ready taint TaintNodesByCondition
            # puts on every new node: nodes keep the taints the caller wrote
            "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
            f"--audit-policy-file={root / 'audit-policy.yaml'}",
            f"--audit-log-path={root / 'audit.log'}", "--audit-log-format=json",
            "--audit-log-maxsize=0", "--endpoint-reconciler-type=none",
            "--kubelet-preferred-address-types=InternalIP",
            "--v=1", *gate_args, *apiserver_args], logs)
        _wait_http(url + "/readyz", cp._ctx(), token, cp.procs, "kube-apiserver", timeout)
        cp.kubeconfig.write_text(kubeconfig_doc(url, pki / "ca.crt", ADMIN_TOKEN_USER, token))
        common = [f"--kubeconfig={cp.kubeconfig}", "--leader-elect=false",
                  "--bind-address=127.0.0.1", *gate_args]
        if "kube-scheduler" in components:
            cp.procs["kube-scheduler"] = _spawn("kube-scheduler", [
                *common, f"--secure-port={free_port()}",
                f"--authentication-kubeconfig={cp.kubeconfig}",
                f"--authorization-kubeconfig={cp.kubeconfig}", "--v=1"], logs)
        if "kube-controller-manager" in components:
            cp.procs["kube-controller-manager"] = _spawn("kube-controller-manager", [
                *common, f"--secure-port={free_port()}",
                f"--authentication-kubeconfig={cp.kubeconfig}",
                f"--authorization-kubeconfig={cp.kubeconfig}",
                f"--controllers={','.join(CONTROLLERS)}",
                "--concurrent-replicaset-syncs=5", "--v=1"], logs)
        (root / "state.json").write_text(json.dumps(
            {"url": url, "pids": {k: p.pid for k, p in cp.procs.items()}}))
        # the scheduler and controllers are up once they hold their informers; a lease-less
        # scheduler shows itself by binding, which the caller waits for where it matters
        time.sleep(0.5)
        dead = [k for k in cp.procs if cp.procs[k].poll() is not None]
        if dead:
            raise RuntimeError(f"{', '.join(dead)} exited at start; see {logs}")
    except BaseException:
        cp.stop()
        raise
    return cp


def wait_scheduler(cp: ControlPlane, timeout: float = 120) -> None:
    """Bind a throw-away pod to prove the scheduler and its informers are running."""
    ns = "gpuxray-probe"
    cp.ensure_namespace(ns)
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "gpuxray-probe-node", "labels": {"gpuxray-probe": "1"}},
            "status": {"capacity": {"cpu": "1", "memory": "1Gi", "pods": "10"},
                       "allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}
    cp.request("POST", "/api/v1/nodes", node)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe", "namespace": ns},
           "spec": {"containers": [{"name": "c", "image": "x"}],
                    "nodeSelector": {"gpuxray-probe": "1"}}}
    cp.request("POST", f"/api/v1/namespaces/{ns}/pods", pod)
    try:
        cp.wait("the scheduler to bind a probe pod", lambda: cp.get(
            f"/api/v1/namespaces/{ns}/pods/probe")["spec"].get("nodeName"), timeout=timeout)
    finally:
        cp.delete_namespace(ns)
        cp.delete_nodes(["gpuxray-probe-node"])


def stop_dir(root: Path) -> None:
    """Stop a control plane started by ``up`` (its pids are in state.json) and remove it."""
    state = root / "state.json"
    if state.exists():
        pids = json.loads(state.read_text()).get("pids", {})
        for pid in reversed(list(pids.values())):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGTERM)
        deadline = time.monotonic() + 15
        for pid in pids.values():
            while time.monotonic() < deadline:
                try:
                    os.kill(int(pid), 0)
                except ProcessLookupError:
                    break
                time.sleep(0.2)
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
    shutil.rmtree(root, ignore_errors=True)


def attach(kubeconfig: Path) -> ControlPlane:
    """The handle of a control plane ``up`` started, from the kubeconfig it printed."""
    root = kubeconfig.resolve().parent
    state = json.loads((root / "state.json").read_text())
    token = (root / "tokens.csv").read_text().split(",", 1)[0]
    return ControlPlane(root=root, url=state["url"], admin_token=token, version=kube_version())


@contextlib.contextmanager
def running(root: Path) -> Iterator[ControlPlane]:
    cp = start(root)
    try:
        wait_scheduler(cp)
        yield cp
    finally:
        cp.stop()


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("up", "down"):
        print("usage: controlplane.py up|down DIR", file=sys.stderr)
        return 2
    root = Path(argv[1])
    if argv[0] == "down":
        stop_dir(root)
        return 0
    if (root / "state.json").exists():
        print(f"controlplane: {root} is in use; run 'scripts/controlplane down' first",
              file=sys.stderr)
        return 1
    try:
        cp = start(root)
        wait_scheduler(cp)
    except (OSError, RuntimeError, TimeoutError, subprocess.CalledProcessError) as exc:
        print(f"controlplane: {exc}", file=sys.stderr)
        stop_dir(root)
        return 1
    print(f"control plane {cp.version} at {cp.url}; logs in {root / 'logs'}; "
          f"audit log {cp.audit_log}", file=sys.stderr)
    print(cp.kubeconfig)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
