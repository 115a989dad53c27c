"""The signature catalog itself: every signature carries real example lines with their upstream
source and matches each (so its needle prefilter cannot silently hide one), votes only for known
causes, and scans linearly."""

from __future__ import annotations

import re
import time

import pytest

from gpuxray.diagnose.triage import triage
from gpuxray.engines.signatures import MAX_LINE, Matcher, default_matcher, full_matcher, rank
from gpuxray.knowledge.codes import CATALOG
from gpuxray.knowledge.signatures import (
    CAUSE_BY_ID,
    CAUSES,
    CHECK_CAUSE,
    DISTINGUISH,
    SIGNATURES,
    Signature,
)

SOURCE = re.compile(r"^(?:[\w.-]+/[\w.-]+@[\w.+-]+:\S+|https://\S+)$")


@pytest.mark.parametrize("sig", SIGNATURES, ids=lambda s: s.id)
def test_signature_has_a_sourced_real_example(sig: Signature) -> None:
    """Every signature carries at least one line a real component prints, with the upstream
    file that prints it (owner/repo@tag:path) or the public ticket it was pasted in."""
    assert sig.examples, f"{sig.id}: no example line"
    for ex in sig.examples:
        assert ex.line.strip() and SOURCE.match(ex.source), (sig.id, ex.source)


@pytest.mark.parametrize("sig", SIGNATURES, ids=lambda s: s.id)
def test_signature_matches_every_example(sig: Signature) -> None:
    """Each wording variant must match: the needle prefilter cannot silently hide one."""
    for ex in sig.examples:
        assert sig in full_matcher().match_line(ex.line), (sig.id, ex.line)


def test_examples_are_distinct_variants() -> None:
    for s in SIGNATURES:
        lines = [e.line for e in s.examples]
        assert len(lines) == len(set(lines)), s.id


def test_catalog_is_consistent() -> None:
    ids = [s.id for s in SIGNATURES]
    assert len(ids) == len(set(ids))
    assert len({c.id for c in CAUSES}) == len(CAUSES)
    for c in CAUSES:
        assert c.code in CATALOG
    for s in SIGNATURES:
        assert s.votes or s.against
        assert all(cid in CAUSE_BY_ID and w > 0 for cid, w in s.votes)
        assert all(cid in CAUSE_BY_ID for cid in s.against)
        assert s.needle == s.needle.lower()
    for code, cid in CHECK_CAUSE.items():
        assert code in CATALOG and cid in CAUSE_BY_ID
    for pair in DISTINGUISH:
        assert len(pair) == 2 and pair <= set(CAUSE_BY_ID)


def test_every_cause_is_reachable() -> None:
    from gpuxray.diagnose.triage import DRIVER_STAGES
    from gpuxray.knowledge.signatures import OPERAND_STATE_VOTES

    table = {cid for _p, _s, votes in OPERAND_STATE_VOTES for cid in votes}
    stages = {cid for _st, votes in DRIVER_STAGES for cid in votes}
    assert table | stages <= set(CAUSE_BY_ID)
    from gpuxray.knowledge.signatures import COMPONENTS

    failing = {cid for c in COMPONENTS for cid, _w in c.failing}
    assert failing <= set(CAUSE_BY_ID)
    voted = {cid for s in SIGNATURES for cid, _w in s.votes} | set(CHECK_CAUSE.values()) | table
    assert voted | failing == set(CAUSE_BY_ID)


def test_counter_lines_stay_out_of_the_bundle_matcher() -> None:
    """Lines that only rule a cause out must not be classified as that cause by the checks."""
    ids = {s.id for s in default_matcher().signatures}
    assert "module-loaded-unsigned" not in ids
    assert "module-loaded-unsigned" in {s.id for s in full_matcher().signatures}


def test_rank_counts_a_signature_once_with_bounded_bonus() -> None:
    m = Matcher(SIGNATURES)
    one = rank(m.scan_text("Insufficient nvidia.com/gpu"))
    many = rank(m.scan_text("\n".join(f"{i} Insufficient nvidia.com/gpu" for i in range(100))))
    assert one[0].score == 1.0
    assert many[0].score == 2.0  # 1 + 0.25 × 4 at most


def test_scan_is_linear_and_capped() -> None:
    m = default_matcher()
    big = "\n".join(f"I1129 10:02:{i % 60:02d}.000 1 main.go:317] Retrieving plugins {i}"
                    for i in range(100_000))
    t0 = time.perf_counter()
    assert m.scan_text(big) == []
    elapsed = time.perf_counter() - t0
    assert elapsed < 5.0
    # a pathological line costs no more than the cap
    t1 = time.perf_counter()
    m.match_line("(" * 10 * MAX_LINE + "no runtime for")
    assert time.perf_counter() - t1 < 1.0


def test_patterns_are_lower_case() -> None:
    """Patterns run on the lower-cased line without re.IGNORECASE (faster): no upper-case
    literal may appear outside an escape like \\d or \\S."""
    import re

    for s in SIGNATURES:
        assert not re.search(r"[A-Z]", re.sub(r"\\[A-Za-z]", "", s.pattern)), s.id


# Lines components print while working normally or while retrying a transient state; each is
# printed by the cited source and must not vote for a cause.
_ROUTINE_LINES = (
    # NVIDIA/gpu-operator@v25.10.1:cmd/nvidia-validator/main.go (retry during a normal start)
    'level=info msg="GPU resources are not yet discovered by the node, retry: 3"',
    # NVIDIA/gpu-operator@v25.10.1:cmd/nvidia-validator/main.go (dev-char symlinks, not the
    # device-plugin config-manager's symlink)
    "error validating driver installation: error creating symlinks: failed to create symlink "
    "creator",
    # NVIDIA/mig-parted@v0.15.0:deployments/container/reconfigure-mig.sh
    "Checking if the selected MIG config is currently applied or not",
    # NVIDIA/gpu-driver-container@06a208ca:ubuntu22.04/nvidia-driver
    "Updating the package cache...",
    "Stopping NVIDIA persistence daemon...",
)


@pytest.mark.parametrize("line", _ROUTINE_LINES)
def test_routine_lines_vote_for_nothing(line: str) -> None:
    assert default_matcher().match_line(line) == []


def test_an_indented_nvml_error_is_no_nvidia_smi_field() -> None:
    """nvidia-smi pads a field's name to the value column (a space before the colon); the NVML
    error a ticket indents has none, and stays the device-lost line it is."""
    codes = [c.cause.code for c in triage([("p", "    Failed to initialize NVML: Unknown Error\n")])
             .causes]
    assert codes[:1] == ["GX306"]
    field = triage([("p", "        Current                           : Unknown Error\n")])
    assert "smi-field-unknown-error" in {s for c in field.causes for s in c.signatures}

