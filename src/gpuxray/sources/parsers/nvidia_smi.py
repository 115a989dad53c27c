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

__all__ = ["GpuInfo", "NvidiaSmiParseError", "SmiReport", "parse_nvidia_smi_text",
           "parse_nvidia_smi_xml"]


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


# ----- the text layouts a ticket holds: the default table, ``-q`` and ``-L`` ---------------------
# Layouts as nvidia-smi prints them (NVIDIA's nvidia-smi(1); table widths changed in 525 and
# 570, cells kept): the header row ``| NVIDIA-SMI 535.230.02  Driver Version: 535.230.02  CUDA
# Version: 12.2 |``; per GPU three rows, the first ``|   0  NVIDIA H100 80GB HBM3  On  |
# 00000000:18:00.0 Off |  0 |`` (index, name, persistence | bus id, display | ECC), the third
# ending in the MIG M. cell. ``-q``: ``Driver Version : …``, one ``GPU 00000000:18:00.0`` block
# per GPU with indented ``Key : value`` rows and sub-blocks (``MIG Mode`` / ``Current``,
# ``Fabric`` / ``State``). ``-L``: ``GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-…)``.
_SMI_HEAD = re.compile(r"NVIDIA-SMI (\S+)\s+Driver Version: (\S+)(?:\s+CUDA Version: (\S+))?")
_SMI_GPU_ROW = re.compile(
    r"^\|\s{0,4}(\d{1,3})\s+(\S.{0,60}?)\s+(On|Off|ERR!)\s*\|\s*"
    r"([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s+\S+\s*\|")
_SMI_ROW3 = re.compile(r"^\|[\s|]{0,100}\|\s{0,40}(Disabled|Enabled|N/A|On|Off)\s*\|\s*$")
_SMI_L = re.compile(r"^\s*GPU (\d{1,3}): (\S.{0,80}?) \(UUID: (GPU-[0-9a-fA-F-]{1,64})\)")
_Q_KV = re.compile(r"^(\s*)(\S[^:]{0,60}?)\s*: (.*)$")
_Q_GPU = re.compile(r"^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$")
_Q_BLOCK = re.compile(r"^(\s+)(\S[^:]{0,60}?)\s*$")


def _table(lines: list[str]) -> SmiReport | None:
    driver = cuda = ""
    gpus: list[dict[str, str]] = []
    for raw in lines:
        line = raw.strip()[:400]
        h = _SMI_HEAD.search(line)
        if h:
            driver, cuda = h.group(2), h.group(3) or ""
            continue
        m = _SMI_GPU_ROW.match(line)
        if m:
            gpus.append({"pci": m.group(4).lower(), "name": m.group(2).strip(), "row": "1"})
            continue
        if gpus and gpus[-1]["row"] in ("1", "2"):
            gpus[-1]["row"] = str(int(gpus[-1]["row"]) + 1)
            r3 = _SMI_ROW3.match(line)
            if gpus[-1]["row"] == "3" and r3:
                gpus[-1]["mig"] = r3.group(1)
    if not gpus and not driver:
        return None
    return SmiReport(driver_version=driver, cuda_version=cuda, attached_gpus=len(gpus) or None,
                     gpus=[GpuInfo(pci_bus_id=g["pci"], product_name=g["name"],
                                   mig_current=g.get("mig", "")) for g in gpus])


def _query(lines: list[str]) -> SmiReport | None:
    top: dict[str, str] = {}
    gpus: list[dict[str, str]] = []
    path: list[tuple[int, str]] = []  # (indent, block name) of the current GPU's sub-blocks
    for raw in lines:
        line = raw.rstrip()[:400]
        g = _Q_GPU.match(line)
        if g:
            gpus.append({"pci": g.group(1).lower()})
            path = []
            continue
        kv = _Q_KV.match(line)
        if kv is None:
            b = _Q_BLOCK.match(line)
            if b and gpus:
                ind = len(b.group(1))
                path = [p for p in path if p[0] < ind] + [(ind, b.group(2).strip())]
            continue
        ind, key, val = len(kv.group(1)), kv.group(2).strip(), kv.group(3).strip()
        if not gpus:
            top[key] = val
            continue
        path = [p for p in path if p[0] < ind]
        gpus[-1]["/".join([*(p[1] for p in path), key])] = val
    if not gpus:
        return None

    def num(d: dict[str, str], key: str) -> int | None:
        return _int(d.get(key, ""))

    out = []
    for d in gpus:
        out.append(GpuInfo(
            pci_bus_id=d["pci"], product_name=d.get("Product Name", ""),
            uuid=d.get("GPU UUID", ""), mig_current=d.get("MIG Mode/Current", ""),
            mig_pending=d.get("MIG Mode/Pending", ""),
            fb_total_mib=num(d, "FB Memory Usage/Total"),
            fb_used_mib=num(d, "FB Memory Usage/Used"),
            fabric_state=d.get("Fabric/State", ""), fabric_status=d.get("Fabric/Status", ""),
            retired_sbe=num(d, "Retired Pages/Single Bit ECC"),
            retired_dbe=num(d, "Retired Pages/Double Bit ECC"),
            retirement_pending=d.get("Retired Pages/Pending Page Blacklist", "")
            or d.get("Retired Pages/Pending Page Retirement", ""),
            remapped_corr=num(d, "Remapped Rows/Correctable Error"),
            remapped_unc=num(d, "Remapped Rows/Uncorrectable Error"),
            remap_pending=d.get("Remapped Rows/Pending", ""),
            remap_failure=d.get("Remapped Rows/Remapping Failure Occurred", "")))
    return SmiReport(driver_version=top.get("Driver Version", ""),
                     cuda_version=top.get("CUDA Version", ""),
                     attached_gpus=_int(top.get("Attached GPUs", "")), gpus=out)


def _list(lines: list[str]) -> SmiReport | None:
    gpus = [GpuInfo(pci_bus_id="", product_name=m.group(2), uuid=m.group(3))
            for m in (_SMI_L.match(ln[:400]) for ln in lines) if m]
    return SmiReport(attached_gpus=len(gpus), gpus=gpus) if gpus else None


def parse_nvidia_smi_text(text: str) -> SmiReport | None:
    """The driver's view from nvidia-smi's text output (table, ``-q`` or ``-L``); None when the
    text holds none of them (an error such as ``Failed to initialize NVML`` or ``No devices
    were found`` says nothing about the GPUs the node has, so it gives no report)."""
    lines = text.splitlines()[:20000]
    if any("==============NVSMI LOG==============" in ln for ln in lines[:200]) or any(
            _Q_GPU.match(ln) for ln in lines[:400]):
        rep = _query(lines)
        if rep is not None:
            return rep
    rep = _table(lines)
    if rep is not None and rep.gpus:
        return rep
    # no GPU row (a header cut from the rest): no report, so the node is not taken for one
    # without GPUs
    return _list(lines)
