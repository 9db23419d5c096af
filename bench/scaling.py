"""How tracking, listing beliefs and checking grow with actors, belief order and story length.

Three tables, in CPU seconds (one run each; the machine is shared, so read the growth, not
the last digit):

1. **Actors x order, asked.** A story of ``N`` actors in rooms of about five (people come
   and go in groups, as in a long story); the graph is built and 20 questions about
   order-``k`` chains are answered (``graph.belief``), which is what ``track`` and ``ask`` do.
   Target: 50 actors at order 4 under 2 s.
2. **Actors x order, listed.** The same stories with every belief listed
   (``graph.beliefs()``, which ``to_json`` serialises): chains are pruned to actors who
   perceived something together, so this grows with the groups, not with actors ** order.
   ``one room`` puts everybody together, the worst case, where the list itself is
   actors ** order long.
3. **Sentences.** ``N`` events among 6 actors in one room, order 4: ``beliefs()`` and
   ``check()``. Target: 1,000 sentences under 5 s each.

Usage::

    python bench/scaling.py [--quick] [--tables 1,2,3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from beliefgraph import BeliefGraph
from beliefgraph.models import Event, ParsedStory, Proposition, Sentence
from beliefgraph.solvers import check

sys.path.insert(0, str(Path(__file__).resolve().parent))
from consistency_speed import story as one_room_story

__all__ = ["main", "rooms_story"]

OBJECTS = ("apple", "ball", "cup", "key", "coin")
CONTAINERS = ("box", "basket", "crate", "drawer", "bag")


def _at(obj: str, container: str) -> Proposition:
    return Proposition(content_type="Location", subject=obj, relation="in", value=container)


def rooms_story(n_actors: int, seed: int, *, per_room: int = 5, rounds: int = 3) -> ParsedStory:
    """``n_actors`` actors in rooms of about ``per_room``: each round every group enters a
    room, moves the room's things, some tell, and all leave; groups reshuffle each round."""
    rng = random.Random(seed)
    cast = [f"A{i}" for i in range(n_actors)]
    n_rooms = max(1, n_actors // per_room)
    events: list[Event] = []

    def add(**fields: object) -> None:
        events.append(Event(id=len(events) + 1, sentence_index=len(events), **fields))  # type: ignore[arg-type]

    for _ in range(rounds):
        rng.shuffle(cast)
        for r in range(n_rooms):
            group = tuple(cast[r::n_rooms])
            room = f"room{r}"
            add(kind="enter", actors=group, room=room)
            for _ in range(3):
                who = rng.choice(group)
                obj = f"{rng.choice(OBJECTS)}{r}"
                where = f"{rng.choice(CONTAINERS)}{r}"
                add(
                    kind="move",
                    actors=(who,),
                    obj=obj,
                    destination=where,
                    proposition=_at(obj, where),
                )
            speaker = rng.choice(group)
            obj = f"{rng.choice(OBJECTS)}{r}"
            add(
                kind="tell",
                actors=(speaker,),
                obj=obj,
                proposition=_at(obj, f"{rng.choice(CONTAINERS)}{r}"),
            )
            leaver = rng.choice(group)
            add(kind="exit", actors=(leaver,), room=room)
            obj = f"{rng.choice(OBJECTS)}{r}"
            where = f"{rng.choice(CONTAINERS)}{r}"
            mover = rng.choice([a for a in group if a != leaver] or [leaver])
            if mover != leaver:
                add(
                    kind="move",
                    actors=(mover,),
                    obj=obj,
                    destination=where,
                    proposition=_at(obj, where),
                )
            rest = tuple(a for a in group if a != leaver)
            if rest:
                add(kind="exit", actors=rest, room=room)
    sentences = tuple(
        Sentence(index=i, text=f"event {i + 1}", events=(i + 1,)) for i in range(len(events))
    )
    actors = tuple(sorted({a for e in events for a in e.actors}, key=lambda a: int(a[1:])))
    return ParsedStory(text="", sentences=sentences, events=tuple(events), actors=actors)


def _cpu(fn):
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def _asked(story: ParsedStory, order: int, n_questions: int = 20) -> tuple[float, int]:
    """Build the graph and answer ``n_questions`` order-``order`` questions."""
    rng = random.Random(order)

    def run() -> int:
        graph = BeliefGraph(story, max_order=order)
        found = 0
        objs = sorted(
            {v[0] for v in graph.variables if v[1:] == ("in",) and v[0] not in graph.actors}
        )
        for _ in range(n_questions):
            chain = tuple(rng.sample(graph.actors, min(order, len(graph.actors))))
            if graph.belief(chain, obj=rng.choice(objs)) is not None:
                found += 1
        return found

    return _cpu(run)


def _listed(story: ParsedStory, order: int) -> tuple[float, int]:
    return _cpu(lambda: len(BeliefGraph(story, max_order=order).beliefs()))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    parser.add_argument("--tables", default="1,2,3", help="which tables to print (1,2,3)")
    args = parser.parse_args(argv)
    tables = {int(t) for t in args.tables.split(",")}
    actors = (5, 10, 20) if args.quick else (5, 10, 15, 20, 50)
    sizes = (100, 300) if args.quick else (100, 300, 1000)
    check(BeliefGraph(one_room_story(5, 2, 0)))  # imports and registries, once

    if 1 in tables:
        _table_asked(actors)
    if 2 in tables:
        _table_listed(actors, args.quick)
    if 3 in tables:
        _table_sentences(sizes)


def _table_asked(actors: tuple[int, ...]) -> None:
    print("1. Tracked and asked (20 questions at the order), rooms of ~5, CPU s:")
    print("| actors | events | order 1 | order 2 | order 3 | order 4 |\n|---|---|---|---|---|---|")
    for n in actors:
        story = rooms_story(n, seed=n)
        cells = [f"{_asked(story, k)[0]:.3f}" for k in range(1, 5)]
        print(f"| {n} | {len(story.events)} | {' | '.join(cells)} |")


def _table_listed(actors: tuple[int, ...], quick: bool) -> None:
    print("\n2. Every belief listed (beliefs(), what to_json writes), CPU s (count):")
    print("| story | order 1 | order 2 | order 3 | order 4 |\n|---|---|---|---|---|")
    for n in actors:
        story = rooms_story(n, seed=n)
        cells = []
        for k in range(1, 5):
            spent, count = _listed(story, k)
            cells.append(f"{spent:.3f} ({count})")
        print(f"| {n} actors, rooms of ~5 | {' | '.join(cells)} |")
    for n in (5, 10) if quick else (5, 10, 15):
        story = one_room_story(40, n, seed=n)
        cells = []
        for k in range(1, 5):
            spent, count = _listed(story, k)
            cells.append(f"{spent:.3f} ({count})")
        print(f"| {n} actors, one room | {' | '.join(cells)} |")


def _table_sentences(sizes: tuple[int, ...]) -> None:
    print("\n3. Story length, 6 actors in one room, order 4, CPU s:")
    print("| events | beliefs() | count | check() | consistent |\n|---|---|---|---|---|")
    for n in sizes:
        graph = BeliefGraph(one_room_story(n, 6, seed=1), max_order=4)
        listed, beliefs = _cpu(graph.beliefs)
        checked, report = _cpu(lambda g=graph: check(g))
        print(f"| {n} | {listed:.3f} | {len(beliefs)} | {checked:.3f} | {report.consistent} |")


if __name__ == "__main__":
    main()
