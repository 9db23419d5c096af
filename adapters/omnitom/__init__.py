"""OmniToM (seed 000): belief tables from the graph, labelled symbolically, scored as released.

OmniToM asks for the belief structure itself. Stage 1 extracts (actor, belief, order) rows,
with the actor ``world`` for narrated facts; Stage 2 labels every row on seven dimensions.
This package renders any belief graph as those tables and scores both stages:

- ``records``: the released JSONL format (``load_stories``, ``OmniRow``, ``OmniLabels``);
- ``extract``: Stage 1 rows from a graph (``extract``), as a pipe table, release records or
  the judge's CSV;
- ``proposals``: Stage 1 with an LLM: one OmniToM-only request per story reads the story's
  beliefs (``Proposer``), merged with the graph's rows (``merge_proposals``,
  ``stage1_table``);
- ``labeler``: Stage 2 labels of a graph belief (``Labeler``);
- ``protocol``: the benchmark's Stage 2 protocol for given rows (``label_rows``);
- ``matching`` and ``judge``: Stage 1 MatchCounts (``TokenOverlapMatcher``,
  ``EmbeddingMatcher``, ``LLMJudge``);
- ``scoring``: the release's metric (``protocol="paper"``) and our normalised reading;
- ``release``: the release's prompts (vendored verbatim) and its text-parsing rules;
- ``direct``: the same-model direct baseline (the release's prompts through the LLM client)
  and the release's judge as a matcher (``release_judge``);
- ``bench``: the harness adapter registered as ``omnitom``.

>>> from beliefgraph import track
>>> from beliefgraph.adapters.omnitom import tables
>>> stage1, stage2 = tables(track("Alice and Bob are in a room. There is an object in a "
...                               "box. Bob leaves. Alice moves the object to the safe."))
>>> print(stage1.splitlines()[1])
world | Alice is in the room | 0
>>> stage2.splitlines()[-1].split(" | ")[1:]  # doctest: +NORMALIZE_WHITESPACE
['Alice thinks Bob thinks the object is in the box', '3', 'True', 'Private', 'Implicit',
 'Epistemic', 'Inference', 'Neutral']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .bench import load_items, make_omnitom
from .direct import DirectRun, ReleaseJudge, make_direct_omnitom
from .extract import (
    ExtractedRow,
    extract,
    judge_csv,
    phrase,
    pipe_table,
    read_pipe_table,
    to_record,
)
from .judge import JudgeRetryExhausted, LLMJudge
from .labeler import Labeler, solver_available
from .labels import DIMENSIONS, LABEL_SETS, canonical
from .matching import (
    Alignment,
    EmbeddingMatcher,
    Matcher,
    TokenOverlapMatcher,
    embeddings_available,
    make_matcher,
)
from .proposals import BeliefProposals, Merged, Proposal, Proposer, merge_proposals, stage1_table
from .protocol import RowLabels, label_rows
from .records import OmniLabels, OmniRow, OmniStory, load_stories
from .scoring import (
    Stage1Score,
    Stage2Score,
    macro_stage1,
    macro_stage2,
    score_stage1,
    score_stage2,
)

if TYPE_CHECKING:
    from beliefgraph.graph import BeliefGraph

__all__ = [
    "DIMENSIONS",
    "LABEL_SETS",
    "Alignment",
    "BeliefProposals",
    "DirectRun",
    "EmbeddingMatcher",
    "ExtractedRow",
    "JudgeRetryExhausted",
    "LLMJudge",
    "Labeler",
    "Matcher",
    "Merged",
    "OmniLabels",
    "OmniRow",
    "OmniStory",
    "Proposal",
    "Proposer",
    "ReleaseJudge",
    "RowLabels",
    "Stage1Score",
    "Stage2Score",
    "TokenOverlapMatcher",
    "canonical",
    "embeddings_available",
    "extract",
    "judge_csv",
    "label_rows",
    "load_items",
    "load_stories",
    "macro_stage1",
    "macro_stage2",
    "make_direct_omnitom",
    "make_matcher",
    "make_omnitom",
    "merge_proposals",
    "phrase",
    "pipe_table",
    "read_pipe_table",
    "score_stage1",
    "score_stage2",
    "solver_available",
    "stage1_table",
    "tables",
    "to_record",
]


def tables(graph: BeliefGraph, *, truth: str = "graph", **settings: object) -> tuple[str, str]:
    """Both tables of a tracked story as pipe tables: Stage 1 rows, then rows with labels.

    ``truth`` and ``settings`` go to ``extract`` (``nested``, ``max_order``,
    ``self_beliefs``).
    """
    rows = [r.row for r in extract(graph, truth=truth, **settings)]  # type: ignore[arg-type]
    return pipe_table(rows), pipe_table(rows, labels=True)
