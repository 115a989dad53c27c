"""The real containerd binaries the merge engine is checked against: every version the build
script lists is present (CI) and is the release its directory names."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gpuxray.sources.parsers.versions import parse_containerd_version
from real_containerd import BUILDS, config_dump, expected_versions, require

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("version", expected_versions())
def test_built_binary_is_the_release_it_claims(version: str) -> None:
    binary = require(version)[version]
    assert binary == BUILDS / version / "containerd"
    out = subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    cv = parse_containerd_version(out)
    assert cv is not None, out
    assert ".".join(map(str, cv.tuple)) == version


def test_config_dump_runs_on_every_binary(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.'
                   'nvidia]\nruntime_type = "io.containerd.runc.v2"\n')
    for version, binary in require().items():
        rc, out, err = config_dump(binary, cfg)
        assert rc == 0, (version, err)
        assert "runtimes.nvidia" in out, version
