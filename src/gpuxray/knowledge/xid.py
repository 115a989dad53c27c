"""The Xid catalog (facts.md §8): what each Xid means and what the device plugin does.

Mnemonics are the driver's (``nverror.h``); meanings are the NVIDIA Xid catalog's words in
short. ``critical`` is the NVIDIA device plugin's view (``internal/rm/health.go``): every Xid
not on its application-error list marks the GPU unhealthy, and it never marks it healthy
again until the plugin restarts (``FIXME: there is no way to recover from the Unhealthy
state``). ``skipped_since`` is the plugin version that added the Xid to that list (109 in
v0.17.1; the others have always been there). Severity is what gpuxray reports.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuxray.knowledge.severity import Severity

__all__ = ["XID_CATALOG", "XidInfo", "xid_info"]


@dataclass(frozen=True, slots=True)
class XidInfo:
    xid: int
    mnemonic: str
    meaning: str
    critical: bool
    severity: Severity
    skipped_since: str = ""


E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def _crit(xid: int, mnemonic: str, meaning: str) -> XidInfo:
    return XidInfo(xid, mnemonic, meaning, True, E)


def _app(xid: int, mnemonic: str, meaning: str, sev: Severity, since: str = "") -> XidInfo:
    return XidInfo(xid, mnemonic, meaning, False, sev, since)


_ROWS: tuple[XidInfo, ...] = (
    _app(13, "ROBUST_CHANNEL_GR_EXCEPTION", "graphics engine exception, usually an app fault", W),
    _app(31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT",
         "GPU memory page fault (MMU fault), usually an app bad address", W),
    _crit(32, "ROBUST_CHANNEL_PBDMA_ERROR", "invalid or corrupted push buffer stream (PBDMA)"),
    _app(43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR",
         "GPU stopped processing (channel reset after an app fault)", INFO),
    _app(45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", "preemptive cleanup, due to previous errors",
         INFO),
    _crit(48, "ROBUST_CHANNEL_GPU_ECC_DBE", "double-bit (uncorrectable) ECC error"),
    _crit(61, "PMU_BREAKPOINT", "internal micro-controller breakpoint or warning"),
    _crit(62, "PMU_HALT_ERROR", "internal micro-controller halt"),
    _crit(63, "INFOROM_PAGE_RETIREMENT_EVENT",
          "page retired, or on A100+ a row marked for remapping (reset the GPU to activate)"),
    _crit(64, "INFOROM_PAGE_RETIREMENT_FAILURE", "page retirement or row-remap failure"),
    _app(68, "ROBUST_CHANNEL_NVDEC0_ERROR", "video decoder (NVDEC) exception", W),
    _crit(69, "ROBUST_CHANNEL_GR_CLASS_ERROR", "graphics engine class error"),
    _crit(74, "NVLINK_ERROR", "NVLink error"),
    _crit(79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "GPU has fallen off the bus"),
    _crit(92, "EXCESSIVE_SBE_INTERRUPTS", "high single-bit ECC error rate"),
    _crit(94, "ROBUST_CHANNEL_CONTAINED_ERROR",
          "contained ECC error; only the affected applications are impacted"),
    _crit(95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", "uncontained error; GPU reset needed"),
    _app(109, "CTXSW_TIMEOUT", "context switch timeout", W, "0.17.1"),
    _crit(119, "GSP_RPC_TIMEOUT", "GSP firmware RPC timeout"),
    _crit(120, "GSP_ERROR", "GSP firmware error"),
    _crit(121, "C2C_ERROR", "chip-to-chip interconnect error"),
    _crit(140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", "unrecovered ECC error escape"),
    _crit(143, "GPU_INIT_ERROR", "GPU initialization failure"),
    _crit(144, "NVLINK_SAW_ERROR", "NVLink (SAW) error"),
    _crit(145, "NVLINK_RLW_ERROR", "NVLink (RLW) error"),
    _crit(146, "NVLINK_TLW_ERROR", "NVLink (TLW) error"),
    _crit(147, "NVLINK_TREX_ERROR", "NVLink (TREX) error"),
    _crit(148, "NVLINK_NVLPW_CTRL_ERROR", "NVLink (NVLPW control) error"),
    _crit(149, "NVLINK_NETIR_ERROR", "NVLink (NETIR) error"),
    _crit(150, "NVLINK_MSE_ERROR", "NVLink (MSE) error"),
    _crit(154, "GPU_RECOVERY_ACTION_CHANGED",
          "recovery action changed; query NVML GpuRecoveryAction"),
)

XID_CATALOG: dict[int, XidInfo] = {x.xid: x for x in _ROWS}

# Citations (the table's rows carry no per-row field: every row has the same three sources).
_XID_SOURCES = ("NVIDIA/open-gpu-kernel-modules@0b7b8041:src/common/sdk/nvidia/inc/nverror.h "
                "(mnemonics); NVIDIA/k8s-device-plugin@v0.20.0:internal/rm/health.go "
                "(skipped application Xids; 109 since v0.17.1); "
                "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html")
SOURCES: dict[str, str] = {"XID_CATALOG": _XID_SOURCES, "_ROWS": _XID_SOURCES}

# 155–176: NVLink software-defined, resource/channel retirement, fatal timeouts, DRAM/SRAM
# and C2C failures (nverror.h; 176 = LAST). All critical to the plugin.
_LATE_RANGE = range(155, 177)


def xid_info(xid: int) -> XidInfo:
    """The catalog row; Xids outside it are critical to the plugin (not on its skip list)."""
    info = XID_CATALOG.get(xid)
    if info is not None:
        return info
    if xid in _LATE_RANGE:
        return _crit(xid, f"XID_{xid}",
                     "fatal GPU error (retirement, timeout, DRAM/SRAM or C2C failure class)")
    return _crit(xid, f"XID_{xid}", "not in gpuxray's catalog; see NVIDIA's Xid catalog")
