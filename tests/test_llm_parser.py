"""The LLM parser's plumbing, offline: a scripted OpenAI-compatible stub answers.

Every documented error is raised here (missing configuration, a closed port, a timeout,
a refused request, output that stays invalid), and every path is exercised exactly:
the three modes' requests, re-asks, the repair hook, the cache, the batch, ``auto``,
and dialogues. ``test_llm_server.py`` runs the same plumbing against a real model.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from llm_fixtures import GOOD, TEXT

from beliefgraph import BeliefGraph, track
from beliefgraph.dialogue import track_dialogue
from beliefgraph.models import ParsedStory
from beliefgraph.parsers.llm import (
    AutoParser,
    LLMCache,
    LLMConfigurationError,
    LLMConnectionError,
    LLMParser,
    LLMRepairWarning,
    LLMRequestError,
    LLMTimeoutError,
    ParserRetryExhausted,
    StoryParse,
    Turn,
    is_transcript,
    parse_batch,
    parse_dialogue,
    read_transcript,
)
from beliefgraph.registry import parsers

if TYPE_CHECKING:
    from llm_fixtures import StubServer

pytest_plugins = ["llm_fixtures"]

BAD = {**GOOD, "items": [*GOOD["items"], {"type": "action", "sentence": 2, "kind": "exit",
                                          "actors": ["Bob"]}]}  # fmt: skip
# Every test here runs with no LLM configured and a private cache (conftest's ``offline``).
pytestmark = pytest.mark.usefixtures("offline")


def make(stub: StubServer, **settings: Any) -> LLMParser:
    settings.setdefault("cache", False)
    return LLMParser(base_url=stub.base_url, model="stub", **settings)


# -- configuration and transport errors -------------------------------------------------------
def test_missing_configuration_names_the_settings() -> None:
    with pytest.raises(LLMConfigurationError) as err:
        LLMParser()
    for name in ("BELIEFGRAPH_LLM_BASE_URL", "BELIEFGRAPH_LLM_MODEL", "OPENAI_API_KEY"):
        assert name in str(err.value)


def test_missing_model_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFGRAPH_LLM_BASE_URL", "http://127.0.0.1:1/v1")
    with pytest.raises(LLMConfigurationError, match="BELIEFGRAPH_LLM_MODEL"):
        LLMParser()


def test_environment_configures_the_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFGRAPH_LLM_BASE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("BELIEFGRAPH_LLM_MODEL", "m")
    monkeypatch.setenv("BELIEFGRAPH_LLM_MODE", "json_object")
    s = LLMParser(cache=False).client.settings
    assert (s.base_url, s.model, s.mode) == ("http://127.0.0.1:1/v1", "m", "json_object")


def test_unknown_mode_is_rejected() -> None:
    with pytest.raises(LLMConfigurationError, match="json_object"):
        LLMParser(base_url="http://127.0.0.1:1/v1", model="m", mode="grammar")


def test_track_without_configuration_fails_before_any_call() -> None:
    with pytest.raises(LLMConfigurationError):
        track(TEXT, parser="llm")


def test_closed_port_fails_fast_and_says_so() -> None:
    from llm_fixtures import free_port

    url = f"http://127.0.0.1:{free_port()}/v1"
    parser = LLMParser(base_url=url, model="m", cache=False)
    started = time.monotonic()
    with pytest.raises(LLMConnectionError, match="cannot reach the LLM server") as err:
        parser.parse(TEXT)
    assert url in str(err.value)
    assert time.monotonic() - started < 10


def test_timeout_raises_and_says_so(silent_port: int) -> None:
    url = f"http://127.0.0.1:{silent_port}/v1"
    parser = LLMParser(base_url=url, model="m", cache=False, timeout=0.5, transient_retries=0)
    started = time.monotonic()
    with pytest.raises(LLMTimeoutError, match=r"did not answer within 0\.5 s"):
        parser.parse(TEXT)
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("status", [400, 422, 500])
def test_refused_mode_is_named_and_not_retried(stub: StubServer, status: int) -> None:
    # llama-cpp-python answers 500 for a response_format it does not know.
    stub.error(status, "('body', 'response_format', 'type'): Input should be 'text'")
    with pytest.raises(LLMRequestError, match="does not support mode 'json_schema'") as err:
        make(stub, mode="json_schema").parse(TEXT)
    assert err.value.status == status and stub.calls == 1


def test_rate_limit_is_retried(stub: StubServer) -> None:
    stub.error(429, "slow down", retry_after="0")
    stub.script(GOOD)
    story = make(stub).parse(TEXT)
    assert len(story.events) == 3
    assert stub.calls == 2


def test_server_errors_exhaust_their_retries(stub: StubServer) -> None:
    for _ in range(3):
        stub.error(503, "overloaded", retry_after="0")
    with pytest.raises(LLMRequestError, match="503"):
        make(stub, transient_retries=1).parse(TEXT)
    assert stub.calls == 2


# -- modes ------------------------------------------------------------------------------------
def test_tools_mode_forces_the_tool(stub: StubServer) -> None:
    stub.script(GOOD)
    story = make(stub, mode="tools").parse(TEXT)
    request = stub.requests[0]
    assert request["tool_choice"]["function"]["name"] == request["tools"][0]["function"]["name"]
    assert isinstance(story, ParsedStory)
    assert [e.kind for e in story.events] == ["move", "exit", "move"]
    assert {e.parser for e in story.events} == {"llm"}
    assert story.parser == "llm"


def test_json_object_mode_sends_the_schema_llama_cpp_accepts(stub: StubServer) -> None:
    stub.script(GOOD)
    make(stub, mode="json_object").parse(TEXT)
    fmt = stub.requests[0]["response_format"]
    assert fmt["type"] == "json_object"
    assert fmt["schema"] == StoryParse.model_json_schema()
    assert "tools" not in stub.requests[0]


def test_json_schema_mode_sends_openai_structured_output(stub: StubServer) -> None:
    stub.script(GOOD)
    make(stub, mode="json_schema").parse(TEXT)
    assert stub.requests[0]["response_format"]["type"] == "json_schema"


def test_story_text_reaches_the_model_verbatim(stub: StubServer) -> None:
    text = "Sally says {{ hi }} and {% endraw %}{%- endraw -%} {# x #}."
    stub.script(
        {
            "actors": ["Sally"],
            "items": [
                {"type": "fact", "sentence": 1, "claim": {"subject": "Sally", "relation": "say"}}
            ],
        }
    )
    make(stub).parse(text)
    assert any(text in m for m in stub.user_messages(0))


# -- output to events to a graph --------------------------------------------------------------
def test_parse_gives_the_offline_parsers_events(stub: StubServer) -> None:
    stub.script(GOOD)
    story = make(stub).parse(TEXT)
    move = story.events[2]
    assert (move.actors, move.obj, move.destination) == (("Anne",), "ball", "box")
    assert move.proposition is not None and move.proposition.render() == "the ball is in the box"
    assert [s.events for s in story.sentences] == [(1,), (2,), (3,)]
    assert story.actors == ("Sally", "Anne")
    assert {e.name: e.kind for e in story.entities}["basket"] == "container"


def test_track_with_the_llm_parser_answers(stub: StubServer) -> None:
    stub.script(GOOD)
    graph = track(TEXT, parser="llm", base_url=stub.base_url, model="stub", cache=False)
    assert graph.ask("Where will Sally look for the ball?").value == "basket"
    assert graph.ask("Where is the ball really?").value == "box"


def test_long_stories_are_read_in_chunks(stub: StubServer) -> None:
    first = {**GOOD, "items": GOOD["items"][:2]}
    second = {"actors": ["Anne"], "items": GOOD["items"][2:]}
    stub.script(first, second)
    parser = make(stub, chunk=2)
    story = parser.parse(TEXT)
    assert parser.last_usage.calls == 2
    assert [e.kind for e in story.events] == ["move", "exit", "move"]
    assert "[3] Anne moves" not in stub.user_messages(0)[-1]  # numbered from 1, as shown
    later = stub.user_messages(1)[-1]
    assert "Read only sentence(s) 3" in later and "move(Sally: ball -> basket)" in later
    assert {e.parser for e in story.events} == {"llm"} and story.parser == "llm"


def test_every_item_type_converts(stub: StubServer) -> None:
    text = (
        "Sam holds a KFC bag. Sam cannot see inside the bag. Sam thinks the bag has chicken. "
        "Ann asks Sam whether the bag is warm. Ann wants the chicken. Ann opens the bag."
    )
    claim = {"subject": "bag", "relation": "be", "value": "warm"}
    stub.script({
        "actors": ["Sam", "Ann"],
        "entities": [{"name": "KFC bag", "kind": "container"},
                     {"name": "chicken", "kind": "object"}],
        "items": [
            {"type": "fact", "sentence": 1, "kind": "observe", "observers": ["Sam"],
             "claim": {"subject": "KFC bag", "relation": "in", "value": "Sam"}},
            {"type": "perception", "sentence": 2, "actor": "Sam", "can_perceive": False,
             "target": "KFC bag", "inside": True},
            {"type": "default", "sentence": 3, "holders": ["Sam"], "container": "KFC bag",
             "contents": "chicken"},
            {"type": "utterance", "sentence": 4, "speaker": "Ann", "addressees": ["Sam"],
             "force": "ask", "content": claim},
            {"type": "mental_state", "sentence": 5, "holder": "Ann", "state": "desire",
             "stated": True, "relation": "want", "value": "the chicken"},
            {"type": "action", "sentence": 6, "kind": "open", "actors": ["Ann"], "obj": "bag"},
        ],
    })  # fmt: skip
    story = make(stub).parse(text)
    kinds = [e.kind for e in story.events]
    assert kinds == ["observe", "narrate", "label", "tell", "narrate", "open"]
    see, label, ask, want = story.events[1], story.events[2], story.events[3], story.events[4]
    assert see.proposition is not None
    assert (see.proposition.relation, see.proposition.negated) == ("see inside", True)
    assert label.perceivers == ("Sam",) and label.proposition is not None
    assert label.proposition.relation == "contains"
    assert ask.proposition is not None and ask.proposition.content_type == "Action/Event"
    assert (ask.proposition.relation, ask.hearers) == ("ask", ("Sam",))
    assert want.proposition is not None and want.proposition.content_type == "Desire/Intention"
    assert story.events[5].obj == "KFC bag"  # "bag" is canonicalised to the declared name
    BeliefGraph(story).beliefs(max_order=2)  # the solver takes every kind


def test_schema_bounds_every_list_and_string() -> None:
    schema = StoryParse.model_json_schema()
    unbounded: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            if (
                node.get("type") == "string"
                and "maxLength" not in node
                and "enum" not in node
                and "const" not in node
            ):
                unbounded.append(path)
            if node.get("type") == "array" and "maxItems" not in node:
                unbounded.append(path)
            for k, v in node.items():
                walk(v, f"{path}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}/{i}")

    walk(schema, "#")
    assert unbounded == []


# -- validation and re-asks -------------------------------------------------------------------
def test_unknown_actor_is_reasked_with_the_error(stub: StubServer) -> None:
    stub.script(BAD, GOOD)
    parser = make(stub)
    story = parser.parse(TEXT)
    assert len(story.events) == 3
    assert parser.last_usage.calls == 2
    resent = json.dumps(stub.requests[1]["messages"])
    assert "'Bob' is not in actors" in resent


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"type": "action", "sentence": 3, "kind": "move", "actors": ["Anne"], "obj": "cup",
          "destination": "box"}, "no sentence up to 3 introduces"),
        ({"type": "action", "sentence": 8, "kind": "exit", "actors": ["Anne"]}, "not one to read"),
        ({"type": "action", "sentence": 1, "kind": "move", "actors": ["Anne"]}, "needs obj"),
    ],
)  # fmt: skip
def test_validators_reject_what_the_text_does_not_support(
    stub: StubServer, change: dict[str, Any], message: str
) -> None:
    bad = {**GOOD, "items": [*GOOD["items"], change]}
    if change.get("obj") == "cup":
        bad["entities"] = [*GOOD["entities"], {"name": "cup", "kind": "object"}]
    stub.script(bad, bad, bad)
    with pytest.raises(ParserRetryExhausted, match=message):
        make(stub).parse(TEXT)


def test_exhaustion_keeps_the_raw_completion(stub: StubServer) -> None:
    stub.script(BAD, BAD, BAD)
    with pytest.raises(ParserRetryExhausted) as err:
        make(stub, max_retries=2).parse(TEXT)
    e = err.value
    assert e.n_attempts == 3 and stub.calls == 3
    assert json.loads(e.raw)["items"][-1]["actors"] == ["Bob"]
    assert e.last_completion is not None
    assert "'Bob' is not in actors" in e.errors


def test_junk_is_a_validation_error(stub: StubServer) -> None:
    stub.script("not json at all", '{"actors": 3}')
    with pytest.raises(ParserRetryExhausted):
        make(stub, max_retries=1).parse(TEXT)


def test_strict_requires_every_sentence(stub: StubServer) -> None:
    partial = {**GOOD, "items": GOOD["items"][:2]}
    stub.script(partial, GOOD)
    parser = make(stub)
    assert len(parser.parse(TEXT).events) == 3
    assert "sentences [3] yield no item" in json.dumps(stub.requests[1]["messages"])


def test_lenient_keeps_unread_sentences_and_warns(stub: StubServer) -> None:
    stub.script({**GOOD, "items": GOOD["items"][:2]})
    with pytest.warns(UserWarning, match="read no event from 1 sentence"):
        story = make(stub, strict=False).parse(TEXT)
    assert [s.parsed for s in story.sentences] == [True, True, False]
    assert story.sentences[2].text == "Anne moves the ball to the box."


def test_empty_parse_is_valid_when_lenient(stub: StubServer) -> None:
    with pytest.warns(UserWarning):
        story = make(stub, strict=False).parse(TEXT)
    assert story.events == () and len(story.sentences) == 3


def test_cut_off_answer_is_asked_again_then_reported(stub: StubServer) -> None:
    stub.cut_off('{"actors": ["Sally"')
    stub.script(GOOD)
    assert len(make(stub).parse(TEXT).events) == 3
    assert "cut off" in stub.user_messages(1)[-1]
    for _ in range(3):
        stub.cut_off('{"actors": [')
    with pytest.raises(ParserRetryExhausted, match="max_tokens"):
        make(stub).parse(TEXT)


def test_extra_check_forces_a_reask(stub: StubServer) -> None:
    seen: list[int] = []

    def once(parse: StoryParse) -> str | None:
        seen.append(len(parse.items))
        return "list the exit first" if len(seen) == 1 else None

    stub.script(GOOD, GOOD)
    parser = make(stub, checks=[once])
    parser.parse(TEXT)
    assert parser.last_usage.calls == 2 and len(seen) == 2
    assert "list the exit first" in json.dumps(stub.requests[1]["messages"])


def test_repair_hook_triggers_one_reask(stub: StubServer) -> None:
    verdicts = iter(["Anne cannot move the ball: she never entered", None])
    stub.script(GOOD, GOOD)
    parser = make(stub, repair=lambda story: next(verdicts))
    parser.parse(TEXT)
    assert stub.calls == 2
    assert "she never entered" in stub.user_messages(1)[-1]
    assert stub.requests[1]["messages"][-2]["role"] == "assistant"


def test_repair_that_still_fails_warns(stub: StubServer) -> None:
    stub.script(GOOD, GOOD)
    parser = make(stub, repair=lambda story: "always wrong")
    with pytest.warns(LLMRepairWarning, match="always wrong"):
        parser.parse(TEXT)
    assert stub.calls == 2


# -- cache ------------------------------------------------------------------------------------
def test_rerun_is_served_from_the_cache(stub: StubServer, tmp_path: Path) -> None:
    stub.script(GOOD)
    path = tmp_path / "cache.sqlite3"
    first = make(stub, cache=path)
    a = first.parse(TEXT)
    second = make(stub, cache=path)  # a new parser, as in a new process
    b = second.parse(TEXT)
    # The same story; only what it cost differs (the rerun asked nothing).
    assert a.model_copy(update={"cost": b.cost}) == b
    assert stub.calls == 1
    assert (second.last_usage.calls, second.last_usage.cached) == (0, 1)
    assert (a.cost.calls, b.cost.calls, b.cost.cached) == (1, 0, 1)


def test_cache_key_changes_with_model_and_text(stub: StubServer, tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    stub.script(GOOD, GOOD)
    make(stub, cache=path).parse(TEXT)
    LLMParser(base_url=stub.base_url, model="other", cache=path).parse(TEXT)
    assert stub.calls == 2


def test_definitive_failures_are_cached(stub: StubServer, tmp_path: Path) -> None:
    stub.script(BAD, BAD, BAD)
    path = tmp_path / "cache.sqlite3"
    with pytest.raises(ParserRetryExhausted):
        make(stub, cache=path).parse(TEXT)
    with pytest.raises(ParserRetryExhausted, match="cached") as err:
        make(stub, cache=path).parse(TEXT)
    assert stub.calls == 3 and "Bob" in err.value.raw


def test_transport_errors_are_not_cached(stub: StubServer, tmp_path: Path) -> None:
    stub.error(400, "bad")
    path = tmp_path / "cache.sqlite3"
    with pytest.raises(LLMRequestError):
        make(stub, cache=path).parse(TEXT)
    stub.script(GOOD)
    assert len(make(stub, cache=path).parse(TEXT).events) == 3


_WRITER = """
import json, sys
from beliefgraph.parsers.llm.cache import LLMCache
cache = LLMCache(sys.argv[1])
start = int(sys.argv[2])
for i in range(start, start + 50):
    cache.set(f"k{i}", json.dumps({"i": i}))
"""


def test_cache_is_safe_across_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite3")
    LLMCache(path)  # create the file and the table first
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, path, str(n * 50)]) for n in range(3)]
    assert [p.wait(timeout=300) for p in procs] == [0, 0, 0]
    cache = LLMCache(path)
    assert len(cache) == 150
    assert json.loads(cache.get("k149") or "{}") == {"i": 149}


# -- batch ------------------------------------------------------------------------------------
def test_batch_keeps_order_bounds_concurrency_and_counts(stub: StubServer) -> None:
    from llm_fixtures import Reply

    anne = {"actors": ["Anne"], "items": [{"type": "action", "sentence": 1, "kind": "exit",
                                           "actors": ["Anne"]}]}  # fmt: skip
    cup = json.loads(json.dumps(GOOD).replace("ball", "cup"))
    texts = [TEXT, "Anne goes out.", TEXT.replace("ball", "cup"), "Anne goes out again."]

    def answer(request: dict[str, Any]) -> Reply:
        prompt = request["messages"][-1]["content"]
        payload = anne if "Anne goes out" in prompt else cup if "cup" in prompt else GOOD
        return Reply(payload, delay=0.3)

    stub.responder = answer
    result = parse_batch(make(stub), texts, concurrency=2, progress=False)
    assert result.ok, result.errors
    assert [len(s.sentences) for s in result.stories if s] == [3, 1, 3, 1]
    assert result.stories[2] is not None and result.stories[2].events[0].obj == "cup"
    assert all(u.calls == 1 for u in result.usage) and result.total.calls == 4
    assert stub.max_in_flight == 2


def test_batch_reports_errors_per_input(stub: StubServer) -> None:
    stub.error(400, "no")
    result = parse_batch(make(stub), [TEXT], concurrency=1, progress=False)
    assert not result.ok and isinstance(result.errors[0], LLMRequestError)
    with pytest.raises(LLMRequestError):
        result.raise_first()


def test_batch_retries_rate_limits(stub: StubServer) -> None:
    stub.error(429, "slow down", retry_after="0")
    stub.script(GOOD)
    result = parse_batch(make(stub), [TEXT], concurrency=2, progress=False)
    assert result.ok and stub.calls == 2


# -- auto: rules first ------------------------------------------------------------------------
def test_auto_makes_no_call_when_the_rules_read_everything(stub: StubServer) -> None:
    parser = AutoParser(base_url=stub.base_url, model="stub", cache=False)
    story = parser.parse(TEXT)
    assert stub.calls == 0 and story.parser == "auto"
    assert {e.parser for e in story.events} == {"rules"}


def test_auto_needs_no_settings_for_a_story_the_rules_read() -> None:
    graph = track(TEXT, parser="auto")
    assert graph.ask("Where will Sally look for the ball?").value == "basket"


def test_auto_sends_only_the_unread_sentences(stub: StubServer) -> None:
    text = TEXT + " Anne feels guilty about it. Sally comes back."
    stub.script({"actors": ["Anne"], "items": [
        {"type": "mental_state", "sentence": 4, "holder": "Anne", "state": "emotion",
         "relation": "feel", "value": "guilty"}]})  # fmt: skip
    parser = AutoParser(base_url=stub.base_url, model="stub", cache=False)
    story = parser.parse(text)
    assert stub.calls == 1
    prompt = stub.user_messages(0)[-1]
    assert "Read only sentence(s) 4" in prompt and "move(Sally: ball -> basket)" in prompt
    assert [e.parser for e in story.events] == ["rules", "rules", "rules", "llm", "rules"]
    assert [e.id for e in story.events] == [1, 2, 3, 4, 5]
    assert story.sentences[3].parsed and story.sentences[3].events == (4,)
    assert story.events[3].proposition is not None
    assert story.events[3].proposition.content_type == "Emotion"
    graph = BeliefGraph(story)
    assert graph.ask("Where will Sally look for the ball?").value == "basket"


def test_auto_keeps_a_sentence_the_model_left_unread(stub: StubServer) -> None:
    parser = AutoParser(base_url=stub.base_url, model="stub", cache=False, strict=False)
    with pytest.warns(UserWarning, match="read no event from 1 sentence"):
        story = parser.parse(TEXT + " Anne feels guilty about it.")
    assert stub.calls == 1 and not story.sentences[3].parsed
    assert [e.parser for e in story.events] == ["rules", "rules", "rules", "rules"]


def test_auto_rejects_items_for_sentences_the_rules_read(stub: StubServer) -> None:
    wrong = {"actors": ["Sally"], "items": [
        {"type": "action", "sentence": 1, "kind": "exit", "actors": ["Sally"]}]}  # fmt: skip
    stub.script(wrong, wrong)
    parser = AutoParser(base_url=stub.base_url, model="stub", cache=False, max_retries=1)
    with pytest.raises(ParserRetryExhausted, match="not one to read"):
        parser.parse(TEXT + " Anne feels guilty.")


# -- dialogues --------------------------------------------------------------------------------
TRANSCRIPT = """Liam: (She will never find it.) "Hi Jax, I put the keys in the drawer."
Jax: "Thanks, Liam. Where is the drawer?"
Liam (whispers to Jax): It is in the kitchen.
"""


def test_transcripts_are_recognised_and_read() -> None:
    assert is_transcript(TRANSCRIPT) and not is_transcript(TEXT)
    turns = read_transcript(TRANSCRIPT)
    assert [(t.speaker, t.kind) for t in turns] == [
        ("Liam", "think"), ("Liam", "say"), ("Jax", "say"), ("Liam", "say")]  # fmt: skip
    assert turns[1].text == "Hi Jax, I put the keys in the drawer."
    assert (turns[3].to, turns[3].private) == (("Jax",), True)
    assert read_transcript("Ann (thinks): cold.\nBob: ok")[0].kind == "think"


def test_dialogue_without_llm_keeps_every_turn_and_hides_thoughts() -> None:
    story = parse_dialogue(read_transcript(TRANSCRIPT), participants=["Mia"])
    assert [e.kind for e in story.events] == ["narrate", "tell", "tell", "tell"]
    thought, said, _, whisper = story.events
    assert thought.perceivers == ("Liam",)
    assert said.perceivers == ("Liam", "Jax", "Mia") and said.hearers == ("Jax", "Mia")
    assert whisper.private and whisper.perceivers == ("Liam", "Jax")
    graph = BeliefGraph(story)
    assert thought.proposition is not None
    var = thought.proposition.variable
    assert graph.belief(("Liam",), variable=var) is not None
    assert graph.belief(("Jax",), variable=var) is None


def test_dialogue_with_llm_types_the_content(stub: StubServer) -> None:
    stub.script({
        "actors": ["Liam", "Jax"],
        "entities": [{"name": "keys", "kind": "object"}, {"name": "drawer", "kind": "container"}],
        "items": [
            {"type": "mental_state", "sentence": 1, "holder": "Liam", "state": "intention",
             "relation": "hide", "value": "the keys"},
            {"type": "utterance", "sentence": 2, "speaker": "Liam", "addressees": ["Jax"],
             "content": {"content_type": "Location", "subject": "keys", "relation": "in",
                         "value": "drawer"}},
            {"type": "utterance", "sentence": 3, "speaker": "Jax", "force": "ask",
             "content": {"subject": "drawer", "relation": "be", "value": "where"}},
        ],
    })  # fmt: skip
    graph = track(
        TRANSCRIPT, parser="llm", base_url=stub.base_url, model="stub", cache=False, strict=False
    )
    events = graph.story.events
    assert [e.kind for e in events] == ["narrate", "tell", "tell", "tell"]
    assert [e.parser for e in events] == ["llm", "llm", "llm", "transcript"]
    assert events[0].perceivers == ("Liam",)
    assert "Liam says: Hi Jax" in stub.user_messages(0)[-1]
    belief = graph.belief(("Jax",), obj="keys")
    assert belief is not None and belief.proposition.value == "drawer"
    assert belief.source_actor == "Liam"


def test_dialogue_speaker_must_match_the_turn(stub: StubServer) -> None:
    wrong = {"actors": ["Ann", "Bob"], "items": [
        {"type": "utterance", "sentence": 1, "speaker": "Bob",
         "content": {"subject": "Ann", "relation": "greet"}}]}  # fmt: skip
    stub.script(wrong, wrong)
    with pytest.raises(ParserRetryExhausted, match="but the turn is 'Ann'"):
        track_dialogue([Turn("Ann", "Hi Bob."), Turn("Bob", "Hi.")], base_url=stub.base_url,
                       model="stub", cache=False, max_retries=1)  # fmt: skip


def test_track_dialogue_takes_pairs_offline() -> None:
    graph = track_dialogue([("Ann", "The cake is in the oven."), ("Bob", "Great.")], parser=None)
    assert [e.kind for e in graph.events] == ["tell", "tell"]
    assert graph.story.parser == "transcript"


# -- registry ---------------------------------------------------------------------------------
def test_factories_are_registered(stub: StubServer) -> None:
    for name in ("llm", "beliefgraph.llm_parser.v1"):
        parser = parsers.get(name)(base_url=stub.base_url, model="stub", cache=False)
        assert isinstance(parser, LLMParser)
    for name in ("auto", "beliefgraph.auto_parser.v1"):
        assert isinstance(parsers.get(name)(strict=False), AutoParser)


def test_usage_accumulates_on_the_parser(stub: StubServer) -> None:
    stub.script(GOOD, BAD, GOOD)
    parser = make(stub)
    parser.parse(TEXT)
    parser.parse(TEXT + " ")
    assert parser.usage.calls == 3
    assert parser.usage.prompt_tokens == 300 and parser.usage.completion_tokens == 60


def test_no_warning_leaks_from_a_clean_parse(stub: StubServer) -> None:
    stub.script(GOOD)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make(stub).parse(TEXT)


# -- cost reporting -----------------------------------------------------------------------------
def test_graph_records_what_its_parse_cost(stub: StubServer) -> None:
    stub.script(GOOD)
    graph = track(TEXT, parser="llm", base_url=stub.base_url, model="stub", cache=False)
    assert graph.story.cost.calls == 1
    assert graph.story.cost.total_tokens > 0
    assert track(TEXT.replace("Sally goes out.", "Sally went out.")).story.cost.calls == 0


def test_eval_runs_a_benchmark_through_the_llm_and_counts_calls_once_per_story(
    stub: StubServer, tmp_path: Path
) -> None:
    from beliefgraph.adapters import evaluate

    lines = [f"{i} {s}." for i, s in enumerate(TEXT.rstrip(".").split(". "), start=1)]
    data = tmp_path / "mini.txt"
    questions = [
        "4 Where will Sally look for the ball?\tbasket\t1",
        "4 Where is the ball really?\tbox\t1",
    ]
    data.write_text("".join("\n".join([*lines, q]) + "\n" for q in questions))
    stub.script(GOOD)
    result = evaluate(
        "tomi", data, parser="llm", parser_settings={"base_url": stub.base_url, "model": "stub",
                                                    "cache": False},
    )  # fmt: skip
    assert result.accuracy == 1.0
    assert [r.llm_calls for r in result.results] == [1, 0]  # one story, parsed once
    assert result.summary()["llm_calls"] == 1 and result.llm_tokens > 0


def test_an_implied_mental_state_is_kept_and_labelled_implicit(stub: StubServer) -> None:
    text = "Tom stares at the last cookie."
    stub.script(
        {
            "actors": ["Tom"],
            "entities": [{"name": "cookie", "kind": "object"}],
            "items": [
                {"type": "mental_state", "sentence": 1, "holder": "Tom", "state": "desire",
                 "stated": False, "relation": "want", "value": "the cookie"},
            ],
        }
    )  # fmt: skip
    graph = track(text, parser="llm", base_url=stub.base_url, model="stub", cache=False)
    (event,) = graph.events
    assert event.stated is False
    (belief,) = [b for b in graph.beliefs(max_order=1) if b.holders == ("Tom",)]
    assert belief.proposition.relation == "want" and belief.representation == "Implicit"
