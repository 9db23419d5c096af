"""ToMATO and DialToM through beliefgraph and directly, replayed from a capable model's
recorded answers (no network).

The samples (``fixtures/llm_recorded/dialogue_sample.json``, item-blind) were run with a batch
file; a frontier model answered the four request files, seeing only them
(``fixtures/llm_recorded/README.md``). For each request file the test does the whole round
trip: a run with ``batch_out`` writes the requests (and the cache's pending rows),
``import_results`` stores the recorded answers (round by round), and the rerun reads every
answer from the cache (a request still missing would be written to a batch file, never sent)
and must give the figures in ``dialogue.expected.json`` (the ones ``docs/llm.md`` quotes;
``python bench/dialogue_llm.py`` prints them).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import benchmarks_dir
from llm_fixtures import check_replayed

from beliefgraph.adapters import evaluate
from beliefgraph.adapters.direct import import_rounds
from beliefgraph.parsers.llm.cache import LLMCache

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "tests" / "fixtures" / "llm_recorded"
SAMPLE = json.loads((RECORDED / "dialogue_sample.json").read_text(encoding="utf-8"))
EXPECTED = RECORDED / "dialogue.expected.json"


def _run(name: str, kind: str, llm: dict[str, Any]) -> Any:
    spec = SAMPLE["runs"][name]
    settings = dict(spec["settings"], **({"direct": True} if kind == "direct" else {}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(spec["benchmark"], benchmarks_dir() / spec["data"], parser="llm",
                        parser_settings=llm, **settings)  # fmt: skip


def _answers(file: str) -> list[Path]:
    first = RECORDED / f"{file}.answers.jsonl"
    return [p for p in (first, *sorted(RECORDED.glob(f"{file}_r*.answers.jsonl"))) if p.exists()]


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Kind -> run -> (the rerun's EvalResult, the requests its first export wrote)."""
    if not EXPECTED.exists():
        pytest.skip(f"no recorded figures at {EXPECTED}")
    for spec in SAMPLE["runs"].values():
        if not (benchmarks_dir() / spec["data"]).exists():
            pytest.skip(f"benchmark data not found at {benchmarks_dir() / spec['data']}")
    out: dict[str, dict[str, Any]] = {}
    with pytest.MonkeyPatch.context() as env:
        # The exports named no endpoint, and the URL is part of each cache key.
        for var in ("BELIEFGRAPH_LLM_BASE_URL", "OPENAI_BASE_URL", "BELIEFGRAPH_LLM_MODE"):
            env.delenv(var, raising=False)
        for file, spec in SAMPLE["files"].items():
            answers = _answers(file)
            if not answers:
                continue
            kind, names = spec["kind"], spec["runs"]
            tmp = tmp_path_factory.mktemp(file)
            llm = {"model": SAMPLE["model"], "batch_out": str(tmp / "requests.jsonl"),
                   "cache": str(tmp / "cache.sqlite3")}  # fmt: skip
            written = {name: _run(name, kind, llm).llm_deferred for name in names}
            for path in answers:

                def again(
                    names: list[str] = names, kind: str = kind, llm: dict[str, Any] = llm
                ) -> None:
                    for name in names:
                        _run(name, kind, llm)

                report = import_rounds(path, LLMCache(tmp / "cache.sqlite3"), again)
                assert not report.problems, report.problems  # every line was asked for
            left = {**llm, "batch_out": str(tmp / "left.jsonl")}
            for name in names:
                out.setdefault(kind, {})[name] = (_run(name, kind, left), written[name])
    return out


def _check(kind: str, name: str, replayed: dict[str, dict[str, Any]]) -> None:
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    if name not in replayed.get(kind, {}) or name not in expected.get(kind, {}):
        pytest.skip(f"no recorded {kind} answers for {name}")
    r, written = replayed[kind][name]
    want = expected[kind][name]
    check_replayed(r, written, want)
    for breakdown in ("state_order", "task", "attribute"):
        if f"by_{breakdown}" in want:
            got = {k: v["accuracy"] for k, v in r.by()[breakdown].items()}
            assert got == pytest.approx(want[f"by_{breakdown}"], abs=1e-6), breakdown


@pytest.mark.parametrize("kind", ["through", "direct"])
@pytest.mark.parametrize(
    "name", [n for n in SAMPLE["runs"] if SAMPLE["runs"][n]["benchmark"] == "tomato"]
)
def test_tomato_replay(kind: str, name: str, replayed: dict[str, dict[str, Any]]) -> None:
    _check(kind, name, replayed)


@pytest.mark.parametrize("kind", ["through", "direct"])
@pytest.mark.parametrize(
    "name", [n for n in SAMPLE["runs"] if SAMPLE["runs"][n]["benchmark"] == "dialtom"]
)
def test_dialtom_replay(kind: str, name: str, replayed: dict[str, dict[str, Any]]) -> None:
    _check(kind, name, replayed)


def test_the_models_readings_are_an_ablation_off_by_default(
    replayed: dict[str, dict[str, Any]],
) -> None:
    # The same answers, read by the scorers (readings=True) or not: the default graph path
    # answers as the offline graph on this sample; the readings runs are recorded beside it.
    through = replayed.get("through", {})
    if "tomato" not in through or "tomato_readings" not in through:
        pytest.skip("no recorded through answers")
    assert through["tomato"][0].llm_calls == through["tomato_readings"][0].llm_calls == 0
    assert [r.prediction for r in through["tomato"][0].results] != [
        r.prediction for r in through["tomato_readings"][0].results
    ]
