"""What the containerd daemon does when signalled, per release line — measured, not read.

The toolkit restarts containerd with SIGHUP (NVIDIA/nvidia-container-toolkit@v1.20.0:
``cmd/nvidia-ctk-installer/container/runtime/containerd/containerd_linux.go``, "Sending SIGHUP
signal to containerd"). containerd traps only SIGTERM, SIGINT, SIGUSR1 and SIGPIPE
(``handledSignals`` in ``containerd/containerd@v1.7.27:cmd/containerd/command/main_unix.go`` and
``@v2.4.2:`` the same file), so Go's default for SIGHUP applies: the process ends at once
(https://pkg.go.dev/os/signal). tests/test_containerd_daemon.py starts every real binary the
project builds as a daemon (private root, state and sockets, the CRI plugins disabled), sends
each signal and checks the rows below; the systemd side (``Restart=always``) is not measured.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The releases the outcomes below were measured on (Debian's 1.6 and the built oracles).
MEASURED_VERSIONS = ("1.6.20", "1.7.27", "2.0.14", "2.1.9", "2.2.9", "2.3.4", "2.3.7", "2.4.2")

SOURCES = {
    "MEASURED_VERSIONS": "containerd/containerd@v1.7.27:cmd/containerd/command/main_unix.go and "
                         "the 2.x releases' same file, built from the Go modules by "
                         "scripts/oracles/containerd.sh",
}


@dataclass(frozen=True, slots=True)
class SignalOutcome:
    signal: str
    exit_status: int        # as a shell reports it (128 + signal number when killed)
    killed: bool            # ended by the signal itself, not by containerd's own shutdown
    logs_shutdown: bool     # containerd logs anything after receiving it
    socket_left: bool       # the gRPC socket file stays behind
    summary: str
    source: str


SIGNALS: dict[str, SignalOutcome] = {
    "SIGHUP": SignalOutcome(
        "SIGHUP", 129, True, False, True,
        "containerd dies at once (exit status 129: killed by signal 1), logs nothing, and "
        "leaves its socket files behind; only systemd's Restart=always brings it back, and then "
        "it reads its config files anew",
        "containerd/containerd@v2.4.2:cmd/containerd/command/main_unix.go (handledSignals); "
        "measured by tests/test_containerd_daemon.py"),
    "SIGTERM": SignalOutcome(
        "SIGTERM", 0, False, False, False,
        "containerd shuts down (exit status 0) without a log line at info level and removes its "
        "gRPC socket",
        "containerd/containerd@v2.4.2:cmd/containerd/command/main_unix.go (handleSignals); "
        "measured by tests/test_containerd_daemon.py"),
}


def sighup_text() -> str:
    """One line for explanations (GX503, GX504, ``explain dropin``)."""
    return (f"SIGHUP on containerd {MEASURED_VERSIONS[0]}–{MEASURED_VERSIONS[-1]} (measured on "
            f"{', '.join(MEASURED_VERSIONS)}): {SIGNALS['SIGHUP'].summary}")
