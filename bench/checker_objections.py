"""The consistency checker on a frontier model's parses it objected to: before and after.

Replays every parse of ``tests/fixtures/checker_objections/objections.json`` (the repair
re-asks of the recorded LLM runs) through ``to_story`` and ``check`` at order 0, as the LLM
parser's ``check_parse`` does, and compares the conflicts with the recorded objection (what
the checker said when the parse was written) and with the hand classification
(``classification.json``: true = the parse contradicts itself or the text; false = a faithful
parse the checker misread).

Usage::

    python bench/checker_objections.py [--verbose]

Prints one line per objection and the totals: conflicts before and after, true ones still
caught, false ones gone, re-asks (objections with any conflict) before and after.
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

from beliefgraph import BeliefGraph
from beliefgraph.parsers.llm.convert import split_sentences, to_story
from beliefgraph.parsers.llm.schema import StoryParse
from beliefgraph.solvers import check

__all__ = ["main"]

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "checker_objections"


def main(argv: list[str] | None = None) -> dict[str, int]:
    """Print the before/after figures; return the totals."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verbose", action="store_true", help="print each remaining conflict")
    args = ap.parse_args(argv)
    objections = json.loads((FIXTURES / "objections.json").read_text(encoding="utf-8"))
    classified = json.loads((FIXTURES / "classification.json").read_text(encoding="utf-8"))
    totals = dict.fromkeys(
        ("before", "after", "true", "true_caught", "false", "false_left", "reasks", "reasks_after"),
        0,
    )
    for i, o in enumerate(objections):
        text = " ".join(o["sentences"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parse = StoryParse.model_validate(o["parse"]).shifted(1)
            story = to_story(text, split_sentences(text), parse)
        report = check(BeliefGraph(story, max_order=0), max_order=0)
        mine = [c for c in classified if c["objection"] == i]
        true = [c for c in mine if c["verdict"] == "true"]
        now = [list(c.axioms) for c in report.conflicts]
        caught = sum(1 for c in true if c["axioms"] in now)
        totals["before"] += len(mine)
        totals["after"] += len(now)
        totals["true"] += len(true)
        totals["true_caught"] += min(caught, len(now))
        totals["false"] += len(mine) - len(true)
        totals["false_left"] += max(len(now) - len(true), 0)
        totals["reasks"] += 1
        totals["reasks_after"] += bool(now)
        verdicts = "".join("T" if c["verdict"] == "true" else "F" for c in mine)
        print(
            f"{i:2d} {o['source']:38s} before {len(mine)} [{verdicts}]  after {len(now)}"
            f"  {', '.join('+'.join(a) for a in now) or '-'}"
        )
        if args.verbose and not report.consistent:
            print("   " + report.explain().replace("\n", "\n   "))
    print(
        f"\nconflicts: {totals['before']} before -> {totals['after']} after; "
        f"true {totals['true_caught']}/{totals['true']} still caught; "
        f"false {totals['false'] - totals['false_left']}/{totals['false']} gone\n"
        f"repair re-asks: {totals['reasks']} before -> {totals['reasks_after']} after"
    )
    return totals


if __name__ == "__main__":
    main()
