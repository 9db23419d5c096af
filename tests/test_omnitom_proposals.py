"""Stage 1 belief proposals: the OmniToM-only request, its validation, and how the engine
merges a reply with the graph (perception rules proposals out, the graph adds what it tracks).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from beliefgraph import track
from beliefgraph.adapters.omnitom import extract
from beliefgraph.adapters.omnitom.proposals import (
    PROMPT_VERSION,
    BeliefProposals,
    Proposer,
    merge_proposals,
    proposal_messages,
)

STORY = (
    "Ann and Bob are in the kitchen. There is an apple in the basket. Bob leaves the kitchen. "
    "Ann moves the apple to the box."
)
SENTENCES = [
    "Ann and Bob are in the kitchen.",
    "There is an apple in the basket.",
    "Bob leaves the kitchen.",
    "Ann moves the apple to the box.",
]


def _reply(rows: list[dict]) -> BeliefProposals:
    return BeliefProposals.model_validate({"rows": rows}, context={"sentences": len(SENTENCES)})


class _Client:
    """A stand-in LLM client that records its requests and answers with a fixed reply."""

    def __init__(self, rows: list[dict]) -> None:
        self.rows = rows
        self.requests: list[dict] = []

    def extract(self, response_model, messages, *, context=None, prompt=None):
        self.requests.append({"messages": messages, "context": context, "prompt": prompt})
        return response_model.model_validate({"rows": self.rows}, context=context)


def test_the_request_holds_the_story_only_and_is_versioned() -> None:
    client = _Client([{"holders": [], "belief": "Ann moves the apple", "sentences": [4]}])
    Proposer(client).propose(SENTENCES)
    (req,) = client.requests
    assert req["prompt"] == PROMPT_VERSION == "omnitom.beliefs.v1"
    system, user = req["messages"]
    assert system["role"] == "system" and "minimal proposition" in system["content"]
    # independent of the parse: the user message is the numbered story and nothing else
    assert user["content"] == proposal_messages(SENTENCES)[1]["content"]
    assert user["content"].splitlines()[1:] == [f"[{i}] {s}" for i, s in enumerate(SENTENCES, 1)]
    assert req["context"] == {"sentences": 4}


def test_a_reply_citing_a_sentence_outside_the_story_is_refused() -> None:
    with pytest.raises(ValidationError, match=r"sentence numbers \[9\] are not 1\.\.4"):
        _reply([{"holders": ["Ann"], "belief": "Bob left", "sentences": [9], "how": "saw"}])
    with pytest.raises(ValidationError, match="no rows"):
        _reply([])
    with pytest.raises(ValidationError, match="'world' is not a holder"):
        _reply([{"holders": ["Ann", "world"], "belief": "Bob left", "sentences": [3]}])
    # the release's spelling of a world fact is read as one
    assert (
        _reply([{"holders": ["World"], "belief": "Bob left", "sentences": [3]}]).rows[0].holders
        == []
    )


def test_merge_keeps_what_the_holder_could_perceive_and_says_why_it_drops_the_rest() -> None:
    graph = track(STORY)
    read = _reply(
        [
            {"holders": [], "belief": "Bob leaves the kitchen.", "sentences": [3]},
            {"holders": ["ann"], "belief": "The apple is in the box", "sentences": [4],
             "how": "saw"},
            # Bob was gone: he cannot have seen the move
            {"holders": ["Bob"], "belief": "The apple is in the box", "sentences": [4],
             "how": "saw"},
            # ... but a belief he worked out is not a perception claim
            {"holders": ["Bob"], "belief": "Ann may tidy the kitchen", "sentences": [4],
             "how": "inferred"},
            {"holders": ["Ann", "Bob"], "belief": "Bob thinks the apple is in the basket",
             "sentences": [2, 3], "how": "inferred"},
        ]
    )  # fmt: skip
    merged = merge_proposals(graph, [], read, add="none", perception=True)
    got = [(r.actor, r.belief, r.order) for r in merged.rows]
    assert got == [
        ("world", "Bob leaves the kitchen", 0),
        ("Ann", "The apple is in the box", 1),  # the holder's name as the graph spells it
        ("Ann", "Bob thinks the apple is in the basket", 2),
        ("Bob", "Ann may tidy the kitchen", 1),
    ]
    assert merged.sources == ["proposal"] * 4
    assert merged.rejected == [
        "Bob: 'The apple is in the box': Bob perceived none of sentence 4 (saw)"
    ]
    # without the perception check (the default) the proposal stays
    assert len(merge_proposals(graph, [], read, add="none").rows) == 5


def test_merge_adds_the_tracked_rows_no_proposal_says_and_never_repeats_one() -> None:
    graph = track(STORY)
    rows = extract(graph)
    read = _reply(
        [
            {"holders": [], "belief": "Ann moves the apple to the box", "sentences": [4]},
            {"holders": ["Bob"], "belief": "The apple is in the basket", "sentences": [2],
             "how": "saw"},
        ]
    )  # fmt: skip
    merged = merge_proposals(graph, rows, read, add="tracked")
    pairs = [(r.actor, r.belief) for r in merged.rows]
    # the graph's location rows join; the proposal's wording wins where both say it
    assert ("Bob", "The apple is in the basket") in pairs
    assert pairs.count(("Bob", "The apple is in the basket")) == 1
    assert ("Ann", "The apple is in the box") in pairs
    assert ("Ann", "Bob thinks the apple is in the basket") in pairs
    assert ("world", "Ann moves the apple to the box") in pairs
    kinds = {x.row.belief: x.belief.proposition.content_type for x in rows}
    graph_rows = [r for r, src in zip(merged.rows, merged.sources, strict=True) if src == "graph"]
    assert graph_rows and {kinds[r.belief] for r in graph_rows} <= {
        "Location",
        "Contents/Physical State",
    }
    # world facts first, then each actor in first-mention order
    actors = [r.actor for r in merged.rows]
    assert actors == sorted(actors, key=["world", "Ann", "Bob"].index)
    # "all" adds every graph row not already said; "none" adds nothing
    assert len(merge_proposals(graph, rows, read, add="all").rows) >= len(merged.rows)
    assert len(merge_proposals(graph, rows, read, add="none").rows) == 2


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([[], ["Ann"], ["Bob"], ["Ann", "Bob"], ["Carol"]]),
            st.sampled_from(["The apple is in the box", "Bob leaves the kitchen",
                             "Ann is kind", "The apple is red"]),
            st.lists(st.integers(1, 4), max_size=2),
            st.sampled_from(["saw", "heard", "inferred", "narrated"]),
        ),
        min_size=1,
        max_size=8,
    )
)  # fmt: skip
def test_every_proposal_is_listed_once_or_ruled_out_with_a_reason(rows) -> None:
    graph = _GRAPH
    read = _reply([{"holders": h, "belief": b, "sentences": n, "how": how}
                   for h, b, n, how in rows])  # fmt: skip
    merged = merge_proposals(graph, [], read, add="none", perception=True)
    keys = [(r.actor, r.order, r.belief) for r in merged.rows]
    assert len(keys) == len(set(keys))  # nothing twice
    for h, b, _, _ in rows:
        actor = h[0] if h else "world"
        # nothing silently dropped: listed (a nested one naming the inner mind), said by
        # another row of the same holder and order, or ruled out with its reason
        assert (
            any(k[:2] == (actor, len(h)) and b.lower() in k[2].lower() for k in keys)
            or any(k[:2] == (actor, len(h)) for k in keys)
            or any(r.startswith(f"{actor}: {b!r}") for r in merged.rejected)
        )
    assert all(r.order == 0 for r in merged.rows if r.actor == "world")
    # a holder the graph does not know is kept as named unless perception rules it out
    for h, b, _, how in rows:
        if h == ["Carol"] and how in ("inferred", "narrated"):
            assert any(k[0] == "Carol" and b.lower() in k[2].lower() for k in keys)
    json.dumps([r.model_dump() for r in merged.rows])  # the rows serialise


def test_where_the_graph_tracks_a_false_belief_its_rows_stand_for_what_it_tracks() -> None:
    graph = track(STORY)  # Bob ends the story thinking the apple is in the basket
    rows = extract(graph)
    read = _reply(
        [
            {"holders": [], "belief": "Ann and Bob chat in the kitchen", "sentences": [1]},
            {"holders": ["Ann"], "belief": "Bob does not know the apple was moved",
             "sentences": [4], "how": "inferred"},
            {"holders": ["Ann"], "belief": "Bob will be annoyed", "sentences": [4],
             "how": "inferred"},
        ]
    )  # fmt: skip
    merged = merge_proposals(graph, rows, read)  # add="auto"
    graph_rows = [x.row for x in rows]
    # every graph row, in the graph's words and order, and the proposal about anything else
    # among its holder's rows
    from_graph = [r for r, s in zip(merged.rows, merged.sources, strict=True) if s == "graph"]
    assert from_graph == graph_rows
    (added,) = [r for r, s in zip(merged.rows, merged.sources, strict=True) if s == "proposal"]
    assert (added.actor, added.belief, added.order) == ("Ann", "Bob will be annoyed", 1)
    actors = [r.actor for r in merged.rows]
    assert actors == sorted(actors, key=["world", "Ann", "Bob"].index)
    assert len(merged.rejected) == 2
    assert all("the graph tracks the" in r and "against a false belief" in r
               for r in merged.rejected)  # fmt: skip
    # where nobody holds a false belief, the graph adds nothing and rules nothing out
    calm = track("Ann and Bob are in the kitchen. Ann puts the apple in the box.")
    plain = merge_proposals(calm, extract(calm), read)
    assert [r.belief for r in plain.rows] == [
        "Ann and Bob chat in the kitchen",
        "Bob does not know the apple was moved",
        "Bob will be annoyed",
    ]
    assert plain.sources == ["proposal"] * 3 and not plain.rejected


def test_stage1_table_falls_back_to_the_graph_and_says_why_when_no_answer_came(
    tmp_path,
) -> None:
    from beliefgraph.adapters.omnitom import stage1_table
    from beliefgraph.parsers.llm.errors import AnswerPending

    class Pending:
        def extract(self, response_model, messages, *, context=None, prompt=None):
            raise AnswerPending(
                "written to b.jsonl", path=tmp_path / "b.jsonl", custom_id=f"{prompt}:x"
            )

    graph = track(STORY)
    table, note = stage1_table(graph, proposer=Proposer(Pending()))
    assert [r.belief for r in table.rows] == [x.row.belief for x in extract(graph)]
    assert set(table.sources) == {"graph"}
    assert note is not None and note.startswith("no belief proposals (written to b.jsonl)")
    # with an answer, the proposals join (here the graph tracks a false belief: its rows stand)
    answered = _Client([{"holders": ["Ann"], "belief": "Bob will be cross", "sentences": [4],
                         "how": "inferred"}])  # fmt: skip
    table, note = stage1_table(graph, proposer=Proposer(answered))
    assert note is None and table.sources.count("proposal") == 1
    assert (
        answered.requests[0]["messages"][1]["content"] == proposal_messages(SENTENCES)[1]["content"]
    )


_GRAPH = track(STORY)
