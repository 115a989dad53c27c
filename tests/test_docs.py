"""The per-code reference pages are generated from the catalog and kept in step: regenerating
them changes nothing, and the catalog's codes are exactly CODES.md's."""

from __future__ import annotations

import filecmp
import os
import re
from pathlib import Path

import pytest

from gpuxray import docs
from gpuxray.checks.registry import all_checks
from gpuxray.knowledge.codes import CATALOG

ROOT = Path(__file__).resolve().parents[1]
CODES_MD = ROOT.parent / "shared" / "CODES.md"


def test_committed_pages_are_current(tmp_path: Path) -> None:
    docs.write(tmp_path)
    committed = ROOT / "docs" / "codes"
    fresh = sorted(p.name for p in tmp_path.iterdir())
    assert sorted(p.name for p in committed.iterdir()) == fresh, \
        "run `python -m gpuxray.docs` and commit docs/codes"
    _, mismatch, errors = filecmp.cmpfiles(committed, tmp_path, fresh, shallow=False)
    assert not mismatch and not errors, f"stale pages {mismatch}: run `python -m gpuxray.docs`"


def test_one_page_per_code_with_its_facts() -> None:
    pages = docs.generate()
    assert set(pages) == {f"{c}.md" for c in CATALOG} | {"README.md"}
    checks = all_checks()
    for code, info in CATALOG.items():
        text = pages[f"{code}.md"]
        assert text.startswith(f"# {code} {info.name}\n")
        assert f"| default severity | {info.severity.label} |" in text
        assert info.remedy in text and info.message in text
        for inp in checks[code].needs if code in checks else ():
            assert inp.value in text
        assert f"[{code}]({code}.md)" in pages["README.md"]


def test_catalog_codes_are_codes_md_codes() -> None:
    if not CODES_MD.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{CODES_MD} is required in CI")
        pytest.skip(f"{CODES_MD} not present")
    row = re.compile(r"^\|\s*(GX\d{3})\s*\|\s*([a-z0-9-]+)\s*\|", re.M)
    documented = dict(row.findall(CODES_MD.read_text(encoding="utf-8")))
    assert len(documented) >= 40
    # the repo's own additions (docs/codes.md), never redefining a contract code
    added = dict(row.findall((ROOT / "docs" / "codes.md").read_text(encoding="utf-8")))
    assert not set(added) & set(documented)
    documented.update(added)
    assert set(CATALOG) == set(documented)
    assert {c: i.name for c, i in CATALOG.items()} == documented
    # every documented code is implemented: a registered check, named as CODES.md names it
    checks = all_checks()
    assert sorted(set(documented) - set(checks)) == []
    assert {c: s.name for c, s in checks.items()} == documented


def test_main_writes_the_directory(tmp_path: Path) -> None:
    assert docs.main([str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "README.md").is_file()
    assert len(list((tmp_path / "out").glob("GX*.md"))) == len(CATALOG)


def test_series_map_names_the_module_of_every_check() -> None:
    """``capacity`` imports only the modules the series map names: a check registered in a
    module the map does not list for its series would silently never run there."""
    from gpuxray.checks.registry import MODULES_BY_SERIES, all_checks

    for code, spec in all_checks().items():
        module = spec.fn.__module__.rsplit(".", 1)[-1]
        assert module in MODULES_BY_SERIES[code[:3]], (code, module)
    assert set(all_checks(["GX6"])) == {c for c in all_checks() if c.startswith("GX6")}
    assert set(all_checks(["GX301", "GX4"])) == {
        c for c in all_checks() if c == "GX301" or c.startswith("GX4")}
