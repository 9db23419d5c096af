"""Salvage a story parse that fails its checks when no re-ask is possible.

A batch answer replayed from the cache cannot be re-asked: rather than discard the whole
story's parse for one bad field, ``salvage`` repairs what can be repaired deterministically
and drops what cannot, one item at a time, and says what it did:

- an actor named in an item or a belief, missing from the actor list but present in the story
  text, is added to the list ("sentence 3 names 'Li Ming', missing from the actors: added");
- a thing (object, container, room) missing from the entity list but present in the text is
  added the same way;
- an item or belief still failing the checks (a name the text never mentions, a sentence out
  of range, a malformed field) is dropped, naming its sentence;
- an actor or entity in the lists that the text never mentions is dropped.

The checks are the schema's own (``StoryParse`` with the request's validation context); a
sentence left without items stays unparsed, as with any parse.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter, ValidationError

from .schema import (
    Action,
    BeliefOut,
    DefaultAssumption,
    EntityOut,
    Fact,
    Item,
    MentalState,
    Perception,
    StoryParse,
    Utterance,
    mentioned,
    name_key,
    resolve,
    thing_key,
)

__all__ = ["salvage"]

_ADAPTERS: dict[str, TypeAdapter[Any]] = {"items": TypeAdapter(Item),
                                           "beliefs": TypeAdapter(BeliefOut)}  # fmt: skip
_ADDED = "added"


def salvage(raw: str, context: dict[str, Any]) -> tuple[StoryParse, list[str]] | None:
    """The parse in ``raw`` repaired against ``context``, and a note per repair or drop.

    Parameters
    ----------
    raw : str
        The reply: the JSON object the model wrote.
    context : dict
        The request's validation context (``sentences``, ``first``, ``targets``, ...).

    Returns
    -------
    (StoryParse, list of str) or None
        None when ``raw`` is not a JSON object (nothing to salvage).

    Examples
    --------
    >>> ctx = {"sentences": ["Ann waves.", "Bob leaves the hall."], "first": 1}
    >>> raw = json.dumps({"actors": ["Ann"], "items": [
    ...     {"type": "action", "sentence": 2, "kind": "exit", "actors": ["Bob"]},
    ...     {"type": "action", "sentence": 1, "kind": "exit", "actors": ["Zed"]}]})
    >>> parse, notes = salvage(raw, ctx)
    >>> parse.actors, len(parse.items)
    (['Ann', 'Bob'], 1)
    >>> for note in notes:
    ...     print(note[:58].rstrip())
    sentence 2 names 'Bob', missing from the actor list but in
    sentence 1: item dropped (action): 'Zed' is not in actors
    """
    try:
        data = json.loads(raw)
    except (TypeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    ctx = {k: v for k, v in context.items() if k not in ("coverage", "checks")}
    sentences: list[str] = list(ctx.get("sentences", ()))
    text = " ".join(sentences)
    notes: list[str] = []

    actors: list[str] = []
    for a in data.get("actors") or ():
        if isinstance(a, str) and a.strip() and name_key(a) not in map(name_key, actors):
            if mentioned(a, text) or name_key(a) in map(name_key, ctx.get("actors", ())):
                actors.append(a)
            else:
                notes.append(f"actor {a!r} does not occur in the story: dropped")
    entities: list[EntityOut] = []
    for e in data.get("entities") or ():
        try:
            ent = EntityOut.model_validate(e)
        except ValidationError:
            notes.append(f"entity {e!r} is malformed: dropped")
            continue
        if mentioned(ent.name, text) or thing_key(ent.name) in map(
            thing_key, ctx.get("entities", ())
        ):
            entities.append(ent)
        else:
            notes.append(f"entity {ent.name!r} does not occur in the story: dropped")

    def where(raw_item: Any) -> str:
        n = raw_item.get("sentence") if isinstance(raw_item, dict) else None
        if isinstance(raw_item, dict) and n is None and raw_item.get("evidence"):
            n = max(x for x in raw_item["evidence"] if isinstance(x, int))
        return f"sentence {n}" if isinstance(n, int) else "an item without a sentence"

    def add_missing(names: list[str], things: list[tuple[str, str]], at: str) -> None:
        known = [name_key(a) for a in actors]
        for n in names:
            if name_key(n) not in known and mentioned(n, text):
                actors.append(n)
                known.append(name_key(n))
                notes.append(
                    f"{at} names {n!r}, missing from the actor list but in the story: {_ADDED}"
                )
        for thing, kind in things:
            keys = [thing_key(e.name) for e in entities]
            if (
                resolve(thing_key(thing), keys) is None
                and name_key(thing) not in known
                and mentioned(thing, text)
            ):
                entities.append(EntityOut(name=thing, kind=kind))  # type: ignore[arg-type]
                notes.append(
                    f"{at} names {thing!r}, missing from the entities but in the story: {_ADDED}"
                )

    def fails(parts: dict[str, list[Any]]) -> str | None:
        try:
            StoryParse.model_validate(
                {"actors": actors, "entities": entities, "items": [], "beliefs": [], **parts},
                context=ctx,
            )
        except ValidationError as err:
            return "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in err.errors())
        return None

    def kept(field: str) -> list[Any]:
        """The reply's ``items`` (or ``beliefs``) that pass the checks, each on its own."""
        out: list[Any] = []
        for raw_one in data.get(field) or ():
            at = where(raw_one)
            try:
                one = _ADAPTERS[field].validate_python(raw_one)
            except ValidationError as err:
                notes.append(f"{at}: {field[:-1]} dropped (malformed: {_first_error(err)})")
                continue
            add_missing(*_names(one), at)
            if problem := fails({field: [one]}):
                notes.append(f"{at}: {_dropped(one)}: {_strip(problem)}")
                continue
            out.append(one)
        return out

    # items first, as before: a belief is checked against the actors its items added
    items, beliefs = kept("items"), kept("beliefs")
    parse = StoryParse.model_validate(
        {"actors": actors, "entities": entities, "items": items, "beliefs": beliefs}, context=ctx
    )
    return parse, notes


def _dropped(one: Any) -> str:
    if isinstance(one, BeliefOut):
        return f"belief {one.proposition!r} dropped"
    return f"item dropped ({one.type})"


def _names(item: Any) -> tuple[list[str], list[tuple[str, str]]]:
    """The actor names and the (thing, kind) names an item or a belief uses."""
    if isinstance(item, BeliefOut):
        return list(item.holders), []
    if isinstance(item, Action):
        things = [(n, k) for n, k in ((item.obj, "object"), (item.origin, "container"),
                  (item.destination, "container"), (item.room, "room")) if n]  # fmt: skip
        if item.kind in ("open", "close") and item.obj:
            things = [(item.obj, "container")]
        return list(item.actors), things
    if isinstance(item, Fact):
        return list(item.observers), []
    if isinstance(item, Utterance):
        return [item.speaker, *item.addressees], []
    if isinstance(item, MentalState):
        return [item.holder], []
    if isinstance(item, Perception):
        return [item.actor], []
    if isinstance(item, DefaultAssumption):
        return list(item.holders), [(item.container, "container")]
    return [], []


def _first_error(err: ValidationError) -> str:
    e = err.errors()[0]
    return f"{'.'.join(map(str, e['loc']))}: {e['msg']}"


def _strip(problem: str) -> str:
    # The schema's message names the item by its place in the one-item parse ("item 0"): the
    # note names the sentence instead.
    for lead in ("item 0 ", "belief 0 "):
        if problem.startswith(lead):
            problem = problem.split(": ", 1)[-1]
    return problem.split("\n")[0]
