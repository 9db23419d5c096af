"""SimpleToM and ToMBench from their text: through beliefgraph, and the same model directly.

Usage::

    python bench/freeform_llm.py export OUT_DIR           # write the two request files
    python bench/freeform_llm.py replay [THROUGH] [DIRECT] # import recorded answers, print figures

Sample (item-blind, fixed before any answer was seen): SimpleToM, the 10 fixture stories of
``tests/fixtures/simpletom`` (30 questions) and their 10 aware controls; ToMBench, the first
English story of each of three tasks chosen by what the graph reads (``TOMBENCH_TASKS``).

Through beliefgraph (``freeform_through.jsonl``): per story one parse request (``story.v1``)
and one grounding request (``beliefgraph.ground.v1``), independent, one batch round; an aware
control adds its parse only (its questions are grounded in the original story: the same
request). Directly (``freeform_direct.jsonl``): one request per question in the paper's
prompt format (SimpleToM: Gu et al., App. K.1 format; ToMBench: the release's English
prompt). The model name is ``frontier`` and no endpoint URL is given (the URL is part of each
cache key: replay with the same settings).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from beliefgraph.adapters import get_benchmark, load
from beliefgraph.adapters.harness import answer_items
from beliefgraph.adapters.item import Item, ItemResult
from beliefgraph.adapters.simpletom import aware_controls, simpletom_report
from beliefgraph.adapters.tombench import paper_figures
from beliefgraph.api import using_parser
from beliefgraph.parsers.llm import LLMCache, LLMParser, import_results

__all__ = ["TOMBENCH_TASKS", "main", "run", "sample"]

ROOT = Path(__file__).resolve().parents[1]
SIMPLETOM = ROOT / "tests" / "fixtures" / "simpletom"
RECORDED = ROOT / "tests" / "fixtures" / "llm_recorded"
TOMBENCH_TASKS = ("False Belief Task", "Percepts-Knowledge Links", "Knowledge-Attention Links")
"""The ToMBench tasks sampled: belief and the two perception/knowledge tasks the graph's
perception model reads (the first English story of each)."""
MODEL = "frontier"


def _benchmarks() -> Path:
    root = os.environ.get("BELIEFGRAPH_BENCHMARKS")
    return Path(root) if root else ROOT.parent / "shared" / "benchmarks"


def sample(tmp: Path) -> dict[str, list[Item]]:
    """The items of the sample: SimpleToM stories and aware controls, ToMBench first stories."""
    simple = load("simpletom", SIMPLETOM)
    controls = aware_controls(simple)
    folder = tmp / "tombench"
    folder.mkdir(parents=True, exist_ok=True)
    data = _benchmarks() / "tombench" / "data"
    for task in TOMBENCH_TASKS:
        lines = (data / f"{task}.jsonl").read_text(encoding="utf-8").splitlines()
        first = json.loads(lines[0], parse_constant=lambda _n: None)["STORY"]
        keep = [
            ln for ln in lines if json.loads(ln, parse_constant=lambda _n: None)["STORY"] == first
        ]
        (folder / f"{task}.jsonl").write_text("\n".join(keep) + "\n", encoding="utf-8")
    return {"simpletom": simple, "controls": controls, "tombench": load("tombench", folder)}


def run(
    items: dict[str, list[Item]], *, direct: bool, cache: Path, batch: Path
) -> dict[str, list[ItemResult]]:
    """Answer the sample under the LLM parser (``model=frontier``, the cache, a batch file)."""
    parser = LLMParser(strict=False, model=MODEL, cache=str(cache), batch_out=str(batch))
    out: dict[str, list[ItemResult]] = {}
    with using_parser(parser):
        simple = get_benchmark("simpletom", direct=direct)
        out["simpletom"] = answer_items(simple, items["simpletom"])
        if not direct:
            out["controls"] = answer_items(simple, items["controls"])
        out["tombench"] = answer_items(get_benchmark("tombench", direct=direct), items["tombench"])
    out["calls"] = parser.client.usage.calls  # type: ignore[assignment]
    return out


def _acc(results: Sequence[ItemResult]) -> str:
    ok = sum(r.correct for r in results)
    return f"{ok / len(results):.3f} ({ok}/{len(results)})" if results else "-"


def figures(results: dict[str, Any], before: list[ItemResult] | None = None) -> dict[str, Any]:
    """The figures of one run: per question type, controls flipped, ToMBench per task."""
    simple = results["simpletom"]
    report = simpletom_report(simple, strict=False)
    out: dict[str, Any] = {
        "simpletom": {qt: report.by_question_type.get(qt, 0.0) for qt in report.by_question_type},
        "simpletom.answered": sum(r.prediction is not None for r in simple),
        "simpletom.all_three": report.all_three,
        "simpletom.contradictions": len(report.contradictions),
    }
    if "controls" in results:
        controls = results["controls"]
        prior = {r.id.replace("_sev", "-aware_sev", 1): r.prediction for r in simple}
        out["controls.right"] = sum(r.correct for r in controls)
        out["controls.flipped"] = sum(
            r.correct and r.prediction != prior.get(r.id) for r in controls
        )
        out["controls.n"] = len(controls)
    tom = results["tombench"]
    paper = paper_figures(tom)
    out["tombench"] = {k: v for k, v in paper.items() if k.startswith("task/")}
    out["tombench.task_average"] = paper["task_average"]
    out["tombench.answered"] = sum(r.prediction is not None for r in tom)
    out["tombench.n"] = len(tom)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("export")
    ex.add_argument("out", type=Path)
    rp = sub.add_parser("replay")
    rp.add_argument(
        "through", nargs="?", type=Path, default=RECORDED / "freeform_through.answers.jsonl"
    )
    rp.add_argument(
        "direct", nargs="?", type=Path, default=RECORDED / "freeform_direct.answers.jsonl"
    )
    rp.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        items = sample(tmp)
        cache = tmp / "cache.sqlite3"
        if args.cmd == "export":
            args.out.mkdir(parents=True, exist_ok=True)
            for kind, direct in (("through", False), ("direct", True)):
                batch = args.out / f"freeform_{kind}.jsonl"
                batch.unlink(missing_ok=True)
                run(items, direct=direct, cache=cache, batch=batch)
                n = len(batch.read_text(encoding="utf-8").splitlines())
                print(f"{batch}: {n} requests, {batch.stat().st_size / 1000:.1f} KB")
            return
        batch = tmp / "left.jsonl"
        got: dict[str, Any] = {}
        for kind, answers in (("through", args.through), ("direct", args.direct)):
            # Export first (fills the batch file's key map), import, then replay from the cache.
            run(items, direct=kind == "direct", cache=cache, batch=batch)
            report = import_results(answers, LLMCache(cache))
            start = time.perf_counter()
            results = run(items, direct=kind == "direct", cache=cache, batch=batch)
            seconds = time.perf_counter() - start
            got[kind] = figures(results)
            got[kind]["imported"] = report.stored
            got[kind]["failed"] = len(report.failures)
            got[kind]["seconds"] = round(seconds, 2)
            got[kind]["results"] = results
        if args.json:
            print(
                json.dumps(
                    {k: {x: y for x, y in v.items() if x != "results"} for k, v in got.items()},
                    indent=2,
                )
            )
            return
        _print(got)


def _print(got: dict[str, Any]) -> None:
    for kind, f in got.items():
        print(f"\n== {kind}: imported {f['imported']} answers ({f['failed']} failed their schema)")
        print(
            "SimpleToM by question type:",
            json.dumps({k: round(v, 3) for k, v in f["simpletom"].items()}),
        )
        print(
            f"  answered {f['simpletom.answered']}/30, "
            f"all three right {f['simpletom.all_three']:.3f}"
        )
        if "controls.n" in f:
            print(f"  aware controls: {f['controls.right']}/{f['controls.n']} right, "
                  f"{f['controls.flipped']} flipped and right")  # fmt: skip
        print(f"ToMBench task average {f['tombench.task_average']:.3f}, answered "
              f"{f['tombench.answered']}/{f['tombench.n']}")  # fmt: skip
        for k, v in f["tombench"].items():
            print(f"  {k.removeprefix('task/'):<28} {v:.3f}")
        for r in (
            f["results"]["simpletom"] + f["results"].get("controls", []) + f["results"]["tombench"]
        ):
            if not r.correct:
                print(
                    f"  wrong: {r.id} gold {r.gold} got {r.prediction}: {r.explanation[-1][:160]}"
                )


if __name__ == "__main__":
    main()
