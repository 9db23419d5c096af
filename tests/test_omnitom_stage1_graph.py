"""Stage 1 proposals as graph beliefs (issue 16, item 3).

Each ``omnitom.beliefs.v1`` proposal held by someone enters the graph as an implied belief
with its evidence sentences (``admit``); its row is rendered from that belief; the perception
model (with groups and scenes) decides whether its holder perceived the evidence, and the
``inference_evidence`` axiom objects to an inference whose holder perceived none of it: such a
proposal is kept and flagged, never silently dropped.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from beliefgraph import track
from beliefgraph.adapters.omnitom.proposals import (
    BeliefProposals,
    admit,
    merge_proposals,
    resolve_actor,
)
from beliefgraph.solvers import check

STORY = (
    "Ann and Bob are in the kitchen. Bob leaves the kitchen. Ann eats the pie. Ann eats the cake."
)


def _read(rows: list[dict]) -> BeliefProposals:
    return BeliefProposals.model_validate({"rows": rows}, context={"sentences": 4})


def test_each_held_proposal_is_an_implied_belief_with_its_evidence() -> None:
    graph = track(STORY)
    read = _read(
        [
            {"holders": [], "belief": "Ann eats the pie", "sentences": [3]},
            {"holders": ["ann"], "belief": "Ann wants more pie", "sentences": [3, 4],
             "how": "narrated"},
            {"holders": ["Ann", "Bob"], "belief": "The pie is in the kitchen",
             "sentences": [1], "how": "inferred"},
            {"holders": ["Bob"], "belief": "Ann is hungry", "sentences": [], "how": "inferred"},
            {"holders": ["Bob"], "belief": "Ann heard Bob leave", "sentences": [2],
             "how": "heard"},
        ]
    )  # fmt: skip
    admitted = admit(graph, read)
    # a world fact is narration, and a proposal citing no sentence has no evidence to hold
    assert admitted.index == [None, 0, 1, None, 2]
    story = admitted.graph.story
    assert [(ib.holders, ib.evidence, ib.how) for ib in story.implied] == [
        (("Ann",), (2, 3), "implied"),  # narrated: the holder's own mind, stated
        (("Ann", "Bob"), (0,), "inferred"),
        (("Bob",), (1,), "told"),
    ]
    # the rules parser types what it can read; the rest keeps its words
    assert story.implied[1].proposition.variable == ("pie", "in")
    assert story.implied[0].proposition.content_type == "Desire/Intention"
    beliefs = admitted.graph.implied.proposed
    assert [b.mental_source for b in beliefs] == ["Inference", "Inference", "Testimony"]
    # the parse's own graph is not changed
    assert graph.story.implied == ()


def test_rows_are_rendered_from_the_graph_beliefs() -> None:
    graph = track(STORY)
    read = _read(
        [
            {"holders": ["Ann", "Bob"], "belief": "The pie is in the kitchen",
             "sentences": [1], "how": "inferred"},
            {"holders": ["Ann", "Bob"], "belief": "Bob wants to leave", "sentences": [2],
             "how": "inferred"},
        ]
    )  # fmt: skip
    merged = merge_proposals(graph, [], read)
    assert [(r.actor, r.belief, r.order) for r in merged.rows] == [
        ("Ann", "Bob thinks the pie is in the kitchen", 2),
        ("Ann", "Bob wants to leave", 2),  # the words already say whose mind it is
    ]
    assert merged.sources == ["proposal", "proposal"] and not merged.flagged


def test_an_inference_from_unperceived_evidence_is_kept_flagged_and_named_by_z3() -> None:
    graph = track(STORY)
    read = _read(
        [
            {"holders": ["Bob"], "belief": "Ann finished the pie", "sentences": [3],
             "how": "inferred"},
            {"holders": ["Ann"], "belief": "Bob is gone", "sentences": [2], "how": "saw"},
        ]
    )  # fmt: skip
    merged = merge_proposals(graph, [], read)
    assert [r.belief for r in merged.rows] == ["Bob is gone", "Ann finished the pie"]
    assert merged.flagged == [
        "Bob: 'Ann finished the pie': Bob perceived none of sentence 3 (inferred)"
    ]
    assert not merged.rejected
    report = check(admit(graph, read).graph)
    (conflict,) = [c for c in report.conflicts if "inference_evidence" in c.axioms]
    assert conflict.beliefs[0].holders == ("Bob",)
    assert 'Bob perceived none of its evidence: sentence 3 ("Ann eats the pie.")' in (
        conflict.explanation
    )
    # asked to, the table leaves out a seen or heard claim the perception model denies, with
    # the reason; an inference stays (flagged)
    denied = _read(
        [
            {"holders": ["Bob"], "belief": "Ann ate the pie", "sentences": [3], "how": "saw"},
            {"holders": ["Bob"], "belief": "Ann finished the pie", "sentences": [3],
             "how": "inferred"},
        ]
    )  # fmt: skip
    strict = merge_proposals(graph, [], denied, perception=True)
    assert [r.belief for r in strict.rows] == ["Ann finished the pie"]
    assert strict.rejected == ["Bob: 'Ann ate the pie': Bob perceived none of sentence 3 (saw)"]
    assert len(strict.flagged) == 2


def test_an_actors_own_state_propagates_to_whoever_saw_the_act() -> None:
    story = "Ann, Bob and Cid are in the kitchen. Cid leaves the kitchen. Ann eats the pie."
    graph = track(story)
    read = BeliefProposals.model_validate(
        {"rows": [{"holders": ["Ann"], "belief": "Ann wants more pie", "sentences": [3],
                   "how": "narrated"}]},
        context={"sentences": 3},
    )  # fmt: skip
    merged = merge_proposals(graph, [], read, propagate=True)
    rows = [
        (r.actor, r.belief, r.order, src)
        for r, src in zip(merged.rows, merged.sources, strict=True)
    ]
    assert ("Ann", "Ann wants more pie", 1, "proposal") in rows
    assert ("Bob", "Ann wants more pie", 2, "propagated") in rows  # he saw her eat
    assert not any(r[0] == "Cid" for r in rows)  # she had left
    assert len(merge_proposals(graph, [], read).rows) == 1  # off by default


def test_holders_are_read_as_the_storys_actors_and_spelled_as_proposed() -> None:
    actors = ["Old Chen", "everyone", "grandfather", "Xiao Wei", "classmates"]
    assert resolve_actor("Minister Old Chen", actors) == "Old Chen"
    assert resolve_actor("everyone in the company", actors) == "everyone"
    assert resolve_actor("Xiao Wei's grandfather", actors) == "grandfather"
    assert resolve_actor("the Classmates", actors) == "classmates"
    assert resolve_actor("Xiao", actors) is None
    assert resolve_actor("Chen", ["Old Chen", "Young Chen"]) is None  # never a guess


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([[], ["Ann"], ["Bob"], ["Ann", "Bob"], ["the Bob"], ["Carol"]]),
            st.sampled_from(["Ann eats the pie", "The pie is gone", "Bob is sad"]),
            st.lists(st.integers(1, 4), max_size=2),
            st.sampled_from(["saw", "heard", "inferred", "narrated", "remembers"]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_every_proposal_is_in_the_graph_listed_or_accounted_for(rows) -> None:
    graph = _GRAPH
    read = _read([{"holders": h, "belief": b, "sentences": n, "how": how}
                  for h, b, n, how in rows])  # fmt: skip
    admitted = admit(graph, read)
    implied = admitted.graph.implied
    for (h, _, n, _), k in zip(rows, admitted.index, strict=True):
        assert (k is None) == (not h or not n)  # held and cited: a graph belief
        if k is not None:
            assert admitted.graph.story.implied[k].evidence == tuple(sorted({x - 1 for x in n}))
    merged = merge_proposals(graph, [], read)
    unsupported = sum(not ok for ok in implied.supported)
    assert len(merged.flagged) <= unsupported  # flagged ones are unsupported ones
    for h, b, _, _ in rows:  # nothing silently dropped: listed, or said by an equal row
        actor = h[0] if h else "world"  # a name the story does not spell so is kept as given
        assert any(r.actor == actor and r.order == len(h) for r in merged.rows) or any(
            x.startswith(f"{actor}: {b!r}") for x in merged.rejected
        )


_GRAPH = track(STORY)


def test_a_proposal_left_out_never_propagates() -> None:
    # Bob ends the story thinking the apple is in the basket: the graph's rows stand for
    # the apple, so Ann's proposal about it is left out, and no witness row comes from it.
    story = (
        "Ann and Bob are in the kitchen. There is an apple in the basket. Ann eats the pie. "
        "Bob leaves the kitchen. Ann moves the apple to the box."
    )
    graph = track(story)
    read = BeliefProposals.model_validate(
        {"rows": [
            {"holders": ["Ann"], "belief": "Ann wants the apple", "sentences": [3],
             "how": "narrated"},
            {"holders": ["Ann"], "belief": "Ann is hungry", "sentences": [3],
             "how": "narrated"},
        ]},
        context={"sentences": 5},
    )  # fmt: skip
    merged = merge_proposals(graph, [], read, propagate=True)
    assert any("Ann wants the apple" in r and "tracks the apple" in r for r in merged.rejected)
    propagated = [r.belief for r, s in zip(merged.rows, merged.sources, strict=True)
                  if s == "propagated"]  # fmt: skip
    assert propagated == ["Ann is hungry"]  # Bob saw her eat the pie
