"""A batch re-ask's text carries nothing that depends on the installed pydantic version.

A batch re-ask is a request of its own whose text (the answer, then its errors) is part of
its cache key, so a recorded re-ask answer replays only while that text is the same. pydantic's
own rendering of an error names its minor version (``errors.pydantic.dev/2.13/v/...``) and a
truncated repr of the input; ``validation_text`` writes the errors from ``err.errors()``
without either, so the recorded re-ask answers replay under any pydantic 2.x.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pydantic
import pytest
from llm_fixtures import GOOD, TEXT, batch_answers, write_jsonl
from pydantic import BaseModel, ValidationError, model_validator

from beliefgraph.parsers.llm import LLMCache, LLMParser, LLMSalvageWarning, import_results
from beliefgraph.parsers.llm.client import validation_text

pytest_plugins = ["llm_fixtures"]
pytestmark = pytest.mark.usefixtures("offline")

MAJOR_MINOR = ".".join(pydantic.VERSION.split(".")[:2])
# A move with no destination: the schema rejects it when the answer is imported.
NO_DESTINATION: dict[str, Any] = {
    **GOOD,
    "items": [{**i, "destination": None} if i["sentence"] == 3 else i for i in GOOD["items"]],
}
# Sentence 7 of a three-sentence story: only the rerun's checks (they read the story) reject it.
NO_SUCH_SENTENCE: dict[str, Any] = {
    **GOOD,
    "items": [{**i, "sentence": 7} if i["sentence"] == 2 else i for i in GOOD["items"]],
}


class _Move(BaseModel):
    obj: str
    destination: str

    @model_validator(mode="after")
    def _not_itself(self) -> _Move:
        if self.obj == self.destination:
            raise ValueError(f"{self.obj!r} cannot be moved into itself")
        return self


def _error(data: Any) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        _Move.model_validate(data)
    return caught.value


def _versionless(text: str) -> None:
    assert "errors.pydantic.dev" not in text
    assert f"/{MAJOR_MINOR}/" not in text
    assert "input_value" not in text and "input_type" not in text


def test_the_errors_are_written_in_pydantics_layout_without_link_or_input() -> None:
    err = _error({"obj": "ball", "destination": None, "extra": 1})
    assert validation_text(err) == (
        "1 validation error for _Move\n"
        "destination\n"
        "  Input should be a valid string [type=string_type]"
    )
    # a model-level error has no location line, as in pydantic's own rendering
    assert validation_text(_error({"obj": "box", "destination": "box"})) == (
        "1 validation error for _Move\n  Value error, 'box' cannot be moved into itself "
        "[type=value_error]"
    )
    two = validation_text(_error({"obj": [1], "destination": [2]}))
    assert two.startswith("2 validation errors for _Move\nobj\n")
    _versionless(two)


def test_anything_but_a_validation_error_is_its_own_message() -> None:
    assert validation_text(ValueError("no option named")) == "no option named"


def _round(tmp_path: Path, n: int, reply: Any) -> None:
    batch = tmp_path / f"round{n}.jsonl"
    answers = write_jsonl(tmp_path / f"answers{n}.jsonl", batch_answers(batch, reply))
    report = import_results(answers, LLMCache(tmp_path / "c.sqlite3"))
    assert not report.problems, report.lines()


def _parse(tmp_path: Path, n: int, warning: type[Warning], match: str) -> None:
    parser = LLMParser(model="stub", cache=tmp_path / "c.sqlite3", strict=False,
                       batch_out=tmp_path / f"round{n}.jsonl")  # fmt: skip
    with pytest.warns(warning, match=match):
        parser.parse(TEXT)


@pytest.mark.parametrize(
    ("reply", "says"),
    [
        (NO_DESTINATION, "a move needs obj (what is moved) and destination"),  # on import
        (NO_SUCH_SENTENCE, "sentence 7"),  # on the rerun, by the checks that read the story
    ],
)
def test_a_batch_reask_body_carries_no_pydantic_version(
    tmp_path: Path, reply: dict[str, Any], says: str
) -> None:
    _parse(tmp_path, 1, UserWarning, "answer pending")
    _round(tmp_path, 1, reply)
    _parse(tmp_path, 2, LLMSalvageWarning, "re-ask waits in batch file")
    [line] = [json.loads(x) for x in (tmp_path / "round2.jsonl").read_text().splitlines()]
    note = line["body"]["messages"][-1]["content"]
    assert note.startswith("Validation Error found:\n1 validation error for StoryParse\n")
    assert says in note
    assert note.endswith("[type=value_error]\nRecall the function correctly, fix the errors")
    # the whole request body, which is what the cache key and custom_id are made from
    _versionless(json.dumps(line["body"]))
