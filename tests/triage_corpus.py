"""Loader for the corpus of real triage cases in ``tests/corpus/triage/``.

Each case is a pair: ``<name>.txt`` holds only the machine-printed text a reporter pasted into a
public ticket (logs, ``kubectl describe`` output, configs), ``<name>.yaml`` holds where it came
from and the cause the thread confirmed. The cases are inputs for the triage tests: they are kept
apart from the samples under ``tests/data/triage/`` because nothing here was written to match a
signature; see ``tests/corpus/triage/README.md`` for the inclusion rule and the split.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

CORPUS = Path(__file__).parent / "corpus" / "triage"
UNCODED = CORPUS / "uncoded"
SPLITS = ("dev", "holdout")
CONFIRMERS = ("maintainer", "reporter")
_CODE = re.compile(r"GX[1-6]\d\d")
HOLDOUT_DIGITS = "0123456789a"


def split_by_rule(name: str) -> str:
    """The split a case gets when it is added, from its name alone (README.md, Split): the first
    hex digit of sha256(name) in 0-a (11 of 16) puts it in the holdout."""
    digit = hashlib.sha256(name.encode("utf-8")).hexdigest()[0]
    return "holdout" if digit in HOLDOUT_DIGITS else "dev"


class CorpusError(ValueError):
    """A case whose metadata does not follow the README's format."""


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    text: str
    url: str
    repo: str
    expected: tuple[str, ...]
    confirmed_by: str
    note: str
    components: tuple[str, ...]
    split: str
    cause: str | None
    round: int
    rotated: str | None

    @property
    def primary(self) -> str:
        """The confirmed cause's code: the one a triage must rank first."""
        return self.expected[0]


def _str_list(meta: dict[str, object], key: str, name: str) -> tuple[str, ...]:
    value = meta.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise CorpusError(f"{name}: '{key}' must be a non-empty list of strings")
    return tuple(value)


def _check_split(name: str, split: str, meta: dict[str, object]) -> tuple[int, str | None]:
    """The split rules (README.md, Split and Rotation). Round 1 predates the name rule and its
    holdout has rotated, so its cases are dev. From round 2 on the name decides the split, both
    ways; the one exception is a holdout case that was measured blind and then rotated into dev,
    which says so in ``rotated``. Nothing moves a case into the holdout by hand."""
    rnd = meta.get("round")
    if not isinstance(rnd, int) or isinstance(rnd, bool) or rnd < 1:
        raise CorpusError(f"{name}: 'round' must be the collection round (1, 2, ...)")
    rotated = meta.get("rotated")
    if rotated is not None and (not isinstance(rotated, str) or not rotated.strip()):
        raise CorpusError(f"{name}: 'rotated' must say which blind measurement the case left")
    if rotated is not None and split != "dev":
        raise CorpusError(f"{name}: a rotated case is dev; it cannot return to the holdout")
    rule = split_by_rule(name)
    if rnd == 1:
        if split != "dev":
            raise CorpusError(f"{name}: round 1 has no holdout left (it rotated into dev)")
    elif rotated is not None:
        if rule != "holdout":
            raise CorpusError(f"{name}: 'rotated' on a name the rule never put in the holdout")
    elif split != rule:
        raise CorpusError(f"{name}: the split rule puts this name in {rule}, not {split}")
    return rnd, rotated.strip() if rotated is not None else None


def load_case(meta_path: Path) -> Case:
    name = meta_path.stem
    text_path = meta_path.with_suffix(".txt")
    if not text_path.is_file():
        raise CorpusError(f"{name}: no {text_path.name} next to {meta_path.name}")
    meta = yaml.safe_load(meta_path.read_text(encoding="utf-8"))
    if not isinstance(meta, dict):
        raise CorpusError(f"{name}: metadata is not a mapping")
    expected = _str_list(meta, "expected", name)
    bad = [c for c in expected if not _CODE.fullmatch(c)]
    if bad or len(set(expected)) != len(expected) or len(expected) > 2:
        raise CorpusError(f"{name}: 'expected' must be one or two distinct GXnnn codes: {expected}")
    confirmed = meta.get("confirmed_by")
    if not isinstance(confirmed, dict) or confirmed.get("who") not in CONFIRMERS \
            or not isinstance(confirmed.get("note"), str) or not confirmed["note"].strip():
        raise CorpusError(f"{name}: 'confirmed_by' needs who ({'|'.join(CONFIRMERS)}) and a note")
    split = meta.get("split")
    if split not in SPLITS:
        raise CorpusError(f"{name}: 'split' must be one of {SPLITS}")
    rnd, rotated = _check_split(name, str(split), meta)
    url, repo = meta.get("url"), meta.get("repo")
    if not isinstance(url, str) or not url.startswith("https://") \
            or not isinstance(repo, str) or repo not in url:
        raise CorpusError(f"{name}: 'url' must be an https address that names 'repo'")
    cause = meta.get("cause")
    if cause is not None and not isinstance(cause, str):
        raise CorpusError(f"{name}: 'cause' must be a string when present")
    text = text_path.read_text(encoding="utf-8")
    if not text.strip():
        raise CorpusError(f"{name}: {text_path.name} is empty")
    return Case(name=name, text=text, url=url, repo=repo, expected=expected,
                confirmed_by=str(confirmed["who"]), note=str(confirmed["note"]),
                components=_str_list(meta, "components", name), split=str(split), cause=cause,
                round=rnd, rotated=rotated)


@dataclass(frozen=True, slots=True)
class UncodedCase:
    """A real, confirmed case whose cause no gpuxray code names yet (README.md, Uncoded causes):
    kept for the catalog's authors, never scored."""
    name: str
    text: str
    url: str
    repo: str
    uncoded: str
    confirmed_by: str
    note: str
    components: tuple[str, ...]


def _common(meta_path: Path) -> tuple[str, dict[str, object], str, str, str, dict[str, object]]:
    name = meta_path.stem
    text_path = meta_path.with_suffix(".txt")
    if not text_path.is_file():
        raise CorpusError(f"{name}: no {text_path.name} next to {meta_path.name}")
    meta = yaml.safe_load(meta_path.read_text(encoding="utf-8"))
    if not isinstance(meta, dict):
        raise CorpusError(f"{name}: metadata is not a mapping")
    confirmed = meta.get("confirmed_by")
    if not isinstance(confirmed, dict) or confirmed.get("who") not in CONFIRMERS \
            or not isinstance(confirmed.get("note"), str) or not confirmed["note"].strip():
        raise CorpusError(f"{name}: 'confirmed_by' needs who ({'|'.join(CONFIRMERS)}) and a note")
    url, repo = meta.get("url"), meta.get("repo")
    if not isinstance(url, str) or not url.startswith("https://") \
            or not isinstance(repo, str) or repo not in url:
        raise CorpusError(f"{name}: 'url' must be an https address that names 'repo'")
    text = text_path.read_text(encoding="utf-8")
    if not text.strip():
        raise CorpusError(f"{name}: {text_path.name} is empty")
    return name, meta, text, url, repo, confirmed


def load_uncoded(meta_path: Path) -> UncodedCase:
    name, meta, text, url, repo, confirmed = _common(meta_path)
    if "expected" in meta or "split" in meta:
        raise CorpusError(f"{name}: an uncoded case has no 'expected' codes and no 'split'")
    uncoded = meta.get("uncoded")
    if not isinstance(uncoded, str) or not uncoded.strip():
        raise CorpusError(f"{name}: 'uncoded' must name the confirmed cause in a few words")
    return UncodedCase(name=name, text=text, url=url, repo=repo, uncoded=uncoded.strip(),
                       confirmed_by=str(confirmed["who"]), note=str(confirmed["note"]),
                       components=_str_list(meta, "components", name))


def uncoded_cases(root: Path = UNCODED) -> Iterator[UncodedCase]:
    """The confirmed cases whose cause has no code yet, in name order (never scored)."""
    if not root.is_dir():
        return
    orphans = sorted(p.name for p in root.glob("*.txt") if not p.with_suffix(".yaml").is_file())
    if orphans:
        raise CorpusError(f"text without metadata: {', '.join(orphans)}")
    for meta_path in sorted(root.glob("*.yaml")):
        yield load_uncoded(meta_path)


def cases(split: str | None = None, root: Path = CORPUS) -> Iterator[Case]:
    """Every case in name order, or those of one split (``dev`` or ``holdout``)."""
    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {SPLITS}")
    orphans = sorted(p.name for p in root.glob("*.txt") if not p.with_suffix(".yaml").is_file())
    if orphans:
        raise CorpusError(f"text without metadata: {', '.join(orphans)}")
    for meta_path in sorted(root.glob("*.yaml")):
        case = load_case(meta_path)
        if split is None or case.split == split:
            yield case
