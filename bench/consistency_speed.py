"""How long ``beliefgraph.check`` takes, and how that grows with actors and belief order.

Stories are seeded random event sequences of a fixed size in one room (entries, exits,
moves of 3 objects among 5 containers, tellings), like the tests' hypothesis generator but
with exact sizes. For each size the script times, in CPU seconds (median over seeds):

- ``derive``: the graph deriving and labelling its beliefs up to the order (propagation; the
  checker's input, paid once per graph),
- ``check``: ``check(graph, max_order=order)`` itself on those beliefs (a consistent graph
  is decided by the first, untracked pass),
- ``conflict``: ``check`` after one contradicting belief is asserted (the tracked encoding,
  the unsat core and its minimisation).

Usage::

    python bench/consistency_speed.py [--events 60] [--actors 6] [--order 3] [--seeds 5]

The headline is the 60-event, 6-actor, order-3 story; then one table grows the actors at
order 3 and one grows the order at 6 actors.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from beliefgraph import BeliefGraph
from beliefgraph.models import Event, ParsedStory, Proposition, Sentence
from beliefgraph.solvers import check
from beliefgraph.solvers.consistency import derived_beliefs

__all__ = ["main", "story"]

OBJECTS = ("apple", "ball", "cup")
CONTAINERS = ("box", "basket", "crate", "drawer", "bag")


def _at(obj: str, container: str) -> Proposition:
    return Proposition(content_type="Location", subject=obj, relation="in", value=container)


def story(n_events: int, n_actors: int, seed: int) -> ParsedStory:
    """A valid story of exactly ``n_events`` events among exactly ``n_actors`` actors."""
    rng = random.Random(seed)
    cast = [f"A{i}" for i in range(n_actors)]
    present: set[str] = set()
    events: list[Event] = []
    for i in range(1, n_events + 1):
        absent = sorted(set(cast) - present)
        kinds = ["enter"] * 2 if absent else []
        if present:
            kinds += ["exit", "move", "move", "move", "tell"]
        kind = rng.choice(kinds)
        who = rng.choice(absent if kind == "enter" else sorted(present))
        if kind == "enter":
            present.add(who)
            event = Event(id=i, kind="enter", actors=(who,), room="hall")
        elif kind == "exit":
            present.discard(who)
            event = Event(id=i, kind="exit", actors=(who,), room="hall")
        else:
            obj, where = rng.choice(OBJECTS), rng.choice(CONTAINERS)
            if kind == "move":
                event = Event(
                    id=i,
                    kind="move",
                    actors=(who,),
                    obj=obj,
                    destination=where,
                    proposition=_at(obj, where),
                )
            else:
                event = Event(
                    id=i, kind="tell", actors=(who,), obj=obj, proposition=_at(obj, where)
                )
        events.append(event.model_copy(update={"sentence_index": i - 1}))
    sentences = tuple(
        Sentence(index=i, text=f"event {i + 1}", events=(i + 1,)) for i in range(n_events)
    )
    actors = tuple(a for a in cast if any(a in e.actors for e in events))
    return ParsedStory(text="", sentences=sentences, events=tuple(events), actors=actors)


def _cpu(fn):
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def measure(n_events: int, n_actors: int, order: int, seeds: int) -> dict[str, float]:
    """Median CPU seconds of each phase, and the median number of beliefs checked."""
    rows: dict[str, list[float]] = {"derive": [], "check": [], "conflict": [], "beliefs": []}
    consistent = True
    for seed in range(seeds):
        graph = BeliefGraph(story(n_events, n_actors, seed), max_order=order)
        derive, beliefs = _cpu(lambda g=graph: derived_beliefs(g, order))
        spent, report = _cpu(lambda g=graph: check(g, max_order=order))
        consistent &= report.consistent
        located = [b for b in beliefs if b.proposition.relation == "in"]
        target = next((b for b in located if b.order == order), located[-1])
        wrong = target.proposition.model_copy(update={"value": "nowhere", "negated": False})
        graph.add_belief(target.model_copy(update={"proposition": wrong}))
        conflict, _ = _cpu(lambda g=graph: check(g, max_order=order, max_conflicts=1))
        for name, value in (
            ("derive", derive),
            ("check", spent),
            ("conflict", conflict),
            ("beliefs", len(beliefs)),
        ):
            rows[name].append(value)
    out = {name: statistics.median(values) for name, values in rows.items()}
    out["consistent"] = float(consistent)
    return out


def _row(label: str, m: dict[str, float]) -> str:
    ok = "" if m["consistent"] else " (inconsistent: see the report)"
    return (
        f"| {label} | {m['beliefs']:.0f} | {m['derive']:.3f} | {m['check']:.3f} | "
        f"{m['derive'] + m['check']:.3f} | {m['conflict']:.3f} |{ok}"
    )


_HEADER = (
    "| {} | beliefs | derive (s) | check (s) | derive + check (s) | with a conflict (s) |\n"
    "|---|---|---|---|---|---|"
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=60)
    parser.add_argument("--actors", type=int, default=6)
    parser.add_argument("--order", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args(argv)
    check(BeliefGraph(story(5, 2, 0)))  # imports and registries, once

    head = measure(args.events, args.actors, args.order, args.seeds)
    print(
        f"{args.events} events, {args.actors} actors, beliefs to order {args.order} "
        f"(median of {args.seeds} seeds, CPU seconds):"
    )
    print(_HEADER.format("story"))
    print(_row(f"{args.events} ev / {args.actors} actors / order {args.order}", head))
    verdict = "under" if head["check"] < 1.0 else "OVER"
    print(f"\ncheck: {head['check']:.3f} s, {verdict} one second\n")

    print(f"Growth with actors (order {args.order}, {args.events} events):")
    print(_HEADER.format("actors"))
    for n in range(2, args.actors + 3):
        print(_row(str(n), measure(args.events, n, args.order, args.seeds)))
    print(f"\nGrowth with order ({args.actors} actors, {args.events} events):")
    print(_HEADER.format("order"))
    for k in range(0, args.order + 2):
        print(_row(str(k), measure(args.events, args.actors, k, args.seeds)))


if __name__ == "__main__":
    main()
