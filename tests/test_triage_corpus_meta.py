"""The corpus loader's own rules (tests/corpus/triage/README.md): every stored case loads, and from
round 2 on the split is decided by the case's name, so no case can be moved into the holdout (or
kept out of it) by hand; only a measured holdout case leaves it, marked ``rotated``."""

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
round: {round}
"""


def _write(root: Path, name: str, split: str, rnd: int = 3, rotated: str | None = None) -> None:
    meta = _META.format(n=name.rsplit("-", 1)[1], split=split, round=rnd)
    if rotated is not None:
        meta += f"rotated: {rotated}\n"
    (root / f"{name}.yaml").write_text(meta)
    (root / f"{name}.txt").write_text("Could not resolve Linux kernel version\n")


def _name_with(split: str) -> str:
    return next(f"gpu-operator-{n}" for n in range(1, 10_000)
                if split_by_rule(f"gpu-operator-{n}") == split)


def test_every_stored_case_loads_and_follows_the_split_rule() -> None:
    every = list(cases())
    assert len(every) >= 100
    for c in every:
        if c.round == 1:
            assert c.split == "dev", c.name
        elif c.rotated is not None:
            assert c.split == "dev" and split_by_rule(c.name) == "holdout", c.name
        else:
            assert c.split == split_by_rule(c.name), c.name


def test_a_holdout_case_the_rule_puts_in_dev_is_rejected(tmp_path: Path) -> None:
    name = _name_with("dev")
    _write(tmp_path, name, "holdout")
    with pytest.raises(CorpusError, match=name):
        list(cases(root=tmp_path))


def test_a_new_dev_case_the_rule_puts_in_the_holdout_is_rejected(tmp_path: Path) -> None:
    name = _name_with("holdout")
    _write(tmp_path, name, "dev")
    with pytest.raises(CorpusError, match=name):
        list(cases(root=tmp_path))


def test_a_measured_holdout_case_rotates_into_dev_only_when_marked(tmp_path: Path) -> None:
    holdout_names = [n for n in (f"gpu-operator-{i}" for i in range(1, 100))
                     if split_by_rule(n) == "holdout"][:2]
    _write(tmp_path, holdout_names[0], "holdout")
    _write(tmp_path, holdout_names[1], "dev", rnd=2, rotated="holdout 2, measured blind")
    _write(tmp_path, _name_with("dev"), "dev")
    loaded = sorted((c.split, c.rotated is not None) for c in cases(root=tmp_path))
    assert loaded == [("dev", False), ("dev", True), ("holdout", False)]


@pytest.mark.parametrize(("split", "rnd", "rule"), [
    ("holdout", 2, "holdout"),  # a rotated case cannot return to the holdout
    ("dev", 2, "dev"),          # nor can a name the rule never put there claim to have rotated
])
def test_a_rotated_mark_that_breaks_the_rule_is_rejected(
        tmp_path: Path, split: str, rnd: int, rule: str) -> None:
    name = _name_with(rule)
    _write(tmp_path, name, split, rnd=rnd, rotated="holdout 2")
    with pytest.raises(CorpusError, match=name):
        list(cases(root=tmp_path))


def test_round_one_has_no_holdout_and_every_case_names_its_round(tmp_path: Path) -> None:
    name = _name_with("holdout")
    _write(tmp_path, name, "holdout", rnd=1)
    with pytest.raises(CorpusError, match=name):
        list(cases(root=tmp_path))
    (tmp_path / f"{name}.yaml").write_text(
        _META.format(n=1, split="dev", round=1).replace("round: 1\n", ""))
    with pytest.raises(CorpusError, match="round"):
        list(cases(root=tmp_path))


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
