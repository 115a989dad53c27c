"""Observed GPU usage (DCGM exporter series), as the Snapshot carries it (seed §6).

The scheduler sees allocation; DCGM sees use. A card can be allocated, busy at 0 % and still hold
13.7 GiB of framebuffer — idle, not free (seed §6). Usage comes from one dcgm-exporter scrape per
node in a bundle (``metrics/<node>.prom``, a single instant) or from a Prometheus server over a
window (``avg_over_time``/``max_over_time``); :attr:`UsageData.basis` says which, so every
judgement can say what it stands on.

The idle thresholds travel with the data (:class:`IdlePolicy`), so the checks stay pure: the CLI
puts its ``--idle-util``/``--idle-fb-mib`` into the Snapshot's ``usage``; without it the defaults
below apply.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_IDLE_UTIL_PCT = 1.0
DEFAULT_IDLE_FB_MIB = 1024.0


@dataclass(frozen=True, slots=True)
class IdlePolicy:
    """A GPU is idle-but-allocated at utilisation ≤ ``util_pct`` while holding ≥ ``fb_mib``."""

    util_pct: float = DEFAULT_IDLE_UTIL_PCT
    fb_mib: float = DEFAULT_IDLE_FB_MIB


@dataclass(frozen=True, slots=True)
class RawSample:
    """One value of one labelled series: ``stat`` is ``value`` (a scrape), ``avg`` or ``max``
    (a server's ``avg_over_time``/``max_over_time`` over the window)."""

    metric: str
    stat: str
    labels: Mapping[str, str]
    value: float


@dataclass(frozen=True, slots=True)
class GpuSeries:
    """One GPU (or MIG instance) as dcgm-exporter labels it, with the values observed.

    ``util_pct`` is ``DCGM_FI_DEV_GPU_UTIL`` or, for MIG instances (which have no device
    utilisation) and where it is absent, ``DCGM_FI_PROF_GR_ENGINE_ACTIVE`` × 100. Over a window
    the values are averages and ``util_max_pct`` the maximum; for one scrape both are the value.
    """

    node: str
    gpu: str
    uuid: str
    device: str = ""
    model: str = ""
    mig_profile: str | None = None
    mig_instance: str | None = None
    namespace: str | None = None
    pod: str | None = None
    container: str | None = None
    util_pct: float | None = None
    util_max_pct: float | None = None
    fb_used_mib: float | None = None
    fb_free_mib: float | None = None
    power_w: float | None = None
    source: str = ""

    @property
    def gpu_key(self) -> tuple[str, str, str]:
        """Identity of the device: node, physical GPU, MIG instance ('' for a whole GPU)."""
        return (self.node, self.uuid or self.gpu, self.mig_instance or "")

    @property
    def label(self) -> str:
        base = f"GPU {self.gpu}" if self.gpu else self.uuid
        if self.mig_instance is not None:
            return f"{base} MIG {self.mig_profile or '?'} #{self.mig_instance}"
        return base


@dataclass(frozen=True, slots=True)
class UsageData:
    """Every GPU series observed, how (``scrape`` or ``window``), from where, and the policy.

    ``node_errors`` holds nodes whose metrics could not be read (unparsable scrape, no series
    from the server), so checks report ``unknown`` for them instead of passing them.
    """

    series: tuple[GpuSeries, ...]
    basis: str
    source: str
    window: str | None = None
    policy: IdlePolicy = IdlePolicy()
    node_errors: Mapping[str, str] = field(default_factory=dict)
    node_sources: Mapping[str, str] = field(default_factory=dict)

    @property
    def basis_text(self) -> str:
        if self.basis == "window":
            return f"average over {self.window} ({self.source})"
        return "single scrape"
