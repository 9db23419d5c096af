"""BigToM: accuracy per cell, from the template fields or from the story prose.

Prints accuracy for every condition (true belief, false belief, true control, false control)
× variable (forward belief, forward action, backward belief), with the initial belief hidden
and shown, then the items the tracker got wrong or could not answer.

``--mode text`` reads the story prose with the run's parser (offline: the rules grammar)
and answers from the agent's beliefs in that graph; it also prints what each answer rests
on: ``graph`` (the options read as propositions and asked of the graph), ``word overlap``
(the stated fallback: content words a belief shares with an option) or ``none``.

Usage::

    python bench/bigtom_eval.py [PATH_TO_bigtom.csv] [--mode template|text] [--out DIR]

``--out DIR`` also writes ``bigtom_summary.json`` and ``bigtom_traces.jsonl``. The file
defaults to ``$BELIEFGRAPH_BENCHMARKS/bigtom/data/bigtom/bigtom.csv`` or
``../shared/benchmarks/...``.
"""

from __future__ import annotations

import argparse
import json
import os
import warnings
from collections import defaultdict
from pathlib import Path

from beliefgraph.adapters import evaluate
from beliefgraph.adapters.bigtom import CONDITIONS, VARIABLES

__all__ = ["main"]


def _default() -> Path:
    root = os.environ.get("BELIEFGRAPH_BENCHMARKS")
    base = Path(root) if root else Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
    return base / "bigtom" / "data" / "bigtom" / "bigtom.csv"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", nargs="?", type=Path, default=_default())
    ap.add_argument("--out", type=Path, default=None, help="write summary JSON and traces here")
    ap.add_argument("--mode", default="template", choices=("template", "text"))
    args = ap.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unread sentences are in each item's trace
        result = evaluate("bigtom", args.path, mode=args.mode)
    what = "template parse" if args.mode == "template" else "story prose, rules parser"
    print(
        f"BigToM, {what}: {result.n} items, {result.answered} answered, "
        f"accuracy {result.accuracy:.2%}, {result.seconds:.1f} s"
    )
    by = result.by()
    for key in ("condition", "variable", "answered_by"):
        for value, cell in by.get(key, {}).items():
            print(f"  {key} {value}: {cell['accuracy']:.2%} of {cell['n']}")
    cells: dict[tuple[str, str, str], list[bool]] = defaultdict(list)
    for r in result.results:
        b = r.breakdown
        cells[(b["variable"], b["condition"], b["initial_belief"])].append(r.correct)
    print(f"\n{'variable':<16} {'condition':<14} {'hidden':>14} {'shown':>14}")
    for variable in VARIABLES:
        for condition in CONDITIONS:
            row = []
            for shown in ("hidden", "shown"):
                v = cells[(variable, condition, shown)]
                row.append(f"{sum(v) / len(v):.1%} ({len(v)})" if v else "-")
            print(f"{variable:<16} {condition:<14} {row[0]:>14} {row[1]:>14}")
    wrong = [r for r in result.results if not r.correct]
    print(f"\nWrong or unanswered: {len(wrong)}")
    for r in wrong[:20]:
        print(f"  {r.id}: gold {r.gold!r}, tracker {r.prediction!r}; {r.explanation[-1]}")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        summary = {**result.summary(), "metrics": result.metrics}
        (args.out / "bigtom_summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        result.write_traces(args.out / "bigtom_traces.jsonl")


if __name__ == "__main__":
    main()
