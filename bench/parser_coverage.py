"""How much of each benchmark file the offline rules parser reads, and how fast.

Prints, per file: sentences (clauses) parsed / total, stories fully parsed / total, and the
parse time (cold sentence cache, one core). ``--show N`` lists up to N unread sentences.

Usage::

    python bench/parser_coverage.py [--benchmarks PATH] [--show N]

The benchmark folder defaults to ``$BELIEFGRAPH_BENCHMARKS`` or ``../shared/benchmarks``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

from beliefgraph.parsers import RulesParser

__all__ = ["hitom_stories", "main", "tombench_fb_stories", "tomi_stories"]


def tomi_stories(path: Path) -> list[str]:
    """Stories of a bAbI-format ToMi file: question lines (with a TAB) are left out."""
    stories: list[list[str]] = []
    for raw in path.read_text().splitlines():
        if not raw.strip() or "\t" in raw:
            continue
        if raw.split(" ", 1)[0] == "1":
            stories.append([])
        stories[-1].append(raw)
    return ["\n".join(lines) for lines in stories]


def hitom_stories(path: Path) -> list[str]:
    """The ``story`` field of every Hi-ToM item."""
    return [item["story"] for item in json.loads(path.read_text())["data"]]


def tombench_fb_stories(path: Path) -> list[str]:
    """The ``STORY`` field of every ToMBench item (bare ``NaN`` tokens read as null)."""
    rows = [
        json.loads(re.sub(r"\bNaN\b", "null", line))
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    return [row["STORY"] for row in rows]


def _files(root: Path) -> list[tuple[str, Path, Callable[[Path], list[str]]]]:
    tomi = root / "tomi" / "tomi_balanced_story_types"
    return [
        ("ToMi fb_all_train", tomi / "fb_all_train.txt", tomi_stories),
        ("ToMi fb_all_val", tomi / "fb_all_val.txt", tomi_stories),
        ("Hi-ToM", root / "hitom" / "Hi-ToM_data.json", hitom_stories),
        (
            "ToMBench False Belief",
            root / "tombench" / "data" / "False Belief Task.jsonl",
            tombench_fb_stories,
        ),
    ]


def main() -> None:
    default = os.environ.get("BELIEFGRAPH_BENCHMARKS") or str(
        Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
    )
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--benchmarks", default=default, help="the shared benchmarks folder")
    ap.add_argument("--show", type=int, default=5, help="unread sentences to list per file")
    args = ap.parse_args()
    parser = RulesParser(strict=False)
    parser.parse("Ella entered the garage.")  # build the spaCy pipeline outside the timing
    print(f"{'file':24} {'sentences parsed':>22} {'stories fully parsed':>22} {'time':>8}")
    for label, path, load in _files(Path(args.benchmarks)):
        if not path.exists():
            print(f"{label:24} missing: {path}")
            continue
        stories = load(path)
        RulesParser.cache_clear()
        unread: dict[str, int] = {}
        parsed = total = full = 0
        start = time.perf_counter()
        for text in stories:
            story = _quiet(parser, text)
            total += len(story.sentences)
            ok = sum(s.parsed for s in story.sentences)
            parsed += ok
            full += ok == len(story.sentences)
            for s in story.unparsed:
                unread[s.text] = unread.get(s.text, 0) + 1
        elapsed = time.perf_counter() - start
        print(
            f"{label:24} {parsed:>9}/{total:<9} {parsed / max(total, 1):6.1%}"
            f" {full:>7}/{len(stories):<7} {full / max(len(stories), 1):6.1%} {elapsed:7.2f}s"
        )
        for text, n in sorted(unread.items(), key=lambda kv: -kv[1])[: args.show]:
            print(f"    unread x{n}: {text!r}")


def _quiet(parser: RulesParser, text: str):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return parser.parse(text)


if __name__ == "__main__":
    main()
