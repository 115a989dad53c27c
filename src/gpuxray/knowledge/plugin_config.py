"""The schema of the device-plugin / GFD / MPS config document, as data (seed §6; facts.md §6.1).

Why a table: the plugin decodes the document into Go structs and silently ignores keys it does
not know (or fails on them, depending on the field), so a key one level off — ``renameByDefault``
under ``flags`` instead of ``sharing.timeSlicing`` — is the classic "time-slicing does nothing"
ticket. The validator walks a document against :data:`SCHEMA`; a key unknown at its place but known
elsewhere is reported as misplaced, with the path where it belongs.

Source: ``k8s-device-plugin@v0.20.0:api/config/v1/{config,flags,sharing,replicas,resources}.go``
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


@dataclass(frozen=True, slots=True)
class Group:
    """A mapping with known keys; any other key is reported."""

    fields: dict[str, Node]


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

REPLICATED_RESOURCE = Group({
    "name": STR,
    "rename": STR,
    "devices": Leaf("devices"),  # "all" | count | list of index / MIG index / UUID
    "replicas": Leaf("int"),
})
REPLICATED = Group({
    "renameByDefault": BOOL,
    "failRequestsGreaterThanOne": BOOL,
    "resources": ListOf(REPLICATED_RESOURCE),
})
RESOURCE_PATTERN = Group({"pattern": STR, "name": STR})

SCHEMA: Group = Group({
    "version": Leaf("str", ("v1",)),
    "flags": Group({
        "migStrategy": Leaf("str", ("none", "single", "mixed")),
        "failOnInitError": BOOL,
        "mpsRoot": STR,
        "nvidiaDriverRoot": STR,
        "nvidiaDevRoot": STR,
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
            "nvidiaCDIHookPath": STR,
            "driverRootCtrPath": STR,
            "devRootCtrPath": STR,
        }),
        "gfd": Group({
            "oneshot": BOOL,
            "noTimestamp": BOOL,
            "sleepInterval": DURATION,
            "outputFile": STR,
            "machineTypeFile": STR,
        }),
    }),
    "resources": Group({
        "gpus": ListOf(RESOURCE_PATTERN),
        "mig": ListOf(RESOURCE_PATTERN),
    }),
    "sharing": Group({
        "timeSlicing": REPLICATED,
        "mps": REPLICATED,
    }),
    "imex": AnyValue("IMEX channel settings"),
})

# Semantic rules of the sharing section (facts.md §6.1), applied by the validator.
SHAREABLE_PREFIXES = ("nvidia.com/gpu", "nvidia.com/mig-")
MIN_SHARING_REPLICAS = 2  # one replica shares nothing: the entry is a no-op
MPS_NO_MIG = "MPS does not support MIG devices"
# The plugin warns and ignores these inside a shared resource (DisableResourceNamingInConfig).
IGNORED_RESOURCE_KEYS = ("rename",)


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
