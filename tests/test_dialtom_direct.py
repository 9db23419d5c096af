"""DialToM's same-model direct baseline (``make_dialtom(direct=True)``): the release's own
prompts (``benchmark.py``, ``counterfactual_test.py``), the reply read as a letter (or the
written line), scored by the adapter's own scorers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import benchmarks_dir
from llm_fixtures import ParserWithClient, RecordingClient

from beliefgraph.adapters import evaluate, get_benchmark
from beliefgraph.adapters.dialtom import NOTA, direct_messages
from beliefgraph.api import using_parser

DATA = benchmarks_dir() / "dialtom"
MI_RETRO = DATA / "data" / "MI_retrospective_verified.json"
MI_PROSP = DATA / "data" / "MI_prospective_verified.json"
MI_CF = DATA / "counterfactual_data" / "MI_counterfact.json"
WRITTEN = DATA / "data" / "combined_written_data.json"


def _need(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"DialToM data not found at {path} (set BELIEFGRAPH_BENCHMARKS)")


def _load(path: Path, n: int) -> list:
    return get_benchmark("dialtom", embeddings=False).load(path, None)[:n]


def _lettered(messages: list[dict[str, str]]) -> dict[str, str]:
    """Letter -> the option's first line, as the prompt shows it."""
    return dict(re.findall(r"^([A-E]): (.*)$", messages[0]["content"], re.M))


def test_retrospective_prompt_is_the_releases() -> None:
    _need(MI_RETRO)
    item = _load(MI_RETRO, 1)[0]
    (message,) = direct_messages(item)
    assert message["role"] == "user"  # the release sends no system message
    text = message["content"]
    assert text.startswith("\nYou are an expert in Theory of Mind reasoning.\n\nTask:\n")
    assert (
        "You will be provided with conversation between two agents Counselor and Client "
        f"engaging in a Counseling Session session on the topic of {item.meta['topic']}."
    ) in text
    assert f"Your goal is to correctly infer Client's {item.meta['attribute']} state" in text
    assert f"Conversation Context:\n{item.story}\n\nMental State Options:\nA: " in text
    assert _lettered([message]) == dict(zip("ABCD", item.choices, strict=True))
    assert text.endswith("YOUR OUTPUT SHOULD STRICTLY BE ONE OF A, B, C, or D.\n\nAnswer:\n    ")


def test_forecasting_prompts_show_the_profile_only() -> None:
    _need(MI_PROSP)
    _need(MI_CF)
    prospective = _load(MI_PROSP, 1)[0]
    text = direct_messages(prospective)[0]["content"]
    assert (
        f"Mental state of Client\n{prospective.story}\n\nCandidate Conversation Segments\nA: "
        in text
    )
    assert "Conversation Context" not in text  # no dialogue: the profile decides
    assert "none of the options" not in text and "E:" not in text
    counterfactual = _load(MI_CF, 1)[0]
    text = direct_messages(counterfactual)[0]["content"]
    assert "It can also be that none of the options are correct." in text
    assert "\nE: None of the above.\n" in text and '"D", or "E"' in text


def test_direct_scores_by_letter_and_nota_is_e() -> None:
    _need(MI_RETRO)
    _need(MI_CF)
    gold: dict[str, str] = {}
    for path in (MI_RETRO, MI_CF):
        for item in _load(path, 3):
            gold[direct_messages(item)[0]["content"]] = "ABCDE"[item.choices.index(item.answer)]

    def reply(messages: list[dict[str, str]]) -> str:
        return gold[messages[0]["content"]]  # a model right on every item

    client = RecordingClient(reply)
    with using_parser(ParserWithClient(client)):
        retro = evaluate("dialtom", MI_RETRO, direct=True, limit=3, embeddings=False)
        cf = evaluate("dialtom", MI_CF, direct=True, limit=3, embeddings=False)
    assert (retro.accuracy, cf.accuracy) == (1.0, 1.0)
    assert {r.prediction for r in cf.results} == {NOTA}
    assert len(client.sent) == 6 and {p for _, _, p in client.sent} == {"dialtom.release.v1"}
    assert "length_baseline" in retro.metrics  # the length-only baseline beside it


def test_written_reply_is_scored_by_the_written_metrics() -> None:
    _need(WRITTEN)
    items = _load(WRITTEN, 2)

    def reply(messages: list[dict[str, str]]) -> str:
        opening = re.search(r'should always start with "([^"]+)"', messages[0]["content"])[1]
        return f"{opening} this is hard for me.\nA second line the scorer ignores."

    client = RecordingClient(reply)
    with using_parser(ParserWithClient(client)):
        r = evaluate("dialtom", WRITTEN, direct=True, limit=2, embeddings=False)
    assert r.n == 2 and len(client.sent) == 2
    assert all(x.prediction.endswith("this is hard for me.") for x in r.results)
    assert {"written.bleu", "written.rouge_l"} <= set(r.metrics)
    assert items[0].meta["attribute"] in direct_messages(items[0])[0]["content"]


def test_direct_batch_run_writes_the_requests(tmp_path: Path) -> None:
    _need(MI_RETRO)
    batch = tmp_path / "b.jsonl"
    llm = {"model": "frontier", "batch_out": str(batch), "cache": str(tmp_path / "c.sqlite3")}
    r = evaluate("dialtom", MI_RETRO, direct=True, limit=4, parser="llm", parser_settings=llm,
                 embeddings=False)  # fmt: skip
    lines = [json.loads(x) for x in batch.read_text(encoding="utf-8").splitlines()]
    assert r.llm_deferred == len(lines) == 4 and r.answered == 0
    assert all(x["custom_id"].startswith("dialtom.release.v1:") for x in lines)


def test_dialogues_sample_keeps_whole_windows() -> None:
    _need(MI_RETRO)
    every = get_benchmark("dialtom", embeddings=False).load(MI_RETRO, None)
    kept = get_benchmark("dialtom", embeddings=False, dialogues=2).load(MI_RETRO, None)
    windows = list(dict.fromkeys(i.meta["record_id"] for i in every))[:2]
    assert [i.id for i in kept] == [i.id for i in every if i.meta["record_id"] in windows]
