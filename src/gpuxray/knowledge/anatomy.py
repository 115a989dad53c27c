"""The stack's anatomy as data, for ``gpuxray explain``: components, the two gates, the
``Insufficient`` look-alikes, sharing, MIG, the drop-in trap and common misconceptions.

Each table is short rows of facts with the seed section (and facts.md section where that is the
later, checked word), so ``explain`` renders tables rather than paragraphs (seed §1, §2, §4–§6,
§8, §9).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuxray.knowledge.containerd_daemon import sighup_text


@dataclass(frozen=True, slots=True)
class Table:
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class Topic:
    name: str
    title: str
    seed: str
    tables: tuple[Table, ...]
    codes: tuple[str, ...] = ()


COMPONENTS = Table(
    "Components: what each does and where its failure shows (seed §1)",
    ("component", "role", "when it fails", "codes"),
    (
        ("NFD, GFD", "turn hardware into node labels (pci-10de, gpu.product, gpu.count)",
         "no labels or an untolerated taint: the DaemonSet's DESIRED is 0, with no error",
         "GX401 GX402 GX414"),
        ("driver", "the kernel module, in a container or preinstalled on the host",
         "nvidia-smi fails; every later operand waits in Init (nouveau conflict included)",
         "GX403 GX404 GX302"),
        ("container toolkit", "registers the `nvidia` runtime handler in containerd's config",
         "`no runtime for \"nvidia\" is configured`", "GX301 GX411 GX501"),
        ("device plugin", "registers with kubelet, advertises devices, Allocate, watches Xid",
         "nvidia.com/gpu absent or reduced", "GX202 GX203 GX604"),
        ("DCGM exporter", "exposes GPU metrics", "CrashLoopBackOff when standalone DCGM is "
         "unreachable", "GX406"),
        ("MIG manager", "applies MIG profiles", "meaningless on GPUs without MIG", "GX407"),
        ("validator", "validates driver, toolkit, cuda, plugin in that order",
         "`system not yet initialized` when an NVSwitch node lacks Fabric Manager", "GX405"),
    ),
)

GATES = Table(
    "The two gates a GPU pod passes (seed §2)",
    ("gate", "step", "what is checked", "failure codes"),
    (
        ("1 scheduling", "device plugin → kubelet", "plugin registers; kubelet writes "
         "capacity/allocatable into node status", "GX202 GX203"),
        ("1 scheduling", "kube-scheduler NodeResourcesFit",
         "request ≤ allocatable − already allocated, on a node the pod tolerates/selects",
         "GX201 GX204 GX205 GX206 GX207"),
        ("2 runtime", "kubelet Allocate", "device nodes, env, mounts, CDI names for the container",
         "GX305"),
        ("2 runtime", "containerd", "applies the CDI spec, or the nvidia runtime edits the OCI "
         "spec (runtimeClassName nvidia)", "GX301 GX307"),
        ("2 runtime", "runc starts the container", "the container sees the GPU; NVML works",
         "GX303 GX304 GX306"),
    ),
)

INSUFFICIENT = Table(
    "One message, three causes: `Insufficient nvidia.com/gpu` (seed §4, §8; facts.md §3, §4)",
    ("what node status shows", "cause", "code"),
    (
        ("resource name absent, or capacity 0 and allocatable 0",
         "plugin never registered, or gone longer than kubelet's 5-minute grace (the name "
         "stays at 0)", "GX202"),
        ("capacity > allocatable, or allocatable 0 with capacity kept",
         "unhealthy devices (Xid) or the plugin disconnected less than 5 minutes ago", "GX203"),
        ("allocated = allocatable", "really full: lists who holds the GPUs", "GX204"),
    ),
)

TIMESLICING = Table(
    "Time-slicing and MPS (seed §6; facts.md §6)",
    ("fact", "consequence"),
    (
        ("replicas: N registers each GPU N times", "capacity = count × N; memory guarantee 0"),
        ("memory and errors are not isolated", "one client's OOM or Xid hits every slot"),
        ("failRequestsGreaterThanOne: true", "requests > 1 fail at admission "
         "(UnexpectedAdmissionError)"),
        ("renameByDefault: true", "the resource becomes nvidia.com/gpu.shared"),
        ("the operator does not watch the config ConfigMap",
         "edit it, then restart the device-plugin pods (GX408)"),
        ("MPS: full GPUs only, equal 1/replicas memory and compute",
         "needs the mps-control-daemon on nvidia.com/mps.capable=true nodes"),
    ),
)

MIG = Table(
    "MIG (seed §6; facts.md §7)",
    ("fact", "consequence"),
    (
        ("memory in 8 slices, compute in 7", "1g.5gb on A100-40GB: at most 7 instances"),
        ("7 × 1g.5gb uses 7/8 of memory", "the 8th slice (≈5 GB) is left unused"),
        ("nvidia.com/mig.config selects a layout", "mig-manager writes "
         "nvidia.com/mig.config.state: pending, rebooting, success, failed (GX407)"),
        ("single strategy", "instances advertised as nvidia.com/gpu"),
        ("mixed strategy", "one resource per profile: nvidia.com/mig-1g.10gb …"),
        ("consumer GPUs", "no MIG support"),
    ),
)

DROPIN = Table(
    "The containerd drop-in trap (seed §5; facts.md §0, §1; measured on real 1.6.20, 1.7.27, "
    "2.0.14, 2.1.9, 2.2.9, 2.3.4, 2.3.7 and 2.4.2 builds — 2.0.0–2.0.1 from the source only)",
    ("containerd", "how a drop-in touching a plugin merges", "effect"),
    (
        ("1.6.x / 1.7.x", "the whole plugin section is replaced by the last file touching it",
         "a 3-line registry drop-in after 99-nvidia.toml wipes the nvidia runtime (GX501); "
         "`config dump | grep -c runtimes.nvidia` goes from 6 to 0"),
        ("1.6.32+ / 1.7.17+", "a version 3 file last among those stating a version is refused",
         "`unsupported config version 3`, naming the last file loaded (GX509); 1.6.20 loads "
         "it and ignores the v3 plugin names"),
        ("2.0+", "plugin tables deep-merge; arrays replaced; keys cannot be deleted; the "
         "default runc runtime stays", "drop-ins of the root's version compose"),
        ("2.0.2–2.2", "v3 root + v2 drop-in: the merged config (version 2) is migrated, and the "
         "migration takes only keys the v3 section lacks",
         "a root runtimes table keeps the drop-in's nvidia runtime out (GX510); 2.0.0–2.0.1 "
         "overwrote the root's section instead"),
        ("2.0–2.2", "v2 root + v3 drop-in: merged version 3, no migration",
         "the root's grpc.v1.cri settings are ignored (GX501); a v4 drop-in is refused (GX509)"),
        ("2.3.0–2.3.4", "a drop-in above the first version stated is refused",
         "`drop-in config version 3 higher than root config version 2` (GX509); 2.3.5+ load it"),
        ("2.3+ / 2.4", "every file is migrated to version 4 before merging",
         "mixed versions compose; 2.4 has no enable_cdi (CDI always on)"),
        ("all", "no hot reload: files change, the daemon keeps the old config until restart",
         "judge with `containerd config dump`, not the files (GX502)"),
        ("all 2.x", "`config dump` ignores a missing import and prints the merge so far",
         "the daemon itself stops: `open …: no such file or directory` (GX509)"),
        ("toolkit", "restarts containerd with SIGHUP, which containerd does not trap",
         sighup_text() + " (GX503, GX504)"),
    ),
)


MISCONCEPTIONS = Table(
    "Common misconceptions (seed §9)",
    ("belief", "reality", "codes"),
    (
        ("nvidia-smi works on the host, so it works in the pod",
         "the runtime handler and the advertised resource are separate gates", "GX301 GX202"),
        ("requests: 0.5 gives half a GPU", "GPUs are integer extended resources", "GX103"),
        ("replicas: 5 splits memory five ways", "all replicas share the same VRAM", "GX602"),
        ("deploying the operator keeps containerd's config safe",
         "the toolkit writes host files; a later drop-in can wipe them", "GX501"),
        ("`Insufficient nvidia.com/gpu` means the cluster is full",
         "the same words for not advertised, unhealthy and full", "GX202 GX203 GX204"),
        ("kubelet removes the resource name 5 minutes after the plugin leaves",
         "capacity is set to 0; the name stays (facts.md §3)", "GX202"),
    ),
)

TOPICS: dict[str, Topic] = {t.name: t for t in (
    Topic("components", "Components of the GPU Operator stack", "§1", (COMPONENTS,)),
    Topic("gates", "How a pod gets a GPU: two gates", "§2", (GATES,)),
    Topic("insufficient", "Insufficient nvidia.com/gpu", "§4, §8", (INSUFFICIENT,),
          ("GX202", "GX203", "GX204")),
    Topic("timeslicing", "Time-slicing and MPS", "§6", (TIMESLICING,), ("GX602", "GX408")),
    Topic("mig", "MIG", "§6", (MIG,), ("GX407", "GX603")),
    Topic("dropin", "containerd drop-ins", "§5", (DROPIN,),
          ("GX501", "GX510", "GX509", "GX502", "GX503", "GX504")),
    Topic("misconceptions", "Common misconceptions", "§9", (MISCONCEPTIONS,)),
)}
