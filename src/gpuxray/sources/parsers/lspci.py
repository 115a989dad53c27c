"""``lspci -nn -d 10de:`` output: the NVIDIA PCI devices of a host.

Why: NVSwitch bridges mark an HGX-class system that needs Fabric Manager (seed §1,
CODES.md GX405); the GPU list tells a GPU node from a plain one. NVSwitches show as class
``Bridge [0680]`` (older pci.ids print just ``Device [10de:1af1]``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["NVSWITCH_DEVICE_IDS", "PciDevice", "bound_drivers", "parse_lspci"]

# NVSwitch PCI device IDs for hosts whose pci.ids is too old
# to name them.
NVSWITCH_DEVICE_IDS = frozenset({"1af1", "22a3"})  # A100 (GA100) and H100 (GH100) NVSwitch

_LINE = re.compile(
    r"^(?P<slot>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+"
    r"(?P<cls>.+?)\s*\[(?P<code>[0-9a-fA-F]{4})\]:\s*(?P<desc>.*?)\s*"
    r"\[(?P<vendor>[0-9a-fA-F]{4}):(?P<device>[0-9a-fA-F]{4})\]"
    r"(?:\s*\(rev (?P<rev>[0-9a-fA-F]+)\))?\s*$"
)


@dataclass(frozen=True, slots=True)
class PciDevice:
    slot: str
    class_name: str
    class_code: str
    description: str
    vendor: str
    device: str
    rev: str
    lineno: int

    @property
    def is_nvswitch(self) -> bool:
        return self.vendor == "10de" and (
            self.class_code == "0680" or "nvswitch" in self.description.lower()
            or self.device in NVSWITCH_DEVICE_IDS)

    @property
    def is_gpu(self) -> bool:
        """Display (03xx) class devices are GPUs; audio functions and bridges are not."""
        return self.vendor == "10de" and self.class_code.startswith("03")


def parse_lspci(text: str) -> list[PciDevice]:
    out: list[PciDevice] = []
    for i, raw in enumerate(text.splitlines(), start=1):
        m = _LINE.match(raw.strip())
        if not m:
            continue
        out.append(PciDevice(
            slot=m.group("slot").lower(), class_name=m.group("cls"),
            class_code=m.group("code").lower(), description=m.group("desc"),
            vendor=m.group("vendor").lower(), device=m.group("device").lower(),
            rev=m.group("rev") or "", lineno=i))
    return out


# ``lspci -k`` / ``-v``: a device's header line, then indented ``Kernel driver in use: <drv>``
# (pciutils@v3.13.0:ls-kernel.c show_kernel); without ``-nn`` the header has no [10de:…] ids
_HEAD = re.compile(r"^(?P<slot>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+"
                   r"(?P<desc>[^:\n]{1,80}(?:\[[0-9a-fA-F]{4}\])?:\s.{0,300})$")
_IN_USE = re.compile(r"^[ \t]+Kernel driver in use:[ \t]*(?P<drv>[\w-]{1,40})[ \t]*$")
_DISPLAY = re.compile(r"VGA compatible controller|3D controller|Display controller|"
                      r"\[03[0-9a-f]{2}\]", re.I)


def bound_drivers(text: str) -> list[tuple[str, str, int]]:
    """(slot, driver, line) for every NVIDIA display device ``lspci -k`` shows a driver bound
    to: what the kernel bound the GPU to (``nouveau`` holds it away from ``nvidia``)."""
    out: list[tuple[str, str, int]] = []
    slot = ""
    for i, raw in enumerate(text.splitlines()[:20000], start=1):
        line = raw[:4096]
        h = _HEAD.match(line.strip()) if line[:1] not in (" ", "\t") else None
        if h:
            desc = h.group("desc")
            nvidia = "NVIDIA" in desc or "[10de:" in desc.lower()
            slot = h.group("slot").lower() if nvidia and _DISPLAY.search(desc) else ""
            continue
        m = _IN_USE.match(line)
        if m and slot:
            out.append((slot, m.group("drv"), i))
            slot = ""
    return out
