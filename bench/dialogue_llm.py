"""ToMATO and DialToM through beliefgraph and directly, replayed from recorded answers.

Usage::

    python bench/dialogue_llm.py                  # replay the recorded answers, print figures
    python bench/dialogue_llm.py --export DIR     # write the four request files instead
    python bench/dialogue_llm.py --expected FILE  # also write the replayed figures as JSON

The samples are ``tests/fixtures/llm_recorded/dialogue_sample.json`` (item-blind: the first
conversations / records of each file). Two kinds: ``through`` (the model parses each dialogue
with the ``dialogue.v2`` prompt, beliefgraph tracks it and answers) and ``direct`` (the same
model asked each benchmark's own prompt: ToMATO's paper App. C, DialToM's release). For each
kind the script, in a temporary cache, (1) runs every sample with a batch file, which records
the pending requests, (2) imports the recorded answers (``dialogue_<kind>_<bench>.answers.jsonl``
and any later rounds ``..._r2.answers.jsonl``; as ``beliefgraph llm import`` does) and (3) runs
the same samples again, reading every answer from the cache (no network; a request still
missing is written to a batch file, never sent). It prints, per run and kind, the items,
accuracy, requests per dialogue and seconds per dialogue replayed.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from beliefgraph.adapters import evaluate, get_benchmark
from beliefgraph.adapters.direct import import_rounds
from beliefgraph.adapters.loading import Problems
from beliefgraph.parsers.llm import LLMCache

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "tests" / "fixtures" / "llm_recorded"
SAMPLE_FILE = RECORDED / "dialogue_sample.json"
KINDS = ("through", "direct")


def sample() -> dict[str, Any]:
    """The sample settings (``dialogue_sample.json``)."""
    return json.loads(SAMPLE_FILE.read_text(encoding="utf-8"))


def data_dir() -> Path:
    """``$BELIEFGRAPH_BENCHMARKS``, else ``../shared/benchmarks`` beside the checkout."""
    env = os.environ.get("BELIEFGRAPH_BENCHMARKS")
    return Path(env) if env else ROOT.parent / "shared" / "benchmarks"


def run(name: str, kind: str, llm: dict[str, Any], data: Path | None = None) -> Any:
    """One sample run (``name`` in the sample's ``runs``) of ``kind`` with LLM settings."""
    spec = sample()["runs"][name]
    settings = dict(spec["settings"])
    if kind == "direct":
        settings["direct"] = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unread lines are in each item's trace
        return evaluate(spec["benchmark"], (data or data_dir()) / spec["data"], parser="llm",
                        parser_settings=llm, **settings)  # fmt: skip


def dialogues(name: str, data: Path | None = None) -> int:
    """The distinct dialogues of a run, by the graph path's story key."""
    spec = sample()["runs"][name]
    settings = {k: v for k, v in spec["settings"].items() if k != "limit"}
    bench = get_benchmark(spec["benchmark"], **settings)
    items = bench.load((data or data_dir()) / spec["data"], Problems(strict=False))
    items = items[: spec["settings"].get("limit", len(items))]
    return len({bench.story_key(i) for i in items})


def answer_files(file: str, folder: Path = RECORDED) -> list[Path]:
    """The recorded answers of one request file, every round (``_r2`` ...), in order."""
    first = folder / f"{file}.answers.jsonl"
    later = sorted(folder.glob(f"{file}_r*.answers.jsonl"))
    return [p for p in (first, *later) if p.exists()]


def figures(result: Any) -> dict[str, Any]:
    """What the docs table and the replay test quote for one run."""
    out: dict[str, Any] = {
        "n": result.n,
        "answered": result.answered,
        "accuracy": round(result.accuracy, 6),
    }
    by = result.by()
    for key in ("state_order", "task", "attribute"):
        if key in by:
            out[f"by_{key}"] = {k: round(v["accuracy"], 6) for k, v in by[key].items()}
    return out


def export(folder: Path, model: str = "frontier") -> dict[str, int]:
    """Write the four request files into ``folder``; file -> requests written."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for file, spec in sample()["files"].items():
        batch = folder / f"{file}.jsonl"
        batch.unlink(missing_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            llm = {"model": model, "batch_out": str(batch), "cache": str(Path(tmp) / "c.sqlite3")}
            for name in spec["runs"]:
                run(name, spec["kind"], llm)
        # Runs that ask the same requests (the ``_readings`` ablations) write them once.
        out[file] = len(batch.read_text(encoding="utf-8").splitlines()) if batch.exists() else 0
    return out


def replay(
    model: str = "frontier", data: Path | None = None, answers: Path = RECORDED
) -> dict[str, Any]:
    """Kind -> run -> figures of the replayed run (with ``requests``, ``left``, ``calls``,
    ``dialogues`` and ``seconds``)."""
    table: dict[str, Any] = {}
    for file, spec in sample()["files"].items():
        kind, names = spec["kind"], spec["runs"]
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp) / "cache.sqlite3"
            llm = {"model": model, "batch_out": str(Path(tmp) / "req.jsonl"), "cache": str(cache)}
            written = {name: run(name, kind, llm, data).llm_deferred for name in names}
            for recorded in answer_files(file, answers):

                def again(
                    names: list[str] = names, kind: str = kind, llm: dict[str, Any] = llm
                ) -> None:
                    for name in names:
                        run(name, kind, llm, data)

                report = import_rounds(recorded, LLMCache(cache), again)
                table.setdefault("imports", {})[recorded.name] = {
                    "stored": report.stored,
                    "failures": len(report.failures),
                    "problems": len(report.problems),
                }
            left = {**llm, "batch_out": str(Path(tmp) / "left.jsonl")}
            for name in names:
                start = time.perf_counter()
                r = run(name, kind, left, data)
                got = figures(r)
                got.update(requests=written[name], left=r.llm_deferred, calls=r.llm_calls,
                           dialogues=dialogues(name, data),
                           seconds=time.perf_counter() - start)  # fmt: skip
                table.setdefault(kind, {})[name] = got
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--export", type=Path, default=None, help="write the request files here")
    ap.add_argument("--expected", type=Path, default=None, help="write the figures as JSON")
    ap.add_argument("--model", default="frontier")
    ap.add_argument("--answers", type=Path, default=RECORDED, help="the answer files' folder")
    args = ap.parse_args()
    if args.export is not None:
        for file, n in export(args.export, args.model).items():
            print(f"{args.export / file}.jsonl: {n} requests")
        return
    table = replay(args.model, answers=args.answers)
    for answers, rep in table.get("imports", {}).items():
        print(f"{answers}: {rep['stored']} stored, {rep['failures']} failed their schema, "
              f"{rep['problems']} lines not stored")  # fmt: skip
    for kind in KINDS:
        for name, got in table.get(kind, {}).items():
            d = got["dialogues"]
            print(f"{kind:8s} {name:27s} {got['n']:3d} items, {d:2d} dialogues: accuracy "
                  f"{got['accuracy']:.3f}, answered {got['answered']}; "
                  f"{got['requests'] / d:.2f} requests per dialogue, {got['calls']} calls, "
                  f"{got['seconds'] / d:.3f} s per dialogue replayed, "
                  f"{got['left']} left")  # fmt: skip
            for key in ("by_state_order", "by_task", "by_attribute"):
                if key in got:
                    print(f"      {key[3:]}: " + ", ".join(
                        f"{k} {v:.3f}" for k, v in got[key].items()))  # fmt: skip
    if args.expected is not None:
        for kind in KINDS:  # timings vary from run to run: not part of the check
            for got in table.get(kind, {}).values():
                got.pop("calls", None)
                got.pop("seconds", None)
        args.expected.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n",
                                 encoding="utf-8")  # fmt: skip


if __name__ == "__main__":
    main()
