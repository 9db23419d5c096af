"""ToMATO's same-model direct baseline and its item-blind sample (``make_tomato(direct=True,
dialogues=N)``).

A recording client stands in for the LLM client; the tests check the prompt is the paper's
App. C evaluation prompt, the reply is read as the release reads it, and the items are scored
by the adapter's own scorer. The batch test uses the real client with a batch file and no
server.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import benchmarks_dir
from llm_fixtures import ParserWithClient, RecordingClient

from beliefgraph.adapters import evaluate, get_benchmark
from beliefgraph.adapters.dialogue import first_dialogues, letter_reply
from beliefgraph.adapters.item import Item
from beliefgraph.adapters.tomato import DIRECT_SYSTEM, direct_messages, load_tomato, read_direct
from beliefgraph.api import using_parser
from beliefgraph.errors import ConfigurationError

FB = benchmarks_dir() / "tomato" / "dataset" / "tomato_fb.json"


def _need() -> None:
    if not FB.exists():
        pytest.skip(f"ToMATO data not found at {FB} (set BELIEFGRAPH_BENCHMARKS)")


def _item(**kw: object) -> Item:
    fields: dict = {"id": "q", "story": 'Al B: "Hi!"\nCy D: "Hey."', "question": "Q?",
                    "choices": ("a", "b", "c", "d"), "answer": "b"}  # fmt: skip
    fields.update(kw)
    return Item(**fields)


def test_prompt_is_the_papers_app_c_chat_with_system_prompt() -> None:
    system, user = direct_messages(_item())
    assert system == {"role": "system", "content": DIRECT_SYSTEM}
    assert DIRECT_SYSTEM.startswith("You are an expert at understanding human communication.")
    assert DIRECT_SYSTEM.endswith("format: [A], [B], [C], or [D]")
    assert user == {
        "role": "user",
        "content": '# Transcript\nAl B: "Hi!"\nCy D: "Hey."\n\n# Question\nQ?\n\n'
        "# Options\n[A] a\n[B] b\n[C] c\n[D] d",
    }


@pytest.mark.parametrize(
    ("reply", "want"),
    [("[B]", "b"), ("The answer is [D].", "d"), ("C", "c"), ("(A) a", "a"), ("Unsure.", None),
     ("[E]", None)],
)  # fmt: skip
def test_reply_read_as_the_release_reads_it(reply: str, want: str | None) -> None:
    assert read_direct(reply, _item()) == want


def test_letter_reply_prefers_the_bracketed_letter() -> None:
    assert letter_reply("A guess: [C]", "ABCD") == 2  # "[X]" first, as the release reads it
    assert letter_reply('{"option": "D"}', "ABCD") == 3


def test_first_dialogues_keeps_every_question_of_the_first_conversations() -> None:
    _need()
    every = load_tomato(FB)
    first = []
    for item in every:
        if item.story not in first:
            first.append(item.story)
    kept = get_benchmark("tomato", dialogues=3).load(FB, None)
    assert {i.story for i in kept} == set(first[:3])
    assert [i.id for i in kept] == [i.id for i in every if i.story in first[:3]]
    with pytest.raises(ConfigurationError, match="dialogues"):
        first_dialogues(load_tomato, 0, lambda i: i.story)


def test_direct_asks_each_question_once_and_scores_by_the_gold_option() -> None:
    _need()
    items = get_benchmark("tomato", dialogues=3).load(FB, None)
    gold = {i.question: "ABCD"[i.choices.index(i.answer)] for i in items}

    def reply(messages: list[dict[str, str]]) -> str:
        # Right on every question whose gold is not A; on those it says A is wrong ([B]).
        question = re.search(r"# Question\n(.*)\n\n# Options", messages[1]["content"], re.S)[1]
        return "[B]" if gold[question] == "A" else f"I would say [{gold[question]}]."

    client = RecordingClient(reply)
    with using_parser(ParserWithClient(client)):
        r = evaluate("tomato", FB, direct=True, dialogues=3)
    assert r.n == len(items) and len(client.sent) == len(items)
    assert {p for _, _, p in client.sent} == {"tomato.paper.v1"}
    assert all(m is str for m, _, _ in client.sent)
    assert r.accuracy == pytest.approx(sum(g != "A" for g in gold.values()) / len(items))
    assert r.llm_calls == len(items)
    assert "lexical_overlap" in r.metrics  # the paper's baseline, beside the model
    assert set(r.by()["state_order"]) == {f"{i.meta['mental_state']}/2nd" for i in items}


def test_direct_batch_run_writes_one_request_per_question(tmp_path: Path) -> None:
    _need()
    batch = tmp_path / "b.jsonl"
    llm = {"model": "frontier", "batch_out": str(batch), "cache": str(tmp_path / "c.sqlite3")}
    r = evaluate("tomato", FB, direct=True, dialogues=2, parser="llm", parser_settings=llm)
    lines = [json.loads(x) for x in batch.read_text(encoding="utf-8").splitlines()]
    assert r.llm_deferred == len(lines) == r.n
    assert r.answered == 0  # every answer pending until the results are imported
    first = lines[0]["body"]["messages"]
    assert first[0]["content"] == DIRECT_SYSTEM and first[1]["content"].startswith("# Transcript")
    assert all(x["custom_id"].startswith("tomato.paper.v1:") for x in lines)
