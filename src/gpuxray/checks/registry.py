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


@dataclass(frozen=True, slots=True)
class CheckSpec:
    code: str
    needs: tuple[Input, ...]
    fn: CheckFn

    @property
    def name(self) -> str:
        return CATALOG[self.code].name

    @property
    def layer(self) -> Layer:
        return Layer.of_code(self.code)


REGISTRY: dict[str, CheckSpec] = {}


def check(code: str, *, needs: tuple[Input, ...] = ()) -> Callable[[CheckFn], CheckFn]:
    """Register ``fn`` as the check for ``code``; a code is registered at most once."""

    def deco(fn: CheckFn) -> CheckFn:
        if code not in CATALOG:
            raise ValueError(f"{code} is not in the code catalog")
        if code in REGISTRY:
            raise ValueError(f"{code} is registered twice")
        REGISTRY[code] = CheckSpec(code, needs, fn)
        return fn

    return deco


def _load_all() -> None:
    """Import every check module so their decorators run (registered by code, DESIGN.md)."""
    import importlib
    import pkgutil

    import gpuxray.checks as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        if mod.name not in ("registry", "engine"):
            importlib.import_module(f"gpuxray.checks.{mod.name}")


def all_checks() -> dict[str, CheckSpec]:
    _load_all()
    return dict(sorted(REGISTRY.items()))


def run_check(spec: CheckSpec, snap: Snapshot) -> Iterator[Finding]:
    missing = snap.missing(spec.needs)
    if missing:
        st = snap.state(missing[0])
        yield unknown(spec.code, CLUSTER, st.source, st.reason)
        return
    yield from spec.fn(snap)


__all__ = ["REGISTRY", "CheckSpec", "all_checks", "check", "fail", "render_message", "run_check",
           "unknown"]
