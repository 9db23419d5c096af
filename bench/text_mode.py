"""BigToM and OpenToM read as prose (text mode) beside their template parse.

Usage: python bench/text_mode.py [--bench bigtom|opentom|both] [--parser NAME] [--limit N]

For each benchmark, two figures: the template parse (the reasoner alone: the graph is built
from the release's structured fields) and the text mode (parser + reasoner: ``track()`` on the
story prose through ``--parser``, offline the rules parser). Prints accuracy, items answered,
stories the parser read whole and seconds, then the text mode's accuracy per breakdown key
(BigToM: per condition, variable and initial belief shown or hidden).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

from beliefgraph.adapters import evaluate

DATA = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
RUNS = {
    "bigtom": (
        DATA / "bigtom" / "data" / "bigtom" / "bigtom.csv",
        "template",
        ("condition", "variable", "initial_belief"),
    ),
    "opentom": (DATA / "opentom" / "data" / "opentom_data", "plot", ("question_type",)),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default="both", choices=("bigtom", "opentom", "both"))
    ap.add_argument("--parser", default=None, help="a registered parser (default: rules)")
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    names = list(RUNS) if args.bench == "both" else [args.bench]
    for name in names:
        path, template, breakdowns = RUNS[name]
        for mode in (template, "text"):
            start = time.perf_counter()
            r = evaluate(name, path, mode=mode, limit=args.limit,
                         parser=args.parser if mode == "text" else None)  # fmt: skip
            seconds = time.perf_counter() - start
            print(
                f"{name} {mode:8s} parser {r.parser:8s}: {r.accuracy:7.2%} of {r.n}, "
                f"answered {r.answered}, stories read whole {r.parse_coverage:.1%}, "
                f"{r.llm_calls} LLM calls, {seconds:.1f} s"
            )
        for breakdown in breakdowns:
            for key, cell in r.by().get(breakdown, {}).items():
                print(f"    text mode, {breakdown} {key}: {cell['accuracy']:.2%} of {cell['n']}")


if __name__ == "__main__":
    main()
