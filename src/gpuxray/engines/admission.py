"""Admission (seed §4, the first branch: "the pod object does not exist").

A GPU pod can be refused before it exists: a ResourceQuota on ``requests.nvidia.com/gpu``, a
``runtimeClassName`` no RuntimeClass defines, or a GPU quantity the API server rejects (extended
resources must be whole numbers, and requests must equal limits — seed §2, §9). When a controller
creates the pods, the refusal is only visible as a ``FailedCreate`` event on the owner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import msgspec

from gpuxray.engines.capacity import is_gpu_resource
from gpuxray.model.k8s import Container, Event, PodSpec
from gpuxray.model.quantity import QuantityError, parse_quantity

_QUOTA_RE = re.compile(
    r"exceeded quota: (?P<quota>[^,]+), requested: (?P<req>[^,]+(?:,[^,:]+=[^,]+)*), "
    r"used: (?P<used>.+?), limited: (?P<lim>.+)$")
_RC_RE = re.compile(r'RuntimeClass "(?P<name>[^"]+)" not found')
_INVALID_RE = re.compile(
    r"resources\.(?:requests|limits)\[(?P<res>[^\]]+)\]: Invalid value: \"?(?P<val>[^\":]*)\"?: "
    r"(?P<why>[^;\]]+)")


def _kv(text: str) -> dict[str, str]:
    out = {}
    for part in text.split(","):
        k, sep, v = part.strip().partition("=")
        if sep:
            out[k.strip()] = v.strip()
    return out


@dataclass(frozen=True, slots=True)
class QuotaRefusal:
    quota: str
    requested: dict[str, str]
    used: dict[str, str]
    limited: dict[str, str]

    def gpu_resources(self) -> list[str]:
        return [k for k in self.limited if "nvidia.com/" in k or is_gpu_resource(k)]


def parse_quota_refusal(message: str) -> QuotaRefusal | None:
    """``pods "x" is forbidden: exceeded quota: q, requested: r=1, used: r=8, limited: r=8``."""
    m = _QUOTA_RE.search(message.strip())
    if not m:
        return None
    return QuotaRefusal(m.group("quota").strip(), _kv(m.group("req")), _kv(m.group("used")),
                        _kv(m.group("lim")))


def runtimeclass_refused(message: str) -> str | None:
    m = _RC_RE.search(message)
    return m.group("name") if m else None


def invalid_gpu_value(message: str) -> list[tuple[str, str, str]]:
    """``spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: "500m": must be an
    integer`` → (resource, value, why) for GPU resources."""
    return [(m.group("res"), m.group("val"), m.group("why").strip())
            for m in _INVALID_RE.finditer(message) if is_gpu_resource(m.group("res"))]


_PROBLEMS: dict[bytes, tuple[str, ...]] = {}  # by the resources as written: a pending storm
_RESOURCES = msgspec.json.Encoder()  # repeats one job's resources thousands of times


def container_gpu_problems(c: Container) -> list[str]:
    """What the API server would refuse about this container's GPU quantities."""
    key = _RESOURCES.encode(c.resources)
    hit = _PROBLEMS.get(key)
    if hit is None:
        hit = tuple(_container_gpu_problems(c))
        if len(_PROBLEMS) < 4096:
            _PROBLEMS[key] = hit
    return list(hit)


def _container_gpu_problems(c: Container) -> list[str]:
    problems: list[str] = []
    req_gpu = [k for k in c.resources.requests if is_gpu_resource(k)]
    lim_gpu = [k for k in c.resources.limits if is_gpu_resource(k)]
    if not req_gpu and not lim_gpu:
        return problems
    for res in sorted({*req_gpu, *lim_gpu}):
        req = c.resources.requests.get(res)
        lim = c.resources.limits.get(res)
        for label, val in (("request", req), ("limit", lim)):
            if val is None:
                continue
            try:
                q = parse_quantity(val)
            except QuantityError:
                problems.append(f"{res} {label} {val!r} is not a quantity")
                continue
            if q.denominator != 1:
                problems.append(f"{res} {label} {val} is not a whole number (GPUs are integer "
                                "extended resources; fractions need time-slicing or MIG)")
        if req is not None and lim is None:
            problems.append(f"{res} requested without a limit (extended resources must be set "
                            "in limits)")
        elif req is not None and lim is not None:
            try:
                if parse_quantity(req) != parse_quantity(lim):
                    problems.append(f"{res} request {req} differs from limit {lim} (must be "
                                    "equal for extended resources)")
            except QuantityError:
                pass
    return problems


def spec_gpu_problems(spec: PodSpec) -> list[tuple[str, str]]:
    return [(c.name, p) for c in (*spec.init_containers, *spec.containers)
            for p in container_gpu_problems(c)]


def is_failed_create(e: Event) -> bool:
    return e.reason == "FailedCreate"
