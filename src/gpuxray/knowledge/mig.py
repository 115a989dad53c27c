"""MIG profile tables per GPU model, as data (seed §6; facts.md §7).

A MIG-capable GPU splits its memory into slices and its SMs into compute slices; a GPU instance
profile takes a number of each and may only start at certain memory slots. The planner in
:mod:`gpuxray.engines.mig` searches placements over these tables, so every rule lives here:

* A100/H100/H200/B200: 8 memory slices and 7 compute slices, at most 7 instances
  (MIG User Guide "Supported GPUs"; facts.md §7 common table). The A100 placements are NVML's
  (``go-nvml`` A100 mock, matching ``nvidia-smi mig -lgipp``) — **verified**. The H100, H200 and
  B200 placements are **derived**: facts.md §7 infers the same 8-slot layout from identical
  instance counts and observed ``nvidia-smi mig -lgi`` output, and warns that go-nvml's mocks for
  those GPUs are simplified and wrong. ``derived=True`` marks them.
* A30-24GB: 4 memory slices and 4 compute slices, at most 4 instances (MIG User Guide profile
  table for A30: ``1g.6gb`` ×4, ``1g.6gb+me`` ×1, ``2g.12gb`` ×2, ``2g.12gb+me`` ×1,
  ``4g.24gb`` ×1). Its start slots are derived from the same alignment rule (a profile of size
  *s* starts on a multiple of *s*).
* ``+me`` (media extensions) profiles take the GPU's single set of media engines, so at most one
  ``+me`` instance exists per GPU ("A single 1g profile can include media extensions").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ProfileClass:
    """A row of the common table: the slice geometry shared by every model of a family.

    ``starts`` are the memory slots an instance may begin at; it then covers ``mem`` slots.
    """

    key: str
    nvsmi_id: int | None
    mem: int
    compute: int
    max_instances: int
    starts: tuple[int, ...]
    media: bool = False


@dataclass(frozen=True, slots=True)
class Profile:
    """One GPU-instance profile of one model, e.g. ``1g.5gb`` on A100-40GB."""

    name: str
    mem: int
    compute: int
    max_instances: int
    starts: tuple[int, ...]
    media: bool

    @property
    def memory_gb(self) -> int:
        """The GB figure in the profile's name (``3g.20gb`` → 20)."""
        tail = self.name.split(".", 1)[1]
        return int(tail.split("gb", 1)[0])


@dataclass(frozen=True, slots=True)
class GpuModel:
    name: str
    memory_gb: float
    mem_slices: int
    compute_slices: int
    max_instances: int
    profiles: tuple[Profile, ...]
    pci_ids: tuple[int, ...]
    derived: bool
    source: str

    @property
    def slice_gb(self) -> float:
        """Memory per slice (A100-40GB: 5 GB), for reporting unusable memory."""
        return self.memory_gb / self.mem_slices

    def profile(self, name: str) -> Profile | None:
        for p in self.profiles:
            if p.name == name:
                return p
        return None


# facts.md §7 common table (A100 NVML placements), class order 1g / 1g+me / 1g-2×mem / 2g / 3g /
# 4g / 7g.
EIGHT_SLICE: tuple[ProfileClass, ...] = (
    ProfileClass("1g", 19, 1, 1, 7, (0, 1, 2, 3, 4, 5, 6)),
    ProfileClass("1g+me", 20, 1, 1, 1, (0, 1, 2, 3, 4, 5, 6), media=True),
    ProfileClass("1g-2xmem", 15, 2, 1, 4, (0, 2, 4, 6)),
    ProfileClass("2g", 14, 2, 2, 3, (0, 2, 4)),
    ProfileClass("3g", 9, 4, 3, 2, (0, 4)),
    ProfileClass("4g", 5, 4, 4, 1, (0,)),
    ProfileClass("7g", 0, 8, 7, 1, (0,)),
)

# A30 (MIG User Guide A30 table): 4 memory slices, 4 compute slices.
FOUR_SLICE: tuple[ProfileClass, ...] = (
    ProfileClass("1g", None, 1, 1, 4, (0, 1, 2, 3)),
    ProfileClass("1g+me", None, 1, 1, 1, (0, 1, 2, 3), media=True),
    ProfileClass("2g", None, 2, 2, 2, (0, 2)),
    ProfileClass("2g+me", None, 2, 2, 1, (0, 2), media=True),
    ProfileClass("4g", None, 4, 4, 1, (0,)),
)


def _model(name: str, memory_gb: float, names: tuple[str, ...], classes: tuple[ProfileClass, ...],
           pci_ids: tuple[int, ...], *, derived: bool, source: str) -> GpuModel:
    if len(names) != len(classes):
        raise ValueError(f"{name}: {len(names)} profile names for {len(classes)} classes")
    profiles = tuple(Profile(n, c.mem, c.compute, c.max_instances, c.starts, c.media)
                     for n, c in zip(names, classes, strict=True))
    mem = max(c.starts[-1] + c.mem for c in classes)
    compute = max(c.compute for c in classes)
    top = max(c.max_instances for c in classes)
    return GpuModel(name, memory_gb, mem, compute, top, profiles, pci_ids, derived, source)


MIG_GUIDE = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"
MIG_CONFIGMAP = "NVIDIA/gpu-operator@v26.7.0:assets/state-mig-manager/0400_configmap.yaml"
_A100 = f"{MIG_GUIDE} (A100 table); {MIG_CONFIGMAP} (all-* counts, device filters)"
_DERIVED = f"{MIG_CONFIGMAP} (all-* counts, device filters; placements derived from the A100 " \
           "layout)"

MODELS: dict[str, GpuModel] = {m.name: m for m in (
    _model("A100-40GB", 40,
           ("1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"),
           EIGHT_SLICE, (0x20B0, 0x20B1, 0x20F1, 0x20F6), derived=False, source=_A100),
    _model("A100-80GB", 80,
           ("1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
           # A800-80GB (0x20F3, 0x20F5) shares the group (configmap "A100-80GB, A800-80GB")
           EIGHT_SLICE, (0x20B2, 0x20B5, 0x20F3, 0x20F5), derived=False, source=_A100),
    _model("A30-24GB", 24,
           ("1g.6gb", "1g.6gb+me", "2g.12gb", "2g.12gb+me", "4g.24gb"),
           FOUR_SLICE, (0x20B7,), derived=True,
           source=f"{MIG_GUIDE} (A30 table; placements derived)"),
    _model("H100-80GB", 80,
           ("1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
           # H800-80GB (0x2322, 0x2324) shares the group (configmap "H100-80GB, H800-80GB")
           EIGHT_SLICE, (0x2330, 0x2331, 0x2322, 0x2324), derived=True, source=_DERIVED),
    _model("H100-94GB", 94,
           ("1g.12gb", "1g.12gb+me", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"),
           EIGHT_SLICE, (0x2321, 0x233A), derived=True, source=_DERIVED),
    _model("H200-141GB", 141,
           ("1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),
           EIGHT_SLICE, (0x2335, 0x233B), derived=True, source=_DERIVED),
    _model("B200", 180,
           ("1g.23gb", "1g.23gb+me", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"),
           EIGHT_SLICE, (0x2901,), derived=True, source=_DERIVED),
)}

# Spellings a user (or a GFD product label) may use for a model.
_ALIASES: dict[str, str] = {
    "a100-40gb": "A100-40GB", "a100": "A100-40GB", "a100-80gb": "A100-80GB",
    "a30": "A30-24GB", "a30-24gb": "A30-24GB",
    "h100": "H100-80GB", "h100-80gb": "H100-80GB", "h100-94gb": "H100-94GB",
    "h100-nvl": "H100-94GB", "h100nvl": "H100-94GB",
    "h200": "H200-141GB", "h200-141gb": "H200-141GB", "h200-nvl": "H200-141GB",
    "b200": "B200", "b200-180gb": "B200",
}


def lookup(name: str) -> GpuModel | None:
    """A model by its table name or a common spelling (case-insensitive)."""
    if name in MODELS:
        return MODELS[name]
    key = _ALIASES.get(name.strip().lower())
    return MODELS[key] if key else None


def model_for_pci(device_id: int) -> GpuModel | None:
    """A model by PCI device ID (mig-parted's ``device-filter`` ``0x20B010DE`` → ``0x20B0``)."""
    for m in MODELS.values():
        if device_id in m.pci_ids:
            return m
    return None


# GFD product words → model, first match wins: every word of a rule must be a dash-separated word
# of the product (``NVIDIA-A100-SXM4-80GB`` → A100, SXM4, 80GB); a rule with a size (GB) matches
# by the ``.memory`` label when the name does not say the size. GB200/GH200 are not in the tables
# (their slice sizes vary by SKU, facts.md §7), so they map to nothing.
_PRODUCT_RULES: tuple[tuple[tuple[str, ...], float | None, str | None], ...] = (
    (("GB200",), None, None),
    (("GH200",), None, None),
    (("A100", "80GB"), None, "A100-80GB"),
    (("A100",), 80, "A100-80GB"),
    (("A100",), None, "A100-40GB"),
    (("A30",), None, "A30-24GB"),
    (("H200",), None, "H200-141GB"),
    (("H100", "NVL"), None, "H100-94GB"),
    (("H100", "94GB"), None, "H100-94GB"),
    (("H100",), 94, "H100-94GB"),
    (("H100",), None, "H100-80GB"),
    (("H800", "NVL"), None, "H100-94GB"),
    (("H800",), None, "H100-80GB"),
    (("A800",), None, "A100-80GB"),
    (("B200",), None, "B200"),
)

# Citations of the tables whose entries are plain values or have no source field.
SOURCES: dict[str, str] = {
    "EIGHT_SLICE": f"{MIG_GUIDE} (A100 placements: 8 memory / 7 compute slices)",
    "FOUR_SLICE": f"{MIG_GUIDE} (A30: 4 slices)",
    "_ALIASES": f"{MIG_GUIDE} (model names)",
    "_PRODUCT_RULES": f"{MIG_CONFIGMAP} (per-model comments: H100-80GB, H800-80GB, A100-80GB, "
                      "A800-80GB; H100 NVL, H800 NVL; ...); GFD nvidia.com/gpu.product is the "
                      "NVML name (NVIDIA/k8s-device-plugin@v0.20.0:internal/lm/resource.go)",
}


def model_for_product(product: str, memory_mib: int | None = None) -> GpuModel | None:
    """A model from GFD's ``nvidia.com/gpu.product`` (``NVIDIA-A100-SXM4-40GB``,
    ``NVIDIA-H100-NVL``, ``NVIDIA-A100-SXM4-40GB-MIG-1g.5gb``) and ``.memory`` label (MiB)."""
    words = set(product.upper().split("-MIG-", 1)[0].replace("_", "-").replace(" ", "-")
                .split("-"))
    gb = None if memory_mib is None else memory_mib / 1024
    for needed, size, model in _PRODUCT_RULES:
        if not set(needed) <= words:
            continue
        if size is not None and (gb is None or abs(gb - size) > size * 0.08):
            continue
        return MODELS[model] if model else None
    return None
