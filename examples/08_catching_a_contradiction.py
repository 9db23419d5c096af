"""Tutorial 8: catch a contradiction with the consistency checker, and read why it is one.

Run it from anywhere:

    python examples/08_catching_a_contradiction.py

``beliefgraph.check(graph)`` encodes the world over time, the events and every belief as z3
constraints under a set of named axioms ("a thing is in one place at a time", "a belief lasts
until its holders perceive something that changes it", ...). A consistent graph satisfies
them all; otherwise each conflict names the clashing beliefs, the axioms and the story lines.
Use it to audit a parse (an LLM's, say), a gold annotation, or a belief you assert by hand.
"""

import subprocess
import sys
import tempfile
from pathlib import Path

from beliefgraph import Belief, InconsistentGraphError, Proposition, check, track

HERE = Path(__file__).resolve().parent

# --- 1. A tracked story is consistent --------------------------------------------------------
story = (HERE / "sally_anne.txt").read_text(encoding="utf-8")
graph = track(story)
report = check(graph)
print(report.explain())
assert report.consistent

# `possible` asks the solver (not the propagator) which values a chain's picture can take.
# Time t is the state after event t. Sally can only think "basket"; at time 3, before line 4
# puts the ball anywhere, reality is open (None: a place the story never names).
print("\nwhere Sally can think the ball is:", graph.possible(("Sally",), "ball"))
print("where the ball can be at time 3:", graph.possible((), "ball", at=3))

# --- 2. Plant a contradiction ----------------------------------------------------------------
# Assert by hand that Sally believes the ball is in the box while she is out (from her exit,
# event 5, to her return, event 7). She never saw the move, so nothing lets her belief change.
sally_out = next(e.id for e in graph.events if e.kind == "exit")
graph.add_belief(
    Belief(
        holders=("Sally",),
        proposition=Proposition(
            content_type="Location", subject="ball", relation="in", value="box"
        ),
        start=sally_out,
        end=sally_out + 2,
        truth_status="True",
        knowledge_access="Private",
        representation="Explicit",
        mental_source="Inference",
    )
)
report = check(graph)
print(f"\n{report.explain()}")
assert not report.consistent

# Each conflict is data too: the clashing beliefs, the axioms, the story lines behind it.
conflict = report.conflicts[0]
print("axioms:", ", ".join(conflict.axioms))
print("story lines:", "; ".join(conflict.sentences))
print("asserted by hand:", [b.proposition.render() for b in conflict.asserted])

# An inconsistent graph has no possible values: `possible` raises with the same explanation.
try:
    graph.possible(("Sally",), "ball")
except InconsistentGraphError as err:
    print(f"\npossible() refuses: {str(err).splitlines()[0]} (InconsistentGraphError)")

# --- 3. Switch an axiom off ------------------------------------------------------------------
# Without persistence the planted belief no longer clashes with the events; it still clashes
# with Sally's derived belief "basket" (a thing is in one place at a time). Switch that off
# too and nothing forbids two places at once: the graph is "consistent".
for without in (("persistence",), ("unique_location",)):
    r = check(graph, without=without)
    verdict = "consistent" if r.consistent else r.conflicts[0].explanation
    print(f"\nwithout {', '.join(without)}: {verdict}")

# --- 4. The command line ---------------------------------------------------------------------
# `beliefgraph check FILE` reads a story (tracked to order 2) or a saved graph, prints the
# report and exits 1 on a conflict, like a linter; `-x AXIOM` switches an axiom off. Save the
# planted graph (hand-asserted beliefs are saved too) beside a copy of the story, check both.
workdir = Path(tempfile.mkdtemp(prefix="beliefgraph-check-"))
(workdir / "sally_anne.txt").write_text(story, encoding="utf-8")
(workdir / "planted.json").write_text(graph.to_json(), encoding="utf-8")
for name in ("sally_anne.txt", "planted.json"):
    print(f"\n$ beliefgraph check {name}")
    cli = [sys.executable, "-m", "beliefgraph", "check", name]
    done = subprocess.run(cli, cwd=workdir, check=False)
    print(f"(exit code {done.returncode})")
