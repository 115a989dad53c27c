"""The corpus loader's own rules (tests/corpus/triage/README.md): every stored case loads, and the
holdout split is decided by the case's name, so no case can be moved into the holdout by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from triage_corpus import CorpusError, cases, split_by_rule, uncoded_cases

_META = """url: https://github.com/NVIDIA/gpu-operator/issues/{n}
repo: NVIDIA/gpu-operator
expected:
  - GX403
confirmed_by:
  who: maintainer
  note: "a note"
components:
  - driver-container
split: {split}
"""


def _write(root: Path, name: str, split: str) -> None:
    (root / f"{name}.yaml").write_text(_META.format(n=name.rsplit("-", 1)[1], split=split))
    (root / f"{name}.txt").write_text("Could not resolve Linux kernel version\n")


def _name_with(split: str) -> str:
    return next(f"gpu-operator-{n}" for n in range(1, 10_000)
                if split_by_rule(f"gpu-operator-{n}") == split)


def test_every_stored_case_loads_and_every_holdout_case_obeys_the_rule() -> None:
    every = list(cases())
    assert len(every) >= 100
    holdout = [c for c in every if c.split == "holdout"]
    assert holdout and all(split_by_rule(c.name) == "holdout" for c in holdout)


def test_a_holdout_case_the_rule_puts_in_dev_is_rejected(tmp_path: Path) -> None:
    name = _name_with("dev")
    _write(tmp_path, name, "holdout")
    with pytest.raises(CorpusError, match=name):
        list(cases(root=tmp_path))


def test_the_rule_admits_its_holdout_and_any_name_as_dev(tmp_path: Path) -> None:
    """A holdout name may sit in dev (a measured holdout rotates there); only the reverse fails."""
    holdout_names = [n for n in (f"gpu-operator-{i}" for i in range(1, 100))
                     if split_by_rule(n) == "holdout"][:2]
    _write(tmp_path, holdout_names[0], "holdout")
    _write(tmp_path, holdout_names[1], "dev")
    _write(tmp_path, _name_with("dev"), "dev")
    loaded = sorted(c.split for c in cases(root=tmp_path))
    assert loaded == ["dev", "dev", "holdout"]


def test_the_rule_puts_about_eleven_in_sixteen_names_in_the_holdout() -> None:
    names = [f"case-{n}" for n in range(4000)]
    share = sum(split_by_rule(n) == "holdout" for n in names) / len(names)
    assert 0.64 < share < 0.73


def test_uncoded_cases_load_and_stay_out_of_the_scored_corpus() -> None:
    uncoded = list(uncoded_cases())
    assert uncoded and all(c.uncoded for c in uncoded)
    scored = {c.name for c in cases()}
    assert not scored & {c.name for c in uncoded}


def test_an_uncoded_case_may_not_carry_codes_or_a_split(tmp_path: Path) -> None:
    name = "autoscaler-1"
    (tmp_path / f"{name}.yaml").write_text(
        "url: https://github.com/kubernetes/autoscaler/issues/1\nrepo: kubernetes/autoscaler\n"
        "uncoded: a cause\nexpected:\n  - GX202\n"
        "confirmed_by:\n  who: reporter\n  note: a note\ncomponents:\n  - cluster-autoscaler\n")
    (tmp_path / f"{name}.txt").write_text("Insufficient nvidia.com/gpu\n")
    with pytest.raises(CorpusError, match=name):
        list(uncoded_cases(root=tmp_path))
