"""containerd config checks over every bundle node (seed §5, facts.md §1, §2):

- GX501: a later file replaced (1.x) or made containerd ignore (2.x mixed versions) a plugin
  section, and settings of earlier files were lost — the ``nvidia`` runtime above all. Only
  where the release at hand really loses them: 2.x deep-merges sections (facts.md §0).
- GX510: 2.0.2–2.2 migrated a version-2 drop-in after merging it under a version-3 root and
  kept the root's keys — the drop-in's runtimes vanish (facts.md §0); 2.3+ keep them.
- GX509: a config file containerd cannot load, or a version/plugin key it refuses, with the
  daemon's own error line.
- GX502: the files changed after the daemon started, or the running daemon's handlers differ
  from what the files give (containerd does not hot-reload, facts.md §1.4).
- GX301: a GPU node without the ``nvidia`` runtime handler — from the node's effective config,
  or from ``no runtime for "nvidia" is configured`` events.

The merge logic lives in :mod:`gpuxray.engines.containerd`; these functions only turn its
result into findings. :func:`analysis_findings` is shared with ``gpuxray containerd``.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from gpuxray.checks.registry import check
from gpuxray.engines.capacity import gpu_nodes_of, is_gpu_node
from gpuxray.engines.nodefacts import ABSENT, containerd_hosts, runs_containerd
from gpuxray.engines.operator import operand_pods, plugins_inject_devices, pod_matches
from gpuxray.knowledge import clusterpolicy as cpk
from gpuxray.knowledge.distributions import by_kubelet
from gpuxray.knowledge.signatures import CAUSE_BY_ID
from gpuxray.model.factory import fail, unknown
from gpuxray.model.finding import CLUSTER, Evidence, Finding, Severity, Subject
from gpuxray.model.snapshot import HostFacts, Input, Snapshot
from gpuxray.sources.parsers.stat import parse_stat
from gpuxray.sources.parsers.systemctl import parse_systemctl_show, parse_timestamp

if TYPE_CHECKING:
    from gpuxray.engines.containerd import Analysis, LostKey

# The containerd engine (its merge per version, defaults and host layouts: ~0.03 s of
# imports) is imported by the functions that analyse a host's files: a bundle without node
# files never needs it, and only reads ``ROOT_CONFIG``'s path, repeated here.
ROOT_CONFIG = "/etc/containerd/config.toml"  # engines/containerd/merge.py ROOT_CONFIG

NVIDIA = "nvidia"
CONFIG_INPUT = "files/etc/containerd/config.toml"
HOW = {"replaced": "replaced", "ignored-version": "made containerd ignore earlier settings of",
       "migration-overwrote": "made the v2->v3 migration overwrite"}
MAX_KEYS_SHOWN = 8


def node_subject(name: str) -> Subject:
    return Subject("Node", name)


def _runtime_hint(snap: Snapshot, node: str) -> str | None:
    n = snap.node_by_name.get(node)
    v = n.status.node_info.container_runtime_version if n is not None else ""
    return v or None


def _kubelet(snap: Snapshot, node: str) -> str | None:
    """The node's kubelet version, which names k3s/RKE2 (whose containerd reads its own file)."""
    n = snap.node_by_name.get(node)
    return (n.status.node_info.kubelet_version or None) if n is not None else None


def host_analysis(snap: Snapshot, host: HostFacts) -> Analysis:
    from gpuxray.engines.containerd import analyse_host

    return analyse_host(host, _runtime_hint(snap, host.node), _kubelet(snap, host.node))


def host_has_config(snap: Snapshot, host: HostFacts) -> bool:
    from gpuxray.engines.containerd.host import has_config

    return has_config(host, _kubelet(snap, host.node))


def node_root_config(snap: Snapshot, host: HostFacts) -> str:
    """The host-file key of the config the node's containerd loads first: /etc/containerd's,
    or k3s/RKE2's rendered file (another containerd's file on such a node is not read)."""
    return _root_config(snap, host).lstrip("/")


def _root_config(snap: Snapshot, host: HostFacts) -> str:
    from gpuxray.engines.containerd.host import root_config

    return root_config(host, _kubelet(snap, host.node))


def dig(d: Any, *keys: str) -> Any:
    """``engines/containerd/merge.py``'s ``dig``, its module imported on first use."""
    from gpuxray.engines.containerd.merge import dig as merge_dig

    return merge_dig(d, *keys)


def version_evidence(a: Analysis) -> Evidence:
    rv = a.version
    if rv.assumed:
        return Evidence("assumed", f"containerd version unknown; simulated as {rv.text} "
                                   f"({rv.line} merge rules)")
    return Evidence(rv.source, f"containerd {rv.text} ({rv.line} merge rules)")


def runtimes_text(a: Analysis) -> str:
    """The effective handlers, with the number a user's ``containerd config dump | grep -c
    runtimes.nvidia`` shows for them (seed §5 counts that way: 6 lines for 3 handlers on 1.7)."""
    from gpuxray.engines.containerd.merge import nvidia_dump_lines

    n = nvidia_dump_lines(a)
    grep = f"; `config dump | grep -c runtimes.nvidia` = {n}" if n is not None else ""
    return f"{a.runtimes or 'none'}{grep}"


def _short(v: Any) -> str:
    text = json.dumps(v, default=str) if not isinstance(v, str) else repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


# ----- GX501 / GX510 / GX509 from one analysis (also used by the CLI) ------------------------
KEPT_OUT = "migration-kept"


def _runtimes_of(keys: list[LostKey], a: Analysis) -> list[str]:
    return sorted({k.key.split(".")[2] for k in keys
                   if k.key.startswith("containerd.runtimes.") and len(k.key.split(".")) > 2
                   and k.key.split(".")[2] not in a.runtimes})


def lost_findings(a: Analysis, subject: Subject) -> Iterator[Finding]:
    by_culprit: dict[str, list[LostKey]] = {}
    for k in a.lost:
        if k.reason != KEPT_OUT:
            by_culprit.setdefault(k.culprit, []).append(k)
    for culprit, keys in by_culprit.items():
        plugins = sorted({k.section for k in keys})
        runtimes = _runtimes_of(keys, a)
        nvidia_lost = any(r.startswith(NVIDIA) for r in runtimes)
        ev = [Evidence(a.source_of(culprit),
                       f"last file to write {', '.join(plugins)}"
                       f" (config version {a.config_version} after merge)")]
        for f in sorted({k.file for k in keys}, key=lambda p: [x.path for x in a.files].index(p)
                        if p in [x.path for x in a.files] else 0):
            mine = [k for k in keys if k.file == f]
            shown = "; ".join(f"{k.key} = {_short(k.value)}" for k in mine[:MAX_KEYS_SHOWN])
            more = f" (+{len(mine) - MAX_KEYS_SHOWN} more)" if len(mine) > MAX_KEYS_SHOWN else ""
            ev.append(Evidence(a.source_of(f), f"set {shown}{more}"))
        ev.append(Evidence(a.source_of(culprit), f"effective runtimes: {runtimes_text(a)}"))
        ev.append(version_evidence(a))
        lost_keys = list(dict.fromkeys(f"{k.section}.{k.key}" for k in keys))
        yield fail("GX501", subject, ev,
                   severity=Severity.ERROR if nvidia_lost else Severity.WARNING,
                   node=subject.name, culprit=culprit, plugin=", ".join(plugins),
                   how=HOW.get(keys[0].reason, keys[0].reason),
                   lost=_lost_text(keys, runtimes),
                   lost_keys=lost_keys, lost_runtimes=runtimes, reason=keys[0].reason,
                   containerd_version=a.version.text)


def _lost_text(keys: list[LostKey], runtimes: list[str]) -> str:
    """Lost runtimes first (what breaks pods), then the other settings, each named once."""
    rt_prefixes = tuple(f"containerd.runtimes.{r}." for r in runtimes)
    others = list(dict.fromkeys(k.key for k in keys
                                if not (k.key + ".").startswith(rt_prefixes)))
    parts = [f"runtime(s) {', '.join(runtimes)}"] if runtimes else []
    if others:
        more = f" (+{len(others) - MAX_KEYS_SHOWN} more)" if len(others) > MAX_KEYS_SHOWN else ""
        parts.append(", ".join(others[:MAX_KEYS_SHOWN]) + more)
    return "; ".join(parts)


def kept_out_findings(a: Analysis, subject: Subject) -> Iterator[Finding]:
    """GX510, one per drop-in whose v2 settings the 2.0.2–2.2 migration kept out."""
    by_file: dict[str, list[LostKey]] = {}
    for k in a.lost:
        if k.reason == KEPT_OUT:
            by_file.setdefault(k.file, []).append(k)
    for file, keys in by_file.items():
        runtimes = _runtimes_of(keys, a)
        blockers = list(dict.fromkeys(b for k in keys for b in k.blocked_by))
        blocking = list(dict.fromkeys(k.blocking_key for k in keys if k.blocking_key))
        setter = keys[0].culprit
        shown = "; ".join(f"{k.key} = {_short(k.value)}" for k in keys[:MAX_KEYS_SHOWN])
        more = f" (+{len(keys) - MAX_KEYS_SHOWN} more)" if len(keys) > MAX_KEYS_SHOWN else ""
        ev = [Evidence(a.source_of(file), f"version 2 drop-in; sets {shown}{more}")]
        if setter != file:
            ev.append(Evidence(a.source_of(setter), "last file to state a version (2): the "
                                                    "merged config is migrated from version 2"))
        for b in blockers:
            ev.append(Evidence(a.source_of(b), "already has io.containerd.cri.v1.runtime "
                                               f"{', '.join(blocking)}: the migration keeps it"))
        ev.append(Evidence(a.source_of(file), f"effective runtimes: {runtimes_text(a)}"))
        ev.append(version_evidence(a))
        yield fail("GX510", subject, ev,
                   severity=Severity.ERROR if any(r.startswith(NVIDIA) for r in runtimes)
                   else Severity.WARNING,
                   node=subject.name, file=file, culprit=setter,
                   blockers=", ".join(blockers) or "the version-3 section",
                   blocking=", ".join(f"[io.containerd.cri.v1.runtime] {b}" for b in blocking)
                   or "the version-3 keys",
                   blocker_files=blockers, blocking_keys=blocking,
                   lost=_lost_text(keys, runtimes),
                   lost_keys=list(dict.fromkeys(f"{k.section}.{k.key}" for k in keys)),
                   lost_runtimes=runtimes, rule="2.0.2-2.2 v2->v3 migration fills only missing "
                   "keys", kept_from="2.3", containerd_version=a.version.text)


def problem_findings(a: Analysis, subject: Subject) -> Iterator[Finding]:
    for p in a.problems:
        ev = [Evidence(p.source, p.detail)]
        if p.daemon:
            ev.append(Evidence(p.source, f"containerd {a.version.text} says: {p.daemon}"))
        detail = f"{p.path}: {p.detail}"
        if p.daemon:
            detail += f" — containerd: {p.daemon}"
        yield fail("GX509", subject, [*ev, version_evidence(a)],
                   severity=Severity.ERROR if p.fatal else Severity.WARNING,
                   node=subject.name, detail=detail, kind=p.kind.value,
                   file=p.path, fatal=p.fatal, daemon_message=p.daemon,
                   containerd_version=a.version.text)


def analysis_findings(a: Analysis, subject: Subject) -> list[Finding]:
    return [*problem_findings(a, subject), *lost_findings(a, subject),
            *kept_out_findings(a, subject)]


def _no_config(snap: Snapshot, host: HostFacts, code: str) -> Finding:
    root = _root_config(snap, host)
    return unknown(code, node_subject(host.node), host.source("files", root.lstrip("/")),
                   host.unreadable.get(ABSENT, "not in the bundle"))


@check("GX501", needs=(Input.HOSTS,))
def dropin_overwrote_cri(snap: Snapshot) -> Iterator[Finding]:
    """Seed §5: a 3-line registry drop-in replaced the whole CRI section on 1.7 and the nvidia
    runtime vanished; facts.md §1.1 (1.x replaces per plugin key), §1.2 (2.x mixed versions)."""
    for host in containerd_hosts(snap).values():
        if not host_has_config(snap, host):
            yield _no_config(snap, host, "GX501")
            continue
        a = host_analysis(snap, host)
        yield from lost_findings(a, node_subject(host.node))


@check("GX510", needs=(Input.HOSTS,))
def migration_dropped_dropin(snap: Snapshot) -> Iterator[Finding]:
    """facts.md §0 (measured on 2.1.x/2.2.x): a v3 root plus a v2 drop-in gives merged version 2;
    the v2->v3 CRI migration of 2.0.2+ (``containerd/containerd@v2.2.9:plugins/cri/runtime/
    plugin.go`` ``migrateConfig``) takes only keys the v3 section lacks, so a root ``runtimes``
    table keeps every runtime of the drop-in out; 2.3 migrates each file before merging."""
    for host in containerd_hosts(snap).values():
        if not host_has_config(snap, host):
            yield _no_config(snap, host, "GX510")
            continue
        yield from kept_out_findings(host_analysis(snap, host), node_subject(host.node))


@check("GX509")
def config_invalid(snap: Snapshot) -> Iterator[Finding]:
    """facts.md §1.1/§1.3: a missing literal import, malformed TOML, a refused version or a bad
    plugin key stops containerd; a default runtime without a runtime stops the CRI plugin.
    facts.md §2.3: the toolkit reads the config with ``containerd config dump`` first; when that
    fails (``failed to load config: … containerd config dump …``, ``unable to determine runtime
    config``) it cannot add the ``nvidia`` runtime — its log says so even without host files.
    The host branch needs ``nodes/``; without it, one unknown names that input."""
    if snap.has(Input.HOSTS):
        for host in containerd_hosts(snap).values():
            if not host_has_config(snap, host):
                yield _no_config(snap, host, "GX509")
                continue
            yield from problem_findings(host_analysis(snap, host), node_subject(host.node))
    else:
        st = snap.state(Input.HOSTS)
        yield unknown("GX509", CLUSTER, st.source, st.reason)
    yield from _toolkit_config_unreadable(snap)


TOOLKIT_DS = "nvidia-container-toolkit-daemonset"


def _toolkit_config_unreadable(snap: Snapshot) -> Iterator[Finding]:
    if not snap.has(Input.OPERATOR_PODS):
        return
    matches = pod_matches(snap)
    for (ds, node), pod in sorted(operand_pods(snap).items()):
        if ds != TOOLKIT_DS:
            continue
        evs: list[Evidence] = []
        for m in matches.get((pod.metadata.namespace or "default", pod.metadata.name), []):
            if CAUSE_BY_ID[m.match.signature.primary].code == "GX509" and m.evidence not in evs:
                evs.append(m.evidence)
        if evs:
            yield fail("GX509", node_subject(node), evs[:6], node=node, kind="toolkit-read",
                       detail=f"the toolkit ({pod.metadata.name}) could not read the containerd "
                              f"config: {evs[0].detail[:200]}")


# ----- GX502 ----------------------------------------------------------------------------------
STAT_CMD = "stat-containerd-config.txt"
SYSTEMCTL_CMD = "systemctl-show-containerd.txt"
CRICTL_CMD = "crictl-info.json"
DUMP_CMD = "containerd-config-dump.toml"


def _started(host: HostFacts) -> tuple[datetime | None, str]:
    props = parse_systemctl_show(host.cmds.get(SYSTEMCTL_CMD, ""))
    for key in ("ActiveEnterTimestamp", "ExecMainStartTimestamp"):
        ts = parse_timestamp(props.get(key, ""))
        if ts is not None:
            return ts, f"{key}={props[key]}"
    return None, ""


def crictl_runtimes(text: str) -> list[str] | None:
    """``crictl info``: the running CRI plugin's config, ``config.containerd.runtimes``."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return None
    rts = dig(doc, "config", "containerd", "runtimes")
    return sorted(rts) if isinstance(rts, dict) else None


def dump_runtimes(text: str) -> list[str] | None:
    """``containerd config dump``: v2 (1.x) or v3/v4 (2.x) layout."""
    import tomllib  # only for a collected dump (~5 ms of imports)

    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    for plugin in ("io.containerd.cri.v1.runtime", "io.containerd.grpc.v1.cri"):
        rts = dig(doc, "plugins", plugin, "containerd", "runtimes")
        if isinstance(rts, dict):
            return sorted(rts)
    return None


@check("GX502", needs=(Input.HOSTS,))
def config_not_applied(snap: Snapshot) -> Iterator[Finding]:
    """facts.md §1.4: containerd never reloads its config; the toolkit's SIGHUP restart is what
    applies it. Files newer than the daemon's start, or a running handler set that differs from
    the files, mean the node runs something else than its files say (seed §5)."""
    for host in containerd_hosts(snap).values():
        subj = node_subject(host.node)
        ev: list[Evidence] = []
        details: list[str] = []
        decided = False
        started, started_text = _started(host)
        stat_text = host.cmds.get(STAT_CMD)
        if started is not None and stat_text is not None:
            decided = True
            for ft in parse_stat(stat_text):
                if ft.mtime > started.timestamp():
                    when = datetime.fromtimestamp(ft.mtime, UTC).isoformat()
                    details.append(f"{ft.path} changed after containerd started")
                    ev.append(Evidence(host.source("cmd", STAT_CMD),
                                       f"{ft.path} modified {when}"))
            if details:
                ev.append(Evidence(host.source("cmd", SYSTEMCTL_CMD), started_text))
        a = host_analysis(snap, host) if host_has_config(snap, host) else None
        usable = a is not None and a.complete and not a.fatal
        for cmd, parse, what in ((CRICTL_CMD, crictl_runtimes, "running daemon (crictl info)"),
                                 (DUMP_CMD, dump_runtimes, "containerd config dump")):
            text = host.cmds.get(cmd)
            if text is None or a is None or not usable:
                continue
            got = parse(text)
            if got is None:
                continue
            decided = True
            if set(got) != set(a.runtimes):
                details.append(f"{what} has runtimes {got}, the files give {a.runtimes}")
                ev.append(Evidence(host.source("cmd", cmd), f"runtimes: {got}"))
        if details:
            if a is not None:
                ev.append(Evidence(a.source_of(a.root), f"files give runtimes {a.runtimes}"))
            yield fail("GX502", subj, ev, node=host.node, detail="; ".join(details),
                       changes=details)
        elif not decided:
            yield unknown("GX502", subj, host.source("cmd", SYSTEMCTL_CMD),
                          f"with {STAT_CMD}, or {CRICTL_CMD} with the config files, not in the "
                          "bundle")


# ----- GX301 ----------------------------------------------------------------------------------
NO_RUNTIME = re.compile(r'no runtime for "(?P<handler>[^"]+)" is configured')


def _wanted_handler(snap: Snapshot) -> tuple[str, bool, str]:
    """(handler name, toolkit evidently in use, why). facts.md §5.4: the operator creates
    RuntimeClass ``nvidia`` (handler = name) and puts operands on it — or the RuntimeClass its
    ClusterPolicy names in ``spec.operator.runtimeClass`` (on AKS NVIDIA's docs set
    ``nvidia-container-runtime``, the handler AgentBaker's GPU config has:
    NVIDIA/cloud-native-docs@52dcb7b8d956:gpu-operator/microsoft-aks.rst)."""
    names = [NVIDIA]
    if snap.clusterpolicies:
        names.insert(0, cpk.runtime_class(snap.clusterpolicies[0]))
    for name in dict.fromkeys(names):
        rc = snap.runtimeclass_by_name.get(name)
        if rc is not None:
            return rc.handler or name, True, f"RuntimeClass {name} (handler {rc.handler!r})"
        users = [p for p in snap.runtime_class_pods if p.spec.runtime_class_name == name]
        if users:
            p = users[0]
            return name, True, (f"pod {p.metadata.namespace}/{p.metadata.name} uses "
                                f"runtimeClassName {name}")
    return NVIDIA, False, "no RuntimeClass nvidia and no pod using it in the snapshot"


def default_runs_nvidia(a: Analysis) -> bool:
    """The default runtime's binary is an NVIDIA Container Runtime (AKS GPU pools, EKS's
    accelerated images): pods without a runtimeClassName get the driver injected, so a
    plugin that asks for no handler needs none (Azure/AgentBaker@06836ee2301e:pkg/agent/
    baker.go ``containerdV1ConfigTemplate``, ``default_runtime_name = "nvidia-container-
    runtime"`` on N-series sizes)."""
    if not a.default_runtime:
        return False
    from gpuxray.engines.containerd import defaults as D

    binary = dig(a.effective, D.runtime_plugin(a.version.line), "containerd", "runtimes",
                 a.default_runtime, "options", "BinaryName")
    return isinstance(binary, str) and posixpath.basename(binary).startswith(
        "nvidia-container-runtime")


def distribution_evidence(snap: Snapshot, host: HostFacts, a: Analysis) -> list[Evidence]:
    """On k3s/RKE2 the file containerd reads is rendered at every start: name the template that
    rendered it and where the fix goes (knowledge/distributions.py)."""
    from gpuxray.engines.containerd.host import distribution

    d = distribution(host, _kubelet(snap, host.node))
    if d is None:
        return []
    ev: list[Evidence] = []
    tmpl = next((t for t in d.templates if t.lstrip("/") in host.files), None)
    if tmpl is not None:
        text = host.files[tmpl.lstrip("/")]
        keeps = [w for w, k in (("the base template", BASE_TEMPLATE), ("the detected runtimes",
                                                                        EXTRA_RUNTIMES))
                 if k.search(text)]
        kept = (" and ".join(keeps) if keeps else
                "neither the base template nor the detected runtimes (.ExtraRuntimes)")
        ev.append(Evidence(host.source("files", tmpl.lstrip("/")),
                           f"{d.name} renders {d.config} from this user template at every "
                           f"start; it keeps {kept}"))
    fix = (f"{d.name} overwrites {d.config} at every start: put the runtime in "
           f"{d.templates[1]} (containerd 1.x) or {d.templates[0]} (2.x) starting with "
           '{{ template "base" . }}, or on 2.x a drop-in in '
           f"{posixpath.dirname(d.dropins)}/; {d.name} adds nvidia itself when "
           "nvidia-container-runtime is in /usr/local/nvidia/toolkit or /usr/bin at its start")
    ev.append(Evidence(a.source_of(a.root), fix))
    return ev


BASE_TEMPLATE = re.compile(r'\{\{-?\s*template\s+"base"')
EXTRA_RUNTIMES = re.compile(r"\.ExtraRuntimes\b")


def _nodes_running_on(snap: Snapshot, handler: str) -> set[str]:
    """Nodes where a pod runs on ``handler`` (through any RuntimeClass naming it): one pass."""
    rcs = {r.metadata.name for r in snap.runtimeclasses if r.handler == handler} | {handler}
    return {p.spec.node_name for p in snap.runtime_class_pods
            if p.spec.runtime_class_name in rcs and p.status.phase == "Running"}


@check("GX301")
def runtime_handler_missing(snap: Snapshot) -> Iterator[Finding]:
    """Seed §2 gate 2 and §5: without the ``nvidia`` handler, operands (runtimeClassName nvidia,
    facts.md §5.4) cannot start, so the device plugin never advertises GPUs."""
    handler, in_use, why = _wanted_handler(snap)
    # event side: node -> evidence
    from_events: dict[str, list[Evidence]] = {}
    pods_of: dict[str, list[str]] = {}  # the pods those events are about, per node
    for e in snap.events:
        m = NO_RUNTIME.search(e.message)
        if not m:
            continue
        io = e.involved_object
        pod = snap.pod_by_key.get((io.namespace or "default", io.name)) if io.kind == "Pod" \
            else None
        node = (pod.spec.node_name if pod is not None else "") or e.source.host
        if not node:
            continue
        from_events.setdefault(node, []).append(snap.ev(
            Input.EVENTS, f"{io.kind} {io.namespace}/{io.name}: {e.reason}: {e.message}"))
        if io.name not in pods_of.setdefault(node, []):
            pods_of[node].append(io.name)
    gpu_nodes = {n.metadata.name: None for n in gpu_nodes_of(snap)}
    names = list(dict.fromkeys([*gpu_nodes, *from_events,
                                *(h for h in snap.hosts if not snap.has(Input.NODES))]))
    running = _nodes_running_on(snap, handler)
    # a device plugin that injects devices itself (GKE's) needs no handler unless pods ask;
    # neither does one under a default runtime that is NVIDIA's (checked per node below)
    handler_needed = in_use or not plugins_inject_devices(snap)
    for node in names:
        subj = node_subject(node)
        events = from_events.get(node, [])
        if not events and not runs_containerd(snap, node):
            continue  # containerd's handler table does not exist on a CRI-O node
        host = snap.hosts.get(node)
        a = (host_analysis(snap, host) if host is not None and host_has_config(snap, host)
             else None)
        files_ok = a is not None and a.complete and not a.fatal
        files_missing = (a is not None and files_ok and handler not in a.runtimes
                         and handler_needed and (in_use or not default_runs_nvidia(a)))
        if events or files_missing:
            ev = list(events)
            if a is not None and host is not None:
                ev.append(Evidence(a.source_of(a.root),
                                   f"effective runtimes from {len(a.files)} file(s): "
                                   f"{runtimes_text(a)}"))
                ev.append(version_evidence(a))
                ev += [Evidence(a.source_of(u), "exists but no loaded config imports it: "
                                                "never read") for u in a.unimported]
                ev += distribution_evidence(snap, host, a)
            if not in_use and not events:
                ev.append(Evidence(snap.source(Input.RUNTIMECLASSES),
                                   f"toolkit use not evident: {why}"))
            sev = Severity.ERROR if (in_use or events) else Severity.WARNING
            # the node and the pods its events name are its own (Finding.own): the handler
            # gone on many nodes is one JSON entry listing each node (docs/json.md)
            yield fail("GX301", subj, ev, severity=sev, node=node, handler=handler,
                       from_events=bool(events), from_files=files_missing,
                       toolkit_in_use=in_use, runtimes=a.runtimes if a is not None else None,
                       config=a.root if a is not None else None,
                       pods=pods_of.get(node, []), own=("node", "pods"))
            continue
        if files_ok or node in running:
            continue  # the files give the handler, or pods run on it
        if node in gpu_nodes and (in_use or not snap.has(Input.RUNTIMECLASSES)):
            root = ROOT_CONFIG
            if host is not None:
                from gpuxray.engines.containerd.host import root_config

                root = root_config(host, _kubelet(snap, node))
            yield unknown("GX301", subj, f"nodes/{node}/files{root}",
                          "not in the bundle (or not loadable), no handler event, and no pod on "
                          "runtimeClassName nvidia running on the node")


# ----- GX512 from the operator's settings (k3s/RKE2) -----------------------------------------
#: the operator's defaults when the toolkit env names no file or socket
#: (NVIDIA/gpu-operator@v26.7.0:controllers/object_controls.go DefaultContainerdConfigFile,
#: DefaultContainerdSocketFile)
OPERATOR_DEFAULT_CONFIG = "/etc/containerd/config.toml"
OPERATOR_DEFAULT_SOCKET = "/run/containerd/containerd.sock"


def _toolkit_env(spec: dict[str, Any]) -> dict[str, str]:
    toolkit = spec.get("toolkit")
    env = toolkit.get("env") if isinstance(toolkit, dict) else None
    return {str(e.get("name")): str(e.get("value", "")) for e in env or []
            if isinstance(e, dict) and e.get("name")}


def toolkit_config_not_read(snap: Snapshot) -> Iterator[Finding]:
    """Seed §5 on k3s/RKE2: their containerd reads only the file they render
    (knowledge/distributions.py), so the toolkit must be given it (``CONTAINERD_CONFIG``, and
    ``CONTAINERD_SOCKET``); left at the operator's default it writes /etc/containerd, which
    that containerd never reads, and signals a socket that does not exist. One finding per
    k3s/RKE2 GPU node; an error unless the node's effective config has the handler anyway
    (k3s adds ``nvidia`` itself when it finds the toolkit's binaries at a start)."""
    if not snap.clusterpolicies:
        return
    cp = snap.clusterpolicies[0]
    toolkit = cp.spec.get("toolkit")
    if isinstance(toolkit, dict) and str(toolkit.get("enabled", True)).lower() == "false":
        return
    env = _toolkit_env(cp.spec)
    config = env.get("CONTAINERD_CONFIG") or env.get("RUNTIME_CONFIG") or ""
    socket = env.get("CONTAINERD_SOCKET") or env.get("RUNTIME_SOCKET") or ""
    src = f"cluster/clusterpolicies.json {cp.metadata.name} spec.toolkit.env"
    handler = cpk.runtime_class(cp)
    for node in snap.nodes:
        name = node.metadata.name
        d = by_kubelet(node.status.node_info.kubelet_version)
        if d is None or not is_gpu_node(node):
            continue
        wanted = config or OPERATOR_DEFAULT_CONFIG
        if wanted in (d.config, *d.templates):
            continue
        ev = [Evidence(src, f"CONTAINERD_CONFIG={config}" if config else
                       f"no CONTAINERD_CONFIG: the operator's default {OPERATOR_DEFAULT_CONFIG}"),
              snap.ev(Input.NODES, f"{name}: kubeletVersion "
                                   f"{node.status.node_info.kubelet_version}: {d.name} runs "
                                   f"its own containerd on {d.config}")]
        if (socket or OPERATOR_DEFAULT_SOCKET) != d.socket:
            ev.append(Evidence(src, f"CONTAINERD_SOCKET={socket}" if socket else
                               f"no CONTAINERD_SOCKET: the operator's default "
                               f"{OPERATOR_DEFAULT_SOCKET}, not {d.name}'s {d.socket}"))
        host = snap.hosts.get(name)
        a = (host_analysis(snap, host) if host is not None and host_has_config(snap, host)
             else None)
        has_handler = a is not None and a.complete and not a.fatal and handler in a.runtimes
        if a is not None:
            ev.append(Evidence(a.source_of(a.root), f"effective runtimes: {runtimes_text(a)}"))
        line = (f"the toolkit is configured to write {wanted}, which {d.name}'s containerd "
                f"never reads (it reads {d.config}); set CONTAINERD_CONFIG={d.config} and "
                f"CONTAINERD_SOCKET={d.socket} in the ClusterPolicy's toolkit env")
        yield fail("GX512", node_subject(name), ev,
                   severity=Severity.WARNING if has_handler else Severity.ERROR,
                   subject_desc=name, line=line, node=name, distribution=d.name,
                   toolkit_config=wanted, config=d.config, socket=socket or None,
                   expected_socket=d.socket, handler_present=has_handler)
