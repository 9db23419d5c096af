"""BigToM on a held-out sample through beliefgraph and directly, replayed from a capable
model's recorded answers (no network).

The sample (``fixtures/llm_recorded/bigtom_heldout_sample.json``: template rows 13-24, the
four forward cells with the initial belief hidden) was fixed by file order before any of its
items was run, after the text answerer was developed on rows 1-12. A frontier model answered
the request files seeing only them (``fixtures/llm_recorded/README.md``). The replay imports
the answers into a temporary cache and reruns; it must make no call, leave nothing to ask,
and give the figures in ``bigtom_heldout.expected.json`` (``python bench/bigtom_llm.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import benchmarks_dir

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "tests" / "fixtures" / "llm_recorded"
EXPECTED = RECORDED / "bigtom_heldout.expected.json"


@pytest.fixture(scope="module")
def replayed() -> dict[str, Any]:
    if not EXPECTED.exists():
        pytest.skip(f"no recorded figures at {EXPECTED}")
    data = benchmarks_dir() / "bigtom" / "data" / "bigtom" / "bigtom.csv"
    if not data.exists():
        pytest.skip(f"BigToM data not found at {data}")
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import bigtom_llm
    finally:
        sys.path.remove(str(ROOT / "bench"))
    with pytest.MonkeyPatch.context() as env:
        # The exports named no endpoint, and the URL is part of each cache key.
        for var in ("BELIEFGRAPH_LLM_BASE_URL", "OPENAI_BASE_URL", "BELIEFGRAPH_LLM_MODE"):
            env.delenv(var, raising=False)
        env.setenv("BELIEFGRAPH_BENCHMARKS", str(benchmarks_dir()))
        return bigtom_llm.replay("frontier", None, None)


@pytest.mark.parametrize("kind", ["through", "direct"])
def test_bigtom_heldout_replay(kind: str, replayed: dict[str, Any]) -> None:
    want = json.loads(EXPECTED.read_text(encoding="utf-8"))
    if kind not in want:
        pytest.skip(f"no recorded {kind} answers")
    got = replayed[kind]
    assert got["left"] == 0, "every request the run makes has a recorded answer"
    assert got == want[kind]
