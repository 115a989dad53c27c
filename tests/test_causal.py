"""The causal model is data that stays in step with the catalog: every edge names codes that
exist, says why with a seed section or facts.md, and the edges form no circle (a circle would
leave an incident without a root)."""

from __future__ import annotations

import itertools
import re

from gpuxray.knowledge.causal import EDGES, FOLD_BY, VERIFY, Join, causes_of, verify_command
from gpuxray.knowledge.codes import CATALOG


def test_every_edge_names_existing_codes() -> None:
    unknown = sorted({c for e in EDGES for c in (e.cause, e.effect) if c not in CATALOG})
    assert unknown == []
    assert set(FOLD_BY) <= set(CATALOG)


def test_every_edge_cites_its_source() -> None:
    bad = [f"{e.cause}->{e.effect}" for e in EDGES
           if not re.search(r"(seed|facts\.md) §\d", e.why)]
    assert bad == []


def test_no_edge_twice_and_no_self_edge() -> None:
    pairs = [(e.cause, e.effect) for e in EDGES]
    assert len(pairs) == len(set(pairs))
    assert all(a != b for a, b in pairs)
    assert all(isinstance(e.join, Join) for e in EDGES)


def test_edges_form_no_circle() -> None:
    graph: dict[str, set[str]] = {}
    for e in EDGES:
        graph.setdefault(e.cause, set()).add(e.effect)
    state: dict[str, int] = {}

    def visit(c: str, path: list[str]) -> None:
        assert state.get(c) != 1, "circle: " + " -> ".join([*path, c])
        if state.get(c) == 2:
            return
        state[c] = 1
        for d in sorted(graph.get(c, ())):
            visit(d, [*path, c])
        state[c] = 2

    for c in sorted(graph):
        visit(c, [])


def test_issue_chains_are_in_the_model() -> None:
    """Seed §5's chain and the others the model must carry."""
    have = {(e.cause, e.effect) for e in EDGES}
    for chain in (("GX501", "GX301", "GX411", "GX302", "GX604", "GX202"),
                  ("GX506", "GX403", "GX302"), ("GX507", "GX403"), ("GX412", "GX403"),
                  ("GX505", "GX203", "GX604"), ("GX401", "GX604"), ("GX402", "GX604"),
                  ("GX408", "GX207"), ("GX408", "GX602"), ("GX413", "GX207"), ("GX413", "GX602")):
        for a, b in itertools.pairwise(chain):
            assert (a, b) in have, (a, b)
    assert {e.cause for e in causes_of("GX410")} >= {"GX411", "GX302", "GX403", "GX406"}


def test_verify_commands_come_from_seed_section_7() -> None:
    assert verify_command("GX501").startswith("containerd config dump | grep -c runtimes.nvidia")
    assert "journalctl -u containerd" in verify_command("GX504")
    assert verify_command("GX410") == "kubectl -n gpu-operator get ds,po -o wide"
    assert verify_command("GX601") == "gpuxray check --code GX601"
    assert all(p.startswith("GX") for p, _ in VERIFY)
