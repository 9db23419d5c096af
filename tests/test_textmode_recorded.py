"""BigToM, OpenToM and CoMMET through beliefgraph and directly, replayed from a capable
model's recorded answers (no network).

The samples (``fixtures/llm_recorded/textmode_sample.json``, item-blind) were run with a batch
file; a frontier model answered the two request files, seeing only them
(``fixtures/llm_recorded/README.md``). For each benchmark and kind, the test does the whole
round trip: a run with ``batch_out`` writes the requests (and the cache's pending rows),
``import_results`` stores the recorded answers, and the rerun reads every answer from the
cache (a request still missing would be written to a batch file, never sent) and must give
the figures in ``textmode.expected.json`` (the ones ``docs/llm.md`` quotes;
``python bench/textmode_llm.py`` prints them).
"""

from __future__ import annotations

import functools
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
SAMPLE = json.loads((RECORDED / "textmode_sample.json").read_text(encoding="utf-8"))
EXPECTED = RECORDED / "textmode.expected.json"


def _path(rel: str) -> Path:
    return ROOT / rel if rel.startswith("tests/") else benchmarks_dir() / rel


def _run(kind: str, name: str, llm: dict[str, Any]) -> Any:
    spec = SAMPLE["runs"][kind][name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(name, _path(spec["data"]), parser="llm", parser_settings=llm,
                        **spec["settings"])  # fmt: skip


def _run_all(kind: str, llm: dict[str, Any]) -> None:
    for name in SAMPLE["runs"][kind]:
        _run(kind, name, llm)


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Kind -> benchmark -> the rerun's EvalResult (and the requests its export wrote)."""
    if not EXPECTED.exists():
        pytest.skip(f"no recorded figures at {EXPECTED}")
    for kind in SAMPLE["runs"]:
        for spec in SAMPLE["runs"][kind].values():
            if not _path(spec["data"]).exists():
                pytest.skip(f"benchmark data not found at {_path(spec['data'])}")
    out: dict[str, dict[str, Any]] = {}
    with pytest.MonkeyPatch.context() as env:
        # The exports named no endpoint, and the URL is part of each cache key.
        for var in ("BELIEFGRAPH_LLM_BASE_URL", "OPENAI_BASE_URL", "BELIEFGRAPH_LLM_MODE"):
            env.delenv(var, raising=False)
        _replay(out, tmp_path_factory)
    return out


def _replay(out: dict[str, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> None:
    for kind, names in SAMPLE["runs"].items():
        # every round's answers: textmode_<kind>.answers.jsonl, textmode_<kind>_r2..., together
        files = sorted(RECORDED.glob(f"textmode_{kind}*.answers.jsonl"))
        if not files:
            continue
        tmp = tmp_path_factory.mktemp(kind)
        cache = tmp / "cache.sqlite3"
        llm = {"model": SAMPLE["model"], "batch_out": str(tmp / "requests.jsonl"),
               "cache": str(cache)}  # fmt: skip
        written = {name: _run(kind, name, llm).llm_deferred for name in names}
        report = import_rounds(files, LLMCache(cache), functools.partial(_run_all, kind, llm))
        assert not report.problems, report.problems  # every line was asked for by some round
        left = {**llm, "batch_out": str(tmp / "left.jsonl")}
        out[kind] = {name: (_run(kind, name, left), written[name]) for name in names}


def _check(kind: str, name: str, replayed: dict[str, dict[str, Any]]) -> None:
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    if kind not in replayed or kind not in expected:
        pytest.skip(f"no recorded {kind} answers")
    r, written = replayed[kind][name]
    want = expected[kind][name]
    check_replayed(r, written, want)
    assert r.headline_value == pytest.approx(want["headline_value"], abs=1e-6)
    for key, value in want["metrics"].items():
        assert r.metrics[key] == pytest.approx(value, abs=1e-6), key
    for breakdown in ("variable", "condition", "question_type"):
        if f"by_{breakdown}" in want:
            got = {k: v["accuracy"] for k, v in r.by()[breakdown].items()}
            assert got == pytest.approx(want[f"by_{breakdown}"], abs=1e-6), breakdown


@pytest.mark.parametrize("kind", ["through", "direct"])
def test_bigtom_replay(kind: str, replayed: dict[str, dict[str, Any]]) -> None:
    _check(kind, "bigtom", replayed)


@pytest.mark.parametrize("kind", ["through", "direct"])
def test_opentom_replay(kind: str, replayed: dict[str, dict[str, Any]]) -> None:
    _check(kind, "opentom", replayed)


@pytest.mark.parametrize("kind", ["through", "direct"])
def test_commet_replay(kind: str, replayed: dict[str, dict[str, Any]]) -> None:
    _check(kind, "commet", replayed)
