"""``collect --via-operands``: node files read through the operand pods, writing nothing new.

The GPU Operator's pods already mount what seed §5's diagnosis needs: the toolkit container
mounts the host's containerd config directory at ``/runtime/config-dir`` and its drop-in
directory at ``/runtime/config-dir.d`` (facts.md §2.4: ``RUNTIME_CONFIG``,
``RUNTIME_DROP_IN_CONFIG``), and the driver container sees the host's ``/etc/os-release`` at
``/host-etc/os-release`` and the kernel's ``/proc/driver/nvidia``. gpuxray runs only ``ls`` and
``cat`` in them through ``pods/exec`` (the API's exec subresource: a create verb in RBAC terms,
but nothing is created or changed). Where RBAC says no, every node is *unknown* with the 403's
reason. Commands (journal, dmesg, ``containerd config dump``) are not available this way.

The exec transport sits behind :class:`Exec`, so command construction and result handling are
tested against a fake; the websocket itself is the kubernetes client's ``stream`` helper.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from gpuxray.model import k8s
from gpuxray.model.snapshot import HostFacts
from gpuxray.sources.host import redact, redact_kind, save_host
from gpuxray.sources.listing import list_all
from gpuxray.sources.live import Client, FetchError, Progress

READ_ONLY_COMMANDS = frozenset({"cat", "ls"})
MAX_FILES_PER_DIR = 64


class ExecDenied(Exception):
    """The API refused the exec (403 RBAC, 404 pod gone): ``status`` and ``reason``."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Exec(Protocol):
    def run(self, namespace: str, pod: str, container: str,
            argv: list[str]) -> tuple[int, str, str]:
        """(exit status, stdout, stderr); ExecDenied when the API refuses."""
        ...


@dataclass(frozen=True)
class OperandView:
    """Which host paths one operand container shows, and where (facts.md §2.4, §5.1)."""

    app: str  # the pods' ``app`` label (= the DaemonSet name)
    container: str
    dirs: tuple[tuple[str, str], ...] = ()  # (path in the container, host path without "/")
    files: tuple[tuple[str, str], ...] = ()
    suffixes: tuple[str, ...] = (".toml",)


OPERAND_VIEWS: tuple[OperandView, ...] = (
    OperandView("nvidia-container-toolkit-daemonset", "nvidia-container-toolkit-ctr",
                dirs=(("/runtime/config-dir", "etc/containerd"),
                      ("/runtime/config-dir/conf.d", "etc/containerd/conf.d"),
                      ("/runtime/config-dir.d", "etc/containerd/conf.d"))),
    OperandView("nvidia-driver-daemonset", "nvidia-driver-ctr",
                files=(("/host-etc/os-release", "etc/os-release"),
                       ("/proc/driver/nvidia/version", "proc/driver/nvidia/version"))),
)


def guard(argv: list[str]) -> list[str]:
    """Refuse anything but ``cat``/``ls`` with plain path arguments (no shell is involved)."""
    if not argv or argv[0] not in READ_ONLY_COMMANDS or any(
            a.startswith("-") and a != "-1" for a in argv[1:]):
        raise ValueError(f"not a read-only command: {argv!r}")
    return argv


@dataclass
class _NodeFiles:
    files: dict[str, str] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)


def _read_view(ex: Exec, pod: k8s.Pod, view: OperandView, out: _NodeFiles) -> None:
    ns, name = pod.metadata.namespace or "default", pod.metadata.name

    def run(*argv: str) -> tuple[int, str, str]:
        return ex.run(ns, name, view.container, guard(list(argv)))

    for cdir, hdir in view.dirs:
        rc, listing, _err = run("ls", "-1", cdir)
        if rc != 0:
            continue
        names = [n for n in listing.splitlines() if n and "/" not in n and n not in (".", "..")]
        for entry in sorted(names)[:MAX_FILES_PER_DIR]:
            if not entry.endswith(view.suffixes):
                continue
            rel = posixpath.join(hdir, entry)
            if rel in out.files:
                continue
            rc, text, err = run("cat", posixpath.join(cdir, entry))
            if rc == 0:
                out.files[rel] = text
            else:
                out.unreadable[rel] = (err.strip() or f"exit status {rc}")[:200]
    for cpath, rel in view.files:
        if rel in out.files:
            continue
        rc, text, err = run("cat", cpath)
        if rc == 0:
            out.files[rel] = text


def read_via_operands(root: Path, client: Client, ex: Exec,
                      progress: Progress) -> list[tuple[str, str]]:
    """Write ``root/nodes/<node>/files`` from the operand pods; return manifest errors."""
    apps = ",".join(v.app for v in OPERAND_VIEWS)
    try:
        pods = list_all(client, "/api/v1/pods", k8s.Pod, [("labelSelector", f"app in ({apps})")])
    except FetchError as exc:
        return [("nodes/", f"operand pods not listed: {exc.reason}")]
    views = {v.app: v for v in OPERAND_VIEWS}
    per_node: dict[str, _NodeFiles] = {}
    errors: list[tuple[str, str]] = []
    for pod in sorted(pods, key=lambda p: (p.spec.node_name, p.metadata.name)):
        view = views.get(pod.metadata.labels.get("app", ""))
        node = pod.spec.node_name
        if view is None or not node:
            continue
        nf = per_node.setdefault(node, _NodeFiles())
        running = any(s.name == view.container and s.state.running is not None
                      for s in pod.status.container_statuses)
        if not running:
            nf.unreadable[f"<{view.app}>"] = f"{view.container} is not running"
            continue
        try:
            _read_view(ex, pod, view, nf)
        except ExecDenied as exc:
            if exc.status == 403:  # RBAC: no point asking again for the other pods
                return [("nodes/", f"pods/exec not allowed: {exc.reason}")]
            nf.unreadable[f"<{view.app}>"] = exc.reason
    for node, nf in sorted(per_node.items()):
        if not nf.files:
            why = "; ".join(sorted(set(nf.unreadable.values()))) or "nothing readable"
            errors.append((f"nodes/{node}/", f"via operands: {why}"))
            progress.line(f"  {node:<24} unknown: {why}")
            continue
        files = {}
        for rel, text in nf.files.items():
            kind = redact_kind(rel)
            files[rel] = redact(text, kind) if kind else text
        unreadable = {k: v for k, v in nf.unreadable.items() if not k.startswith("<")}
        save_host(HostFacts(node, files, {}, {}, unreadable), root)
        progress.line(f"  {node:<24} {len(files)} files via operand pods")
    return errors


class KubeExec:
    """``pods/exec`` over the kubernetes client's websocket ``stream`` helper."""

    def __init__(self, api_client: Any, timeout_s: float = 20.0) -> None:
        self.api_client = api_client
        self.timeout_s = timeout_s

    def run(self, namespace: str, pod: str, container: str,
            argv: list[str]) -> tuple[int, str, str]:
        from kubernetes import client as kclient
        from kubernetes.client.exceptions import ApiException
        from kubernetes.stream import stream

        api = kclient.CoreV1Api(self.api_client)
        try:
            ws = stream(api.connect_get_namespaced_pod_exec, pod, namespace,
                        command=guard(argv), container=container, stdin=False, stdout=True,
                        stderr=True, tty=False, _preload_content=False)
        except ApiException as exc:
            reason = str(exc.reason or exc)
            status = int(exc.status or 0)
            if not status and "Handshake status " in reason:  # the websocket upgrade's answer
                tail = reason.split("Handshake status ", 1)[1]
                status = int(tail[:3]) if tail[:3].isdigit() else 0
            reason = reason.split(" -+-+- ", 1)[0]  # websocket-client appends the headers
            raise ExecDenied(status, reason.splitlines()[0][:200] if reason else "refused") from exc
        try:
            ws.run_forever(timeout=self.timeout_s)
            out = ws.read_stdout() or ""
            err = ws.read_stderr() or ""
            rc = ws.returncode
        finally:
            ws.close()
        return (int(rc) if rc is not None else 1), str(out), str(err)
