"""Batches read from their lines (``leanyaml.line_items``) give what libyaml's route gives.

The line reader covers the block style go-yaml writes for ``kubectl get -o yaml`` and falls
back on anything else; it must never answer where libyaml answers otherwise or fails. Held
here on: text the real kubectl renders (random objects: YAML 1.1 words, indicators, quotes,
colons and hashes, long lines go-yaml folds, multi-line strings, unicode, nested lists),
PyYAML's block output of the same objects at several widths, the bench's must-gather, and
those texts mutated line by line (indentation, inserted indicators, tabs, joined and split
lines), where libyaml often fails. Each comparison is on ``repr`` (``True`` is not ``1``).
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuxray.model import k8s
from gpuxray.sources import leanyaml
from live_fixtures import kubectl_path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

PLANS: list[Any] = [leanyaml.plan_for(k8s.Pod), leanyaml.plan_for(k8s.DaemonSet),
                    leanyaml.plan_for(k8s.CustomResource), None]

WORDS = ["yes", "no", "on", "off", "y", "n", "null", "~", "true", "False", "1", "0", "-1",
         "0x1F", "0o17", "017", "1e3", "1_000", "1:20", ".inf", "-.Inf", ".nan", "2026-11-29",
         "2026-11-29T10:00:00Z", "2026-11-29 10:00:00", "<<", "=", "- a", "-a", "--x=1", "a: b",
         "a:b", "a #b", "a#b", "#c", "'q'", "it's", '"dq"', "{}", "[]", "{a: b}", "[1, 2]",
         "&a", "*a", "!t", "!!str", "|", "|-", "> x", "%d", "@x", "`b", "? k", "?x", ":x",
         "-", "---", "...", "ünï", "日本語", "\t", "\n", "a\nb", "a\n\nb\n", "x\n", " lead",
         "trail ", " ", "", "nvidia.com/gpu", "http://h/p#f", "\\", "\\n", "%", "a,b", "a]b",
         "x" * 70, "word " * 25, "nested: 'quote' and \"double\""]


#: what real pods hold: names, images, paths, flags, sentences (a ``: `` quotes a string)
TAME = ["gpu-operator", "nvcr.io/nvidia/driver:580.95.05", "/run/nvidia/validations",
        "--fail-on-init-error=false", "back-off 5m0s restarting failed container", "A100",
        "nvidia.com/gpu", "true", "1", "300", "Error: exit status 1", "it's", "ok #1",
        "don't panic", "100%", "é", "word " * 12]


def _string(rng: random.Random, words: list[str] = WORDS) -> str:
    return "".join(rng.choice(words) for _ in range(rng.choice((1, 1, 1, 2, 3, 6))))


def _anything(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if depth > 3 or r < 0.45:
        return rng.choice([_string(rng), _string(rng), rng.randint(-5, 10**12),
                           rng.choice([0.5, -1.25, 1e20]), rng.choice([True, False]), None])
    if r < 0.75:
        return {_string(rng) or "k": _anything(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    return [_anything(rng, depth + 1) for _ in range(rng.randint(0, 4))]


def _pod(rng: random.Random, i: int, tame: bool = False) -> dict[str, Any]:
    """A pod-shaped object with random strings where kubectl's output varies most; ``tame``:
    strings such as real pods hold, and no odd structure."""
    def s(rng: random.Random) -> str:
        return _string(rng, TAME if tame else WORDS)

    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"p-{i}", "namespace": "gpu-operator",
                     "labels": {f"l{j}": s(rng) for j in range(rng.randint(0, 3))},
                     "annotations": {(f"nvidia.com/a{j}" if tame else s(rng) or "a"): s(rng)
                                     for j in range(rng.randint(0, 3))},
                     "creationTimestamp": "2026-11-29T10:00:00Z",
                     "managedFields": [{"manager": "kubelet", "fieldsV1": {
                         "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                         "f:spec": {"f:containers": {'k:{"name":"c"}': {".": {}}}}}}]},
        "spec": {"nodeName": f"node-{i}",
                 "containers": [{"name": "c" if tame else s(rng) or "c", "image": s(rng),
                                 "args": [s(rng) for _ in range(rng.randint(0, 3))],
                                 "env": [{"name": s(rng) or "E", "value": s(rng)}],
                                 "resources": {"limits": {"nvidia.com/gpu": rng.choice(
                                     [1, "1", "0x2", 1.5, "yes"])}}}],
                 "tolerations": [{"key": s(rng), "operator": "Exists",
                                  "tolerationSeconds": rng.choice([300, "300"])}],
                 "extra": None if tame else _anything(rng)},
        "status": {"phase": rng.choice(["Running", "Pending", s(rng)]),
                   "conditions": [{"type": "Ready", "message": s(rng)}]},
    }


def as_list(docs: list[str]) -> bytes:
    """Single-object YAML documents as kubectl prints a List of them: each entry's first line
    after ``- ``, its other lines indented two columns."""
    out = ["apiVersion: v1", "items:"]
    for d in docs:
        lines = d.rstrip("\n").split("\n")
        out.append("- " + lines[0])
        out += [("  " + ln) if ln else "" for ln in lines[1:]]
    out += ["kind: List", "metadata:", '  resourceVersion: ""', ""]
    return "\n".join(out).encode()


def compare(data: bytes, plans: list[Any] = PLANS) -> tuple[int, int]:
    """Each batch of ``data`` both ways; (batches the line reader answered, batches)."""
    spans = list(leanyaml.item_batches(data) or [])
    assert spans, "not a kubectl List"
    answered = 0
    for a, b in spans:
        text = data[a:b]
        for plan in plans:
            try:
                fast: Any = repr(leanyaml.line_items(text.decode(), plan))
            except (leanyaml.Fallback, UnicodeDecodeError):
                fast = None
            try:
                slow: Any = repr(list(leanyaml._items(text, plan)))
            except (leanyaml.Fallback, yaml.YAMLError, RecursionError) as exc:
                slow = f"error: {type(exc).__name__}"
            if fast is not None:
                assert fast == slow, text.decode(errors="replace")[:2000]
                answered += plan is PLANS[0]
    return answered, len(spans)


@pytest.fixture(scope="module")
def kubectl_docs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """400 random pods rendered by the real kubectl (``label --local``: go-yaml, no server),
    the last 100 tame."""
    exe = kubectl_path()
    rng = random.Random(22)
    pods = [_pod(rng, i, tame=i >= 300) for i in range(400)]
    f = tmp_path_factory.mktemp("kubectl") / "pods.json"
    f.write_text("\n".join(json.dumps(p) for p in pods))
    out = subprocess.run([exe, "label", "--local", "-f", str(f), "-o", "yaml", "gx=1",
                          "--show-managed-fields"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    docs = [d for d in re.split(r"(?m)^(?=apiVersion: )", out) if d]
    assert len(docs) == len(pods)
    return docs


def test_kubectl_output_reads_alike(kubectl_docs: list[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(leanyaml, "BATCH_ITEMS", 1)
    answered, batches = compare(as_list(kubectl_docs))
    # the random words are dense: a batch holding a key with a colon, a complex key, a
    # block header with an indentation indicator, ``<<`` or ``=`` falls back
    assert batches == 400 and answered >= 120
    assert compare(as_list(kubectl_docs[300:])) == (100, 100)  # tame ones: every one read


def test_kubectl_block_styles_are_read_not_fallen_back(kubectl_docs: list[str]) -> None:
    """What go-yaml writes for plain objects is read from the lines: folded plain and quoted
    scalars, literal blocks, quoted keys and YAML 1.1 words, escapes, ``{}``/``[]``."""
    def answered(doc: str) -> bool:
        data = as_list([doc])
        a, b = next(iter(leanyaml.item_batches(data) or []))
        try:
            leanyaml.line_items(data[a:b].decode(), PLANS[0])
        except leanyaml.Fallback:
            return False
        return True

    read = [d for d in kubectl_docs if answered(d)]
    for form in (r"\n +f:spec:\n", r"'\n +\S", r"\n +[a-z]+\n +[a-z]", r": \|\n", r": \|-\n",
                 r': "yes"\n', r'\n +"[^"\n]*": ', r"\\t", r"\\n", r": \{\}\n", r": \[\]\n"):
        assert any(re.search(form, d) for d in read), form


@pytest.mark.parametrize("width", [20, 80, 10_000])
def test_pyyaml_block_output_reads_alike(width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(width)
    docs = [yaml.safe_dump(_pod(rng, i, tame=i % 2 == 0), default_flow_style=False,
                           width=width, allow_unicode=True) for i in range(200)]
    monkeypatch.setattr(leanyaml, "BATCH_ITEMS", 1)
    answered, batches = compare(as_list(docs))
    assert answered >= 100 and batches == 200


def test_bench_mustgather_reads_from_lines(tmp_path: Path) -> None:
    from generate import generate

    root = generate(tmp_path / "mg", 30, 20, shape="mustgather")
    for name in ("gpu_operand_pods.yaml", "gpu_operand_ds.yaml"):
        answered, batches = compare((root / name).read_bytes())
        assert answered == batches  # every batch of the bench's text is read from its lines


MUTATIONS = [" ", "  ", "-", "- ", ":", ": ", "#", " #", "'", '"', "|", ">", "\t", "{", "}",
             "[", "]", "!", "&", "*", "?", "%", "\\", "\n", "\r", "''", "|-", "~"]


def _mutate(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(2, len(lines) - 4)
        ln = lines[i]
        op = rng.random()
        if op < 0.25:  # indent or dedent
            cut = rng.randint(1, 3)
            lines[i] = ln[cut:] if rng.random() < 0.5 else " " * cut + ln
        elif op < 0.6:  # insert an indicator
            at = rng.randint(0, len(ln))
            lines[i] = ln[:at] + rng.choice(MUTATIONS) + ln[at:]
        elif op < 0.75:  # remove a character
            at = rng.randrange(len(ln)) if ln else 0
            lines[i] = ln[:at] + ln[at + 1:]
        elif op < 0.85:  # join two lines
            lines[i:i + 2] = [ln + lines[i + 1].lstrip(" ")]
        elif op < 0.95:  # blank line
            lines.insert(i, " " * rng.randint(0, 6))
        else:  # a copy of a line elsewhere
            lines.insert(rng.randrange(2, len(lines) - 4), ln)
    return "\n".join(lines)


def test_mutated_texts_never_read_otherwise(kubectl_docs: list[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Where libyaml fails or reads a mutated text otherwise, the line reader falls back."""
    monkeypatch.setattr(leanyaml, "BATCH_ITEMS", 1000)
    rng = random.Random(7)
    base = [as_list(kubectl_docs[i:i + 3]).decode() for i in range(300, 400, 3)]
    base += [as_list(kubectl_docs[i:i + 2]).decode() for i in range(0, 40, 2)]
    rng2 = random.Random(8)
    base += [as_list([yaml.safe_dump(_pod(rng2, i, tame=True), default_flow_style=False,
                                     width=40)]).decode() for i in range(40)]
    answered = errors = 0
    for k in range(2000):
        text = _mutate(rng, base[k % len(base)]).encode()
        if leanyaml.item_batches(text) is None:
            continue
        a, _ = compare(text, [PLANS[0], None])
        answered += a
        try:
            list(yaml.safe_load_all(text))
        except yaml.YAMLError:
            errors += 1
    assert answered > 100 and errors > 100  # both outcomes were really exercised


def reports(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """``capacity`` and ``check`` ``-o json`` of ``root``, as printed."""
    from gpuxray.cli.main import run

    out = {}
    for cmd in ("capacity", "check"):
        run([cmd, "--bundle", str(root), "-o", "json"])
        out[cmd] = capsys.readouterr().out
    return out


def reports_both_ways(root: Path, capsys: pytest.CaptureFixture[str],
                      monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The reports with the line reader, held byte for byte to those without it."""
    lines = reports(root, capsys)
    with monkeypatch.context() as m:
        m.setattr(leanyaml, "LINES", False)
        composed = reports(root, capsys)
    assert lines == composed
    return lines


def test_bench_mustgather_reports_are_the_same(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from generate import generate

    root = generate(tmp_path / "mg", 60, 20, shape="mustgather")
    monkeypatch.setattr(leanyaml, "BATCH_ITEMS", 16)
    got = reports_both_ways(root, capsys, monkeypatch)
    assert len(json.loads(got["capacity"])["nodes"]) > 10
    assert json.loads(got["check"])["findings"]
