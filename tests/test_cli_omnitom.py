"""``beliefgraph omnitom`` renders Stage 1 through ``stage1_table``, as ``evaluate`` does.

Offline the table is the graph's (as before, byte for byte: ``test_cli.py`` runs it). Read by
the LLM parser, the story's second request asks for belief proposals, which are merged with
the graph's rows; the rows without the graph's labels are labelled as Stage 2 labels given
rows. The round trip here is a batch file answered as the Batch API would.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_fixtures import GOOD, TEXT, batch_answers, write_jsonl
from typer.testing import CliRunner

from beliefgraph.adapters.omnitom import extract, pipe_table
from beliefgraph.api import track
from beliefgraph.cli.main import app

pytest_plugins = ["llm_fixtures"]
pytestmark = pytest.mark.usefixtures("offline")
runner = CliRunner()

# TEXT: [1] Sally puts the ball in the basket. [2] Sally goes out. [3] Anne moves the ball ...
PROPOSALS: dict[str, Any] = {
    "rows": [
        {"holders": ["Anne"], "belief": "Sally is away", "sentences": [2], "how": "saw"},
        # about the ball, which the graph tracks against Sally's false belief: left out
        {"holders": ["Sally"], "belief": "The ball is in the basket", "sentences": [1],
         "how": "saw"},
    ]
}  # fmt: skip


def _flat(output: str) -> str:
    return " ".join(output.split())


def test_offline_the_table_is_the_graphs(tmp_path: Path) -> None:
    story = tmp_path / "story.txt"
    story.write_text(TEXT + "\n")
    result = runner.invoke(app, ["omnitom", str(story), "--nested", "all"])
    assert result.exit_code == 0, result.output
    rows = [r.row for r in extract(track(TEXT, max_order=3), nested="all")]
    assert pipe_table(rows) in result.output
    assert pipe_table(rows, labels=True) in result.output


def test_with_the_llm_parser_the_proposals_join_the_table(tmp_path: Path) -> None:
    story = tmp_path / "story.txt"
    story.write_text(TEXT + "\n")
    batch = tmp_path / "b.jsonl"
    command = ["omnitom", str(story), "--llm-model", "stub", "--batch-out", str(batch),
               "--lenient"]  # fmt: skip
    first = runner.invoke(app, command)
    assert first.exit_code == 0, first.output
    assert "no belief proposals" in _flat(first.output)  # pending: the graph's rows alone
    lines = [json.loads(x) for x in batch.read_text().splitlines()]
    assert sorted(x["custom_id"].split(":")[0] for x in lines) == [
        "omnitom.beliefs.v1", "story.v2"]  # fmt: skip

    answers = []
    for prefix, reply in (("story.v2", GOOD), ("omnitom.beliefs.v1", PROPOSALS)):
        part = write_jsonl(tmp_path / f"{prefix}.jsonl",
                           [x for x in lines if x["custom_id"].startswith(prefix)])  # fmt: skip
        answers += batch_answers(part, reply)
    # the run's cache is BELIEFGRAPH_LLM_CACHE (the offline fixture's), so no --cache
    answered = write_jsonl(tmp_path / "answers.jsonl", answers)
    imported = runner.invoke(app, ["llm", "import", str(answered)])
    assert imported.exit_code == 0, imported.output

    again = runner.invoke(app, command)
    assert again.exit_code == 0, again.output
    out = again.output
    assert "no belief proposals" not in out
    stage1, stage2 = out.split("Stage 2: belief labels")
    assert "Anne | Sally is away | 1" in stage1  # a proposal, with the graph's spelling
    assert "Sally | The ball is in the basket | 1" in stage1  # the graph's own row stands
    assert "left out: Sally: 'The ball is in the basket': the graph tracks the ball" in _flat(
        stage1
    )
    [row] = [ln for ln in stage2.splitlines() if ln.startswith("Anne | Sally is away |")]
    cells = row.split(" | ")
    assert len(cells) == 9 and all(cells[3:])  # the seven labels, none empty
    assert len(batch.read_text().splitlines()) == 2  # nothing more was asked
