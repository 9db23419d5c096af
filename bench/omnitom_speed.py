"""OmniToM Stage 2 through the LLM parser with every answer cached: rows labelled per second.

Replays the frontier model's recorded answers (``tests/fixtures/llm_recorded``) as the
recorded-answers test does: a first run writes the requests to a batch file, the answers are
imported into a fresh cache, and the timed run reads every answer from that cache (no
network: a missing answer would be written to a batch file, never sent). Target (issue 18):
at least 200 gold rows a second.

Usage::

    python bench/omnitom_speed.py [GOLD_JSONL] [--rounds 3] [--profile]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings
from pathlib import Path

__all__ = ["main"]

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = ROOT / "tests" / "fixtures" / "llm_recorded" / "omnitom_graph.answers.jsonl"
GOLD = ROOT.parent / "shared" / "benchmarks" / "omnitom" / "gold_dev.jsonl"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gold", nargs="?", type=Path, default=GOLD)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="cProfile one run first")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["BELIEFGRAPH_LLM_CACHE"] = str(Path(tmp) / "cache.sqlite3")
        os.environ["BELIEFGRAPH_LLM_MODEL"] = "frontier"
        os.environ.pop("BELIEFGRAPH_LLM_BASE_URL", None)
        os.environ["BELIEFGRAPH_LLM_BATCH_OUT"] = str(Path(tmp) / "requests.jsonl")
        from beliefgraph.adapters import evaluate
        from beliefgraph.parsers.llm.batchfile import import_results
        from beliefgraph.parsers.llm.cache import LLMCache

        warnings.simplefilter("ignore")
        evaluate("omnitom", args.gold, stage=2, parser="llm", grounding="llm")
        import_results(ANSWERS, LLMCache(Path(os.environ["BELIEFGRAPH_LLM_CACHE"])))
        os.environ["BELIEFGRAPH_LLM_BATCH_OUT"] = str(Path(tmp) / "left.jsonl")
        walls = []
        if args.profile:
            import cProfile
            import pstats

            profile = cProfile.Profile()
            profile.runcall(evaluate, "omnitom", args.gold, stage=2, parser="llm", grounding="llm")
            pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
        for _ in range(args.rounds):
            start = time.perf_counter()
            r = evaluate("omnitom", args.gold, stage=2, parser="llm", grounding="llm")
            walls.append(time.perf_counter() - start)
        best = min(walls)
        print(
            f"OmniToM Stage 2, cached answers: {r.n} rows, best of "
            f"{args.rounds} {best:.2f} s ({', '.join(f'{w:.2f}' for w in walls)}), "
            f"{r.n / best:.0f} rows/s; {r.llm_calls} calls, stage2.overall "
            f"{r.metrics['stage2.overall']:.4f}; load {os.getloadavg()[0]:.2f}"
        )


if __name__ == "__main__":
    main()
