"""Plugin defaults and plugin-ID tables, per containerd line (knowledge as data).

Keys a winning plugin section lacks fall back to the plugin's *built-in* defaults, not to an
earlier file (facts.md §1.1, "Decode unmarshals the tree onto p.Config"). Only the CRI plugin
is modelled: it holds the runtime handlers, the default runtime, the sandbox image, registry,
CNI and CDI — what GPU pods depend on.

Provenance:
- 1.x values are VERIFIED against ``containerd config dump`` of Debian's 1.6.20 (no CDI keys in
  1.6; ``enable_cdi``/``cdi_spec_dirs`` appeared in 1.7, default off).
- 1.7 and 2.x values are VERIFIED against ``containerd config default``/``config dump`` of the
  releases tests/test_containerd_versions.py runs (1.7.27, 2.0.14, 2.1.9, 2.2.9, 2.3.4, 2.3.7,
  2.4.2); only the keys the checks read are modelled.
"""

from __future__ import annotations

from typing import Any

from gpuxray.engines.containerd.versions import Line, Ver

CRI_V2 = "io.containerd.grpc.v1.cri"
CRI_RUNTIME_V3 = "io.containerd.cri.v1.runtime"
CRI_IMAGES_V3 = "io.containerd.cri.v1.images"

#: v1 (short ID) -> v2 (URI) plugin names, as ``v1Migrate`` and the 1.x ``Decode`` use them
#: (facts.md §1.2). Unknown short IDs become ``io.containerd.grpc.v1.<id>``.
V1_IDS: dict[str, str] = {
    "cri": CRI_V2,
    "overlayfs": "io.containerd.snapshotter.v1.overlayfs",
    "native": "io.containerd.snapshotter.v1.native",
    "btrfs": "io.containerd.snapshotter.v1.btrfs",
    "devmapper": "io.containerd.snapshotter.v1.devmapper",
    "zfs": "io.containerd.snapshotter.v1.zfs",
    "aufs": "io.containerd.snapshotter.v1.aufs",
    "bolt": "io.containerd.metadata.v1.bolt",
    "scheduler": "io.containerd.gc.v1.scheduler",
    "cgroups": "io.containerd.monitor.v1.cgroups",
    "linux": "io.containerd.runtime.v1.linux",
    "task": "io.containerd.runtime.v2.task",
    "opt": "io.containerd.internal.v1.opt",
    "restart": "io.containerd.internal.v1.restart",
}


def v1_to_uri(key: str) -> str:
    if key in V1_IDS:
        return V1_IDS[key]
    if key.endswith("-service"):
        return f"io.containerd.service.v1.{key}"
    return f"io.containerd.grpc.v1.{key}"


_RUNC_OPTIONS_1X: dict[str, Any] = {
    "BinaryName": "", "CriuImagePath": "", "CriuPath": "", "CriuWorkPath": "", "IoGid": 0,
    "IoUid": 0, "NoNewKeyring": False, "NoPivotRoot": False, "Root": "", "ShimCgroup": "",
    "SystemdCgroup": False,
}


def _cri_1x(ver: Ver) -> dict[str, Any]:
    cri: dict[str, Any] = {
        "sandbox_image": "registry.k8s.io/pause:3.6" if ver < (1, 7, 0)
        else "registry.k8s.io/pause:3.8",
        "max_concurrent_downloads": 3,
        "disable_tcp_service": True,
        "cni": {"bin_dir": "/opt/cni/bin", "conf_dir": "/etc/cni/net.d", "max_conf_num": 1},
        "containerd": {
            "default_runtime_name": "runc",
            "snapshotter": "overlayfs",
            "runtimes": {"runc": {"runtime_type": "io.containerd.runc.v2",
                                  "options": dict(_RUNC_OPTIONS_1X)}},
        },
        "registry": {"config_path": ""},
    }
    if ver >= (1, 7, 0):
        cri["enable_cdi"] = False
        cri["cdi_spec_dirs"] = ["/etc/cdi", "/var/run/cdi"]
    return cri


#: The 2.x sandbox (pause) image default (``internal/cri/config/config.go``
#: ``DefaultSandboxImage``): 3.10 in 2.0/2.1, 3.10.1 in 2.2, 3.10.2 from 2.3 — measured on 2.0.14,
#: 2.1.9, 2.2.9, 2.3.4, 2.3.7 and 2.4.2 (the patch release that moved each line is not pinned).
_SANDBOX_2X: tuple[tuple[Ver, str], ...] = (
    ((2, 3, 0), "registry.k8s.io/pause:3.10.2"),
    ((2, 2, 0), "registry.k8s.io/pause:3.10.1"),
    ((0, 0, 0), "registry.k8s.io/pause:3.10"),
)

#: 2.4 has no ``enable_cdi`` switch: CDI is always on and the key is an unknown one (ignored
#: with a warning). VERIFIED: ``containerd/containerd@v2.4.2:internal/cri/config/config.go`` has
#: no such field and the 2.4.2 dump prints none.
CDI_ALWAYS_ON_FROM: Ver = (2, 4, 0)


def _sandbox_2x(ver: Ver) -> str:
    return next(img for lo, img in _SANDBOX_2X if ver >= lo)


def _cri_2x(ver: Ver) -> dict[str, dict[str, Any]]:
    return {
        CRI_RUNTIME_V3: {
            **({} if ver >= CDI_ALWAYS_ON_FROM else {"enable_cdi": True}),
            "cdi_spec_dirs": ["/etc/cdi", "/var/run/cdi"],
            "cni": {"bin_dirs": ["/opt/cni/bin"], "conf_dir": "/etc/cni/net.d",
                    "max_conf_num": 1},
            "containerd": {
                "default_runtime_name": "runc",
                "runtimes": {"runc": {"runtime_type": "io.containerd.runc.v2",
                                      "options": {"SystemdCgroup": False}}},
            },
        },
        CRI_IMAGES_V3: {
            "snapshotter": "overlayfs",
            "pinned_images": {"sandbox": _sandbox_2x(ver)},
            "registry": {"config_path": ""},
        },
    }


def plugin_defaults(line: Line, ver: Ver) -> dict[str, dict[str, Any]]:
    """Built-in defaults of the modelled plugins, keyed by the line's plugin URI."""
    if line is Line.V1:
        return {CRI_V2: _cri_1x(ver)}
    return _cri_2x(ver)


#: Maps that a plugin section *replaces* instead of merging into the defaults when decoded:
#: VERIFIED on 1.6.20 and 1.7.27 — a section that names any runtime loses the default ``runc``.
#: 2.x decodes into the default map, so ``runc`` stays next to what the files add (facts.md §0,
#: VERIFIED on every 2.x binary).
REPLACED_MAPS: tuple[tuple[str, ...], ...] = (("containerd", "runtimes"),)


def replaced_maps(line: Line) -> tuple[tuple[str, ...], ...]:
    return REPLACED_MAPS if line is Line.V1 else ()


def runtime_plugin(line: Line) -> str:
    """The plugin key holding ``containerd.runtimes`` and ``default_runtime_name``."""
    return CRI_V2 if line is Line.V1 else CRI_RUNTIME_V3


def images_plugin(line: Line) -> str:
    return CRI_V2 if line is Line.V1 else CRI_IMAGES_V3


#: 2.x: the default import pattern (facts.md §1.2, ``DefaultConfigIncludePattern``) — in the
#: defaults since 2.2.0 but followed only when config.toml itself lists it.
DEFAULT_INCLUDE_PATTERN = "/etc/containerd/conf.d/*.toml"
