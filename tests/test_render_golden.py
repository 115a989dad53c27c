"""Golden files for the text, Markdown and JSON renderers at a fixed width without colour, over
the demo bundle and a healthy one. Regenerate after an intended change with
``GPUXRAY_UPDATE_GOLDEN=1 pytest tests/test_render_golden.py`` and review the diff."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuxray.cli.main import run
from reports_fixtures import demo, healthy

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("GPUXRAY_UPDATE_GOLDEN") == "1"
BUNDLE_TOKEN = "<BUNDLE>"

BUNDLES: dict[str, Callable[[Path], Path]] = {
    "demo": demo,
    "healthy": lambda root: healthy().write(root),
}
# (golden name, argv after the bundle is known) per bundle
CASES: list[tuple[str, str, list[str]]] = [
    (b, f"{cmd}.{ext}", argv)
    for b, pod in (("demo", "ml/train-llm-0"), ("healthy", "ml/train-0"))
    for cmd, base in (("check", ["check"]), ("why", ["why", pod]))
    for ext, out in (("txt", "text"), ("md", "markdown"), ("json", "json"))
    for argv in [[*base, "-o", out]]
]


def _normalise(text: str, bundle: Path, ext: str) -> str:
    text = text.replace(str(bundle), BUNDLE_TOKEN)
    if ext == "json":
        doc = json.loads(text)
        if "source" in doc:
            doc["source"] = BUNDLE_TOKEN
        text = json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("golden")
    return {name: make(root / name) for name, make in BUNDLES.items()}


@pytest.mark.parametrize("bundle,name,argv", CASES, ids=[f"{b}/{n}" for b, n, _ in CASES])
def test_golden(bundle: str, name: str, argv: list[str], bundles: dict[str, Path],
                capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("NO_COLOR", "1")
    path = bundles[bundle]
    code = run([*argv, "--bundle", str(path)])
    captured = capsys.readouterr()
    assert code in (0, 1, 3), captured.err
    got = _normalise(captured.out, path, name.rsplit(".", 1)[1])
    golden = GOLDEN / bundle / name
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(got, encoding="utf-8")
        return
    assert golden.is_file(), f"missing {golden}: run GPUXRAY_UPDATE_GOLDEN=1 pytest {__file__}"
    want = golden.read_text(encoding="utf-8")
    assert got == want, f"{golden} differs: review, then GPUXRAY_UPDATE_GOLDEN=1 to regenerate"
