"""The consistency checker feeds the LLM parser's repair re-ask by default."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from beliefgraph.parsers.llm import LLMParser
from beliefgraph.parsers.llm.parser import check_parse

if TYPE_CHECKING:
    from llm_fixtures import StubServer

pytest_plugins = ["llm_fixtures"]
pytestmark = pytest.mark.usefixtures("offline")

TEXT = "The key is in the drawer. Ann comes in. The key is in the box."


def _parse(second: str) -> dict[str, Any]:
    """The model's reply; ``second`` is where it reads the key to be in sentence 2."""
    return {
        "actors": ["Ann"],
        "entities": [
            {"name": "key", "kind": "object"},
            {"name": "drawer", "kind": "container"},
            {"name": "box", "kind": "container"},
        ],
        "items": [
            {"type": "fact", "sentence": 1, "kind": "narrate",
             "claim": {"subject": "key", "relation": "in", "value": "drawer"}},
            {"type": "action", "sentence": 2, "kind": "enter", "actors": ["Ann"]},
            {"type": "fact", "sentence": 3, "kind": "narrate",
             "claim": {"subject": "key", "relation": "in", "value": second}},
        ],
    }  # fmt: skip


def _make(stub: StubServer, **settings: Any) -> LLMParser:
    return LLMParser(base_url=stub.base_url, model="stub", cache=False, **settings)


def test_an_inconsistent_parse_is_reasked_with_the_checkers_explanation(
    stub: StubServer,
) -> None:
    stub.script(_parse("box"), _parse("drawer"))
    story = _make(stub).parse(TEXT)
    assert stub.calls == 2
    asked = stub.user_messages(1)[-1]
    assert "frame" in asked and '"The key is in the box."' in asked
    assert check_parse(story) is None  # the repaired parse is consistent


def test_a_consistent_parse_costs_one_call_and_repair_can_be_switched_off(
    stub: StubServer,
) -> None:
    stub.script(_parse("drawer"))
    _make(stub).parse(TEXT)
    assert stub.calls == 1
    stub.script(_parse("box"))
    story = _make(stub, repair=None).parse(TEXT)
    assert stub.calls == 2  # no re-ask
    assert "frame" in (check_parse(story) or "")
