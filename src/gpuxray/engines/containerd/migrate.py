"""Config migrations of containerd 2.x (facts.md §1.2, §1.3), on plain dicts.

- ``v1_migrate``: short plugin IDs -> URIs (``cri`` -> ``io.containerd.grpc.v1.cri``).
- ``cri_migrate``: the v2 -> v3 CRI split. The whole ``io.containerd.grpc.v1.cri`` map is
  assigned to ``io.containerd.cri.v1.runtime`` (**overwriting** an existing v3 runtime section),
  image keys move to ``io.containerd.cri.v1.images``, and ``grpc.v1.cri`` keeps only
  ``disable_tcp_service``.
- ``service_migrate``: v3 -> v4 (2.3) moves ``[grpc]``, ``[ttrpc]``, ``[debug]``, ``[metrics]``
  into server plugins.

All pinned from facts.md (containerd source read, not run): no 2.x binary is available here.
"""

from __future__ import annotations

import copy
from typing import Any

from gpuxray.engines.containerd.defaults import CRI_IMAGES_V3, CRI_RUNTIME_V3, CRI_V2, v1_to_uri

Table = dict[str, Any]

#: Top-level keys of ``io.containerd.grpc.v1.cri`` that move to the v3 images plugin.
IMAGE_KEYS = ("registry", "image_decryption", "max_concurrent_downloads",
              "image_pull_progress_timeout", "image_pull_with_sync_fs", "stats_collect_period")
#: Keys under ``containerd`` that move to the v3 images plugin.
IMAGE_CONTAINERD_KEYS = ("snapshotter", "disable_snapshot_annotations", "discard_unpacked_layers")
#: What stays in ``io.containerd.grpc.v1.cri`` after the split.
GRPC_CRI_KEEP = ("disable_tcp_service",)

#: serviceMigrate (v3 -> v4): top-level table -> plugin URI.
SERVICE_TABLES = {
    "grpc": "io.containerd.server.v1.grpc",
    "ttrpc": "io.containerd.server.v1.ttrpc",
    "debug": "io.containerd.server.v1.debug",
    "metrics": "io.containerd.server.v1.metrics",
}


def v1_migrate(plugins: Table) -> Table:
    return {(k if k.startswith("io.containerd.") else v1_to_uri(k)): v for k, v in plugins.items()}


def cri_migrate(plugins: Table) -> Table:
    """The 2.x CRI ConfigMigration for ``version < 3`` (runtime, images, grpc parts)."""
    src = plugins.get(CRI_V2)
    if not isinstance(src, dict):
        return plugins
    out = dict(plugins)
    conf = copy.deepcopy(src)
    runtimes = conf.get("containerd", {}).get("runtimes", {}) if isinstance(
        conf.get("containerd"), dict) else {}
    if isinstance(runtimes, dict):
        for rt in runtimes.values():
            if isinstance(rt, dict) and "sandbox_mode" in rt and "sandboxer" not in rt:
                rt["sandboxer"] = rt["sandbox_mode"]
    # Keys that moved elsewhere are unknown to the runtime plugin (ignored when decoded); drop
    # them from the copy so each setting is attributed to the one plugin that reads it.
    for key in (*IMAGE_KEYS, *GRPC_CRI_KEEP, "sandbox_image"):
        conf.pop(key, None)
    if isinstance(conf.get("containerd"), dict):
        for key in IMAGE_CONTAINERD_KEYS:
            conf["containerd"].pop(key, None)
    out[CRI_RUNTIME_V3] = conf  # wholesale: overwrites any v3 runtime section
    images = copy.deepcopy(plugins.get(CRI_IMAGES_V3) or {})
    if not isinstance(images, dict):
        images = {}
    if "sandbox_image" in src:
        pinned = images.setdefault("pinned_images", {})
        if isinstance(pinned, dict):
            pinned["sandbox"] = src["sandbox_image"]
    for key in IMAGE_KEYS:
        if key in src:
            images[key] = copy.deepcopy(src[key])
    ctd = src.get("containerd")
    if isinstance(ctd, dict):
        for key in IMAGE_CONTAINERD_KEYS:
            if key in ctd:
                images[key] = copy.deepcopy(ctd[key])
    if images:
        out[CRI_IMAGES_V3] = images
    out[CRI_V2] = {k: src[k] for k in GRPC_CRI_KEEP if k in src}
    return out


def service_migrate(data: Table) -> Table:
    out = dict(data)
    plugins = dict(out.get("plugins") or {})
    for table, uri in SERVICE_TABLES.items():
        if isinstance(out.get(table), dict):
            plugins.setdefault(uri, {}).update(out.pop(table))
    out["plugins"] = plugins
    return out
