"""The last driver branch that drives each older GPU generation, and the cloud instance families
that carry those GPUs.

Why: a driver branch stops supporting a GPU generation for good (Kepler after R470; Maxwell,
Pascal and Volta after R580), and an installer that picks the current branch on such a node
builds a module that never binds the GPU (GX416; seed §3, the support matrix). A ticket often
names only the instance type, so the instance family is the GPU's name there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# NVIDIA's list of current and legacy Unix releases: 470.x is the legacy branch of the GKxxx
# "Kepler" GPUs (https://forums.developer.nvidia.com/t/current-graphics-driver-releases/28500);
# Debian's nvidia-tesla-470 package: "the last driver series supporting" Kepler
# (https://packages.debian.org/bookworm/nvidia-tesla-470-kernel-dkms).
KEPLER_SOURCE = "https://forums.developer.nvidia.com/t/current-graphics-driver-releases/28500"
# R580 is the legacy branch of Maxwell through Volta (the NixOS wiki's NVIDIA page, legacy_580,
# "Maxwell-Volta": https://wiki.nixos.org/wiki/NVIDIA).
MAXWELL_VOLTA_SOURCE = "https://wiki.nixos.org/wiki/NVIDIA"


KEPLER_LAST = 470


@dataclass(frozen=True)
class Generation:
    name: str
    last_branch: int  # the newest driver branch that still drives it
    products: re.Pattern[str]  # product names as nvidia-smi, lspci or GFD labels print them
    source: str


GENERATIONS: tuple[Generation, ...] = (
    Generation("Kepler", KEPLER_LAST, re.compile(
        r"\b(?:tesla[ -]?|grid[ -]?)?k(?:80|520)\b(?![.\d])|"
        r"\b(?:tesla|grid)[ -]k(?:40[cm]?|20[cmx]?|10|1|2)\b(?![.\d])", re.I),
        KEPLER_SOURCE),
    Generation("Maxwell", 580, re.compile(r"\btesla[ -]m(?:60|40|10|6|4)\b", re.I),
               MAXWELL_VOLTA_SOURCE),
    Generation("Pascal", 580, re.compile(r"\btesla[ -]p(?:100|40|6|4)\b", re.I),
               MAXWELL_VOLTA_SOURCE),
    Generation("Volta", 580, re.compile(r"\btesla[ -]v100\b", re.I), MAXWELL_VOLTA_SOURCE),
)


@dataclass(frozen=True)
class InstanceFamily:
    pattern: re.Pattern[str]
    gpu: str
    source: str


# Instance types whose GPU is one of the generations above, as a node label, a node group's
# machine type or a create command names them.
INSTANCE_FAMILIES: tuple[InstanceFamily, ...] = (
    InstanceFamily(re.compile(r"\bp2\.(?:8|16)?xlarge\b", re.I), "Tesla K80",
                   "https://aws.amazon.com/ec2/instance-types/p2/"),
    InstanceFamily(re.compile(r"\bg2\.(?:2|8)xlarge\b", re.I), "GRID K520",
                   "https://aws.amazon.com/ec2/previous-generation/"),
    InstanceFamily(re.compile(r"\bstandard_nc(?:6|12|24r?)(?:_promo)?\b(?!s_|_v)", re.I),
                   "Tesla K80",
                   "https://learn.microsoft.com/azure/virtual-machines/nc-series"),
    InstanceFamily(re.compile(r"\bnvidia-tesla-k80\b", re.I), "Tesla K80",
                   "https://cloud.google.com/compute/docs/gpus"),
    InstanceFamily(re.compile(r"\bp3(?:dn)?\.(?:2|8|16|24)xlarge\b", re.I), "Tesla V100",
                   "https://aws.amazon.com/ec2/instance-types/p3/"),
    InstanceFamily(re.compile(r"\bg3s?\.(?:x|4x|8x|16x)large\b", re.I), "Tesla M60",
                   "https://aws.amazon.com/ec2/instance-types/g3/"),
)


def generation_of(product: str) -> Generation | None:
    """The legacy generation a product name belongs to, or None (current generations)."""
    for gen in GENERATIONS:
        if gen.products.search(product):
            return gen
    return None
