"""The causal model: which finding explains which, and by what join (seed §4, §5).

Seed §4's point is that the event line is never the answer: ``Insufficient nvidia.com/gpu`` on a
pod (GX202) is the last link of a chain that starts on a node (a drop-in that replaced the CRI
section, GX501, seed §5). Each :class:`Edge` below is one link of such a chain: a finding of
``cause`` explains a finding of ``effect`` when the two meet on the ``join`` — the same node, an
operand pod on that node, a pod whose admissible nodes are those nodes, the cluster's one
ClusterPolicy. ``why`` names the source of the link (a seed section or facts.md).

The table is data: a new code joins a chain by adding a row (``tests/test_causal.py`` checks that
every row names a code of the catalog and that the rows form no circle). Codes that are in no row
are still grouped: a finding nothing explains is the root of its own incident.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass


class Join(enum.StrEnum):
    """Where a cause and an effect must meet for one to explain the other."""

    #: the finding's node: its subject, or the ``node`` it names
    SAME_NODE = "same-node"
    #: an operand pod (subject Pod in the operator namespace) on the cause's node
    OPERAND_ON_NODE = "operand-on-node"
    #: a workload pod whose admissible nodes (the ``nodes`` of a gate-1 finding) include it
    ADMISSIBLE_NODES = "admissible-nodes"
    #: the cluster's ClusterPolicy: one per cluster, its state sums up every operand
    CLUSTER_POLICY = "cluster-policy"
    #: the device-plugin configuration: one ConfigMap applies to every node it selects
    PLUGIN_CONFIG = "plugin-config"
    #: the DRA driver: its kubelet plugin publishes the ResourceSlices every claim allocates from
    DRA_DRIVER = "dra-driver"

    @property
    def on_nodes(self) -> bool:
        """True when cause and effect meet on node names; the other joins meet cluster-wide."""
        return self in (Join.SAME_NODE, Join.OPERAND_ON_NODE, Join.ADMISSIBLE_NODES)


@dataclass(frozen=True, slots=True)
class Edge:
    cause: str
    effect: str
    join: Join
    why: str


E = Edge
N, OP, ADM, CP, CFG, DRA = (Join.SAME_NODE, Join.OPERAND_ON_NODE, Join.ADMISSIBLE_NODES,
                            Join.CLUSTER_POLICY, Join.PLUGIN_CONFIG, Join.DRA_DRIVER)

EDGES: tuple[Edge, ...] = (
    # --- seed §5: the drop-in trap -----------------------------------------------------------
    E("GX501", "GX301", N, "seed §5; facts.md §1.1: the last file to write the CRI plugin "
                           "replaces the whole section on containerd 1.x, the nvidia runtime "
                           "goes with it"),
    E("GX502", "GX301", N, "facts.md §1, §2: the running daemon keeps the handlers it loaded; "
                           "files changed after start are not in effect"),
    E("GX509", "GX301", N, "facts.md §0, §1.4: a config the daemon cannot import leaves the "
                           "toolkit's runtime out"),
    E("GX509", "GX302", OP, "facts.md §2.3, §5.1: the toolkit cannot run `containerd config dump`, "
                            "so later operands wait in toolkit-validation (seed §4)"),
    E("GX510", "GX301", N, "seed §5; facts.md §0: containerd 2.0.2-2.2 migrate a version-2 "
                           "drop-in after the merge and keep the root's keys; its runtime goes"),
    E("GX512", "GX301", N, "seed §5: the runtime was written where the daemon does not read"),
    E("GX503", "GX504", N, "seed §5: without Restart=always a SIGHUP ends containerd and "
                           "nothing restarts it"),
    # --- seed §2 gate 2 → operands --------------------------------------------------------------
    E("GX301", "GX411", N, "seed §2; facts.md §5.4: operands run with runtimeClassName nvidia; "
                           "with the handler gone their sandboxes cannot be created"),
    E("GX301", "GX302", OP, "seed §4: operand pods on the node cannot start their sandboxes "
                            "and later stages wait in Init"),
    E("GX411", "GX302", OP, "seed §4; facts.md §5.1: the device plugin and validator wait for "
                            "the stage before them"),
    # --- seed §3: the driver ------------------------------------------------------------------
    E("GX506", "GX403", N, "seed §3, §4: nouveau holds the GPU, the driver "
                           "container cannot load nvidia.ko"),
    E("GX507", "GX403", N, "seed §3: Secure Boot rejects the unsigned (DKMS) module"),
    E("GX508", "GX403", N, "seed §3: a kernel upgraded under a driver container leaves no "
                           "matching driver build"),
    E("GX412", "GX403", N, "seed §3: no driver image tag (<branch>-<kernel>-<os>) for "
                           "the node's OS and kernel"),
    E("GX416", "GX403", N, "seed §3: the loaded module cannot drive this GPU, the driver pod "
                           "does not validate"),
    E("GX418", "GX403", N, "seed §3: the host's NVIDIA modules stay loaded, the driver "
                           "container cannot replace them"),
    E("GX403", "GX302", OP, "seed §4; facts.md §5.1: toolkit, plugin and validator wait in "
                            "driver-validation while the driver is not ready"),
    # --- operands → advertising (seed §2 gate 1) ------------------------------------------------
    E("GX411", "GX604", N, "seed §2; facts.md §3: no device plugin, nothing advertised; "
                           "kubelet keeps the name at capacity 0 after 5 minutes"),
    E("GX302", "GX604", N, "seed §4; facts.md §3: the plugin waits in Init, nothing advertised"),
    E("GX403", "GX604", N, "seed §3; facts.md §3: without a driver the plugin cannot start"),
    E("GX401", "GX604", N, "seed §1; facts.md §5.1, §5.2: operand DaemonSets select on the deploy "
                           "labels; an unlabelled node gets no plugin"),
    E("GX402", "GX604", N, "seed §1; facts.md §5.1: a DaemonSet that does not tolerate the "
                           "node's taint leaves it without the plugin"),
    E("GX401", "GX414", N, "facts.md §5.2: GFD is an operand too; no deploy label, no GFD "
                           "labels"),
    E("GX402", "GX414", N, "facts.md §5.1: GFD's DaemonSet does not land on the tainted node"),
    E("GX414", "GX604", N, "facts.md §6.2: without GFD's count label the physical count of "
                           "the node is unknown"),
    E("GX505", "GX203", ADM, "seed §4; facts.md §8: an Xid the plugin treats as fatal marks "
                             "the device unhealthy; allocatable drops below capacity"),
    E("GX505", "GX604", N, "facts.md §8: devices lost after an Xid leave the node short of "
                           "its physical count"),
    E("GX203", "GX604", ADM, "seed §6: unhealthy devices are taken out of what the node "
                             "offers"),
    E("GX604", "GX202", ADM, "seed §4: the pod's admissible nodes advertise no GPUs, so the "
                             "scheduler says Insufficient"),
    # --- ClusterPolicy sums up the operands (facts.md §5.3) -------------------------------------
    E("GX411", "GX410", CP, "facts.md §5.3: the device-plugin state is not ready"),
    E("GX302", "GX410", CP, "facts.md §5.3: an operand state waiting in Init is not ready"),
    E("GX403", "GX410", CP, "facts.md §5.3: state-driver is not ready"),
    E("GX406", "GX410", CP, "facts.md §5.3: state-dcgm-exporter is not ready"),
    E("GX407", "GX410", CP, "facts.md §5.3, §7: state-mig-manager is not ready"),
    E("GX509", "GX410", CP, "facts.md §5.3: state-container-toolkit is not ready"),
    # --- device-plugin configuration (seed §6) ---------------------------------------------------
    E("GX408", "GX602", CFG, "seed §6: the sharing the nodes advertise is the config the plugin "
                             "started with; the operator does not watch the ConfigMap"),
    E("GX408", "GX207", CFG, "seed §6; facts.md §6.1: a renamed resource in the applied config "
                             "changes the name nodes advertise"),
    E("GX413", "GX602", CFG, "facts.md §6.1: the node's config entry decides its sharing"),
    E("GX413", "GX207", CFG, "facts.md §6.1: `renameByDefault` decides the advertised name"),
    E("GX413", "GX414", CFG, "facts.md §6.1: config-manager and GFD stop on an invalid config"),
    # --- DRA (seed §2 gate 1 with claims instead of an extended resource) ---------------------
    E("GX415", "GX211", DRA, "seed §2 gate 1: a kubelet plugin that is not ready publishes no "
                             "(or stale) ResourceSlices, so the claim finds no device"),
    E("GX415", "GX308", DRA, "seed §2 gate 2: a node without a ready kubelet plugin cannot "
                             "prepare the claim's devices"),
    # --- node → container ----------------------------------------------------------------------
    E("GX405", "GX304", N, "seed §1, §3: without Fabric Manager an NVSwitch system reports "
                           "`system not yet initialized` to CUDA/NVML"),
    E("GX505", "GX306", N, "facts.md §8: a GPU that fell off the bus is lost to the running "
                           "container"),
)

#: per root code, the params whose values split otherwise identical roots into separate
#: incidents (the same drop-in on many nodes is one incident; two different culprits are two)
FOLD_BY: Mapping[str, tuple[str, ...]] = {
    "GX501": ("culprit",),
}

#: seed §7's read-only commands that confirm a root (code or code prefix, most specific first)
VERIFY: tuple[tuple[str, str], ...] = (
    ("GX501", "containerd config dump | grep -c runtimes.nvidia; ls /etc/containerd/conf.d"),
    ("GX502", "containerd config dump | grep -c runtimes.nvidia"),
    ("GX509", "containerd config dump | grep -c runtimes.nvidia"),
    ("GX301", "containerd config dump | grep -c runtimes.nvidia"),
    ("GX503", 'sudo journalctl -u containerd --since "-7d" | grep -E "Started|Stopped|signal" '
              "| tail"),
    ("GX504", 'sudo journalctl -u containerd --since "-7d" | grep -E "Started|Stopped|signal" '
              "| tail"),
    ("GX505", "dmesg | grep -iE 'NVRM|Xid'"),
    ("GX506", "lsmod | grep -E '^(nouveau|nvidia) '"),
    ("GX401", "kubectl get nodes -L nvidia.com/gpu.present,nvidia.com/device-plugin.config"),
    ("GX408", "kubectl get nodes -L nvidia.com/gpu.present,nvidia.com/device-plugin.config"),
    ("GX413", "kubectl get nodes -L nvidia.com/gpu.present,nvidia.com/device-plugin.config"),
    ("GX414", "kubectl get nodes -L nvidia.com/gpu.present,nvidia.com/device-plugin.config"),
    ("GX4", "kubectl -n gpu-operator get ds,po -o wide"),
    ("GX2", "kubectl get nodes -o custom-columns=N:.metadata.name,"
            r"CAP:.status.capacity.nvidia\.com/gpu,ALLOC:.status.allocatable.nvidia\.com/gpu"),
    ("GX604", "kubectl get nodes -o custom-columns=N:.metadata.name,"
              r"CAP:.status.capacity.nvidia\.com/gpu,ALLOC:.status.allocatable.nvidia\.com/gpu"),
)


# Citations of the tables: the upstream code whose behaviour each kind of link rests on.
SOURCES: dict[str, str] = {
    "EDGES": "containerd/containerd@v1.7.34:services/server/config/config.go (mergeConfig "
             "replaces a plugin's table: GX501 -> GX301); NVIDIA/gpu-operator@v25.10.1:"
             "controllers/object_controls.go (operand runtimeClass, init-container order, "
             "ClusterPolicy states: GX301/GX403 -> GX302/GX411 -> GX410); "
             "NVIDIA/k8s-device-plugin@v0.20.0:internal/rm/health.go (Xids mark devices "
             "unhealthy: GX505 -> GX203); kubernetes/kubernetes@v1.33.0:pkg/kubelet/cm/"
             "devicemanager/manager.go (a plugin gone leaves the resource at 0: "
             "GX411/GX302 -> GX604 -> GX202)",
    "FOLD_BY": "containerd/containerd@v1.7.34:services/server/config/config.go (the last file "
               "to write a plugin section decides it: one culprit, one incident)",
    "EDGES/DRA": "NVIDIA/k8s-dra-driver-gpu@v25.8.1:deployments/helm (the kubelet-plugin "
                 "DaemonSet publishes ResourceSlices and prepares claims)",
    "VERIFY": "containerd/containerd@v1.7.34:cmd/containerd/command/config.go (config dump "
              "prints the merged config); https://kubernetes.io/docs/reference/kubectl/",
}


def verify_command(code: str) -> str:
    """The seed §7 command that confirms ``code``; ``gpuxray check --code`` when none fits."""
    for prefix, cmd in VERIFY:
        if code.startswith(prefix):
            return cmd
    return f"gpuxray check --code {code}"


def causes_of(effect: str) -> tuple[Edge, ...]:
    return _by_effect.get(effect, ())


def effects_of(cause: str) -> tuple[Edge, ...]:
    return _by_cause.get(cause, ())


def _index(key: str) -> dict[str, tuple[Edge, ...]]:
    out: dict[str, list[Edge]] = {}
    for e in EDGES:
        out.setdefault(getattr(e, key), []).append(e)
    return {k: tuple(v) for k, v in out.items()}


_by_effect = _index("effect")
_by_cause = _index("cause")
