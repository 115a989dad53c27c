"""NVIDIA Container Toolkit releases whose containers could fail to start, and the release that
fixed it (seed §2 gate 2: the hook the runtime calls is where the driver gets into the
container; a bug there fails every GPU container of the node however the rest is set up).

Why as data: a ticket often shows only the toolkit's version (``nvidia-ctk --version``,
``nvidia-cdi-hook --version``, a package list) beside a container that will not start; a
release the project itself fixed names the cause, and the fix names the remedy. Only releases
the toolkit's own changelog says failed (a container that could not start, a CDI spec that could
not be generated) are listed, each with the changelog of the release that fixed it. A fix that
changed what a setting does is not one: v1.14.1 made the hook read config.toml, which v1.14.0
ignored, so a setting the file held (``no-cgroups``) took effect only on the upgrade — the
release a ticket shows does not say which side of that change its failure is on.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TOOLKIT_START_FIXES", "ToolkitFix"]

_LOG = "NVIDIA/nvidia-container-toolkit@{tag}:CHANGELOG.md"


@dataclass(frozen=True, slots=True)
class ToolkitFix:
    broken: tuple[int, int, int]  # the release (and its release candidates) with the bug
    fixed: str  # the first release without it
    what: str
    source: str


TOOLKIT_START_FIXES: tuple[ToolkitFix, ...] = (
    ToolkitFix((1, 17, 0), "1.17.1",
               "a symlink that exists in the container image could make the create-symlinks "
               "hook fail the container's start",
               _LOG.format(tag="v1.17.1") + " (\"Fixed a bug where specific symlinks existing "
               "in a container image could cause a container to fail to start\")"),
    ToolkitFix((1, 16, 0), "1.16.1",
               "CDI spec generation for MIG devices stopped on processing errors",
               _LOG.format(tag="v1.16.1")),
    ToolkitFix((1, 13, 0), "1.13.1",
               "CDI spec generation failed when libcuda could not be located during XOrg "
               "library discovery, and on systems using /etc/alternatives",
               _LOG.format(tag="v1.13.1")),
)
