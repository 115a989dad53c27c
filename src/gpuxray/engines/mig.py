"""MIG layout planning: validate a layout by real placement search, pack a wish-list onto GPUs,
and read mig-parted configs (seed §6 "MIG"; facts.md §6.3, §7).

Why a placement search and not arithmetic alone: an instance may only start on certain memory
slots (an A100 ``3g`` at slot 0 or 4, a ``2g`` at 0, 2 or 4), so a layout is proven feasible only
by placing it. Budgets (instances, ``+me``, compute and memory slices) are necessary conditions,
checked first because they give the clearer reason; the search then places instances largest
first on the start slots of :mod:`gpuxray.knowledge.mig`, with a memory-slot bitmap. Reasons:

``unknown-profile``  the profile does not exist on that model (wrong model or name);
``too-many-instances`` more of a profile than its maximum, or more instances than the GPU allows;
``media-extension``  more than one ``+me`` instance (one set of media engines per GPU);
``compute-budget`` / ``memory-budget``  the slices do not add up;
``slot-overlap``     budgets add up but no placement on the allowed start slots exists.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gpuxray.engines.issues import ConfigIssue
from gpuxray.knowledge.mig import GpuModel, Profile


class MigSpecError(ValueError):
    """A layout or wish-list string the planner cannot read (``1g.5gb=seven``)."""


# ----- layouts -------------------------------------------------------------------------------
_ITEM = re.compile(r"^\s*([0-9]+g\.[0-9]+gb(?:\+[a-z]+)?)\s*[=:x]\s*([0-9]+)\s*$")


def parse_layout(text: str) -> dict[str, int]:
    """``"3g.20gb=1,2g.10gb=1,1g.5gb=2"`` → counts per profile (repeats add up)."""
    out: dict[str, int] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        m = _ITEM.match(part.lower())
        if not m:
            raise MigSpecError(f"cannot read {part.strip()!r}: expected PROFILE=COUNT, "
                               "e.g. 1g.5gb=7")
        n = int(m.group(2))
        if n > 1000:
            raise MigSpecError(f"{part.strip()!r}: count too large")
        out[m.group(1)] = out.get(m.group(1), 0) + n
    if not out:
        raise MigSpecError("empty layout: give PROFILE=COUNT[,PROFILE=COUNT…]")
    return out


@dataclass(frozen=True, slots=True)
class Placement:
    profile: str
    start: int
    size: int

    def slots(self) -> str:
        return f"{self.start}:{self.size}"


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a layout is infeasible; ``reason`` is one of the module docstring's words."""

    reason: str
    detail: str


@dataclass(frozen=True, slots=True)
class GpuLayout:
    """A validated (or rejected) layout of one GPU."""

    model: GpuModel
    counts: Mapping[str, int]
    placements: tuple[Placement, ...]
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def used_mem(self) -> int:
        return sum(p.size for p in self.placements)

    @property
    def used_compute(self) -> int:
        return sum(self._p(p.profile).compute for p in self.placements)

    def _p(self, name: str) -> Profile:
        prof = self.model.profile(name)
        assert prof is not None
        return prof

    @property
    def unused_mem(self) -> int:
        return self.model.mem_slices - self.used_mem if self.ok else 0

    @property
    def unused_compute(self) -> int:
        return self.model.compute_slices - self.used_compute if self.ok else 0

    @property
    def unused_gb(self) -> float:
        return round(self.unused_mem * self.model.slice_gb, 2)

    def as_json(self) -> dict[str, Any]:
        return {"model": self.model.name, "layout": dict(self.counts), "valid": self.ok,
                "placements": [{"profile": p.profile, "start": p.start, "size": p.size}
                               for p in self.placements],
                "problems": [{"reason": p.reason, "detail": p.detail} for p in self.problems],
                "unused_memory_slices": self.unused_mem,
                "unused_compute_slices": self.unused_compute,
                "unused_memory_gb": self.unused_gb,
                "placements_derived": self.model.derived}


def _budget_problems(model: GpuModel, counts: Mapping[str, int]) -> list[Problem]:
    problems: list[Problem] = []
    profiles: list[tuple[Profile, int]] = []
    for name, n in counts.items():
        if n < 0:
            problems.append(Problem("too-many-instances", f"{name}: negative count {n}"))
            continue
        prof = model.profile(name)
        if prof is None:
            known = ", ".join(p.name for p in model.profiles)
            problems.append(Problem("unknown-profile",
                                    f"{name} is not a MIG profile of {model.name} ({known})"))
            continue
        profiles.append((prof, n))
    if problems:
        return problems
    for prof, n in profiles:
        if n > prof.max_instances:
            problems.append(Problem("too-many-instances",
                                    f"{prof.name} ×{n}: at most {prof.max_instances} on "
                                    f"{model.name}"))
    total = sum(n for _, n in profiles)
    if total > model.max_instances:
        problems.append(Problem("too-many-instances",
                                f"{total} instances: at most {model.max_instances} on "
                                f"{model.name}"))
    media = sum(n for p, n in profiles if p.media)
    if media > 1:
        problems.append(Problem("media-extension",
                                f"{media} +me instances: a GPU has one set of media engines"))
    compute = sum(p.compute * n for p, n in profiles)
    if compute > model.compute_slices:
        problems.append(Problem("compute-budget",
                                f"{compute} compute slices needed, {model.compute_slices} exist"))
    mem = sum(p.mem * n for p, n in profiles)
    if mem > model.mem_slices:
        problems.append(Problem("memory-budget",
                                f"{mem} memory slices needed, {model.mem_slices} exist"))
    return problems


def _search(model: GpuModel, counts: Mapping[str, int]) -> tuple[Placement, ...] | None:
    """Depth-first placement, largest profiles first, over a memory-slot bitmap."""
    items: list[Profile] = []
    for name, n in counts.items():
        prof = model.profile(name)
        assert prof is not None
        items.extend([prof] * n)
    items.sort(key=lambda p: (-p.mem, -p.compute, p.name))

    def go(i: int, used: int, prev: tuple[str, int]) -> tuple[Placement, ...] | None:
        if i == len(items):
            return ()
        prof = items[i]
        for start in prof.starts:
            # identical instances are placed in increasing slots (no symmetric retries)
            if prof.name == prev[0] and start <= prev[1]:
                continue
            mask = ((1 << prof.mem) - 1) << start
            if start + prof.mem > model.mem_slices or used & mask:
                continue
            rest = go(i + 1, used | mask, (prof.name, start))
            if rest is not None:
                return (Placement(prof.name, start, prof.mem), *rest)
        return None

    return go(0, 0, ("", -1))


def validate(model: GpuModel, counts: Mapping[str, int]) -> GpuLayout:
    """Place ``counts`` on one GPU of ``model``, or say why it cannot be done."""
    clean = {k: v for k, v in counts.items() if v != 0}
    problems = _budget_problems(model, clean)
    if problems:
        return GpuLayout(model, clean, (), tuple(problems))
    placed = _search(model, clean)
    if placed is None:
        return GpuLayout(model, clean, (), (Problem(
            "slot-overlap", "the slice budgets add up but no placement on the allowed start "
            "slots avoids overlap"),))
    return GpuLayout(model, clean, tuple(sorted(placed, key=lambda p: p.start)), ())


# ----- packing a wish-list onto N GPUs -------------------------------------------------------
def _prof(model: GpuModel, name: str) -> Profile:
    prof = model.profile(name)
    if prof is None:
        raise MigSpecError(f"{name} is not a MIG profile of {model.name}")
    return prof


@functools.lru_cache(maxsize=64)
def feasible_layouts(model: GpuModel, profiles: tuple[str, ...]) -> tuple[tuple[int, ...], ...]:
    """Every non-empty count vector over ``profiles`` that fits one GPU (validated by search)."""
    profs = [model.profile(p) for p in profiles]
    out: list[tuple[int, ...]] = []

    def rec(i: int, acc: tuple[int, ...]) -> None:
        if i == len(profs):
            if any(acc) and validate(model, dict(zip(profiles, acc, strict=True))).ok:
                out.append(acc)
            return
        prof = profs[i]
        assert prof is not None
        for n in range(prof.max_instances + 1):
            trial = dict(zip(profiles[: i + 1], (*acc, n), strict=True))
            if n and _budget_problems(model, trial):
                break
            rec(i + 1, (*acc, n))

    rec(0, ())
    return tuple(out)


@dataclass(frozen=True, slots=True)
class PackResult:
    model: GpuModel
    gpus: int
    want: Mapping[str, int]
    layouts: tuple[GpuLayout, ...]  # one per GPU used, in order
    unplaced: Mapping[str, int]

    @property
    def placed(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for lay in self.layouts:
            for k, v in lay.counts.items():
                out[k] = out.get(k, 0) + v
        return out

    def as_json(self) -> dict[str, Any]:
        return {"model": self.model.name, "gpus": self.gpus, "want": dict(self.want),
                "placed": self.placed, "unplaced": dict(self.unplaced),
                "gpus_used": len(self.layouts),
                "per_gpu": [lay.as_json() for lay in self.layouts],
                "unused_memory_slices": sum(lay.unused_mem for lay in self.layouts),
                "unused_compute_slices": sum(lay.unused_compute for lay in self.layouts),
                "unused_memory_gb": round(sum(lay.unused_gb for lay in self.layouts), 2)}


_STATE_LIMIT = 100_000


def pack(model: GpuModel, gpus: int, want: Mapping[str, int]) -> PackResult:
    """Place as much of ``want`` as possible on ``gpus`` GPUs of ``model``.

    Minimises, in order: instances left unplaced, GPUs used, memory slices left unusable on the
    GPUs used. Exact (memoised search over remaining counts) while the state space is small;
    above that, GPUs are filled one by one with the best-scoring layout (greedy).
    """
    if gpus < 0:
        raise MigSpecError("--gpus must be ≥ 0")
    want = {k: v for k, v in want.items() if v > 0}
    bad = [Problem("unknown-profile", f"{k} is not a MIG profile of {model.name}")
           for k in want if model.profile(k) is None]
    if bad:
        raise MigSpecError("; ".join(p.detail for p in bad))
    names = tuple(sorted(want))
    combos = feasible_layouts(model, names)
    target = tuple(want[n] for n in names)
    mem = [_prof(model, n).mem for n in names]
    waste = {c: model.mem_slices - sum(m * k for m, k in zip(mem, c, strict=True))
             for c in combos}
    states = gpus + 1
    for t in target:
        states *= t + 1
    chosen: list[tuple[int, ...]] = []
    if states <= _STATE_LIMIT:
        chosen = _pack_exact(combos, waste, target, gpus)
    else:
        chosen = _pack_greedy(combos, waste, target, gpus)
    layouts = tuple(validate(model, dict(zip(names, c, strict=True))) for c in chosen)
    placed = [sum(c[i] for c in chosen) for i in range(len(names))]
    unplaced = {n: target[i] - placed[i] for i, n in enumerate(names) if target[i] > placed[i]}
    return PackResult(model, gpus, dict(want), layouts, unplaced)


Cost = tuple[int, int, int]


def _pack_exact(combos: tuple[tuple[int, ...], ...], waste: Mapping[tuple[int, ...], int],
                target: tuple[int, ...], gpus: int) -> list[tuple[int, ...]]:
    @functools.cache
    def best(rem: tuple[int, ...], left: int) -> tuple[Cost, tuple[tuple[int, ...], ...]]:
        top: tuple[Cost, tuple[tuple[int, ...], ...]] = ((sum(rem), 0, 0), ())
        if left == 0 or not any(rem):
            return top
        for c in combos:
            if any(a > r for a, r in zip(c, rem, strict=True)):
                continue
            nxt = tuple(r - a for r, a in zip(rem, c, strict=True))
            (u, g, w), plan = best(nxt, left - 1)
            cost = (u, g + 1, w + waste[c])
            if cost < top[0]:
                top = (cost, (c, *plan))
        return top

    plan = best(target, gpus)[1]
    best.cache_clear()
    return list(plan)


def _pack_greedy(combos: tuple[tuple[int, ...], ...], waste: Mapping[tuple[int, ...], int],
                 target: tuple[int, ...], gpus: int) -> list[tuple[int, ...]]:
    rem = list(target)
    out: list[tuple[int, ...]] = []
    for _ in range(gpus):
        fits = [c for c in combos if all(a <= r for a, r in zip(c, rem, strict=True))]
        if not fits:
            break
        c = max(fits, key=lambda c: (sum(c), -waste[c]))
        out.append(c)
        rem = [r - a for r, a in zip(rem, c, strict=True)]
    return out


# ----- mig-parted configs (facts.md §6.3) ----------------------------------------------------
_TOP_KEYS = frozenset({"version", "mig-configs"})
_ENTRY_KEYS = frozenset({"devices", "device-filter", "mig-enabled", "mig-devices"})


@dataclass(frozen=True, slots=True)
class MigEntry:
    devices: tuple[int, ...] | None  # None = all
    device_filter: tuple[int, ...]  # PCI device IDs (upper 16 bits of 0x20B010DE)
    enabled: bool
    layout: Mapping[str, int]

    def applies_to(self, model: GpuModel) -> bool:
        return not self.device_filter or any(d in model.pci_ids for d in self.device_filter)


@dataclass(frozen=True, slots=True)
class MigPartedConfig:
    configs: Mapping[str, tuple[MigEntry, ...]]
    issues: tuple[ConfigIssue, ...] = ()


def _pci_id(value: Any) -> int | None:
    text = str(value).strip().lower()
    try:
        n = int(text, 16)
    except ValueError:
        return None
    return n >> 16 if n > 0xFFFF else n


def _entry(path: str, raw: Any, issues: list[ConfigIssue]) -> MigEntry | None:
    if not isinstance(raw, dict):
        issues.append(ConfigIssue(path, "expected a mapping"))
        return None
    for k in raw:
        if k not in _ENTRY_KEYS:
            issues.append(ConfigIssue(f"{path}.{k}", "unexpected field"))
    devices: tuple[int, ...] | None = None
    dev = raw.get("devices")
    if dev is None:
        issues.append(ConfigIssue(f"{path}.devices", "required: \"all\" or a list of indexes"))
    elif dev == "all":
        devices = None
    elif isinstance(dev, list) and all(isinstance(d, int) and not isinstance(d, bool)
                                       and d >= 0 for d in dev):
        devices = tuple(dev)
    else:
        issues.append(ConfigIssue(f"{path}.devices",
                                  f"must be \"all\" or a list of indexes, not {dev!r}"))
    filt: list[int] = []
    rawf = raw.get("device-filter")
    for f in ([] if rawf is None else rawf if isinstance(rawf, list) else [rawf]):
        pid = _pci_id(f)
        if pid is None:
            issues.append(ConfigIssue(f"{path}.device-filter", f"not a PCI device ID: {f!r}"))
        else:
            filt.append(pid)
    enabled = raw.get("mig-enabled")
    if not isinstance(enabled, bool):
        issues.append(ConfigIssue(f"{path}.mig-enabled", "required: true or false"))
        enabled = False
    mds = raw.get("mig-devices")
    layout: dict[str, int] = {}
    if enabled and not isinstance(mds, dict):
        issues.append(ConfigIssue(f"{path}.mig-devices", "required when mig-enabled is true"))
    elif not enabled and mds:
        issues.append(ConfigIssue(f"{path}.mig-devices",
                                  "must be empty or absent when mig-enabled is false"))
    elif isinstance(mds, dict):
        for name, n in mds.items():
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                issues.append(ConfigIssue(f"{path}.mig-devices.{name}",
                                          f"count must be a whole number ≥ 0, not {n!r}"))
                continue
            layout[str(name)] = n
    return MigEntry(devices, tuple(filt), enabled, layout)


def parse_mig_parted(text: str) -> MigPartedConfig:
    """Read a mig-parted config; structural problems come back as data, never as exceptions."""
    import yaml  # on the first config only: its import compiles patterns (~25 ms)

    issues: list[ConfigIssue] = []
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "YAML error"
        return MigPartedConfig({}, (ConfigIssue("", f"unparsable YAML: {first}"),))
    if not isinstance(doc, dict):
        return MigPartedConfig({}, (ConfigIssue("", "expected a mapping at the top"),))
    for k in doc:
        if k not in _TOP_KEYS:
            issues.append(ConfigIssue(str(k), "unexpected field"))
    if doc.get("version") != "v1":
        issues.append(ConfigIssue("version", f"must be \"v1\", not {doc.get('version')!r}"))
    configs: dict[str, tuple[MigEntry, ...]] = {}
    raw = doc.get("mig-configs")
    if not isinstance(raw, dict):
        issues.append(ConfigIssue("mig-configs", "required: a map of name → list of entries"))
        raw = {}
    for name, entries in raw.items():
        path = f"mig-configs.{name}"
        if not isinstance(entries, list) or not entries:
            issues.append(ConfigIssue(path, "must be a non-empty list"))
            continue
        parsed = [_entry(f"{path}[{i}]", e, issues) for i, e in enumerate(entries)]
        configs[str(name)] = tuple(e for e in parsed if e is not None)
    return MigPartedConfig(configs, tuple(issues))


@dataclass(frozen=True, slots=True)
class NodeMigLayout:
    """The layout a named mig-parted config gives each GPU of one model."""

    config: str
    model: GpuModel
    gpus: int
    per_gpu: tuple[GpuLayout | None, ...]  # None = MIG disabled on that GPU

    @property
    def unused_mem(self) -> int:
        return sum(lay.unused_mem for lay in self.per_gpu if lay is not None)

    @property
    def unused_compute(self) -> int:
        return sum(lay.unused_compute for lay in self.per_gpu if lay is not None)

    @property
    def unused_gb(self) -> float:
        return round(sum(lay.unused_gb for lay in self.per_gpu if lay is not None), 2)

    @property
    def invalid(self) -> list[tuple[int, GpuLayout]]:
        return [(i, lay) for i, lay in enumerate(self.per_gpu) if lay is not None and not lay.ok]


def layout_for(cfg: MigPartedConfig, name: str, model: GpuModel, gpus: int) -> NodeMigLayout | None:
    """Apply config ``name`` to ``gpus`` GPUs of ``model`` as mig-parted would: the entries whose
    device-filter matches the model, each on its devices (later entries win a device)."""
    entries = cfg.configs.get(name)
    if entries is None:
        return None
    per: list[GpuLayout | None] = [None] * gpus
    for e in entries:
        if not e.applies_to(model):
            continue
        idx: Iterable[int] = range(gpus) if e.devices is None else e.devices
        lay = validate(model, e.layout) if e.enabled else None
        for i in idx:
            if 0 <= i < gpus:
                per[i] = lay
    return NodeMigLayout(name, model, gpus, tuple(per))


__all__ = ["ConfigIssue", "GpuLayout", "MigEntry", "MigPartedConfig", "MigSpecError",
           "NodeMigLayout", "PackResult", "Placement", "Problem", "feasible_layouts",
           "layout_for", "pack", "parse_layout", "parse_mig_parted", "validate"]
