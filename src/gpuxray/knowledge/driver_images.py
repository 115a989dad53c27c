"""How the driver container's image tag follows the node's OS and kernel (seed §3).

Why it matters: a driver container is built for one OS release — its tag is
``<driver version>-<os>`` (``580.95.05-ubuntu22.04``) — and a precompiled one also for one kernel,
``<branch>-<kernel>-<os>`` (``535-5.15.0-126-generic-ubuntu22.04``). Driver-container mode
therefore needs GPU nodes on a uniform OS, unless NVIDIADriver CRs split them into pools
(seed §3: "all GPU nodes must run the same OS version"; precompiled images need a matching kernel).

``OS_TAGS`` maps ``status.nodeInfo.osImage`` (what ``kubectl get nodes -o wide`` prints as
OS-IMAGE) to the OS part of the tag.
"""

from __future__ import annotations

import re

# (pattern over osImage, tag template using the match groups)
OS_TAGS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^Ubuntu (\d+\.\d+)"), "ubuntu{0}"),
    (re.compile(r"^Red Hat Enterprise Linux CoreOS (\d)(\d+)"), "rhcos{0}.{1}"),
    (re.compile(r"^Red Hat Enterprise Linux(?: Server)? (\d+(?:\.\d+)?)"), "rhel{0}"),
    (re.compile(r"^Rocky Linux (\d+(?:\.\d+)?)"), "rocky{0}"),
    (re.compile(r"^CentOS(?: Linux| Stream)? (\d+)"), "centos{0}"),
    (re.compile(r"^Debian GNU/Linux (\d+)"), "debian{0}"),
    (re.compile(r"^SUSE Linux Enterprise Server (\d+)(?: SP(\d+))?"), "sles{0}.{1}"),
)


def os_tag(os_image: str) -> str:
    """The OS part of a driver image tag for an osImage; the raw text when unknown."""
    for pat, tmpl in OS_TAGS:
        m = pat.match(os_image.strip())
        if m:
            return tmpl.format(*(g or "0" for g in m.groups()))
    return os_image.strip() or "<unknown os>"


def driver_branch(version: str) -> str:
    """``580.95.05`` → ``580``; a bare branch stays as it is."""
    return version.split(".", 1)[0]


def precompiled_tag(branch: str, kernel: str, os_image: str) -> str:
    return f"{branch}-{kernel}-{os_tag(os_image)}"
