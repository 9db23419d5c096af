"""The Stage 1 belief proposals: one LLM call per story reads the beliefs a story expresses.

The graph of the parse call holds what the story tracks (who is where, who saw what, who
holds a stale belief); the beliefs a reader takes from the story's social content (a
speaker's intent, what a listener makes of a hint, what someone feels) are the text's, and
the parse's implied beliefs cover few of them. This call asks the model for them in the
release's own terms (seed 000, Sec. 3 and App. C.2: "a belief is a minimal proposition
expressing what an actor takes to be true"; the Level 4 content block: grounded, atomic,
third person, pronouns resolved to the actors' names), each with the story sentences it
rests on and how its holder came by it. The engine then decides what is listed
(``merge_proposals``, ``stage1_table``): where the graph tracks a false belief (some actor
ends the story believing falsely where a thing is), the graph's rows stand for every thing
and place it tracks and only the proposals about anything else join them; elsewhere the
table is the proposals, holder names spelled as the graph spells them, nested ones in the
release's "B thinks" form. A perception check (a proposal its holder is said to have seen
or heard, although the perception model has the holder perceive none of its sentences) is
available and off by default: measured on the dev stories, it removed as many rows the gold
lists as rows it does not (docs/llm.md, "Stage 1: belief proposals"). Every proposal left
out is kept with its reason (``Merged.rejected``).

The request depends only on the story's text (never on the parse), so it is independent of
the parse call and both go into one batch round. The reply is validated against the story
(sentence numbers inside the segmenter's numbering); a reply that fails is re-asked with the
errors by the client, and the answer is cached by the client.

``PROMPT_VERSION`` names the prompt and reply schema; change it whenever either changes. The
prompt is OmniToM's own: no other benchmark's recorded answers depend on it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator

from beliefgraph.grounding.models import Holding
from beliefgraph.grounding.tokens import content_tokens
from beliefgraph.models import Belief, BeliefModel, How, ImpliedBelief, Proposition
from beliefgraph.text import numbered

from .extract import contested_variables
from .matching import DEFAULT_TOKEN_THRESHOLD
from .records import WORLD, OmniRow, is_world

if TYPE_CHECKING:
    from beliefgraph.graph import BeliefGraph

    from .extract import ExtractedRow, Nested
    from .labeler import Labeler

__all__ = [
    "PROMPT_VERSION",
    "SYSTEM_PROMPT",
    "Admitted",
    "BeliefProposals",
    "Merged",
    "Proposal",
    "Proposer",
    "admit",
    "merge_proposals",
    "owned_things",
    "proposal_messages",
    "resolve_actor",
    "stage1_table",
]

PROMPT_VERSION = "omnitom.beliefs.v1"
"""The Stage 1 proposal prompt and reply schema's version."""

SYSTEM_PROMPT = """\
You read a short story and extract the beliefs relevant to its social dynamics: the narrated
facts, and what each actor takes to be true. A belief is a minimal proposition expressing what
an actor takes to be true about the world or about another actor's mental state.

1. World facts (holders = []): the events and states the story presents as facts, in story
   order. One row per event or state, in the story's own words (keep its verbs, adverbs and
   details), with pronouns replaced by the names they stand for.
2. The actors: the characters or groups in the story capable of holding beliefs, named exactly
   as the story names them.
3. First-order beliefs (holders = [A]): for each actor, A's beliefs about the narrated events
   and states: what A witnessed, took part in, was told or already knew; what A wants,
   intends, plans, feels or values when the story shows it; what A infers from what A
   perceived (the meaning of a hint, a look or a remark; what will happen next). Leave out
   events A could not perceive and was never told.
4. Nested beliefs (holders = [A, B], or [A, B, C]): what A takes B to think, want, intend, feel
   or know (and what A takes B to think C thinks), where the story gives A grounds for it
   (B spoke to A or within A's hearing, A saw what B saw or did, A knows B was away, A hinted
   and expects B to understand). Write the belief about B's mind in full, naming B: "Bob
   thinks the ball is in the basket", "Bob wants to leave"; for [A, B, C]: "Bob thinks Carol
   thinks ...".

A good output satisfies the following:
- Include only beliefs grounded in the narrative; do not invent actors, events, or beliefs.
- Express each belief as a single, atomic, declarative proposition; split compound statements
  into separate rows.
- Use third-person language only and resolve pronouns to exact actor names as they appear in
  the narrative ("Anna's brother", not "her brother"; never "I" or "you").
- A false belief is listed as its holder holds it.
- Do not list the same proposition twice for the same holders.

For every row give:
- holders: the holder chain, outermost first ([] for a world fact).
- belief: the proposition (for [A, B] and [A, B, C], about B's mind, as in step 4).
- sentences: the numbers of the story sentences it rests on (the numbers in brackets).
- how: how the outermost holder came by it: "narrated" (a world fact, or the narrator states
  the holder's mental state), "saw" (perceived it), "heard" (was told it or overheard it),
  "remembers" (knew it from before), "inferred" (worked it out), "imagined" (pretend, dreamt
  or supposed).

Reply with one JSON object: {"rows": [{"holders": [...], "belief": "...", "sentences": [...],
"how": "..."}, ...]}, world facts first, then each actor's rows."""


class Proposal(BeliefModel):
    """One belief the model reads in the story."""

    holders: list[str] = Field(default_factory=list)
    """The holder chain, outermost first (empty: a narrated world fact)."""
    belief: str = Field(min_length=1)
    """The minimal proposition; for a nested row, about the second holder's mind ("Bob thinks
    the ball is in the basket")."""
    sentences: list[int] = Field(default_factory=list)
    """The story sentences it rests on (1-based, the segmenter's numbering)."""
    how: Holding = "narrated"
    """How the outermost holder came by it."""

    @field_validator("belief")
    @classmethod
    def _one_line(cls, v: str) -> str:
        return " ".join(v.split()).rstrip(".")

    @field_validator("holders")
    @classmethod
    def _names(cls, v: list[str]) -> list[str]:
        names = [" ".join(h.split()) for h in v if h and h.strip()]
        if [n.lower() for n in names] == ["world"]:
            return []  # the release's own spelling of a world fact
        if any(n.lower() == "world" for n in names):
            raise ValueError("'world' is not a holder: give a world fact holders = []")
        if len(names) > 3:
            raise ValueError(f"at most three holders (order 3), got {names}")
        return names


class BeliefProposals(BeliefModel):
    """The model's reply: every belief it reads in the story."""

    rows: list[Proposal] = Field(default_factory=list)
    """World facts first, then each actor's rows."""

    @model_validator(mode="after")
    def _fits(self, info: ValidationInfo) -> BeliefProposals:
        ctx = info.context if isinstance(info.context, dict) else {}
        n = ctx.get("sentences")
        if n is None:
            return self
        errors = [
            f"row {i} ({r.belief!r}): sentence numbers {bad} are not 1..{n}"
            for i, r in enumerate(self.rows)
            if (bad := [k for k in r.sentences if not 1 <= k <= n])
        ]
        if not self.rows:
            errors.append("no rows: list the story's world facts and each actor's beliefs")
        if errors:
            raise ValueError("; ".join(errors))
        return self


def proposal_messages(sentences: Sequence[str]) -> list[dict[str, str]]:
    """The system prompt and the user message (the numbered story sentences).

    Examples
    --------
    >>> m = proposal_messages(["Ann sits.", "Bob waves."])
    >>> print(m[1]["content"])
    Story sentences:
    [1] Ann sits.
    [2] Bob waves.
    """
    user = "Story sentences:\n" + numbered(sentences)
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


class Proposer:
    """Read a story's beliefs with one LLM call, through the project's LLM client.

    Parameters
    ----------
    client : object
        The LLM client: ``client.extract(response_model, messages, context=..., prompt=...)``
        returns the validated reply, with the client's cache, re-asks and batch export (a
        request written to a batch file raises ``AnswerPending``).

    Examples
    --------
    >>> class Echo:  # a stand-in client that reads one world fact
    ...     def extract(self, response_model, messages, *, context=None, prompt=None):
    ...         return response_model.model_validate(
    ...             {"rows": [{"holders": [], "belief": "Ann sits.", "sentences": [1]}]},
    ...             context=context)
    >>> Proposer(Echo()).propose(["Ann sits."]).rows[0].belief
    'Ann sits'
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self.calls = 0

    def propose(self, sentences: Sequence[str]) -> BeliefProposals:
        """The beliefs of the story ``sentences`` (one call, or the cache)."""
        self.calls += 1
        return self.client.extract(
            BeliefProposals,
            proposal_messages(sentences),
            context={"sentences": len(sentences)},
            prompt=PROMPT_VERSION,
        )


Graph = Literal["auto", "tracked", "all", "none"]
"""Which of the graph's own rows join the proposals (``merge_proposals``)."""

First = Literal["proposals", "graph"]
"""Whose row is kept where a proposal and a graph row say the same."""

_PERCEIVED = ("saw", "heard")
"""The ways of coming by a belief that claim the holder perceived its sentences."""

_HOW: dict[str, How] = {
    "narrated": "implied",  # the narrator states the holder's own mind
    "saw": "saw",
    "heard": "told",
    "remembers": "remembers",
    "inferred": "inferred",
    "imagined": "imagined",
}
"""A proposal's ``how`` in the graph's terms (``ImpliedBelief.how``)."""


class Merged(BeliefModel):
    """A Stage 1 table built from the proposals and the graph, and what was left out."""

    rows: list[OmniRow] = Field(default_factory=list)
    """World facts first, then each actor's rows (first mention order)."""
    sources: list[str] = Field(default_factory=list)
    """Per row: ``proposal`` (a proposal, rendered from its graph belief), ``propagated`` (a
    belief the graph propagated from one: a witness's view of the holder's mind) or
    ``graph`` (the graph's own row)."""
    rejected: list[str] = Field(default_factory=list)
    """Each proposal the graph ruled out, and why."""
    flagged: list[str] = Field(default_factory=list)
    """Each proposal kept although its holder perceived none of its evidence (the
    ``inference_evidence`` axiom's objection, or a seen or heard claim the perception model
    does not bear out), and why."""


class Admitted(BeliefModel):
    """The proposals as graph beliefs: the story's graph with each held one as an implied
    belief (``ParsedStory.implied``), typed, checked against perception and propagated."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    graph: Any
    """The ``BeliefGraph`` of the parse with the proposals' implied beliefs added."""
    index: list[int | None]
    """Per proposal: its position in ``graph.implied.proposed`` (None: a world fact, or a
    proposal that cites no sentence, which has no evidence to hold it by)."""
    spelled: dict[str, str]
    """Graph actor -> the name the proposals give it (the story's own spelling)."""


def admit(graph: BeliefGraph, proposals: BeliefProposals, *, scenes: bool = True) -> Admitted:
    """Each proposal held by someone enters the graph as an implied belief.

    The holder chain is read as the story's actors (a title or a trailing phrase aside:
    "Minister Old Chen" is Old Chen, "everyone in the company" is everyone); the innermost
    proposition is read by the rules parser where it can (a location, a want), otherwise
    kept as the proposal's words with its content type read off them; its evidence is the
    proposal's sentences and ``how`` its ``how``. The graph is the parse's, replayed again
    (with ``scenes`` on: who is present at a narrated act sees it; groups stand for their
    members) with these beliefs added, so the engine types them (Inference and Implicit for
    an inferred one), checks that their holder perceived their evidence
    (``graph.implied.supported``; for an inferred one the ``inference_evidence`` axiom
    reports a holder who did not) and propagates an actor's own state to those who saw what
    the actor did.

    Examples
    --------
    >>> from beliefgraph import track
    >>> g = track("Ann and Bob are in the kitchen. Bob leaves the kitchen. Ann eats the pie.")
    >>> read = BeliefProposals.model_validate({"rows": [
    ...     {"holders": ["Ann"], "belief": "Ann wants more pie", "sentences": [3],
    ...      "how": "narrated"},
    ...     {"holders": ["Bob"], "belief": "Ann ate the pie", "sentences": [3],
    ...      "how": "inferred"}]})
    >>> a = admit(g, read)
    >>> [(b.holders, b.mental_source) for b in a.graph.implied.proposed]
    [(('Ann',), 'Inference'), (('Bob',), 'Inference')]
    >>> a.graph.implied.supported  # Bob had left: he perceived none of sentence 3
    (True, False)
    """
    from beliefgraph.graph import BeliefGraph

    from .protocol import read_belief

    actors = list(graph.actors)
    implied = list(graph.story.implied)
    index: list[int | None] = []
    spelled: dict[str, str] = {}
    for p in proposals.rows:
        chain = tuple(resolve_actor(h, actors) or h for h in p.holders)
        if not chain or not p.sentences:
            index.append(None)
            continue
        for given, actor in zip(p.holders, chain, strict=True):
            spelled.setdefault(actor, given)
        inner = _inner(chain, p.belief, actors)
        _, _, props, _ = read_belief(graph, WORLD, inner)
        proposition = props[0] if props else _worded(inner, actors)
        index.append(len(implied))
        implied.append(
            ImpliedBelief(
                holders=chain,
                proposition=proposition,
                wording=p.belief,
                evidence=tuple(sorted({n - 1 for n in p.sentences})),
                how=_HOW[p.how],
            )
        )
    story = graph.story.model_copy(update={"implied": tuple(implied)})
    perception = graph.perception.model_copy(update={"scenes": scenes})
    again = BeliefGraph(story, perception=perception, trust=graph.trust, max_order=graph.max_order)
    return Admitted(graph=again, index=index, spelled=spelled)


def merge_proposals(
    graph: BeliefGraph,
    rows: Sequence[ExtractedRow],
    proposals: BeliefProposals,
    *,
    add: Graph = "auto",
    perception: bool = False,
    first: First = "proposals",
    propagate: bool = False,
    scenes: bool = True,
) -> Merged:
    """The Stage 1 table: the proposals as graph beliefs, with the graph's rows they miss.

    Every proposal held by someone enters the graph as an implied belief (``admit``) and
    its row is rendered from that belief: the holder chain (as the story names its actors)
    and the proposition in the proposal's minimal words, a nested one in the release's
    "B thinks" form. World facts (no holder) are narration and are listed as proposed.

    Parameters
    ----------
    graph : BeliefGraph
        The story's graph (the parse call's).
    rows : sequence of ExtractedRow
        The graph's own table (``extract``), in its order.
    proposals : BeliefProposals
        The model's reading of the story's beliefs.
    add : {"auto", "tracked", "all", "none"}
        The graph rows added where no proposal of the same actor says the same. ``auto``
        (the default): where the graph tracks a false belief (some actor ends the story
        believing falsely where a thing is or what it holds), every graph row, first, and no
        proposal that mentions a thing or place the graph tracks (``owned_things``: the
        graph's rows stand for them); elsewhere none. ``tracked``: the rows about what the
        graph tracks (where things and people are, what containers hold, and the nested
        beliefs about them); ``all``: every row; ``none``: none.
    perception : bool
        Leave out (with the reason) a proposal that says its holder saw or heard it although
        the perception model has the holder perceive none of its evidence. Off by default
        (docs/llm.md): such proposals are kept and ``flagged``, as is every one the
        ``inference_evidence`` axiom objects to.
    first : {"proposals", "graph"}
        Whose wording stands where a proposal and a graph row say the same.
    propagate : bool
        Also list what the graph propagated from the proposals: an actor's own intention or
        feeling, held by each other actor who perceived what the actor did or said in its
        evidence ("Bob | Ann wants more pie"). Off by default (docs/llm.md).
    scenes : bool
        Replay the story with ``PerceptionModel.scenes`` for these checks.

    Returns
    -------
    Merged
        The rows, where each came from, the proposals ruled out and those flagged (with
        the reason).

    Examples
    --------
    >>> from beliefgraph import track
    >>> g = track("Ann and Bob are in the kitchen. Bob leaves the kitchen. "
    ...           "Ann puts the apple in the box.")
    >>> read = BeliefProposals.model_validate({"rows": [
    ...     {"holders": [], "belief": "Ann puts the apple in the box", "sentences": [3]},
    ...     {"holders": ["Bob"], "belief": "The apple is in the box", "sentences": [3],
    ...      "how": "saw"}]})
    >>> m = merge_proposals(g, [], read)
    >>> [(r.actor, r.belief) for r in m.rows]
    [('world', 'Ann puts the apple in the box'), ('Bob', 'The apple is in the box')]
    >>> m.flagged[0]
    "Bob: 'The apple is in the box': Bob perceived none of sentence 3 (saw)"
    >>> m = merge_proposals(g, [], read, perception=True)
    >>> [(r.actor, r.belief) for r in m.rows], m.rejected == m.flagged
    ([('world', 'Ann puts the apple in the box')], True)
    """
    names = {_name_key(a): a for a in graph.actors}
    admitted = admit(graph, proposals, scenes=scenes)
    held = admitted.graph
    out: list[tuple[str, OmniRow]] = []
    rejected: list[str] = []
    flagged: list[str] = []
    kept: set[int] = set()

    def add_graph_rows() -> None:
        for x in rows:
            if add == "tracked" and not _tracked(x):
                continue
            if not any(_same(x.row, other, loose=True) for src, other in out if src != "graph"):
                out.append(("graph", x.row))

    def spell(name: str) -> str:  # as the graph spells it, else as the proposals do
        return names.get(_name_key(name), name)

    owned: list[str] = []  # what the graph tracks against a false belief: its rows stand
    if add == "auto":
        owned = owned_things(graph)
        add, first = ("all", "graph") if owned else ("none", first)
    if add != "none" and first == "graph":
        add_graph_rows()
    for p, k in zip(proposals.rows, admitted.index, strict=True):
        holders = [spell(h) for h in p.holders]
        who = holders[0] if holders else WORLD
        if (obj := next((o for o in owned if _mentions(p.belief, o)), None)) is not None:
            rejected.append(
                f"{who}: {p.belief!r}: the graph tracks the {obj} against a false belief, so "
                "its rows stand for it"
            )
            continue
        if k is not None:
            kept.add(k)  # in the table (or said there by an equal row): it may propagate
        if k is None:  # narration (or nothing cited): listed as proposed
            row = OmniRow(actor=who, belief=_nested(holders, p.belief), order=len(holders))
        else:
            belief = held.implied.proposed[k]
            if not held.implied.supported[k]:
                nums = ", ".join(str(n) for n in p.sentences)
                why = f"{who}: {p.belief!r}: {who} perceived none of sentence {nums} ({p.how})"
                flagged.append(why)
                if perception and p.how in _PERCEIVED:
                    rejected.append(why)
                    kept.discard(k)
                    continue
            row = _rendered(belief, holders)
        # Across sources as loosely as the matcher pairs rows; among the proposals only the
        # same content words (the model lists distinct beliefs in close words).
        if any(_same(row, other, loose=src == "graph") for src, other in out):
            continue
        out.append(("proposal", row))
    if propagate:
        # Only from the proposals the table keeps: one the graph's rows stand for (or one
        # left out) says nothing through a witness either.
        mine = {
            (held.implied.proposed[k].holders[0], held.implied.proposed[k].wording) for k in kept
        }
        for b in held.implied.propagated:
            if (b.holders[1], b.wording) not in mine:
                continue  # propagated from the parse's own implied beliefs, or a left-out one
            row = _rendered(b, [spell(admitted.spelled.get(h, h)) for h in b.holders])
            if not any(_same(row, other, loose=True) for _, other in out):
                out.append(("propagated", row))
    if add != "none" and first == "proposals":
        add_graph_rows()
    # World facts first, then each actor in first-mention order; a group keeps its order.
    first = {a: graph.story.text.find(a) for a in {r.actor for _, r in out}}
    rank = {a: (0, 0) if is_world(a) else (1, i if i >= 0 else len(graph.story.text))
            for a, i in first.items()}  # fmt: skip
    ordered = sorted(out, key=lambda sr: rank[sr[1].actor])
    return Merged(
        rows=[r for _, r in ordered],
        sources=[src for src, _ in ordered],
        rejected=rejected,
        flagged=flagged,
    )


def _rendered(belief: Belief, holders: Sequence[str]) -> OmniRow:
    """A proposal's graph belief as a row: its holder chain as the story spells it, and its
    words. A proposal's words are already the release's row text about the innermost mind
    ("Bob wants to leave", "Bob knows that ..."), unlike a parse's implied belief, whose
    words are the bare proposition that ``extract.phrase`` nests; they get "B thinks" only
    where they do not name B."""
    return OmniRow(
        actor=holders[0], belief=_nested(holders, belief.wording or ""), order=len(holders)
    )


def resolve_actor(name: str, actors: Sequence[str]) -> str | None:
    """The story actor a holder name stands for, or None.

    The same name (case, quotes, a leading "the" aside), else the one actor it ends with
    after a title ("Minister Old Chen"), or begins with before a phrase ("everyone in the
    company"), or whose name follows a possessive ("Xiao Wei's grandfather").

    Examples
    --------
    >>> actors = ["Old Chen", "everyone", "grandfather", "Xiao Wei", "classmates"]
    >>> [resolve_actor(n, actors) for n in ("minister Old Chen", "Everyone in the company",
    ...  "Xiao Wei's grandfather", "The classmates", "Xiao", "Bob")]
    ['Old Chen', 'everyone', 'grandfather', 'classmates', None, None]
    """
    key = _name_key(name)
    bare = key.removeprefix("the ")
    keys = {_name_key(a): a for a in actors}
    for k in (key, bare):
        if k in keys:
            return keys[k]
    if "'s " in bare:  # "xiao wei's grandfather": the possessed, if an actor
        return keys.get(bare.rsplit("'s ", 1)[1])
    ends = [a for k, a in keys.items() if bare.endswith(" " + k)]
    starts = [a for k, a in keys.items() if bare.startswith(k + " ")]
    found = ends if len(ends) == 1 else starts if len(starts) == 1 and not ends else []
    return found[0] if found else None


def _inner(chain: Sequence[str], text: str, actors: Sequence[str]) -> str:
    """The innermost proposition of a nested proposal: its text after the "B thinks"
    prefixes of its inner holders ("Bob thinks the ball is in the basket")."""
    rest = text
    for holder in chain[1:]:
        m = _THINKS.match(rest)
        if m is None or (resolve_actor(m["who"], actors) or m["who"]) != holder:
            break
        rest = m["rest"]
    return rest


_THINKS = re.compile(
    r"^(?P<who>.+?)\s+(?:thinks|believes|knows|assumes|expects)(?:\s+that)?\s+(?P<rest>.+)$"
)


def _worded(text: str, actors: Sequence[str]) -> Proposition:
    """A proposition no rule reads, kept in its words (its variable is the words) with the
    content type its words show."""
    from beliefgraph.grounding.reading import kind_of

    kind = kind_of(text, frozenset(a.lower() for a in actors))
    named = [a for a in actors if _mentions(text, a)]
    return Proposition(
        content_type=kind, subject=named[0] if named else WORLD, relation="hold", value=text
    )


def stage1_table(
    graph: BeliefGraph,
    *,
    proposer: Proposer | None = None,
    labeler: Labeler | None = None,
    add: Graph = "auto",
    nested: Nested = "contested",
) -> tuple[Merged, str | None]:
    """A story's Stage 1 table: the graph's (``extract``, listing ``nested`` beliefs as it
    does), merged with the belief proposals when a ``proposer`` is given.

    Returns
    -------
    Merged, str or None
        The table, and why it is the graph's alone when proposals were asked for but none
        came (the request is pending in a batch file, or failed): None otherwise.

    Examples
    --------
    >>> from beliefgraph import track
    >>> table, note = stage1_table(track("Ann is in the kitchen. Ann leaves the kitchen."))
    >>> [r.belief for r in table.rows], set(table.sources), note
    (['Ann is in the kitchen', 'Ann leaves the kitchen'], {'graph'}, None)
    """
    from beliefgraph.errors import BeliefGraphError
    from beliefgraph.text import segment

    from .extract import extract

    extracted = extract(graph, labeler=labeler, nested=nested)
    alone = Merged(rows=[r.row for r in extracted], sources=["graph"] * len(extracted))
    if proposer is None:
        return alone, None
    try:
        read = proposer.propose([s.text for s in segment(graph.story.text)])
    except BeliefGraphError as err:  # pending in a batch file, or failed after its re-asks
        return alone, f"no belief proposals ({err}); the graph's rows alone"
    return merge_proposals(graph, extracted, read, add=add), None


def owned_things(graph: BeliefGraph) -> list[str]:
    """The things and places the graph's rows stand for: where some actor ends the story
    believing falsely where a thing is or what a container holds (a variable the graph
    tracks against a false belief), every thing, container and room the graph tracks;
    elsewhere none.

    Examples
    --------
    >>> from beliefgraph import track
    >>> owned_things(track("Ann and Bob are in the kitchen. There is an apple in the basket. "
    ...                    "Bob leaves the kitchen. Ann moves the apple to the box."))
    ['kitchen', 'apple', 'basket', 'box']
    >>> owned_things(track("Ann and Bob are in the kitchen. Ann puts the apple in the box."))
    []
    """
    if not contested_variables(graph):
        return []
    actors = set(graph.actors)
    return list(dict.fromkeys(e.name for e in graph.story.entities if e.name not in actors))


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?i)\b{re.escape(name)}\b", text) is not None


def _name_key(name: str) -> str:
    return " ".join(name.replace("\u2019", "'").lower().split())


def _nested(holders: Sequence[str], text: str) -> str:
    """The row's text: a nested proposal that does not name the mind it is about gets the
    inner holders' "thinks" ("the ball is in the basket" held by Ann about Bob: "Bob thinks
    the ball is in the basket"), as the release writes nested rows."""
    inner = holders[1:]
    if inner and inner[0].lower() not in text.lower():
        text = "".join(f"{h} thinks " for h in inner) + text[:1].lower() + text[1:]
    return text[:1].upper() + text[1:]


def _same(a: OmniRow, b: OmniRow, *, loose: bool) -> bool:
    """Whether two rows of one actor and order say the same: the same content words (tense,
    articles and word order aside); ``loose``: or as close as the Stage 1 matcher asks of a
    match, or one's (three or more) all in the other's."""
    if a.actor != b.actor or a.order != b.order:
        return False
    x, y = content_tokens(a.belief), content_tokens(b.belief)
    if not x or not y:
        return a.belief.lower() == b.belief.lower()
    if x == y or not loose:
        return x == y
    dice = 2 * len(x & y) / (len(x) + len(y))
    return dice >= DEFAULT_TOKEN_THRESHOLD or (min(len(x), len(y)) >= 3 and (x <= y or y <= x))


def _tracked(row: ExtractedRow) -> bool:
    """Whether a graph row is about what the graph tracks: where a person or thing is, what
    a container holds (and who thinks so, at any depth), rather than a narrated event or a
    mental state it only carries through."""
    kind = row.belief.proposition.content_type
    return kind in ("Location", "Contents/Physical State")
