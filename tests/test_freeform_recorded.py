"""SimpleToM and ToMBench from their text, replayed from a capable model's recorded answers.

The sample (``bench/freeform_llm.py``: the 10 SimpleToM fixture stories and their aware
controls, the first English story of each of the 20 ToMBench tasks) was exported as batch files and
answered by a frontier model that saw only the requests (``tests/fixtures/llm_recorded/
README.md``). The test exports the requests again (they must be the recorded ones, at most 40
per file), imports the answers into a fresh cache, replays both paths and the reasoner alone
with no network, and compares every figure with ``freeform.expected.json`` (the figures in
``docs/llm.md``, "SimpleToM and ToMBench through beliefgraph and directly").
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "tests" / "fixtures" / "llm_recorded"
EXPECTED = RECORDED / "freeform.expected.json"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "freeform_llm", ROOT / "bench" / "freeform_llm.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def bench(benchmarks: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.setenv("BELIEFGRAPH_BENCHMARKS", str(benchmarks))
    for name in ("BELIEFGRAPH_LLM_BASE_URL", "OPENAI_BASE_URL", "BELIEFGRAPH_LLM_BATCH_OUT"):
        monkeypatch.delenv(name, raising=False)
    return _bench()


@pytest.mark.filterwarnings("ignore")
def test_the_sample_exports_at_most_40_requests_per_file(bench: ModuleType, tmp_path: Path) -> None:
    sizes = bench.export(tmp_path)
    # Through: a parse and a grounding request per story (10 SimpleToM stories, 10 aware
    # controls, 38 ToMBench stories with free-form questions), a parse for the other two (the
    # False Belief stories, whose questions the question module reads). Directly: one request
    # per question (30 SimpleToM, 76 ToMBench: the first two stories of each of the 20 tasks;
    # the second ones since stop 14).
    assert sizes == {
        "through": 2 * 10 + 2 * 10 + 2 * 38 + 2,
        "direct": 30 + 76,
        "direct_controls": 30,
    }
    files = sorted(tmp_path.glob("freeform_*.jsonl"))
    assert [f.name for f in files] == [
        "freeform_direct.jsonl", "freeform_direct_2.jsonl", "freeform_direct_3.jsonl",
        "freeform_direct_controls.jsonl",
        "freeform_through.jsonl", "freeform_through_2.jsonl", "freeform_through_3.jsonl",
    ]  # fmt: skip
    sent: set[str] = set()
    for f in files:
        lines = f.read_text(encoding="utf-8").splitlines()
        assert len(lines) <= 40
        for line in lines:  # exactly what a model is sent: no gold anywhere
            request = json.loads(line)
            assert request["body"]["model"] == "frontier"
            assert "answerKey" not in line and "ANSWER" not in line
            sent.add(request["custom_id"])
    recorded = [RECORDED / f"{name}.answers.jsonl" for name in bench.ROUNDS]
    if all(p.exists() for p in recorded):  # the recorded answers answer these requests
        got = {json.loads(x)["custom_id"] for p in recorded for x in p.read_text().splitlines()}
        assert sent <= got
        # the rest are the parser's own re-asks of answers that failed its consistency check
        assert all(c.startswith("story.v2:") for c in got - sent)


@pytest.mark.filterwarnings("ignore")
def test_recorded_answers_reproduce_the_documented_figures(bench: ModuleType) -> None:
    recorded = [RECORDED / f"{name}.answers.jsonl" for name in bench.ROUNDS]
    if not EXPECTED.exists() or not all(p.exists() for p in recorded):
        pytest.skip(f"no recorded answers in {RECORDED}")
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    got = bench.replay(RECORDED)
    # every figure but the replay's seconds (the machine's, not the answers')
    figures = {kind: {k: v for k, v in f.items() if k != "seconds"} for kind, (f, _) in got.items()}
    assert figures["through"]["calls"] == figures["direct"]["calls"] == 0  # all from the cache
    assert json.loads(json.dumps(figures)) == expected
