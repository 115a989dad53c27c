"""Partial data never turns a broken cluster healthy.

Broken bundles (the shipped drop-in incident, and an operator stack with a crash-looping driver
and toolkit) lose each file in turn, or have each JSON file cut mid-object, and are read with
``--keep-going``. For every run of ``check`` and ``why ml/train-llm-0`` the exit code is 1 or 3
(never 0; 2 only with a one-line error naming the missing input, as ``why`` without the pod list
answers), and every finding that failed on the whole bundle either still fails or an
``unknown`` says which input was missing (its ``params.missing`` / source names the file's input).
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpuxray.cli.main import run
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.demo import GPU_TAINT, GPU_TOLERATION, build_demo
from gpuxray.scenarios.operator import add_gpu_operator

Key = tuple[str, str, str]  # code, subject kind, subject name


def _operator_broken() -> ClusterBuilder:
    b = ClusterBuilder()
    b.node("cpu-0", cpu="16")
    for n in ("gpu-a", "gpu-b"):
        b.node(n, gpus=4, taints=[GPU_TAINT])
    add_gpu_operator(b, ["gpu-a", "gpu-b"],
                     broken={"driver": "gpu-a:secure-boot", "toolkit": "gpu-b"})
    b.pod("ml", "train-llm-0", gpus=2, tolerations=[GPU_TOLERATION])
    for res in ("events", "daemonsets", "deployments", "replicasets", "jobs", "statefulsets",
                "resourcequotas", "configmaps"):
        b.ensure(res)
    return b


SCENARIOS = {"demo": build_demo, "operator-driver-toolkit": _operator_broken}
COMMANDS = (("check",), ("why", "ml/train-llm-0"))


def _run(root: Path, args: tuple[str, ...]) -> tuple[int, dict[str, Any]]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run([*args, "--bundle", str(root), "--keep-going", "-o", "json"])
    assert code != 2 or not out.getvalue(), err.getvalue()
    if code == 2:  # an input error is a valid answer; it must be one line
        msg = err.getvalue().strip()
        assert msg and "\n" not in msg and "Traceback" not in msg, msg
        return code, {"error": msg}
    return code, json.loads(out.getvalue())


def _fails(doc: dict[str, Any]) -> set[Key]:
    return {(f["code"], f["subject"]["kind"], f["subject"]["name"])
            for f in doc.get("findings", []) if f["status"] == "fail"}


def _cites(doc: dict[str, Any], key: Key, rel: str) -> bool:
    host = rel.split("/files", 1)[-1] if rel.startswith("nodes/") else rel
    for f in doc.get("findings", []):
        if (f["code"], f["subject"]["kind"], f["subject"]["name"]) == key:
            ev = json.dumps(f.get("evidence", []))
            if rel in ev or (host != rel and host in ev):
                return True
    return False


def _unknown_texts(doc: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    for f in doc.get("findings", []):
        if f["status"] == "unknown":
            out.append((f["code"], json.dumps(f)))
    for step in doc.get("path", []):
        if step.get("result") == "unknown":
            out.append(("", json.dumps(step)))
    return out


def _names_input(text: str, rel: str) -> bool:
    """Does an unknown name the removed file's input? By its path, its stem (``cluster/pods``),
    or for host files the node's facts (``nodes/N``)."""
    parts = rel.split("/")
    stem = rel.rsplit(".", 1)[0]
    if rel in text or stem in text:
        return True
    if parts[0] == "nodes" and len(parts) > 2:
        return f"nodes/{parts[1]}" in text or parts[-1].rsplit(".", 1)[0] in text
    if parts[0] == "logs":
        return "logs" in text
    if parts[0] == "metrics":
        return "metrics" in text or "DCGM" in text
    return False


def _violations(root: Path, rel: str, base: dict[tuple[str, ...], tuple[int, dict[str, Any]]]
                ) -> list[str]:
    bad = []
    for args in COMMANDS:
        code, doc = _run(root, args)
        if code == 2:  # e.g. why without pods.json: refused, naming the missing input
            if not _names_input(doc["error"], rel):
                bad.append(f"{rel}: {' '.join(args)}: exit 2 without naming it: {doc['error']}")
            continue
        if code not in (1, 3):
            bad.append(f"{rel}: {' '.join(args)} exit {code}")
        # a finding whose own evidence is the removed file may go with it (deleting the bad
        # drop-in does remove the cause); the exit code above still has to say "broken"
        before = {k for k in _fails(base[args][1])
                  if not _cites(base[args][1], k, rel)}
        after = _fails(doc)
        unknowns = _unknown_texts(doc)
        for key in sorted(before - after):
            same_code = [t for c, t in unknowns if c == key[0]]
            if same_code or any(_names_input(t, rel) for _c, t in unknowns):
                continue
            bad.append(f"{rel}: {' '.join(args)}: {key} no longer fails and no unknown says why")
        if args[0] == "why":
            verdict = doc.get("verdict") or {}
            if verdict.get("status") not in ("fail", "unknown"):
                bad.append(f"{rel}: why verdict {verdict.get('status')!r}")
    return bad


@contextlib.contextmanager
def _without(path: Path) -> Iterator[None]:
    data = path.read_bytes()
    path.unlink()
    try:
        yield
    finally:
        path.write_bytes(data)


@contextlib.contextmanager
def _truncated(path: Path) -> Iterator[None]:
    data = path.read_bytes()
    cut = data.find(b"{", len(data) // 2)  # mid-object: after an opening brace
    path.write_bytes(data[: cut + 1 if cut >= 0 else len(data) // 2])
    try:
        yield
    finally:
        path.write_bytes(data)


@pytest.fixture(scope="module", params=sorted(SCENARIOS))
def broken(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> tuple[Path, dict[tuple[str, ...], tuple[int, dict[str, Any]]]]:
    root = SCENARIOS[request.param]().write(tmp_path_factory.mktemp("partial") / "b")
    base = {args: _run(root, args) for args in COMMANDS}
    for args, (code, doc) in base.items():
        assert code == 1 and _fails(doc), args  # the scenario really is broken
    return root, base


def test_removing_any_file_never_reads_healthy(
        broken: tuple[Path, dict[tuple[str, ...], tuple[int, dict[str, Any]]]]) -> None:
    root, base = broken
    files = sorted(p for p in root.rglob("*") if p.is_file())
    assert len(files) > 20
    bad: list[str] = []
    for f in files:
        with _without(f):
            bad += _violations(root, f.relative_to(root).as_posix(), base)
    assert bad == []


def test_truncating_any_json_never_reads_healthy(
        broken: tuple[Path, dict[tuple[str, ...], tuple[int, dict[str, Any]]]]) -> None:
    root, base = broken
    files = sorted(p for p in root.rglob("*.json") if p.is_file() and p.stat().st_size > 2)
    assert files
    bad: list[str] = []
    for f in files:
        with _truncated(f):
            bad += _violations(root, f.relative_to(root).as_posix(), base)
    assert bad == []
