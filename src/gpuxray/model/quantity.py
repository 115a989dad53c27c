"""Kubernetes resource quantities, parsed exactly (``k8s.io/apimachinery/pkg/api/resource``).

Exact fractions, not floats: ``100m`` CPU and ``1.5Gi`` memory must add up the way the API server
does, and an extended resource such as ``nvidia.com/gpu`` must be a whole number (seed §2, §9).
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL: dict[str, Fraction | int] = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": 1,
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
_RE = re.compile(
    r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$")


class QuantityError(ValueError):
    pass


@functools.lru_cache(maxsize=16384)
def parse_quantity(value: str | int | float) -> Fraction:
    """Parse ``2``, ``500m``, ``1.5Gi``, ``1e3``. Raises :class:`QuantityError` otherwise."""
    if isinstance(value, bool):
        raise QuantityError(f"not a quantity: {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(str(value))
    text = value.strip()
    m = _RE.match(text)
    if not m:
        raise QuantityError(f"not a quantity: {value!r}")
    number = Fraction(m.group(1))
    if m.group(2):
        exp = int(m.group(2)[1:])
        if abs(exp) > 30:  # Kubernetes caps quantities far below this; refuse a 10**huge
            raise QuantityError(f"quantity out of range: {value!r}")
        return number * Fraction(10**exp) if exp >= 0 else number / Fraction(10**-exp)
    suffix = m.group(3) or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    return number * _DECIMAL[suffix]


def safe_quantity(value: str | int | float | None) -> Fraction:
    """Like :func:`parse_quantity` but 0 for absent or malformed values (status fields)."""
    if value is None:
        return Fraction(0)
    try:
        return parse_quantity(value)
    except QuantityError:
        return Fraction(0)


def as_int(q: Fraction) -> int:
    """Extended resources are integers; round down anything else for display."""
    return int(q)


def is_extended(name: str) -> bool:
    """Extended resources have a domain prefix outside kubernetes.io (e.g. nvidia.com/gpu)."""
    if "/" not in name:
        return False
    domain = name.split("/", 1)[0]
    return not (domain == "kubernetes.io" or domain.endswith(".kubernetes.io")
                or name.startswith("requests."))
