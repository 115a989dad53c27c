"""dcgm-exporter output for scenario bundles and tests: one scrape in the Prometheus text format,
or hours of history in OpenMetrics text for ``promtool tsdb create-blocks-from openmetrics``.

Label sets follow dcgm-exporter's (``gpu``, ``UUID``, ``pci_bus_id``, ``device``, ``modelName``,
``Hostname``, ``DCGM_FI_DRIVER_VERSION``, the Kubernetes mapping's ``container``/``namespace``/
``pod``, and ``GPU_I_PROFILE``/``GPU_I_ID`` on MIG instances).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

HELP = {
    "DCGM_FI_DEV_GPU_UTIL": ("gauge", "GPU utilization (in %)."),
    "DCGM_FI_DEV_FB_FREE": ("gauge", "Framebuffer memory free (in MiB)."),
    "DCGM_FI_DEV_FB_USED": ("gauge", "Framebuffer memory used (in MiB)."),
    "DCGM_FI_DEV_POWER_USAGE": ("gauge", "Power draw (in W)."),
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE": ("gauge", "Ratio of time the graphics engine is active."),
}


@dataclass(frozen=True)
class Gpu:
    """One GPU (or MIG instance) on a node, with what it shows and who holds it."""

    index: int
    util: float = 0.0
    fb_used: float = 0.0
    fb_total: float = 81920.0
    power: float = 60.0
    namespace: str = ""
    pod: str = ""
    container: str = ""
    mig_profile: str | None = None
    mig_id: int | None = None
    model: str = "NVIDIA A100-SXM4-80GB"

    def uuid(self, node: str) -> str:
        h = hashlib.sha1(f"{node}/{self.index}".encode()).hexdigest()
        return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"

    def labels(self, node: str, *, exported: bool = False) -> dict[str, str]:
        lab = {"gpu": str(self.index), "UUID": self.uuid(node),
               "pci_bus_id": f"00000000:{0x07 + self.index * 0x10:02X}:00.0",
               "device": f"nvidia{self.index}", "modelName": self.model, "Hostname": node,
               "DCGM_FI_DRIVER_VERSION": "580.95.05"}
        if self.mig_profile is not None:
            lab["GPU_I_PROFILE"] = self.mig_profile
            lab["GPU_I_ID"] = str(self.mig_id if self.mig_id is not None else 0)
        prefix = "exported_" if exported else ""
        lab[f"{prefix}container"] = self.container
        lab[f"{prefix}namespace"] = self.namespace
        lab[f"{prefix}pod"] = self.pod
        return lab

    def values(self) -> dict[str, float]:
        vals = {"DCGM_FI_DEV_FB_FREE": self.fb_total - self.fb_used,
                "DCGM_FI_DEV_FB_USED": self.fb_used,
                "DCGM_FI_DEV_POWER_USAGE": self.power,
                "DCGM_FI_PROF_GR_ENGINE_ACTIVE": self.util / 100}
        if self.mig_profile is None:
            vals["DCGM_FI_DEV_GPU_UTIL"] = self.util
        return vals


def _labels_text(lab: dict[str, str]) -> str:
    def esc(v: str) -> str:
        return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")

    return ",".join(f'{k}="{esc(v)}"' for k, v in lab.items())


def scrape(node: str, gpus: Iterable[Gpu]) -> str:
    """One dcgm-exporter scrape (``curl :9400/metrics``) of ``node``."""
    gl = list(gpus)
    lines: list[str] = []
    for metric, (typ, text) in HELP.items():
        rows = [(g, g.values()[metric]) for g in gl if metric in g.values()]
        if not rows:
            continue
        lines.append(f"# HELP {metric} {text}")
        lines.append(f"# TYPE {metric} {typ}")
        for g, v in rows:
            lines.append(f"{metric}{{{_labels_text(g.labels(node))}}} {v:g}")
    return "\n".join(lines) + "\n"


def history(nodes: dict[str, list[Gpu]], start: int, end: int, step: int,
            shape: Callable[[str, Gpu, int], Gpu] | None = None, *,
            exported: bool = True) -> str:
    """OpenMetrics text with one sample per ``step`` seconds in [start, end] for every GPU,
    as Prometheus would have scraped it (``exported_*`` attribution labels, ``instance``/``job``
    target labels). ``shape(node, gpu, t)`` may vary a GPU's values over time."""
    out: list[str] = []
    for metric, (typ, text) in HELP.items():
        out.append(f"# HELP {metric} {text}")
        out.append(f"# TYPE {metric} {typ}")
        for node, gpus in nodes.items():
            for g in gpus:
                lab = g.labels(node, exported=exported)
                if exported:
                    lab.update({"instance": f"10.0.0.{len(node)}:9400", "job": "dcgm-exporter",
                                "namespace": "gpu-operator",
                                "pod": f"nvidia-dcgm-exporter-{node[-5:]}"})
                ltext = _labels_text(lab)
                for t in range(start, end + 1, step):
                    cur = shape(node, g, t) if shape else g
                    vals = cur.values()
                    if metric in vals:
                        out.append(f"{metric}{{{ltext}}} {vals[metric]:g} {t}")
    out.append("# EOF")
    return "\n".join(out) + "\n"
