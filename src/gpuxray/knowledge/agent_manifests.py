"""The node agent's Kubernetes objects, as data: its namespace and its DaemonSet.

Why a DaemonSet and not one Job per node: one object (two writes in all, whatever the fleet's
size) and the DaemonSet controller does the per-node placement, including cordoned nodes (it
tolerates ``node.kubernetes.io/unschedulable`` by itself), which are often the broken ones a user
wants to see. What a Job would add — ``activeDeadlineSeconds``/``ttlSecondsAfterFinished`` — is
covered by the namespace: deleting it deletes everything, the collector always deletes it, and an
expiry annotation lets ``collect --node-agent-cleanup`` remove a namespace a killed collector left
behind. The container prints its facts once, then sleeps ``hold`` seconds (a DaemonSet pod must
keep running, ``restartPolicy: Always``), so its log holds exactly one facts line.

Mounts: read-only hostPath volumes of exactly the host paths BUNDLE.md ``nodes/<node>/files``
lists, under ``/host`` (``gpuxray node --root /host``), plus the journal directories that
``journalctl --directory`` reads. Privileges: see docs/node-agent.md, one line per item.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gpuxray import __version__
from gpuxray.knowledge.distributions import by_kubelet

AGENT_NAME = "gpuxray-node-agent"
NAMESPACE_PREFIX = "gpuxray-agent-"
MANAGED_LABEL = ("app.kubernetes.io/managed-by", "gpuxray")
AGENT_LABEL = "gpuxray.io/node-agent"
RUN_LABEL = "gpuxray.io/run"
EXPIRES_ANNOTATION = "gpuxray.io/expires-at"
DEFAULT_IMAGE = f"ghcr.io/gpuxray/node-agent:{__version__}"  # deploy/node-agent/Dockerfile
DEFAULT_SELECTOR = "nvidia.com/gpu.present=true"
HOST_ROOT = "/host"
CONTAINER = "agent"

# The GPU Operator's and cloud GPU pools' taint (seed §2 gate 1).
GPU_TOLERATIONS: tuple[dict[str, Any], ...] = (
    {"key": "nvidia.com/gpu", "operator": "Exists"},
)
ALL_TAINTS_TOLERATIONS: tuple[dict[str, Any], ...] = (
    {"operator": "Exists", "effect": "NoSchedule"},
    {"operator": "Exists", "effect": "NoExecute"},
)
# What the DaemonSet controller adds to every DaemonSet pod (pkg/controller/daemon/util).
DAEMONSET_AUTO_TOLERATIONS: tuple[dict[str, Any], ...] = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
)


@dataclass(frozen=True, slots=True)
class HostMount:
    """One read-only hostPath: ``path`` on the host, seen at ``/host<path>`` in the agent.

    ``kind`` is the hostPath ``type``: ``Directory``/``File`` where every supported node has the
    path (a missing one fails the pod visibly instead of being created); ``""`` for a path that
    may be absent (see docs/node-agent.md for what the runtime does then)."""

    name: str
    path: str
    kind: str
    why: str


HOST_MOUNTS: tuple[HostMount, ...] = (
    HostMount("containerd", "/etc/containerd", "Directory",
              "config.toml and the drop-ins its imports reach (seed §5)"),
    HostMount("cdi-etc", "/etc/cdi", "", "CDI specs"),
    HostMount("cdi-run", "/var/run/cdi", "", "CDI specs the toolkit generates"),
    HostMount("systemd-etc", "/etc/systemd/system", "Directory",
              "containerd.service.d drop-ins (Restart=, facts.md §1.4)"),
    HostMount("systemd-lib", "/lib/systemd/system", "Directory", "containerd.service"),
    HostMount("os-release", "/etc/os-release", "File", "distribution"),
    HostMount("apt-conf", "/etc/apt/apt.conf.d", "", "unattended kernel upgrades"),
    HostMount("journal-var", "/var/log/journal", "", "persistent journal (journalctl -D)"),
    HostMount("journal-run", "/run/log/journal", "", "volatile journal (journalctl -D)"),
)


def tolerations(all_taints: bool) -> list[dict[str, Any]]:
    return [dict(t) for t in GPU_TOLERATIONS + (ALL_TAINTS_TOLERATIONS if all_taints else ())]


def parse_selector(selector: str) -> dict[str, str]:
    """``k=v,k2=v2`` (the equality form a nodeSelector can express)."""
    out: dict[str, str] = {}
    for part in selector.split(","):
        part = part.strip()
        if not part:
            continue
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip().lstrip("=")
        if not sep or not key or key.endswith("!"):
            raise ValueError(f"--nodes {selector!r}: use key=value[,key=value] "
                             "(a nodeSelector matches labels by equality)")
        out[key] = value
    if not out:
        raise ValueError("--nodes: empty selector")
    return out


def namespace(name: str, run_id: str, expires_at: str) -> dict[str, Any]:
    """The agent's own namespace. ``enforce: privileged`` because Pod Security's baseline level
    forbids every hostPath volume; the pod itself is not privileged (docs/node-agent.md)."""
    return {
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {
            "name": name,
            "labels": {MANAGED_LABEL[0]: MANAGED_LABEL[1], AGENT_LABEL: "true", RUN_LABEL: run_id,
                       "pod-security.kubernetes.io/enforce": "privileged"},
            "annotations": {EXPIRES_ANNOTATION: expires_at},
        },
    }


AGENT_SCRIPT = (
    'gpuxray node --root {root} --name "$NODE_NAME" --agent -o bundle-json --timeout {cmd_timeout}'
    ' || echo "gpuxray-node-agent: failed with status $?"; exec sleep {hold}'
)


def distribution_mounts(kubelet_versions: Iterable[str]) -> tuple[HostMount, ...]:
    """The k3s/RKE2 containerd config directory of each distribution the selected nodes'
    kubelets name (knowledge/distributions.py): that containerd reads nothing under
    /etc/containerd. Typed ``Directory``: it is only mounted where the kubelet says the
    distribution renders it, and a missing one makes the node unknown instead of creating it."""
    found = {d.name: d for v in kubelet_versions if (d := by_kubelet(v)) is not None}
    return tuple(HostMount(f"{d.name}-containerd", d.config_dir, "Directory",
                           f"the config {d.name} renders for its containerd, the user's "
                           "template and drop-ins")
                 for _, d in sorted(found.items()))


def daemonset(ns: str, run_id: str, *, image: str, node_selector: dict[str, str],
              all_taints: bool, hold_s: int, cmd_timeout_s: int = 15,
              owner: dict[str, str] | None = None,
              extra_mounts: tuple[HostMount, ...] = ()) -> dict[str, Any]:
    """The agent DaemonSet. ``owner`` (the namespace's apiVersion/kind/name/uid) is recorded as
    an ownerReference for readers; deletion itself comes from the namespace.
    ``extra_mounts``: :func:`distribution_mounts` of the selected nodes."""
    labels = {"app.kubernetes.io/name": AGENT_NAME, MANAGED_LABEL[0]: MANAGED_LABEL[1],
              RUN_LABEL: run_id}
    meta: dict[str, Any] = {"name": AGENT_NAME, "namespace": ns, "labels": labels}
    if owner:
        meta["ownerReferences"] = [{**owner, "blockOwnerDeletion": False, "controller": False}]
    volumes = [{"name": m.name, "hostPath": {"path": m.path, "type": m.kind}}
               for m in (*HOST_MOUNTS, *extra_mounts)]
    mounts = [{"name": m.name, "mountPath": HOST_ROOT + m.path, "readOnly": True}
              for m in (*HOST_MOUNTS, *extra_mounts)]
    script = AGENT_SCRIPT.format(root=HOST_ROOT, cmd_timeout=cmd_timeout_s, hold=hold_s)
    container = {
        "name": CONTAINER, "image": image, "imagePullPolicy": "IfNotPresent",
        "command": ["/bin/sh", "-c", script],
        "env": [{"name": "NODE_NAME",
                 "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
                {"name": "NO_COLOR", "value": "1"},
                {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"}],
        "volumeMounts": mounts,
        "resources": {"requests": {"cpu": "50m", "memory": "64Mi"},
                      "limits": {"memory": "256Mi"}},
        "securityContext": {
            "runAsUser": 0, "runAsNonRoot": False, "privileged": False,
            "allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"], "add": ["SYSLOG"]},
            "seccompProfile": {"type": "RuntimeDefault"},
        },
    }
    return {
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta,
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": AGENT_NAME,
                                         RUN_LABEL: run_id}},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "nodeSelector": dict(node_selector),
                    "tolerations": tolerations(all_taints),
                    "automountServiceAccountToken": False,
                    "enableServiceLinks": False,
                    "hostPID": False, "hostNetwork": False, "hostIPC": False,
                    "terminationGracePeriodSeconds": 1,
                    "containers": [container],
                    "volumes": volumes,
                },
            },
        },
    }
