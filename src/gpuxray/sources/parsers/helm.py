"""GPU Operator Helm values as pasted → the ClusterPolicy spec the chart renders from them.

Why: tickets rarely hold ``kubectl get clusterpolicy -o yaml``; they hold what the reporter
typed: ``helm install … nvidia/gpu-operator --set driver.enabled=false``, a ``values.yaml``
excerpt, or ``helm get values`` (``USER-SUPPLIED VALUES:`` then YAML). The chart renders the
ClusterPolicy from those values section by section under the same names
(NVIDIA/gpu-operator@v26.7.0:deployments/gpu-operator/templates/clusterpolicy.yaml: ``spec.driver``
from ``.Values.driver``, ``spec.toolkit`` from ``.Values.toolkit``, … ``spec.operator`` from a few
``.Values.operator`` keys, ``spec.mig.strategy`` from ``.Values.mig.strategy``), so the operator
checks (GX4xx: driver mode, toolkit, device-plugin config, CDI) read the values as the policy
they became. Keys the user did not set keep the chart's defaults, which a check reading the
policy already assumes when a key is absent.

``--set`` follows Helm's strvals syntax (helm/helm@v3.16.0:pkg/strvals/parser.go): comma-
separated ``a.b.c=value`` pairs, ``\\,`` an escaped comma, ``true``/``false`` and integers
typed (``--set-string`` keeps strings), ``a[0].b`` list indexes.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import yaml

from gpuxray.errors import InputError
from gpuxray.sources.decode import yaml_docs

__all__ = ["SPEC_SECTIONS", "clusterpolicy_spec", "looks_like_values", "parse_set_flags",
           "values_from_commands", "values_from_yaml"]

MAX_TEXT = 256 << 10
MAX_PAIRS = 500

# values sections the chart copies into the ClusterPolicy spec under the same name
SPEC_SECTIONS = frozenset({
    "hostPaths", "daemonsets", "validator", "psa", "cdi", "driver", "vgpuManager", "kataManager",
    "vfioManager", "vgpuDeviceManager", "ccManager", "toolkit", "devicePlugin", "dcgm",
    "dcgmExporter", "gfd", "migManager", "nodeStatusExporter", "gds", "gdrcopy",
    "sandboxWorkloads", "sandboxDevicePlugin", "kataSandboxDevicePlugin"})
# ``.Values.operator`` keys the template puts under ``spec.operator``
OPERATOR_KEYS = frozenset({"runtimeClass", "defaultGPUMode", "defaultRuntime", "initContainer",
                           "use_ocp_driver_toolkit", "annotations", "labels"})
# sections only this chart has (``driver``, ``mig`` or ``operator`` alone could be any chart's)
_DISTINCT = frozenset({"devicePlugin", "dcgmExporter", "migManager", "nodeStatusExporter",
                       "sandboxWorkloads", "vgpuManager", "ccManager", "vgpuDeviceManager",
                       "kataManager", "vfioManager", "gdrcopy", "sandboxDevicePlugin"})
_CHART = re.compile(r"(?:^|[\s/])gpu-operator(?:\s|$|-v?\d)")
_HELM_CMD = re.compile(r"\bhelm\s+(?:install|upgrade|template)\b")
_SET = re.compile(r"--set(?P<string>-string)?(?:=|\s+)(?P<val>\"[^\"]{0,4096}\"|'[^']{0,4096}'|"
                  r"\S{1,4096})")
_KEY = re.compile(r"^[A-Za-z_][\w-]{0,100}(?:\[\d{1,3}\])?$")


def _typed(value: str, as_string: bool) -> Any:
    if as_string:
        return value
    if value in ("true", "false"):
        return value == "true"
    if re.fullmatch(r"-?\d{1,18}", value):
        return int(value)
    if value == "null":
        return None
    return value


def _split_pairs(arg: str) -> list[str]:
    out, cur, esc = [], [], False
    for ch in arg:
        if esc:
            cur.append(ch)
            esc = False
        elif ch == "\\":
            esc = True
        elif ch == ",":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out[:MAX_PAIRS]


def _put(root: dict[str, Any], path: list[str], value: Any) -> None:
    cur: Any = root
    for i, key in enumerate(path):
        last = i == len(path) - 1
        m = re.fullmatch(r"(.+)\[(\d{1,3})\]", key)
        if m:
            lst = cur.setdefault(m.group(1), [])
            if not isinstance(lst, list):
                return
            idx = int(m.group(2))
            while len(lst) <= idx:
                lst.append({})
            if last:
                lst[idx] = value
                return
            if not isinstance(lst[idx], dict):
                lst[idx] = {}
            cur = lst[idx]
            continue
        if last:
            cur[key] = value
            return
        nxt = cur.get(key)
        if not isinstance(nxt, dict):
            nxt = cur[key] = {}
        cur = nxt


def parse_set_flags(cmd: str) -> dict[str, Any]:
    """Values a helm command line sets with ``--set`` / ``--set-string``."""
    values: dict[str, Any] = {}
    for m in _SET.finditer(cmd[:MAX_TEXT]):
        arg = m.group("val").strip("\"'")
        for pair in _split_pairs(arg):
            key, sep, val = pair.partition("=")
            path = key.strip().split(".")
            if not sep or not all(_KEY.match(p) for p in path):
                continue
            _put(values, path, _typed(val, bool(m.group("string"))))
    return values


def values_from_commands(text: str) -> dict[str, Any]:
    """Values of every ``helm install|upgrade|template`` of the GPU Operator chart in ``text``
    (a command continued over lines with ``\\`` is one command); later commands win."""
    joined = re.sub(r"\\[ \t]*\r?\n", " ", text[:MAX_TEXT])
    values: dict[str, Any] = {}
    for line in joined.splitlines():
        if not _HELM_CMD.search(line) or not _CHART.search(line):
            continue
        _merge(values, parse_set_flags(line))
    return values


def _merge(into: dict[str, Any], new: dict[str, Any], depth: int = 0) -> None:
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict) and depth < 20:
            _merge(into[k], v, depth + 1)
        else:
            into[k] = v


# keys only this chart's section of that name has (values.yaml of v26.7.0): a ``driver:`` with
# ``usePrecompiled`` is the operator's driver, not another chart's
_DISTINCT_KEYS = {"driver": frozenset({"usePrecompiled", "kernelModuleConfig", "kernelModuleType",
                                       "useOpenKernelModules", "nvidiaDriverCRD",
                                       "upgradePolicy", "licensingConfig", "rdma", "manager"}),
                  "toolkit": frozenset({"installDir"}),
                  "cdi": frozenset({"nriPluginEnabled"})}


def looks_like_values(doc: Any) -> bool:
    """A mapping whose top-level keys are the chart's: two of its spec sections, one that only
    this chart has, or one holding a key only this chart's section has."""
    if not isinstance(doc, dict):
        return False
    keys = {k for k in doc if isinstance(k, str)}
    if len(keys & SPEC_SECTIONS) >= 2 or keys & _DISTINCT:
        return True
    return any(isinstance(doc.get(k), dict) and set(doc[k]) & v
               for k, v in _DISTINCT_KEYS.items())


def values_from_yaml(text: str, named: bool = False) -> dict[str, Any] | None:
    """The values of a ``values.yaml`` excerpt or ``helm get values`` output (or a ClusterPolicy
    whose ``spec`` holds the sections); None when the text is neither (or does not parse).
    ``named``: the command that printed it names the operator's release or chart, so one of
    the chart's sections is enough (``helm get values`` prints only what the user set)."""
    if len(text) > MAX_TEXT:
        return None
    body = "\n".join(ln for ln in text.splitlines()
                     if not re.match(r"^\s*(?:USER-SUPPLIED|COMPUTED) VALUES:\s*$", ln))
    try:
        docs = yaml_docs(textwrap.dedent(body))
    except (InputError, ValueError, RecursionError, yaml.YAMLError):
        return None
    for d in docs:
        if isinstance(d, dict) and (looks_like_values(d) or looks_like_values(d.get("spec"))):
            return d
        if named and isinstance(d, dict) and set(d) & SPEC_SECTIONS:
            return d
    return None


def clusterpolicy_spec(values: dict[str, Any]) -> dict[str, Any]:
    """The ClusterPolicy ``spec`` the chart renders from ``values`` (only what was given)."""
    spec: dict[str, Any] = {k: v for k, v in values.items() if k in SPEC_SECTIONS}
    op = values.get("operator")
    if isinstance(op, dict):
        kept = {k: v for k, v in op.items() if k in OPERATOR_KEYS}
        if kept:
            spec["operator"] = kept
    mig = values.get("mig")
    if isinstance(mig, dict) and "strategy" in mig:
        spec["mig"] = {"strategy": mig["strategy"]}
    drv = spec.get("driver")
    if isinstance(drv, dict) and isinstance(drv.get("nvidiaDriverCRD"), dict):
        drv = dict(drv)
        crd = drv.pop("nvidiaDriverCRD")
        if "enabled" in crd:
            drv["useNvidiaDriverCRD"] = crd["enabled"]
        spec["driver"] = drv
    return spec
