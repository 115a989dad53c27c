"""The CDI specs the operator's components write on a GPU node (knowledge/cdi.py), as a node of
that shape has them.

Shapes follow the real outputs: the toolkit container's spec is the one
``NVIDIA/nvidia-container-toolkit@v1.20.0:cmd/nvidia-ctk-installer/toolkit/toolkit_test.go``
expects from the operator-mode installer (``../shared/corpus/cdi/ctk-installer-test-cdi-all``:
one ``all`` device, driver-wide edits, hooks under the toolkit install dir), written as YAML under
the kind ``management.nvidia.com/gpu``. The device plugin's is JSON
(``internal/cdi/cdi.go`` saves ``<vendor>-<class>.json``) with one device per GPU UUID, and per
MIG device UUID, as ``deviceIDStrategy: uuid`` names them; its edits follow the per-device layout
of a real host spec (``../shared/corpus/cdi/real-k3s-host-nvidia-575``).
"""

from __future__ import annotations

import hashlib
import json

import yaml

from gpuxray.knowledge import cdi as cdik

TOOLKIT_HOOK = "/usr/local/nvidia/toolkit/nvidia-cdi-hook"
DRIVER_ROOT = "/run/nvidia/driver"


def gpu_uuid(node: str, index: int) -> str:
    h = hashlib.sha1(f"{node}/{index}".encode()).hexdigest()
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def mig_uuid(node: str, index: int, instance: int) -> str:
    h = hashlib.sha1(f"{node}/{index}/mig/{instance}".encode()).hexdigest()
    return f"MIG-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _common_edits(driver_root: str, hook: str) -> dict[str, object]:
    lib = f"{driver_root}/usr/lib/x86_64-linux-gnu" if driver_root != "/" else \
        "/usr/lib/x86_64-linux-gnu"
    return {
        "env": ["NVIDIA_VISIBLE_DEVICES=void"],
        "deviceNodes": [{"path": p, "hostPath": p} for p in
                        ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
                         "/dev/nvidia-modeset")],
        "hooks": [
            {"hookName": "createContainer", "path": hook,
             "args": ["nvidia-cdi-hook", "create-symlinks", "--link",
                      "libcuda.so.1::/usr/lib/x86_64-linux-gnu/libcuda.so"],
             "env": ["NVIDIA_CTK_DEBUG=false"]},
            {"hookName": "createContainer", "path": hook,
             "args": ["nvidia-cdi-hook", "update-ldcache", "--folder",
                      "/usr/lib/x86_64-linux-gnu"],
             "env": ["NVIDIA_CTK_DEBUG=false"]},
        ],
        "mounts": [{"hostPath": f"{lib}/libcuda.so.580.95.05",
                    "containerPath": "/usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05",
                    "options": ["ro", "nosuid", "nodev", "rbind", "rprivate"]}],
    }


def management_spec(gpus: int, *, driver_root: str = DRIVER_ROOT) -> str:
    """``/var/run/cdi/management.nvidia.com-gpu.yaml`` as the toolkit container writes it."""
    doc = {"cdiVersion": "0.5.0", "kind": cdik.TOOLKIT_SPEC.kind,
           "devices": [{"name": "all", "containerEdits": {"deviceNodes": [
               {"path": f"/dev/nvidia{i}", "hostPath": f"/dev/nvidia{i}"}
               for i in range(gpus)]}}],
           "containerEdits": _common_edits(driver_root, TOOLKIT_HOOK)}
    return "---\n" + yaml.safe_dump(doc, sort_keys=False)


def device_plugin_spec(node: str, gpus: int, *, mig_per_gpu: int = 0,
                       driver_root: str = DRIVER_ROOT, hook: str = TOOLKIT_HOOK) -> str:
    """``/var/run/cdi/k8s.device-plugin.nvidia.com-gpu.json``: one device per GPU UUID, and with
    MIG on one per MIG device UUID (what the plugin advertises)."""
    devices: list[dict[str, object]] = []
    for i in range(gpus):
        nodes = [{"path": f"/dev/nvidia{i}", "hostPath": f"/dev/nvidia{i}"}]
        if mig_per_gpu:
            for m in range(mig_per_gpu):
                devices.append({"name": mig_uuid(node, i, m), "containerEdits": {
                    "deviceNodes": [*nodes, {"path": f"/dev/nvidia-caps/nvidia-cap{10 + m}",
                                             "hostPath": f"/dev/nvidia-caps/nvidia-cap{10 + m}"}]}})
        else:
            devices.append({"name": gpu_uuid(node, i), "containerEdits": {"deviceNodes": nodes}})
    doc = {"cdiVersion": "0.5.0", "kind": cdik.DEVICE_PLUGIN_SPEC.kind, "devices": devices,
           "containerEdits": _common_edits(driver_root, hook)}
    return json.dumps(doc)
