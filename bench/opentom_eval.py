"""OpenToM on the plots (template parse): the paper's table, and what the labels contradict.

Prints, per question type: items, answered, accuracy (unanswered count as wrong), accuracy
on the answered items and macro-F1 (over answered items, as the paper's evaluator), then the
multihop attributes, the second-order figures by perspective and witnessing, every class of
disagreement with its count and one example, and the plot repairs taken from meta_data.

Usage::

    python bench/opentom_eval.py [PATH_TO_opentom_data] [--out DIR]

``--out DIR`` also writes ``opentom_summary.json`` (the harness summary plus the metrics) and
``opentom_traces.jsonl`` (one line per item). The data folder defaults to
``$BELIEFGRAPH_BENCHMARKS/opentom/data/opentom_data`` or ``../shared/benchmarks/...``.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter, defaultdict
from pathlib import Path

from beliefgraph.adapters import EvalResult, ItemResult, evaluate, load
from beliefgraph.adapters.metrics import macro_f1_of
from beliefgraph.adapters.opentom import QUESTION_TYPES

__all__ = ["main", "table"]


def _default() -> Path:
    root = os.environ.get("BELIEFGRAPH_BENCHMARKS")
    base = Path(root) if root else Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
    return base / "opentom" / "data" / "opentom_data"


def _row(name: str, rs: list[ItemResult], f1: float) -> str:
    n = len(rs)
    answered = [r for r in rs if r.prediction is not None]
    acc = sum(r.correct for r in rs) / n if n else 0.0
    acc_answered = sum(r.correct for r in answered) / len(answered) if answered else 0.0
    return f"{name:<34} {n:>6} {len(answered):>8} {acc:>8.1%} {acc_answered:>9.1%} {f1:>9.3f}"


def table(result: EvalResult) -> list[str]:
    """The per-question-type table as text lines."""
    by_type: dict[str, list[ItemResult]] = defaultdict(list)
    for r in result.results:
        by_type[r.breakdown.get("question_type", "?")].append(r)
    lines = [
        f"{'question type':<34} {'n':>6} {'answered':>8} {'acc':>8} {'acc(ans)':>9} {'macro-F1':>9}"
    ]
    for t in QUESTION_TYPES:
        lines.append(_row(t, by_type[t], result.metrics.get(f"macro_f1/{t}", 0.0)))
    for t in ("multihop_fo", "multihop_so"):
        for attribute in ("fullness", "accessibility"):
            rs = [r for r in by_type[t] if r.breakdown.get("attribute") == attribute]
            f1 = macro_f1_of(question_type=t, attribute=attribute)(rs)
            lines.append(_row(f"  {t} / {attribute}", rs, f1))
    lines.append(_row("all", list(result.results), macro_f1_of()(list(result.results))))
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", nargs="?", type=Path, default=_default())
    ap.add_argument("--out", type=Path, default=None, help="write summary JSON and traces here")
    args = ap.parse_args()
    items = {i.id: i for i in load("opentom", args.path)}
    result = evaluate("opentom", args.path)
    stories = {i.meta["story_id"] for i in items.values()}
    print(
        f"OpenToM, the plots (template parse; the narratives need the LLM parser): "
        f"{result.n} questions, {len(stories)} stories, {result.seconds:.1f} s, "
        f"plot lines read {result.parse_coverage:.1%}"
    )
    print("\n".join(table(result)))

    print("\nSecond order by perspective (the first holder) and witnessing:")
    cells: dict[tuple[str, str, str], list[bool]] = defaultdict(list)
    for r in result.results:
        t = r.breakdown.get("question_type", "")
        if t.endswith("_so"):
            key = (t, r.breakdown.get("role", "?"), r.breakdown.get("witnessed", "?"))
            cells[key].append(r.correct)
    for (t, role, seen), v in sorted(cells.items()):
        print(f"  {t:<20} {role:<9} {seen:<13} {len(v):>5} {sum(v) / len(v):>8.1%}")

    print("\nLabels the plot contradicts, by class (count, one example):")
    classes = Counter(
        (r.breakdown.get("question_type", "?"), r.disagreement)
        for r in result.results
        if r.disagreement
    )
    shown: set[str | None] = set()
    for (t, d), n in sorted(classes.items(), key=lambda kv: (kv[0][0], -kv[1])):
        print(f"  {n:>5}  {t:<20} {d}")
        if d not in shown:
            shown.add(d)
            r = next(x for x in result.results if x.disagreement == d)
            item = items[r.id]
            print(
                f"         e.g. {r.id}: {item.question!r} gold {r.gold!r}, tracker {r.prediction!r}"
            )
            print(f"         plot: {item.story.splitlines()[-1]!r}")

    repaired = {
        i.meta["story_id"]: i.meta["plot_repairs"]
        for i in items.values()
        if i.meta.get("plot_repairs")
    }
    print(f"\nPlot repairs from meta_data: {len(repaired)} stories")
    kinds = Counter(rep.split(":")[0] for reps in repaired.values() for rep in reps)
    for k, n in kinds.most_common():
        example = next(rep for reps in repaired.values() for rep in reps if rep.startswith(k))
        print(f"  {n:>4}  {k:<12} e.g. {example}")

    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        summary = {**result.summary(), "metrics": result.metrics}
        (args.out / "opentom_summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        result.write_traces(args.out / "opentom_traces.jsonl")


if __name__ == "__main__":
    main()
