"""The HTML report: one self-contained file (nothing loaded from anywhere), cluster strings
escaped, the why path drawn with the path taken coloured, capacity and merge view present — and
loaded in a real headless Chromium: it renders, runs its script without errors, and paints."""

from __future__ import annotations

import re
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gpuxray.checks.engine import run_all
from gpuxray.cli.main import run
from gpuxray.cli.reports import capacity_dicts
from gpuxray.diagnose.why import why
from gpuxray.model.finding import Evidence, Finding, Severity, Status, Subject
from gpuxray.render import html
from gpuxray.sources.bundle import open_bundle
from reports_fixtures import HOSTILE, demo, fragmented, healthy, require_binary

DEMO_POD = "ml/train-llm-0"


class _Refs(HTMLParser):
    """Every URL-bearing attribute and every element, to prove nothing is fetched."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        for key in ("src", "href", "xlink:href", "action", "poster", "data"):
            if a.get(key):
                self.urls.append(str(a[key]))


def _parse(text: str) -> _Refs:
    p = _Refs()
    p.feed(text)
    return p


def _report(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = run(list(args))
    out = capsys.readouterr().out
    assert code in (0, 1), code
    return out


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo(tmp_path_factory.mktemp("demo") / "bundle")


def test_check_html_is_self_contained(demo_dir: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    text = _report(capsys, "check", "--bundle", str(demo_dir), "-o", "html")
    refs = _parse(text)
    # nothing to load: no URL attribute except same-document fragments, no external scheme
    assert all(u.startswith("#") for u in refs.urls), refs.urls
    assert not re.search(r"(src|href)\s*=\s*[\"']?\s*(https?:)?//", text)
    assert "http://" not in text and "https://" not in text
    assert not [t for t, a in refs.tags if t in ("link", "iframe", "object", "embed", "img")]
    csp = [a for t, a in refs.tags if t == "meta" and a.get("http-equiv") ==
           "Content-Security-Policy"]
    assert csp and "default-src 'none'" in str(csp[0]["content"])


def test_check_html_lists_every_finding_and_capacity(demo_dir: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    text = _report(capsys, "check", "--bundle", str(demo_dir), "-o", "html")
    with open_bundle(demo_dir) as snap:
        findings = run_all(snap)
        caps = capacity_dicts(snap)
    tags = _parse(text).tags
    shown = sorted(str(a["data-code"]) for t, a in tags if t == "details" and "data-code" in a)
    assert shown == sorted(f.code for f in findings)
    # the summary cards carry the counts
    errors = sum(1 for f in findings if f.status == Status.FAIL and f.severity == Severity.ERROR)
    unknown = sum(1 for f in findings if f.status == Status.UNKNOWN)
    assert re.search(rf'data-bucket="error"[^>]*><span class="n">{errors}</span>', text)
    assert re.search(rf'data-bucket="unknown"[^>]*><span class="n">{unknown}</span>', text)
    # one capacity row per node/resource, with the node's numbers
    assert caps is not None
    section = text.split('id="capacity"')[1].split("</section>")[0]
    assert section.count("<tr") == len(caps) + 1
    for row in caps:
        assert re.search(rf"<td>{re.escape(row['node'])}</td><td>{re.escape(row['resource'])}"
                         rf"</td>.*?<td class=\"num\">{row['capacity']}</td>"
                         rf"<td class=\"num\">{row['allocatable']}</td>"
                         rf"<td class=\"num\">{row['allocated']}</td>", section), row


def test_merge_view_names_culprit_and_lost_runtime(demo_dir: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    text = _report(capsys, "check", "--bundle", str(demo_dir), "-o", "html")
    with open_bundle(demo_dir) as snap:
        gx501 = [f for f in run_all(snap, ["GX501"]) if f.status == Status.FAIL]
    if not gx501:
        pytest.skip("the demo bundle has no GX501 finding in this build")
    section = text.split('id="containerd"')[1].split("</section>")[0]
    for f in gx501:
        assert f">{f.params['node']}" in section
        assert f"<code>{f.params['culprit']}</code>" in section
        for r in f.params.get("lost_runtimes", []):
            assert f"<code>{r}</code>" in section


def test_merge_view_from_findings_alone() -> None:
    """Without the engine's dict the view still comes from GX501's params and evidence."""
    f = Finding("GX501", "containerd-dropin-overwrote-cri", Severity.ERROR, Status.FAIL,
                Subject("Node", "gpu-9"), "m", (Evidence("nodes/gpu-9/files/x", "d"),), "r",
                {"node": "gpu-9", "culprit": "/etc/containerd/conf.d/r.toml",
                 "plugin": "io.containerd.grpc.v1.cri",
                 "lost_keys": ["io.containerd.grpc.v1.cri.containerd.runtimes.nvidia.runtime_type"],
                 "lost_runtimes": ["nvidia"], "containerd_version": "1.7.27"})
    text = html.render_report(title="t", source="s", findings=[f])
    section = text.split('id="containerd"')[1].split("</section>")[0]
    assert "<code>containerd.runtimes.nvidia.runtime_type</code>" in section
    assert "/etc/containerd/conf.d/r.toml" in section and "1.7.27" in section


def test_why_diagram_colours_the_path_and_emphasises_the_leaf(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = fragmented().write(tmp_path / "b")
    text = _report(capsys, "why", "ml/train", "--bundle", str(bundle), "-o", "html")
    with open_bundle(bundle) as snap:
        d = why(snap, "ml/train")
    assert d.verdict is not None
    svg = text.split("<svg")[1].split("</svg>")[0]
    groups = re.findall(r'<g class="([^"]+)">', svg)
    assert groups[:len(d.path)] == [s.result for s in d.path]
    assert groups[len(d.path):] == ["verdict error"]
    assert d.verdict.code in svg.split('<g class="verdict error">')[1]
    assert svg.count('class="leaf"') == 1  # the red arrow from the failing step to the leaf
    assert svg.count('class="arrow"') == len(d.path) - 1
    assert svg.count('class="stub"') == sum(1 for s in d.path if s.result == "pass")


def test_cluster_strings_are_escaped() -> None:
    f = Finding("GX202", "resource-not-advertised", Severity.ERROR, Status.FAIL,
                Subject("Pod", HOSTILE, "ml"), f"pod {HOSTILE}", (Evidence(HOSTILE, HOSTILE),),
                "r")
    text = html.render_report(title=HOSTILE, source=HOSTILE, findings=[f],
                              capacity=[{"node": HOSTILE, "resource": "nvidia.com/gpu",
                                         "capacity": 1, "allocatable": 1, "allocated": 0,
                                         "free": 1}])
    assert "<script>alert" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    scripts = [t for t, _ in _parse(text).tags if t == "script"]
    assert len(scripts) == 1  # only the report's own


# ----- real headless Chromium -------------------------------------------------------------
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--enable-logging=stderr",
                  "--v=0", "--window-size=1280,2000")


def _chromium(binary: str, page: Path, profile: Path,
              *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra,
                           page.as_uri()], capture_output=True, text=True, timeout=90,
                          check=False)


def _png_info(path: Path) -> tuple[int, int, int, int]:
    """(width, height, compressed image bytes, distinct byte values in the decoded stream):
    a blank page compresses to almost nothing and decodes to a handful of byte values."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, width, height, idat = 8, 0, 0, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    return width, height, len(idat), len(set(raw[::97]))


def _console_errors(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines()
            if "Uncaught" in ln or "Refused to" in ln
            or ("CONSOLE" in ln and ("error" in ln.lower() or "violat" in ln.lower()))]


@pytest.mark.slow
def test_chromium_renders_the_reports(demo_dir: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    binary = require_binary("chromium", "chromium-browser", "google-chrome")
    pages = {
        "check": _report(capsys, "check", "--bundle", str(demo_dir), "-o", "html"),
        "why": _report(capsys, "why", DEMO_POD, "--bundle", str(demo_dir), "-o", "html"),
    }
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body></body></html>")
    shot = _chromium(binary, blank, tmp_path / "p0", f"--screenshot={tmp_path / 'blank.png'}")
    assert shot.returncode == 0, shot.stderr[-2000:]
    blank_size = _png_info(tmp_path / "blank.png")[2]
    with open_bundle(demo_dir) as snap:
        codes = {f.code for f in run_all(snap)}
        verdict = why(snap, DEMO_POD).verdict
    assert verdict is not None
    for name, text in pages.items():
        page = tmp_path / f"{name}.html"
        page.write_text(text, encoding="utf-8")
        png = tmp_path / f"{name}.png"
        res = _chromium(binary, page, tmp_path / f"p-{name}", "--dump-dom", f"--screenshot={png}")
        assert res.returncode == 0, res.stderr[-2000:]
        assert 'data-gx-ready="1"' in res.stdout  # the inline script ran to its end
        assert not _console_errors(res.stderr), _console_errors(res.stderr)
        expected = codes if name == "check" else {verdict.code}
        for code in expected:
            assert f'data-code="{code}"' in res.stdout
        assert png.is_file()
        width, height, size, variety = _png_info(png)
        assert (width, height) == (1280, 2000)
        assert size > 8 * blank_size and variety > 16, (size, blank_size, variety)


def test_why_without_verdict_ends_in_an_ok_leaf(tmp_path: Path) -> None:
    with open_bundle(healthy().write(tmp_path / "h")) as snap:
        d = why(snap, "ml/train-0")
    assert d.verdict is None
    text = html.render_report(title="t", source="s", diagnosis=d, kind="why")
    svg = text.split("<svg")[1].split("</svg>")[0]
    groups = re.findall(r'<g class="([^"]+)">', svg)
    assert groups == [*(s.result for s in d.path), "verdict ok"]
    assert 'class="leaf"' not in svg


_MEASURE = ("<script>document.body.setAttribute('data-gx-width', "
            "document.documentElement.scrollWidth + 'x' + document.documentElement.clientWidth)"
            "</script></body>")


@pytest.mark.slow
def test_chromium_no_horizontal_scroll_at_1280(demo_dir: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """At a 1280 px window the reports, incidents first, fit: the document is no wider than
    the viewport (measured by Chromium's layout, not guessed from the markup)."""
    binary = require_binary("chromium", "chromium-browser", "google-chrome")
    pages = {
        "check": _report(capsys, "check", "--bundle", str(demo_dir), "-o", "html"),
        "why": _report(capsys, "why", DEMO_POD, "--bundle", str(demo_dir), "-o", "html"),
    }
    assert 'id="incidents"' in pages["check"]
    assert pages["check"].index('id="incidents"') < pages["check"].index('id="summary"')
    for name, text in pages.items():
        page = tmp_path / f"w-{name}.html"
        page.write_text(text.replace("</body>", _MEASURE), encoding="utf-8")
        png = tmp_path / f"w-{name}.png"
        res = _chromium(binary, page, tmp_path / f"pw-{name}", "--dump-dom", f"--screenshot={png}")
        assert res.returncode == 0, res.stderr[-2000:]
        m = re.search(r'data-gx-width="(\d+)x(\d+)"', res.stdout)
        assert m is not None, res.stdout[-500:]
        scroll, client = int(m.group(1)), int(m.group(2))
        assert client > 1000 and scroll <= client, (name, scroll, client)
