"""Shared fixtures, and the CI rule: with ``CI`` set no test may skip.

Real components (containerd per version, the control plane, Prometheus, kubectl, Chromium, the
shared corpus) are the oracles; a skip in CI would let the run pass without them, so in CI every
skip is reported as a failure naming its reason. On a developer machine skips stay skips.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

from gpuxray.cli.main import run
from gpuxray.scenarios.builder import ClusterBuilder

IN_CI = bool(os.environ.get("CI"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[
        None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped in CI (a real component or input is missing): {reason}"


@pytest.fixture
def write_bundle(tmp_path: Path) -> Callable[[ClusterBuilder], Path]:
    counter = iter(range(1000))

    def _write(b: ClusterBuilder) -> Path:
        return b.write(tmp_path / f"bundle{next(counter)}")

    return _write


@pytest.fixture
def gx(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, Any]]:
    """Run the CLI in-process; return (exit code, parsed JSON stdout or raw text)."""

    def _run(*args: str) -> tuple[int, Any]:
        code = run(list(args))
        captured = capsys.readouterr()
        out = captured.out
        sys.stderr.write(captured.err)  # keep stderr for the test to read
        if "-o" in args and args[args.index("-o") + 1] == "json":
            return code, json.loads(out)
        return code, out

    return _run
