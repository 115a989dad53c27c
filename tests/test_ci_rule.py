"""With ``CI`` set a skipped test fails the run (tests/conftest.py); elsewhere it stays a skip."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def _run(tmp_path: Path, ci: bool) -> subprocess.CompletedProcess[str]:
    shutil.copy(HERE / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_needs_oracle.py").write_text(
        "import pytest\n\ndef test_oracle():\n    pytest.skip('no oracle binary')\n")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(tmp_path)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_a_skip_fails_in_ci(tmp_path: Path) -> None:
    r = _run(tmp_path, ci=True)
    assert r.returncode == 1, r.stdout
    assert "skipped in CI" in r.stdout and "no oracle binary" in r.stdout


def test_a_skip_stays_a_skip_elsewhere(tmp_path: Path) -> None:
    r = _run(tmp_path, ci=False)
    assert r.returncode == 0, r.stdout
    assert "1 skipped" in r.stdout
