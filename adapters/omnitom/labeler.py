"""Stage 2 from the graph: the seven OmniToM labels of a belief, none asked of an LLM.

Every label is read off the belief graph (``beliefgraph.labelling`` computes them when the
graph derives a belief), following the schema's rules (seed 000, App. A):

- Order: the length of the holder chain;
- Truth Status: against the story's reality (for a nested belief, against what the next
  holder in believes); with the z3 consistency solver (``beliefgraph.solvers.truth_status``)
  when it is importable and the graph is consistent, so Unknown is a finding of the solver;
  otherwise the graph's own label (True if entailed, False if contradicted, Unknown when the
  story never states the thing) and ``truth_note`` says why;
- Knowledge Access: who perceived the events behind the belief and still holds it (Private,
  Shared within a subgroup, Public as common ground); nested beliefs are Private. One
  OmniToM rule is applied on top of the graph's: a first-order belief about *another
  actor's* location or action is not made common by that actor's own awareness of where it
  is and what it did (the schema never counts self-knowledge as a belief; the paper's worked
  false-belief table, App. E Table 14, labels all three such rows Private). The graph counts
  that actor as a witness; ``docs/omnitom.md`` gives the core change this amounts to;
- Representation: Explicit for narrated facts and what was said, Implicit for what was
  perceived or inferred;
- Content Type: the proposition's type (Location wins when the proposition is where a thing
  is), Epistemic for beliefs about beliefs;
- Mental Source: Narration for world facts only, Perception, Memory once the holder can no
  longer look, Testimony, Inference for nested beliefs and defaults;
- Context: Temporal for outdated or past states, Deceptive when a lie produced the belief.

Limits: Counterfactual and Imagination need hypothetical frames, which the offline parser
never emits; orders above 3 are outside the schema and rejected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from beliefgraph.errors import BeliefGraphError, ConfigurationError
from beliefgraph.models import Belief, KnowledgeAccess, TruthStatus

from .records import OmniLabels

if TYPE_CHECKING:
    from beliefgraph.graph import BeliefGraph

__all__ = ["Labeler", "TruthMode", "solver_available"]

TruthMode = Literal["auto", "solver", "graph"]


def solver_available() -> bool:
    """Whether the z3 truth-status query (``beliefgraph.solvers.truth_status``) imports."""
    try:
        from beliefgraph.solvers import truth_status  # noqa: F401
    except ImportError:
        return False
    return True


class Labeler:
    """The OmniToM labels of the beliefs of one graph.

    Parameters
    ----------
    graph : BeliefGraph
        The tracked story.
    truth : {"auto", "solver", "graph"}
        Where Truth Status comes from: the consistency solver when it can be used (``auto``),
        always the solver (``solver``: raises when it cannot), or the graph's label.

    Examples
    --------
    >>> from beliefgraph import track
    >>> g = track("Alice and Bob are in a room. There is an object in a box. Bob leaves. "
    ...           "Alice moves the object to the safe.")
    >>> lab = Labeler(g, truth="graph")
    >>> b = g.belief(("Bob",), obj="object")
    >>> lab.labels(b).model_dump()  # doctest: +NORMALIZE_WHITESPACE
    {'order': '1', 'truth_status': 'False', 'knowledge_access': 'Private',
     'representation': 'Implicit', 'content_type': 'Location', 'mental_source': 'Memory',
     'context': 'Temporal'}
    """

    def __init__(self, graph: BeliefGraph, *, truth: TruthMode = "auto") -> None:
        if truth not in ("auto", "solver", "graph"):
            raise ConfigurationError(f"truth must be 'auto', 'solver' or 'graph', got {truth!r}")
        self.graph = graph
        self.truth = truth
        self.truth_note: str | None = None
        """Why Truth Status came from the graph rather than the solver (None: solver used)."""
        self._use_solver = self._decide(truth)
        self._cache: dict[Belief, OmniLabels] = {}
        self.solver_calls = 0
        self.solver_fallbacks = 0

    def _decide(self, truth: TruthMode) -> bool:
        if truth == "graph":
            self.truth_note = "truth='graph' was asked for"
            return False
        if not solver_available():
            if truth == "solver":
                raise ConfigurationError(
                    "truth='solver' needs beliefgraph.solvers.truth_status (the z3 consistency "
                    "checker), which does not import here; use truth='graph'"
                )
            self.truth_note = "the consistency solver is not importable"
            return False
        from beliefgraph.solvers import check

        try:
            report = check(self.graph)
        except BeliefGraphError as err:
            report, reason = None, f"the consistency check failed: {err}"
        else:
            reason = "" if report.consistent else f"the graph is inconsistent: {report.explain()}"
        if report is None or not report.consistent:
            if truth == "solver":
                raise ConfigurationError(f"truth='solver' cannot be used: {reason}")
            self.truth_note = reason
            return False
        return True

    @property
    def uses_solver(self) -> bool:
        """Whether Truth Status is asked of the z3 solver."""
        return self._use_solver

    def labels(self, belief: Belief) -> OmniLabels:
        """The seven labels of ``belief``.

        Raises
        ------
        ConfigurationError
            For a belief deeper than order 3 (the schema's cap).
        """
        if belief in self._cache:
            return self._cache[belief]
        if belief.order > 3:
            raise ConfigurationError(
                f"OmniToM labels orders 0-3; this belief has order {belief.order} "
                f"({' believes '.join(belief.holders)} believes {belief.proposition.render()})"
            )
        out = OmniLabels(
            order=str(belief.order),  # type: ignore[arg-type]
            truth_status=self._truth(belief),
            knowledge_access=self._access(belief),
            representation=belief.representation,
            content_type=belief.content_type,
            mental_source=belief.mental_source,
            context=belief.context,
        )
        self._cache[belief] = out
        return out

    def _access(self, belief: Belief) -> KnowledgeAccess:
        """The graph's access, except that an actor's self-knowledge shares nothing."""
        p = belief.proposition
        chain = belief.holders
        if (
            len(chain) != 1
            or p.subject == chain[0]
            or p.subject not in self.graph.actors
            or p.content_type not in ("Location", "Action/Event")
            or not belief.provenance
        ):
            return belief.knowledge_access
        graph = self.graph
        cast = self._cast
        step = graph.timeline.steps[belief.provenance[0] - 1]
        when = (belief.end - 1) if belief.end is not None else graph.end
        var = p.variable
        value = p.assigned
        sharing = {
            a
            for a in (step.perceivers & cast) - {p.subject}
            if (seg := graph.propagator.at((a,), var, when)) is not None and seg.value == value
        }
        if len(sharing) <= 1:
            return "Private"
        return "Public" if sharing >= cast - {p.subject} else "Shared"

    @property
    def _cast(self) -> frozenset[str]:
        steps = self.graph.timeline.steps
        return frozenset(a for a in self.graph.actors if any(a in s.perceivers for s in steps))

    def _truth(self, belief: Belief) -> TruthStatus:
        if not self._use_solver or not belief.holders:
            return belief.truth_status  # world facts are the reality the solver reads
        from beliefgraph.solvers import truth_status

        self.solver_calls += 1
        try:
            return truth_status(self.graph, belief)
        except BeliefGraphError:
            self.solver_fallbacks += 1  # a proposition the solver does not encode
            return belief.truth_status
