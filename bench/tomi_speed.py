"""Time ToMi val end to end (parsing included) on one core, and say where the time goes.

Usage: python bench/tomi_speed.py [PATH_TO_fb_all_val.txt] [--profile]

Prints questions per second for a cold run (fresh parser caches) and, with --profile, a
pyinstrument call tree (``pip install pyinstrument``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from beliefgraph.adapters import evaluate
from beliefgraph.parsers import RulesParser

DEFAULT = Path(__file__).resolve().parents[2] / "shared/benchmarks/tomi/tomi_balanced_story_types"


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    path = Path(args[0]) if args else DEFAULT / "fb_all_val.txt"
    RulesParser(strict=False).parse("Sally entered the room.")  # load spaCy before timing
    RulesParser.cache_clear()
    profiler = None
    if "--profile" in sys.argv:
        from pyinstrument import Profiler

        profiler = Profiler()
        profiler.start()
    start = time.perf_counter()
    result = evaluate("tomi", path)
    seconds = time.perf_counter() - start
    print(
        f"ToMi {path.name}: {result.n} questions, {seconds:.2f} s, "
        f"{result.n / seconds:.0f} questions/s, accuracy {result.accuracy:.2%}"
    )
    if profiler is not None:
        profiler.stop()
        print(profiler.output_text(unicode=False, color=False))


if __name__ == "__main__":
    main()
