"""Benchmark runner: gpuxray against baselines measured on the same machine in the same run.

Targets on every shape (``generate.SHAPES``) at 5,000 nodes / 100,000 pods, whole processes:
  * floor = a process that only reads every file of the input and decodes its documents by
    the fastest route a plain Python process has, building nothing: JSON skim-decoded with
    msgspec (every byte parsed), YAML parsed by libyaml to its last event (PyYAML's C parser,
    ``yaml.parse``: every document's every scalar read). Both are what any reader of the
    input must do at least; gpuxray's own YAML route is that parse plus the fields it keeps
    (``sources/leanyaml.py``). Not ``yaml.load``: constructing every mapping as a dict is
    work a lean reader skips (a must-gather's 57 MB of operand pods took 12-14 s that way,
    and 105 s with the cyclic GC on, which this floor turns off as gpuxray does);
  * ``gpuxray capacity`` ≤ 2× floor, ``gpuxray check`` ≤ 3× floor;
  * ``gpuxray why`` one pod ≤ ``capacity``;
  * peak RSS ≤ 1.8× the input's size on disk;
  * the ``check -o json`` report grows with the distinct problems, not with the pods: within
    a budget per distinct finding (entry) and per subject listed, and with its entries at the
    main size at most 1.5× those of the same shape at ``--report-nodes`` (1,000 by default;
    a finding per pod would grow 5×);
  * live: ``capacity``/``why`` against ``gpuxray serve`` ≥ 20× faster than ``kubectl describe
    nodes`` on the same served fleet-shaped bundle (``--live-nodes``, 500 by default), and
    ``collect`` with a request count of O(kinds × pages);
  * scaling 5,000 → 20,000 nodes (``--sizes``): ``check`` time within 4.3×.

The commands of one shape run once per round, ``--repeat`` rounds interleaved; a ratio is a
command's best time over the floor's best time (each the fastest of its rounds), and the
spread is each round's command over the same round's floor (min–max). The best round's ratio
is not the figure: on a shared machine a stall that hits one round's floor alone gives that
round a tiny ratio (0.06 was seen), a pass that measured the stall. Peak RSS is the highest
seen (wait4).

    python bench/run.py [--shapes plain,fleet,pending-storm,mustgather] [--sizes 5000,20000]
                        [--main 5000] [--repeat 5] [--work DIR] [--no-live]
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import msgspec

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import SHAPES, generate  # noqa: E402

FLOOR = r"""
import gc, sys, pathlib, msgspec, yaml
gc.disable()
class Skim(msgspec.Struct, gc=False):
    pass
class L(msgspec.Struct, gc=False):
    items: list[Skim] = []
n = 0
for f in sorted(p for p in pathlib.Path(sys.argv[1]).rglob("*") if p.is_file()):
    data = f.read_bytes()
    if f.suffix == ".json" and f.parent.name == "cluster":
        n += len(msgspec.json.decode(data, type=L).items)
    elif f.suffix == ".yaml":
        for _event in yaml.parse(data, Loader=yaml.CSafeLoader):
            n += 1
"""


@dataclass
class Measure:
    seconds: float
    rss_mb: float
    rc: int
    out_bytes: int = 0


#: Runs the measured commands, started first so that it stays small. A child's peak RSS as
#: wait4 reports it includes the RSS high-water mark of the process that spawned it (Linux
#: carries the parent's mark over fork/vfork and exec): measured from this runner after it had
#: decoded a 313 MB pods.json, a 150 MB must-gather run read as 402 MB.
SPAWNER = r"""
import json, os, subprocess, sys, tempfile, time
for line in sys.stdin:
    cmd = json.loads(line)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        size = out.tell()
        err.seek(0)
        tail = err.read()[-2000:].decode(errors="replace")
    print(json.dumps([wall, usage.ru_maxrss, os.waitstatus_to_exitcode(status), size, tail]),
          flush=True)
"""
_spawner: subprocess.Popen[str] | None = None


def start_spawner() -> None:
    global _spawner
    _spawner = subprocess.Popen([sys.executable, "-c", SPAWNER], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)


def measure(cmd: list[str]) -> Measure:
    """One run of ``cmd``: wall time, peak RSS from wait4, and the size of what it printed."""
    if _spawner is None:
        start_spawner()
    assert _spawner is not None and _spawner.stdin is not None and _spawner.stdout is not None
    _spawner.stdin.write(json.dumps(cmd) + "\n")
    _spawner.stdin.flush()
    wall, maxrss_kb, rc, size, err = json.loads(_spawner.stdout.readline())
    if rc not in (0, 1, 3):
        raise SystemExit(f"{' '.join(cmd)} failed ({rc}): {err[-500:]}")
    return Measure(wall, maxrss_kb / 1024, rc, size)


def keep_best(best: Measure | None, m: Measure) -> Measure:
    """The fastest run's time, and the highest peak RSS seen in any run."""
    if best is None:
        return m
    fastest = m if m.seconds < best.seconds else best
    return Measure(fastest.seconds, max(m.rss_mb, best.rss_mb), fastest.rc,
                   max(m.out_bytes, best.out_bytes))


def compile_package() -> None:
    """Measure gpuxray as installed: ``pip install`` writes the bytecode, an editable install
    under ``PYTHONDONTWRITEBYTECODE`` (set on this machine) never does, and recompiling every
    module on every start cost ~0.4 s per command here."""
    import compileall

    import gpuxray

    compileall.compile_dir(str(Path(gpuxray.__file__).parent), quiet=1)
    print(f"bytecode compiled for {Path(gpuxray.__file__).parent} (as pip install does)",
          file=sys.stderr)


def measure_rounds(cmds: list[list[str]], repeat: int) -> tuple[list[Measure], list[list[float]]]:
    """Each command once per round, ``repeat`` rounds: the best of each, and per round every
    command's time over that round's floor (``cmds[0]``): a slow spell of a shared machine then
    slows the floor and the commands alike instead of skewing one ratio."""
    best: list[Measure | None] = [None] * len(cmds)
    ratios: list[list[float]] = [[] for _ in cmds]
    for _ in range(repeat):
        ms = [measure(cmd) for cmd in cmds]
        for i, m in enumerate(ms):
            best[i] = keep_best(best[i], m)
            ratios[i].append(m.seconds / ms[0].seconds)
    return [b for b in best if b is not None], ratios


def bundle_size_mb(root: Path) -> float:
    return sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) / 2**20


class _Meta(msgspec.Struct):
    name: str = ""
    namespace: str = ""


class _Spec(msgspec.Struct, rename="camel"):
    node_name: str = ""


class _Pod(msgspec.Struct):
    metadata: _Meta
    spec: _Spec


class _Pods(msgspec.Struct):
    items: list[_Pod]


def target_pod(root: Path) -> str | None:
    """The pod ``why`` is asked about: the first pending pod. None for a must-gather: it lacks
    the pods input (only the operator's pods), and ``why`` refuses to guess (exit 2)."""
    if (root / "must-gather.log").exists():
        return None
    pods = msgspec.json.decode((root / "cluster" / "pods.json").read_bytes(), type=_Pods).items
    p = next(p for p in pods if not p.spec.node_name)
    return f"{p.metadata.namespace}/{p.metadata.name}"


def gx(*args: str) -> list[str]:
    return [sys.executable, "-m", "gpuxray", *args]


def ensure_input(work: Path, shape: str, nodes: int) -> Path:
    root = work / f"{shape}-{nodes}"
    if not (root / "manifest.json").exists() and not (root / "must-gather.log").exists():
        print(f"generating {shape}: {nodes} nodes / {nodes * 20} pods …", file=sys.stderr)
        for old in (root, work / f"{root.name}.bundle"):
            if old.exists():
                shutil.rmtree(old)
        generate(root, nodes, 20, shape=shape)
    return root


REPORT_BYTES_PER_FINDING = 3000  # one folded finding: message, evidence, remedy, params
# each subject a folded finding lists: its subject object (~100 B pretty-printed), its id
# (~50 B), its id and name in an incident's root and subjects (~100 B), its own values where
# it has some (a pinned pod's node and holders, ~300 B)
REPORT_BYTES_PER_SUBJECT = 400
REPORT_GROWTH = 1.5  # distinct findings at the main size over those at --report-nodes


def report_shape(root: Path) -> dict[str, int]:
    """Findings, subjects and bytes of ``check -o json``: the budget is per distinct finding
    plus per subject listed, so a report that repeats a finding per pod overruns it."""
    out = subprocess.run(gx("check", "--bundle", str(root), "-o", "json"),
                         capture_output=True, check=False).stdout
    doc = json.loads(out)
    findings = doc["findings"]
    subjects = sum(len(f.get("subjects", [f["subject"]])) for f in findings)
    budget = REPORT_BYTES_PER_FINDING * len(findings) + REPORT_BYTES_PER_SUBJECT * subjects
    return {"findings": len(findings), "subjects": subjects, "report_bytes": len(out),
            "report_budget": budget}


def measure_shape(work: Path, shape: str, nodes: int, repeat: int,
                  report_nodes: int = 0) -> dict[str, object]:
    root = ensure_input(work, shape, nodes)
    size = bundle_size_mb(root)
    pod = target_pod(root)
    cmds = [[sys.executable, "-c", FLOOR, str(root)],
            gx("capacity", "--bundle", str(root), "-o", "json"),
            gx("check", "--bundle", str(root), "-o", "json")]
    if pod is not None:
        cmds.append(gx("why", pod, "--bundle", str(root), "-o", "json"))
    best, ratios = measure_rounds(cmds, repeat)
    floor, cap, chk = best[:3]
    why = best[3] if pod is not None else None
    rss = max(m.rss_mb for m in best[1:])
    why_cap = [w / c for w, c in zip(ratios[3], ratios[1], strict=True)] if why else [0.0]
    row: dict[str, object] = {
        "shape": shape, "nodes": nodes, "pods": nodes * 20, "input_mb": round(size, 1),
        "floor_s": round(floor.seconds, 3), "capacity_s": round(cap.seconds, 3),
        "check_s": round(chk.seconds, 3), "why_s": round(why.seconds, 3) if why else None,
        # best time over best time: a stall that hits only one round's floor makes that
        # round's ratio tiny, and the best round's ratio would then pass on the stall
        "capacity_x": round(cap.seconds / floor.seconds, 2),
        "check_x": round(chk.seconds / floor.seconds, 2),
        "why_vs_capacity": round(why.seconds / cap.seconds, 2) if why else None,
        "capacity_x_range": [round(min(ratios[1]), 2), round(max(ratios[1]), 2)],
        "check_x_range": [round(min(ratios[2]), 2), round(max(ratios[2]), 2)],
        "why_vs_capacity_range": [round(min(why_cap), 2), round(max(why_cap), 2)],
        "peak_rss_mb": round(rss, 1), "rss_x_input": round(rss / size, 2),
        "rounds": repeat}
    row.update(report_shape(root))
    if 0 < report_nodes < nodes:  # the same shape smaller: do the distinct findings grow?
        small = report_shape(ensure_input(work, shape, report_nodes))
        row.update({"small_nodes": report_nodes, "small_findings": small["findings"],
                    "small_subjects": small["subjects"],
                    "small_report_bytes": small["report_bytes"]})
    print(json.dumps(row), file=sys.stderr)
    return row


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def live_comparison(bundle: Path, repeat: int) -> dict[str, float] | None:
    """``capacity``, ``why`` and ``collect`` through `gpuxray serve` vs ``kubectl describe
    nodes`` on the same served bundle, interleaved by round; describe (O(nodes) requests, each
    a pod list) runs once, in the first round."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        print("kubectl not found: live comparison skipped", file=sys.stderr)
        return None
    port = free_port()
    log = Path(tempfile.mkdtemp()) / "requests.log"
    serve = subprocess.Popen(gx("serve", str(bundle), "--port", str(port), "--request-log",
                                str(log)),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        kc = log.parent / "kubeconfig"
        kc.write_text(json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "bench",
            "clusters": [{"name": "bench", "cluster": {"server": f"http://127.0.0.1:{port}"}}],
            "users": [{"name": "bench", "user": {}}],
            "contexts": [{"name": "bench", "context": {"cluster": "bench", "user": "bench"}}]}))

        def lines() -> int:
            return log.read_text().count("\n") if log.exists() else 0

        requests: dict[str, int] = {}
        best: dict[str, Measure] = {}
        pod = target_pod(bundle)
        cmds = {"collect": lambda i: gx("collect", "-o", str(log.parent / f"collected-{i}"),
                                        "--kubeconfig", str(kc), "-q"),
                "capacity": lambda i: gx("capacity", "--kubeconfig", str(kc), "-o", "json"),
                "why": lambda i: gx("why", pod, "--kubeconfig", str(kc), "-o", "json")}
        for i in range(repeat):
            for name, cmd in cmds.items():
                before = lines()
                m = measure(cmd(i))
                requests[name] = max(requests.get(name, 0), lines() - before)
                best[name] = keep_best(best.get(name), m)
            if i == 0:
                best["describe"] = measure([kubectl, "--kubeconfig", str(kc), "--cache-dir",
                                            str(log.parent / "c"), "describe", "nodes"])
        d = best["describe"].seconds
        return {"describe_s": d, **{f"{k}_s": best[k].seconds for k in cmds},
                **{f"{k}_speedup": d / best[k].seconds for k in cmds},
                **{f"{k}_requests": requests[k] for k in cmds}}
    finally:
        serve.terminate()
        serve.wait(10)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--sizes", default="5000,20000",
                    help="node counts for the growth check (plain shape)")
    ap.add_argument("--scale-shape", default="plain")
    ap.add_argument("--main", type=int, default=5000)
    ap.add_argument("--live-nodes", type=int, default=500,
                    help="bundle size for the serve/kubectl comparison (describe is O(nodes²))")
    ap.add_argument("--live-shape", default="fleet")
    ap.add_argument("--no-live", action="store_true",
                    help="skip the serve/kubectl comparison (its target is then not judged)")
    ap.add_argument("--report-nodes", type=int, default=1000,
                    help="also generate every shape at this size and check that the report's "
                         "distinct findings do not grow with the cluster (0: skip)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--work", type=Path, default=HERE / "out")
    ap.add_argument("--json", type=Path, default=None, help="also write results here")
    a = ap.parse_args()
    start_spawner()  # before anything here grows (see SPAWNER)
    a.work.mkdir(parents=True, exist_ok=True)
    compile_package()
    shapes = [s for s in a.shapes.split(",") if s]
    for s in shapes:
        if s not in SHAPES:
            raise SystemExit(f"unknown shape {s!r}; known: {', '.join(SHAPES)}")
    results: dict[str, object] = {}
    ok = True

    rows = [measure_shape(a.work, s, a.main, a.repeat, a.report_nodes) for s in shapes]
    results["shapes"] = rows
    sizes = sorted({int(s) for s in a.sizes.split(",") if s} | {a.main})
    scale = [next((r for r in rows if r["shape"] == a.scale_shape), None) if n == a.main
             else None for n in sizes]
    scale = [r if r is not None else measure_shape(a.work, a.scale_shape, n, a.repeat)
             for r, n in zip(scale, sizes, strict=True)]
    results["scale"] = scale

    targets: list[tuple[str, float, float, str]] = []
    for r in rows:
        sh = str(r["shape"])
        targets += [
            (f"{sh}: capacity ≤ 2× floor", float(r["capacity_x"]), 2.0, "le"),  # type: ignore[arg-type]
            (f"{sh}: check ≤ 3× floor", float(r["check_x"]), 3.0, "le"),  # type: ignore[arg-type]
            *([(f"{sh}: why ≤ capacity", float(r["why_vs_capacity"]), 1.0, "le")]  # type: ignore[arg-type]
              if r["why_vs_capacity"] is not None else []),
            (f"{sh}: peak RSS ≤ 1.8× input", float(r["rss_x_input"]), 1.8, "le"),  # type: ignore[arg-type]
            (f"{sh}: report ≤ budget (KB)", round(int(r["report_bytes"]) / 1024, 1),  # type: ignore[call-overload]
             round(int(r["report_budget"]) / 1024, 1), "le"),  # type: ignore[call-overload]
        ]
        if "small_findings" in r:
            targets.append((f"{sh}: distinct findings {r['small_nodes']}→{r['nodes']} nodes",
                            round(int(r["findings"]) / max(int(r["small_findings"]), 1), 2),  # type: ignore[call-overload]
                            REPORT_GROWTH, "le"))
    base = scale[0]
    for r in scale[1:]:
        k = int(r["nodes"]) / int(base["nodes"])  # type: ignore[call-overload]
        t = float(r["check_s"]) / float(base["check_s"])  # type: ignore[arg-type]
        targets.append((f"growth {base['nodes']}→{r['nodes']} nodes: check time", round(t, 2),
                        round(4.3 * k / 4, 2), "le"))
    live = None if a.no_live else live_comparison(
        ensure_input(a.work, a.live_shape, a.live_nodes), a.repeat)
    if live is not None:
        results["live"] = live
        for k in ("capacity", "why"):
            targets.append((f"live {k} ≥ 20× faster than kubectl describe nodes",
                            round(float(live[f"{k}_speedup"]), 1), 20.0, "ge"))

    print(f"\nTargets ({a.main} nodes, {a.main * 20} pods, best of {a.repeat} interleaved "
          "rounds):")
    for name, value, limit, how in targets:
        passed = value <= limit if how == "le" else value >= limit
        ok &= passed
        print(f"  {'PASS' if passed else 'FAIL'}  {name:56} measured {value} (limit {limit})")
    if live is not None:
        print(f"  live ({a.live_shape}, {a.live_nodes} nodes): kubectl describe nodes "
              f"{live['describe_s']:.2f}s; " + "; ".join(
                  f"{k} {live[f'{k}_s']:.2f}s in {live[f'{k}_requests']} requests"
                  for k in ("capacity", "why", "collect")))

    print("\nShapes (ratios: best time over the floor's best time; spread: per round, min–max):")
    hdr = ["shape", "nodes", "input_mb", "floor_s", "capacity_s", "check_s", "why_s",
           "capacity_x", "check_x", "why_vs_capacity", "rss_x_input", "findings", "subjects",
           "report_bytes", "small_findings"]
    print("  " + " | ".join(f"{h:>10}" for h in hdr))
    for r in rows + [r for r in scale if r not in rows]:
        print("  " + " | ".join(f"{r.get(h, '—')!s:>10}" for h in hdr))
        print(f"  {'':>10}   spread: capacity {r['capacity_x_range']}, check "
              f"{r['check_x_range']}, why/capacity {r['why_vs_capacity_range']}")
    if a.json:
        a.json.write_text(json.dumps(results, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
