"""Config migrations of containerd 2.x, on plain dicts, as the release code does them.

- ``v1_migrate``: short plugin IDs -> URIs (``cri`` -> ``io.containerd.grpc.v1.cri``).
- ``cri_migrate``: the CRI plugins' ``ConfigMigration`` for a config older than the daemon's:
  the runtime plugin (``io.containerd.cri.v1.runtime``) takes the v2 ``grpc.v1.cri`` keys it
  does not have yet — top-level keys, ``cni`` keys and ``containerd`` keys one level deep
  (a ``containerd.runtimes`` table already present keeps out *all* of the v2 runtimes); the
  images plugin takes the image keys, overwriting; ``grpc.v1.cri`` keeps only the server keys.
  Sources: ``containerd/containerd@v2.2.9:plugins/cri/runtime/plugin.go`` (``migrateConfig``),
  ``…:plugins/cri/images/plugin.go``, ``…:plugins/cri/cri.go``; the fill-only rule is commit
  468079c5c (v2.0.2); 2.0.0–2.0.1 assigned the whole v2 map over the v3 section (facts.md §1.2,
  ``wholesale``). VERIFIED against the 2.0.14, 2.1.9, 2.2.9, 2.3.x and 2.4.2 binaries by
  tests/test_containerd_versions.py.
- ``service_migrate``: v3 -> v4 (2.3+) moves ``[grpc]``, ``[ttrpc]``, ``[debug]``,
  ``[metrics]`` into server plugins.
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
#: What stays in ``io.containerd.grpc.v1.cri`` (the CRI server's own settings).
GRPC_CRI_KEEP = ("disable_tcp_service", "stream_server_address", "stream_server_port",
                 "stream_idle_timeout", "enable_tls_streaming", "x509_key_pair_streaming")
#: Keys the runtime plugin's migration skips at the top level.
_RUNTIME_SKIP = ("cni", "containerd", "sandbox_image", *IMAGE_KEYS, *GRPC_CRI_KEEP)

#: serviceMigrate (v3 -> v4): top-level table -> plugin URI.
SERVICE_TABLES = {
    "grpc": "io.containerd.server.v1.grpc",
    "ttrpc": "io.containerd.server.v1.ttrpc",
    "debug": "io.containerd.server.v1.debug",
    "metrics": "io.containerd.server.v1.metrics",
}


def v1_migrate(plugins: Table) -> Table:
    return {(k if k.startswith("io.containerd.") else v1_to_uri(k)): v for k, v in plugins.items()}


def _table(t: Table, key: str) -> Table:
    v = t.get(key)
    return v if isinstance(v, dict) else {}


def _runtime_fill(dst: Table, src: Table) -> None:
    """``migrateConfig`` of the runtime plugin (2.0.2+): only keys ``dst`` lacks are taken."""
    for k, v in src.items():
        if k not in _RUNTIME_SKIP and k not in dst:
            dst[k] = copy.deepcopy(v)
    cni = src.get("cni")
    if isinstance(cni, dict):
        new = _table(dst, "cni")
        for k, v in cni.items():
            if k == "bin_dir":
                # the release asserts ``bin_dirs`` is a Go []string, which a decoded TOML array
                # never is: ``bin_dir`` always wins over a ``bin_dirs`` from a file
                new["bin_dirs"] = [v]
            elif k not in new:
                new[k] = copy.deepcopy(v)
        dst["cni"] = new
    ctd = src.get("containerd")
    if not isinstance(ctd, dict):
        return
    new_ctd = _table(dst, "containerd")
    for k, v in ctd.items():
        if k not in IMAGE_CONTAINERD_KEYS and k not in new_ctd:
            new_ctd[k] = copy.deepcopy(v)
    dst["containerd"] = new_ctd
    runtimes = new_ctd.get("runtimes")
    if isinstance(runtimes, dict):
        for rt in runtimes.values():
            if isinstance(rt, dict) and "sandbox_mode" in rt and "sandboxer" not in rt:
                rt["sandboxer"] = rt.pop("sandbox_mode")


def _runtime_wholesale(src: Table) -> Table:
    """2.0.0–2.0.1: the whole v2 map becomes the runtime section (facts.md §1.2)."""
    conf = copy.deepcopy(src)
    for key in _RUNTIME_SKIP:
        if key not in ("cni", "containerd"):
            conf.pop(key, None)
    if isinstance(conf.get("containerd"), dict):
        for key in IMAGE_CONTAINERD_KEYS:
            conf["containerd"].pop(key, None)
    cni = conf.get("cni")
    if isinstance(cni, dict) and "bin_dir" in cni:
        cni["bin_dirs"] = [cni.pop("bin_dir")]
    return conf


def _images(dst: Table, src: Table) -> None:
    """``migrateConfig`` of the images plugin: image keys move over, overwriting."""
    pinned = _table(dst, "pinned_images")
    if "sandbox_image" in src:
        pinned["sandbox"] = src["sandbox_image"]
    if pinned:
        dst["pinned_images"] = pinned
    for key in IMAGE_KEYS:
        if key in src:
            dst[key] = copy.deepcopy(src[key])
    ctd = src.get("containerd")
    if not isinstance(ctd, dict) or not isinstance(ctd.get("runtimes"), dict):
        return  # the release returns here: the snapshotter keys below stay behind
    platforms = _table(dst, "runtime_platform")
    for name, rt in ctd["runtimes"].items():
        if isinstance(rt, dict) and rt.get("snapshot"):
            platforms[name] = {"platform": "linux/amd64", "snapshotter": rt["snapshot"]}
    if platforms:
        dst["runtime_platform"] = platforms
    for key in IMAGE_CONTAINERD_KEYS:
        if key in ctd:
            dst[key] = copy.deepcopy(ctd[key])


def cri_migrate(plugins: Table, *, wholesale: bool = False) -> Table:
    """The three CRI migrations (runtime, images, grpc) on one ``plugins`` table."""
    src = plugins.get(CRI_V2)
    if not isinstance(src, dict):
        return plugins
    out = dict(plugins)
    if wholesale:
        out[CRI_RUNTIME_V3] = _runtime_wholesale(src)
    else:
        cur = out.get(CRI_RUNTIME_V3)
        rt = copy.deepcopy(cur) if isinstance(cur, dict) else {}
        _runtime_fill(rt, src)
        out[CRI_RUNTIME_V3] = rt
    cur = out.get(CRI_IMAGES_V3)
    images = copy.deepcopy(cur) if isinstance(cur, dict) else {}
    _images(images, src)
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
