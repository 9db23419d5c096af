"""Read English questions about a story into queries on a belief graph, and answer them.

The reader is a small grammar, not a list of templates: a question is an optional lead-in
clause, then one of four heads (``where``, ``what``, ``who``, or a yes/no auxiliary), and
the parts below them combine freely:

- a **holder chain**: ``A thinks (that) B believes (that) ...`` to any depth, where each
  holder is a name ("Sally", "Xiao Li") or a possessive phrase naming an actor ("her mother",
  "Tom's sister");
- a **thing**: a noun phrase with an article or a possessive ("the ball", "her phone",
  "Sally's keys"), resolved to the story's things;
- a **statement**: ``THING is (not) in/on/under/... THING``, ``THING is (not) STATE``
  ("the jar is empty") or ``THING contains THING``;
- a **time**: now / really / currently (the end), or at the beginning / before /
  originally / at first (the first fact).

Forms (case-insensitive, trailing "?" optional):

- reality: "Where is the ball (now | really)?", "What is in the box?"
- memory: "Where was the ball at the beginning?"
- beliefs: "Where will A look for the ball?", "Where does A think B thinks the ball is?",
  "What does A think is in the box?", "What does A expect to find in the box?"
- yes/no facts and beliefs: "Is the ball in the box?", "Does A think (that) the ball is in
  the box?", "Does A think B thinks the jar is empty?"
- knowledge: "Does A know (that) the ball is in the box?", "Is A aware that ...?",
  "Does A know where the ball is?", "Who knows where the ball is?"
- the label of a container: "What should be in the box?"
- a hypothetical lead-in: "After B returns to the kitchen, where does A look for the ball?"
  adds the clause as an event first (read with the offline parser). For "expect to find"
  questions the expectation is the one held as the event begins, so it is read before it.

Names are resolved by a stable rule (exact spelling first, then ignoring case, then the
normalised noun; ties go to the first mention in the story), never by set order, so the
same story answers the same way under every ``PYTHONHASHSEED``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from beliefgraph.errors import BeliefGraphError, UnsupportedQuestionError
from beliefgraph.explain import explain, phrase_chain, upper_first
from beliefgraph.models import Answer
from beliefgraph.text import normalise

if TYPE_CHECKING:
    from beliefgraph.graph import BeliefGraph
    from beliefgraph.models import Belief

__all__ = ["SUPPORTED_FORMS", "Query", "answer", "read_question"]

QueryKind = Literal["reality", "memory", "belief", "label", "knows", "thinks", "who_knows"]

SUPPORTED_FORMS = (
    "Where is the ball (now / really)?",
    "Where was the ball at the beginning?",
    "What is in the box?",
    "What should be in the box?",
    "Where will Sally look for the ball?",
    "Where does Anne think Sally thinks the ball is?",
    "What does Sally think is in the box?",
    "What does Sally expect to find in the box?",
    "Is the ball in the box?",
    "Does Sally think (that) the ball is in the box?",
    "Does Sally know (that) the ball is in the box?",
    "Is Sally aware that the ball is in the box?",
    "Does Sally know where the ball is?",
    "Who knows where the ball is?",
    "After Sally comes back, where will she look for the ball?",
)
"""One example of each form the reader understands (listed in every rejection)."""


@dataclass(frozen=True)
class Query:
    """What a question asks: whose belief, about which variable, read when."""

    kind: QueryKind
    """reality, memory, belief (a value), label, knows / thinks (yes/no), who_knows."""
    chain: tuple[str, ...]
    """The holders, outermost first, as written (resolved against the story later)."""
    target: str
    """The thing asked about, as written without its article or possessive."""
    relation: str
    """``in`` (where a thing is), ``contains`` (what a container holds), ``be`` (a state)."""
    lead_in: str | None = None
    """A hypothetical clause to add as an event first ("After ..., ")."""
    before_lead_in: bool = False
    """Read the belief as the lead-in event begins (expectations)."""
    value: str | None = None
    """For yes/no questions: the value the statement gives; None for "know where"."""
    negated: bool = False
    """For yes/no questions: the statement says "is not"."""


# -- the grammar's pieces ------------------------------------------------------------------
_AUX_DO = r"(?:will|would|does|do|did)"
_BE = r"(?:is|are|was|were)"
_DET = r"(?:the|a|an|this|that|his|her|their|its|my|your|our|[\w.\- ]+?'s?)"
_THINK = r"(?:thinks?|believes?|thought|believed)"
_KNOW = r"(?:knows?|knew|realis(?:e|es)|realiz(?:e|es))"
_PREP = (
    r"(?:in|inside|into|on|onto|under|underneath|beneath|behind|at|by|next to|near|"
    r"in front of|on top of)"
)
_NOW = r"(?:now|really|currently|right now|at the end|in reality|actually)"
_BEFORE = r"(?:at the beginning|in the beginning|before|initially|at first|originally|at the start)"

_LEAD_IN = re.compile(r"^(?:after|once|when)\s+(?P<clause>.+?),\s*(?P<rest>.+)$", re.I)
_SPLIT_THINK = re.compile(rf"\s+{_THINK}\s+(?:that\s+)?", re.I)
_WHERE_FACT = re.compile(
    rf"^where {_BE} (?P<t>.+?)(?: (?P<now>{_NOW})| (?P<before>{_BEFORE}))?$", re.I
)
_WHAT_IN = re.compile(rf"^what {_BE} (?:{_PREP}) (?P<t>.+?)(?: {_NOW})?$", re.I)
_WHAT_LABEL = re.compile(r"^what should be (?:in|inside) (?P<t>.+)$", re.I)
_WHERE_BELIEF = re.compile(rf"^where {_AUX_DO} (?P<rest>.+)$", re.I)
_WHAT_BELIEF = re.compile(rf"^what {_AUX_DO} (?P<rest>.+)$", re.I)
_WHO_KNOWS = re.compile(rf"^who {_KNOW} where (?P<t>.+?) {_BE}(?: {_NOW})?$", re.I)
_YES_NO = re.compile(rf"^(?P<aux>{_AUX_DO}|{_BE}) (?P<rest>.+)$", re.I)
# The last part of a belief chain: where someone looks, or where a thing is.
_LAST_IS = re.compile(rf"^(?:really\s+)?(?P<t>.+?) {_BE}(?: {_NOW})?$", re.I)
_LAST_LOOK = re.compile(
    r"^(?P<who>.+?) (?:(?:will|would) )?(?:really )?"
    r"(?:look|looks|search|searches|seek|seeks|go|goes) (?:for|to find) (?P<t>.+?)"
    r"(?: first)?$",
    re.I,
)
_LAST_REALLY = re.compile(r"^(?P<who>.+?) really$", re.I)
_LAST_EXPECT = re.compile(
    r"^(?P<who>.+?) (?:expects?|thinks?) to find (?:in|inside) (?P<t>.+)$", re.I
)
_LAST_IS_IN = re.compile(rf"^{_BE} (?:{_PREP}) (?P<t>.+?)(?: {_NOW})?$", re.I)
# Statements inside yes/no questions.
_STATE_IN = re.compile(rf"^(?P<s>.+?) {_BE}(?P<neg> not)? (?:{_PREP}) (?P<v>.+)$", re.I)
_STATE_CONTAINS = re.compile(
    r"^(?P<s>.+?) (?P<neg>does not |doesn't )?(?:contains?|holds?) (?P<v>.+)$", re.I
)
_STATE_BE = re.compile(rf"^(?P<s>.+?) {_BE}(?P<neg> not)? (?P<v>[\w\- ]+)$", re.I)
_KNOW_WHERE = re.compile(rf"^where (?P<t>.+?) {_BE}(?: {_NOW})?$", re.I)
_HOLDER_VERB = re.compile(
    rf"^(?P<who>.+?) (?P<verb>{_THINK}|think|believe|{_KNOW}|know|realize|realise) "
    r"(?:that )?(?P<rest>.+)$",
    re.I,
)
_FACT = re.compile(rf"^(?P<s>.+?) (?P<p>(?:not )?(?:{_PREP}) .+|(?:not )?[\w\-]+)$", re.I)
_AWARE = re.compile(r"^(?P<who>.+?) aware (?:that |of )?(?P<rest>.+)$", re.I)
_DETERMINER = re.compile(rf"^{_DET}\s+", re.I)


def read_question(question: str) -> Query:
    """Parse a question into a ``Query`` (names not yet checked against a story).

    Raises
    ------
    UnsupportedQuestionError
        For a form the grammar does not cover; the message lists the supported forms.

    Examples
    --------
    >>> read_question("Where does Noah think Liam thinks the lemon is?").chain
    ('Noah', 'Liam')
    >>> q = read_question("Where will Sally look for the ball?")
    >>> q.kind, q.chain, q.target
    ('belief', ('Sally',), 'ball')
    >>> read_question("Where is the phone?").kind
    'reality'
    >>> q = read_question("Does Tom know that the jar is empty?")
    >>> q.kind, q.chain, q.target, q.relation, q.value
    ('knows', ('Tom',), 'jar', 'be', 'empty')
    >>> read_question("Is Ken aware that the apple is in the fridge?").value
    'fridge'
    >>> q = read_question("What does Sally think is in the box?")
    >>> q.kind, q.chain, q.target, q.relation
    ('belief', ('Sally',), 'box', 'contains')
    >>> read_question("Where does Priya think her phone is?").target
    'phone'
    >>> read_question("Where will his mother look for the keys?").chain
    ('his mother',)
    >>> q = read_question("Who knows where the coin is?")
    >>> q.kind, q.target
    ('who_knows', 'coin')
    >>> q = read_question("Does Sally think the ball is in the box?")
    >>> q.kind, q.chain, q.value
    ('thinks', ('Sally',), 'box')
    >>> read_question("Does Anne think that Sally thinks the ball is not in the box?").chain
    ('Anne', 'Sally')
    >>> read_question("Does Tom know where the keys are?").value is None
    True
    """
    q = question.strip().rstrip("?").strip()
    q = re.sub(r"\s+", " ", q).replace("\u2019", "'")
    lead_in = None
    if m := _LEAD_IN.match(q):
        lead_in, q = m["clause"], m["rest"]
    query = _read_core(q, lead_in)
    if query is None:
        raise UnsupportedQuestionError(
            f"unsupported question {question!r}: the supported forms are "
            + "; ".join(f'"{f}"' for f in SUPPORTED_FORMS)
        )
    return query


def _read_core(q: str, lead_in: str | None) -> Query | None:
    if m := _WHERE_FACT.match(q):
        kind: QueryKind = "memory" if m["before"] else "reality"
        return Query(kind, (), _thing(m["t"]), "in", lead_in)
    if m := _WHAT_LABEL.match(q):
        return Query("label", (), _thing(m["t"]), "contains", lead_in)
    if m := _WHAT_IN.match(q):
        return Query("reality", (), _thing(m["t"]), "contains", lead_in)
    if m := _WHO_KNOWS.match(q):
        return Query("who_knows", (), _thing(m["t"]), "in", lead_in)
    for pattern, relation in ((_WHERE_BELIEF, "in"), (_WHAT_BELIEF, "contains")):
        if (m := pattern.match(q)) and (query := _belief(m["rest"], relation, lead_in)):
            return query
    if m := _YES_NO.match(q):
        return _yes_no(m["aux"].lower(), m["rest"], lead_in)
    return None


def _belief(rest: str, relation: str, lead_in: str | None) -> Query | None:
    """``A thinks B thinks <last>`` after "where/what + auxiliary"."""
    parts = _SPLIT_THINK.split(rest)
    last = parts[-1]
    chain = [p.strip() for p in parts[:-1]]
    if relation == "contains":
        if lm := _LAST_EXPECT.match(last):
            return Query("belief", (*chain, lm["who"]), _thing(lm["t"]), "contains", lead_in, True)
        if chain and (lm := _LAST_IS_IN.match(last)):
            return Query("belief", tuple(chain), _thing(lm["t"]), "contains", lead_in)
        return None
    if lm := _LAST_LOOK.match(last):
        return Query("belief", (*chain, lm["who"]), _thing(lm["t"]), "in", lead_in)
    if chain and (lm := _LAST_IS.match(last)):
        chain = [_LAST_REALLY.sub(r"\g<who>", c) for c in chain]
        return Query("belief", tuple(chain), _thing(lm["t"]), "in", lead_in)
    return None


def _yes_no(aux: str, rest: str, lead_in: str | None) -> Query | None:
    """ "Does A think/know (that) S", "Is A aware (that) S", "Does A know where T is"."""
    if aux in ("is", "are", "was", "were"):
        m = _AWARE.match(rest)
        kind: QueryKind = "knows"
        if m is None:  # "Is the ball in the box?": a yes/no question about reality
            fact = _statement(_FACT.sub(rf"\g<s> {aux} \g<p>", rest))
            if fact is None:
                return None
            target, relation, value, negated = fact
            return Query("thinks", (), target, relation, lead_in, value=value, negated=negated)
    else:
        m = _HOLDER_VERB.match(rest)
        kind = (
            "knows"
            if m and re.match(rf"{_KNOW}|know|realize|realise", m["verb"], re.I)
            else ("thinks")
        )
    if m is None:
        return None
    chain = [m["who"].strip()]
    body = m["rest"]
    if kind == "knows" and (w := _KNOW_WHERE.match(body)):
        return Query("knows", tuple(chain), _thing(w["t"]), "in", lead_in, value=None)
    if kind == "thinks":  # "Does A think B thinks S": the chain goes on
        parts = _SPLIT_THINK.split(body)
        chain += [p.strip() for p in parts[:-1]]
        body = parts[-1]
    statement = _statement(body)
    if statement is None:
        return None
    target, relation, value, negated = statement
    return Query(kind, tuple(chain), target, relation, lead_in, value=value, negated=negated)


def _statement(text: str) -> tuple[str, str, str, bool] | None:
    """``(thing, relation, value, negated)`` for "the ball is (not) in the box" and kin."""
    if m := _STATE_IN.match(text):
        return _thing(m["s"]), "in", _thing(m["v"]), bool(m["neg"])
    if m := _STATE_CONTAINS.match(text):
        return _thing(m["s"]), "contains", _thing(m["v"]), bool(m["neg"])
    if m := _STATE_BE.match(text):
        return _thing(m["s"]), "be", m["v"].strip().lower(), bool(m["neg"])
    return None


def _thing(phrase: str) -> str:
    """A noun phrase without its article or possessive: "her phone" -> "phone"."""
    phrase = phrase.strip()
    stripped = _DETERMINER.sub("", phrase, count=1)
    return stripped or phrase


# -- answering -----------------------------------------------------------------------------
def answer(graph: BeliefGraph, question: str) -> Answer:
    """Answer ``question`` from ``graph``; see the module docstring for the forms.

    An answer that may depend on a sentence the parser could not read lists it in
    ``Answer.rests_on_unread`` and says so in the last line of its explanation.

    Examples
    --------
    >>> from beliefgraph import track
    >>> g = track("Sally and Anne are in the room. Sally puts the ball in the basket. "
    ...           "Sally goes out. Anne moves the ball to the box.")
    >>> answer(g, "Does Sally know where the ball is?").value
    'no'
    >>> answer(g, "Who knows where the ball is?").value
    'Anne'
    >>> answer(g, "Does Anne think Sally thinks the ball is in the basket?").value
    'yes'
    """
    query = read_question(question)
    at = graph.end
    original = graph
    if query.lead_in is not None:
        graph = _with_lead_in(graph, query.lead_in, question)
        at = at if query.before_lead_in else graph.end
    try:
        result = _answer(graph, query, question, at)
    except _OnlyInUnread as missing:  # the name is in a sentence the parser could not read
        listing = _cite_unread(original, missing.unread)
        return Answer(
            question=question,
            value=None,
            explanation=(
                f"The story as read never mentions {missing.name!r}: only {listing} does, "
                "which the parser did not read.",
            ),
            rests_on_unread=missing.unread,
        )
    unread = _rests_on_unread(original, graph, query, result, at)
    if not unread:
        return result
    listing = _cite_unread(original, unread)
    note = f"This answer may be wrong: it can depend on {listing}, which the parser could not read."
    return result.model_copy(
        update={"rests_on_unread": unread, "explanation": (*result.explanation, note)}
    )


def _answer(graph: BeliefGraph, query: Query, question: str, at: int) -> Answer:
    if query.kind == "who_knows":
        return _who_knows(graph, query, question, at)
    chain = tuple(_match_actor(graph, name, question) for name in query.chain)
    target = _match_entity(graph, query.target, question)
    if query.kind in ("knows", "thinks"):
        return _yes_no_answer(graph, query, question, chain, target, at)
    var = (target, query.relation)
    if query.kind == "label":
        return _label(graph, target, question)
    if query.kind == "memory":
        first = graph.timeline_of((), variable=var)
        if not first:
            return Answer(
                question=question,
                value=None,
                explanation=(f"The story never says where {_the(target)} is.",),
            )
        b = first[0]
        return Answer(
            question=question,
            value=_value(b.proposition.assigned),
            belief=b,
            explanation=explain(graph, b, at=b.end or graph.end)[:1],
        )
    b = _belief_of(graph, chain, var, at)
    if b is None and var[1] == "contains":
        seen = _emptiness(graph, chain, target, at)
        if seen is not None and seen[0]:  # everything it held is believed elsewhere now
            who = phrase_chain(chain) + " " if chain else ""
            lines = [line for x in seen[1] for line in explain(graph, x, at=at)]
            lines.append(f"So {who}nothing is in {_the(target)}.")
            return Answer(question=question, value="nothing", explanation=tuple(lines))
    if b is None:
        return Answer(question=question, value=None, explanation=(_nothing(chain, target),))
    return Answer(
        question=question,
        value=_value(b.proposition.assigned),
        belief=b,
        explanation=explain(graph, b, at=at),
    )


def _belief_of(
    graph: BeliefGraph, chain: tuple[str, ...], var: tuple[str, str], at: int
) -> Belief | None:
    b = graph.belief(chain, variable=var, at=at)
    if b is None and var[1] == "contains":
        b = _contents_from_locations(graph, chain, var[0], at)
    return b


def _nothing(chain: tuple[str, ...], target: str) -> str:
    if not chain:  # "In reality, nothing about ..." would not be a sentence
        return f"The story says nothing about {_the(target)} that answers this."
    who = phrase_chain(chain)
    return (
        f"{who} nothing about {_the(target)}: no event that every holder perceived, and no "
        "telling they heard, concerns it."
    )


def _label(graph: BeliefGraph, target: str, question: str) -> Answer:
    labels = [
        e
        for e in graph.events
        if e.kind == "label" and e.proposition and e.proposition.subject == target
    ]
    if not labels:
        raise UnsupportedQuestionError(f"the story gives no label for {_the(target)}: {question!r}")
    p = labels[-1].proposition
    assert p is not None
    return Answer(
        question=question,
        value=p.value,
        explanation=(f"{upper_first(labels[-1].cite())} gives the label: {p.render()}.",),
    )


def _state_variable(graph: BeliefGraph, target: str, state: str) -> tuple[str, ...] | None:
    """The variable of "the <target> is <state>", in first-mention order."""
    wanted = _norm(state)
    for var in graph.variables:
        is_state = len(var) == 3 and var[0] == target and var[1].split(" ")[0] == "be"
        if is_state and _norm(var[2]) == wanted:
            return var
    return None


def _yes_no_answer(
    graph: BeliefGraph,
    query: Query,
    question: str,
    chain: tuple[str, ...],
    target: str,
    at: int,
) -> Answer:
    """Does the chain think / know the statement (or where the thing is)?"""
    if query.relation == "be":
        var = _state_variable(graph, target, query.value or "")
        statement = f"{_the(target)} is {'not ' if query.negated else ''}{query.value}"
        wanted: str | bool | None = not query.negated
    else:
        var = (target, query.relation)
        value = _match_entity(graph, query.value, question) if query.value is not None else None
        statement = (
            f"where {_the(target)} is"
            if value is None
            else _phrase_location(target, query.relation, value, query.negated)
        )
        wanted = value
    holder = phrase_chain(chain).removesuffix(" believes")
    if var is None and query.relation == "be" and _norm(query.value or "") == _norm("empty"):
        found = _empty_answer(graph, query, question, chain, target, at, statement)
        if found is not None:
            return found
    if var is None:  # the story never states it, so nobody can think or know it
        unsaid = f"The story never says that {statement}"
        return Answer(
            question=question,
            value="no",
            explanation=(
                f"{unsaid}, so {holder} cannot {'know' if query.kind == 'knows' else 'think'} it."
                if chain
                else f"{unsaid}.",
            ),
        )
    belief = _belief_of(graph, chain, var, at)
    lines: list[str] = (
        list(explain(graph, belief, at=at)) if belief is not None else [_nothing(chain, target)]
    )
    held = None if belief is None else belief.proposition.assigned

    def holds(v: str | bool | None) -> bool:
        if v is None:
            return False
        if isinstance(wanted, bool) or query.relation == "be":
            return v is wanted
        return (v == wanted) != query.negated

    if query.kind == "thinks" and not chain:  # a fact: "Is the ball in the box?"
        yes = holds(held)
        lines.append(f"So it is {'' if yes else 'not '}true that {statement}.")
        return Answer(question=question, value="yes" if yes else "no", belief=belief,
                      explanation=tuple(lines))  # fmt: skip
    if query.kind == "thinks":
        yes = holds(held)
        lines.append(f"So {holder} {'thinks' if yes else 'does not think'} that {statement}.")
        return Answer(question=question, value="yes" if yes else "no", belief=belief,
                      explanation=tuple(lines))  # fmt: skip
    truth = _belief_of(graph, (), var, at)
    real = None if truth is None else truth.proposition.assigned
    if query.value is None:  # "know where": the chain's picture matches reality
        yes = held is not None and held == real
        if real is None:
            lines.append(f"The story never says where {_the(target)} is, so {holder} cannot "
                         "know it.")  # fmt: skip
        else:
            fact = truth.proposition.render() if truth is not None else ""
            lines.append(
                f"{'That matches' if yes else 'That is not'} reality ({fact}), so {holder} "
                f"{'knows' if yes else 'does not know'} where {_the(target)} is."
            )
    else:
        true = holds(real)
        yes = true and holds(held)
        if not true:
            lines.append(f"In reality it is not so that {statement}, so {holder} cannot know it.")
        else:
            lines.append(f"So {holder} {'knows' if yes else 'does not know'} that {statement}.")
    return Answer(question=question, value="yes" if yes else "no", belief=belief,
                  explanation=tuple(lines))  # fmt: skip


def _emptiness(
    graph: BeliefGraph, chain: tuple[str, ...], container: str, at: int
) -> tuple[bool, list[Belief]] | None:
    """Whether the chain takes ``container`` to be empty at ``at``, and the beliefs that show it.

    Read off where the chain believes things are: not empty when it believes something is in
    the container (or holds a belief about what it contains); empty when everything it ever
    believed in there (up to ``at``) is believed elsewhere now. None when the chain never
    tracked anything in the container, so its emptiness is not known.
    """
    contents = graph.belief(chain, variable=(container, "contains"), at=at)
    if contents is not None:
        return False, [contents]
    was_in: list[Belief] = []
    for var in graph.variables:
        if len(var) != 2 or var[1] != "in" or var[0] == container:
            continue
        now = graph.belief(chain, variable=var, at=at)
        if now is not None and now.proposition.value == container:
            return False, [now]
        spans = graph.timeline_of(chain, variable=var)
        if now is not None and any(
            b.start <= at and b.proposition.value == container for b in spans
        ):
            was_in.append(now)
    return (True, was_in) if was_in else None


def _empty_answer(
    graph: BeliefGraph,
    query: Query,
    question: str,
    chain: tuple[str, ...],
    target: str,
    at: int,
    statement: str,
) -> Answer | None:
    """ "Is the basket empty?" from tracked contents (None: the chain never tracked them)."""
    seen = _emptiness(graph, chain, target, at)
    if seen is None:
        return None
    empty, shown = seen
    lines = [line for b in shown for line in explain(graph, b, at=at)]
    holds = empty != query.negated
    who = phrase_chain(chain).removesuffix(" believes") if chain else ""
    state = f"{_the(target)} is {'empty' if empty else 'not empty'}"
    if query.kind == "thinks":
        lines.append(f"So {who + ' believes ' if chain else ''}{state}.")
        return Answer(question=question, value="yes" if holds else "no", explanation=tuple(lines))
    truth = _emptiness(graph, (), target, at)
    real = truth is not None and truth[0] != query.negated
    yes = real and holds
    if not real:
        lines.append(f"In reality it is not so that {statement}, so {who} cannot know it.")
    else:
        lines.append(f"So {who} {'knows' if yes else 'does not know'} that {statement}.")
    return Answer(question=question, value="yes" if yes else "no", explanation=tuple(lines))


def _who_knows(graph: BeliefGraph, query: Query, question: str, at: int) -> Answer:
    target = _match_entity(graph, query.target, question)
    var = (target, query.relation)
    truth = graph.belief((), variable=var, at=at)
    if truth is None:
        return Answer(
            question=question,
            value="nobody",
            explanation=(f"The story never says where {_the(target)} is.",),
        )
    real = truth.proposition.assigned
    knowers, lines = (
        [],
        [f"{upper_first(truth.proposition.render())} (the story's last word on it)."],
    )
    for actor in graph.actors:  # story order, so the list reads the same every run
        b = graph.belief((actor,), variable=var, at=at)
        if b is not None and b.proposition.assigned == real:
            knowers.append(actor)
            lines.append(f"{actor} knows: {explain(graph, b, at=at)[0]}")
        elif b is not None:
            lines.append(
                f"{actor} does not: {actor} believes {b.proposition.render()}"
                + (
                    f" ({explain(graph, b, at=at)[-2]})"
                    if len(explain(graph, b, at=at)) > 2
                    else "."
                )
            )
    value = _and(knowers) if knowers else "nobody"
    return Answer(question=question, value=value, explanation=tuple(lines))


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _phrase_location(target: str, relation: str, value: str, negated: bool) -> str:
    if relation == "contains":
        return f"{_the(target)} {'does not contain' if negated else 'contains'} {_the(value)}"
    return f"{_the(target)} is {'not ' if negated else ''}in {_the(value)}"


def _contents_from_locations(graph: BeliefGraph, chain: tuple[str, ...], container: str, at: int):
    """What a chain thinks a container holds, read off its beliefs about where things are."""
    for var in graph.variables:
        if len(var) == 2 and var[1] == "in":
            b = graph.belief(chain, variable=var, at=at)
            if b is not None and b.proposition.value == container:
                contents = b.proposition.model_copy(
                    update={
                        "subject": container,
                        "relation": "contains",
                        "value": var[0],
                        "content_type": "Contents/Physical State",
                    }
                )
                return b.model_copy(update={"proposition": contents})
    return None


def _value(v: str | bool) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return v


def _the(name: str) -> str:
    if name[:1].isupper() or re.match(r"(?:the|a|an)\s", name, re.I):
        return name
    return f"the {name}"


def _norm(name: str) -> str:
    """The project's one normaliser, after dropping a possessive ("her keys" -> "key")."""
    return normalise(_thing(name))


def _resolve(name: str, candidates: list[str]) -> str | None:
    """The stable rule: exact spelling, then any case, then the normalised noun; ties go
    to the first candidate (candidates come in story order)."""
    for same in (
        lambda c: c == name,
        lambda c: c.lower() == name.lower(),
        lambda c: _norm(c) == _norm(name),
    ):
        for c in candidates:
            if same(c):
                return c
    return None


_PERSONAL = frozenset(("he", "she", "they", "him", "her", "them"))


def _match_actor(graph: BeliefGraph, name: str, question: str) -> str:
    actors = list(graph.actors)
    if name.lower() in _PERSONAL:
        return _antecedent(actors, name, question)
    found = _resolve(name, actors)
    if found is None:  # "his mother" for an actor the story calls "mother" or "Mother"
        found = _resolve(_thing(name), actors)
    if found is None:
        _check_unread(graph, name)
        raise UnsupportedQuestionError(
            f"{name!r} in {question!r} is not an actor of the story; actors: {actors}"
        )
    return found


def _antecedent(actors: list[str], pronoun: str, question: str) -> str:
    """The actor a pronoun in the question stands for: the last one named before it
    ("After Sally comes back, where will she look ...")."""
    at = re.search(rf"\b{re.escape(pronoun)}\b", question, re.I)
    named = [
        (m.start(), a)
        for a in actors
        for m in re.finditer(rf"\b{re.escape(a)}\b", question)
        if at is not None and m.start() < at.start()
    ]
    if not named:
        raise UnsupportedQuestionError(
            f"cannot tell who {pronoun!r} is in {question!r}: name the actor ({actors})"
        )
    return max(named)[1]


def _match_entity(graph: BeliefGraph, name: str, question: str) -> str:
    # First-mention order: the story's things, then subjects of its variables.
    candidates = list(dict.fromkeys(
        [e.name for e in graph.story.entities] + [v[0] for v in graph.variables if len(v) >= 2]
    ))  # fmt: skip
    found = _resolve(name, candidates)
    if found is None:
        _check_unread(graph, name)
        raise UnsupportedQuestionError(
            f"{_the(name)!r} in {question!r} does not occur in the story; known: {candidates}"
        )
    return found


class _OnlyInUnread(Exception):  # an internal signal, caught in answer()
    def __init__(self, name: str, unread: tuple[int, ...]) -> None:
        self.name = name
        self.unread = unread


def _check_unread(graph: BeliefGraph, name: str) -> None:
    """Raise ``_OnlyInUnread`` when ``name`` occurs only in sentences the parser left unread:
    then the answer is "unknown, because of them", not a mistake in the question."""
    word = _norm(name)
    if not word:
        return
    unread = tuple(
        dict.fromkeys(
            s.index
            for s in graph.story.unparsed
            if re.search(rf"\b{re.escape(word)}", normalise(s.text))
        )
    )
    if unread:
        raise _OnlyInUnread(name, unread)


# -- honesty about unread sentences ----------------------------------------------------------
_PRONOUNS = frozenset(
    ("he", "him", "his", "she", "her", "hers", "it", "its", "they", "them", "their", "theirs")
)


def _rests_on_unread(
    original: BeliefGraph, graph: BeliefGraph, query: Query, result: Answer, at: int
) -> tuple[int, ...]:
    """Indices of unread sentences before ``at`` that may bear on the answer.

    A sentence may bear on it when it mentions the thing asked about, the answer, a holder
    (or, for a chain, any actor, whose comings and goings decide who saw what), or uses a
    pronoun that could stand for one of them. Erring on the side of listing is the point:
    the user is told what to check.
    """
    unread = original.story.unparsed
    if not unread:
        return ()
    last = original.end if at >= original.end else at
    upto = max(
        (e.sentence_index for e in original.events[:last] if e.sentence_index is not None),
        default=-1,
    )
    if at >= original.end:
        upto = len(original.story.sentences)
    words = {_norm(query.target)}
    for v in (result.value, query.value):
        if v and v not in ("yes", "no", "nobody"):
            words |= {_norm(w) for w in re.split(r",| and ", v)}
    names = {_norm(a) for a in query.chain}
    if query.chain or query.kind == "who_knows":
        names |= {_norm(a) for a in original.actors}
    out = []
    for s in unread:
        if s.index > upto:
            continue
        text = s.text.lower()
        tokens = set(re.findall(r"[a-z][\w'-]*", text))
        if tokens & _PRONOUNS or any(
            w and re.search(rf"\b{re.escape(w)}", text) for w in words | names
        ):
            out.append(s.index)
    return tuple(dict.fromkeys(out))


def _cite_unread(graph: BeliefGraph, indices: tuple[int, ...]) -> str:
    """Name the unread sentences (or clauses) with these indices, in story order.

    A parser may keep several clauses of one sentence, all with that sentence's index;
    each unread one is named, with the number users see (the segmenter's, 1-based).
    """
    wanted = set(indices)
    return "; ".join(_cite_sentence(s) for s in graph.story.unparsed if s.index in wanted)


def _cite_sentence(s) -> str:
    where = f"line {s.line}" if s.line is not None else f"sentence {s.index + 1}"
    return f"{where} ({s.text!r})"


def _with_lead_in(graph: BeliefGraph, clause: str, question: str) -> BeliefGraph:
    from beliefgraph.graph import BeliefGraph
    from beliefgraph.parsers import RulesParser

    try:
        extra = RulesParser(strict=True).parse(clause.rstrip(".") + ".")
    except BeliefGraphError as err:
        raise UnsupportedQuestionError(
            f"cannot read the lead-in {clause!r} of {question!r}: {err}"
        ) from None
    offset = graph.end
    # The lead-in is one sentence after the story's last (clauses share their number).
    after = max((s.index for s in graph.story.sentences), default=-1) + 1
    events = tuple(
        e.model_copy(
            update={
                "id": e.id + offset,
                "hypothetical": True,
                "sentence_index": after,
            }
        )
        for e in extra.events
    )
    actors = graph.actors + tuple(a for a in extra.actors if a not in graph.actors)
    story = graph.story.model_copy(update={"events": graph.story.events + events, "actors": actors})
    return BeliefGraph(
        story, perception=graph.perception, trust=graph.trust, max_order=graph.max_order
    )
