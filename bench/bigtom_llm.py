"""BigToM through beliefgraph and directly on a held-out sample, replayed from recorded answers.

Usage::

    python bench/bigtom_llm.py                  # replay the recorded answers, print figures
    python bench/bigtom_llm.py --export DIR     # write the request files instead
    python bench/bigtom_llm.py --expected FILE  # also write the replayed figures as JSON
    python bench/bigtom_llm.py --next DIR       # replay, then write the requests still
                                                # unanswered (a re-ask round) to DIR

The development sample (``bench/textmode_llm.py``: the first 12 template rows) is the one
the text answerer was checked on. This one is held out from it by an item-blind rule
(``tests/fixtures/llm_recorded/bigtom_heldout_sample.json``): the **next** 12 template rows
of ``bigtom.csv`` (rows 13-24, ``skip=12, rows=12``), the same four cells (initial belief
hidden; forward belief and action; true and false belief): 48 items, 24 stories. For each
kind, ``through`` (the model parses the story, the graph answers) and ``direct`` (the same
model asked the paper's own prompt), the script imports the recorded answers
(``bigtom_heldout_<kind>*.answers.jsonl``) into a temporary cache and reruns, which reads
every answer from the cache (a request still missing is written to a batch file, never sent).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

from beliefgraph.adapters import evaluate
from beliefgraph.adapters.direct import import_rounds
from beliefgraph.parsers.llm import LLMCache
from beliefgraph.parsers.llm.batchfile import write_split

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "tests" / "fixtures" / "llm_recorded"
SAMPLE = RECORDED / "bigtom_heldout_sample.json"
KINDS = ("through", "direct")
MAX_REQUESTS = {"through": 12, "direct": 24}
"""Requests per exported file (a parse request carries a whole story and its schema)."""


def data_dir() -> Path:
    """``$BELIEFGRAPH_BENCHMARKS``, else ``../shared/benchmarks`` beside the checkout."""
    env = os.environ.get("BELIEFGRAPH_BENCHMARKS")
    return Path(env) if env else ROOT.parent / "shared" / "benchmarks"


def settings(kind: str) -> tuple[Path, dict[str, Any]]:
    """The data file and ``evaluate`` settings of ``kind``'s run."""
    spec = json.loads(SAMPLE.read_text(encoding="utf-8"))
    run = dict(spec["settings"], **({"direct": True} if kind == "direct" else {"mode": "text"}))
    return data_dir() / spec["data"], run


def run(kind: str, llm: dict[str, Any]) -> Any:
    """One run of ``kind`` through the LLM client with ``llm``'s settings."""
    path, how = settings(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unread sentences are in each item's trace
        return evaluate("bigtom", path, parser="llm", parser_settings=llm, **how)


def figures(result: Any) -> dict[str, Any]:
    """What the docs and the replay test quote for one run."""
    by = result.by()
    return {
        "n": result.n,
        "answered": result.answered,
        "accuracy": round(result.accuracy, 6),
        "tb_and_fb": round(result.metrics["tb_and_fb"], 6),
        "by_condition": {k: round(v["accuracy"], 6) for k, v in by["condition"].items()},
        "by_variable": {k: round(v["accuracy"], 6) for k, v in by["variable"].items()},
        "answered_by": {k: v["n"] for k, v in by.get("answered_by", {}).items()},
    }


def recorded(kind: str) -> list[Path]:
    """Every recorded answer file of ``kind``, one per round."""
    return sorted(RECORDED.glob(f"bigtom_heldout_{kind}*.answers.jsonl"))


def replay(model: str, expected: Path | None, next_round: Path | None) -> dict[str, Any]:
    """Import the recorded answers of each kind and rerun; print and return the figures."""
    table: dict[str, Any] = {}
    for kind in KINDS:
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp) / "cache.sqlite3"
            llm = {"model": model, "batch_out": str(Path(tmp) / "asked.jsonl"), "cache": str(cache)}
            asked = run(kind, llm).llm_deferred
            files = recorded(kind)
            if not files:
                print(f"{kind}: no recorded answers; {asked} requests pending")
                continue
            # every round's answers as one file, imported round by round (a re-ask is
            # asked, and its answer found, only after the round before it is in)
            answers = Path(tmp) / "answers.jsonl"
            answers.write_text("".join(f.read_text(encoding="utf-8") for f in files),
                               encoding="utf-8")  # fmt: skip
            again = functools.partial(run, kind, llm)
            report = import_rounds(answers, LLMCache(cache), again)
            print(f"{kind}: {report.stored} answers stored from {len(files)} file(s), "
                  f"{len(report.problems)} lines no round asked for")  # fmt: skip
            left = Path(tmp) / "left.jsonl"
            r = run(kind, {**llm, "batch_out": str(left)})
            got = figures(r)
            got.update(requests=asked, left=r.llm_deferred)
            table[kind] = got
            print(f"  {kind}: accuracy {r.accuracy:.3f} ({r.answered} of {r.n} answered), "
                  f"TB ∧ FB {got['tb_and_fb']:.3f}, {r.llm_calls} calls, {r.llm_deferred} left; "
                  f"{got['by_condition']}; answered by {got['answered_by']}")  # fmt: skip
            if next_round is not None and left.exists():
                next_round.mkdir(parents=True, exist_ok=True)
                lines = left.read_text(encoding="utf-8").splitlines()
                out = next_round / f"bigtom_heldout_{kind}_next.jsonl"
                for f in write_split(lines, out, max_requests=MAX_REQUESTS[kind]):
                    print(f"  next round: {f}")
    if expected is not None:
        expected.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return table


def export(folder: Path, model: str) -> None:
    """Write each kind's requests to ``folder`` (split at ``MAX_REQUESTS``, in export order)."""
    folder.mkdir(parents=True, exist_ok=True)
    for kind in KINDS:
        with tempfile.TemporaryDirectory() as tmp:
            batch = Path(tmp) / "requests.jsonl"
            run(kind, {"model": model, "batch_out": str(batch), "cache": str(Path(tmp) / "c")})
            lines = batch.read_text(encoding="utf-8").splitlines()
            for f in write_split(lines, folder / f"bigtom_heldout_{kind}.jsonl",
                                 max_requests=MAX_REQUESTS[kind]):  # fmt: skip
                print(f"{f}: {len(f.read_text(encoding='utf-8').splitlines())} requests")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--export", type=Path, default=None, help="write the request files here")
    ap.add_argument("--expected", type=Path, default=None, help="write the figures as JSON")
    ap.add_argument("--next", type=Path, default=None, help="write the next round here")
    ap.add_argument("--model", default="frontier")
    args = ap.parse_args()
    if args.export is not None:
        export(args.export, args.model)
        return
    replay(args.model, args.expected, args.next)


if __name__ == "__main__":
    main()
