"""Idle-but-allocated over a 3-hour window from a REAL Prometheus: DCGM history is backfilled
with ``promtool tsdb create-blocks-from openmetrics``, Prometheus serves it on loopback, and
``gpuxray capacity --prometheus URL --window 3h`` reads it (seed §6: the three-hour measurement).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from capacity_fixtures import usage_cluster
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.dcgm import Gpu, history

pytestmark = pytest.mark.slow

Gx = Callable[..., tuple[int, Any]]
STEP = 60
SPIKE = 40.0  # research/dev-0 runs at 40 % for 10 minutes of the 3 hours


def _need(binary: str) -> str:
    path = shutil.which(binary)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{binary} is required in CI (Debian package prometheus)")
        pytest.skip(f"{binary} not installed (apt-get install prometheus)")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _shape(start: int) -> Callable[[str, Gpu, int], Gpu]:
    def shape(node: str, g: Gpu, t: int) -> Gpu:
        if g.pod == "infer-0":
            return replace(g, util=60 + (t // STEP) % 30)
        if g.pod == "dev-0" and start + 3600 <= t < start + 3600 + 600:
            return replace(g, util=SPIKE)
        return g

    return shape


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, int]]:
    """A Prometheus holding 3 h of DCGM history ending 5 minutes ago; yields (url, start, end)."""
    promtool, prom = _need("promtool"), _need("prometheus")
    tmp = tmp_path_factory.mktemp("prom")
    end = int(time.time()) - 300
    end -= end % STEP
    start = end - 3 * 3600
    _, gpus = usage_cluster(scrapes=False)
    (tmp / "dcgm.om").write_text(history(gpus, start, end, STEP, _shape(start)))
    data = tmp / "data"
    subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics",
                    str(tmp / "dcgm.om"), str(data)], check=True, capture_output=True,
                   timeout=120)
    cfg = tmp / "prometheus.yml"
    cfg.write_text("global:\n  scrape_interval: 1m\n")
    port = _free_port()
    log = open(tmp / "prometheus.log", "wb")  # noqa: SIM115 - closed in finally
    proc = subprocess.Popen([prom, f"--config.file={cfg}", f"--storage.tsdb.path={data}",
                             f"--web.listen-address=127.0.0.1:{port}",
                             "--storage.tsdb.retention.time=30d"],
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail("prometheus exited: "
                            + (tmp / "prometheus.log").read_text()[-2000:])
            try:
                with urllib.request.urlopen(f"{url}/-/ready", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("prometheus not ready within 60 s")
            time.sleep(0.25)
        yield url, start, end
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)
        log.close()


def _bundle(tmp_path: Path) -> Path:
    b: ClusterBuilder
    b, _ = usage_cluster(scrapes=False)
    return b.write(tmp_path / "bundle")


def test_gx601_over_three_hours(prometheus: tuple[str, int, int], gx: Gx,
                                tmp_path: Path) -> None:
    url, _, _ = prometheus
    code, doc = gx("capacity", "-b", str(_bundle(tmp_path)), "--prometheus", url,
                   "--window", "3h", "--pods", "-o", "json")
    assert code == 0
    assert doc["usage"]["basis"] == "window" and doc["usage"]["window"] == "3h"
    idle = {(f["subject"]["namespace"], f["subject"]["name"]): f for f in doc["findings"]
            if f["code"] == "GX601" and f["status"] == "fail"}
    # dev-0 spiked for 10 minutes: idle in a quiet single scrape, not over the window
    assert set(idle) == {("ml", "train-0")}
    p = idle[("ml", "train-0")]["params"]
    assert (p["gpus"], p["util"], p["util_max"], p["fb_mib"]) == (2, 0.0, 0.0, 28058.0)
    assert "3h" in p["basis"]
    pods = {p["pod"]: p for p in doc["pods"]}
    dev = pods["dev-0"]
    assert dev["status"] == "measured" and dev["idle"] is False
    assert dev["util_max_pct"] == SPIKE
    # 0.5 % base with 10 one-minute samples at 40 %, over the ~175 samples inside the window
    lo, hi = ((0.5 * (n - 10) + SPIKE * 10) / n for n in (181, 170))
    assert lo - 0.05 <= dev["util_pct"] <= hi + 0.05
    assert 60 <= pods["infer-0"]["util_pct"] <= 90
    rows = {r["node"]: r["used"] for r in doc["nodes"]}
    assert rows["gpu-1"]["gpus"] == 8 and rows["gpu-2"]["gpus"] == 4
    assert rows["gpu-1"]["power_w"] == 21 + 22 + 310 + 5 * 55
    assert not [f for f in doc["findings"] if f["status"] == "unknown"]


def test_window_thresholds_apply(prometheus: tuple[str, int, int], gx: Gx,
                                 tmp_path: Path) -> None:
    url, _, _ = prometheus
    _, doc = gx("capacity", "-b", str(_bundle(tmp_path)), "--prometheus", url,
                "--window", "3h", "--idle-util", "5", "-o", "json")
    idle = {f["subject"]["name"] for f in doc["findings"]
            if f["code"] == "GX601" and f["status"] == "fail"}
    assert idle == {"train-0", "dev-0"}  # ~2.8 % average ≤ 5 %


def test_unreachable_prometheus_is_unknown(gx: Gx, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    code, doc = gx("capacity", "-b", str(_bundle(tmp_path)), "--prometheus", url,
                   "--window", "3h", "-o", "json")
    assert code == 0
    gx601 = [f for f in doc["findings"] if f["code"] == "GX601"]
    assert len(gx601) == 1 and gx601[0]["status"] == "unknown"
    assert gx601[0]["params"]["missing"] == f"prometheus {url}"
    assert all(r["used"]["status"] == "unknown" for r in doc["nodes"])


def test_bad_window_is_a_usage_error(gx: Gx, tmp_path: Path) -> None:
    assert gx("capacity", "-b", str(_bundle(tmp_path)), "--prometheus", "http://x",
              "--window", "three hours")[0] == 2


def test_check_and_exporter_read_the_window_too(prometheus: tuple[str, int, int], gx: Gx,
                                                tmp_path: Path) -> None:
    """GX601 from ``check`` and ``exporter`` follows the same history as ``capacity``: dev-0's
    10-minute spike keeps it from being idle over 3 hours."""
    url, _, _ = prometheus
    bundle = str(_bundle(tmp_path))
    _code, doc = gx("check", "-b", bundle, "--prometheus", url, "--window", "3h",
                   "--code", "GX601", "-o", "json")
    idle = {f["subject"]["name"] for f in doc["findings"]
            if f["code"] == "GX601" and f["status"] == "fail"}
    assert idle == {"train-0"}
    assert not [f for f in doc["findings"] if f["status"] == "unknown"]
    _, doc5 = gx("check", "-b", bundle, "--prometheus", url, "--window", "3h",
                 "--idle-util", "5", "--code", "GX601", "-o", "json")
    assert {f["subject"]["name"] for f in doc5["findings"] if f["status"] == "fail"} == {
        "train-0", "dev-0"}
    from gpuxray.cli.cmd_exporter import _analyser
    from gpuxray.cli.common import SourceOpts
    from gpuxray.cli.usage_opts import usage_from_kwargs

    u, w, pol = usage_from_kwargs({"prometheus": url, "window": "3h"})
    opts = SourceOpts(bundle, None, None, False, quiet=True)
    findings, _rows, _src = _analyser(opts, u, w, pol)()
    assert {f.subject.name for f in findings if f.code == "GX601"
            and f.status == "fail"} == {"train-0"}


def test_check_with_unreachable_prometheus_is_unknown(gx: Gx, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    _, doc = gx("check", "-b", str(_bundle(tmp_path)), "--prometheus", url, "--window", "3h",
                "--code", "GX601", "-o", "json")
    gx601 = [f for f in doc["findings"] if f["code"] == "GX601"]
    assert len(gx601) == 1 and gx601[0]["status"] == "unknown"
    assert gx601[0]["params"]["missing"] == f"prometheus {url}"
