"""The belief graph: a story's events, the world over time, and every actor's beliefs."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from beliefgraph.errors import BeliefGraphError, ConfigurationError
from beliefgraph.labelling import reference, to_belief
from beliefgraph.models import Answer, Belief, Event, ParsedStory, Proposition
from beliefgraph.registry import resolve, trust_policies
from beliefgraph.solvers import PerceptionModel, Propagator, TrustPolicy, normalise_chain, simulate
from beliefgraph.solvers.heap import gc_paused
from beliefgraph.solvers.implied import Implied, implied_beliefs
from beliefgraph.solvers.perception import Value, Variable

if TYPE_CHECKING:  # networkx loads on the first to_networkx(), not on import
    import networkx as nx

__all__ = ["BeliefGraph"]

JSON_VERSION = 1


class BeliefGraph:
    """Beliefs of every holder chain, derived lazily from a parsed story.

    Build one with ``beliefgraph.track``; this constructor takes an already parsed story.

    Parameters
    ----------
    story : ParsedStory
        The typed events.
    perception : PerceptionModel, optional
        Perception settings (closed containers by default).
    trust : TrustPolicy or str, optional
        The trust policy or its registered name (``"default"``, ``"hitom"``).
    max_order : int
        The deepest chain ``beliefs()`` lists; queries may go deeper.

    Examples
    --------
    >>> from beliefgraph import track
    >>> g = track("Sally and Anne are in the room. Sally puts the ball in the basket. "
    ...           "Sally goes out. Anne moves the ball to the box.")
    >>> g.belief(("Sally",), obj="ball").proposition.value
    'basket'
    >>> g.belief(("Anne", "Sally"), obj="ball").proposition.value
    'basket'
    """

    def __init__(
        self,
        story: ParsedStory,
        *,
        perception: PerceptionModel | None = None,
        trust: TrustPolicy | str = "default",
        max_order: int = 4,
    ) -> None:
        if max_order < 0:
            raise ConfigurationError(f"max_order must be >= 0, got {max_order}")
        self.story = story
        self.perception = perception or PerceptionModel()
        self.trust: TrustPolicy = (
            resolve(trust_policies, trust, "trust policy")() if isinstance(trust, str) else trust
        )
        self.max_order = max_order
        self.timeline = simulate(story, self.perception)
        self.propagator = Propagator(self.timeline, self.trust)
        self.asserted: list[Belief] = []
        self._cast = frozenset(
            a for a in story.actors if any(a in s.perceivers for s in self.timeline.steps)
        )
        self.implied: Implied = implied_beliefs(story, self.timeline, self._cast)
        """The story's implied beliefs (``ParsedStory.implied``), typed and propagated."""
        self._nx: nx.MultiDiGraph | None = None
        self._events: tuple[Event, ...] | None = None
        # labelled beliefs shared by chains of order >= 2 (``_derived``)
        self._labelled: dict[tuple[int, tuple[Value] | None], Belief] = {}
        self._labelled_lists: dict[tuple[int, int], list[Belief]] = {}

    # -- the story ----------------------------------------------------------------------------
    @property
    def events(self) -> tuple[Event, ...]:
        """The events with their perceivers decided."""
        if self._events is None:  # read for every explanation: made once
            self._events = tuple(s.event for s in self.timeline.steps)
        return self._events

    @property
    def actors(self) -> tuple[str, ...]:
        """Actor names in order of first mention."""
        return self.story.actors

    @property
    def end(self) -> int:
        """The last time step."""
        return len(self.timeline.steps)

    @property
    def variables(self) -> tuple[Variable, ...]:
        """Every variable the story assigns or tells about, in first-mention order."""
        return tuple(self.timeline.propositions)

    def world(self, at: int | None = None) -> dict[Variable, Value]:
        """The true state after the event at time ``at`` (default: the end)."""
        return dict(self.timeline.world_at(self.end if at is None else at))

    # -- beliefs ------------------------------------------------------------------------------
    def belief(
        self,
        holders: Iterable[str],
        *,
        obj: str | None = None,
        variable: Variable | None = None,
        at: int | None = None,
    ) -> Belief | None:
        """What ``holders`` believe about ``obj``'s location (or any ``variable``) at ``at``.

        ``holders`` is the chain outermost first; ``()`` gives the world fact. Returns None
        when the chain has no belief about it.
        """
        chain = self._chain(holders)
        var = self._variable(obj, variable)
        t = self.end if at is None else at
        if not any(b.holders == chain for b in (*self.asserted, *self.implied.beliefs)):
            # Only the belief held at t is labelled, not the chain's whole history.
            held = self._derived(chain, var, t)
            return held[-1] if held else None
        for b in reversed(self.timeline_of(chain, variable=var)):
            if b.holds_at(t):
                return b
        return None

    def timeline_of(
        self, holders: Iterable[str], *, obj: str | None = None, variable: Variable | None = None
    ) -> list[Belief]:
        """Every belief of the chain about the variable, in time order."""
        chain = self._chain(holders)
        var = self._variable(obj, variable)
        asserted = [
            b
            for b in (*self.asserted, *self.implied.beliefs)
            if b.holders == chain and b.proposition.variable == var
        ]
        derived = self._derived(chain, var)
        return sorted(derived + asserted, key=lambda b: b.start) if asserted else derived

    def _derived(
        self, chain: tuple[str, ...], var: Variable, at: int | None = None
    ) -> list[Belief]:
        """The chain's propagated beliefs about ``var`` (held at ``at``, if given), labelled.

        Beyond order 1 a belief's labels read only its segment and the value of the inner
        holder's belief it is judged against (``labelling.reference``): source Inference,
        access Private, truth by that value. Chains whose segments are shared share one
        labelled belief per segment and value, and differ only in their holders: one
        cheap copy each (``_with_holders``) instead of labelling every chain anew.
        """
        return [
            b if b.holders == chain else _with_holders(b, chain)
            for b in self._templates(chain, var, at)
        ]

    def _templates(
        self, chain: tuple[str, ...], var: Variable, at: int | None = None
    ) -> list[Belief]:
        """``_derived`` before the holders are set: labelled beliefs that may belong to another
        chain sharing them (each lives as long as the graph); ``to_json`` dumps each once."""
        prop = self.propagator
        segs = prop.segments(chain, var)
        if not segs:
            return []
        if len(chain) < 2:
            return [
                to_belief(chain, s, prop, self._cast) for s in segs if at is None or s.holds_at(at)
            ]
        # Labelled once per pair of lists (which fixes each belief's reference), and once per
        # segment and reference value across pairs; ``inner`` lives as long as ``segs`` does.
        inner = prop.segments(chain[1:], var)
        templates = self._labelled_lists.get((id(segs), id(inner)))
        if templates is None:
            templates = []
            for s in segs:
                ref = reference(chain, s, prop)
                key = (id(s), None if ref is None else (ref.value,))
                b = self._labelled.get(key)
                if b is None:
                    b = self._labelled[key] = to_belief(chain, s, prop, self._cast)
                templates.append(b)
            self._labelled_lists[(id(segs), id(inner))] = templates
        if at is None:
            return templates  # shared: read, do not change
        return [b for b in templates if b.holds_at(at)]

    def beliefs(self, *, max_order: int | None = None, at: int | None = None) -> list[Belief]:
        """Every belief up to ``max_order`` (world facts first), optionally only those at ``at``.

        Built with the cyclic garbage collector paused (``solvers.heap.gc_paused``): every
        belief listed survives the call, and the collections half a million of them would
        trigger walked the growing list again and again (a third of a long story's listing).
        """
        with gc_paused():
            return list(self.iter_beliefs(max_order=max_order, at=at))

    def iter_beliefs(
        self, *, max_order: int | None = None, at: int | None = None
    ) -> Iterator[Belief]:
        """``beliefs()`` one at a time, computed as they are consumed.

        The order is ``beliefs()``'s: by chain (shortest first, as ``chains`` lists them), then
        by variable. Chains are pruned to those whose members together perceived something
        (``Propagator.may_believe``), so a big cast costs what its co-present groups cost, not
        actors ** order; a chain with a hand-asserted belief is always visited.
        """
        for b, chain in self._listing(max_order, at):
            yield b if b.holders == chain else _with_holders(b, chain)

    def _listing(
        self, max_order: int | None, at: int | None
    ) -> Iterator[tuple[Belief, tuple[str, ...]]]:
        """``iter_beliefs`` as (belief, chain) pairs: the belief is a shared template when its
        holders are not the chain's (``_templates``)."""
        order = self.max_order if max_order is None else max_order
        given = (*self.asserted, *self.implied.beliefs)
        asserted: dict[tuple[tuple[str, ...], Variable], list[Belief]] = {}
        for b in given:
            asserted.setdefault((b.holders, b.proposition.variable), []).append(b)
        variables = self.variables
        for chain in self._perceiving_chains(order, {c for c, _ in asserted}):
            for var in variables:
                mine = asserted.get((chain, var))
                if mine is None:
                    # A chain that perceived nothing about var has no segments, found at the
                    # cost of ``Propagator.may_believe``'s test.
                    for b in self._templates(chain, var, at):
                        yield b, chain
                    continue
                # as ``timeline_of``: derived and asserted together, in time order
                for b in sorted(self._derived(chain, var) + mine, key=lambda b: b.start):
                    if at is None or b.holds_at(at):
                        yield b, b.holders
        # Implied beliefs about what no event sets (an intention, a feeling) come last.
        known = set(variables)
        for b in given:
            fresh = b.proposition.variable not in known and not b.asserted
            if fresh and len(b.holders) <= order and (at is None or b.holds_at(at)):
                yield b, b.holders

    def _perceiving_chains(
        self, max_order: int, keep: set[tuple[str, ...]]
    ) -> Iterator[tuple[str, ...]]:
        """``chains(max_order)`` without those no belief can reach, in the same order.

        A chain holds a belief only if its members all perceived one step that shows or tells
        something (or all but a speaker's addressee did); each proper prefix then fits in that
        step's perceivers, which prunes the search as it goes.
        """
        groups = list(
            {s.perceivers for s in self.timeline.steps if s.reveals or s.event.kind == "tell"}
        )
        prefixes = {c[:i] for c in keep for i in range(len(c) + 1)}
        addressed = {
            (s.event.agent, h)
            for s in self.timeline.steps
            if s.event.kind == "tell"
            for h in s.event.hearers
        }
        cast = [a for a in self.actors if a in self._cast]

        def fits(members: frozenset[str]) -> bool:
            return any(members <= g for g in groups)

        def extend(chain: tuple[str, ...], n: int) -> Iterator[tuple[str, ...]]:
            if len(chain) == n:
                yield chain
                return
            for a in cast:
                if chain and chain[-1] == a:
                    continue
                longer = (*chain, a)
                # A full chain may also end in a speaker's addressee who missed the telling
                # (``may_believe`` decides); a proper prefix must fit one group.
                if (
                    fits(frozenset(longer))
                    or longer in prefixes
                    or (len(longer) == n and chain and (chain[-1], a) in addressed)
                ):
                    yield from extend(longer, n)

        yield ()
        for n in range(1, max_order + 1):
            yield from extend((), n)

    def chains(self, max_order: int) -> Iterator[tuple[str, ...]]:
        """Every holder chain up to ``max_order`` without adjacent repeats, shortest first."""
        cast = [a for a in self.actors if a in self._cast]
        yield ()
        for n in range(1, max_order + 1):
            for chain in itertools.product(cast, repeat=n):
                if all(a != b for a, b in itertools.pairwise(chain)):
                    yield chain

    def possible(
        self, holders: Iterable[str], query: Variable | str, *, at: int | None = None
    ) -> tuple[Value | None, ...]:
        """Every value the chain's picture of ``query`` can take at ``at`` (default: the end).

        Decided by the z3 consistency solver, not by propagation's own reading, so truth
        status Unknown comes from the solver. ``query`` is a variable or an object's name
        (its location); ``None`` stands for a value the story never names.

        See Also
        --------
        beliefgraph.solvers.possible
        """
        from beliefgraph.solvers.possible import possible

        return possible(self, holders, query, at=at)

    def add_belief(self, belief: Belief) -> None:
        """Assert a belief by hand (a user's, or a gold table's); marked ``asserted``."""
        self.asserted.append(belief.model_copy(update={"asserted": True}))
        self._nx = None

    # -- questions ----------------------------------------------------------------------------
    def ask(self, question: str) -> Answer:
        """Answer a templated ToMi / Hi-ToM / ToMBench question, with an explanation.

        Raises
        ------
        UnsupportedQuestionError
            When the question's form is not one the reader understands.
        """
        from beliefgraph.questions import answer

        return answer(self, question)

    # -- views --------------------------------------------------------------------------------
    def to_networkx(self) -> nx.MultiDiGraph:
        """Actors, propositions and events as nodes; holds / about / derived-from edges."""
        if self._nx is None:
            self._nx = _build_networkx(self)
        return self._nx.copy()

    def to_json(self, *, indent: int | None = None, max_order: int | None = None) -> str:
        """Serialise the story, the settings, hand-asserted beliefs and the derived beliefs.

        ``max_order`` bounds the beliefs written (default: the graph's ``max_order``); the
        beliefs are streamed from ``iter_beliefs``, so only chains that perceived something
        are visited.
        """
        order = self.max_order if max_order is None else max_order
        if order < 0:
            raise ConfigurationError(f"max_order must be >= 0, got {order}")
        policy = self.trust
        payload: dict[str, Any] = {
            "version": JSON_VERSION,
            "story": self.story.model_dump(mode="json"),
            "perception": self.perception.model_dump(mode="json"),
            "trust": policy.model_dump(mode="json")
            if hasattr(policy, "model_dump")
            else policy.name,
            "max_order": self.max_order,
            "beliefs_max_order": order,
            "asserted": [b.model_dump(mode="json") for b in self.asserted],
            "beliefs": self._dumped(order),
        }
        return json.dumps(payload, indent=indent, ensure_ascii=False)

    def _dumped(self, order: int) -> list[dict[str, Any]]:
        """The listing in JSON form; a belief shared by many chains is dumped once and given
        each chain's holders (dumping is most of the cost of writing half a million)."""
        out: list[dict[str, Any]] = []
        shared: dict[int, dict[str, Any]] = {}  # id(template) -> its dump; templates live on
        with gc_paused():  # as ``beliefs``: every dump made here survives the call
            for b, chain in self._listing(order, None):
                if b.holders == chain:
                    out.append(b.model_dump(mode="json"))
                    continue
                found = shared.get(id(b))
                if found is None:
                    found = shared[id(b)] = b.model_dump(mode="json")
                out.append({**found, "holders": list(chain)})
        return out

    @classmethod
    def from_json(cls, text: str) -> BeliefGraph:
        """Rebuild a graph from ``to_json`` output; the derived beliefs are checked to match."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise BeliefGraphError(f"not a belief graph JSON document: {err}") from None
        version = data.get("version") if isinstance(data, dict) else None
        if version != JSON_VERSION:
            raise BeliefGraphError(
                f"unsupported belief graph JSON (version {version!r}); "
                f"this beliefgraph reads version {JSON_VERSION}"
            )
        trust_spec = data["trust"]
        if isinstance(trust_spec, dict):
            settings = dict(trust_spec)
            trust: TrustPolicy | str = resolve(trust_policies, settings["name"], "trust policy")(
                **settings
            )
        else:
            trust = trust_spec
        graph = cls(
            ParsedStory.model_validate(data["story"]),
            perception=PerceptionModel.model_validate(data["perception"]),
            trust=trust,
            max_order=data["max_order"],
        )
        for b in data.get("asserted", []):
            graph.asserted.append(Belief.model_validate(b))
        stored = [Belief.model_validate(b) for b in data.get("beliefs", [])]
        listed = data.get("beliefs_max_order", graph.max_order)
        if stored and stored != graph.beliefs(max_order=listed):
            raise BeliefGraphError(
                "the stored beliefs differ from those the story derives; the file was edited "
                "or written by another version. Add hand-made beliefs under 'asserted'."
            )
        return graph

    # -- helpers ------------------------------------------------------------------------------
    def _chain(self, holders: Iterable[str]) -> tuple[str, ...]:
        if isinstance(holders, str):
            holders = (holders,)
        chain = normalise_chain(tuple(holders))
        unknown = [h for h in chain if h not in self.actors]
        if unknown:
            raise BeliefGraphError(
                f"unknown actor(s) {unknown} in holder chain {chain}; "
                f"the story's actors are {list(self.actors)}"
            )
        return chain

    def _variable(self, obj: str | None, variable: Variable | None) -> Variable:
        if (obj is None) == (variable is None):
            raise ConfigurationError("give exactly one of obj= or variable=")
        return variable if variable is not None else (obj or "", "in")

    def __repr__(self) -> str:
        return (
            f"BeliefGraph({len(self.events)} events, {len(self.actors)} actors, "
            f"trust={self.trust.name!r}, max_order={self.max_order})"
        )


def _with_holders(belief: Belief, chain: tuple[str, ...]) -> Belief:
    """``belief.model_copy(update={"holders": chain})`` for the listing's inner loop.

    What pydantic's ``__copy__`` does, without its three ``copy.copy`` calls (a third of the
    time of listing 500,000 beliefs): a frozen model never changes its dict or its set of
    fields, so the copy may share the set; the dict is new. ``tests/test_belief_sharing.py``
    checks the result equals ``model_copy``'s.
    """
    new = Belief.__new__(Belief)
    object.__setattr__(new, "__dict__", {**belief.__dict__, "holders": chain})
    object.__setattr__(new, "__pydantic_fields_set__", belief.__pydantic_fields_set__)
    object.__setattr__(new, "__pydantic_extra__", None)
    object.__setattr__(new, "__pydantic_private__", None)
    return new


def _prop_node(p: Proposition) -> str:
    return f"prop:{p.render()}"


def _build_networkx(graph: BeliefGraph) -> nx.MultiDiGraph:
    import networkx as nx

    g = nx.MultiDiGraph()
    for a in graph.actors:
        g.add_node(f"actor:{a}", kind="actor", name=a)
    for ent in graph.story.entities:
        g.add_node(f"entity:{ent.name}", kind=ent.kind, name=ent.name)
    for e in graph.events:
        node = f"event:{e.id}"
        g.add_node(node, kind="event", event=e.model_dump(mode="json"))
        for a in e.perceivers or ():
            g.add_edge(f"actor:{a}", node, key="perceives", relation="perceives")
    for i, b in enumerate([*graph.beliefs(), *graph.asserted]):
        p = _prop_node(b.proposition)
        g.add_node(p, kind="proposition", proposition=b.proposition.model_dump(mode="json"))
        holder = f"actor:{b.holders[0]}" if b.holders else "world"
        if not b.holders:
            g.add_node("world", kind="world")
        g.add_edge(holder, p, key=f"belief:{i}", relation="holds", belief=b.model_dump(mode="json"))
        for inner in b.holders[1:]:
            g.add_edge(holder, f"actor:{inner}", key=f"belief:{i}", relation="about")
        for ev in b.provenance:
            g.add_edge(p, f"event:{ev}", key=f"belief:{i}", relation="derived-from")
    return g
