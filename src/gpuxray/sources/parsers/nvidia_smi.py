"""``nvidia-smi -q -x`` XML: the driver's view of each GPU.

Why: product, UUID and PCI address tie Xids to GPUs (facts.md §8); MIG mode current vs
pending shows a reconfiguration waiting for a reset (facts.md §7); the ``fabric`` block is
present on NVSwitch/NVLink-fabric systems and its state tells whether Fabric Manager has
set the fabric up (seed §1: ``system not yet initialized`` otherwise); retired pages and
remapped rows explain Xid 63/64.

Parsed with ``defusedxml``: no entity expansion, no external entities (the file comes from
a ticket attachment, not a trusted source).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element, ParseError

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

__all__ = ["GpuInfo", "NvidiaSmiParseError", "SmiReport", "parse_nvidia_smi_xml"]


class NvidiaSmiParseError(ValueError):
    """The text is not an ``nvidia-smi -q -x`` document (not XML, or another root)."""


@dataclass(frozen=True, slots=True)
class GpuInfo:
    pci_bus_id: str
    product_name: str = ""
    uuid: str = ""
    pci_device_id: str = ""
    mig_current: str = ""
    mig_pending: str = ""
    fb_total_mib: int | None = None
    fb_used_mib: int | None = None
    gpu_util_pct: int | None = None
    mem_util_pct: int | None = None
    fabric_state: str = ""
    fabric_status: str = ""
    retired_sbe: int | None = None
    retired_dbe: int | None = None
    retirement_pending: str = ""
    remapped_corr: int | None = None
    remapped_unc: int | None = None
    remap_pending: str = ""
    remap_failure: str = ""

    @property
    def has_fabric(self) -> bool:
        """The driver reports a fabric for this GPU (NVSwitch / multi-node NVLink)."""
        return bool(self.fabric_state) and self.fabric_state.upper() != "N/A"

    @property
    def fabric_ready(self) -> bool:
        return (self.fabric_state.lower() == "completed"
                and self.fabric_status.lower() in ("success", "n/a", ""))


@dataclass(frozen=True, slots=True)
class SmiReport:
    driver_version: str = ""
    cuda_version: str = ""
    attached_gpus: int | None = None
    gpus: list[GpuInfo] = field(default_factory=list)


_NUM = re.compile(r"-?\d+")


def _text(el: Element | None, path: str) -> str:
    if el is None:
        return ""
    node = el.find(path)
    return (node.text or "").strip() if node is not None else ""


def _int(text: str) -> int | None:
    """``81920 MiB`` → 81920, ``0 %`` → 0; ``N/A`` → None."""
    m = _NUM.search(text)
    return int(m.group(0)) if m else None


def parse_nvidia_smi_xml(text: str) -> SmiReport:
    """Parse the document; raise :class:`NvidiaSmiParseError` when it is not one."""
    body = text.strip()
    if not body:
        raise NvidiaSmiParseError("empty document")
    # the DOCTYPE line names a local DTD file; drop it so the parser never looks at it
    body = re.sub(r"<!DOCTYPE[^>\[]*(\[[^\]]*\])?\s*>", "", body, count=1)
    try:
        root = SafeET.fromstring(body)
    except (ParseError, DefusedXmlException, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise NvidiaSmiParseError(f"not XML: {first}") from exc
    if root.tag != "nvidia_smi_log":
        raise NvidiaSmiParseError(f"root element is <{root.tag}>, not <nvidia_smi_log>")
    gpus: list[GpuInfo] = []
    for g in root.findall("gpu"):
        fabric = g.find("fabric")
        gpus.append(GpuInfo(
            pci_bus_id=(g.get("id") or _text(g, "pci/pci_bus_id")).lower(),
            product_name=_text(g, "product_name"),
            uuid=_text(g, "uuid"),
            pci_device_id=_text(g, "pci/pci_device_id").lower(),
            mig_current=_text(g, "mig_mode/current_mig"),
            mig_pending=_text(g, "mig_mode/pending_mig"),
            fb_total_mib=_int(_text(g, "fb_memory_usage/total")),
            fb_used_mib=_int(_text(g, "fb_memory_usage/used")),
            gpu_util_pct=_int(_text(g, "utilization/gpu_util")),
            mem_util_pct=_int(_text(g, "utilization/memory_util")),
            fabric_state=_text(fabric, "state"),
            fabric_status=_text(fabric, "status"),
            retired_sbe=_int(_text(
                g, "retired_pages/multiple_single_bit_retirement/retired_count")),
            retired_dbe=_int(_text(g, "retired_pages/double_bit_retirement/retired_count")),
            retirement_pending=_text(g, "retired_pages/pending_retirement")
            or _text(g, "retired_pages/pending_blacklist"),
            remapped_corr=_int(_text(g, "remapped_rows/remapped_row_corr")),
            remapped_unc=_int(_text(g, "remapped_rows/remapped_row_unc")),
            remap_pending=_text(g, "remapped_rows/remapped_row_pending"),
            remap_failure=_text(g, "remapped_rows/remapped_row_failure"),
        ))
    return SmiReport(
        driver_version=_text(root, "driver_version"),
        cuda_version=_text(root, "cuda_version"),
        attached_gpus=_int(_text(root, "attached_gpus")),
        gpus=gpus,
    )
