"""Tutorial 1: track the Sally-Anne story and ask first- and second-order questions.

Run it from anywhere:

    python examples/01_sally_anne.py

What you will see: Sally's false belief (she was out when the ball moved), why the tracker
thinks so (the story lines it cites), Anne's model of Sally's mind (a second-order belief),
the OmniToM labels every belief carries, and finally a picture of the story.
"""

import tempfile
from pathlib import Path

from beliefgraph import track
from beliefgraph.viz import render

HERE = Path(__file__).resolve().parent

# --- 1. Track the story ----------------------------------------------------------------------
# `track` parses the text with the offline rule-based parser (no model, no network), replays
# who was in the room at every step, and derives every actor's beliefs to any order.
story = (HERE / "sally_anne.txt").read_text(encoding="utf-8")
print(story)
graph = track(story)
print(graph)  # BeliefGraph(7 events, 2 actors, trust='default', max_order=4)

# Every sentence became a typed event; `perceivers` says who saw it happen.
for event in graph.events:
    print(
        f"  {event.id}. {event.kind:<8} seen by {', '.join(event.perceivers or ()):<12} "
        f"| {event.sentence}"
    )

# --- 2. A first-order question ---------------------------------------------------------------
# `ask` reads templated benchmark questions (ToMi, Hi-ToM, ToMBench style) and answers with
# the belief it used and an explanation that cites the story.
answer = graph.ask("Where will Sally look for the ball?")
print("\nWhere will Sally look for the ball? ->", answer.value)
for line in answer.explanation:
    print("  -", line)

# The answer carries the belief itself, typed on the OmniToM dimensions. Sally's belief is
# false, she holds it from memory, and it is outdated (context "Temporal"): the world moved on
# while she was out.
sally = answer.belief
assert sally is not None
print(
    f"  truth={sally.truth_status} source={sally.mental_source} context={sally.context} "
    f"access={sally.knowledge_access} order={sally.order}"
)

# Reality, for comparison.
print("Where is the ball really? ->", graph.ask("Where is the ball really?").value)

# --- 3. Second-order questions ---------------------------------------------------------------
# A holder chain reads outside-in: ("Anne", "Sally") is "Anne believes Sally believes".
# Anne saw Sally leave, so Anne knows Sally missed the move: she models Sally's false belief.
q2 = "Where does Anne think Sally thinks the ball is?"
print(f"\n{q2} -> {graph.ask(q2).value}")

# The same belief, asked programmatically instead of in English.
nested = graph.belief(("Anne", "Sally"), obj="ball")
assert nested is not None
print(
    f"  order {nested.order}, content type {nested.content_type}, "
    f"truth {nested.truth_status} (true: Sally does believe that)"
)

# And the other way round: Sally never saw the move, so she thinks Anne still thinks "basket".
sally_on_anne = graph.belief(("Sally", "Anne"), obj="ball")
assert sally_on_anne is not None
print(
    f"Sally thinks Anne thinks the ball is in the {sally_on_anne.proposition.value} "
    f"({sally_on_anne.truth_status.lower()}: Anne knows it is in the box)"
)

# --- 4. How a belief changed over time -------------------------------------------------------
# `timeline_of` lists every span of a chain's belief about one thing, with the events it
# came from (`provenance`, event ids).
print("\nSally's belief about the ball over time:")
for b in graph.timeline_of(("Sally",), obj="ball"):
    until = f"until {b.end}" if b.end is not None else "to the end"
    print(
        f"  from {b.start} {until}: {b.proposition.render()} "
        f"[{b.mental_source}, {b.truth_status}] from event(s) {list(b.provenance)}"
    )

# --- 5. Every belief at the end, and JSON --------------------------------------------------
ball_beliefs = [
    b for b in graph.beliefs(max_order=2, at=graph.end) if b.proposition.subject == "ball"
]
print(f"\n{len(ball_beliefs)} beliefs about the ball at the end (orders 0-2):")
for b in ball_beliefs:
    who = " believes ".join(b.holders) or "reality"
    print(f"  {who:<22} {b.proposition.render():<28} {b.truth_status}")

saved = graph.to_json()  # story, settings and derived beliefs; BeliefGraph.from_json reads it
print(f"JSON: {len(saved):,} characters")

# --- 6. Draw it ------------------------------------------------------------------------------
# One lane per actor: shading is where it was, dots what it perceived, a red cross the change
# it missed; on the right, its beliefs at the end (false ones in red). The same picture comes
# from the command line: `beliefgraph show examples/sally_anne.txt --out graph.png`.
out_dir = Path(tempfile.mkdtemp(prefix="beliefgraph-"))
for name in ("sally_anne.html", "sally_anne.png"):
    print("drew", render(graph, out_dir / name))
