"""Hi-ToM: accuracy per order, deception, length and prompting type, and the label classes.

Prints the official accuracy per question order next to the accuracy on the labels the story
supports (items whose label is classified as a known flaw of the release left out), the other
breakdowns, the disagreement classes per order and prompting type, the ceiling any answerer
that reads only the story can reach (the release labels some identical story-question pairs
differently in its VP and CoTP halves), and every contradicted label outside the VP flaw.

Usage::

    python bench/hitom_eval.py [PATH_TO_Hi-ToM_data.json] [--out DIR]

``--out DIR`` also writes ``hitom_summary.json`` and ``hitom_traces.jsonl``. The file defaults
to ``$BELIEFGRAPH_BENCHMARKS/hitom/Hi-ToM_data.json`` or ``../shared/benchmarks/...``.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter, defaultdict
from pathlib import Path

from beliefgraph.adapters import evaluate, load
from beliefgraph.adapters.hitom import DISAGREEMENTS, ORDER_PRESERVING

__all__ = ["main"]


def _default() -> Path:
    root = os.environ.get("BELIEFGRAPH_BENCHMARKS")
    base = Path(root) if root else Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
    return base / "hitom" / "Hi-ToM_data.json"


def _pct(ok: int, n: int) -> str:
    return f"{ok / n:6.1%} ({ok}/{n})" if n else "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", nargs="?", type=Path, default=_default())
    ap.add_argument("--out", type=Path, default=None, help="write summary JSON and traces here")
    args = ap.parse_args()
    items = {i.id: i for i in load("hitom", args.path)}
    result = evaluate("hitom", args.path)
    print(
        f"Hi-ToM: {result.n} items, {result.answered} answered, accuracy "
        f"{result.accuracy:.2%}, parse coverage {result.parse_coverage:.1%}, "
        f"{result.seconds:.1f} s"
    )

    ceiling = _ceiling(items.values())
    rows: dict[str, list] = defaultdict(list)
    for r in result.results:
        rows[r.breakdown["question_order"]].append(r)
    print(f"\n{'order':<6} {'official':>18} {'supported labels':>18} {'story-only ceiling':>20}")
    for order in sorted(rows):
        rs = rows[order]
        sup = [r for r in rs if r.supported is not False]
        ok, n = ceiling[int(order)]
        print(
            f"{order:<6} {_pct(sum(r.correct for r in rs), len(rs)):>18} "
            f"{_pct(sum(r.correct for r in sup), len(sup)):>18} {_pct(ok, n):>20}"
        )

    by = result.by()
    for name in ("deception", "story_length", "prompting_type"):
        print(f"\n{name}")
        for key, v in by[name].items():
            ok = round(v["accuracy"] * v["n"])
            print(f"  {key:<8} {_pct(ok, int(v['n'])):>18}")

    print("\norder x prompting type (official)")
    cell: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for r in result.results:
        cell[(r.breakdown["question_order"], r.breakdown["prompting_type"])].append(r.correct)
    for order in sorted(rows):
        print(
            f"  {order}  "
            + "  ".join(
                f"{pt} {_pct(sum(cell[(order, pt)]), len(cell[(order, pt)])):>16}"
                for pt in ("CoTP", "VP")
            )
        )

    classes = Counter(
        (r.disagreement, r.breakdown["prompting_type"], r.breakdown["question_order"])
        for r in result.results
        if r.disagreement
    )
    print("\ndisagreement classes (class, prompting type: count per order 2/3/4)")
    for cls in DISAGREEMENTS:
        for pt in ("CoTP", "VP"):
            counts = [classes[(cls, pt, str(o))] for o in range(5)]
            if any(counts):
                print(
                    f"  {cls:<34} {pt:<5} {counts[2]:>3} {counts[3]:>3} {counts[4]:>3}"
                    f"   total {sum(counts)}"
                )

    print("\ncontradicted labels outside the VP flaw")
    for r in result.results:
        if r.disagreement and not (
            r.disagreement == ORDER_PRESERVING and r.breakdown["prompting_type"] == "VP"
        ):
            print(
                f"  {r.id} [{r.disagreement}] {items[r.id].question} "
                f"gold {r.gold}, tracker {r.prediction}"
            )
            print(f"      {r.explanation[-1]}")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "hitom_summary.json").write_text(json.dumps(result.summary(), indent=2) + "\n")
        result.write_traces(args.out / "hitom_traces.jsonl")


def _ceiling(items) -> dict[int, tuple[int, int]]:
    """Per order: the most items one answer per (story, question) can match, and the total."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    order: dict[tuple[str, str], int] = {}
    for item in items:
        key = (item.story, item.question)
        groups[key].append(item.answer)
        order[key] = item.meta["question_order"]
    out: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for key, answers in groups.items():
        out[order[key]][0] += max(Counter(answers).values())
        out[order[key]][1] += len(answers)
    return {k: (v[0], v[1]) for k, v in out.items()}


if __name__ == "__main__":
    main()
