"""``collect --node-agent``: node facts across the fleet, with Kubernetes as the engine.

The drop-in trap (seed §5) is visible only on the node. Rather than fan out over ssh, gpuxray
asks the cluster to run ``gpuxray node`` on every GPU node once, in a namespace of its own, and
reads each node's facts back from the pod's log:

1. list the nodes the selector matches (default ``nvidia.com/gpu.present=true``) and, with the
   scheduler's own filters (:mod:`gpuxray.engines.scheduling`), set aside the ones the agent can
   never land on (an untolerated taint) — each becomes an *unknown* with that reason at once;
2. create ``gpuxray-agent-<random>`` (labelled, with an expiry annotation) and the DaemonSet of
   :mod:`gpuxray.knowledge.agent_manifests` in it — the only writes, all in :mod:`.agent_writes`;
3. poll the namespace's pods (one LIST per round, not one per node) and read the logs of started
   agents with a bounded thread pool; each facts line is redacted again and written as BUNDLE.md
   ``nodes/<node>/`` as it arrives (:func:`~.host.save_host`), so memory holds one node at a time;
4. a node that has not reported when its deadline passes — still Pending (and why: the pod's
   condition), image pull failing, the agent failing, or silent — becomes a manifest ``errors``
   entry ``nodes/<node>/`` with the reason, so node checks say *unknown* for it, never *pass*;
5. ALWAYS delete the namespace (``finally``): after success, an error, or Ctrl-C.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import msgspec

from gpuxray.errors import SourceError
from gpuxray.knowledge import agent_manifests as am
from gpuxray.model import k8s
from gpuxray.model.placement import admissibility
from gpuxray.model.snapshot import HostFacts
from gpuxray.sources.agent_writes import ClusterWrites
from gpuxray.sources.apiresources import log_path
from gpuxray.sources.host import redact, redact_kind, save_host
from gpuxray.sources.listing import list_all
from gpuxray.sources.live import Client, FetchError, Progress
from gpuxray.sources.nodefacts_wire import WireError, decode

# Waiting reasons after which the agent cannot start without someone changing something.
TERMINAL_WAITING = frozenset({"ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull",
                              "CreateContainerConfigError"})
AGENT_FAILED_MARK = "gpuxray-node-agent: failed"
LOG_LIMIT_BYTES = 64 << 20  # journals are large; the facts line is the log's last line

Hook = Callable[[str, str], None]


@dataclass(frozen=True)
class AgentOptions:
    selector: str = am.DEFAULT_SELECTOR
    image: str = am.DEFAULT_IMAGE
    all_taints: bool = False
    timeout_s: float = 300.0  # per node: from the DaemonSet's creation to its facts
    parallel: int = 16  # concurrent log reads
    poll_s: float = 2.0
    hold_s: int = 3600  # the agent's sleep and the namespace's expiry


@dataclass
class AgentReport:
    namespace: str = ""
    reported: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (bundle path, reason)
    deleted: bool = False


def _template_pod(ds: dict[str, Any]) -> k8s.Pod:
    """The pod the DaemonSet controller would create, with the tolerations it adds."""
    spec = dict(ds["spec"]["template"]["spec"])
    spec["tolerations"] = [*spec.get("tolerations", []), *am.DAEMONSET_AUTO_TOLERATIONS]
    return msgspec.convert({"spec": spec}, k8s.Pod)


def _pod_state(pod: k8s.PodWithConditions) -> tuple[str, str]:
    """(started|terminal|waiting, reason) for the agent container of ``pod``."""
    if pod.status.phase == "Failed":
        return "terminal", f"agent pod failed: {pod.status.reason or ''} {pod.status.message}"
    for st in pod.status.container_statuses:
        if st.name != am.CONTAINER:
            continue
        if st.state.running is not None or st.state.terminated is not None:
            return "started", ""
        w = st.state.waiting
        if w is not None and w.reason:
            text = f"{w.reason}: {w.message}".strip().rstrip(":")
            return ("terminal" if w.reason in TERMINAL_WAITING else "waiting"), text
    for c in pod.status.conditions:
        if c.type == "PodScheduled" and c.status == "False":
            return "waiting", f"not scheduled: {c.reason} {c.message}".strip()
    return "waiting", f"agent pod {pod.status.phase or 'Pending'}"


def pod_node(pod: k8s.Pod) -> str:
    """The node a DaemonSet pod is for: ``spec.nodeName`` once bound, else the node the
    controller pinned it to (required node affinity on ``metadata.name``), so a pod that
    stays Pending is still attributed to its node."""
    if pod.spec.node_name:
        return pod.spec.node_name
    aff = pod.spec.affinity
    req = (aff.node_affinity.required_during_scheduling_ignored_during_execution
           if aff and aff.node_affinity else None)
    for term in req.node_selector_terms if req else []:
        for f in term.match_fields:
            if f.key == "metadata.name" and f.operator == "In" and len(f.values) == 1:
                return f.values[0]
    return ""


def _redacted(f: HostFacts, node: str) -> HostFacts:
    """The facts under the node's cluster name, credentials redacted again (the agent already
    did; a bundle is attached to tickets, so the collector does not rely on the image)."""
    files = {}
    for rel, text in f.files.items():
        kind = redact_kind(rel)
        files[rel] = redact(text, kind) if kind else text
    cmds = {}
    for name, text in f.cmds.items():
        kind = redact_kind(f"cmd:{name}")
        cmds[name] = redact(text, kind) if kind else text
    return HostFacts(node, files, cmds, dict(f.cmd_errors), dict(f.unreadable))


def _expires(hold_s: int) -> str:
    return (datetime.now(UTC) + timedelta(seconds=hold_s)).strftime("%Y-%m-%dT%H:%M:%SZ")


def run_agent(root: Path, client: Client, writes: ClusterWrites, opts: AgentOptions,
              progress: Progress, *, hook: Hook | None = None,
              clock: Callable[[], float] = time.monotonic,
              sleep: Callable[[float], None] = time.sleep) -> AgentReport:
    """Run the agent and write ``root/nodes/<node>/``; the namespace is deleted whatever
    happens. ``hook(event, node)`` is called after each step (tests interrupt from it)."""
    report = AgentReport()
    selector = am.parse_selector(opts.selector)
    run_id = secrets.token_hex(3)
    ns_name = f"{am.NAMESPACE_PREFIX}{run_id}"
    sel_q = ",".join(f"{k}={v}" for k, v in selector.items())
    try:
        nodes = list_all(client, "/api/v1/nodes", k8s.Node, [("labelSelector", sel_q)])
    except FetchError as exc:
        report.errors.append(("nodes/", f"node agent: nodes not listed: {exc.reason}"))
        return report
    if not nodes:
        report.errors.append(("nodes/", f"no node matches {sel_q}"))
        return report
    extra = am.distribution_mounts(n.status.node_info.kubelet_version for n in nodes)
    ds = am.daemonset(ns_name, run_id, image=opts.image, node_selector=selector,
                      all_taints=opts.all_taints, hold_s=opts.hold_s, extra_mounts=extra)
    template = _template_pod(ds)
    waiting: dict[str, str] = {}
    for node in nodes:
        adm = admissibility(template, node)
        if adm.ok:
            waiting[node.metadata.name] = "no agent pod was created"
        else:
            report.errors.append((f"nodes/{node.metadata.name}/",
                                  f"node agent cannot run there ({adm.reason}: {adm.detail})"))
    progress.line(f"gpuxray: node agent: {len(nodes)} node(s) match {sel_q}, "
                  f"{len(waiting)} can run the agent")
    if not waiting:
        return report

    report.namespace = ns_name
    pool = ThreadPoolExecutor(max_workers=max(1, opts.parallel),
                              thread_name_prefix="gpuxray-agent-log")
    try:
        created = writes.create_namespace(am.namespace(ns_name, run_id, _expires(opts.hold_s)))
        meta = created.get("metadata", {}) if isinstance(created, dict) else {}
        owner = ({"apiVersion": "v1", "kind": "Namespace", "name": ns_name, "uid": meta["uid"]}
                 if meta.get("uid") else None)
        if hook:
            hook("namespace", ns_name)
        ds = am.daemonset(ns_name, run_id, image=opts.image, node_selector=selector,
                          all_taints=opts.all_taints, hold_s=opts.hold_s, owner=owner,
                          extra_mounts=extra)
        writes.create_daemonset(ns_name, ds)
        if hook:
            hook("daemonset", ns_name)
        progress.line(f"gpuxray: node agent: created namespace {ns_name} and DaemonSet "
                      f"{am.AGENT_NAME}; waiting up to {opts.timeout_s:g}s per node")
        _poll(root, client, pool, ns_name, run_id, waiting, opts, report, progress, hook,
              clock, sleep)
    except FetchError as exc:
        raise SourceError(f"node agent: {exc.reason}") from exc
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        try:
            writes.delete_namespace(ns_name)
            report.deleted = True
            progress.line(f"gpuxray: node agent: deleted namespace {ns_name}")
        except FetchError as exc:
            progress.line(f"gpuxray: node agent: could not delete namespace {ns_name} "
                          f"({exc.reason}); run: gpuxray collect --node-agent-cleanup")
            report.errors.append((f"namespace/{ns_name}", f"not deleted: {exc.reason}"))
    return report


def _poll(root: Path, client: Client, pool: ThreadPoolExecutor, ns: str, run_id: str,
          waiting: dict[str, str], opts: AgentOptions, report: AgentReport,
          progress: Progress, hook: Hook | None, clock: Callable[[], float],
          sleep: Callable[[float], None]) -> None:
    start = clock()
    inflight: dict[str, Future[bytes]] = {}
    pods_path = f"/api/v1/namespaces/{quote(ns)}/pods"

    def give_up(node: str, reason: str) -> None:
        waiting.pop(node, None)
        report.errors.append((f"nodes/{node}/", f"node agent: {reason}"))
        progress.line(f"  {node:<24} unknown: {reason}")

    def read_log(pod: str) -> bytes:
        return client.get(log_path(ns, pod), [("container", am.CONTAINER),
                                              ("limitBytes", str(LOG_LIMIT_BYTES))],
                          accept="text/plain, */*")

    while waiting:
        pods = list_all(client, pods_path, k8s.PodWithConditions,
                        [("labelSelector", f"{am.RUN_LABEL}={run_id}")])
        by_node = {n: p for p in pods if (n := pod_node(p))}
        for node in list(waiting):
            fut = inflight.get(node)
            if fut is not None and fut.done():
                del inflight[node]
                try:
                    facts, _notes = decode(fut.result())
                except FetchError as exc:
                    waiting[node] = f"log not readable: {exc.reason}"
                except WireError as exc:
                    text = str(exc)
                    if AGENT_FAILED_MARK in text:
                        give_up(node, text)
                    else:
                        waiting[node] = text
                else:
                    save_host(_redacted(facts, node), root)
                    waiting.pop(node)
                    report.reported.append(node)
                    progress.line(f"  {node:<24} {len(facts.files)} files, "
                                  f"{len(facts.cmds)} command outputs")
                    if hook:
                        hook("saved", node)
                    continue
            pod = by_node.get(node)
            if pod is None:
                continue
            state, reason = _pod_state(pod)
            if state == "terminal":
                give_up(node, reason)
            elif state == "waiting":
                waiting[node] = reason
            elif node not in inflight:
                inflight[node] = pool.submit(read_log, pod.metadata.name)
        if not waiting:
            break
        if clock() - start >= opts.timeout_s:
            for node, reason in sorted(waiting.items()):
                give_up(node, f"timed out after {opts.timeout_s:g}s ({reason})")
            break
        sleep(opts.poll_s)


def cleanup_stale(client: Client, writes: ClusterWrites, progress: Progress, *,
                  all_agents: bool = False, now: datetime | None = None) -> list[str]:
    """Delete agent namespaces whose expiry passed (all of them with ``all_agents``)."""
    now = now or datetime.now(UTC)
    label = f"{am.AGENT_LABEL}=true,{am.MANAGED_LABEL[0]}={am.MANAGED_LABEL[1]}"
    deleted = []
    for ns in list_all(client, "/api/v1/namespaces", _Namespace, [("labelSelector", label)]):
        name = ns.metadata.name
        if not name.startswith(am.NAMESPACE_PREFIX):
            continue
        expires = ns.metadata.annotations.get(am.EXPIRES_ANNOTATION, "")
        try:
            due = datetime.strptime(expires, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) <= now
        except ValueError:
            due = True  # no readable expiry: it is ours (labels, prefix) and stale
        if due or all_agents:
            writes.delete_namespace(name)
            deleted.append(name)
            progress.line(f"gpuxray: deleted {name}")
    return deleted


class _NsMeta(msgspec.Struct):
    name: str = ""
    annotations: dict[str, str] = {}


class _Namespace(msgspec.Struct):
    metadata: _NsMeta = msgspec.field(default_factory=_NsMeta)


def agent_step(transport: Any, opts: AgentOptions, *, hook: Hook | None = None,
               writes: ClusterWrites | None = None,
               ) -> Callable[[Path, Client, Progress], list[tuple[str, str]]]:
    """The ``collect`` step that runs the agent through ``transport``'s credentials."""
    from gpuxray.sources.agent_writes import KubeWriteTransport

    def step(root: Path, client: Client, progress: Progress) -> list[tuple[str, str]]:
        w = writes or ClusterWrites(KubeWriteTransport(transport.api, transport.host))
        return run_agent(root, client, w, opts, progress, hook=hook).errors

    return step


def operands_step(transport: Any) -> Callable[[Path, Client, Progress], list[tuple[str, str]]]:
    """The ``collect`` step that reads node files through the operand pods (no writes)."""
    from gpuxray.sources.operand_exec import KubeExec, read_via_operands

    def step(root: Path, client: Client, progress: Progress) -> list[tuple[str, str]]:
        return read_via_operands(root, client, KubeExec(transport.api), progress)

    return step
