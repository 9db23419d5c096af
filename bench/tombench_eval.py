"""ToMBench: parse coverage and accuracy per ability and task, and every miss explained.

By default scores the False Belief Task file; give the data folder to score all 20 tasks (the
tasks read offline are ``OFFLINE_TASKS``; the other 18 are reported unanswered without being
parsed). Prints the parse coverage, accuracy per ability and per task, the disagreement
classes, and every wrong or unanswered item of the offline tasks with its reason.

Usage::

    python bench/tombench_eval.py [PATH (a .jsonl file or the data folder)] [--out DIR]

``--out DIR`` also writes ``tombench_summary.json`` and ``tombench_traces.jsonl``. The path
defaults to ``$BELIEFGRAPH_BENCHMARKS/tombench/data/False Belief Task.jsonl`` or
``../shared/benchmarks/...``.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from pathlib import Path

from beliefgraph.adapters import evaluate, load
from beliefgraph.adapters.tombench import OFFLINE_TASKS

__all__ = ["main"]


def _default() -> Path:
    root = os.environ.get("BELIEFGRAPH_BENCHMARKS")
    base = Path(root) if root else Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
    return base / "tombench" / "data" / "False Belief Task.jsonl"


def _pct(ok: int, n: int) -> str:
    return f"{ok / n:6.1%} ({ok}/{n})" if n else "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", nargs="?", type=Path, default=_default())
    ap.add_argument("--out", type=Path, default=None, help="write summary JSON and traces here")
    args = ap.parse_args()
    items = {i.id: i for i in load("tombench", args.path)}
    result = evaluate("tombench", args.path)
    offline = [r for r in result.results if r.breakdown["task"] in OFFLINE_TASKS]
    stories = {items[r.id].story for r in offline}
    unread = {items[r.id].story for r in offline if r.unparsed}
    print(
        f"ToMBench: {result.n} items, {result.answered} answered, accuracy "
        f"{result.accuracy:.2%}, {result.seconds:.1f} s"
    )
    print(
        f"Offline tasks ({', '.join(sorted(OFFLINE_TASKS))}): {len(offline)} items, "
        f"parse coverage {_pct(len(stories) - len(unread), len(stories))} of stories, "
        f"accuracy {_pct(sum(r.correct for r in offline), len(offline))}"
    )
    by = result.by()
    for name in ("task", "ability"):
        print(f"\n{name}")
        for key, v in by[name].items():
            ok = round(v["accuracy"] * v["n"])
            print(f"  {key:<66} {_pct(ok, int(v['n'])):>18}")
    classes = Counter(r.disagreement for r in result.results if r.disagreement)
    print("\ndisagreement classes")
    for cls, n in classes.most_common():
        print(f"  {cls:<34} {n}")
    print("\nwrong or unanswered items of the offline tasks")
    for r in offline:
        if not r.correct:
            item = items[r.id]
            print(f"  {r.id} [{r.disagreement}] {item.question}")
            options = dict(zip(item.meta["letters"], item.choices, strict=True))
            print(
                f"      options {options}, gold {r.gold}, tracker {r.prediction}; "
                f"{r.explanation[-1]}"
            )
    skipped = Counter(r.breakdown["task"] for r in result.results if r.prediction is None)
    others = {t: n for t, n in skipped.items() if t not in OFFLINE_TASKS}
    if others:
        n = sum(others.values())
        print(f"\nunanswered, not read offline: {n} items in {len(others)} tasks")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        summary = result.summary()
        (args.out / "tombench_summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        result.write_traces(args.out / "tombench_traces.jsonl")


if __name__ == "__main__":
    main()
