"""``lspci -nn -d 10de:`` output: the NVIDIA PCI devices of a host.

Why: NVSwitch bridges mark an HGX-class system that needs Fabric Manager (seed §1,
CODES.md GX405); the GPU list tells a GPU node from a plain one. NVSwitches show as class
``Bridge [0680]`` (older pci.ids print just ``Device [10de:1af1]``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["NVSWITCH_DEVICE_IDS", "PciDevice", "parse_lspci"]

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
