"""How the driver container's image tag follows the node's OS and kernel (seed §3).

Why it matters: a driver container is built for one OS release — its tag is
``<driver version>-<os>`` (``580.95.05-ubuntu22.04``) — and a precompiled one also for one kernel,
``<branch>-<kernel>-<os>`` (``535-5.15.0-126-generic-ubuntu22.04``). Driver-container mode
therefore needs GPU nodes on a uniform OS, unless NVIDIADriver CRs split them into pools
(seed §3: "all GPU nodes must run the same OS version"; precompiled images need a matching kernel).

The operator builds the OS part from the NFD labels ``system-os_release.ID`` and ``.VERSION_ID``
of a GPU node, and since v26.3 drops the minor version for some distributions
(:data:`OS_TAG_RULES`). Without those labels, ``OS_RELEASE`` recovers ``(ID, VERSION_ID)`` from
``status.nodeInfo.osImage`` (what ``kubectl get nodes -o wide`` prints as OS-IMAGE; it is the
os-release ``PRETTY_NAME``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuxray.knowledge.support import parse_version

NFD_OS_ID = "feature.node.kubernetes.io/system-os_release.ID"
NFD_OS_VERSION_ID = "feature.node.kubernetes.io/system-os_release.VERSION_ID"

# osImage (PRETTY_NAME) pattern -> (os-release ID, VERSION_ID template over the match groups).
# The IDs are the os-release ``ID`` values the operator's tables key on
# (NVIDIA/gpu-operator@v26.7.0:controllers/object_controls.go, repo/cert path maps: ubuntu, rhel,
# rocky, ol, rhcos, sles, sl-micro).
OS_RELEASE: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"^Ubuntu (\d+\.\d+)"), "ubuntu", "{0}"),
    (re.compile(r"^Red Hat Enterprise Linux CoreOS (\d)(\d+)"), "rhcos", "{0}.{1}"),
    (re.compile(r"^Red Hat Enterprise Linux(?: Server)? (\d+(?:\.\d+)?)"), "rhel", "{0}"),
    (re.compile(r"^Rocky Linux (\d+(?:\.\d+)?)"), "rocky", "{0}"),
    (re.compile(r"^Oracle Linux Server (\d+(?:\.\d+)?)"), "ol", "{0}"),
    (re.compile(r"^CentOS(?: Linux| Stream)? (\d+)"), "centos", "{0}"),
    (re.compile(r"^Debian GNU/Linux (\d+)"), "debian", "{0}"),
    (re.compile(r"^SUSE Linux Enterprise Server (\d+)(?: SP(\d+))?"), "sles", "{0}.{1}"),
)


SOURCES: dict[str, str] = {
    "OS_RELEASE": "https://www.freedesktop.org/software/systemd/man/latest/os-release.html "
                  "(ID, VERSION_ID, PRETTY_NAME); NVIDIA/gpu-operator@v26.7.0:"
                  "controllers/object_controls.go (the IDs it keys on)",
}


@dataclass(frozen=True, slots=True)
class OsTagRule:
    """From operator release ``since``: IDs whose tag keeps only the major version
    (``major_only``), and IDs that do so from a major version on (``major_only_from``)."""

    since: tuple[int, int, int]
    major_only: frozenset[str]
    major_only_from: tuple[tuple[str, int], ...]
    source: str


OS_TAG_RULES: tuple[OsTagRule, ...] = (
    OsTagRule((0, 0, 0), frozenset(), (),
              "NVIDIA/gpu-operator@v25.10.1:controllers/state_manager.go (getGPUNodeOSTag: "
              "ID + VERSION_ID)"),
    OsTagRule((26, 3, 0), frozenset({"rocky"}), (("rhel", 10),),
              "NVIDIA/gpu-operator@v26.3.0:controllers/state_manager.go (getGPUNodeOSTag: rocky "
              "and RHEL >= 10 omit the minor version)"),
    OsTagRule((26, 7, 0), frozenset({"ol", "rocky", "rhel"}), (),
              "NVIDIA/gpu-operator@v26.7.0:controllers/state_manager.go, "
              "internal/state/nodepool.go (getOSTag: ol, rocky, rhel omit the minor version)"),
)


def os_release(os_image: str, labels: dict[str, str] | None = None) -> tuple[str, str] | None:
    """``(ID, VERSION_ID)`` of a node: the NFD labels when present, else from osImage."""
    if labels and labels.get(NFD_OS_ID) and labels.get(NFD_OS_VERSION_ID):
        return labels[NFD_OS_ID], labels[NFD_OS_VERSION_ID]
    for pat, os_id, tmpl in OS_RELEASE:
        m = pat.match(os_image.strip())
        if m:
            return os_id, tmpl.format(*(g or "0" for g in m.groups()))
    return None


def tag_rule(operator: str | None) -> OsTagRule:
    """The rule of an operator release (its version text); the newest rule when unknown."""
    ver = parse_version(operator) if operator else None
    if ver is None:
        return OS_TAG_RULES[-1]
    return [r for r in OS_TAG_RULES if r.since <= ver][-1]


def os_tag(os_image: str, operator: str | None = None,
           labels: dict[str, str] | None = None) -> str:
    """The OS part of a driver image tag, as ``operator`` builds it; the raw osImage when the
    OS is not known."""
    rel = os_release(os_image, labels)
    if rel is None:
        return os_image.strip() or "<unknown os>"
    os_id, version = rel
    rule = tag_rule(operator)
    major = version.split(".", 1)[0]
    if os_id in rule.major_only or any(
            os_id == i and major.isdigit() and int(major) >= m for i, m in rule.major_only_from):
        version = major
    return f"{os_id}{version}"


def driver_branch(version: str) -> str:
    """``580.95.05`` → ``580``; a bare branch stays as it is."""
    return version.split(".", 1)[0]


def precompiled_tag(branch: str, kernel: str, os_image: str, operator: str | None = None,
                    labels: dict[str, str] | None = None) -> str:
    return f"{branch}-{kernel}-{os_tag(os_image, operator, labels)}"
