"""Support matrix: GPU Operator release status and which GPU products the platform supports.

Why: the seed's author ran v26.3.3 on a consumer card and reads both as "outside support": 26.3.x
is *Deprecated*, 26.7.x *Supported*, and consumer GPUs are not on the supported product list
(seed §3, §6). Releases older than the deprecated line are end of life.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SUPPORTED, DEPRECATED, EOL = "Supported", "Deprecated", "EOL"

# (major, minor) release line -> status, as of the seed's checked date (seed §3, §10)
OPERATOR_LINES: dict[tuple[int, int], str] = {
    (26, 7): SUPPORTED,
    (26, 3): DEPRECATED,
}
NEWEST_KNOWN = max(OPERATOR_LINES)

PLATFORM_SUPPORT = ("https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"
                    "platform-support.html")

_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")


def parse_version(text: str) -> tuple[int, int, int] | None:
    """``v25.10.1`` / ``25.10.1`` / an image ``…/gpu-operator:v25.10.1`` → (25, 10, 1)."""
    text = text.split("@", 1)[0]  # drop an image digest
    tag = text.rsplit(":", 1)[-1] if ":" in text else text
    m = _VERSION.search(tag)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def operator_status(version: tuple[int, int, int]) -> str:
    """Status of a release; lines newer than the table are taken as Supported."""
    line = version[:2]
    if line in OPERATOR_LINES:
        return OPERATOR_LINES[line]
    if line > NEWEST_KNOWN:
        return SUPPORTED
    return EOL


@dataclass(frozen=True, slots=True)
class ProductRule:
    pattern: str
    supported: bool
    family: str


# First match wins. Data-centre and professional parts are on the platform-support list;
# GeForce/TITAN and consumer RTX xx60–xx90 cards are not (seed §3, §6).
PRODUCT_RULES: tuple[ProductRule, ...] = (
    ProductRule(r"geforce", False, "GeForce (consumer)"),
    ProductRule(r"titan", False, "TITAN (consumer)"),
    ProductRule(r"(?<![a-z])rtx[- ]?[2-5]0[5-9]0(?![0-9])", False, "GeForce RTX (consumer)"),
    ProductRule(r"(?<![a-z0-9])(?:gb|gh|b|h|a|l)[0-9]{1,3}[a-z]?(?![0-9])", True, "data center"),
    ProductRule(r"(?<![a-z0-9])(?:t4|v100|p100|p40|p4)(?![0-9])", True, "data center"),
    ProductRule(r"rtx[- ]?pro|rtx[- ]?a[0-9]{4}|quadro", True, "professional"),
)
_COMPILED = tuple((re.compile(r.pattern, re.IGNORECASE), r) for r in PRODUCT_RULES)

# Citations of the tables.
SOURCES: dict[str, str] = {
    "OPERATOR_LINES": f"{PLATFORM_SUPPORT} (\"26.7.x Supported / 26.3.x Deprecated / 25.10.x "
                      "and lower End of Support\")",
    "PRODUCT_RULES": f"{PLATFORM_SUPPORT} (supported NVIDIA GPUs)",
    "_COMPILED": f"{PLATFORM_SUPPORT} (PRODUCT_RULES, compiled)",
}


def product_rule(product: str) -> ProductRule | None:
    """The rule matching a GFD ``nvidia.com/gpu.product`` value, or None when unknown."""
    text = product.replace("_", "-")
    for rx, rule in _COMPILED:
        if rx.search(text):
            return rule
    return None
