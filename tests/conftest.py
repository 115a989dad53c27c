from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuxray.cli.main import run
from gpuxray.scenarios.builder import ClusterBuilder


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
