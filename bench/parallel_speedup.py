"""Serial against parallel runs: the speed-up of ``evaluate(..., workers=N)``.

Usage: python bench/parallel_speedup.py [--workers 1,2] [--backend process|ray]
       [--bench tomi|hitom|opentom|bigtom] [--repeat 3] [--in-process]

By default each run is a fresh interpreter that runs ``evaluate(bench, path, workers=N)``,
imports and parser start-up included, as ``beliefgraph eval --workers N`` is run. The worker
counts are run in turn, ``--repeat`` rounds (1, 2, 1, 2, ...), so that a change in the
machine's load falls on both alike; the script prints each round's wall and CPU seconds (the
process and its workers), then per count the median and the best wall, the speed-up of the
medians over one worker, and the load average. On a shared machine the wall figures move
with the load, and no speed-up is possible without a free core: the CPU column and the load
say which is which. ``--in-process`` times ``evaluate`` inside this interpreter instead
(spaCy loaded first, parser caches cleared before each run) and checks that the results
equal the serial run's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
PATHS = {
    "tomi": DATA / "tomi" / "tomi_balanced_story_types" / "fb_all_val.txt",
    "hitom": DATA / "hitom" / "Hi-ToM_data.json",
    "opentom": DATA / "opentom" / "data" / "opentom_data",
    "bigtom": DATA / "bigtom" / "data" / "bigtom" / "bigtom.csv",
}

_CHILD = """
import json, resource, sys, time
start = time.perf_counter()
from beliefgraph.adapters import evaluate
r = evaluate(sys.argv[1], sys.argv[2], workers=int(sys.argv[3]), backend=sys.argv[4])
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
print(json.dumps({"n": r.n, "accuracy": r.accuracy, "cpu": cpu}))
"""


def _cpu() -> float:
    me, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _as_process(bench: str, workers: int, backend: str) -> tuple[float, float, dict]:
    """Wall seconds, CPU seconds and the summary of one run in a fresh interpreter."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, bench, str(PATHS[bench]), str(workers), backend],
        capture_output=True, text=True, check=True, timeout=1800,
    )  # fmt: skip
    wall = time.perf_counter() - start
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return wall, out["cpu"], out


def _in_process(bench: str, workers: int, backend: str) -> tuple[float, float, object]:
    from beliefgraph.adapters import evaluate
    from beliefgraph.parsers import RulesParser

    RulesParser(strict=False).parse("Sally entered the room.")  # spaCy loaded, not timed
    RulesParser.cache_clear()
    cpu, start = _cpu(), time.perf_counter()
    result = evaluate(bench, PATHS[bench], workers=workers, backend=backend)  # type: ignore[arg-type]
    return time.perf_counter() - start, _cpu() - cpu, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--backend", default="process", choices=("process", "ray"))
    ap.add_argument("--bench", default="tomi", choices=sorted(PATHS))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--in-process", action="store_true")
    args = ap.parse_args()
    counts = [int(x) for x in args.workers.split(",")]
    run = _in_process if args.in_process else _as_process
    mode = "in this process" if args.in_process else "a fresh process per run"
    print(f"{args.bench}: {PATHS[args.bench].name}, {mode}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.2f}")  # fmt: skip
    walls: dict[int, list[float]] = {w: [] for w in counts}
    cpus: dict[int, list[float]] = {w: [] for w in counts}
    results: dict[int, object] = {}
    for round_ in range(1, args.repeat + 1):
        for w in counts:
            wall, cpu, result = run(args.bench, w, args.backend)
            walls[w].append(wall)
            cpus[w].append(cpu)
            results.setdefault(w, result)
            n = result["n"] if isinstance(result, dict) else result.n  # type: ignore[attr-defined]
            print(f"round {round_}, {w} worker(s): {wall:6.2f} s wall {cpu:6.2f} s CPU "
                  f"{n / wall:6.0f} items/s (load {os.getloadavg()[0]:.2f})")  # fmt: skip
    base = statistics.median(walls[counts[0]])
    print("\n| workers | median wall | best wall | median CPU | speed-up (medians) |")
    print("|---:|---:|---:|---:|---:|")
    for w in counts:
        med = statistics.median(walls[w])
        print(f"| {w} | {med:.2f} s | {min(walls[w]):.2f} s | "
              f"{statistics.median(cpus[w]):.2f} s | {base / med:.2f}x |")  # fmt: skip
    first = results[counts[0]]
    same = all(
        (r.results == first.results)  # type: ignore[attr-defined]
        if args.in_process
        else (r["n"], r["accuracy"]) == (first["n"], first["accuracy"])  # type: ignore[index]
        for r in results.values()
    )
    print(f"results identical across worker counts: {same}; load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
