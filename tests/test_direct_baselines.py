"""The same-model direct baselines of BigToM, OpenToM and CoMMET (``adapters.direct``).

A recording client stands in for the LLM client (the same ``extract(str, messages,
prompt=...)`` call and ``usage`` counts) and replies as a model would; the tests check the
prompts are the papers' formats, the replies are read as the papers' evaluators read them,
and the items are scored by each benchmark's own scorer. The batch tests use the real client
with a batch file and no server.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import benchmarks_dir
from llm_fixtures import ParserWithClient, RecordingClient

from beliefgraph.adapters import evaluate, get_benchmark
from beliefgraph.adapters.bigtom import (
    PAPER_INSTRUCTION,
    conditions,
    paper_messages,
    paper_options,
    read_paper_reply,
)
from beliefgraph.adapters.commet import load_storyturns, turn_message
from beliefgraph.adapters.opentom import PAPER_SYSTEM, paper_prompt
from beliefgraph.adapters.opentom import read_paper_reply as read_opentom
from beliefgraph.api import using_parser
from beliefgraph.errors import ConfigurationError

ROOT = Path(__file__).resolve().parents[1]
COMMET = ROOT / "tests" / "fixtures" / "commet" / "storyturns.json"
BIGTOM = benchmarks_dir() / "bigtom" / "data" / "bigtom" / "bigtom.csv"
OPENTOM = benchmarks_dir() / "opentom" / "data" / "opentom_data"
FORWARD = [
    f"hidden/{v}/{c}"
    for v in ("forward_belief", "forward_action")
    for c in ("true_belief", "false_belief")
]
ROW = (
    "Ann is in the kitchen. Ann wants warm tea. Ann made tea. Ann believes the tea is hot. "
    "The tea cools down.;Ann touches the cup.;Ann does not touch the cup.;Ann reheats the tea.;"
    "Ann drinks the tea.;Does Ann believe the tea is hot or cold?;Does Ann want warm tea?;"
    "What will Ann do?;Ann believes the tea is cold.;Ann wants warm tea.;Ann will reheat the "
    "tea.;Ann believes the tea is hot.;Ann wants warm tea.;Ann will drink the tea.;A bird sings."
    ";Ann hears the bird.;Ann does not hear the bird.;auto;0"
)


def _need(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"benchmark data not found at {path} (set BELIEFGRAPH_BENCHMARKS)")


# -- BigToM ------------------------------------------------------------------------------------
def test_bigtom_prompt_is_the_release_chat_0shot_mcq() -> None:
    item = conditions(ROW.split(";"))[1]
    system, user = paper_messages(item)
    assert system == {"role": "system", "content": PAPER_INSTRUCTION}
    a, b = paper_options(item)
    assert user["content"] == (
        f"Story: {item.story}\nQuestion: {item.question}\n"
        f"Choose one of the following:\na){a}\nb){b}"
    )
    assert {a, b} == set(item.choices)


def test_bigtom_option_order_comes_from_the_id_not_the_gold() -> None:
    items = conditions(ROW.split(";"))
    # true- and false-belief items share their choices but differ in gold; the order is the
    # id's draw alone, so both orders occur over a row's 24 items.
    assert {paper_options(i)[0] == i.choices[0] for i in items} == {True, False}
    again = conditions(ROW.split(";"))
    assert [paper_options(i) for i in items] == [paper_options(i) for i in again]


@pytest.mark.parametrize(
    ("reply", "which"),
    [
        ("Answer: a) whatever", 0),
        ("Answer:b)", 1),
        ("A) or b) I cannot tell", None),
        ("I am not sure.", None),
    ],
)
def test_bigtom_reply_read_by_option_key(reply: str, which: int | None) -> None:
    item = conditions(ROW.split(";"))[1]
    got = read_paper_reply(item, reply)
    assert got == (None if which is None else paper_options(item)[which])


def test_bigtom_reply_without_a_key_is_read_by_its_text() -> None:
    item = conditions(ROW.split(";"))[1]
    a, b = paper_options(item)
    assert read_paper_reply(item, f"Answer: {b}") == b
    assert read_paper_reply(item, f"{a} Or maybe {b}") is None


def test_bigtom_direct_scores_with_the_paired_metric() -> None:
    _need(BIGTOM)

    items = get_benchmark("bigtom", rows=2, cells=FORWARD).load(BIGTOM, None)
    aware = {paper_messages(i)[1]["content"]: i.choices[0] for i in items}

    def reply(messages: list[dict[str, str]]) -> str:
        # A model that always takes the agent to have seen the change (the first choice).
        options = dict(re.findall(r"^([ab])\)(.*)$", messages[1]["content"], re.M))
        return next(
            f"Answer:{k})" for k, text in options.items() if text == aware[messages[1]["content"]]
        )

    client = RecordingClient(reply)
    with using_parser(ParserWithClient(client)):
        r = evaluate("bigtom", BIGTOM, direct=True, rows=2, cells=FORWARD)
    assert r.n == 8 and len(client.sent) == 8  # one request per condition item
    assert {p for _, _, p in client.sent} == {"bigtom.paper.chat0shot.v1"}
    assert all(m is str for m, _, _ in client.sent)
    right = {x.id.rsplit("_", 2)[-2] + "_" + x.id.rsplit("_", 2)[-1]: x.correct for x in r.results}
    assert right == {"true_belief": True, "false_belief": False}
    assert r.accuracy == 0.5 and r.answered == 8
    assert r.metrics["tb_and_fb"] == 0.0  # never both right: the paper's paired score
    assert r.llm_calls == 8


def test_bigtom_sample_is_the_first_rows_and_named_cells() -> None:
    _need(BIGTOM)
    items = get_benchmark("bigtom", mode="text", rows=2, cells=FORWARD).load(BIGTOM, None)
    assert len(items) == 8
    assert {i.meta["line"] for i in items} == {1, 2}
    assert len({i.story for i in items}) == 4  # forward belief and action share a story
    with pytest.raises(ConfigurationError, match="unknown BigToM cells"):
        get_benchmark("bigtom", cells=["hidden/forward/true"])
    with pytest.raises(ConfigurationError, match="rows"):
        get_benchmark("bigtom", rows=0)


# -- OpenToM -----------------------------------------------------------------------------------
def _opentom_items() -> list[Any]:
    _need(OPENTOM)
    return list(get_benchmark("opentom", stories=1).load(OPENTOM, None))


def test_opentom_sample_is_the_first_story_of_meta_data() -> None:
    items = _opentom_items()
    first = next(iter(json.loads((OPENTOM / "meta_data.json").read_text())))
    assert {i.meta["story_id"] for i in items} == {first}
    assert len(items) == 23
    with pytest.raises(ConfigurationError, match="stories"):
        get_benchmark("opentom", stories=0)


def test_opentom_prompts_follow_the_release_builder() -> None:
    items = _opentom_items()
    for item in items:
        text = paper_prompt(item)
        assert text.startswith("Read and comprehend the following short story.")
        assert item.meta["narrative"] in text
        q = item.question
        if "initial" in q and "locate" not in q:
            assert text.endswith(
                'Answer the question with "Yes" or "No". Do not give any explanation.'
            )
        elif "fullness" in q:
            assert 'Answer with "more full", "equally full", or "less full".' in text
        elif "accessibility" in q:
            assert '"more accessible", "equally accessible", or "less accessible"' in text
        elif "attitude" in q:
            assert ", assuming that you observed the action?" in text
            assert text.endswith("Answer without any explanation.")
        else:  # fine location: the released no-explanation template
            assert text.endswith("Answer the question without any explanation.")


@pytest.mark.parametrize(
    ("question", "reply", "value"),
    [
        ("From A's perspective, is the hat in its initial location by the end of the story?",
         "No.", "No"),
        ("From A's perspective, is the hat in its initial location by the end of the story?",
         "Yes, it is not moved.", None),  # the evaluator's substring rule: both words
        ("From A's perspective, how does box's fullness change by the end of the story?",
         "It would be emptier.", "less full"),
        ("From A's perspective, how would hat's accessibility change by the end of the story?",
         "Equally accessible", "equally accessible"),
        ("As A, what is your attitude towards B's action of moving hat from box to bin?",
         "Negative.", "negative"),
        ("As A, what is your attitude towards B's action of moving hat from box to bin?",
         "Answer: b", "neutral"),
    ],
)  # fmt: skip
def test_opentom_replies_read_as_the_release_evaluator(
    question: str, reply: str, value: str | None
) -> None:
    from beliefgraph.adapters.item import Item

    assert read_opentom(Item(id="x", story="", question=question, answer="x"), reply) == value


def test_opentom_fine_location_by_lexical_overlap() -> None:
    from beliefgraph.adapters.item import Item

    meta = {"plot_info": {"original_place": "green_basket", "move_to_place": "blue box"}}
    q = "From A's perspective, where is the hat located precisely by the end of the story?"
    item = Item(id="x", story="", question=q, answer="blue box", meta=meta)
    assert read_opentom(item, "In the blue box.") == "blue box"
    assert read_opentom(item, "The green basket") == "green basket"
    assert read_opentom(item, "Nowhere") is None  # a tie: the evaluator's third class


def test_opentom_direct_right_when_the_model_gives_the_gold() -> None:
    items = {i.question: i for i in _opentom_items()}

    def reply(messages: list[dict[str, str]]) -> str:
        assert messages[0] == {"role": "system", "content": PAPER_SYSTEM}
        item = next(i for q, i in items.items() if q.split("?")[0] in messages[1]["content"])
        return item.answer.replace("|", " or ") + "."

    client = RecordingClient(reply)
    with using_parser(ParserWithClient(client)):
        r = evaluate("opentom", OPENTOM, direct=True, stories=1)
    assert r.n == 23 and len(client.sent) == 23
    wrong = [(x.gold, x.prediction) for x in r.results if not x.correct]
    # Only answers the gold vocabulary cannot hold are wrong (an "a|b" accessibility gold).
    assert all("|" in g for g, _ in wrong), wrong
    assert r.by()["question_type"]["location_coarse_fo"]["accuracy"] == 1.0


# -- CoMMET ------------------------------------------------------------------------------------
def test_commet_turn_message_feedback_follows_the_previous_answer() -> None:
    turn = load_storyturns(COMMET)[0].turns[1]
    right, wrong = turn_message(turn, True), turn_message(turn, False)
    assert right.startswith("If right:") is False and right.startswith("That's right")
    assert wrong.startswith("Remember")
    assert turn_message(turn, None).startswith("Mom gets to the front")


def test_commet_direct_is_a_conversation_with_the_models_replies() -> None:
    golds = {t.question: t.answers[0] for st in load_storyturns(COMMET) for t in st.turns}

    def reply(messages: list[dict[str, str]]) -> str:
        question = messages[-1]["content"].split("\n\n")[-1].strip()
        gold = golds[question]
        return "I do not know." if question.startswith("What does Mom think") else gold

    client = RecordingClient(reply)
    with using_parser(ParserWithClient(client)):
        r = evaluate("commet", COMMET, direct=True)
    assert r.n == 19 and len(client.sent) == 19  # one request per question turn
    leo = [m for _, m, _ in client.sent if "red race car" in m[0]["content"]]
    assert [len(m) for m in leo] == [1, 3, 5, 7, 9]  # earlier turns and replies carried
    assert leo[1][1] == {"role": "assistant", "content": "I do not know."}
    assert leo[1][2]["content"].startswith("Remember, Mom didn't hear")  # the wrong branch
    assert leo[2][4]["content"].startswith("Leo feels sad")  # no feedback field: none
    by_id = {x.id: x for x in r.results}
    assert not by_id["leo_mom_toy_store:t1"].correct
    assert by_id["sam_snack:t1"].correct and by_id["sam_snack:t2"].correct
    assert r.metrics["story_accuracy"] == pytest.approx(4 / 5)


def test_commet_direct_in_a_batch_writes_one_turn_per_round(tmp_path: Path) -> None:
    batch = tmp_path / "b.jsonl"
    settings = {"model": "stub", "batch_out": str(batch), "cache": str(tmp_path / "c.sqlite")}
    r = evaluate("commet", COMMET, direct=True, parser="llm", parser_settings=settings)
    lines = [json.loads(x) for x in batch.read_text().splitlines()]
    assert len(lines) == 5 == r.llm_deferred  # the first question of each StoryTurn
    assert all(len(x["body"]["messages"]) == 1 for x in lines)
    assert all("answer pending" in x.explanation[0] for x in r.results)


def test_commet_llm_reader_writes_every_request_in_one_round(tmp_path: Path) -> None:
    batch = tmp_path / "b.jsonl"
    settings = {"model": "stub", "batch_out": str(batch), "cache": str(tmp_path / "c.sqlite")}
    r = evaluate("commet", COMMET, storyturns=1, parser="llm", parser_settings=settings)
    ids = [json.loads(x)["custom_id"] for x in batch.read_text().splitlines()]
    # leo_mom_toy_store: 4 story texts and 2 feedback texts parsed, 5 questions read.
    assert sum(i.startswith("story.v2:") for i in ids) == 6
    assert sum(i.startswith("_QuestionOut") for i in ids) == 5
    assert r.n == 5 and r.llm_deferred == 11
    with pytest.raises(ConfigurationError, match="storyturns"):
        get_benchmark("commet", storyturns=0)
