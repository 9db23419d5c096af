"""Tutorial 3: evaluate a benchmark file and read the per-item trace.

Run it from anywhere:

    python examples/03_evaluate_a_benchmark.py            # first 600 ToMi questions
    python examples/03_evaluate_a_benchmark.py --all      # the whole file (about 5 s)

It scores the tracker on ToMi's validation file when the benchmarks are beside the checkout
(``../shared/benchmarks``, or ``$BELIEFGRAPH_BENCHMARKS``); otherwise it writes a small file
in ToMi's bAbI format and scores that, so the tutorial always runs.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from beliefgraph.adapters import evaluate

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = Path(os.environ.get("BELIEFGRAPH_BENCHMARKS", ROOT.parent / "shared" / "benchmarks"))
TOMI_VAL = BENCHMARKS / "tomi" / "tomi_balanced_story_types" / "fb_all_val.txt"

# ToMi's format: numbered story lines, and a question line "<question>\t<answer>\t<support>".
# The numbering restarts at 1 for every story. A `.trace` file beside it (optional) gives each
# question's type and story type; without it the breakdowns say "unknown". The last question
# carries the kind of label ToMi's release often gets wrong: Ella left before the move, so she
# cannot think Avery looks in the chest, yet the label gives where the spinach really is.
TINY_TOMI = """\
1 Ella entered the garage.
2 Avery entered the garage.
3 The spinach is in the green_crate.
4 Ella exited the garage.
5 Avery moved the spinach to the green_treasure_chest.
6 Where will Ella look for the spinach?\tgreen_crate\t1
1 Ella entered the garage.
2 Avery entered the garage.
3 The spinach is in the green_crate.
4 Ella exited the garage.
5 Avery moved the spinach to the green_treasure_chest.
6 Where does Avery think that Ella searches for the spinach?\tgreen_crate\t1
1 Ella entered the garage.
2 Avery entered the garage.
3 The spinach is in the green_crate.
4 Ella exited the garage.
5 Avery moved the spinach to the green_treasure_chest.
6 Where is the spinach really?\tgreen_treasure_chest\t1
1 Ella entered the garage.
2 Avery entered the garage.
3 The spinach is in the green_crate.
4 Ella exited the garage.
5 Avery moved the spinach to the green_treasure_chest.
6 Where was the spinach at the beginning?\tgreen_crate\t1
1 Ella entered the garage.
2 Avery entered the garage.
3 The spinach is in the green_crate.
4 Ella exited the garage.
5 Avery moved the spinach to the green_treasure_chest.
6 Where does Ella think that Avery searches for the spinach?\tgreen_treasure_chest\t1
"""

STEPS = "enter_agent_0,enter_agent_1,agent_0_exits,agent_1_moves_obj"
TINY_TRACE = "".join(
    f"{STEPS},{tag},false_belief\n"
    for tag in (
        "first_order_0_tom",
        "second_order_1_no_tom",
        "reality",
        "memory",
        "second_order_0_no_tom",
    )
)

workdir = Path(tempfile.mkdtemp(prefix="beliefgraph-eval-"))
if TOMI_VAL.is_file():
    data = TOMI_VAL
    limit = None if "--all" in sys.argv else 600
else:
    data = workdir / "tiny_tomi.txt"
    data.write_text(TINY_TOMI, encoding="utf-8")
    data.with_suffix(".trace").write_text(TINY_TRACE, encoding="utf-8")
    limit = None
    print(f"(ToMi not found at {TOMI_VAL}; using a {TINY_TOMI.count(chr(9)) // 2}-question file)")
print(f"data: {data}, limit: {limit}")

# --- 1. Evaluate -------------------------------------------------------------------------------
# `evaluate` loads the file with the benchmark's adapter, tracks each story once (questions on
# the same story share its graph), answers every question and scores it. Items the tracker
# cannot answer count as wrong and keep the reason in their trace.
result = evaluate("tomi", data, limit=limit)
print(
    f"\n{result.benchmark}: {result.accuracy:.2%} of {result.n} questions "
    f"({result.answered} answered, parse coverage {result.parse_coverage:.0%}, "
    f"{result.n / max(result.seconds, 1e-9):,.0f} questions/s, {result.llm_calls} LLM calls)"
)

# --- 2. The breakdowns ------------------------------------------------------------------------
# ToMi's official breakdowns are the question type and the story type. The adapter adds a
# third, `label`: whether the released label is one the story supports.
for name, keys in result.by().items():
    cells = ", ".join(f"{k} {v['accuracy']:.1%} (n={v['n']:.0f})" for k, v in keys.items())
    print(f"  by {name}: {cells}")

# --- 3. Read one item's trace -------------------------------------------------------------------
# Every item keeps its gold label, the prediction, the derivation (citing story lines), its
# breakdown keys, whether the story supports the label, and how it departs when it does not.
first = result.results[0]
print(
    f"\nitem {first.id}: gold {first.gold!r}, predicted {first.prediction!r}, "
    f"correct={first.correct}"
)
for line in first.explanation:
    print("  -", line)

wrong = [r for r in result.results if not r.correct]
if wrong:
    miss = wrong[0]
    print(f"\na wrong item, {miss.id}: gold {miss.gold!r}, predicted {miss.prediction!r}")
    print(f"  supported by the story: {miss.supported}; disagreement: {miss.disagreement}")
    for line in miss.explanation:
        print("  -", line)
    kinds: dict[str, int] = {}
    for r in wrong:
        kinds[r.disagreement or "unclassified"] = kinds.get(r.disagreement or "unclassified", 0) + 1
    print("  every wrong item, by disagreement:", kinds)
else:
    print("\nevery item is correct")

# --- 4. Traces on disk, and the same run from the command line ------------------------------
traces = workdir / "traces.jsonl"
result.write_traces(traces)
with traces.open(encoding="utf-8") as fh:
    record = json.loads(fh.readline())
print(f"\nwrote {result.n} traces to {traces}; each line has: {', '.join(record)}")

# The CLI does the same, with a progress bar, a summary table and a summary JSON:
#   beliefgraph eval tomi --data <file> --out traces.jsonl --summary summary.json
summary = workdir / "summary.json"
cli = [
    sys.executable,
    "-m",
    "beliefgraph",
    "eval",
    "tomi",
    "--data",
    str(data),
    "--limit",
    "100",
    "--out",
    str(workdir / "cli_traces.jsonl"),
    "--summary",
    str(summary),
]
print("$", " ".join(cli[2:]))
subprocess.run(cli, check=True)
print("summary keys:", ", ".join(json.loads(summary.read_text(encoding="utf-8"))))
