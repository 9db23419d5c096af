"""The LLM StoryTurn reader's own readings of a parse (``adapters.commet``): a request that
names a thing by its size becomes a superlative reference each hearer resolves among what it
can see, as the hand-checked parses write it. Hand-built specs; no model."""

from __future__ import annotations

from beliefgraph.adapters.commet import _size_request
from beliefgraph.models import Proposition
from beliefgraph.reasoning import EventSpec, RequestQuery, StoryBuilder, answer_query

COOKIES = ["small cookie", "medium-sized cookie", "large cookie"]


def _ask(value: str) -> EventSpec:
    p = Proposition(content_type="Action/Event", subject="Marie", relation="request", value=value)
    return EventSpec(sentence=0, kind="tell", actors=("Marie",), hearers=("Dad",), proposition=p)


def test_a_size_word_among_sized_things_is_a_superlative_reference() -> None:
    spec = _size_request(_ask("Marie wants the big cookie"), COOKIES)
    assert spec.ref_value is not None and spec.ref_value.kind == "superlative"
    assert spec.ref_value.among == tuple(COOKIES)  # ascending: the last seen is meant
    assert spec.ref_value.text == "the big cookie"
    small = _size_request(_ask("the smallest cookie, please"), COOKIES)
    assert small.ref_value is not None and small.ref_value.among == tuple(reversed(COOKIES))


def test_other_requests_are_kept_as_read() -> None:
    plain = _ask("Marie wants a cookie")
    assert _size_request(plain, COOKIES) == plain
    one = _ask("Marie wants the big cookie")
    assert _size_request(one, ["large cookie"]) == one  # nothing to choose among


def _on(thing: str, where: str, n: int) -> EventSpec:
    p = Proposition(content_type="Location", subject=thing, relation="in", value=where)
    return EventSpec(sentence=n, kind="observe", actors=("Marie", "Dad"), proposition=p)


def test_the_hearer_gives_the_biggest_one_it_can_see() -> None:
    """Dad cannot see the shelf: "the big cookie" is, to him, the medium-sized one."""
    b = StoryBuilder(["Marie", "Dad"])
    base = b.add_text(
        "The small cookie is on the counter. The medium-sized cookie is on the "
        "table. The large cookie is on the shelf. Dad cannot see the shelf. "
        "Marie asks Dad for the big cookie."
    )
    for i, (c, w) in enumerate(zip(COOKIES, ("counter", "table", "shelf"), strict=True)):
        b.add(_on(c, w, i), base)
    blind = Proposition(
        content_type="Contents/Physical State",
        subject="Dad",
        relation="see",
        value="shelf",
        negated=True,
    )
    b.add(EventSpec(sentence=3, kind="narrate", proposition=blind), base)
    b.add(
        _size_request(_ask("Marie wants the big cookie"), COOKIES).model_copy(
            update={"sentence": 4}
        ),
        base,
    )
    got = answer_query(b.graph(), b.interpretations, RequestQuery(actor="Dad", requester="Marie"))
    assert got.value == "medium-sized cookie"
