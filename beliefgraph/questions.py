"""Read templated ToM questions into queries on a belief graph, and answer them.

Supported forms (case-insensitive, trailing "?" optional):

- reality: "Where is the O really?", "Where is the O now?", "What is in/inside the C?"
- memory: "Where was the O at the beginning?", "Where is the O before?"
- beliefs of any order: "Where will A look for the O?", "Where does A think that B searches
  for the O?", "Where does A think B thinks C thinks the O is?", "Where does A really think
  the O is?", "What does A (think B) expect(s) to find in the C?"
- the label of a container: "What should be in the C?"
- a hypothetical lead-in: "After B returns to the kitchen, where does A look for the O?" adds
  the clause as an event first (read with the story's parser). For "expect to find"
  questions the expectation is the one held as the event begins, so it is read before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from beliefgraph.errors import BeliefGraphError, UnsupportedQuestionError
from beliefgraph.explain import explain, phrase_chain, upper_first
from beliefgraph.models import Answer

if TYPE_CHECKING:
    from beliefgraph.graph import BeliefGraph

__all__ = ["Query", "answer", "read_question"]

QueryKind = Literal["reality", "memory", "belief", "label"]


@dataclass(frozen=True)
class Query:
    """What a question asks: whose belief, about which variable, read when."""

    kind: QueryKind
    chain: tuple[str, ...]
    target: str
    relation: Literal["in", "contains"]
    lead_in: str | None = None
    before_lead_in: bool = False


_SPLIT_THINK = re.compile(r"\s+thinks?\s+(?:that\s+)?", re.I)
_LEAD_IN = re.compile(r"^after\s+(?P<clause>.+?),\s*(?P<rest>.+)$", re.I)
_REALITY = re.compile(r"^where (?:is|are) (?:the )?(?P<t>.+?) (?:really|now)$", re.I)
_MEMORY = re.compile(
    r"^where (?:was|were|is|are) (?:the )?(?P<t>.+?) "
    r"(?:at the beginning|in the beginning|before|initially|at first|originally)$",
    re.I,
)
_CONTENT_REALITY = re.compile(
    r"^what (?:is|are) (?:in|inside) (?:the )?(?P<t>.+?)(?: now| really)?$", re.I
)
_CONTENT_LABEL = re.compile(r"^what should be (?:in|inside) (?:the )?(?P<t>.+)$", re.I)
_WHERE_BELIEF = re.compile(r"^where (?:will|would|does|do|did) (?P<rest>.+)$", re.I)
_WHAT_BELIEF = re.compile(r"^what (?:will|would|does|do|did) (?P<rest>.+)$", re.I)
_LAST_IS = re.compile(r"^(?:really\s+)?(?:the )?(?P<t>.+?) (?:is|are|was|were)$", re.I)
_LAST_LOOK = re.compile(
    r"^(?P<who>.+?) (?:(?:will|would) )?(?:really )?"
    r"(?:look|looks|search|searches|seek|seeks|go|goes) (?:for|to find) (?:the )?(?P<t>.+)$",
    re.I,
)
_LAST_REALLY = re.compile(r"^(?P<who>.+?) really$", re.I)
_LAST_EXPECT = re.compile(
    r"^(?P<who>.+?) (?:expects?|thinks?) to find (?:in|inside) (?:the )?(?P<t>.+)$", re.I
)


def read_question(question: str) -> Query:
    """Parse a question into a ``Query`` (names not yet checked against a story).

    Examples
    --------
    >>> read_question("Where does Noah think Liam thinks the lemon is?").chain
    ('Noah', 'Liam')
    >>> q = read_question("Where will Sally look for the ball?")
    >>> q.kind, q.chain, q.target
    ('belief', ('Sally',), 'ball')
    """
    q = question.strip().rstrip("?").strip()
    q = re.sub(r"\s+", " ", q)
    lead_in = None
    if m := _LEAD_IN.match(q):
        lead_in, q = m["clause"], m["rest"]
    if m := _REALITY.match(q):
        return Query("reality", (), m["t"], "in", lead_in)
    if m := _MEMORY.match(q):
        return Query("memory", (), m["t"], "in", lead_in)
    if m := _CONTENT_LABEL.match(q):
        return Query("label", (), m["t"], "contains", lead_in)
    if m := _CONTENT_REALITY.match(q):
        return Query("reality", (), m["t"], "contains", lead_in)
    for pattern, relation in ((_WHERE_BELIEF, "in"), (_WHAT_BELIEF, "contains")):
        if m := pattern.match(q):
            parts = _SPLIT_THINK.split(m["rest"])
            last = parts[-1]
            chain = [p.strip() for p in parts[:-1]]
            if relation == "contains" and (lm := _LAST_EXPECT.match(last)):
                return Query("belief", (*chain, lm["who"]), lm["t"], "contains", lead_in, True)
            if relation == "in" and (lm := _LAST_LOOK.match(last)):
                return Query("belief", (*chain, lm["who"]), lm["t"], "in", lead_in)
            if relation == "in" and chain and (lm := _LAST_IS.match(last)):
                chain = [_LAST_REALLY.sub(r"\g<who>", c) for c in chain]
                return Query("belief", tuple(chain), lm["t"], "in", lead_in)
    raise UnsupportedQuestionError(
        f"unsupported question {question!r}: expected a ToMi / Hi-ToM / ToMBench form such as "
        '"Where will Sally look for the ball?", "Where does Anne think Sally thinks the ball is?",'
        ' "Where is the ball really?" or "What does Tom expect to find in the box?"'
    )


def answer(graph: BeliefGraph, question: str) -> Answer:
    """Answer ``question`` from ``graph``; see the module docstring for the forms."""
    query = read_question(question)
    at = graph.end
    if query.lead_in is not None:
        graph = _with_lead_in(graph, query.lead_in, question)
        at = at if query.before_lead_in else graph.end
    chain = tuple(_match_actor(graph, name, question) for name in query.chain)
    target = _match_entity(graph, query.target, query.relation, question)
    var = (target, query.relation)
    if query.kind == "label":
        labels = [
            e
            for e in graph.events
            if e.kind == "label" and e.proposition and e.proposition.subject == target
        ]
        if not labels:
            raise UnsupportedQuestionError(
                f"the story gives no label for the {target}: {question!r}"
            )
        p = labels[-1].proposition
        assert p is not None
        return Answer(
            question=question,
            value=p.value,
            explanation=(f"{upper_first(labels[-1].cite())} gives the label: {p.render()}.",),
        )
    if query.kind == "memory":
        first = graph.timeline_of((), variable=var)
        if not first:
            return Answer(
                question=question,
                value=None,
                explanation=(f"The story never says where the {target} is.",),
            )
        b = first[0]
        return Answer(
            question=question,
            value=_value(b.proposition.assigned),
            belief=b,
            explanation=explain(graph, b, at=b.end or graph.end)[:1],
        )
    b = graph.belief(chain, variable=var, at=at)
    if b is None and query.relation == "contains":
        b = _contents_from_locations(graph, chain, target, at)
    if b is None:
        who = phrase_chain(chain)
        return Answer(
            question=question,
            value=None,
            explanation=(
                f"{who} nothing about the {target}: no event that every "
                "holder perceived, and no telling they heard, concerns it.",
            ),
        )
    return Answer(
        question=question,
        value=_value(b.proposition.assigned),
        belief=b,
        explanation=explain(graph, b, at=at),
    )


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


def _norm(name: str) -> str:
    n = name.lower().replace("_", " ").strip()
    n = re.sub(r"^(?:the|a|an) ", "", n)
    for suffix in ("es", "s"):
        if n.endswith(suffix) and len(n) > len(suffix) + 2:
            return n[: -len(suffix)]
    return n


def _match_actor(graph: BeliefGraph, name: str, question: str) -> str:
    for a in graph.actors:
        if a.lower() == name.lower():
            return a
    raise UnsupportedQuestionError(
        f"{name!r} in {question!r} is not an actor of the story; actors: {list(graph.actors)}"
    )


def _match_entity(graph: BeliefGraph, name: str, relation: str, question: str) -> str:
    wanted = _norm(name)
    candidates = {v[0] for v in graph.variables if len(v) >= 2}
    candidates |= {e.name for e in graph.story.entities}
    for c in candidates:
        if _norm(c) == wanted or c.lower() == name.lower():
            return c
    raise UnsupportedQuestionError(
        f"the {name!r} in {question!r} does not occur in the story; known: {sorted(candidates)}"
    )


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
    events = tuple(
        e.model_copy(
            update={
                "id": e.id + offset,
                "hypothetical": True,
                "sentence_index": len(graph.story.sentences),
            }
        )
        for e in extra.events
    )
    actors = graph.actors + tuple(a for a in extra.actors if a not in graph.actors)
    story = graph.story.model_copy(update={"events": graph.story.events + events, "actors": actors})
    return BeliefGraph(
        story, perception=graph.perception, trust=graph.trust, max_order=graph.max_order
    )
