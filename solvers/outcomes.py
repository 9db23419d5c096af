"""What a narrated change leaves behind, and who learns it by seeing its traces.

A story often narrates a change as a happening by something that is no actor: "heavy
rainfall opens the valve and floods the cornfield", "a group of monkeys tears the fishing net
apart", "the power goes out, causing the projector to turn off". A parse reads these as
events (``Action/Event`` propositions), which change nothing the perception model tracks: the
valve stays closed in the world, and nobody's belief about it can be replaced.

``with_outcomes`` adds what such a sentence states implicitly, as ordinary events, so that the
perception model's usual rules decide who knows them:

1. **The state a change leaves** (a world event). A change-of-state verb (open, close, break,
   tear, flood, spill, melt, ...) acting on a thing leaves it in the verb's result state
   ("the valve is open"); "causes X to become damaged", "makes X less fresh", "leaving X
   empty" leave X in the named state; a change with no object leaves its subject in it ("the
   chocolate melts"). The state is *narrated*: like any narrated fact about a thing, nobody
   perceives it unless the parse or a later event says so. A pronoun object ("tearing it
   apart") is the last thing the sentence named before it.
2. **Seeing a change's traces shows the change.** An actor who later perceives (sees,
   notices, observes, witnesses, finds ...) a thing the change acted on, or whatever
   brought it about ("notices the power outage", "sees the flooded cornfield", "observes the
   monkeys damaging his net"), perceives every state that sentence's changes left: one
   ``observe`` event per state, right after the perceiving event. A negated perception
   ("does not see the flooded cornfield") shows nothing.

Both steps read only the parse's events (a rules parse or an LLM parse alike); the story's
events keep their order and are renumbered 1, 2, ... as the timeline expects.

"Notices the change (damage, swap, mess ...)" names no thing: it perceives the latest change.

Limits: the verb lists are closed (a change verb outside them leaves no state); a pronoun is
resolved to the last thing named in its sentence only; a trace is recognised by a shared
head noun, so "sees the field" would show a change to "the cornfield" only if the parse
names it "the field" too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from beliefgraph.models import Event, ParsedStory, Proposition, Sentence

__all__ = ["RESULT_STATES", "outcome_of", "with_outcomes"]


def _w(text: str) -> frozenset[str]:
    """A word list written as one block of text."""
    return frozenset(text.split())


RESULT_STATES: dict[str, str] = {
    **{v: v + ("d" if v.endswith("e") else "ed") for v in _w(
        "crack damage destroy flood crush spill melt wilt ruin stain scratch dent puncture "
        "splash soak drench scatter warp fade contaminate scorch bend loosen overturn topple "
        "cover bury tangle block shift disrupt collapse uproot flatten smash dampen rust mold "
        "mould squash"
    )},
    "rip": "ripped", "chip": "chipped", "clog": "clogged", "sink": "sunk", "burst": "burst",
    "open": "open", "close": "closed", "shut": "shut", "lock": "locked", "unlock": "unlocked",
    "break": "broken", "tear": "torn", "freeze": "frozen", "burn": "burnt", "rot": "rotten",
    "spoil": "spoiled", "empty": "empty", "drain": "empty", "fill": "full", "dry": "dry",
    "wet": "wet", "heat": "hot", "cool": "cold", "chill": "cold", "warm": "warm",
    "shatter": "shattered", "deflate": "flat", "extinguish": "out", "dirty": "dirty",
    "clean": "clean", "knock over": "knocked over", "knock": "knocked over", "eat": "eaten",
    "steal": "gone", "remove": "gone", "swap": "swapped", "replace": "replaced",
    "dissolve": "dissolved", "evaporate": "evaporated", "die": "dead", "wither": "withered",
    "fall": "fallen", "crumble": "crumbled", "flood over": "flooded", "mess": "messy",
    "turn off": "off", "switch off": "off", "turn on": "on", "switch on": "on",
    "go out": "out", "run out": "gone", "go off": "off", "dry up": "dry",
    "overgrow": "overgrown", "grow": "grown", "rise": "risen", "drop": "dropped",
    "repair": "repaired", "fix": "fixed", "mend": "mended",
    "snap": "snapped", "snap off": "snapped off", "wash away": "washed away",
    "wash": "washed", "untie": "untied", "dilute": "diluted", "cut": "cut", "tip over":
    "tipped over", "blow away": "blown away", "sweep away": "swept away",
    "carry away": "carried away", "drift away": "drifted away", "dry out": "dry",
    "cool down": "cold", "heat up": "hot", "warm up": "warm", "break down": "broken",
    "infest": "infested", "trample": "trampled", "chew": "chewed", "peck": "pecked",
    "weaken": "weakened", "corrupt": "corrupted", "pollute": "polluted", "nibble": "nibbled",
    "unplug": "unplugged", "disconnect": "disconnected",
}  # fmt: skip
"""A change-of-state verb (its lemma, particle included) -> the state it leaves its thing in."""

_STATE_WORDS = frozenset(RESULT_STATES.values()) | _w(
    "fresh stale wet dry empty full clean dirty hot cold warm cool unsuitable unusable useless "
    "inedible ruined broken dark bright dim murky cloudy muddy soggy damp flat dull sharp blunt "
    "loose tight stuck safe unsafe dangerous ready unready sour bitter spoiled rotten ripe "
    "unripe dead alive sick healthy visible invisible hidden exposed"
)
"""Words that name a state a thing can be left in ("leaving the pot empty")."""

_CAUSATIVE = frozenset(("cause", "make", "leave", "render", "turn", "get", "set", "force"))
"""Verbs whose value names a thing and the state they leave it in ("causes it to become
damaged", "makes them less fresh", "leaving the pot empty")."""

_PERCEIVE = _w(
    "see notice observe watch witness spot discover find hear smell taste feel realize realise "
    "detect check inspect examine look"
)
"""Verbs of perceiving: the actor learns what the perceived thing shows."""

_CHANGE = _w("change damage effect difference swap switch mess accident mix-up replacement")
"""Nouns that name a change itself: perceiving one perceives the latest change."""
_PRONOUNS = frozenset(("it", "them", "its", "their", "they", "this", "that"))
_DETERMINERS = _w(
    "a an the his her its their my our your this that these those all some any every each "
    "several many much few whole entire"
)
_PREPOSITIONS = _w(
    "with over up off on in into onto at to from of by for about around through across out "
    "down away apart near under behind inside outside along due"
)
_PARTICLES = frozenset(("off", "on", "out", "over", "up", "down", "apart", "away"))
_STOP = (
    _DETERMINERS
    | _PREPOSITIONS
    | _w("and or not no be is are was were been being become becomes became to")
)
_WORD = re.compile(r"[a-z][a-z'-]*")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("’", "'"))


def _stem(word: str) -> str:
    """A crude singular: traces are matched by head noun, plural or not."""
    w = word.removesuffix("'s")
    for suffix, repl in (("ies", "y"), ("oes", "o"), ("ses", "s"), ("s", "")):
        if w.endswith(suffix) and len(w) > len(suffix) + 2 and not w.endswith("ss"):
            return w[: -len(suffix)] + repl
    return w


def _lemma(verb: str) -> str:
    """The lemma of a relation as either parser spells it ("tears apart", "opened", "eatses")."""
    words = _words(verb)
    if not words:
        return ""
    head, rest = words[0], words[1:]
    for candidate in _verb_forms(head):
        joined = " ".join([candidate, *rest[:1]])
        if rest and joined in RESULT_STATES:
            return joined
        if candidate in RESULT_STATES or candidate in _CAUSATIVE or candidate in _PERCEIVE:
            return candidate
    return head


_IRREGULAR = {
    "broke": "break", "broken": "break", "tore": "tear", "torn": "tear", "froze": "freeze",
    "frozen": "freeze", "ate": "eat", "eaten": "eat", "stole": "steal", "stolen": "steal",
    "fell": "fall", "fallen": "fall", "went": "go", "goes": "go", "gone": "go", "ran": "run",
    "made": "make", "left": "leave", "got": "get", "saw": "see", "seen": "see",
    "found": "find", "heard": "hear", "felt": "feel", "rose": "rise", "risen": "rise",
    "grew": "grow", "grown": "grow", "sank": "sink", "sunk": "sink", "burnt": "burn",
    "shook": "shake", "overgrew": "overgrow",
}  # fmt: skip


def _verb_forms(word: str) -> list[str]:
    """Candidate lemmas of an inflected verb, most literal first."""
    out = [word]
    if word in _IRREGULAR:
        out.append(_IRREGULAR[word])
    for suffix in ("ses", "es", "s", "ed", "d", "ing"):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            base = word[: -len(suffix)]
            out.extend((base, base + "e"))
            if len(base) > 2 and base[-1] == base[-2]:
                out.append(base[:-1])  # "dropped" -> "drop"
            if base.endswith("i"):
                out.append(base[:-1] + "y")  # "emptied" -> "empty"
    return out


def _noun_phrase(text: str) -> str | None:
    """The thing a value names: "over the bag of tomatoes" -> "bag of tomatoes", "the package
    off her doorstep" -> "package"; None for a pronoun or no noun."""
    words = _words(text)
    while words and (words[0] in _PREPOSITIONS or words[0] in _DETERMINERS):
        words = words[1:]
    out: list[str] = []
    for i, w in enumerate(words):
        if w in _PREPOSITIONS and not (w == "of" and out and i + 1 < len(words)):
            break
        if w in ("and", "or", ",", "to", "while", "when", "as", "which", "that", "who"):
            break
        if w in _DETERMINERS:
            continue
        out.append(w)
    if not out or out[0] in _PRONOUNS:
        return None
    return " ".join(out)


def _pronoun_object(text: str) -> bool:
    words = [w for w in _words(text) if w not in _PREPOSITIONS]
    return bool(words) and words[0] in _PRONOUNS


def outcome_of(p: Proposition, last_thing: str | None) -> list[tuple[str, str]]:
    """The (thing, state) a narrated change leaves, or [] when ``p`` is no change.

    ``last_thing`` is the thing a pronoun object refers to (the last one named before).

    Examples
    --------
    >>> def act(subject, relation, value=None):
    ...     return Proposition(content_type="Action/Event", subject=subject, relation=relation,
    ...                        value=value)
    >>> outcome_of(act("heavy rainfall", "open", "the valve"), None)
    [('valve', 'open')]
    >>> outcome_of(act("group", "tear", "it apart"), "fishing net")
    [('fishing net', 'torn')]
    >>> outcome_of(act("power", "cause", "the projector to turn off"), None)
    [('projector', 'off')]
    >>> outcome_of(act("hole", "leave", "the pot empty"), None)
    [('pot', 'empty')]
    >>> outcome_of(act("chocolate", "melts"), None), outcome_of(act("Ann", "read", "a book"), None)
    ([('chocolate', 'melted')], [])
    """
    if p.content_type != "Action/Event" or p.negated or p.about is not None:
        return []
    verb = _lemma(p.relation)
    value = p.value or ""
    value_words = _words(value)
    # A particle left in the value belongs to the verb: "tears" + "it apart", "turns" + "off".
    particle = next((w for w in value_words if w in ("apart", "off", "on", "out", "over", "up")),
                    None)  # fmt: skip
    if particle and f"{verb} {particle}" in RESULT_STATES:
        verb = f"{verb} {particle}"
    if value.lower().startswith("to "):
        return []  # "prepares to carve": an aim, not a change
    if verb in _CAUSATIVE and value:
        return _caused(value, last_thing)
    if verb == "replace":
        swapped = _replaced(value, last_thing)
        if swapped:
            return swapped
    state = RESULT_STATES.get(verb)
    if state is None:
        return []
    if not value or value_words[0] in ("away", "out", "down", "along", "due", "significantly"):
        thing = _noun_phrase(p.subject)  # intransitive: "the chocolate melts"
    elif _pronoun_object(value):
        thing = last_thing
    else:
        thing = _noun_phrase(value)
    return [(thing, state)] if thing else []


def _replaced(value: str, last_thing: str | None) -> list[tuple[str, str]]:
    """ "the ripe watermelon with an underripe one", "the flower with a common flower": the
    thing now has the replacement's description; [] when no adjective describes it ("the
    jar with a jar containing sultanas")."""
    m = re.match(r"(?P<old>.+?)\s+with\s+(?P<new>.+)$", value.strip().rstrip("."))
    if m is None:
        return []
    thing = last_thing if _pronoun_object(m["old"]) else _noun_phrase(m["old"])
    words: list[str] = []
    for w in _words(m["new"]):
        if w in ("that", "which", "who") or w in _PREPOSITIONS or w.endswith("ing"):
            break
        if (
            w not in _DETERMINERS
            and w not in _ADVERBS
            and not w.endswith("ly")
            and w not in ("yet", "and", "but")
        ):
            words.append(w)
    described = words[:-1]  # the last word is the replacement's noun, or "one"
    return [(thing, " ".join(described))] if thing and described else []


def _caused(value: str, last_thing: str | None) -> list[tuple[str, str]]:
    """ "it to become damaged", "the telescope to shift its position", "the oven to cool
    down", "them less fresh", "the pot empty": the thing, then the state it is left in."""
    text = value.strip().rstrip(".")

    def thing_of(words: str) -> str | None:
        return last_thing if _pronoun_object(words) else _noun_phrase(words)

    m = re.match(r"(?P<thing>.+?)\s+(?:to\s+)?(?:become|be|get|turn|grow|go)\s+(?P<state>.+)$",
                 text)  # fmt: skip
    if m is not None:
        thing = thing_of(m["thing"])
        state = " ".join(w for w in _words(m["state"]) if w not in ("and", "slightly", "very"))
        if thing and state and state.split()[0] not in _PREPOSITIONS - _PARTICLES:
            return [(thing, state)]
        return []
    m = re.match(r"(?P<thing>.+?)\s+to\s+(?P<verb>[a-z]+(?:\s+(?:off|on|out|over|up|down|"
                 r"away|apart))?)\b", text)  # fmt: skip
    if m is not None:
        verb = _lemma(m["verb"])
        if verb not in RESULT_STATES:
            verb = _lemma(m["verb"].split()[0])
        thing = thing_of(m["thing"])
        if verb in RESULT_STATES:
            return [(thing, RESULT_STATES[verb])] if thing else []
    return _left_in(text, thing_of)


_ADVERBS = _w("extremely very quite rather slightly severely badly completely totally utterly")
_NEGATORS = ("no longer", "not")


def _left_in(text: str, thing_of: Callable[[str], str | None]) -> list[tuple[str, str]]:
    """ "the pot empty", "the water murky and polluted", "it extremely spicy", "them no
    longer fresh": a thing, then the state it is left in, which opens with a state word, an
    adverb of degree or a negation (after a pronoun, any adjective phrase)."""
    words = text.split()
    for k in range(1, len(words)):
        rest = " ".join(words[k:]).lower()
        head = _words(words[k])[:1]
        opens = (
            rest.startswith(_NEGATORS)
            or (head and (head[0] in _STATE_WORDS or head[0] in _ADVERBS
                          or head[0] in ("less", "more", "too")))
            or (_pronoun_object(" ".join(words[:k])) and k == 1)
        )  # fmt: skip
        if not opens:
            continue
        thing = thing_of(" ".join(words[:k]))
        state = " ".join(w for w in _words(rest) if w not in _ADVERBS)
        if not thing or not state or state.split()[0] in _PREPOSITIONS - _PARTICLES:
            return []
        return [(thing, state)]
    return []


def _heads(text: str) -> set[str]:
    """The content words of a name, singular ("the ripe mangoes" -> {"ripe", "mango"})."""
    return {_stem(w) for w in _words(text) if w not in _STOP and w not in _PRONOUNS}


def _things_named(p: Proposition) -> str:
    return " ".join(x for x in (p.subject, p.value or "", p.target or "") if x)


def _perceived(e: Event, actors: Sequence[str]) -> tuple[str, str] | None:
    """(actor, what they perceive) for a perceiving event, None otherwise."""
    p = e.proposition
    if e.kind == "observe" and e.actors:
        seen = " ".join(x for x in (e.obj or "", _things_named(p) if p else "") if x)
        return e.actors[0], seen
    if e.kind != "narrate" or p is None or p.negated or p.subject not in actors:
        return None
    if _lemma(p.relation) in _PERCEIVE and p.value:
        return p.subject, p.value
    return None


def with_outcomes(story: ParsedStory) -> ParsedStory:
    """``story`` with the states its narrated changes leave, and who perceives them by
    perceiving their traces (see the module docstring).

    Examples
    --------
    >>> from beliefgraph.parsers import RulesParser
    >>> story = with_outcomes(RulesParser().parse(
    ...     "Carlos closed the valve. During the night, heavy rainfall opens the valve and "
    ...     "floods the field. Carlos sees the flooded field."))
    >>> for e in story.events:
    ...     if e.parser == "outcomes":
    ...         print(e.id, e.kind, e.actors, e.proposition.render())
    2 observe ('Carlos',) the valve is closed
    4 narrate () the valve is open
    6 narrate () the field is flooded
    8 observe ('Carlos',) the valve is open
    """
    actors = tuple(story.actors)
    added: dict[int, list[Event]] = {}  # after which old event id
    # Unseen states, in story order: (sentence, state); and per sentence the head nouns of
    # what changed and of what changed it (the traces an actor may perceive).
    states: list[tuple[int, Proposition]] = []
    traces: dict[int, set[str]] = {}
    last_thing: str | None = None
    given = {(e.kind, e.actors, e.proposition, e.sentence_index) for e in story.events}
    sentence = -1
    for e in story.events:
        p = e.proposition
        new: list[Event] = []
        if e.sentence_index != sentence:  # a pronoun refers within its own sentence
            sentence, last_thing = e.sentence_index, None
        if e.kind == "narrate" and p is not None and p.subject not in actors:
            if p.key is not None and not e.perceivers:
                states.append((e.sentence_index, p))  # the parse's own narrated state
                traces.setdefault(e.sentence_index, set()).update(_heads(p.subject))
            else:
                traces.setdefault(e.sentence_index, set()).add(_head(p.subject))
        for thing, state, by in _changes(e, p, last_thing, actors):
            prop = _state(thing, state)
            # The actor who made the change sees what it left, as do those present (the
            # perception model's rules for an observation); a change by no actor is narrated.
            kind = "observe" if by else "narrate"
            new.append(_derived(e, kind, by, prop, None))
            traces.setdefault(e.sentence_index, set()).update(_heads(thing))
            states.append((e.sentence_index, prop))
        seen = _perceived(e, actors)
        if seen is not None:
            actor, what = seen
            named = _heads(what)
            # "Notices the change / the damage / the swap": the latest change is the one meant.
            latest = max((at for at, _ in states if at < e.sentence_index), default=None)
            shown = [
                s
                for at, s in _current(states)
                if at < e.sentence_index
                and (named & traces.get(at, set()) or (at == latest and named & _CHANGE))
            ]
            new.extend(_derived(e, "observe", (actor,), s, (actor,)) for s in shown)
        if p is not None and not (p.subject == "world" and p.relation == "state"):
            last_thing = _last_thing(e, p, actors) or last_thing
        new = [x for x in new if _fresh(x, given)]
        if new:
            added[e.id] = new
    if not added:
        return story
    return _renumbered(story, added)


def _state(thing: str, state: str) -> Proposition:
    """The state proposition: "no longer fresh" is "fresh", negated."""
    negated = state.startswith(_NEGATORS)
    for lead in _NEGATORS:
        state = state.removeprefix(lead + " ")
    return Proposition(content_type="Contents/Physical State", subject=thing, relation="be",
                       value=state, negated=negated)  # fmt: skip


def _current(states: list[tuple[int, Proposition]]) -> list[tuple[int, Proposition]]:
    """The states no later one replaces (the same thing and attribute: ``Proposition.key``)."""
    out = []
    for i, (at, p) in enumerate(states):
        later = (q.key for _, q in states[i + 1 :])
        if p.key is None or p.key not in later:
            out.append((at, p))
    return out


def _head(name: str) -> str:
    """The head noun of a name, singular ("the heavy rainfall" -> "rainfall")."""
    words = [w for w in _words(name.split(" of ")[0]) if w not in _STOP]
    return _stem(words[-1]) if words else ""


def _last_thing(e: Event, p: Proposition, actors: Sequence[str]) -> str | None:
    """The thing an event names last: an act's object, else its subject; a state's value is
    no thing ("the painting is vibrant": the painting)."""
    acted = p.content_type == "Action/Event" and not (p.value or "").lower().startswith("to ")
    for text in (p.value if acted else "", e.obj or "", p.subject):
        if text and text not in actors:
            thing = _noun_phrase(text)
            if thing and thing.split()[0] not in _PRONOUNS:
                return thing
    return None


def _derived(
    e: Event, kind: str, actors: tuple[str, ...], prop: Proposition,
    perceivers: tuple[str, ...] | None,
) -> Event:  # fmt: skip
    return Event(
        id=e.id, kind=kind, actors=actors, proposition=prop, perceivers=perceivers,  # type: ignore[arg-type]
        sentence=e.sentence, sentence_index=e.sentence_index, line=e.line, parser="outcomes",
    )  # fmt: skip


def _fresh(e: Event, given: set[tuple[object, ...]]) -> bool:
    """Whether ``e`` says something new: a derived event the parse already has (an LLM parse
    often states the result itself) or that repeats another derived one is left out."""
    key = (e.kind, e.actors, e.proposition, e.sentence_index)
    if key in given:
        return False
    given.add(key)
    return True


def _changes(
    e: Event, p: Proposition | None, last_thing: str | None, actors: Sequence[str]
) -> list[tuple[str, str, tuple[str, ...]]]:
    """(thing, state, by whom) for each state event ``e`` leaves; ``by`` is empty for a change
    by no actor (rainfall, a monkey the story does not name as an actor)."""
    if e.kind in ("open", "close") and e.obj:
        return [(e.obj, "open" if e.kind == "open" else "closed", e.actors)]
    if e.kind != "narrate" or p is None:
        return []
    by = (p.subject,) if p.subject in actors else ()
    lowered = {a.lower() for a in actors}
    return [(t, s, by) for t, s in outcome_of(p, last_thing) if t.lower() not in lowered]


def _renumbered(story: ParsedStory, added: dict[int, list[Event]]) -> ParsedStory:
    events: list[Event] = []
    new_id: dict[int, list[int]] = {}
    for e in story.events:
        ids = new_id.setdefault(e.id, [])
        for x in (e, *added.get(e.id, ())):
            events.append(x.model_copy(update={"id": len(events) + 1}))
            ids.append(len(events))
    sentences = tuple(
        Sentence.model_validate(
            {**s.model_dump(), "events": tuple(i for old in s.events for i in new_id.get(old, ()))}
        )
        for s in story.sentences
    )
    return story.model_copy(update={"events": tuple(events), "sentences": sentences})
