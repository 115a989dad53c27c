"""The schema of the device-plugin / GFD / MPS config document, as data (seed §6; facts.md §6.1).

Why a table: the plugin decodes the document into Go structs and silently ignores keys it does
not know (or fails on them, depending on the field), so a key one level off — ``renameByDefault``
under ``flags`` instead of ``sharing.timeSlicing`` — is the classic "time-slicing does nothing"
ticket. The validator walks a document against :data:`SCHEMA`; a key unknown at its place but known
elsewhere is reported as misplaced, with the path where it belongs.

Source: ``NVIDIA/k8s-device-plugin@v0.20.0:api/config/v1/``
``{config,flags,sharing,replicas,resources}.go``
(facts.md §6.1): ``version: v1``, ``flags`` (with ``plugin`` and ``gfd`` groups), ``resources``
(``gpus``/``mig`` patterns), ``sharing`` (``timeSlicing`` / ``mps``), ``imex``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union


@dataclass(frozen=True, slots=True)
class Leaf:
    """A scalar: ``kind`` is bool, str, int, duration, str-or-list; ``choices`` when enumerated."""

    kind: str
    choices: tuple[str, ...] = ()
    since: str = ""  # first device-plugin release that reads the key ("" = every supported one)


@dataclass(frozen=True, slots=True)
class Group:
    """A mapping with known keys; any other key is reported. ``source``: the upstream Go type
    that decodes it (``owner/repo@tag:path``)."""

    fields: dict[str, Node]
    source: str = ""


@dataclass(frozen=True, slots=True)
class ListOf:
    item: Node
    min_items: int = 0


@dataclass(frozen=True, slots=True)
class AnyValue:
    """A subtree gpuxray does not judge (IMEX channels)."""

    note: str = field(default="")


Node = Union[Leaf, Group, ListOf, AnyValue]  # noqa: UP007 - a runtime alias for the dataclasses

BOOL = Leaf("bool")
STR = Leaf("str")
DURATION = Leaf("duration")  # "60s", "1m" or a number of seconds

DP = "NVIDIA/k8s-device-plugin@v0.20.0"
REPLICATED_RESOURCE = Group({
    "name": STR,
    "rename": STR,
    "devices": Leaf("devices"),  # "all" | count | list of index / MIG index / UUID
    "replicas": Leaf("int"),
}, f"{DP}:api/config/v1/replicas.go (ReplicatedResource.UnmarshalJSON)")
REPLICATED = Group({
    "renameByDefault": BOOL,
    "failRequestsGreaterThanOne": BOOL,
    "resources": ListOf(REPLICATED_RESOURCE),
}, f"{DP}:api/config/v1/replicas.go (ReplicatedResources)")
RESOURCE_PATTERN = Group({"pattern": STR, "name": STR}, f"{DP}:api/config/v1/resources.go")

SCHEMA: Group = Group({
    "version": Leaf("str", ("v1",)),
    "flags": Group({
        "migStrategy": Leaf("str", ("none", "single", "mixed")),
        "failOnInitError": BOOL,
        "mpsRoot": STR,
        "nvidiaDriverRoot": STR,
        "nvidiaDevRoot": STR,
        "gdrcopyEnabled": Leaf("bool", since="v0.18.0"),
        "gdsEnabled": BOOL,
        "mofedEnabled": BOOL,
        "useNodeFeatureAPI": BOOL,
        "deviceDiscoveryStrategy": Leaf("str", ("auto", "nvml", "tegra")),
        "plugin": Group({
            "passDeviceSpecs": BOOL,
            "deviceListStrategy": Leaf("str-or-list", (
                "envvar", "volume-mounts", "cdi-annotations", "cdi-cri")),
            "deviceIDStrategy": Leaf("str", ("uuid", "index")),
            "containerDriverRoot": STR,
            "cdiAnnotationPrefix": STR,
            "nvidiaCTKPath": STR,
            # validated at start: ``invalid --shared-devices-allocation-policy option``
            # (cmd/nvidia-device-plugin/main.go)
            "sharedDevicesAllocationPolicy": Leaf("str", ("distributed", "packed"),
                                                  since="v0.20.0"),
        }, f"{DP}:api/config/v1/flags.go (PluginCommandLineFlags)"),
        "gfd": Group({
            "oneshot": BOOL,
            "noTimestamp": BOOL,
            "sleepInterval": DURATION,
            "outputFile": STR,
            "machineTypeFile": STR,
        }, f"{DP}:api/config/v1/flags.go (GFDCommandLineFlags)"),
    }, f"{DP}:api/config/v1/flags.go (CommandLineFlags)"),
    "resources": Group({
        "gpus": ListOf(RESOURCE_PATTERN),
        "mig": ListOf(RESOURCE_PATTERN),
    }, f"{DP}:api/config/v1/resources.go (Resources)"),
    "sharing": Group({
        "timeSlicing": REPLICATED,
        "mps": REPLICATED,
    }, f"{DP}:api/config/v1/sharing.go (Sharing)"),
    "imex": AnyValue("IMEX channel settings"),
}, f"{DP}:api/config/v1/config.go (Config)")

# Semantic rules of the sharing section (facts.md §6.1), applied by the validator.
SHAREABLE_PREFIXES = ("nvidia.com/gpu", "nvidia.com/mig-")
# ``if s.Replicas < 2 { return fmt.Errorf("number of replicas must be >= 2") }`` in
# ReplicatedResource.UnmarshalJSON (v0.17.0-v0.20.0 api/config/v1/replicas.go): a single entry
# below 2 makes the whole document fail to load (``unable to load config``), so it is fatal.
MIN_SHARING_REPLICAS = 2
MPS_NO_MIG = "MPS does not support MIG devices"
# The plugin warns and drops these inside a shared resource (DisableResourceNamingInConfig →
# disableResoureRenaming, v0.20.0 api/config/v1/{config,replicas}.go): ``rename`` unless it equals
# the default ``<name>.shared`` under renameByDefault, and ``devices`` unless it is ``all``.
IGNORED_RESOURCE_KEYS = ("rename", "devices")
# DisableResourceNamingInConfig also drops the top-level ``resources`` patterns (with a warning).
IGNORED_TOP_KEYS = ("resources",)
# Settings that exist only as CLI flags / env of the plugin, never as config-file keys
# (v0.20.0 ``PluginCommandLineFlags`` has no json tag for them;
# ``cmd/nvidia-device-plugin/main.go`` declares the flags): a file that sets them is ignored there.
FLAG_ONLY_KEYS = {"nvidiaCDIHookPath": "--nvidia-cdi-hook-path (NVIDIA_CDI_HOOK_PATH)",
                  "driverRootCtrPath": "--driver-root-ctr-path (DRIVER_ROOT_CTR_PATH)"}


# Citations of the tables whose entries are plain values.
SOURCES: dict[str, str] = {
    "SHAREABLE_PREFIXES": f"{DP}:api/config/v1/resources.go (NewResourceName: names live "
                          "under nvidia.com/); internal/rm/rm.go (GPU and MIG resources)",
    "IGNORED_RESOURCE_KEYS": f"{DP}:api/config/v1/replicas.go (disableResoureRenaming)",
    "IGNORED_TOP_KEYS": f"{DP}:api/config/v1/config.go (DisableResourceNamingInConfig)",
    "FLAG_ONLY_KEYS": f"{DP}:cmd/nvidia-device-plugin/main.go (flags), "
                      "api/config/v1/flags.go (no json tag)",
}


def key_homes(schema: Group = SCHEMA, prefix: str = "") -> dict[str, list[str]]:
    """Every key name → the paths of the groups where it is valid (for "belongs under")."""
    out: dict[str, list[str]] = {}
    for k, node in schema.fields.items():
        out.setdefault(k, []).append(prefix or "<top>")
        child = node.item if isinstance(node, ListOf) else node
        if isinstance(child, Group):
            sub = f"{prefix}.{k}" if prefix else k
            if isinstance(node, ListOf):
                sub += "[]"
            for kk, paths in key_homes(child, sub).items():
                out.setdefault(kk, []).extend(paths)
    return out
