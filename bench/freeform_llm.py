"""SimpleToM and ToMBench from their text: through beliefgraph, and the same model directly.

Usage::

    python bench/freeform_llm.py export OUT_DIR        # write the request files
    python bench/freeform_llm.py replay [--answers DIR] # import recorded answers, print figures

Sample (item-blind, fixed before any answer was seen): SimpleToM, the 10 fixture stories of
``tests/fixtures/simpletom`` (30 questions) and their 10 aware controls; ToMBench, the first
English stories of each of the release's 20 tasks, in file order (``tombench_tasks``,
``STORIES_PER_TASK``; 76 questions: the first story's 38, recorded in stop 13, and since stop 14
the second story's 38, held out from the rules stop 14 wrote on the first; until stop 12 only
the first story of three tasks, ``FIRST_TASKS``, which keep their recorded answers).

Through beliefgraph (``freeform_through.jsonl``): per story one parse request and one
grounding request (``beliefgraph.ground.v1``), independent, one batch round (an aware control
is a story of its own; a ToMBench story whose questions the question module reads, parse only).
Directly (``freeform_direct.jsonl``, and ``freeform_direct_controls.jsonl`` for the aware
controls): one request per question in the paper's prompt format (SimpleToM: Gu et al., App.
K.1 format; ToMBench: the release's English prompt). The model name is ``frontier`` and no
endpoint URL is given (the URL is part of each cache key: replay with the same settings).
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
from beliefgraph.adapters.direct import import_rounds
from beliefgraph.adapters.harness import answer_items
from beliefgraph.adapters.item import Item
from beliefgraph.adapters.simpletom import aware_controls, simpletom_report
from beliefgraph.adapters.tombench import paper_figures
from beliefgraph.api import using_parser
from beliefgraph.parsers.llm import LLMCache, LLMParser
from beliefgraph.parsers.llm.batchfile import write_split

__all__ = [
    "FIRST_TASKS",
    "export",
    "figures",
    "later_stories",
    "main",
    "replay",
    "run",
    "run_offline",
    "sample",
]


ROOT = Path(__file__).resolve().parents[1]
SIMPLETOM = ROOT / "tests" / "fixtures" / "simpletom"
RECORDED = ROOT / "tests" / "fixtures" / "llm_recorded"
FIRST_TASKS = ("False Belief Task", "Percepts-Knowledge Links", "Knowledge-Attention Links")
"""The three ToMBench tasks of the first recorded sample (stop 12); the sample now takes every
task (``tombench_tasks``)."""
MODEL = "frontier"
STORIES_PER_TASK = 2
"""The ToMBench sample takes the first this many English stories of each task, in file order
(stop 13: the first; stop 14 added the second, held out from the rules written on the first)."""


def _benchmarks() -> Path:
    root = os.environ.get("BELIEFGRAPH_BENCHMARKS")
    return Path(root) if root else ROOT.parent / "shared" / "benchmarks"


def tombench_tasks(data: Path) -> list[str]:
    """Every task of the ToMBench release (its ``.jsonl`` files, by name)."""
    return sorted(f.stem for f in data.glob("*.jsonl"))


def sample(tmp: Path) -> dict[str, list[Item]]:
    """The items of the sample: SimpleToM stories and aware controls, ToMBench first stories."""
    simple = load("simpletom", SIMPLETOM)
    controls = aware_controls(simple)
    folder = tmp / "tombench"
    folder.mkdir(parents=True, exist_ok=True)
    data = _benchmarks() / "tombench" / "data"
    for task in tombench_tasks(data):
        lines = (data / f"{task}.jsonl").read_text(encoding="utf-8").splitlines()
        stories = [json.loads(ln, parse_constant=lambda _n: None)["STORY"] for ln in lines]
        first = list(dict.fromkeys(stories))[:STORIES_PER_TASK]
        keep = [ln for ln, story in zip(lines, stories, strict=True) if story in first]
        (folder / f"{task}.jsonl").write_text("\n".join(keep) + "\n", encoding="utf-8")
    return {"simpletom": simple, "controls": controls, "tombench": load("tombench", folder)}


FILES = {
    "through": (False, ("simpletom", "controls", "tombench")),
    "direct": (True, ("simpletom", "tombench")),
    "direct_controls": (True, ("controls",)),
}
"""Request file -> (direct?, the parts of the sample it asks about)."""
PARTS = ("simpletom", "controls", "tombench")
ROUNDS = ("freeform_through", "freeform_through_r2", "freeform_through_r3", "freeform_through_r4",
          "freeform_through_r5", "freeform_through_r6", "freeform_through_r7", "freeform_direct",
          "freeform_direct_controls", "freeform_direct_r3", "freeform_direct_r4")  # fmt: skip
"""The recorded answer files, in the order they were answered: ``freeform_through_r2`` is the
second batch round (the aware controls' grounding requests, added after round 1, and the three
re-asks the parser wrote for answers that failed its consistency check); ``_r3`` the ToMBench
stories the sample gained in stop 13 (the first English story of the other 17 tasks); ``_r4``
the batch re-ask round of ``_r3`` (two answers that failed their schema); ``_r5`` the
Knowledge-Attention story's consistency re-ask (asked once the checker's objection changed);
``_r6`` (stop 14) the second English story of every task (20 parses, 19 groundings; the False
Belief story's questions are read by the question module) and ``_r7`` its batch re-ask round
(one parse that failed its schema); ``freeform_direct_r4`` their 38 direct questions."""
MAX_REQUESTS = 40
"""A request file holds at most this many requests (a longer export is split: ``_2``...)."""


def run(
    items: dict[str, list[Item]],
    *,
    direct: bool,
    cache: Path,
    batch: Path,
    parts: Sequence[str] = PARTS,
) -> dict[str, Any]:
    """Answer the sample under the LLM parser (``model=frontier``, the cache, a batch file)."""
    parser = LLMParser(strict=False, model=MODEL, cache=str(cache), batch_out=str(batch))
    out: dict[str, Any] = {}
    with using_parser(parser):
        simple = get_benchmark("simpletom", direct=direct)
        for part in parts:
            bench = simple if part != "tombench" else get_benchmark("tombench", direct=direct)
            out[part] = answer_items(bench, items[part])
    out["calls"] = parser.client.usage.calls
    return out


def run_offline(items: dict[str, list[Item]]) -> dict[str, Any]:
    """The reasoner alone: SimpleToM from its recorded parses, ToMBench read by the rules."""
    simple = get_benchmark("simpletom")
    return {
        "simpletom": answer_items(simple, items["simpletom"]),
        "controls": answer_items(simple, items["controls"]),
        "tombench": answer_items(get_benchmark("tombench"), items["tombench"]),
        "calls": 0,
    }


def figures(results: dict[str, Any]) -> dict[str, Any]:
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
    out["calls"] = results["calls"]
    return out


def later_stories(items: Sequence[Item]) -> set[str]:
    """The ids of the ToMBench items that are not about their task's first story: the stories
    the sample gained after the rules were written on the first ones (held out from them)."""
    first: dict[str, str] = {}
    out = set()
    for it in items:
        task = str(it.meta.get("task", it.id.split(":")[0]))
        if first.setdefault(task, it.story) != it.story:
            out.add(it.id)
    return out


def _split(items: Sequence[Item], results: Sequence[Any]) -> dict[str, Any]:
    """The ToMBench task average on the first story of each task and on the later ones (none
    when the sample has only first stories)."""
    later = later_stories(items)
    if not later:
        return {}
    first = [r for r in results if r.id not in later]
    held = [r for r in results if r.id in later]
    return {
        "tombench.first.task_average": paper_figures(first)["task_average"],
        "tombench.later.task_average": paper_figures(held)["task_average"],
        "tombench.later.answered": sum(r.prediction is not None for r in held),
        "tombench.later.n": len(held),
    }


def export(out: Path) -> dict[str, int]:
    """Write the request files (``FILES``, each split at ``MAX_REQUESTS``) to ``out``; how many
    requests each kind holds."""
    out.mkdir(parents=True, exist_ok=True)
    sizes = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        items = sample(tmp)
        for kind, (direct, parts) in FILES.items():
            batch = tmp / f"freeform_{kind}.jsonl"
            run(items, direct=direct, cache=tmp / "cache.sqlite3", batch=batch, parts=parts)
            lines = batch.read_text(encoding="utf-8").splitlines()
            sizes[kind] = len(lines)
            write_split(lines, out / f"freeform_{kind}.jsonl", max_requests=MAX_REQUESTS)
    return sizes


def replay(answers: Path = RECORDED, next_round: Path | None = None) -> dict[str, Any]:
    """Import the recorded answers (``ROUNDS`` in ``answers``) into a fresh cache and rerun;
    the figures of each path and of the reasoner alone.

    Each path runs twice: once to write its requests (the batch file's rows map each
    ``custom_id`` to its cache key), once after the import, reading every answer from the
    cache (a batch file stays set, so a missing answer is written there, never sent, and
    counted as ``left``). With ``next_round``, those requests (the next batch round) are saved
    there as ``freeform_<path>_next.jsonl``, split at ``MAX_REQUESTS``.
    """
    got: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        items = sample(tmp)
        cache = tmp / "cache.sqlite3"
        for path, direct in (("through", False), ("direct", True)):
            batch = tmp / f"{path}.jsonl"
            # Every round's answers as one file, imported round by round: a later round's
            # requests (re-asks) exist once the earlier answers are in.
            files = [answers / f"{name}.answers.jsonl" for name in ROUNDS
                     if name.startswith(f"freeform_{path}")
                     and (answers / f"{name}.answers.jsonl").exists()]  # fmt: skip
            every = tmp / f"{path}.answers.jsonl"
            text = "".join(f.read_text(encoding="utf-8") for f in files)
            every.write_text(text, encoding="utf-8")

            def again(direct: bool = direct, batch: Path = batch) -> None:
                run(items, direct=direct, cache=cache, batch=batch)

            report = import_rounds(every, LLMCache(cache), again)
            stored = report.stored
            failed = len(report.failures) + len(report.problems)
            left = tmp / f"{path}.left.jsonl"
            start = time.perf_counter()
            results = run(items, direct=direct, cache=cache, batch=left)
            seconds = time.perf_counter() - start
            f = figures(results)
            f.update(_split(items["tombench"], results["tombench"]))
            f.update(imported=stored, failed=failed, seconds=round(seconds, 2))
            f["left"] = len(left.read_text().splitlines()) if left.exists() else 0
            if next_round is not None and left.exists():
                lines = left.read_text(encoding="utf-8").splitlines()
                name = next_round / f"freeform_{path}_next.jsonl"
                write_split(lines, name, max_requests=MAX_REQUESTS)
            got[path] = (f, results)
        offline = run_offline(items)
        f = figures(offline)
        f.update(_split(items["tombench"], offline["tombench"]))
        got["reasoner alone"] = (f, offline)
    return got


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("export")
    ex.add_argument("out", type=Path)
    rp = sub.add_parser("replay")
    rp.add_argument(
        "--answers", type=Path, default=RECORDED, help="the folder of freeform_*.answers.jsonl"
    )
    rp.add_argument("--json", action="store_true", help="print the figures as JSON")
    rp.add_argument("--next", type=Path, default=None,
                    help="write the requests still unanswered after the replay here")  # fmt: skip
    args = ap.parse_args(argv)
    if args.cmd == "export":
        for kind, n in export(args.out).items():
            path = args.out / f"freeform_{kind}.jsonl"
            print(f"{path}: {n} requests, {path.stat().st_size / 1000:.1f} KB")
        return
    got = replay(args.answers, args.next)
    if args.json:
        print(json.dumps({k: f for k, (f, _) in got.items()}, indent=2, sort_keys=True))
        return
    _print(got)


def _print(got: dict[str, Any]) -> None:
    for kind, (f, results) in got.items():
        print(f"\n== {kind}: imported {f.get('imported', 0)} answers, {f['calls']} calls")
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
        if "tombench.later.n" in f:
            print(f"  first story of each task {f['tombench.first.task_average']:.3f}; the later "
                  f"(held-out) stories {f['tombench.later.task_average']:.3f}, answered "
                  f"{f['tombench.later.answered']}/{f['tombench.later.n']}")  # fmt: skip
        for k, v in f["tombench"].items():
            print(f"  {k.removeprefix('task/'):<28} {v:.3f}")
        for r in results["simpletom"] + results.get("controls", []) + results["tombench"]:
            if not r.correct:
                print(
                    f"  wrong: {r.id} gold {r.gold} got {r.prediction}: {r.explanation[-1][:160]}"
                )


if __name__ == "__main__":
    main()
