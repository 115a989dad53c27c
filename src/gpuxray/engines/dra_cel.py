"""CEL for DRA selectors: the expressions of DeviceClasses and claim requests, evaluated with a
maintained CEL runtime (``cel-expr-python``, Google's cel-cpp) and Kubernetes' extension
functions registered on it.

Why this library (DESIGN.md asks for a measured choice): on a selector of the NVIDIA driver's
shape (``device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0``) one
evaluation took 12.6 µs with cel-expr-python (62 µs with the quantity functions in Python),
40 µs with common-expression-language (Rust; it rebuilds its context per call and lacks the
strings extension's ``lowerAscii``), 921 µs with cel-python (pure Python, also without the
strings extension). cel-expr-python is also the only one with the checker and the standard
extensions Kubernetes enables (``ext.Strings``), and it has no dependencies.

The ``device`` variable is what kubernetes/kubernetes@v1.34.0:staging/src/k8s.io/
dynamic-resource-allocation/cel/compile.go builds: ``driver``, ``attributes`` and ``capacity``
as maps of domain → identifier → value, an attribute without a domain filed under the driver's
name. A Kubernetes ``Quantity`` or semver ``Version`` has no counterpart in the Python binding,
so each is a one-key map (``{"k8s.quantity": "n/d"}``, ``{"k8s.semver": "1.2.3"}``) on which the
library functions of apiserver/pkg/cel/library (quantity.go, semverlib.go) are registered as
member overloads: ``compareTo``, ``isGreaterThan``, ``isLessThan``, ``add``, ``sub``, ``sign``,
``isInteger``, ``asInteger``, ``asApproximateFloat``, ``major``, ``minor``, ``patch``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gpuxray.model.quantity import QuantityError, parse_quantity

QKEY = "k8s.quantity"
SKEY = "k8s.semver"
_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                     r"(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$")


def quantity_value(q: Fraction) -> dict[str, str]:
    return {QKEY: f"{q.numerator}/{q.denominator}"}


def _q(m: Mapping[str, str]) -> Fraction:
    if QKEY not in m:
        raise ValueError("not a quantity")
    return Fraction(m[QKEY])


def _parse_semver(text: str, normalize: bool = False) -> tuple[int, int, int, str]:
    s = text.strip()
    if normalize:  # semver(s, true): "v" prefix dropped, missing minor/patch as 0
        s = s.removeprefix("v")
        cut = min((i for i in (s.find("-"), s.find("+")) if i >= 0), default=len(s))
        core, tail = s[:cut], s[cut:]
        parts = core.split(".")
        if all(p.isdigit() for p in parts) and len(parts) <= 3:
            parts = [str(int(p)) for p in parts] + ["0"] * (3 - len(parts))
            s = ".".join(parts) + tail
    m = _SEMVER.match(s)
    if not m:
        raise ValueError(f"invalid semver {text!r}")
    return int(m[1]), int(m[2]), int(m[3]), m[4] or ""


def semver_value(text: str, normalize: bool = False) -> dict[str, str]:
    major, minor, patch, pre = _parse_semver(text, normalize)
    return {SKEY: f"{major}.{minor}.{patch}" + (f"-{pre}" if pre else "")}


def _pre_key(pre: str) -> tuple[int, tuple[tuple[int, int | str], ...]]:
    """semver 2.0.0 §11: a release sorts after its pre-releases; identifiers compare
    numerically when numeric, numeric ones lower than alphanumeric ones."""
    if not pre:
        return (1, ())
    return (0, tuple((0, int(p)) if p.isdigit() else (1, p) for p in pre.split(".")))


def _cmp(a: Mapping[str, str], b: Mapping[str, str]) -> int:
    if SKEY in a and SKEY in b:
        x, y = _parse_semver(a[SKEY]), _parse_semver(b[SKEY])
        kx = (x[:3], _pre_key(x[3]))
        ky = (y[:3], _pre_key(y[3]))
        return (kx > ky) - (kx < ky)
    qa, qb = _q(a), _q(b)
    return (qa > qb) - (qa < qb)


def _quantity(s: str) -> dict[str, str]:
    try:
        return quantity_value(parse_quantity(s))
    except QuantityError as exc:
        raise ValueError(str(exc)) from exc


def _is_quantity(s: str) -> bool:
    try:
        parse_quantity(s)
    except QuantityError:
        return False
    return True


def _is_semver(s: str) -> bool:
    try:
        _parse_semver(s)
    except ValueError:
        return False
    return True


def _arith(sign: int) -> Callable[[Mapping[str, str], Any], dict[str, str]]:
    def fn(a: Mapping[str, str], b: Any) -> dict[str, str]:
        other = Fraction(b) if isinstance(b, int) else _q(b)
        return quantity_value(_q(a) + sign * other)
    return fn


def _as_integer(a: Mapping[str, str]) -> int:
    q = _q(a)
    if q.denominator != 1 or not -(1 << 63) <= q.numerator < (1 << 63):
        raise ValueError("cannot convert value to integer")
    return q.numerator


@functools.cache
def _env() -> Any:
    from cel_expr_python import cel
    from cel_expr_python.ext import ext_strings

    t = cel.Type
    m = t.Map(t.STRING, t.STRING)

    def member(name: str, ret: Any, args: list[Any], impl: Callable[..., Any],
               oid: str) -> Any:
        return cel.Overload(oid, ret, args, is_member=True, impl=impl)

    fns = [
        cel.FunctionDecl("quantity", [cel.Overload("quantity_string", m, [t.STRING],
                                                   impl=_quantity)]),
        cel.FunctionDecl("isQuantity", [cel.Overload("is_quantity_string", t.BOOL, [t.STRING],
                                                     impl=_is_quantity)]),
        cel.FunctionDecl("semver", [
            cel.Overload("semver_string", m, [t.STRING], impl=semver_value),
            cel.Overload("semver_string_bool", m, [t.STRING, t.BOOL], impl=semver_value)]),
        cel.FunctionDecl("isSemver", [
            cel.Overload("is_semver_string", t.BOOL, [t.STRING], impl=_is_semver)]),
        cel.FunctionDecl("compareTo", [member("compareTo", t.INT, [m, m], _cmp,
                                              "k8s_compare_to")]),
        cel.FunctionDecl("isGreaterThan", [member("isGreaterThan", t.BOOL, [m, m],
                                                  lambda a, b: _cmp(a, b) > 0,
                                                  "k8s_is_greater_than")]),
        cel.FunctionDecl("isLessThan", [member("isLessThan", t.BOOL, [m, m],
                                               lambda a, b: _cmp(a, b) < 0,
                                               "k8s_is_less_than")]),
        cel.FunctionDecl("add", [member("add", m, [m, m], _arith(1), "quantity_add"),
                                 member("add", m, [m, t.INT], _arith(1), "quantity_add_int")]),
        cel.FunctionDecl("sub", [member("sub", m, [m, m], _arith(-1), "quantity_sub"),
                                 member("sub", m, [m, t.INT], _arith(-1), "quantity_sub_int")]),
        cel.FunctionDecl("sign", [member("sign", t.INT, [m],
                                         lambda a: (_q(a) > 0) - (_q(a) < 0), "quantity_sign")]),
        cel.FunctionDecl("isInteger", [member("isInteger", t.BOOL, [m],
                                              lambda a: _q(a).denominator == 1,
                                              "quantity_is_integer")]),
        cel.FunctionDecl("asInteger", [member("asInteger", t.INT, [m], _as_integer,
                                              "quantity_as_integer")]),
        cel.FunctionDecl("asApproximateFloat", [member(
            "asApproximateFloat", t.DOUBLE, [m], lambda a: float(_q(a)),
            "quantity_as_approximate_float")]),
        cel.FunctionDecl("major", [member("major", t.INT, [m],
                                          lambda a: _parse_semver(a[SKEY])[0], "semver_major")]),
        cel.FunctionDecl("minor", [member("minor", t.INT, [m],
                                          lambda a: _parse_semver(a[SKEY])[1], "semver_minor")]),
        cel.FunctionDecl("patch", [member("patch", t.INT, [m],
                                          lambda a: _parse_semver(a[SKEY])[2], "semver_patch")]),
    ]
    return cel.NewEnv(variables={"device": t.DYN}, extensions=[ext_strings.ExtStrings()],
                      functions=fns)


@dataclass(frozen=True, slots=True)
class Compiled:
    expression: str
    program: Any  # the compiled expression, None when it does not compile
    error: str = ""


@functools.lru_cache(maxsize=4096)
def compile_selector(expression: str) -> Compiled:
    """Compile once: a fleet has a handful of distinct selectors over thousands of devices."""
    try:
        return Compiled(expression, _env().compile(expression))
    except RuntimeError as exc:
        return Compiled(expression, None, _first_line(str(exc)))


def _first_line(text: str) -> str:
    text = re.sub(r"^[A-Z_]+: (ERROR: )?", "", text.strip())
    return text.splitlines()[0] if text else "error"


@dataclass(frozen=True, slots=True)
class Outcome:
    matches: bool
    error: str = ""  # a compile or runtime error: the allocator aborts on it


def evaluate(expression: str, device: Mapping[str, Any]) -> Outcome:
    """One selector on one device, as the allocator does: true matches, false does not, an
    error (a missing attribute, a type mismatch) stops the allocation with
    ``CEL runtime error`` (structured/internal/stable/allocator_stable.go)."""
    c = compile_selector(expression)
    if c.program is None:
        return Outcome(False, f"compilation failed: {c.error}")
    from cel_expr_python import cel

    value = c.program.eval(data={"device": device})
    typ = value.type()
    if typ == cel.Type.BOOL:
        return Outcome(bool(value.plain_value()))
    if typ == cel.Type.ERROR:
        return Outcome(False, _first_line(str(value.plain_value())))
    return Outcome(False, f"expression returned {typ.name()}, not bool")


def conjuncts(expression: str) -> list[str]:
    """The top-level ``&&`` operands of an expression (outside brackets and string literals):
    evaluated one by one they say which condition no device meets."""
    out: list[str] = []
    depth = 0
    quote = ""
    start = 0
    i = 0
    s = expression
    while i < len(s):
        ch = s[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and s.startswith("&&", i):
            out.append(s[start:i].strip())
            start = i + 2
            i += 2
            continue
        i += 1
    out.append(s[start:].strip())
    parts = [p for p in out if p]
    if len(parts) == 1 and parts[0].startswith("(") and parts[0].endswith(")"):
        inner = parts[0][1:-1]
        if inner.count("(") == inner.count(")"):
            sub = conjuncts(inner)
            if len(sub) > 1:
                return sub
    return parts


_ATTR_REF = re.compile(
    r"device\.(attributes|capacity)\[\s*['\"]([^'\"]+)['\"]\s*\]\s*\.\s*([A-Za-z_][\w]*)")
_DRIVER_EQ = re.compile(r"device\.driver\s*==\s*['\"]([^'\"]+)['\"]")


def referenced(expression: str) -> list[tuple[str, str, str]]:
    """(``attributes``|``capacity``, domain, identifier) named in an expression."""
    return [(m[1], m[2], m[3]) for m in _ATTR_REF.finditer(expression)]


def drivers_named(expression: str) -> list[str]:
    """Drivers a selector pins with ``device.driver == '…'`` (the NVIDIA classes do)."""
    return _DRIVER_EQ.findall(expression)
