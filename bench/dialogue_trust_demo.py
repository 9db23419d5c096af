"""A trust edge changes what a hearer comes to believe.

The same counselling exchange is tracked twice. The counselor tells the client that the
new medication is safe with her other pills. In the first session the client's replies
show trust, so the edge client -> counselor is high and the client adopts the claim (a
Testimony belief carrying the edge's weight). In the second the client pushes back, the
edge falls below the adoption threshold, and the claim stays out of her beliefs, while the
counselor, who assumes being heard is being believed, now holds a false second-order
belief about her.

Run: ``python bench/dialogue_trust_demo.py``
"""

from __future__ import annotations

from beliefgraph.adapters.dialogue import (
    EdgeTrust,
    dialogue_story,
    estimate_trust,
)
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Proposition
from beliefgraph.parsers.llm.dialogue import Turn

CLAIM = Proposition(
    content_type="Contents/Physical State",
    subject="new medication",
    relation="be safe with",
    value="her other pills",
)


def session(client_replies: tuple[str, str]) -> list[Turn]:
    return [
        Turn("counselor", "How have the last weeks been?"),
        Turn("client", client_replies[0]),
        Turn("counselor", "The new medication is safe to take with your other pills."),
        Turn("client", client_replies[1]),
    ]


def track(turns: list[Turn]) -> tuple[BeliefGraph, str]:
    edge = estimate_trust(turns, "client", "counselor", window="demo")
    story = dialogue_story(turns)
    # The counselor's third turn asserts a typed claim (an LLM parser would type it; the
    # offline path keeps the words, so the demo types it by hand).
    events = tuple(
        e.model_copy(update={"proposition": CLAIM}) if e.sentence_index == 2 else e
        for e in story.events
    )
    story = story.model_copy(update={"events": events})
    graph = BeliefGraph(story, trust=EdgeTrust(edges=(edge,)))
    lines = [f"edge client -> counselor: {edge.level} (weight {edge.weight})"]
    lines += [f"  because {r}" for r in edge.reasons]
    for holders in (("client",), ("counselor", "client")):
        b = graph.belief(holders, variable=CLAIM.variable)
        who = " believes ".join(holders)
        if b is None:
            lines.append(f"  {who}: nothing about the medication")
        else:
            trust = f", trust {b.trust}" if b.trust is not None else ""
            lines.append(
                f"  {who}: {b.proposition.render()} ({b.mental_source}{trust}, "
                f"from {b.source_actor})"
            )
    return graph, "\n".join(lines)


def main() -> None:
    trusting = session(
        ("Thanks, talking to you really helps.", "Okay, that makes sense, I'll try it.")
    )
    wary = session(("Whatever. You don't understand my situation.", "I don't trust you on that."))
    for title, turns in (("Trusting client", trusting), ("Wary client", wary)):
        print(f"== {title}")
        for t in turns:
            print(f"   {t.speaker}: {t.text}")
        print(track(turns)[1])
        print()


if __name__ == "__main__":
    main()
