"""The frame grammar: which clause shapes the rules parser reads, and as which events.

A clause is first chunked (``chunks``); each chunk becomes one symbol (``<name>``,
``<names>``, ``<np>``, ``<nps>``, ``<it>``, ``<they>``, ``<he>``, or a word's lemma), and
spaCy ``Matcher`` patterns on the symbols' ``LEMMA`` recognise whole clauses. Patterns are
written in a small notation: ``SUBJ`` (actors), ``WHO`` (hearers), ``NP:slot`` (one
mention), ``NPS:slot`` (a mention or a list), ``REST`` (the rest of the clause),
``a|b`` (one of these lemmas, ``a|b:slot`` to keep which), ``( ... )`` (optional).

When no frame reads a clause whole, "X verb1 ... and verb2 ..." is read as two clauses
with the same subject ("Youyou enters the basement and sees the box"). The cuts are
searched left to right with memoised readings and a frame spans at most six clauses, so
reading is linear in the clauses; a sentence of more than ``MAX_CLAUSES`` is unread and its
error says why.

Beyond templated stories the frames read ordinary English by verb class: placing (put,
hide, leave, store, bury, hang ... in/on/under/behind/beside/near, with a trailing "by the
door"), taking and moving (move, carry, take X out of Y and put it in Z), going and coming
(go upstairs/home/to school, come back, return, wake up), telling ("told her that he had
moved the ball to the blue box": the reported clause is read and its location told;
text/whisper/email are private), perceiving ("noticed that X is in Y", "saw Sam move the
phone", "did not witness the event") and consuming (eat, drink, break, throw away: narrated
acts). Subordinate clauses (before, after, when, while, once, until) are read on their
own, "after"/"when"/"once" first in time; purpose clauses ("to take a shower") and time
phrases ("in the afternoon", "the next morning") are dropped; two clauses with their own
subjects joined by "and"/"but" are read in turn, a perception clause first.

Any English verb (WordNet's verb lemmas, ``lexicon.word_classes``) is read last, by form:
"Kofi repaired his net" is an act of Kofi (``Action/Event``, the verb's lemma, the
complement verbatim or as a mention), "a storm rolls in" an event, "the sky is cloudy" a
thing's state (``Contents/Physical State``), "a group of turkeys wanders into the
cornfield" a location, "X believes (that) S" X's stated belief (``Epistemic``, about what S
says of a thing). Verbs with frames of their own (placing, going, telling, perceiving,
opening), verbs of feeling, and complements naming a move, "into"/"onto" or a clause of
their own are never read this way. ``read_clauses`` completes a sentence's comma-separated
clauses from each other (a subjectless clause takes the subject before it, "which" the
object before it; "Before X ..., he ..." is read main clause first).

Conventions beyond the library's event vocabulary (the solver relies on all of them):

* "while X was asleep/away/busy", "X fell asleep", "X did not witness the event" are an
  ``exit`` of X (X stops perceiving; no event when X is already away); "X woke up" an
  ``enter``; "while X was watching", "X witnessed the action", "X saw this" a ``stay``.
* "while X was at school" restates X's room (an ``enter``, none if X is already there).
* "X took the coin" (no destination) and "X looks for the marble in the basket" are
  narrated ``Action/Event`` acts ("take", "look for").
* Scene sentences are facts about the actor: "Kofi is a fisherman ..." (``Identity/
  Relation`` "be", the verbatim complement), "X wants/needs/plans to ..." (``Desire/
  Intention`` "want"), "Kofi does not notice the otter ..." (``Action/Event`` "notice",
  negated). A clause naming a placing, taking or going verb is never read this way: it
  is read by a frame or stays unread, so no move is lost as a mere fact.

* "X saw a cat." (an animal) is a distractor: narrate, ``Action/Event`` ``see``.
* "X wants to play with her marble." is narrate, ``Desire/Intention`` ``want``, value
  the verbatim complement ("play with her marble").
* "There is an object in a box." is a narrated location (object in box); "there is no
  hat in the box" is a negated ``contains`` fact about the box.
* "X puts it back in its place" (after closing a container) yields no event.
* "While Sally is away" restates an earlier exit and yields no event.
* Task instructions left in a story ("Read the following story ...") yield no event.
* "X finds a plate and a ruler" yields one ``observe`` per object found.
* "X and Y like the box" yields one trait fact per actor.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache, lru_cache
from typing import Any

from spacy.matcher import Matcher
from spacy.tokens import Doc

from .chunks import ADV, HE, IT, NAME, NAMES, NP, NPS, THEY, Chunk
from .lexicon import (
    ABSENT,
    ANIMALS,
    CLOSED,
    DETERMINERS,
    FRAME_VERBS,
    LABEL_NOUNS,
    SKIPPED,
    TIME_NOUNS,
    word_classes,
)
from .nlp import get_nlp
from .templates import Mention, PropTemplate, Template, Who

__all__ = ["MAX_CLAUSES", "ClauseTooLongError", "read_clause", "read_clauses"]

Slots = Mapping[str, Any]
Handler = Callable[[Slots, str], "tuple[Template, ...] | None"]

_CLASSES: dict[str, tuple[str, ...]] = {
    "SUBJ": (NAME, NAMES, THEY, HE),
    "WHO": (NAME, NAMES, THEY, HE),
    "NP": (NP, IT),
    "NPS": (NP, NPS, IT),
    "NPT": (NP, IT, THEY),  # an object; "them" may be things ("put them in the drawer")
}
_SUBJECTS = frozenset(_CLASSES["SUBJ"])
_NOUNS = frozenset({NP, NPS, IT, NAME, NAMES, THEY, HE})
_TIME_WORDS = frozenset(
    {
        "next",
        "last",
        "previous",
        "following",
        "same",
        "early",
        "late",
        "whole",
        "entire",
        "one",
        "an",
        "a",
        "that",
        "this",
        "every",
    }
)
_TIME_LEAD = frozenset(
    {
        "in",
        "on",
        "at",
        "during",
        "for",
        "after",
        "before",
        "the",
        "that",
        "this",
        "next",
        "every",
        "one",
        "a",
        "an",
        "all",
        "later",
        "early",
    }
)
_MANNER = frozenset({"secretly", "quietly", "privately", "publicly"})
_STROLL = "wander|stroll|roam|walk|hang|play|sit|stand|wait"
_GO = "go|walk|run|head|step|get"
_INTO = "in|into|inside|on|onto|to|under|underneath|beneath|behind|beside|near|at"
_PUT = (
    "move|put|place|transfer|carry|drop|hide|stick|throw|toss|slip|stuff|leave|store|bury|"
    "hang|set|lay|stash|keep|tuck|slide|push|lock|return|bring"
)
_AT = "in|inside|on|at|under|underneath|beneath|behind|beside|near"
_TAKE = "take|remove|get|pull|grab|pick|dig|fetch"
_SAY = "say|claim|announce|declare|shout|explain|mention|lie|reply|answer|yell|admit|write"
_TELL = "tell|inform|assure|warn|remind|whisper|text|message|email|call"
_PRIVATE = frozenset({"whisper", "text", "message", "email", "call"})
_CONSUME = "eat|drink|break|spill|finish|destroy|burn|crush|smash|lose|use|drop"
# ABSENT as lemmas ("sleeping" reads as "sleep").
_ABSENT = "|".join(sorted(ABSENT | {"sleep", "nap", "distract", "shower", "bathe", "busy"}))
_MOVING = frozenset(
    {*_PUT.split("|"), *_TAKE.split("|"), "go", "come", "enter", "exit", "leave", "swap"}
)
_NEAR = "by|near|beside|next|at|on|in|under|behind"
# Subordinators: the clause after "after"/"when"/"once" happens first.
_BEFORE_MAIN = frozenset({"after", "when", "once", "as"})
_SUBORDINATORS = frozenset({"before", "while", "until", "because", "so", *_BEFORE_MAIN})
_NOT = "can|ca|could|do|doe|did|will|wo|would not"
_OF = "of|in|on|at|from|near|with|inside|outside|by|to|around|under|behind|beside|for"


def read_clause(chunks: Sequence[Chunk], sentence: str) -> tuple[Template, ...] | None:
    """Read one clause into event templates, or None when no frame reads it.

    Parameters
    ----------
    chunks : sequence of Chunk
        The clause's chunks, from ``chunks.split``.
    sentence : str
        The sentence the chunks' character offsets point into.

    Returns
    -------
    tuple of Template or None
        The templates in story order; None if the clause is not understood.

    Examples
    --------
    >>> from beliefgraph.parsers.rules.chunks import split
    >>> clause = split("Ella entered the garage.")[0]
    >>> [(t.kind, t.actors.names, t.room.text) for t in read_clause(clause.chunks, "")]
    [('enter', ('Ella',), 'garage')]
    """
    chunks = _drop_time_phrases(
        [
            c
            for i, c in enumerate(chunks)
            if c.sym not in SKIPPED
            and c.sym != ADV
            # a determiner left alone before a noun phrase: "to the the trash can"
            and not (c.sym in DETERMINERS and i + 1 < len(chunks) and chunks[i + 1].sym == NP)
            # "the once calm water": "once" an adverb of the noun phrase
            and not (c.sym in DETERMINERS and i + 2 < len(chunks) and chunks[i + 1].sym == "once")
            and not (c.sym == "once" and i and chunks[i - 1].sym in DETERMINERS)
        ]
    )
    chunks = _drop_relatives(chunks)
    # Perfect and progressive aspect ("he had moved", "was playing") read as the verb; after
    # a thing, "be" is a passive, a state ("the valve is closed").
    # So is "be" right after any thing: "believes the valve is closed" is the valve's state.
    chunks = [
        c
        for i, c in enumerate(chunks)
        if not (
            c.sym in ("have", "be")
            # "appears to be set at ...": an infinitive's passive stays one
            and not (c.sym == "be" and i and chunks[i - 1].sym in (NP, NPS, IT, "to"))
            and i + 1 < len(chunks)
            and (
                chunks[i + 1].sym in FRAME_VERBS
                # "had tied the boat", "has prepared the dough": the perfect of any verb
                or (
                    c.sym == "have"
                    and i
                    and chunks[i - 1].sym in (*_SUBJECTS, NP, NPS, IT)
                    and chunks[i + 1].sym in _any_verb()
                )
            )
            and chunks[i + 1].sym not in ("have", "be")
        )
    ]
    read = _read_parts(chunks, sentence)
    if read is None:
        # "A group of tourists on a guided tour enters the pyramid": a subject with its
        # phrases, read as one; only when no frame reads the clause as written ("the label
        # on the box is ..." has its own).
        folded = _fold_subject(chunks, sentence)
        if folded is not None:
            read = _read_parts(folded, sentence)
    if read is None and any(c.sym in _MANNER for c in chunks):
        # "Anne secretly moves the marble": manner adverbs only matter in tellings.
        read = _read_parts([c for c in chunks if c.sym not in _MANNER], sentence)
    return read


_PARTICLE_WORDS = frozenset({"up", "out", "down", "off", "away", "back", "over"})
_RELATIVE_PREPOSITIONS = frozenset({"from", "in", "on", "at", "for", "with", "to"})


_SUBJECT_PREPOSITIONS = frozenset(
    {"on", "in", "at", "from", "near", "outside", "inside", "by", "with", "under", "behind",
     "beside", "of", "along", "across", "around"}
)  # fmt: skip


def _fold_subject(chunks: list[Chunk], sentence: str) -> list[Chunk] | None:
    """The clause with its subject's phrases folded into one chunk, or None when its subject
    has none: "a group of children on a field trip" (prepositional phrases), "a group of
    children playing nearby" (a participle with its object or adverb). A thing's subject
    keeps its words ("group of children on a field trip"); a person ("a street vendor
    outside the bakery") stays the actor named.

    Examples
    --------
    >>> from beliefgraph.parsers.rules.chunks import split
    >>> text = "A group of tourists on a guided tour enters the pyramid."
    >>> folded = _fold_subject(list(split(text)[0].chunks), text)
    >>> [c.sym for c in folded], folded[0].items[0].text
    (['<np>', 'enter', '<np>'], 'group of tourists on a guided tour')
    """
    if len(chunks) < 4 or chunks[0].sym not in (NP, NAME):
        return None
    j, folded = 1, False
    if chunks[1].sym == "of" and chunks[2].sym in (NP, NPS, NAME, NAMES):
        j = 3
    while j + 1 < len(chunks):
        c, nxt = chunks[j], chunks[j + 1]
        if c.sym in _SUBJECT_PREPOSITIONS and nxt.sym in (NP, NPS, NAME, NAMES):
            j, folded = j + 2, True
        elif _verb_like(c) and _ing(c, sentence) and nxt.sym in (NP, NPS, *_SUBJECT_PREPOSITIONS):
            # "playing nearby", "playing soccer", "playing in the garden"
            j, folded = j + (3 if nxt.sym in _SUBJECT_PREPOSITIONS else 2), True
        else:
            break
    if not folded or j >= len(chunks) or j > len(chunks) - 1:
        return None
    if not (_verb_like(chunks[j]) or chunks[j].sym in FRAME_VERBS or chunks[j].sym == "have"):
        return None
    head = chunks[0]
    if head.sym == NAME:
        return [head, *chunks[j:]]
    m = head.items[0]
    text = m.text + sentence[head.end : chunks[j - 1].end]
    return [Chunk(NP, head.start, chunks[j - 1].end, items=(Mention(text, m.key),)), *chunks[j:]]


def _drop_relatives(chunks: list[Chunk]) -> list[Chunk]:
    """Drop a relative clause without "that" after a noun phrase: "the canvas she found is
    smooth", "the block of marble he has chosen is solid", "the bag she took from the pantry
    is filled": a pronoun or name, a verb (with its aspect, particle and one prepositional
    phrase), then the clause's own verb. The relative says which thing, not what happens.

    Examples
    --------
    >>> from beliefgraph.parsers.rules.chunks import split
    >>> [c.sym for c in _drop_relatives(list(split("the seashell he found is intact")[0].chunks))]
    ['<np>', 'be', '<np>']
    """
    out: list[Chunk] = []
    i = 0
    while i < len(chunks):
        out.append(chunks[i])
        if (
            chunks[i].sym in (NP, NPS)
            and i + 2 < len(chunks)
            and chunks[i + 1].sym in (HE, THEY, NAME)
        ):
            j = i + 2
            while j < len(chunks) and chunks[j].sym in ("have", "be"):
                j += 1
            if j < len(chunks) and (chunks[j].sym in _any_verb() or chunks[j].sym in FRAME_VERBS):
                j += 1
                if j < len(chunks) and chunks[j].sym in _PARTICLE_WORDS:
                    j += 1
                if (
                    j + 1 < len(chunks)
                    and chunks[j].sym in _RELATIVE_PREPOSITIONS
                    and chunks[j + 1].sym in (NP, NPS, HE, THEY, IT)
                ):
                    j += 2  # "the map she carries with her indicates ..."
                if j < len(chunks) and (_verb_like(chunks[j]) or chunks[j].sym in FRAME_VERBS):
                    i = j
                    continue
                if j == len(chunks) and any(_verb_like(c) for c in chunks[:i]):
                    # "purchases the watermelon he initially picked": an object's relative
                    # ends the clause. The noun phrase names the thing; its chunk spans the
                    # relative, so a complement kept verbatim keeps its words.
                    c = chunks[i]
                    out[-1] = Chunk(c.sym, c.start, chunks[-1].end, c.names, c.items, c.genders)
                    break
        i += 1
    return out


def read_clauses(
    clauses: Sequence[Sequence[Chunk]], sentence: str
) -> list[tuple[tuple[Template, ...] | None, str]]:
    """Read the comma-separated clauses of one sentence, each completed from those before.

    A leading "before" clause is read after the clause it precedes ("Before Sam went to
    school, he hid his ball": the hiding first; "he" is Sam). A clause that lacks a
    subject takes the one before it: "Carlos is a farmer, tending
    to his cornfield" (Carlos tends), "a heatwave struck, causing the vegetables to wilt";
    "..., which appears to be moist" is about the object of the clause before; a lone name
    ("Olumide, a skilled woodcarver, is ...") is the subject of what follows, and a noun
    phrase after it is who it is; a noun phrase after a clause ending in one describes it
    ("his signature dish, a spicy curry"); a bare predicate ("..., ready for harvest")
    describes the subject; a fragment opening with a preposition after such an insert
    finishes the clause before the insert ("... his dish, a curry, for the customers").

    Parameters
    ----------
    clauses : sequence of sequence of Chunk
        The sentence's clauses, from ``chunks.split``.
    sentence : str
        The sentence the chunks' offsets point into.

    Returns
    -------
    list of (tuple of Template or None, str)
        Per clause, its templates (``()`` when it only names what the next clause is
        about) or None when it is unread, and why it is unread when the parser gave up
        on it ("" otherwise).

    Examples
    --------
    >>> from beliefgraph.parsers.rules.chunks import split
    >>> text = "Ravi is a farmer, tending to his mango orchard."
    >>> reads = read_clauses([c.chunks for c in split(text)], text)
    >>> [[t.prop.relation for t in r] for r, _ in reads]
    [['be'], ['tend']]
    """
    out: list[tuple[Template, ...] | None] = []
    reasons: dict[int, str] = {}  # why a clause is unread, when the parser gave up on it
    subject: Chunk | None = None  # the subject of the latest clause that had one
    lone = False  # the clause before was a subject alone
    antecedent: list[Chunk] = []  # the object of the clause before ("a pile of clay")
    inserted: int | None = None  # the clause an insert interrupted
    deferred: tuple[Template, ...] | None = None  # a "before" clause, read after the next
    out_k = 0  # where the deferred clause was
    cataphor: Chunk | None = None  # the name a "before" clause gave the next clause's "he"
    body: list[list[Chunk]] = []  # each clause as read
    for k, given in enumerate(clauses):
        chunks = list(given)
        while len(chunks) > 1 and chunks[0].sym == ADV:
            chunks = chunks[1:]  # "..., severely weakening the structure"
        if not chunks:
            out.append(read_clause(chunks, sentence))
            body.append(chunks)
            continue
        first = chunks[0]
        if first.sym == "before" and len(chunks) > 2 and chunks[1].sym in _SUBJECTS:
            # "Before Sam went to school, he hid his ball": the main clause happens first.
            later = read_clause(chunks[1:], sentence)
            if later is not None and k + 1 < len(clauses):
                deferred, out_k = later, k
                out.append(())
                body.append(chunks)
                subject, cataphor = chunks[1], chunks[1]
                continue
        filled = chunks
        if cataphor is not None and first.sym in (HE, THEY) and cataphor.sym in (NAME, NAMES):
            # "..., he hid his ball": "he" is the Sam just named
            filled = chunks = [_named_as(cataphor, first), *chunks[1:]]
            first = chunks[0]
        cataphor = None
        # "responsible for taking care of ...": a gerund after a preposition is no verb
        verbless = not any(
            _verb_like(c) and not (j and chunks[j - 1].sym in _GERUND_AFTER)
            for j, c in enumerate(chunks)
        )
        if first.sym in _SUBJECTS and len(chunks) == 1 and k + 1 < len(clauses):
            out.append(())  # named here, the subject of the next clauses
            body.append(chunks)
            subject, lone = first, True
            continue
        if (
            first.sym in (NP, NPS)
            and k + 1 < len(clauses)
            and (len(chunks) == 1 or (len(chunks) == 3 and chunks[1].sym == "of"))
            and _lone_subject_next(clauses[k + 1])
        ):
            # "A school of fish, rich in nutrients, swims by": the subject of what follows
            out.append(())
            body.append(chunks)
            subject, lone, antecedent = first, True, chunks
            continue
        if first.sym in ("which", "that") and len(chunks) > 2 and chunks[1].sym in _SUBJECTS:
            # "..., which he believes are ripe": he believes the tomatoes are ripe
            if antecedent and _verb_like(chunks[2]):
                filled = [chunks[1], chunks[2], *antecedent, *chunks[3:]]
        elif first.sym in ("which", "who") and len(chunks) > 1 and antecedent:
            filled = [*antecedent, *chunks[1:]]
        elif (
            first.sym in _SUBORDINATORS
            and len(chunks) > 1
            and _ing(chunks[1], sentence)
            and subject is not None
        ):
            filled = [first, subject, *chunks[1:]]  # "..., while tidying the pantry, ..."
        elif _verb_like(first) and subject is not None:
            filled = [subject, *chunks]
        elif verbless and first.sym in (NP, NPS, NAME) and (lone or antecedent):
            be = Chunk("be", first.start, first.start)
            if lone and subject is not None:
                filled = [subject, be, *chunks]
            elif _determined(first, sentence):
                filled = [*antecedent, be, *chunks]
            elif subject is not None:
                filled = [subject, be, *chunks]
            inserted = k - 1 if inserted is None and not lone else inserted
        elif (
            (verbless or first.sym == "during")
            and (first.sym in _CIRCUMSTANCE or (first.sym == NP and _time_words(first.items[0])))
            and inserted is None
            and not antecedent
        ):
            # "During the night, ...", "Just before the concert, ...": when, not what.
            out.append(())
            body.append(chunks)
            continue
        elif verbless and first.sym in _PREPOSITIONS and inserted is not None:
            # "..., a spicy curry, for the customers": the clause before the insert goes on.
            whole = [*body[inserted], *chunks]
            again = read_clause(whole, sentence)
            if again is not None and out[inserted] is not None:
                out[inserted] = again
                out.append(())
                body.append(chunks)
                continue
        if k and first.sym in _DESCRIPTIVE and (verbless or first.sym == "with"):
            # "..., with vibrant colors", "..., for her customers": how or for whom the
            # clause before happens, no event of its own.
            out.append(())
            body.append(chunks)
            continue
        try:
            read = read_clause(filled, sentence)
        except ClauseTooLongError as err:
            read, reasons[k] = None, str(err)
        if deferred is not None:
            if read is not None:
                read = read + deferred
            else:
                out[out_k] = deferred
            deferred = None
        out.append(read)
        body.append(filled)
        if first.sym in _SUBJECTS or (first.sym in (NP, NPS) and not verbless):
            subject = first
        if not (verbless and first.sym in (NP, NPS, NAME)):
            inserted = None
        lone = False
        antecedent = _object_of(filled)
    return [(r, reasons.get(k, "")) for k, r in enumerate(out)]


_GERUND_AFTER = frozenset({"for", "of", "about", "without", "by"})
_PREPOSITIONS = frozenset(
    {"for", "with", "in", "on", "at", "to", "from", "near", "by", "of", "about", "during"}
)
# Words opening a verbless fragment after a clause that only describes it.
_DESCRIPTIVE = frozenset({"with", "for", "during", "without"})
# Words opening a verbless clause that only says when or in what circumstance.
_CIRCUMSTANCE = frozenset(
    {"during", "before", "after", "in", "on", "at", "throughout", "within", "out"}
)


def _lone_subject_next(chunks: Sequence[Chunk]) -> bool:
    """Whether the clause after a lone noun phrase lacks its own subject: it opens with a
    verb, an adverb, "who"/"which", or is a verbless description ("rich in nutrients")."""
    first = chunks[0] if chunks else None
    if first is None:
        return False
    return (
        _verb_like(first)
        or first.sym in (ADV, "who", "which")
        or not any(_verb_like(c) for c in chunks)
    )


def _named_as(name: Chunk, pronoun: Chunk) -> Chunk:
    genders = pronoun.genders * len(name.names) if pronoun.genders else name.genders
    return Chunk(name.sym, pronoun.start, pronoun.end, names=name.names, genders=genders)


def _verb_like(c: Chunk) -> bool:
    return c.sym in _any_verb() or c.sym in _AUX_NEXT or c.sym == "have"


def _determined(c: Chunk, sentence: str) -> bool:
    return sentence[c.start : c.end].split(" ", 1)[0].lower() in DETERMINERS


def _object_of(chunks: Sequence[Chunk]) -> list[Chunk]:
    """The first noun phrase after the clause's verb, with an "of" phrase ("a pile of clay")."""
    for i, c in enumerate(chunks):
        if i and c.sym in (NP, NPS) and any(_verb_like(x) for x in chunks[:i]):
            if i + 2 < len(chunks) and chunks[i + 1].sym == "of" and chunks[i + 2].sym in (NP, NPS):
                return list(chunks[i : i + 3])
            return [c]
    return []


class ClauseTooLongError(ValueError):
    """A sentence with more coordinated clauses than the parser reads (``MAX_CLAUSES``)."""


MAX_CLAUSES = 100
"""Most "... and <verb> ..." clauses one sentence may chain; more is an unread sentence."""
_WINDOW = 6
"""Most coordinated clauses one frame may span ("takes X out of Y and puts it in Z" spans 2)."""


def _read_parts(chunks: list[Chunk], sentence: str) -> tuple[Template, ...] | None:
    if not chunks:
        return None
    # "X opens the box and finds a cup": clauses sharing the subject, cut where "and" is
    # followed by a frame verb. Which cuts to use is searched left to right (the whole
    # rest first, then the shortest first clause); the reading from each cut is memoised
    # and a frame spans at most _WINDOW clauses, so the work is linear in the clauses.
    cuts = []
    # A thing acts in coordinated clauses too: "a gust of wind knocks the vase over and
    # causes it to crack", "..., washing away nutrients and leaving the soil less fertile".
    if chunks[0].sym in _SUBJECTS or chunks[0].sym in (NP, NPS):
        cuts = [
            i
            for i in range(2, len(chunks) - 1)
            if chunks[i].sym == "and" and _verb_next(chunks, i + 1)
        ]
    if len(cuts) + 1 > MAX_CLAUSES:
        raise ClauseTooLongError(
            f"{len(cuts) + 1} clauses joined by 'and' in one sentence; the parser reads at most"
            f" {MAX_CLAUSES}: end sentences with a full stop"
        )
    starts = [0, *(i + 1 for i in cuts)]
    ends = [*cuts, len(chunks)]
    n = len(starts)
    memo: dict[int, tuple[Template, ...] | None] = {}

    def piece(a: int, b: int) -> tuple[Template, ...] | None:
        body = chunks[starts[a] : ends[b - 1]]
        return _match_whole(body if a == 0 else [chunks[0], *body], sentence)

    def read_from(a: int) -> tuple[Template, ...] | None:
        if a not in memo:
            memo[a] = None
            last = min(n, a + _WINDOW)
            order = [n, *range(a + 1, n)] if last == n else list(range(a + 1, last + 1))
            for b in order:
                left = piece(a, b)
                if left is None:
                    continue
                right = () if b == n else read_from(b)
                if right is not None:
                    memo[a] = left + right
                    break
        return memo[a]

    return read_from(0)


_AUX_NEXT = frozenset({"do", "doe", "did", "can", "ca", "could", "will", "wo", "would", "be"})


def _verb_next(chunks: Sequence[Chunk], i: int) -> bool:
    """Whether a clause sharing the subject starts at ``i``: "... and sees the box", "...
    and repairs the net", "... and does not notice the birds"."""
    sym = chunks[i].sym
    return sym in FRAME_VERBS or sym in _any_verb() or sym in _AUX_NEXT


def _match_whole(chunks: list[Chunk], sentence: str) -> tuple[Template, ...] | None:
    read = _match(chunks, sentence)
    if read is not None:
        return read
    for i in range(1, len(chunks) - 1):
        # "Anne moves the marble while Sally is away": a trailing "while" clause.
        if chunks[i].sym == "while":
            left, right = _match(chunks[:i], sentence), _match(chunks[i:], sentence)
            if left is not None and right is not None:
                return left + right
    for i in range(2, len(chunks) - 1):
        # "Tom hid the cookies before he went to school", "... after Ann left": the
        # subordinate clause is read on its own; "after"/"when" put it first in time.
        own = chunks[i + 1].sym in _SUBJECTS
        if chunks[i].sym in _SUBORDINATORS and (own or _ing(chunks[i + 1], sentence)):
            # "... before leaving home": the subordinate clause shares the subject
            sub = chunks[i + 1 :] if own else [chunks[0], *chunks[i + 1 :]]
            left = _match(chunks[:i], sentence)
            right = _match(sub, sentence) if left is not None else None
            if right is None and left is not None and chunks[i].sym == "while":
                right = _match(chunks[i:], sentence)
            if left is not None and right is not None:
                return right + left if chunks[i].sym in _BEFORE_MAIN else left + right
    for i in range(2, len(chunks) - 1):
        # "She comes across a small stream that appears to be clean": a relative clause
        # says something of its noun phrase, read as a clause of its own after the main one.
        if (
            chunks[i].sym in ("that", "which", "who")
            and chunks[i - 1].sym in (NP, NPS)
            and _verb_like(chunks[i + 1])
        ):
            left = _match(chunks[:i], sentence)
            head = _antecedent(chunks, i)
            right = _match([*head, *chunks[i + 1 :]], sentence) if left else None
            if left is not None and right is not None:
                return left + right
    for i in range(2, len(chunks) - 1):
        # "Andrew moved the hat to the room and Richard did not witness it": two clauses
        # with their own subjects. What one says about who perceives ("did not witness",
        # "was watching") holds for the whole sentence, so it is read first.
        # ... and so do things: "a power outage occurs and the oven's temperature drops"
        thing = (
            chunks[i + 1].sym in (NP, NPS)
            and i + 2 < len(chunks)
            and (_verb_like(chunks[i + 2]) or chunks[i + 2].sym in FRAME_VERBS)
        )
        if chunks[i].sym in ("and", "but") and (chunks[i + 1].sym in _SUBJECTS or thing):
            left = _match(chunks[:i], sentence)
            right = _match(chunks[i + 1 :], sentence) if left is not None else None
            if left is not None and right is not None:
                if right and all(t.place == "absent" for t in right):
                    return right + left
                return left + right
    for i in range(2, len(chunks) - 1):
        # A purpose clause ("went upstairs to take a shower") says why, not what happens.
        # Only after an event the solver tracks (a move, a going): a fact kept verbatim
        # keeps its "to ..." ("Delia proceeds to collect the data").
        if chunks[i].sym in ("to", "for") and (
            chunks[i + 1].sym not in _NOUNS or _bare_verb(chunks[i + 1])
        ):
            left = _match(chunks[:i], sentence)
            if left is not None and all(
                t.kind != "narrate" or (t.prop is not None and t.prop.relation == "take")
                for t in left
            ):
                return left
    return None


def _antecedent(chunks: Sequence[Chunk], i: int) -> list[Chunk]:
    """What the relative at ``i`` is about: the noun phrase before it, or the thing before
    its place ("a bag of clay in his workshop that appears soft": the bag of clay), with
    its "of" phrase."""
    end = i
    if i >= 3 and chunks[i - 2].sym in _PLACE_PREPOSITIONS and chunks[i - 3].sym in (NP, NPS):
        end = i - 2
    start = end - 1
    if start >= 2 and chunks[start - 1].sym == "of" and chunks[start - 2].sym in (NP, NPS):
        start -= 2
    return list(chunks[start:end])


def _time_words(m: Mention) -> bool:
    # By the words as written too: the lookup lemmatizer reads "evening" as "even". A noun
    # of time after an adjective is one too: "on a sunny day", "one cold morning".
    return any(
        all(w in TIME_NOUNS or w in _TIME_WORDS for w in words)
        or (len(words) <= 2 and words[-1] in TIME_NOUNS)
        for words in (m.key.split(), m.text.lower().split())
    )


def _trim_time(c: Chunk) -> Chunk:
    """ "his fishing net last night" -> "his fishing net": a time phrase the noun phrase ran
    into (a noun of time, after words of time)."""
    if c.sym != NP:
        return c
    m = c.items[0]
    words = m.text.split()
    k = len(words)
    while k > 1 and words[k - 1].lower() in _TIME_WORDS | TIME_NOUNS:
        k -= 1
    if k == len(words) or words[-1].lower() not in TIME_NOUNS or k < 1:
        return c
    _, nouns, adjectives, _ = word_classes()
    if words[k - 1].lower() in adjectives and words[k - 1].lower() not in nouns:
        return c  # "a sunny day": the adjective is the time noun's, no noun phrase before it
    text = " ".join(words[:k])
    table = get_nlp().get_pipe("lemmatizer").lookups.get_table("lemma_lookup")
    head = words[k - 1].lower()
    key = " ".join([*(w.lower() for w in words[: k - 1]), table.get(head, head)])
    return Chunk(NP, c.start, c.end - (len(m.text) - len(text)), items=(Mention(text, key),))


def _drop_time_phrases(chunks: list[Chunk]) -> list[Chunk]:
    """Remove "in the afternoon", "the next morning", "an hour later", "on Monday"."""
    out: list[Chunk] = []
    i = 0
    while i < len(chunks):
        c = chunks[i]
        c = _trim_time(c)
        if c.sym == NP and _time_words(c.items[0]):
            while out and out[-1].sym in _TIME_LEAD:
                out.pop()
            i += 1
            if i < len(chunks) and chunks[i].sym in ("later", "ago", "after"):
                i += 1
            continue
        out.append(c)
        i += 1
    return out


_LONGEST = 64
"""Most chunks one frame reads whole; a longer stretch is only ever read in parts. Matching
open-ended patterns ("... REST") on every prefix of a run-on made its reading quadratic."""


def _match(chunks: Sequence[Chunk], sentence: str) -> tuple[Template, ...] | None:
    if len(chunks) > _LONGEST:
        return None
    for handler, names in _frames_for(tuple(c.sym for c in chunks)):
        slots: dict[str, Any] = {}
        for pos, name in enumerate(names):
            if name == "rest":
                slots[name] = tuple(chunks[pos:])
                break
            if name:
                slots[name] = chunks[pos]
        read = handler(slots, sentence)
        if read is not None:
            return read
    return None


@lru_cache(maxsize=1 << 14)
def _frames_for(syms: tuple[str, ...]) -> tuple[tuple[Handler, list[str | None]], ...]:
    # Many sentences share one symbol sequence ("<name> enter <np>"), so the Matcher runs
    # once per sequence; the result lists the frames spanning the whole clause, best first.
    # Every pattern opens with a start mark, so matches start only at the clause's start:
    # a "... REST" pattern tried from every position made long run-ons quadratic.
    matcher, table = _grammar()
    words = [_START, *syms]
    doc = Doc(matcher.vocab, words=words, lemmas=words)
    found = sorted(
        table[key] for key, start, end in matcher(doc) if (start, end) == (0, len(words))
    )
    return tuple((handler, names) for _, handler, names in found)


_START = "<start>"


# -- the pattern notation ------------------------------------------------------------------


def _expand(tokens: list[str]) -> list[list[str]]:
    """All variants of a token list with ``( ... )`` groups either kept or dropped."""
    if "(" not in tokens:
        return [tokens]
    i = tokens.index("(")
    depth, j = 0, i
    for j in range(i, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[j], 0)
        if depth == 0:
            break
    head, inner, tail = tokens[:i], tokens[i + 1 : j], tokens[j + 1 :]
    return [head + v for v in _expand(inner + tail)] + [head + v for v in _expand(tail)]


def _compile(pattern: str) -> list[tuple[list[dict[str, Any]], list[str | None]]]:
    out = []
    for variant in _expand(re.findall(r"[()]|[^\s()]+", pattern)):
        specs: list[dict[str, Any]] = []
        names: list[str | None] = []
        for tok in variant:
            word, _, name = tok.partition(":")
            if word == "REST":
                specs.append({"OP": "+"})
                names.append("rest")
            elif word == "VERB":
                specs.append({"LEMMA": {"IN": sorted(_any_verb())}})
                names.append(name or "verb")
            elif all(w in _CLASSES for w in word.split("|")):  # "NPS|WHO": either class
                syms = [x for w in word.split("|") for x in _CLASSES[w]]
                specs.append({"LEMMA": {"IN": syms}})
                names.append(name or word.lower())
            else:
                specs.append({"LEMMA": {"IN": word.split("|")}})
                names.append(name or None)
        out.append(([{"LEMMA": _START}, *specs], names))
    return out


@cache
def _any_verb() -> frozenset[str]:
    # Any English verb lemma as a clause's verb ("repair", "swim"), except the auxiliaries
    # and the closed words some verbs share a spelling with ("up", "down").
    verbs = word_classes()[0]
    return (verbs | FRAME_VERBS) - CLOSED - {"be", "have", "do"}


@cache
def _grammar() -> tuple[Matcher, dict[int, tuple[int, Handler, list[str | None]]]]:
    matcher = Matcher(get_nlp().vocab)
    table: dict[int, tuple[int, Handler, list[str | None]]] = {}
    rank = 0
    for handler, patterns in _FRAMES:
        for pattern in patterns:
            for specs, names in _compile(pattern):
                key = f"frame{rank}"
                matcher.add(key, [specs])
                table[matcher.vocab.strings[key]] = (rank, handler, names)
                rank += 1
    return matcher, table


# -- slot helpers --------------------------------------------------------------------------


def _who(c: Chunk) -> Who:
    if c.sym == THEY:
        return Who(pronoun="they")
    if c.sym == HE:
        return Who(pronoun=c.genders[0] if c.genders else "he")
    return Who(names=c.names, genders=c.genders)


def _one(c: Chunk) -> Mention:
    if c.sym == THEY:  # "them" as an object: the last thing mentioned
        return Mention("it", pronoun=True)
    return c.items[0]


def _text(chunks: Sequence[Chunk], sentence: str) -> str:
    return sentence[chunks[0].start : chunks[-1].end]


def _loc(
    obj: Mention, place: Mention, negated: bool = False, prep: Chunk | None = None
) -> PropTemplate:
    where = _PREPOSITION_WORDS.get(prep.sym, prep.sym) if prep is not None else None
    return PropTemplate("Location", obj, "in", place, negated, preposition=where)


# How a placing preposition is worded in a location: "into the box" is "in the box",
# "beneath the mat" "under the mat".
_PREPOSITION_WORDS: dict[str, str | None] = {
    "in": None, "into": None, "inside": None, "to": None, "onto": "on",
    "underneath": "under", "beneath": "under",
}  # fmt: skip


def _contains(box: Mention, thing: Mention, negated: bool = False) -> PropTemplate:
    return PropTemplate("Contents/Physical State", box, "contains", thing, negated)


# -- handlers ------------------------------------------------------------------------------


def _enter(s: Slots, _: str) -> tuple[Template, ...]:
    who = _who(s["subj"])
    room = _one(s["room"]) if "room" in s else None
    # "came back", "returned": to the room they were in before (the assembler knows it)
    back = "back" if "back" in s and room is None else None
    out = [Template("enter", who, room=room, place=back)]
    if "things" in s:  # "in a room with a box and a basket": the group sees the containers
        out += [Template("observe", who, obj=m) for m in s["things"].items]
    return tuple(out)


def _exit(s: Slots, _: str) -> tuple[Template, ...]:
    room = _one(s["room"]) if "room" in s else None
    return (Template("exit", _who(s["subj"]), room=room),)


def _stay(s: Slots, _: str) -> tuple[Template, ...]:
    room = _one(s["room"]) if "room" in s else None
    return (Template("stay", _who(s["subj"]), room=room),)


def _nothing(s: Slots, _: str) -> tuple[Template, ...]:
    return ()


def _located(s: Slots, _: str) -> tuple[Template, ...] | None:
    if s["place"].sym == NP and s["place"].items[0].key.rsplit(" ", 1)[-1] in _STATE_NOUNS:
        return None  # "in perfect condition": a state (``_state``), not a place
    place = _one(s["place"])
    negated = "neg" in s
    return tuple(
        Template(
            "narrate",
            obj=m,
            destination=None if negated else place,
            prop=_loc(m, place, negated, s.get("prep")),
        )
        for m in s["obj"].items
    )


def _absent(s: Slots, _: str) -> tuple[Template, ...]:
    box = _one(s["place"])
    return tuple(Template("narrate", prop=_contains(box, m, True)) for m in s["obj"].items)


def _move(s: Slots, _: str) -> tuple[Template, ...] | None:
    if "why" in s and s["why"].sym == NP and not _bare_verb(s["why"]):
        return None  # "left it to the staff in the kitchen": no purpose
    dest = _one(s["dest"])
    origin = _one(s["origin"]) if "origin" in s else None
    obj = _one(s["obj"])
    prop = _loc(obj, dest, prep=s.get("prep"))
    return (Template("move", _who(s["subj"]), obj=obj, origin=origin, destination=dest, prop=prop),)


def _put_back(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "puts it back in its place" restores a container; "puts it back in the box" is a move.
    if _one(s["dest"]).text.lower() == "place":
        return ()
    return _move(s, sentence)


def _see(s: Slots, _: str) -> tuple[Template, ...]:
    who = _who(s["subj"])
    out = []
    for m in s["things"].items:
        if m.key in ANIMALS:
            out.append(Template("narrate", prop=PropTemplate("Action/Event", who, "see", m)))
            continue
        out.append(Template("observe", who, obj=m))
        state = _seen_state(m)
        if state is not None:
            out.append(Template("observe", who, obj=state.subject, prop=state, place="seen_in"))
    return tuple(out)


def _seen_state(m: Mention) -> PropTemplate | None:
    """ "notices the murky water": seeing a thing so described is seeing its state (the
    water is murky). The first word must be an adjective or participle, never a noun
    ("the fishing net", "the rain shower" describe nothing)."""
    words = m.text.split()
    if len(words) < 2 or m.pronoun:
        return None
    _, nouns, adjectives, _ = word_classes()
    first = words[0].lower()
    if first in nouns or not (first in adjectives or first.endswith("ed")):
        return None
    thing = Mention(" ".join(words[1:]), " ".join(m.key.split()[1:]) or words[-1].lower())
    return PropTemplate("Contents/Physical State", thing, "be", words[0])


def _find_in(s: Slots, _: str) -> tuple[Template, ...]:
    who, place = _who(s["subj"]), _one(s["place"])
    return tuple(
        Template("observe", who, obj=m, destination=place, place="find_in")
        for m in s["things"].items
    )


def _find(s: Slots, _: str) -> tuple[Template, ...]:
    who = _who(s["subj"])
    return tuple(Template("observe", who, obj=m, place="find") for m in s["things"].items)


def _label(s: Slots, _: str) -> tuple[Template, ...] | None:
    if _one(s["tag"]).key not in LABEL_NOUNS:
        return None
    box = _one(s["box"])
    return tuple(Template("label", obj=box, prop=_contains(box, m)) for m in s["value"].items)


def _cannot_see(s: Slots, _: str) -> tuple[Template, ...]:
    prop = PropTemplate(
        "Contents/Physical State", _who(s["subj"]), "see inside", _one(s["box"]), negated=True
    )
    return (Template("narrate", prop=prop),)


def _open(s: Slots, _: str) -> tuple[Template, ...]:
    kind = "open" if s["verb"].sym == "open" else "close"
    return (Template(kind, _who(s["subj"]), obj=_one(s["box"])),)


def _tell(s: Slots, _: str) -> tuple[Template, ...]:
    obj, place = _one(s["obj"]), _one(s["place"])
    private = ("adv" in s and s["adv"].sym != "publicly") or s["verb"].sym == "whisper"
    hearers = _who(s["who"]) if "who" in s else Who()
    return (
        Template(
            "tell",
            _who(s["subj"]),
            obj=obj,
            prop=_loc(obj, place),
            hearers=hearers,
            private=private,
        ),
    )


def _fact(content_type: str) -> Handler:
    def handler(s: Slots, _: str) -> tuple[Template, ...]:
        who, verb = _who(s["subj"]), s["verb"].sym
        return tuple(
            Template("narrate", prop=PropTemplate(content_type, who, verb, m))
            for m in s["value"].items
        )

    return handler


def _away(s: Slots, _: str) -> tuple[Template, ...]:
    # "while Sally was asleep", "Sally fell asleep": she stops perceiving, as if she left;
    # the assembler drops it when she is already away (it restates her exit).
    return (Template("exit", _who(s["subj"]), place="absent"),)


def _unbeknownst(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "Unbeknownst to her, the wind blows the door open": she does not know what follows.
    what = sentence[s["who"].end :].strip(" ,.;")
    if not what:
        return None
    prop = PropTemplate("Action/Event", _who(s["who"]), "know", what, negated=True)
    return (Template("narrate", prop=prop),)


def _restate_enter(s: Slots, _: str) -> tuple[Template, ...]:
    # "while Tom was at school": Tom is there; no event when the story already put him there.
    return (Template("enter", _who(s["subj"]), room=_one(s["room"]), place="absent"),)


def _watching(s: Slots, _: str) -> tuple[Template, ...]:
    # "while Ken was watching", "Lily saw this": present, so she perceives what happens.
    return (Template("stay", _who(s["subj"]), place="absent"),)


def _saw_do(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "Nora saw Sam move the phone": she is there, and the move is read as told.
    seen = read_clause([s["who"], *s["rest"]], sentence)
    if seen is None:
        return None
    return (Template("stay", _who(s["subj"]), place="absent"), *seen)


def _witnesses(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "Hiro witnesses the gust of wind snapping off the branches": present, and what he
    # saw is a fact he knows (a move he saw is left to the frames that read moves).
    what = [s["what"], *s["rest"]]
    if not _plain(what, state=True):
        return None
    prop = PropTemplate("Action/Event", _who(s["subj"]), "witness", _text(what, sentence))
    return (Template("stay", _who(s["subj"]), place="absent"), Template("narrate", prop=prop))


def _notice_that(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "Both A and B noticed that the hat is in the bottle": they see where it is.
    seen = read_clause(list(s["rest"]), sentence)
    props = [t.prop for t in seen or () if t.prop is not None and t.prop.relation == "in"]
    if not props:
        return None
    who = _who(s["subj"])
    return tuple(
        Template("observe", who, obj=p.subject, destination=p.value, prop=p, place="seen_in")
        for p in props
        if isinstance(p.subject, Mention) and isinstance(p.value, Mention)
    )


def _take(s: Slots, _: str) -> tuple[Template, ...]:
    # "Nina dug up the coin", "Tom took the keys": the object is in hand, at no place a
    # container names; what happens to it next is another clause.
    who = _who(s["subj"])
    if _one(s["obj"]).key.rsplit(" ", 1)[-1] in ("shower", "nap", "bath", "break", "rest"):
        # "takes a nap", "takes a short break": away
        return (Template("exit", who, place="absent"),)
    return (Template("narrate", prop=PropTemplate("Action/Event", who, "take", _one(s["obj"]))),)


def _replace(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "a child replaces the ripe watermelon with an underripe one": an act on the thing,
    # narrated; no place is named, so no location changes.
    rest = s.get("rest", ())
    if rest and not _plain(rest, state=True):
        return None
    value = _text([s["obj"], s["new"], *rest], sentence)
    prop = PropTemplate("Action/Event", _who(s["subj"]), "replace", value)
    return (Template("narrate", prop=prop),)


def _consume(s: Slots, _: str) -> tuple[Template, ...]:
    who, verb = _who(s["subj"]), s["verb"].sym
    return tuple(
        Template("narrate", prop=PropTemplate("Action/Event", who, verb, m))
        for m in s["value"].items
    )


def _look_for(s: Slots, _: str) -> tuple[Template, ...]:
    # "Sally looks for the marble in the basket": an act she does, narrated.
    who = _who(s["subj"])
    return (
        Template("narrate", prop=PropTemplate("Action/Event", who, "look for", _one(s["obj"]))),
    )


def _tell_that(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "Jack told her that he had moved the ball to the blue box": what is told is the
    # location the reported clause states, whoever it says moved the thing.
    said = read_clause(list(s["rest"]), sentence)
    props = [t.prop for t in said or () if t.prop is not None and t.prop.relation == "in"]
    if not props:
        return None
    verb = s["verb"].sym
    private = verb in _PRIVATE or ("adv" in s and s["adv"].sym != "publicly")
    hearers = _who(s["who"]) if "who" in s else Who()
    return tuple(
        Template(
            "tell",
            _who(s["subj"]),
            obj=p.subject if isinstance(p.subject, Mention) else None,
            prop=p,
            hearers=hearers,
            private=private,
        )
        for p in props
    )


def _moves_inside(chunks: Sequence[Chunk]) -> bool:
    # A clause that names a placing, taking or going verb is never read as a mere fact: if
    # no frame reads it, it stays unread rather than losing a change of place. A passive
    # with no place after it ("the vegetables are freshly picked") is a state.
    for i, c in enumerate(chunks):
        if c.sym not in _MOVING or (i and chunks[i - 1].sym in ("by", "of", "with", "for")):
            continue  # "obstructed by leaves": a noun; "ideal for taking pictures": a use
        # "the vegetables are picked", "causes the slab to move": a thing moved with no
        # place named is no move the solver can track.
        passive = i and chunks[i - 1].sym == "be"
        passive = passive or (
            i >= 2 and chunks[i - 1].sym == "to" and chunks[i - 2].sym in (NP, NPS, IT, THEY)
        )
        # "is set at the correct temperature": a state phrase is no place; nor is a
        # quantity ("drops to 18°C")
        after = chunks[i + 1 :]
        placed = any(
            (x.sym in _PLACE_PREPOSITIONS or x.sym in ("to", "into", "onto"))
            and not (k + 1 < len(after) and _state_noun(after[k + 1]))
            and not (k + 1 < len(after) and _quantity(after[k + 1]))
            for k, x in enumerate(after)
        )
        if not passive or placed:
            return True
    return False


def _quantity(c: Chunk) -> bool:
    return c.sym == NP and c.items[0].text[:1].isdigit()


def _identity(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "Kofi is a fisherman from a small village in Ghana": who someone is.
    what = [s["what"], *s.get("rest", ())]
    if _moves_inside(what) or _ing(s["what"], sentence):  # "is attending ...": an act
        return None
    prop = PropTemplate("Identity/Relation", _who(s["subj"]), "be", _text(what, sentence))
    return (Template("narrate", prop=prop),)


def _perceives(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "Kofi does not notice the otter tangled in his net", "Abhay sees that the pot is
    # full": a perception of a state no frame tracks, kept as a fact the perceiver knows.
    if _moves_inside(s["rest"]):
        return None
    first = s["rest"][0]
    if s["verb"].sym in _FEELING and not (first.sym in (NP, NPS) and _determined(first, sentence)):
        return None  # "feels guilty": an emotion; "feels the earthquake": a perception
    prop = PropTemplate(
        "Action/Event",
        _who(s["subj"]),
        s["verb"].sym,
        _text(s["rest"], sentence),
        negated="neg" in s,
        referent=_referent(s["rest"]),
    )
    return (Template("narrate", prop=prop),)


def _want(s: Slots, sentence: str) -> tuple[Template, ...]:
    # "wants to ..." is a desire; "decides / plans / tries / intends to ..." an intention,
    # kept as said ("decides to" is not "wants to"). The value keeps its "to": a verb
    # phrase, rendered "wants to irrigate his crops", never "wants the irrigate ...".
    verb = s["verb"].sym
    relation = verb if verb in _INTENDING else "be about" if verb == "about" else "want"
    value = _text([s.get("obj", s["to"]), s["to"], *s["rest"]], sentence)
    prop = PropTemplate("Desire/Intention", _who(s["subj"]), relation, value)
    return (Template("narrate", prop=prop),)


_INTENDING = frozenset({"decide", "plan", "try", "intend", "choose", "prepare", "attempt"})


# -- any verb: what a clause says someone or something did, or what state a thing is in ----

# Words that open a clause of its own inside a generic reading's complement: the clause is
# left to the frames that cut sentences ("Tom smiled and Ann told him ..."), never swallowed.
_JOINERS = frozenset(
    {"and", "but", "while", "when", "after", "before", "because", "until", "once", "so", "as",
     "if", "that", "then"}
)  # fmt: skip
_PLACE_PREPOSITIONS = frozenset(
    {"in", "into", "inside", "on", "onto", "under", "underneath", "beneath", "behind",
     "beside", "near", "at"}
)  # fmt: skip


# Verbs whose own frames carry what the solver uses (who is where, who sees and hears
# what, what is open): never read by the any-verb frames, so a form their frames miss stays
# unread instead of becoming a mere fact.
_OWN_FRAME = (
    _MOVING
    | frozenset((_STROLL + "|" + _GO + "|" + _TELL + "|" + _SAY).split("|"))
    | frozenset(
        {
            "arrive",
            "reach",
            "return",
            "reappear",
            "exit",
            "open",
            "close",
            "shut",
            "lock",
            "see",
            "notice",
            "spot",
            "find",
            "discover",
            "witness",
            "observe",
            "watch",
            "label",
            "swap",
            "replace",
            "empty",
            "transfer",
            "believe",
            "think",
            "want",
            "need",
        }
    )
)


# Verbs of feeling: "Anne feels guilty about it" is an emotion, which no frame types; it
# stays unread (for a parser that reads emotions) rather than becoming an act.
_FEELING = frozenset(
    {"feel", "worry", "fear", "regret", "wonder", "doubt", "suspect", "envy", "pity", "resent",
     "mourn", "grieve", "blush", "cry", "weep", "sob", "sigh", "frown", "smile", "laugh"}
)  # fmt: skip


def _plain(chunks: Sequence[Chunk], *, state: bool = False) -> bool:
    """Whether a complement may be kept verbatim as one fact: it names no placing, taking
    or going verb, no "into"/"onto" (a change of place), and no clause of its own ("and
    finds a cup", "and Ann told him ..."). A state's complement may coordinate verb forms
    ("plugged in and turned on", "calm and inviting"), not clauses with their own subject
    or auxiliary ("and it rains", "and does not ...")."""
    if _moves_inside(chunks) or any(c.sym in ("into", "onto") for c in chunks):
        return False
    if state:
        # "has sturdy branches that can support his weight": "that" after a noun phrase
        # opens its relative, no clause of its own.
        return not any(
            c.sym in _JOINERS
            and (n.sym in _SUBJECTS or n.sym == IT or n.sym in _AUX_NEXT)
            and not (c.sym == "that" and k and chunks[k - 1].sym in (NP, NPS))
            for k, (c, n) in enumerate(itertools.pairwise(chunks))
        )
    # "causing the flowers to wilt and lose their colour": verbs joined inside an
    # infinitive are one complement, not a clause of their own.
    infinitive = next(
        (
            i
            for i, (c, n) in enumerate(itertools.pairwise(chunks))
            if c.sym == "to" and (_verb_like(n) or _bare_verb(n))
        ),
        len(chunks),
    )
    return not any(
        c.sym in _JOINERS
        and (
            n.sym in _SUBJECTS
            or (_verb_next(chunks, i + 1) and not (i > infinitive and c.sym == "and"))
        )
        for i, (c, n) in enumerate(itertools.pairwise(chunks))
    )


def _bare_verb(c: Chunk) -> bool:
    """A one-word noun phrase that is a verb's base form ("to crack", "to wilt"): the
    chunker cannot tell it from a noun after "to"."""
    if c.sym != NP or " " in c.items[0].key:
        return False
    return c.items[0].key in _any_verb() and c.items[0].text == c.items[0].key


def _subject_mention(chunks: Sequence[Chunk], sentence: str) -> Mention:
    """ "a pod of dolphins": the first noun phrase's mention, widened to the whole subject."""
    head = _one(chunks[0])
    if len(chunks) == 1:
        return head
    return Mention(head.text + sentence[chunks[0].end : chunks[-1].end], head.key)


def _ing(c: Chunk, sentence: str) -> bool:
    return sentence[c.start : c.end].lower().endswith("ing")


def _subject_chunks(s: Slots) -> list[Chunk]:
    return [s["subj"], *([s["of"]] if "of" in s else [])]


def _did(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "Kofi repaired his net", "Zara is attending an art exhibition": an act of the actor,
    # kept as a fact they know (the verb's lemma, its complement verbatim).
    rest = s.get("rest", ())
    verb = s["verb"]
    if verb.sym in _OWN_FRAME or verb.sym in _FEELING or not _plain(rest):
        return None
    if "be" in s and not _ing(verb, sentence):
        return None  # "Tom is surprised ...": a state, not an act (``_identity``)
    # A lone object stays a mention, so "it" may refer to it next ("folded her scarf and
    # put it in the drawer"); a longer complement is kept verbatim.
    value: Mention | str | None = _text(rest, sentence) if rest else None
    if len(rest) == 1 and rest[0].sym == NP:
        value = _one(rest[0])
    # "has prepared the dough earlier and left it ...": with one noun phrase in the
    # complement, "it" next is that thing ("spills paint all over the canvas, leaving it
    # ruined" names two, and stays with the thing named before).
    one = [c for c in rest if c.sym in (NP, NPS)]
    referent = _referent(rest) if isinstance(value, str) and len(one) == 1 else None
    prop = PropTemplate(
        "Action/Event", _who(s["subj"]), verb.sym, value, negated="neg" in s, referent=referent
    )
    return (Template("narrate", prop=prop),)


def _referent(rest: Sequence[Chunk]) -> Mention | None:
    """The object of an act kept verbatim: its first noun phrase, after a particle
    ("knocks over the paint cans"), never one after a preposition ("walks along a beach")."""
    k = 1 if len(rest) > 1 and rest[0].sym in _PARTICLE_WORDS else 0
    if len(rest) > k + 1 and rest[k].sym == NP and rest[k].items[0].text.endswith("ing"):
        k += 1  # "starts installing the wiring": the gerund's object
    return rest[k].items[0] if len(rest) > k and rest[k].sym == NP else None


def _arrives(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "A group of wild turkeys wanders into the cornfield", "the wind blows the hat into the
    # pond": a thing (not an actor) is now in a place, whoever or whatever moved it.
    thing = _one(s["obj"]) if "obj" in s else _subject_mention(_subject_chunks(s), sentence)
    if "rest" in s and not _plain(s["rest"]):
        return None
    if "obj" not in s and s["verb"].sym not in _MOTION:
        # "the sun shines onto the clay": no motion, so the sun is not on the clay; what
        # it does is a fact, its complement kept verbatim.
        what = _text([c for c in (s.get("place_prep"), s["place"]) if c is not None], sentence)
        prop = PropTemplate("Action/Event", thing, s["verb"].sym, what)
        return (Template("narrate", prop=prop),)
    place = _one(s["place"])
    return (Template("narrate", obj=thing, destination=place, prop=_loc(thing, place)),)


# Verbs of motion: a thing that does one of them into a place is then in that place.
_MOTION = frozenset(
    [
        "wander",
        "walk",
        "run",
        "fly",
        "swim",
        "crawl",
        "jump",
        "fall",
        "roll",
        "drift",
        "float",
        "slide",
        "climb",
        "sneak",
        "hop",
        "creep",
        "dash",
        "rush",
        "blow",
        "spill",
        "flow",
        "pour",
        "leak",
        "land",
        "tumble",
        "wash",
        "seep",
        "sail",
        "move",
        "come",
        "go",
        "get",
        "enter",
        "wade",
        "scurry",
        "scamper",
        "dive",
        "stray",
        "stroll",
        "march",
        "charge",
        "bound",
        "leap",
        "sink",
        "splash",
        "drip",
        "burst",
        "break",
        "crash",
        "slip",
        "swoop",
        "glide",
        "hurry",
        "race",
    ]
)


def _happens(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "A storm rolls in", "A pod of dolphins swims by the reef": an event in the world; who
    # perceives it is for other sentences to say ("Kofi does not notice ...").
    rest = s.get("rest", ())
    if (s["verb"].sym in _OWN_FRAME and not _thing_act(s["verb"].sym, rest)) or not _plain(rest):
        return None
    subject = _subject_mention(
        s["subj"] if isinstance(s["subj"], tuple) else (s["subj"],), sentence
    )
    value = _text(rest, sentence) if rest else None
    prop = PropTemplate(
        "Action/Event", subject, s["verb"].sym, value, negated="neg" in s, referent=_referent(rest)
    )
    return (Template("narrate", prop=prop),)


_THING_ACTS = frozenset({"open", "close", "shut", "lock", "empty", "replace", "swap"})


def _thing_act(verb: str, rest: Sequence[Chunk]) -> bool:
    """Whether a thing (not an actor) may do ``verb`` as a mere event: "the rainfall opens
    the valve", "the temperature drops", "the monkeys play with the net". Verbs of going,
    placing or strolling say where an actor is or where a tracked object goes, so with a
    place after them ("drops the cup into the sink") they stay with their own frames."""
    if verb in _STROLLING and verb not in _MOVING and rest and rest[0].sym in (NP, NPS):
        return True  # "a musician plays a melody on a violin": an act, no stroll
    if verb not in _THING_ACTS and verb not in _MOVING and verb not in _STROLLING:
        return False
    return not any(c.sym in _PLACE_PREPOSITIONS or c.sym in ("to", "into", "onto") for c in rest)


_STROLLING = frozenset(_STROLL.split("|"))


def _comes(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "A group of tourists arrives at the site", "the power goes out", "a bird flies away":
    # a thing no frame tracks comes or goes; no object of the story changes place.
    rest = s.get("rest", ())
    if not _plain(rest):
        return None
    subject = _subject_mention(_subject_chunks(s), sentence)
    said = [*([s["part"]] if "part" in s else []), *rest]  # "runs through the garden"
    value = _text(said, sentence) if said else None
    prop = PropTemplate("Action/Event", subject, s["verb"].sym, value)
    return (Template("narrate", prop=prop),)


_STATE_NOUNS = frozenset(
    {"condition", "shape", "state", "bloom", "order", "tune", "temperature", "place",
     "danger", "trouble", "disrepair", "repair", "ruin", "ruins", "pieces", "flames", "season",
     "stock", "use", "harmony", "balance", "health", "form", "mood", "working"}
)  # fmt: skip
"""Head nouns of a prepositional phrase that says what state a thing is in, not where it
is: "in perfect condition", "in full bloom", "at the right temperature", "out of tune"."""


def _state_phrase(chunks: Sequence[Chunk]) -> bool:
    """Whether ``chunks`` open with "in|at|out of <a state noun>"."""
    k = 2 if len(chunks) > 2 and chunks[0].sym == "out" and chunks[1].sym == "of" else 1
    return len(chunks) > k and chunks[0].sym in ("in", "at", "out") and _state_noun(chunks[k])


def _state_noun(c: Chunk) -> bool:
    """Whether a noun phrase (or the first of a list: "in good condition and functional")
    names a state."""
    return c.sym in (NP, NPS) and c.items[0].key.rsplit(" ", 1)[-1] in _STATE_NOUNS


def _left_as(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "..., leaving the pot empty", "leaving it in a state of disrepair": what an event
    # leaves a thing as is that thing's state; "left her keys in the bowl" is a placing,
    # read by the frames of moves.
    rest = s.get("rest", ())
    if not rest:
        return _left_as_one(s, sentence)
    first = rest[0]
    if first.sym in _SUBJECTS or first.sym in ("to", "for", "with", "behind", "by"):
        return None
    if first.sym in _PLACE_PREPOSITIONS and not _state_phrase(rest):
        return None
    if not _plain(rest, state=True):
        return None
    thing = _one(s["obj"])
    prop = PropTemplate("Contents/Physical State", thing, "be", _text(rest, sentence))
    return (Template("narrate", prop=prop),)


def _left_as_one(s: Slots, _: str) -> tuple[Template, ...] | None:
    # "leaving the road flooded": the chunker read "road flooded" as one noun phrase; an
    # adjective or participle ending it is the state.
    if s["obj"].sym != NP:
        return None
    m = s["obj"].items[0]
    words = m.text.split()
    _, nouns, adjectives, _ = word_classes()
    last = words[-1].lower()
    if len(words) < 2 or (last in nouns and last not in adjectives):
        return None  # "leaving the fishing net": a noun ("the pot empty": an adjective)
    if not (last in adjectives or last.endswith("ed")):
        return None
    head = " ".join(words[:-1])
    thing = Mention(head, " ".join(m.key.split()[:-1]) or head.lower())
    prop = PropTemplate("Contents/Physical State", thing, "be", words[-1])
    return (Template("narrate", prop=prop),)


def _state(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "The sky is cloudy", "The coral appears vibrant": the state of a thing. A place after
    # the verb ("is in the box by the door") is a location no frame read: left unread.
    rest = s["rest"]
    # With its verb, so that "is locked" reads as the passive it is, not a placing.
    if (rest[0].sym in _PLACE_PREPOSITIONS and not _state_phrase(rest)) or not _plain(
        [s["verb"], *rest], state=True
    ):
        return None
    subject = _subject_mention(_subject_chunks(s), sentence)
    verb = s["verb"].sym
    prop = PropTemplate(
        "Contents/Physical State", subject, verb, _text(rest, sentence), negated="neg" in s
    )
    return (Template("narrate", prop=prop),)


def _has(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "She has a brand-new set of paintbrushes in her studio": what someone has, verbatim.
    what = [s["what"], *s["rest"]]
    if _moves_inside(what) or not _plain(what, state=True):
        return None
    prop = PropTemplate("Identity/Relation", _who(s["subj"]), "have", _text(what, sentence))
    return (Template("narrate", prop=prop),)


def _believes(s: Slots, sentence: str) -> tuple[Template, ...] | None:
    # "Aria believes that her flour is fresh": the narrator states Aria's belief. Only a
    # reported clause read as one fact (a place, a state, an act or what someone has:
    # "Fatima believes she has a new set of paintbrushes") is kept.
    said = read_clause(list(s["rest"]), sentence)
    if not said or len(said) != 1 or said[0].kind != "narrate" or said[0].prop is None:
        return None
    prop = PropTemplate("Epistemic", _who(s["subj"]), "think", about=said[0].prop)
    return (Template("narrate", prop=prop),)


# Order is priority: the first frame whose handler accepts the clause reads it.
_FRAMES: list[tuple[Handler, list[str]]] = [
    (
        _nothing,
        [
            "while SUBJ be away|out|gone|outside|absent",
            "while SUBJ be not here|there|around|in",
            "SUBJ put|place NP:_ back (in|into|to place)",
            f"SUBJ (privately|secretly) {_TELL}|{_SAY} (WHO) (NP:_) (on|by|over NP:_)",
        ],
    ),
    (_restate_enter, ["while SUBJ be in|at NP:room (with NP:_)"]),
    (_unbeknownst, ["unbeknownst|unaware to WHO:who"]),
    (
        _away,
        [
            f"while SUBJ be {_ABSENT} (from|at|in|for NP:_)",
            f"SUBJ {_NOT} witness (NP:_)",
            f"SUBJ {_NOT} see|notice|watch this|that|it|anything",
            "while SUBJ sleep|nap|shower|bathe",
            "SUBJ fall|be asleep (on|in NP:_)",
            "SUBJ go|fall to sleep|bed",
            f"SUBJ {_GO} upstairs|downstairs|inside|outside|home|indoors|outdoors|off|away",
            "SUBJ leave home|school|work|upstairs|downstairs|outside",
            # "when Kavi is away", "while Kofi is not looking", "Uma steps away"
            "SUBJ be away|gone|absent|elsewhere (from|at|in|for NP:_)",
            "(while) SUBJ be not look|watch|pay (attention) (REST)",
            "(while) SUBJ step|walk|wander away|aside|out (for|from NP:_) (to VERB REST)",
            "SUBJ turn <he> back (to VERB REST)",
        ],
    ),
    (
        _watching,
        [
            "while SUBJ be watch|look|there|present|around|nearby|here",
            "SUBJ witness NPS:_",
            "SUBJ be here|present|nearby",
            "while SUBJ watch|look (on)",
            "SUBJ see|watch|notice|witness this|that|everything|it|what (happen)",
            "SUBJ see|watch|notice|witness NP:_ (do) this|that|it|everything",
            "SUBJ walk|step|move|come|get|draw close|near (to NP:_)",
        ],
    ),
    (
        _stay,
        [
            "SUBJ make no NP:_ and stay|remain (in|at|inside NP:room) (for NP:_)",
            "SUBJ stay|remain (in|at|inside NP:room) (for NP:_)",
        ],
    ),
    (
        _enter,
        [
            "SUBJ enter|reach|arrive (at|in) NP:room",
            "SUBJ enter|arrive",
            f"SUBJ come|{_GO}|move|return|run (back) in|into|to NP:room",
            f"SUBJ come|{_GO}|return (back) on|onto NP:room",
            f"SUBJ come|{_GO}|run back:back",
            "SUBJ come|return|get (back) home|inside|indoors|upstairs|downstairs|in",
            "SUBJ come|return|get back home|inside|indoors|upstairs|downstairs|in|from NP:_",
            "SUBJ come|return|get back:back from NP:_",
            "SUBJ come|return:back|get from NP:_",
            "SUBJ wake (up)",
            "SUBJ return:back|reappear:back",
            "SUBJ be back:back",
            f"SUBJ (be) {_STROLL} (out|about) around|round (in|on|at) NP:room",
            f"SUBJ (be) {_STROLL} (out|about) in|on|at|inside|through|along|across NP:room"
            " (on|in|at|near|by NP:_ (of NP|WHO:_))",
            "SUBJ be in|inside|at|on NP:room (with NPS:things)",
            "SUBJ be in|inside|at|on NP:room in search of NPS:_",
        ],
    ),
    (
        _move,
        [
            # "left it to rise in a warm spot": placed there, for a purpose ("sets sail to
            # catch fish in the calm waters" is no placing)
            f"SUBJ leave|put|place NPT:obj to VERB:why (NP:_) {_AT}:prep NP:dest (in|at|on NP:_)",
            f"SUBJ leave|put|place NPT:obj to NP:why (NP:_) {_AT}:prep NP:dest (in|at|on NP:_)",
        ],
    ),
    (
        _exit,
        [
            "SUBJ exit|leave (NP:room)",
            "SUBJ exit|leave (NP:room) for|to NP:_",
            f"SUBJ {_GO} out|outside|away (for NP:_) (to NP:_)",
            f"SUBJ {_GO} for NP:_",
            f"SUBJ {_GO} to VERB (REST)",
            f"SUBJ {_GO} out|outside|away to REST",
            f"SUBJ {_GO} out of NP:room",
        ],
    ),
    (
        _located,
        [
            f"NPS:obj be (not:neg) {_AT}:prep NP:place (in|at|on NP:_)",
            f"NPS:obj be (not:neg) {_PUT} {_AT}:prep NP:place (in|at|on NP:_)",
            "there be NPS:obj in|inside|on:prep NP:place",
        ],
    ),
    (_absent, ["there be no NPS:obj in|inside NP:place"]),
    (_put_back, [f"SUBJ put|place NP:obj back {_INTO}:prep NP:dest"]),
    (
        _move,
        [
            f"SUBJ {_PUT}|hang NPT:obj (back) (next|close) {_INTO}:prep NP:dest (from NP:origin)"
            f" ({_NEAR} (to) NP:_)",
            f"SUBJ {_PUT}|swap NPT:obj from|out (of) NP:origin (back) (next|close) {_INTO}:prep"
            f" NP:dest ({_NEAR} (to) NP:_)",
            f"SUBJ {_TAKE} NP:obj (up|out) (from|out|off (of) NP:origin) and {_PUT}|hang NPT:_"
            f" (back) (next|close) {_INTO}:prep NP:dest ({_NEAR} (to) NP:_)",
            f"SUBJ {_TAKE} (up|out) NP:obj (from|out|off (of) NP:origin) and {_PUT}|hang NPT:_"
            f" (back) (next|close) {_INTO}:prep NP:dest ({_NEAR} (to) NP:_)",
        ],
    ),
    (
        _move,
        [
            f"SUBJ {_PUT} NP:obj {_INTO}:prep NP:dest",
            f"SUBJ {_PUT} NP:obj from|out (of) NP:origin {_INTO}:prep NP:dest",
            f"SUBJ take|remove|get|pull|grab NP:obj out|from (of) NP:origin and {_PUT} NP:_ (back)"
            f" {_INTO}:prep NP:dest",
            f"SUBJ take|grab|pick (up) NP:obj (up) and {_PUT} NP:_ {_INTO}:prep NP:dest",
        ],
    ),
    (_label, ["NP:tag on NP:box be NPS:value"]),
    (_left_as, ["SUBJ|NPS leave NPT:obj REST", "SUBJ|NPS leave NP:obj"]),
    (
        _cannot_see,
        [
            f"SUBJ {_NOT} see what be inside|in NP:box",
            f"SUBJ {_NOT} see inside|into NP:box",
        ],
    ),
    (_open, ["SUBJ open|close|shut:verb NP:box"]),
    (
        _find_in,
        [
            "SUBJ find|discover|see|notice|spot NPS:things in|inside|on|at NP:place",
            # "spots a colorful seashell partially buried in the sand": how it lies there
            f"SUBJ find|discover|see|notice|spot NPS:things {_PUT}|lie|sit|rest|nestle|embed"
            "|float|trap|tangle in|inside|on|at|under NP:place",
        ],
    ),
    (_see, ["SUBJ see|notice|spot NPS:things"]),
    (_find, ["SUBJ find|discover NPS:things", "SUBJ come|stumble|happen across|upon NPS:things"]),
    (
        _tell,
        [
            "SUBJ (privately|secretly|quietly|publicly:adv) tell|whisper:verb (to) WHO:who that"
            " NP:obj be in|inside NP:place",
            "SUBJ (publicly|privately:adv) claim|announce|say|declare|tell:verb (to)"
            " (everyone|everybody) that NP:obj be in|inside NP:place",
        ],
    ),
    (
        _tell_that,
        [
            f"SUBJ (privately|secretly|quietly|publicly:adv) {_TELL}:verb (to) WHO:who (that) REST",
            f"SUBJ (privately|secretly|quietly|publicly:adv) {_SAY}:verb (to WHO:who) (that) REST",
            f"SUBJ (privately|secretly|quietly|publicly:adv) {_SAY}:verb (that) REST",
        ],
    ),
    (_saw_do, ["SUBJ see|watch|notice|witness WHO:who REST"]),
    (_witnesses, ["SUBJ witness NPS:what REST"]),
    (_notice_that, ["SUBJ see|notice|know|realize|find|discover|observe|check that REST"]),
    (
        _look_for,
        [
            f"SUBJ look|search (again) for NP:obj ({_INTO} NP:_)",
            f"SUBJ go|come to look|search for NP:obj ({_INTO} NP:_)",
        ],
    ),
    (
        _take,
        [
            f"SUBJ {_TAKE} (up|out) NP:obj (of NP:_) (up|out) ((from|out|off) (of) NP:_)",
            f"while SUBJ {_TAKE} NP:obj (for NP:_)",
            # "reaches for a container of blue glaze from her shelf"
            "SUBJ reach (out) for NP:obj (of NP:_) ((from|off|on|in) NP:_)",
        ],
    ),
    (
        _consume,
        [
            f"SUBJ {_CONSUME}:verb (up|away) NPS:value (up|away)",
            "SUBJ throw:verb (away|out) NPS:value (away|out)",
        ],
    ),
    (_replace, ["SUBJ replace|swap NPT:obj with NP:new (REST)"]),
    (_fact("Trait/Value"), ["SUBJ love|like|hate|dislike|enjoy:verb NPS:value"]),
    (_fact("Action/Event"), ["SUBJ lose:verb NPS:value"]),
    (_fact("Identity/Relation"), ["SUBJ have:verb NPS:value"]),
    (_has, ["SUBJ have NP:what REST"]),
    (
        _want,
        [
            "SUBJ want|need|hope|plan|wish|decide|try|intend|choose|attempt|desire|aim|long"
            "|strive:verb to:to REST",
            # "needs it to dry before firing it": what she wants of a thing
            "SUBJ want|need|wish:verb NPT:obj to:to REST",
            "SUBJ be about:verb to:to REST",
        ],
    ),
    (_identity, ["SUBJ be NP:what (REST)"]),
    (
        _perceives,
        [
            f"SUBJ ({_NOT}:neg) notice|see|observe|spot|discover|watch|realize|hear|feel|smell"
            "|taste|check|find|know:verb (that) REST",
        ],
    ),
    (_believes, ["SUBJ believe|think|assume|expect|suppose|trust|remember (that) REST"]),
    (_identity, ["SUBJ be WHO:what (REST)", "SUBJ be VERB:what (REST)"]),
    (_did, [f"(while|as) SUBJ ({_NOT}:neg) (be:be) VERB:verb (REST)"]),
    (
        _state,
        [
            "NP:subj be|become|remain|appear|seem|look|feel|smell|taste|sound|get|turn:verb"
            " (not:neg) REST",
            f"NP:subj {_OF} NPS:of be|become|remain|appear|seem|look|feel|smell|taste|sound|get"
            "|turn:verb (not:neg) REST",
        ],
    ),
    (
        _arrives,
        [
            "NPS:subj VERB:verb (in|out|off|up|down|back|away) into|onto|inside:place_prep"
            " NP:place (REST)",
            f"NP:subj {_OF} NPS|WHO:of VERB:verb (in|out|off|up|down|back|away)"
            " into|onto|inside:place_prep NP:place (REST)",
            "NPS:subj VERB:verb NPT:obj (in|out|off|up|down|back|away) into|onto NP:place (REST)",
            "NPS:subj enter:verb NP:place (REST)",
            "NPS:subj move|carry|push|blow|sweep|wash|bring|throw|knock:verb NPT:obj"
            " (away|off|over) to|into|onto NP:place (REST)",
            f"NP:subj {_OF} NPS|WHO:of enter:verb NP:place (REST)",
        ],
    ),
    (
        _happens,
        [
            f"NPS:subj ({_NOT}:neg) VERB:verb (REST)",
            f"NP:subj {_OF} NPS|WHO:of ({_NOT}:neg) VERB:verb (REST)",
        ],
    ),
    (_state, ["NP:subj have:verb REST"]),
    (
        _comes,
        [
            "NPS:subj come|go|arrive|return|appear|pass|run|fly|walk|leave:verb"
            " (in|out|away|back|by|along|off|over|past|overhead|around|through:part) (REST)",
            f"NP:subj {_OF} NPS|WHO:of come|go|arrive|return|appear|pass|run|fly|walk|leave:verb"
            " (in|out|away|back|by|along|off|over|past|overhead|around|through:part) (REST)",
        ],
    ),
]
