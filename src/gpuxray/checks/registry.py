"""The check registry: one entry per stable code, registered by decorator, run by the engine.

A check is a pure function ``Snapshot -> Iterable[Finding]`` declaring the inputs it needs. When a
needed input was not collected the engine reports one ``unknown`` finding naming it instead of
running the check, so missing evidence never reads as health (CODES.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from gpuxray.knowledge.codes import CATALOG
from gpuxray.model.factory import fail, render_message, unknown
from gpuxray.model.finding import CLUSTER, Finding, Layer
from gpuxray.model.snapshot import Input, Snapshot

CheckFn = Callable[[Snapshot], Iterable[Finding]]


Applies = Callable[[Snapshot], bool]


@dataclass(frozen=True, slots=True)
class CheckSpec:
    code: str
    needs: tuple[Input, ...]
    fn: CheckFn
    applies: Applies | None = None  # False: the cluster has nothing this check is about

    @property
    def name(self) -> str:
        return CATALOG[self.code].name

    @property
    def layer(self) -> Layer:
        return Layer.of_code(self.code)


REGISTRY: dict[str, CheckSpec] = {}


def check(code: str, *, needs: tuple[Input, ...] = (),
          applies: Applies | None = None) -> Callable[[CheckFn], CheckFn]:
    """Register ``fn`` as the check for ``code``; a code is registered at most once.
    ``applies``: a predicate on evidence that the check's subject exists at all (the GPU
    Operator for its own checks); where it says False the check is silent, neither run nor
    ``unknown`` — a cluster without the operator has no ClusterPolicy to miss."""

    def deco(fn: CheckFn) -> CheckFn:
        if code not in CATALOG:
            raise ValueError(f"{code} is not in the code catalog")
        if code in REGISTRY:
            raise ValueError(f"{code} is registered twice")
        REGISTRY[code] = CheckSpec(code, needs, fn, applies)
        return fn

    return deco


#: which modules register the checks of each code series (GX1xx … GX6xx); a module may hold
#: codes of two series where one cause spans layers (containerd.py: GX301 and GX5xx). Kept in
#: step with the modules by a test, so ``capacity`` can load only its own checks.
MODULES_BY_SERIES: dict[str, tuple[str, ...]] = {
    "GX1": ("admission",),
    "GX2": ("scheduling", "dra"),
    "GX3": ("runtime", "containerd", "dra", "known_lines"),
    "GX4": ("operator", "operator_config", "node", "dra", "known_lines"),
    "GX5": ("containerd", "node", "known_lines"),
    "GX6": ("capacity",),
}


def _load(series: Iterable[str] | None = None) -> None:
    """Import the check modules so their decorators run (registered by code, DESIGN.md): all of
    them, or only those registering the given series."""
    import importlib
    import pkgutil

    import gpuxray.checks as pkg

    if series is None:
        names = [m.name for m in pkgutil.iter_modules(pkg.__path__)
                 if m.name not in ("registry", "engine")]
    else:
        names = sorted({m for s in series for m in MODULES_BY_SERIES.get(s, ())})
    for name in names:
        importlib.import_module(f"gpuxray.checks.{name}")


def all_checks(prefixes: Iterable[str] | None = None) -> dict[str, CheckSpec]:
    """The registered checks, in code order; with ``prefixes`` (``GX6``, ``GX601``) only the
    modules that can hold them are imported, and only matching checks returned."""
    if prefixes is None:
        _load()
        return dict(sorted(REGISTRY.items()))
    wanted = tuple(prefixes)
    if any(len(w) < 3 or w[:3] not in MODULES_BY_SERIES for w in wanted):
        _load()
    else:
        _load({w[:3] for w in wanted})
    return {c: s for c, s in sorted(REGISTRY.items()) if c.startswith(wanted)}


def run_check(spec: CheckSpec, snap: Snapshot) -> Iterator[Finding]:
    if spec.applies is not None and not spec.applies(snap):
        return
    missing = snap.missing(spec.needs)
    if missing:
        st = snap.state(missing[0])
        yield unknown(spec.code, CLUSTER, st.source, st.reason)
        return
    yield from spec.fn(snap)


__all__ = ["REGISTRY", "CheckSpec", "all_checks", "check", "fail", "render_message", "run_check",
           "unknown"]
