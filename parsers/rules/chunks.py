"""Chunking: proper names, noun phrases and their lists, then clause boundaries.

A sentence is tokenised and lemmatised by the shared blank pipeline, and spaCy ``Matcher``
patterns on shape (``IS_TITLE``), ``LOWER`` and ``LEMMA`` mark proper names ("Xiao Li",
"Han Meimei") and noun phrases ("her basket", "a storage locker", "green_crate"). Names
and noun phrases joined by commas and a final "and" become one list chunk, so the commas
that remain are clause boundaries: ToMBench's comma-spliced stories split into clauses
while "a suitcase, a backpack, and a storage locker" stays whole.

Limits: without a tagger a noun phrase is "an optional determiner, then words that are
not function words"; a bare noun phrase may not contain a frame verb ("sees"), and a
capitalised word that is not a function word is taken for a name.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.resources import files
from typing import NamedTuple

from spacy.lookups import Table
from spacy.tokens import Doc

from .lexicon import (
    CLOSED,
    DETERMINERS,
    FRAME_VERBS,
    NOT_NAMES,
    PERSON_NOUNS,
    PRONOUNS,
    SKIPPED,
    TIME_NOUNS,
    word_classes,
)
from .nlp import get_nlp
from .templates import Mention

__all__ = [
    "ADV",
    "HE",
    "IT",
    "NAME",
    "NAMES",
    "NP",
    "NPS",
    "THEY",
    "Chunk",
    "Clause",
    "clear_word_caches",
    "split",
]

NAME, NAMES, NP, NPS = "<name>", "<names>", "<np>", "<nps>"
ADV = "<adv>"
"""An "-ly" adverb the frames skip ("the vegetables are freshly picked")."""
IT, THEY, HE = "<it>", "<they>", "<he>"
_PRONOUN_SYMBOLS = {"it": IT, "they": THEY, "he": HE, "she": HE}
_BOUNDARIES = frozenset({",", ";", ":"})
_FINAL_PUNCT = frozenset({".", "!", "?"})
_LIST_SEPARATORS = frozenset({(",",), ("and",), ("or",), (",", "and"), (",", "or")})
_LEADING = frozenset({"and", "but", "so", "after", "when", "once", "as"})


@dataclass(frozen=True, slots=True)
class Chunk:
    """A name, a noun phrase, a list of either, a pronoun, or one other word (its lemma)."""

    sym: str
    start: int
    end: int
    names: tuple[str, ...] = ()
    items: tuple[Mention, ...] = ()
    genders: tuple[str | None, ...] = ()
    """Per name, "he", "she" or None when the text says ("his mother"); for a "he"/"she"
    pronoun, its gender."""


@dataclass(frozen=True, slots=True)
class Clause:
    """One clause: its verbatim text and its chunks; ``meta`` for task instructions."""

    text: str
    chunks: tuple[Chunk, ...]
    meta: bool = False


def split(sentence: str) -> tuple[Clause, ...]:
    """Chunk ``sentence`` and cut it into clauses at the commas lists do not use.

    Parameters
    ----------
    sentence : str
        One sentence, verbatim.

    Returns
    -------
    tuple of Clause
        The clauses in order; the last keeps the sentence's final punctuation.

    Examples
    --------
    >>> [c.text for c in split("They see a box, a bag, and a safe, Li Lei leaves.")]
    ['They see a box, a bag, and a safe', 'Li Lei leaves.']
    """
    if _META.match(sentence):
        return (Clause(sentence.strip(), (), meta=True),)
    # The tokenizer alone: the lemmas the chunker reads come from ``_lemma`` (the pipeline's
    # own lookup table, cached per word), which spares the lemmatizer's per-token pass.
    doc = get_nlp().make_doc(sentence)
    if not len(doc):
        return ()
    chunks = _merge_lists(_adjectives(_people(_chunk(doc, sentence)), sentence))
    end = len(chunks)
    while end and chunks[end - 1].sym in _FINAL_PUNCT:
        end -= 1
    text_end = len(sentence.rstrip())
    clauses: list[Clause] = []
    current: list[Chunk] = []
    for c in chunks[:end]:
        if c.sym in _BOUNDARIES:
            if all(x.sym in SKIPPED or x.sym in _LEADING or x.sym == ADV for x in current):
                # "Later, Sally woke up": an adverb alone opens the next clause.
                continue
            _close(sentence, current, clauses, None)
            current = []
        else:
            current.append(c)
    _close(sentence, current, clauses, text_end)
    return tuple(clauses)


def _close(sentence: str, chunks: list[Chunk], out: list[Clause], end: int | None) -> None:
    if not chunks:
        return
    text = sentence[chunks[0].start : end if end is not None else chunks[-1].end]
    chunks = [c for c in chunks if c.sym not in SKIPPED] or chunks
    while chunks and chunks[0].sym in _LEADING:
        chunks = chunks[1:]
    out.append(Clause(text, tuple(chunks)))


# Task instructions that some datasets leave in the story field (Hi-ToM's "Read the
# following story and answer ..."): kept as sentences, read as no event.
_META = re.compile(
    r"\s*(?:read\s+the\s+(?:following|story)|answer\s+(?:the|this|these)|please)\b", re.I
)


def clear_word_caches() -> None:
    """Forget the per-word lemmas and lexeme attributes (for cold-start timings)."""
    _word.cache_clear()
    _lemma.cache_clear()


@lru_cache(maxsize=1 << 16)
def _lemma(text: str) -> str:
    """A word's lemma, lower-cased, as the pipeline's lookup lemmatizer gives it (by the
    word as written: its table is case-sensitive)."""
    return str(_lemma_table().get(text, text)).lower()


@cache
def _lemma_table() -> Table:
    return get_nlp().get_pipe("lemmatizer").lookups.get_table("lemma_lookup")


@cache
def _frame_forms() -> frozenset[str]:
    """Every lower-case form whose lemma is a frame verb ("sees", "took", "texted")."""
    data = files("spacy_lookups_data") / "data" / "en_lemma_lookup.json.gz"
    forms = json.loads(gzip.decompress(data.read_bytes()))
    table = _lemma_table()
    added = [f for v in FRAME_VERBS for f in (v + "s", v + "es", v[:-1] + "ed", v + "ed",
             v[:-1] + "ing", v + "ing")]  # fmt: skip
    return frozenset(
        w.lower() for w in (*forms, *added, *FRAME_VERBS) if table.get(w, w) in FRAME_VERBS
    )


@cache
def _word_sets() -> tuple[frozenset[str], frozenset[str]]:
    closed = CLOSED | {"'s", "'"}
    return closed, closed | _frame_forms()


def _phrases(toks: list[_Tok]) -> list[tuple[bool, int, int]]:
    """Proper names and noun phrases: (is a name, start, end), longest first, then leftmost.

    The patterns, on the word as written: a name is a capitalised word that is no function
    word, and runs of them ("Xiao Li"); a noun phrase is a determiner, a word that is no
    function word, then words that are neither function words nor forms of a frame verb
    ("the box sees" is never one noun); the same with a possessive inside ("the oven's
    temperature", "a farmer's market", "Sally's basket"); or a run of such words without
    a capital. Of each kind the longest matches are kept, never overlapping (spaCy's
    ``Matcher`` with ``greedy="LONGEST"``, which this replaces: it built a Token object per
    word twice over and was a sixth of ToMi's parsing).

    Examples
    --------
    >>> toks = [_Tok(*_word(w), 0, len(w)) for w in "Xiao Li sees the green box".split()]
    >>> _phrases(toks)
    [(False, 3, 6), (True, 0, 2)]
    """
    closed, verbs = _word_sets()
    n = len(toks)
    name = [t.is_title and t.lower not in NOT_NAMES for t in toks]
    word = [not t.is_punct and t.lower not in closed for t in toks]
    more = [not t.is_punct and t.lower not in verbs for t in toks]
    bare = [m and not t.is_title for m, t in zip(more, toks, strict=True)]
    det = [t.lower in DETERMINERS for t in toks]

    def run(flags: list[bool], i: int) -> int:  # the end of the run of flags from i
        while i < n and flags[i]:
            i += 1
        return i

    def possessive(s: int, k: int, out: list[tuple[int, int]]) -> None:
        # "... 's word more*" from k
        if k + 1 < n and toks[k].lower == "'s" and word[k + 1]:
            out.extend((s, e) for e in range(k + 2, run(more, k + 2) + 1))

    names: list[tuple[int, int]] = []
    nps: list[tuple[int, int]] = []
    for s in range(n):
        if name[s]:
            e = run(name, s)
            names.extend((s, k) for k in range(s + 1, e + 1))
            possessive(s, e, nps)
        if bare[s]:
            nps.extend((s, k) for k in range(s + 1, run(bare, s) + 1))
        if det[s] and s + 1 < n and word[s + 1]:
            e = run(more, s + 2)
            nps.extend((s, k) for k in range(s + 2, e + 1))
            possessive(s, e, nps)
    found = [(True, *m) for m in _longest(names)] + [(False, *m) for m in _longest(nps)]
    return sorted(found, key=lambda m: (m[1] - m[2], m[1]))


def _longest(matches: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest matches first (then the leftmost), each kept unless it overlaps one kept."""
    kept: list[tuple[int, int]] = []
    taken: set[int] = set()
    for start, end in sorted(set(matches), key=lambda m: (m[0] - m[1], m[0])):
        if taken.isdisjoint(range(start, end)):
            kept.append((start, end))
            taken.update(range(start, end))
    return kept


# Words after which a new clause, with its own verb, may start.
_CLAUSE_OPENERS = frozenset(
    {",", ";", ":", "and", "but", "or", "that", "which", "who", "while", "when", "because",
     "as", "before", "after", "so", "if", "until", "once", "where", "though", "although"}
)  # fmt: skip
_SUBJECT_WORDS = frozenset({"he", "she", "they", "it", "i", "we", "you", "who", "which"})
_BE = frozenset({"is", "are", "was", "were", "be", "been", "being", "am"})
# After these a word is a noun, never a verb ("the cans", "in rolls", "his painting").
_NOUN_CONTEXT = DETERMINERS | frozenset(
    {"of", "in", "on", "at", "with", "for", "by", "from", "no", "any", "every", "each", "all"}
)
_AUX = frozenset({"do", "does", "did", "has", "had", "have", "having"})
_MODAL = frozenset(
    {"not", "n't", "never", "can", "could", "will", "would", "should", "may", "might", "must",
     "do", "does", "did"}
)  # fmt: skip
_PARTICLES = frozenset({"up", "out", "down", "off", "away", "over", "back", "around", "by"})
_AFTER_PLACE = frozenset(
    {"in", "on", "at", "to", "and", "or", "with", "for", "by", "near", "after", "before",
     "while", "when", "because", "so", "early", "late", "today", "tonight", "again", "later"}
)  # fmt: skip


def _adverbs(toks: list[_Tok]) -> frozenset[int]:
    """ "-ly" adverbs ("freshly", "carefully"): never part of a noun phrase."""
    adverbs = word_classes()[3]
    return frozenset(
        i
        for i, t in enumerate(toks)
        if t.lower.endswith("ly") and t.lower in adverbs and t.lower not in CLOSED
    )


def _verb_tokens(toks: list[_Tok]) -> frozenset[int]:
    """Positions of verbs the frame lexicon does not list: "Kofi repaired his net".

    Without a tagger, a word is taken for a verb when its lemma is an English verb
    (``word_classes``) and its form or place says so: an inflected form ("-s", "-ed",
    irregular past) as the first verb of its clause, not right after an article or a
    preposition ("the cans" is a noun, "a storm rolls in" a verb); an "-ing" or "-ed"
    form after "be" ("is walking", "is plugged in") or opening a clause ("..., causing
    the flowers to wilt"); a base form after "to" when it is no noun or an object follows
    ("to buy new threads", not "to school in the morning"). One clause has one such
    finite verb, so "knocks over the paint cans" keeps "cans" a noun.
    """
    verbs, nouns, adjectives, _ = word_classes()
    out: set[int] = set()
    finite = False  # the current clause already has its verb
    subject = False  # ... and a word that may be its subject
    relative = False  # a relative without "that" opened: its verb is not the clause's
    awaiting = False  # ... and its verb was read: the clause's own verb is still to come
    prev_lemma = ""
    modifier = False  # the word before was a frame verb's form after an article
    prev = ""  # the previous word, adverbs of the closed list skipped ("has just finished")
    before = ""  # the word before that
    adverbs = word_classes()[3]
    for i, tok in enumerate(toks):
        low = tok.lower
        if low in SKIPPED or (low.endswith("ly") and low in adverbs and low not in CLOSED):
            continue  # "..., severely weakening": the adverb is not the word before
        if low == "'s" and not _contracted(toks, i):
            # "the oven's temperature appears": a possessive, not "has"; the word after it
            # is its noun ("Landon's eyes lit up")
            modifier = True
            continue
        before, prev, last = prev, low, (prev, before)
        head_lemma, prev_lemma = prev_lemma, tok.lemma
        if low in _CLAUSE_OPENERS:
            # "... and listens": the same subject; "which settles", "a stream that appears":
            # the relative's subject
            finite = awaiting = False
            subject = (subject and low in ("and", "but", "or")) or low in ("who", "which")
            subject = subject or (low == "that" and _relative_head(*last, head_lemma))
            continue
        if low in _BE or low in _AUX:
            # "the coral she is observing appears": the relative's auxiliary
            finite = finite or not relative
            awaiting = awaiting and not finite
            continue
        lemma = tok.lemma
        if modifier:
            # "the lost patterns", "an open window": the word after the modifier is its noun
            modifier, subject = False, True
            continue
        if lemma in FRAME_VERBS and last[0] in DETERMINERS:
            # "an open window", "the lost patterns": a noun's modifier; "the drop": a noun
            modifier = low in adjectives
            continue
        if lemma in FRAME_VERBS and last[1] in DETERMINERS and last[0] in adjectives:
            continue  # "a sudden drop in temperature": a noun
        if lemma in FRAME_VERBS:
            if low.endswith("ing") and i and last[0] not in _BE and head_lemma in nouns:
                continue  # "a group of children playing nearby kicks ...": a participle
            # "the map she carries with her indicates ...": the relative's verb leaves the
            # clause's own verb to come.
            finite, awaiting, relative = not relative, relative, False
            continue
        if low in _RELATIVE_SUBJECTS and _relative_head(*last, head_lemma):
            # "the coral she observes appears ...": a relative clause without "that" opens
            finite, relative = False, True
        if low in _SUBJECT_WORDS or (low not in CLOSED and not tok.is_punct):
            was_subject, subject = subject, True
        else:
            continue
        p, pp = last
        if awaiting and p in ("her", "him", "them", "it") and low != lemma and lemma in verbs:
            out.add(i)  # "the map she carries with her indicates ...": the clause's verb
            finite = True
            awaiting = False
            continue
        if lemma not in verbs or (i and tok.is_title) or p in _NOUN_CONTEXT or p == "-":
            continue
        if i + 1 < len(toks) and toks[i + 1].lower == "-":
            continue  # "multi-layered", "high-quality": one word
        if p.endswith("ly") and pp in _NOUN_CONTEXT:
            continue  # "a school of brightly colored fish": an adjective
        nxt = toks[i + 1].lower if i + 1 < len(toks) else ""
        noun_before = p in nouns and p not in adjectives and p not in CLOSED
        if low.endswith("ing"):
            # "is walking", "..., causing", "a gardener working in the park"
            # (after a noun only when a function word follows: "clothing rack" is a noun)
            opens = not nxt or nxt in CLOSED or not nxt[0].isalpha()
            if p in _BE or p in _CLAUSE_OPENERS or not i or (finite and noun_before and opens):
                out.add(i)
        elif p in _MODAL and low == lemma:
            out.add(i)  # "does not hear", "can feel", "will notice"
        elif p == "to":
            # "to school in the morning", "to market." are places; "to buy new threads" is
            # a verb with its object.
            place = not nxt or nxt in _AFTER_PLACE or not nxt[0].isalpha()
            if low == lemma and (lemma not in nouns or nxt in _PARTICLES or not place):
                out.add(i)
        elif low != lemma and low.endswith("ed") and p in _BE | _AUX:
            out.add(i)  # a passive, a state or a perfect: "is plugged in", "has prepared"
        elif (
            was_subject
            and not finite
            # "the lighting conditions are": a plural noun ("she bought are": a verb)
            and not (nxt in _BE and p not in _SUBJECT_WORDS and lemma in nouns)
            and (
                low != lemma
                # a base form after a plural: "the bees appear", "vandals damage the ..."
                or (
                    (lemma not in nouns or nxt in DETERMINERS)
                    and p.endswith("s")
                    and p != p.rstrip("s")
                )
            )
        ):
            # "Kofi repaired", "a storm rolls"; a base form after a plural: "the bees appear"
            out.add(i)
            finite, awaiting, relative = not relative, relative, False
    return frozenset(out)


def _contracted(toks: list[_Tok], i: int) -> bool:
    """Whether the "'s" at ``i`` is "is" or "has" ("it's raining", "she's been"), not a
    possessive ("the aquarium's heating system"): after a pronoun, or before "been"."""
    nxt = toks[i + 1].lower if i + 1 < len(toks) else ""
    prev = toks[i - 1].lower if i else ""
    return prev in PRONOUNS or nxt == "been"


_RELATIVE_SUBJECTS = frozenset({"he", "she", "they", "i", "we", "you"})


def _relative_head(p: str, pp: str, lemma: str) -> bool:
    """Whether a pronoun after ``pp p`` (``p``'s lemma ``lemma``) opens a relative clause
    without "that": ``p`` is a noun of a noun phrase ("the coral she observes", "the
    vegetables she bought"), not a word of time ("one day she walks") or a function word."""
    nouns, adjectives = word_classes()[1:3]
    return (
        lemma in nouns
        and p not in CLOSED
        and p not in TIME_NOUNS
        and (pp in DETERMINERS or pp == "of" or (pp in adjectives and pp not in CLOSED))
    )


class _Tok(NamedTuple):
    """What the chunker reads of a token, read once (a Doc builds a Token per access)."""

    lower: str
    lemma: str
    is_punct: bool
    is_title: bool
    idx: int
    length: int


@lru_cache(maxsize=1 << 16)
def _word(text: str) -> tuple[str, str, bool, bool]:
    """(lower, lemma, is_punct, is_title) of a word, as its spaCy lexeme has them: the same
    for every occurrence, so read once per word rather than once per token."""
    lex = get_nlp().vocab[text]
    lower = lex.lower_
    # The lookup table reads "as" as the article "a"; here "as" opens a clause ("as she walks
    # closer"). The shared table is left alone: the grounding's token matcher reads it too.
    return lower, "as" if lower == "as" else _lemma(text), lex.is_punct, lex.is_title


def _chunk(doc: Doc, text: str) -> list[Chunk]:
    # The sentence is the doc's text: Doc.text would join every token again.
    toks = [_Tok(*_word(w), i, len(w)) for w, i in ((t.text, t.idx) for t in doc)]
    spans: dict[int, tuple[int, bool]] = {}
    taken: set[int] = set()
    verbs = _verb_tokens(toks)
    adverbs = _adverbs(toks)
    # Longest first, then leftmost, never overlapping (what spacy.util.filter_spans does,
    # without building Span objects).
    for is_name, start, end in _phrases(toks):
        if taken.isdisjoint(range(start, end)):
            # A verb inside a noun phrase ends it: "a storm rolls" is "a storm" + "rolls".
            a = start
            for v in sorted((verbs | adverbs).intersection(range(start, end))):
                if _nominal(toks, a, v):
                    spans[a] = (v, is_name)
                a = v + 1
            if _nominal(toks, a, end):
                spans[a] = (end, is_name)
            taken.update(range(start, end))
    out: list[Chunk] = []
    i = 0
    while i < len(toks):
        if i in spans:
            end, is_name = spans[i]
            out.append(_span_chunk(toks[i:end], is_name, text))
            i = end
            continue
        tok = toks[i]
        low = tok.lower
        stop = tok.idx + tok.length
        if i in adverbs:
            out.append(Chunk(ADV, tok.idx, stop))
        elif low in PRONOUNS:
            ref = PRONOUNS[low]
            items = (Mention("it", pronoun=True),) if ref == "it" else ()
            genders = (ref,) if ref in ("he", "she") else ()
            out.append(Chunk(_PRONOUN_SYMBOLS[ref], tok.idx, stop, items=items, genders=genders))
        elif _noun_after(toks, i, out):
            out[-1] = _extended(out[-1], tok, text)  # "the jar swap", "the taro leaves"
        else:
            out.append(Chunk(low if tok.is_punct else tok.lemma, tok.idx, stop))
        i += 1
    return out


def _noun_after(toks: list[_Tok], i: int, out: list[Chunk]) -> bool:
    """Whether the frame verb at ``i`` ends the noun phrase before it: the clause already
    has its verb, and nothing but punctuation, a preposition or "and" follows."""
    tok = toks[i]
    if tok.lemma not in FRAME_VERBS or not out or out[-1].sym != NP or out[-1].end != tok.idx - 1:
        return False
    nxt = toks[i + 1].lower if i + 1 < len(toks) else "."
    if nxt in _BE and i and toks[i - 1].lower not in DETERMINERS:
        return True  # "the taro leaves are fresh": a plural noun before its verb
    if nxt == "of":
        return True  # "a brand-new set of paintbrushes": a noun's head
    words = out[-1].items[0].text.lower().split() if out[-1].items else []
    adjectives, nouns = word_classes()[2], word_classes()[1]
    if len(words) == 1 and words[0] in adjectives and words[0] not in nouns:
        return True  # "a sudden drop in temperature": an adjective's noun
    if not (nxt in _AFTER_PLACE or not nxt[0].isalnum()):
        return False
    verbs = word_classes()[0]
    for c in reversed(out[:-1]):
        if c.sym in _CLAUSE_OPENERS:
            return False
        if c.sym in FRAME_VERBS or (c.sym in verbs and c.sym not in CLOSED):
            return True
    return False


def _extended(np: Chunk, tok: _Tok, sentence: str) -> Chunk:
    text = np.items[0].text + sentence[np.end : tok.idx + tok.length]
    key = " ".join(
        [*text.lower().split()[:-1], tok.lemma if tok.lower.endswith("s") else tok.lower]
    )
    return Chunk(NP, np.start, tok.idx + tok.length, items=(Mention(text, key),))


def _nominal(toks: list[_Tok], a: int, b: int) -> bool:
    """Whether tokens a..b hold a word past any determiners and possessives."""
    return any(t.lower not in DETERMINERS and t.lower != "'s" for t in toks[a:b]) and (
        toks[b - 1].lower != "'s"
    )


def _span_chunk(toks: list[_Tok], is_name: bool, sentence: str) -> Chunk:
    start, end = toks[0].idx, toks[-1].idx + toks[-1].length
    if is_name:
        return Chunk(NAME, start, end, names=(sentence[start:end],))
    lowers = [t.lower for t in toks]
    if lowers[0] in DETERMINERS:
        toks = toks[1:]
    elif "'s" in lowers:  # "Sally's basket": the possessor goes
        toks = toks[lowers.index("'s") + 1 :]
    head = toks[-1]
    text = sentence[toks[0].idx : head.idx + head.length]
    key = " ".join([*(t.lower for t in toks[:-1]), head.lemma])
    return Chunk(NP, start, end, items=(Mention(text, key),))


def _adjectives(chunks: list[Chunk], sentence: str) -> list[Chunk]:
    """One noun phrase from "a smooth, flawless canvas" and "high-quality threads".

    A comma after a noun phrase that ends in an adjective, before one without an article,
    separates adjectives, not clauses; words joined by a hyphen are one word.
    """
    adjectives = word_classes()[2]
    out: list[Chunk] = []
    i = 0
    while i < len(chunks):
        c = chunks[i]
        nxt = chunks[i + 1] if i + 1 < len(chunks) else None
        after = chunks[i + 2] if i + 2 < len(chunks) else None
        if (
            out
            and nxt is not None
            and c.sym == "-"
            and out[-1].end == c.start
            and c.end == nxt.start
            and nxt.sym not in _FINAL_PUNCT
        ):
            out[-1] = _joined(out[-1], nxt, sentence)  # "high" "-" "quality threads"
            i += 2
            continue
        if (
            c.sym == NP
            and nxt is not None
            and nxt.sym in ("and", "but", "or")
            and after is not None
            and after.sym == NP
            and _adjective_pair(c, nxt, after, sentence)
        ):
            out.append(_joined(c, after, sentence))  # "a brief but heavy rain shower"
            i += 3
            continue
        if (
            c.sym == NP
            and nxt is not None
            and nxt.sym == ","
            and after is not None
            and after.sym == NP
            and c.items[0].key.rsplit(" ", 1)[-1] in adjectives
            and sentence[after.start : after.end].split(" ", 1)[0].lower() not in DETERMINERS
        ):
            out.append(_joined(c, after, sentence))  # "a smooth" "," "flawless canvas"
            i += 3
            continue
        out.append(c)
        i += 1
    return out


def _adjective_pair(a: Chunk, conj: Chunk, b: Chunk, sentence: str) -> bool:
    """Whether "a X and|but Y Z" coordinates adjectives of one noun ("a beautiful and rare
    species", "a brief but heavy rain shower"), not two things ("his net and boat"): X
    alone after an article, an adjective (with "but", one that is also a noun), and no
    article before Y."""
    words = sentence[a.start : a.end].lower().split()
    _, nouns, adjectives, _ = word_classes()
    if len(words) != 2 or words[0] not in DETERMINERS or words[1] not in adjectives:
        return False
    if words[1] in nouns and conj.sym != "but":
        return False
    return sentence[b.start : b.end].split(" ", 1)[0].lower() not in DETERMINERS


def _joined(a: Chunk, b: Chunk, sentence: str) -> Chunk:
    """Chunks ``a`` .. ``b`` as one noun phrase named by its words, headed by ``b``'s."""
    first = a.items[0].text if a.sym == NP else sentence[a.start : a.end]
    text = first + sentence[a.end : b.end]
    key = text.lower()
    if b.sym == NP and text.endswith(b.items[0].text):  # the head's lemma: "... threads"
        key = key[: len(key) - len(b.items[0].text)] + b.items[0].key
    return Chunk(NP, a.start, b.end, items=(Mention(text, key),))


def _people(chunks: list[Chunk]) -> list[Chunk]:
    """Noun phrases that name a person act as names: "his mother", "her brother Leo"."""
    out: list[Chunk] = []
    for c in chunks:
        head = c.items[0].key.rsplit(" ", 1)[-1] if c.sym == NP else ""
        if c.sym == NP and head not in PERSON_NOUNS:
            named = _apposition(c)
            if named is not None:
                out.append(named)
                continue
        if head not in PERSON_NOUNS:
            if c.sym == NAME and out and out[-1].sym == NAME and out[-1].items:
                # "her brother Leo": the name, with the noun's gender.
                noun = out.pop()
                c = Chunk(NAME, noun.start, c.end, names=c.names, genders=noun.genders)
            out.append(c)
            continue
        text = c.items[0].text
        out.append(
            Chunk(NAME, c.start, c.end, names=(text,), items=c.items, genders=(PERSON_NOUNS[head],))
        )
    return out


def _apposition(c: Chunk) -> Chunk | None:
    """ "her brother Leo" chunked as one noun phrase: the name Leo, with the noun's gender."""
    words = c.items[0].text.split()
    for k, w in enumerate(words[:-1]):
        if w.lower() in PERSON_NOUNS and all(x.istitle() for x in words[k + 1 :]):
            name = " ".join(words[k + 1 :])
            return Chunk(NAME, c.start, c.end, names=(name,), genders=(PERSON_NOUNS[w.lower()],))
    return None


def _merge_lists(chunks: list[Chunk]) -> list[Chunk]:
    out: list[Chunk] = []
    i = 0
    while i < len(chunks):
        c = chunks[i]
        if c.sym in (NAME, NP):
            j = _list_end(chunks, i)
            if j > i + 1:
                members = [m for m in chunks[i:j] if m.sym == c.sym]
                out.append(
                    Chunk(
                        NAMES if c.sym == NAME else NPS,
                        c.start,
                        chunks[j - 1].end,
                        names=tuple(n for m in members for n in m.names),
                        items=tuple(x for m in members for x in m.items),
                        genders=tuple(
                            g for m in members for g in (m.genders or (None,) * len(m.names))
                        ),
                    )
                )
                i = j
                continue
        out.append(c)
        i += 1
    return out


def _list_end(chunks: list[Chunk], i: int) -> int:
    """End of the "A, B, and C" list starting at ``i`` (``i + 1`` if there is none)."""
    sym = chunks[i].sym
    j = i + 1
    while True:
        seps = 0
        while j + seps < len(chunks) and chunks[j + seps].sym in (",", "and", "or"):
            seps += 1
        joined = tuple(c.sym for c in chunks[j : j + seps])
        if joined not in _LIST_SEPARATORS or j + seps >= len(chunks):
            return i + 1
        if chunks[j + seps].sym != sym:
            return i + 1
        j += seps + 1
        if joined != (",",):  # "and" or ", and" closes the list
            return j
