"""Stage 1 proposals as graph beliefs on the 29 dev stories, replayed (no network).

The recorded answers of ``omnitom_graph.answers.jsonl`` (the parse and the belief proposals
a frontier model wrote seeing only the requests) are replayed; every proposal held by
someone becomes a graph belief (``admit``). The figures are those of ``docs/llm.md``
("Stage 1: proposals as graph beliefs"): the perception model with scenes and groups flags
5 proposals whose holder perceived none of their evidence (16 without scenes: acts narrated
at a dinner table or in a classroom that only their doer was said to perceive), and the
table is the same either way (flags never drop a row).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from llm_fixtures import replay_settings

from beliefgraph.adapters import evaluate
from beliefgraph.adapters.omnitom import extract, load_stories
from beliefgraph.adapters.omnitom.proposals import Proposer, merge_proposals
from beliefgraph.api import track
from beliefgraph.grounding import make_llm_grounder
from beliefgraph.parsers.llm.batchfile import import_results
from beliefgraph.parsers.llm.cache import LLMCache
from beliefgraph.text import segment

ANSWERS = Path(__file__).parent / "fixtures" / "llm_recorded" / "omnitom_graph.answers.jsonl"


@pytest.mark.filterwarnings("ignore")
def test_proposals_enter_the_graph_and_scenes_clear_false_flags(
    benchmarks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not ANSWERS.exists():
        pytest.skip(f"no recorded answers at {ANSWERS}")
    gold = benchmarks / "omnitom" / "gold_dev.jsonl"
    cache = replay_settings(monkeypatch, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert evaluate("omnitom", gold, stage=1, parser="llm").llm_deferred == 2 * 29
    report = import_results(ANSWERS, LLMCache(cache))
    # the grounding answers (Stage 2's second request: OmniToM's own call, and the shared
    # call's answers replayed beside it) are not asked for here
    grounding = ("beliefgraph.ground.v1:", "omnitom.ground.v1:")
    assert all(cid.startswith(grounding) for _, cid, _ in report.problems)
    monkeypatch.setenv("BELIEFGRAPH_LLM_BATCH_OUT", str(tmp_path / "left.jsonl"))
    proposer = Proposer(make_llm_grounder().client)
    flagged = {True: 0, False: 0}
    admitted = 0
    for s in load_stories(gold):
        graph = track(s.story, parser="llm", max_order=3, strict=False)
        read = proposer.propose([x.text for x in segment(s.story)])
        rows = extract(graph)
        tables = {}
        for scenes in (True, False):
            merged = merge_proposals(graph, rows, read, scenes=scenes)
            flagged[scenes] += len(merged.flagged)
            tables[scenes] = merged.rows
            assert not any("perceived none" in r for r in merged.rejected)
        assert tables[True] == tables[False]  # a flag never drops a row
        admitted += sum(1 for p in read.rows if p.holders and p.sentences)
    assert proposer.calls == 29
    assert admitted == 478  # every held proposal citing a sentence is a graph belief
    assert flagged == {True: 5, False: 16}
