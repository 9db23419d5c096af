"""Shared belief computation lists exactly what computing every chain on its own lists.

The propagator computes one list of segments per distinct perception of a variable and the
graph labels it once per inner chain; ``reference_beliefs`` (the code as it was before, kept
in ``tests/reference_beliefs.py``) computes and labels every chain of ``chains(order)`` on its
own, with no pruning. The two must agree belief for belief, in the same order, under every
perception setting and trust policy, including policies that cut testimony at a depth or
keep bystanders out of it.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_beliefs import reference_beliefs
from story_strategies import ACTORS, event_sequences, story_of

from beliefgraph import BeliefGraph, PerceptionModel
from beliefgraph.models import Event, TrustEdge
from beliefgraph.solvers import ExitOrderTrust, FresherEvidenceTrust
from beliefgraph.solvers.trust import EdgeTrust

_SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _policies(edge_weights: list[float]):
    yield FresherEvidenceTrust()
    yield FresherEvidenceTrust(max_depth=2, bystanders_model_hearers=False)
    yield ExitOrderTrust()
    # Distrust between some pairs, so that whether a hearer adopts a claim depends on who
    # hears whom: chains that saw the same steps must still differ where their hearers do.
    pairs = [(a, b) for a in ACTORS for b in ACTORS if a != b]
    yield EdgeTrust(
        edges=tuple(
            TrustEdge(truster=a, trustee=b, weight=w)
            for (a, b), w in zip(pairs, edge_weights, strict=False)
        )
    )


@_SETTINGS
@given(
    event_sequences(max_events=12),
    st.lists(st.sampled_from([0.0, 0.2, 1.0]), min_size=12, max_size=12),
)
def test_shared_listing_equals_every_chain_computed_alone(
    events: list[Event], weights: list[float]
) -> None:
    story = story_of(events)
    for open_containers in (False, True):
        for policy in _policies(weights):
            graph = BeliefGraph(
                story, perception=PerceptionModel(open_containers=open_containers), trust=policy
            )
            for order in (4, 1, 3):  # the deepest first: later listings reuse shared results
                assert graph.beliefs(max_order=order) == reference_beliefs(graph, order)


@_SETTINGS
@given(event_sequences(max_events=10))
def test_questions_after_a_listing_equal_questions_on_a_fresh_graph(events: list[Event]) -> None:
    # Sharing must not leak one chain's result into another's, whichever is computed first.
    story = story_of(events)
    listed = BeliefGraph(story)
    listed.beliefs(max_order=3)
    fresh = BeliefGraph(story)
    for chain in fresh.chains(3):
        for var in fresh.variables:
            assert listed.timeline_of(chain, variable=var) == fresh.timeline_of(chain, variable=var)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(event_sequences(max_events=10))
def test_to_json_streams_the_reference_listing(events: list[Event]) -> None:
    graph = BeliefGraph(story_of(events), max_order=3)
    written = json.loads(graph.to_json())["beliefs"]
    assert written == [b.model_dump(mode="json") for b in reference_beliefs(graph, 3)]


def test_a_shared_belief_given_new_holders_equals_model_copy() -> None:
    # The listing's copy skips pydantic's copy.copy calls; it must give what model_copy gives.
    from beliefgraph.graph import _with_holders
    from beliefgraph.models import Belief, Proposition

    p = Proposition(content_type="Location", subject="ball", relation="in", value="box")
    b = Belief(holders=("Anne", "Sally"), proposition=p, start=3, truth_status="False",
               knowledge_access="Private", representation="Implicit",
               mental_source="Inference", context="Temporal", provenance=(3,))  # fmt: skip
    ours = _with_holders(b, ("Ben", "Sally"))
    theirs = b.model_copy(update={"holders": ("Ben", "Sally")})
    assert ours == theirs and ours.model_dump() == theirs.model_dump()
    assert ours.model_dump_json() == theirs.model_dump_json() and hash(ours) == hash(theirs)
    assert b.holders == ("Anne", "Sally")  # the template is untouched


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(event_sequences(max_events=10))
def test_to_json_writes_each_belief_as_its_own_dump_would(events: list[Event]) -> None:
    # Shared beliefs are dumped once and given each chain's holders: the text, key order
    # included, must be what dumping every belief gives.
    graph = BeliefGraph(story_of(events), max_order=3)
    written = json.loads(graph.to_json())["beliefs"]
    mine = [b.model_dump(mode="json") for b in graph.iter_beliefs()]
    assert json.dumps(written) == json.dumps(mine)
