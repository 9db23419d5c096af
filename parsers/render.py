"""Render events back into the templated English of ToMi and Hi-ToM.

``render`` is the inverse of the rules parser on the templated grammar: parsing its output
gives back the same events (kind, actors, object, origin, destination, room, proposition,
hearers, privacy). It writes one bAbI-numbered sentence per event, in the benchmarks' own
wording ("Liam made no movements and stayed in the garage for 1 minute.", "Avery publicly
claimed that lemon is in the green_drawer.").

Limits: events the templated grammar has no sentence for (an ``observe`` that needs the
story's context to be read back, an ``Epistemic`` proposition) raise
``ConfigurationError``. Actor lists are written "A, B and C", as Hi-ToM writes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from beliefgraph.errors import ConfigurationError
from beliefgraph.models import Event, Proposition

__all__ = ["render"]


def render(events: Iterable[Event]) -> str:
    """Write ``events`` as a numbered templated story, one sentence per event.

    Parameters
    ----------
    events : iterable of Event
        The events, in story order (their ids are not used: lines are numbered 1..n).

    Returns
    -------
    str
        The story, lines joined by newlines.

    Raises
    ------
    ConfigurationError
        For an event the templated grammar cannot express.

    Examples
    --------
    >>> from beliefgraph.models import Event
    >>> print(render([Event(id=1, kind="enter", actors=("Ella", "Liam"), room="garage"),
    ...               Event(id=2, kind="exit", actors=("Liam",), room="garage")]))
    1 Ella and Liam entered the garage.
    2 Liam exited the garage.
    """
    return "\n".join(f"{n} {_sentence(e)}" for n, e in enumerate(events, 1))


def _sentence(e: Event) -> str:
    writer = _WRITERS.get(e.kind)
    text = writer(e) if writer is not None else None
    if text is None:
        raise ConfigurationError(
            f"render has no templated sentence for event {e.id} ({e.kind}: {e!r}); it writes "
            "enter, exit, stay, move, tell, open, close, label and narrated facts"
        )
    return text


def _names(names: Iterable[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _enter(e: Event) -> str:
    if e.room is None:
        return f"{_names(e.actors)} came back."
    return f"{_names(e.actors)} entered the {e.room}."


def _exit(e: Event) -> str:
    if e.room is None:
        return f"{_names(e.actors)} left."
    return f"{_names(e.actors)} exited the {e.room}."


def _stay(e: Event) -> str:
    where = f" in the {e.room}" if e.room else ""
    return f"{_names(e.actors)} made no movements and stayed{where} for 1 minute."


def _move(e: Event) -> str | None:
    if e.obj is None or e.destination is None:
        return None
    origin = f" from the {e.origin}" if e.origin else ""
    return f"{_names(e.actors)} moved the {e.obj}{origin} to the {e.destination}."


def _tell(e: Event) -> str | None:
    p = e.proposition
    if p is None or p.relation != "in" or p.negated:
        return None
    claim = f"the {p.subject} is in the {p.value}."
    if e.private:
        return f"{e.actors[0]} privately told {_names(e.hearers)} that {claim}"
    if e.hearers:
        return f"{e.actors[0]} told {_names(e.hearers)} that {claim}"
    return f"{e.actors[0]} publicly claimed that {p.subject} is in the {p.value}."


def _narrate(e: Event) -> str | None:
    p = e.proposition
    if p is None:
        return None
    if p.relation == "in":
        neg = " not" if p.negated else ""
        return f"The {p.subject} is{neg} in the {p.value}."
    if p.relation == "contains" and p.negated:
        return f"There is no {p.value} in the {p.subject}."
    if p.relation == "see inside" and p.negated:
        return f"{p.subject} cannot see what is inside the {p.value}."
    if p.relation == "state" and p.subject == "world":
        return p.value
    return _fact(p)


def _fact(p: Proposition) -> str | None:
    if p.negated or p.value is None:
        return None
    if p.content_type == "Trait/Value":
        return f"{p.subject} {_third_person(p.relation)} the {p.value}."
    if p.relation == "lose":
        return f"{p.subject} lost his {p.value}."
    if p.relation == "see":
        return f"{p.subject} saw {_a(p.value)}."
    if p.relation == "have":
        return f"{p.subject} has {_a(p.value)}."
    if p.relation == "want":
        return f"{p.subject} wants to {p.value}."
    return None


def _open_close(e: Event) -> str | None:
    verb = "opened" if e.kind == "open" else "closed"
    return f"{_names(e.actors)} {verb} the {e.obj}." if e.obj and e.actors else None


def _label(e: Event) -> str | None:
    p = e.proposition
    return f"The label on the {p.subject} is {_a(p.value)}." if p and p.value else None


def _third_person(verb: str) -> str:
    return f"{verb}es" if verb.endswith(("s", "sh", "ch", "x", "z", "o")) else f"{verb}s"


def _a(noun: str) -> str:
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


_WRITERS: dict[str, Callable[[Event], str | None]] = {
    "enter": _enter,
    "exit": _exit,
    "stay": _stay,
    "move": _move,
    "tell": _tell,
    "narrate": _narrate,
    "open": _open_close,
    "close": _open_close,
    "label": _label,
}
