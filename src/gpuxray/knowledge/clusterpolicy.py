"""ClusterPolicy status values and the spec switches the checks read.

Why: ``status.state`` is the operator's one-word health, and its conditions name the states that
are not ready (``ClusterPolicy is not ready, states not ready: [state-driver …]``); the spec decides
which operands exist and whether the driver is a container or the host's (seed §1, §3;
facts.md §5.3, §5.5).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol


class CustomResource(Protocol):
    """What these readers need of a ClusterPolicy: its spec (``model.k8s.CustomResource`` has
    it). A protocol, so the knowledge floor does not import the model above it."""

    @property
    def spec(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True, slots=True)
class PolicyState:
    value: str
    healthy: bool
    meaning: str


STATES: dict[str, PolicyState] = {s.value: s for s in (
    PolicyState("ready", True, "every enabled operand is ready"),
    PolicyState("notReady", False, "at least one operand state is not ready"),
    PolicyState("ignored", False, "a second ClusterPolicy: only the first one is reconciled"),
    PolicyState("disabled", True, "the state is disabled"),
)}

# Condition reasons (internal/conditions/consts.go; facts.md §5.3)
REASONS: dict[str, str] = {
    "Reconciled": "all states reconciled",
    "ReconcileFailed": "an error while reconciling a state",
    "OperandNotReady": "an operand's DaemonSet is not ready",
    "NFDLabelsMissing": "no NFD labels: the operator cannot find GPU nodes",
    "NoGPUNodes": "no GPU nodes",
    "DriverNotReady": "the driver is not ready",
    "NodeStatusExporterNotReady": "the node status exporter is not ready",
}

# Citations of the tables.
SOURCES: dict[str, str] = {
    "STATES": "NVIDIA/gpu-operator@v26.7.0:api/nvidia/v1/clusterpolicy_types.go "
              "(+kubebuilder:validation:Enum=ignored;ready;notReady; Disabled)",
    "REASONS": "NVIDIA/gpu-operator@v26.7.0:internal/conditions/consts.go",
}

_STATE_LIST = re.compile(r"states not ready:\s*\[([^\]]*)\]")
_RECONCILE = re.compile(r"Failed to reconcile\s+(\S+?):")


def states_not_ready(message: str) -> list[str]:
    """State names listed in a condition message (``[state-driver state-device-plugin]``)."""
    out: list[str] = []
    m = _STATE_LIST.search(message)
    if m:
        out.extend(s.strip(" ,'\"") for s in re.split(r"[\s,]+", m.group(1)) if s.strip(" ,'\""))
    m2 = _RECONCILE.search(message)
    if m2:
        out.append(m2.group(1))
    return out


NOT_READY_PREFIX = "ClusterPolicy is not ready"


def not_ready_reasons(message: str) -> list[str]:
    """The other reasons a v26.7 not-ready message gives besides the state list
    (``ClusterPolicy is not ready; NVIDIADriver upgrade has not completed; …``: parts joined by
    ``"; "`` in NVIDIA/gpu-operator@v26.7.0:controllers/clusterpolicy_controller.go
    clusterPolicyNotReadyMessage). Older messages (``…, states not ready: [...]``) have none."""
    if not message.startswith(NOT_READY_PREFIX + ";"):
        return []
    parts = [p.strip() for p in message.split("; ")[1:]]
    return [p for p in parts if p and not p.startswith("states not ready:")]


def _get(spec: Mapping[str, Any], *path: str) -> Any:
    cur: Any = spec
    for p in path:
        if not isinstance(cur, dict):
            return None
        cur = cur.get(p)
    return cur


def driver_enabled(cp: CustomResource) -> bool:
    """``driver.enabled`` defaults to true; false means a host-installed driver (seed §3)."""
    v = _get(cp.spec, "driver", "enabled")
    return v is not False


def component_enabled(cp: CustomResource, key: str, default: bool = True) -> bool:
    v = _get(cp.spec, key, "enabled")
    return default if v is None else bool(v)


# ``CDIConfigSpec.IsEnabled()`` on an unset field: false up to v25.3.x, true from v25.10.0
# (NVIDIA/gpu-operator@v25.3.4 and @v25.10.0:api/nvidia/v1/clusterpolicy_types.go).
CDI_DEFAULT_ON_SINCE = (25, 10, 0)


def cdi_enabled(cp: CustomResource, operator: tuple[int, int, int] | None = None) -> bool:
    """CDI is the default since v25.10.0: ``IsEnabled()`` is true when unset (facts.md §5.5);
    an older ``operator`` release (when known) reads unset as off."""
    v = _get(cp.spec, "cdi", "enabled")
    if v is None and operator is not None and operator < CDI_DEFAULT_ON_SINCE:
        return False
    return v is not False


def nri_plugin_enabled(cp: CustomResource) -> bool:
    """v26.x ``cdi.nriPluginEnabled``: operands get no runtimeClassName (facts.md §2.4)."""
    return _get(cp.spec, "cdi", "nriPluginEnabled") is True


def runtime_class(cp: CustomResource) -> str:
    v = _get(cp.spec, "operator", "runtimeClass")
    return v if isinstance(v, str) and v else "nvidia"


def device_plugin_config(cp: CustomResource) -> tuple[str | None, str | None]:
    """(ConfigMap name, default key) of ``spec.devicePlugin.config`` (seed §6)."""
    name = _get(cp.spec, "devicePlugin", "config", "name")
    default = _get(cp.spec, "devicePlugin", "config", "default")
    return (name if isinstance(name, str) and name else None,
            default if isinstance(default, str) and default else None)


# ----- the chart's rendering against the CRD on the cluster (GX420) -------------------------
@dataclass(frozen=True, slots=True)
class ChartSpecKey:
    """A top-level ``spec`` key the operator chart's ClusterPolicy template writes whatever the
    values say, from release ``since`` on (the CRD of that release declares it). A Helm-rendered
    ClusterPolicy of that release or later that lacks it was pruned by an older CRD's schema
    (``x-kubernetes-preserve-unknown-fields`` is not set on ``spec``)."""

    key: str
    since: tuple[int, int, int]
    source: str


_TPL = "deployments/gpu-operator/templates/clusterpolicy.yaml"
CHART_SPEC_KEYS: tuple[ChartSpecKey, ...] = (
    ChartSpecKey("cdi", (23, 3, 0), f"NVIDIA/gpu-operator@v23.3.0:{_TPL}"),
    ChartSpecKey("psa", (23, 6, 0), f"NVIDIA/gpu-operator@v23.6.0:{_TPL}"),
    ChartSpecKey("kataManager", (23, 6, 0), f"NVIDIA/gpu-operator@v23.6.0:{_TPL}"),
    ChartSpecKey("ccManager", (23, 6, 0), f"NVIDIA/gpu-operator@v23.6.0:{_TPL}"),
    ChartSpecKey("hostPaths", (24, 6, 0), f"NVIDIA/gpu-operator@v24.6.0:{_TPL}"),
)

# From v23.9.0 the operator sets up its NVIDIADriver controller unconditionally
# (NVIDIA/gpu-operator@v23.9.0:main.go); without the nvidiadrivers.nvidia.com CRD its watch
# cannot start (the chart installs that CRD only on a fresh install).
NVIDIADRIVER_WATCHED_SINCE = (23, 9, 0)

# The chart's labels on what it renders (NVIDIA/gpu-operator@v24.9.0:
# deployments/gpu-operator/templates/_helpers.tpl "gpu-operator.labels").
HELM_CHART_LABEL = "helm.sh/chart"
APP_VERSION_LABEL = "app.kubernetes.io/version"
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"


def mig_strategy(cp: CustomResource) -> str | None:
    """``spec.mig.strategy`` (none | single | mixed), None when unset: the operator then passes
    no MIG_STRATEGY and the plugin keeps its own default
    (NVIDIA/gpu-operator@v24.9.0:api/nvidia/v1/clusterpolicy_types.go ``MIGSpec``)."""
    v = _get(cp.spec, "mig", "strategy")
    return v if isinstance(v, str) and v else None
