"""Benchmark runner: gpuxray against baselines measured on the same machine in the same run.

Targets (5,000 nodes / 100,000 pods), whole processes:
  * floor = a process that only reads the bundle's files and skim-decodes them with msgspec;
  * ``gpuxray capacity`` ≤ 3× floor, ``gpuxray check`` ≤ 4× floor;
  * peak RSS ≤ 2× the bundle's size on disk;
  * ``gpuxray why`` one pod ≤ 1.5× ``capacity`` (no per-pod rescans);
  * live collection through ``gpuxray serve`` ≥ 20× faster than ``kubectl describe nodes`` on
    the same served bundle, with a request count of O(kinds × pages);
  * scaling 500 / 5,000 / 20,000 nodes: time and memory grow linearly.

Each measurement is the best of ``--repeat`` rounds, every command once per round (wall time;
peak RSS: the highest seen, from wait4).

    python bench/run.py [--sizes 500,5000,20000] [--main 5000] [--repeat 5] [--work DIR] [--no-live]
"""

from __future__ import annotations

import argparse
import json
import os
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

from generate import generate  # noqa: E402

FLOOR = r"""
import sys, pathlib, msgspec
class Skim(msgspec.Struct, gc=False):
    pass
class L(msgspec.Struct, gc=False):
    items: list[Skim] = []
n = 0
for f in sorted(pathlib.Path(sys.argv[1], "cluster").glob("*.json")):
    n += len(msgspec.json.decode(f.read_bytes(), type=L).items)
"""


@dataclass
class Measure:
    seconds: float
    rss_mb: float
    rc: int


def measure(cmd: list[str]) -> Measure:
    """One run of ``cmd``: wall time, and peak RSS from wait4."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    rc = os.waitstatus_to_exitcode(status)
    if rc not in (0, 1, 3):
        raise SystemExit(f"{' '.join(cmd)} failed ({rc}): {err[-500:]}")
    return Measure(wall, usage.ru_maxrss / 1024, rc)


def keep_best(best: Measure | None, m: Measure) -> Measure:
    """The fastest run's time, and the highest peak RSS seen in any run."""
    if best is None:
        return m
    fastest = m if m.seconds < best.seconds else best
    return Measure(fastest.seconds, max(m.rss_mb, best.rss_mb), fastest.rc)


def compile_package() -> None:
    """Measure gpuxray as installed: ``pip install`` writes the bytecode, an editable install
    under ``PYTHONDONTWRITEBYTECODE`` (set on this machine) never does, and recompiling every
    module on every start cost ~0.4 s per command here."""
    import compileall

    import gpuxray

    compileall.compile_dir(str(Path(gpuxray.__file__).parent), quiet=1)
    print(f"bytecode compiled for {Path(gpuxray.__file__).parent} (as pip install does)",
          file=sys.stderr)


def measure_rounds(cmds: list[list[str]], repeat: int) -> list[Measure]:
    """Each command once per round, ``repeat`` rounds, best of each: a slow spell of a shared
    machine then slows the floor and the commands alike instead of skewing one ratio."""
    best: list[Measure | None] = [None] * len(cmds)
    for _ in range(repeat):
        for i, cmd in enumerate(cmds):
            best[i] = keep_best(best[i], measure(cmd))
    return [b for b in best if b is not None]


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


def first_pending(root: Path) -> str:
    pods = msgspec.json.decode((root / "cluster" / "pods.json").read_bytes(), type=_Pods).items
    p = next(p for p in pods if not p.spec.node_name)
    return f"{p.metadata.namespace}/{p.metadata.name}"


def gx(*args: str) -> list[str]:
    return [sys.executable, "-m", "gpuxray", *args]


def ensure_bundle(work: Path, nodes: int) -> Path:
    root = work / f"bundle-{nodes}"
    if not (root / "manifest.json").exists():
        print(f"generating {nodes} nodes / {nodes * 20} pods …", file=sys.stderr)
        if root.exists():
            shutil.rmtree(root)
        generate(root, nodes, 20)
    return root


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def live_comparison(bundle: Path, repeat: int) -> dict[str, float] | None:
    """collect through `gpuxray serve` vs `kubectl describe nodes` on the same served bundle."""
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
        requests = 0
        col: Measure | None = None
        for i in range(repeat):  # best of the rounds; describe, at ~1 min, runs once
            out = log.parent / f"collected-{i}"
            before = log.read_text().count("\n") if log.exists() else 0
            m = measure(gx("collect", "-o", str(out), "--kubeconfig", str(kc), "-q"))
            after = log.read_text().count("\n") if log.exists() else 0
            requests = max(requests, after - before)
            col = keep_best(col, m)
        assert col is not None
        desc = measure([kubectl, "--kubeconfig", str(kc), "--cache-dir", str(log.parent / "c"),
                        "describe", "nodes"])
        return {"collect_s": col.seconds, "describe_s": desc.seconds,
                "speedup": desc.seconds / col.seconds, "collect_requests": requests}
    finally:
        serve.terminate()
        serve.wait(10)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", default="500,5000,20000")
    ap.add_argument("--main", type=int, default=5000)
    ap.add_argument("--live-nodes", type=int, default=500,
                    help="bundle size for the serve/kubectl comparison (describe is O(nodes²))")
    ap.add_argument("--no-live", action="store_true",
                    help="skip the serve/kubectl comparison (its target is then not judged)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--work", type=Path, default=HERE / "out")
    ap.add_argument("--json", type=Path, default=None, help="also write results here")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    compile_package()
    sizes = sorted({int(s) for s in a.sizes.split(",")} | {a.main})
    results: dict[str, object] = {}
    ok = True

    rows = []
    for n in sizes:
        root = ensure_bundle(a.work, n)
        size = bundle_size_mb(root)
        floor, cap, chk, why = measure_rounds([
            [sys.executable, "-c", FLOOR, str(root)],
            gx("capacity", "--bundle", str(root), "-o", "json"),
            gx("check", "--bundle", str(root), "-o", "json"),
            gx("why", first_pending(root), "--bundle", str(root), "-o", "json")], a.repeat)
        rows.append({"nodes": n, "pods": n * 20, "bundle_mb": round(size, 1),
                     "floor_s": round(floor.seconds, 2), "capacity_s": round(cap.seconds, 2),
                     "check_s": round(chk.seconds, 2), "why_s": round(why.seconds, 2),
                     "capacity_x": round(cap.seconds / floor.seconds, 2),
                     "check_x": round(chk.seconds / floor.seconds, 2),
                     "why_vs_capacity": round(why.seconds / cap.seconds, 2),
                     "peak_rss_mb": round(max(cap.rss_mb, chk.rss_mb, why.rss_mb), 1),
                     "rss_x_bundle": round(max(cap.rss_mb, chk.rss_mb, why.rss_mb) / size, 2)})
        print(json.dumps(rows[-1]), file=sys.stderr)
    results["scale"] = rows

    main_row = next(r for r in rows if r["nodes"] == a.main)
    targets = [
        ("capacity ≤ 3× floor", main_row["capacity_x"], 3.0, "le"),
        ("check ≤ 4× floor", main_row["check_x"], 4.0, "le"),
        ("peak RSS ≤ 2× bundle", main_row["rss_x_bundle"], 2.0, "le"),
        ("why ≤ 1.5× capacity", main_row["why_vs_capacity"], 1.5, "le"),
    ]
    live = None if a.no_live else live_comparison(ensure_bundle(a.work, a.live_nodes), a.repeat)
    if live is not None:
        results["live"] = live
        targets.append(("collect ≥ 20× faster than kubectl describe nodes",
                        round(float(live["speedup"]), 1), 20.0, "ge"))

    print(f"\nTargets ({a.main} nodes, {a.main * 20} pods):")
    for name, value, limit, how in targets:
        passed = value <= limit if how == "le" else value >= limit
        ok &= passed
        print(f"  {'PASS' if passed else 'FAIL'}  {name:52} measured {value}")
    if live is not None:
        print(f"  live: collect {live['collect_s']:.2f}s with {live['collect_requests']} "
              f"requests; kubectl describe nodes {live['describe_s']:.2f}s "
              f"({a.live_nodes} nodes)")

    print(f"\nScaling (best of {a.repeat}):")
    hdr = ["nodes", "pods", "bundle_mb", "floor_s", "capacity_s", "check_s", "why_s",
           "capacity_x", "check_x", "peak_rss_mb", "rss_x_bundle"]
    print("  " + " | ".join(f"{h:>11}" for h in hdr))
    for r in rows:
        print("  " + " | ".join(f"{r[h]!s:>11}" for h in hdr))
    base = rows[0]
    for r in rows[1:]:
        k = r["nodes"] / base["nodes"]
        t = r["check_s"] / base["check_s"]
        m = r["peak_rss_mb"] / base["peak_rss_mb"]
        print(f"  {base['nodes']}→{r['nodes']} nodes (×{k:g}): check time ×{t:.1f}, "
              f"peak RSS ×{m:.1f}")
    if a.json:
        a.json.write_text(json.dumps(results, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
