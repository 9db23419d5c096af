"""OmniToM through beliefgraph, replayed from a capable model's recorded answers (no network).

The 29 dev stories' requests (one parse call and one grounding call per story) were written to
a batch file and answered by a frontier model (``tests/fixtures/llm_recorded/README.md``). The
test does the whole round trip: a run with ``batch_out`` writes the requests (and the cache's
pending rows), ``import_results`` stores the recorded answers, and the rerun reads every
answer from the cache (an unreachable endpoint: a missing answer fails loudly) and must give
the figures recorded in ``docs/llm.md``. The parse requests are ``story.v2`` (implied beliefs);
the requests still written on replay are the repair re-asks of the answers the consistency
check objects to (their first answers are used meanwhile), counted in ``expected["left"]``.
Stage 1's second request per story is the OmniToM belief proposals (``omnitom.beliefs.v1``,
``adapters/omnitom/proposals.py``), answered by the same kind of model seeing only them.
Stage 2's grounding request is OmniToM's own (``omnitom.ground.v1``,
``adapters/omnitom/grounding.py``); the shared grounding call's recorded answers
(``beliefgraph.ground.v1``) replay beside it, for the comparison ``docs/llm.md`` gives.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from llm_fixtures import replay_settings

from beliefgraph.adapters import evaluate
from beliefgraph.parsers.llm.batchfile import import_results
from beliefgraph.parsers.llm.cache import LLMCache

RECORDED = Path(__file__).parent / "fixtures" / "llm_recorded"
ANSWERS = RECORDED / "omnitom_graph.answers.jsonl"
EXPECTED = RECORDED / "omnitom_graph.expected.json"


@pytest.fixture
def replay(benchmarks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if not ANSWERS.exists() or not EXPECTED.exists():
        pytest.skip(f"no recorded answers at {ANSWERS}")
    gold = benchmarks / "omnitom" / "gold_dev.jsonl"
    cache = replay_settings(monkeypatch, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        written = evaluate("omnitom", gold, stage=2, parser="llm", grounding="llm")
    assert written.llm_deferred == 2 * 29  # one parse and one grounding request per story
    # The shared grounding call (beliefgraph.ground.v1) in place of OmniToM's own: the same 29
    # parse requests (already written) and 29 other grounding requests, replayed beside it.
    shared = evaluate(
        "omnitom", gold, stage=2, parser="llm", grounding="llm", grounding_prompt="shared"
    )
    assert shared.llm_deferred == 2 * 29
    # Stage 1's second request per story is the belief proposals (no rows to ground there)
    stage1 = evaluate("omnitom", gold, stage=1, parser="llm")
    assert stage1.llm_deferred == 2 * 29  # the parse request again, and the proposals
    report = import_results(ANSWERS, LLMCache(cache))
    assert not report.problems, report.problems
    # Replay with a batch file still set: a request missing from the cache would be written
    # there (and counted) instead of sent, so nothing can reach a network.
    monkeypatch.setenv("BELIEFGRAPH_LLM_BATCH_OUT", str(tmp_path / "left.jsonl"))
    return gold


@pytest.mark.filterwarnings("ignore")
def test_recorded_answers_reproduce_the_documented_figures(replay: Path) -> None:
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    r2 = evaluate("omnitom", replay, stage=2, parser="llm", grounding="llm")
    r1 = evaluate("omnitom", replay, stage=1, parser="llm")
    # every answer came from the cache: no call; the only requests left for another batch
    # round are the repair re-asks of parses the consistency check objects to ("left")
    assert (r2.llm_calls, r1.llm_calls) == (0, 0)
    assert {"stage2": r2.llm_deferred, "stage1": r1.llm_deferred} == expected["left"]
    for key, value in expected["stage2"].items():
        assert r2.metrics[key] == pytest.approx(value, abs=1e-4), key
    for key, value in expected["stage1"].items():
        assert r1.metrics[key] == pytest.approx(value, abs=1e-4), key


@pytest.mark.filterwarnings("ignore")
def test_the_shared_grounding_call_replays_beside_omnitoms_own(replay: Path) -> None:
    # The figures docs/llm.md gives for the shared grounding call (beliefgraph.ground.v1),
    # the comparison behind making omnitom.ground.v1 the OmniToM default.
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))["stage2_shared"]
    r2 = evaluate(
        "omnitom", replay, stage=2, parser="llm", grounding="llm", grounding_prompt="shared"
    )
    assert r2.llm_calls == 0
    for key, value in expected.items():
        assert r2.metrics[key] == pytest.approx(value, abs=1e-4), key
