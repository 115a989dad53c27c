"""Memory stays bounded on huge inputs: a 1 GiB operand log, a 1 GiB journal and ``triage`` of a
1 GiB file (and of 1 GiB on stdin). Each runs gpuxray in a child process and reads the child's
peak RSS from ``os.wait4``; a reader that loaded the whole file would show ≥ 1 GiB there.

The files are sparse (text at the head and the tail, a hole between), so they cost no disk and
the test stays fast, while a whole-file reader would still materialise every byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpuxray.scenarios.demo import build_demo

GIB = 1 << 30
RSS_LIMIT_MB = 300
HEAD = ("2026-11-29T10:00:00Z gpu-2 containerd[811]: level=info msg=\"starting\"\n" * 200)
TAIL = ("2026-11-29T12:00:00Z gpu-2 systemd[1]: containerd.service: Main process exited, "
        "code=killed, status=1/HUP\n") * 20

pytestmark = pytest.mark.slow


def _huge(path: Path, size: int = GIB) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(HEAD.encode())
        fh.truncate(size - len(TAIL))
        fh.seek(size - len(TAIL))
        fh.write(TAIL.encode())
    assert path.stat().st_size == size
    return path


# Linux carries a process's RSS high-water mark across fork+exec, so a child forked straight
# from a pytest process that has grown to hundreds of MiB reports that size as its own peak.
# A small launcher process forks gpuxray instead and reports the grandchild's wait4 usage.
_LAUNCHER = (
    "import os, subprocess, sys\n"
    "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, "
    "stderr=subprocess.DEVNULL)\n"
    "_, status, usage = os.wait4(p.pid, 0)\n"
    "print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)\n"
)


def _peak_rss_mb(args: list[str], stdin: Path | None = None) -> tuple[int, float, float]:
    """Run ``python -m gpuxray ARGS``; return (exit code, peak RSS in MiB, seconds)."""
    t0 = time.monotonic()
    with open(stdin or os.devnull, "rb") as fin:
        out = subprocess.run([sys.executable, "-c", _LAUNCHER, sys.executable, "-m", "gpuxray",
                              *args], stdin=fin, capture_output=True, text=True, check=True,
                             env={**os.environ, "NO_COLOR": "1"}).stdout.split()
    code, maxrss_kb = int(out[0]), int(out[1])
    return code, maxrss_kb / 1024, time.monotonic() - t0


@pytest.fixture(scope="module")
def baseline_mb(tmp_path_factory: pytest.TempPathFactory) -> float:
    """RSS of the same commands on the small bundle: the cost of Python and gpuxray itself."""
    root = build_demo().write(tmp_path_factory.mktemp("base") / "b")
    return _peak_rss_mb(["check", "--bundle", str(root), "-o", "json"])[1]


@pytest.mark.parametrize("which", ["operand-log", "journal"])
def test_huge_bundle_file_keeps_memory_bounded(tmp_path: Path, which: str,
                                               baseline_mb: float) -> None:
    b = build_demo()
    rel = (next(k for k in sorted(b.files) if k.startswith("logs/") and "driver" in k)
           if which == "operand-log" else "nodes/gpu-2/cmd/journal-containerd.txt")
    assert rel in b.files  # replace a file the checks read
    root = b.write(tmp_path / "b")
    _huge(root / rel)
    for args in (["check"], ["why", "ml/train-llm-0"]):
        code, rss, secs = _peak_rss_mb([*args, "--bundle", str(root), "-o", "json"])
        assert code in (1, 3), args
        assert rss < RSS_LIMIT_MB, f"{args}: peak RSS {rss:.0f} MiB (baseline {baseline_mb:.0f})"
        assert secs < 20, f"{args}: {secs:.1f}s"


def test_triage_of_a_huge_file_keeps_memory_bounded(tmp_path: Path) -> None:
    big = _huge(tmp_path / "journal.txt")
    code, rss, secs = _peak_rss_mb(["triage", str(big), "-o", "json"])
    assert code in (0, 1, 3)
    assert rss < RSS_LIMIT_MB, f"peak RSS {rss:.0f} MiB"
    assert secs < 20


def test_triage_of_huge_stdin_keeps_memory_bounded(tmp_path: Path) -> None:
    big = _huge(tmp_path / "journal.txt")
    code, rss, secs = _peak_rss_mb(["triage", "-", "-o", "json"], stdin=big)
    assert code in (0, 1, 3)
    assert rss < RSS_LIMIT_MB, f"peak RSS {rss:.0f} MiB"
    assert secs < 20


@pytest.mark.parametrize("block", [b"A" * 4096, b"\n" * 4096], ids=["one-long-line", "newlines"])
def test_bug_report_gzip_bomb_keeps_memory_bounded(tmp_path: Path, block: bytes) -> None:
    """256 MiB compressed to ~256 KiB as a must-gather ``nvidia-bug-report_<node>.log.gz`` (4×
    the cap): cut at
    ``bugreport.MAX_DECOMPRESSED``, sectioned without a list item per line of the whole report."""
    import zlib

    mg = tmp_path / "must-gather"
    mg.mkdir()
    (mg / "cluster_policy.missing").write_text("")
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(mg / "nvidia-bug-report_gpu-1.log.gz", "wb") as fh:
        fh.write(comp.compress(b"_" * 60 + b"\n*** /etc/os-release\n"))
        for _ in range((256 << 20) // len(block)):
            fh.write(comp.compress(block))
        fh.write(comp.flush())
    assert (mg / "nvidia-bug-report_gpu-1.log.gz").stat().st_size < 1 << 20
    code, rss, secs = _peak_rss_mb(["check", "--bundle", str(mg), "-o", "json", "--keep-going"])
    assert code in (1, 3)
    assert rss < RSS_LIMIT_MB, f"peak RSS {rss:.0f} MiB"
    assert secs < 20, f"{secs:.1f}s"
