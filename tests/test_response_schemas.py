"""Every LLM response model's JSON schema, pinned by a checked-in snapshot.

A request's cache key holds a hash of its reply model's JSON schema (``schema_sha``), and so
does every recorded answer's ``custom_id``. A field added to a response model, or to any
model one embeds, therefore makes every recorded answer for it stop replaying; the replay
tests catch that only as a figure that moved. This test names the cause: the schema of which
model changed.

The response models are found in the source, not listed by hand: every class passed as the
reply type of ``extract``/``aextract`` (or a ``Request``). A new one needs its snapshot.

Update the snapshots (only after re-recording or re-keying the answers keyed on them)::

    python tests/test_response_schemas.py --update
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from beliefgraph.parsers.llm.client import model_path

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = ROOT / "tests" / "fixtures" / "response_schemas"
PACKAGES = {"beliefgraph": "beliefgraph", "parsers": "beliefgraph.parsers",
            "solvers": "beliefgraph.solvers", "adapters": "beliefgraph.adapters"}  # fmt: skip
CALLS = {"extract", "aextract", "_extract"}
UPDATE = "python tests/test_response_schemas.py --update"


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = [PACKAGES[rel.parts[0]], *rel.parts[1:]]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _reply_names(tree: ast.AST) -> set[str]:
    """Names passed as the reply type: ``x.extract(Name, ...)``, ``Request(p, m, c, k, Name)``."""
    names = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        arg: ast.expr | None = None
        if called in CALLS and node.args:
            arg = node.args[0]
        elif called == "Request":
            given = {k.arg: k.value for k in node.keywords}
            arg = node.args[4] if len(node.args) > 4 else given.get("response_model")
        if isinstance(arg, ast.Name):
            names.add(arg.id)
    return names


def response_models() -> dict[str, type[BaseModel]]:
    """``model_path -> class`` of every response model the library asks an LLM for."""
    found: dict[str, type[BaseModel]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            names = _reply_names(ast.parse(path.read_text(encoding="utf-8")))
            if not names:
                continue
            module = importlib.import_module(_module(path))
            for name in names:  # a variable holding the type (``model``) is not a class here
                obj = getattr(module, name, None)
                if isinstance(obj, type) and issubclass(obj, BaseModel):
                    found[model_path(obj)] = obj
    return found


def _snapshot(path: str) -> Path:
    return SNAPSHOTS / f"{path.replace(':', '.')}.json"


def _schema_text(model: type[BaseModel]) -> str:
    return json.dumps(model.model_json_schema(), indent=1, sort_keys=True) + "\n"


MODELS = response_models()


def test_the_scan_finds_the_response_models() -> None:
    # the scanner itself: the story parse, a grounding, the OmniToM proposals and a class
    # passed through an adapter's own helper (CoMMET's ``_extract``)
    for path in (
        "beliefgraph.parsers.llm.schema:StoryParse",
        "beliefgraph.grounding.llm:GroundingReply",
        "beliefgraph.adapters.omnitom.proposals:BeliefProposals",
        "beliefgraph.adapters.commet:_QuestionOut",
    ):
        assert path in MODELS, sorted(MODELS)


def test_every_snapshot_belongs_to_a_response_model() -> None:
    stale = sorted(p.name for p in SNAPSHOTS.glob("*.json")
                   if p not in {_snapshot(m) for m in MODELS})  # fmt: skip
    assert not stale, f"snapshots of models no LLM call uses any more: {stale}; delete them"


@pytest.mark.parametrize("path", sorted(MODELS))
def test_the_response_schema_is_unchanged(path: str) -> None:
    snapshot = _snapshot(path)
    assert snapshot.exists(), (
        f"{path} is a new LLM response model with no schema snapshot; write it with {UPDATE}"
    )
    pinned = json.loads(snapshot.read_text(encoding="utf-8"))
    assert MODELS[path].model_json_schema() == pinned, (
        f"the schema of {path} changed; every recorded answer keyed on it stops replaying "
        "(the schema's hash is in each cache key) — re-record or re-key those answers "
        f"(tests/fixtures/llm_recorded/README.md), then {UPDATE}"
    )


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit(f"usage: {UPDATE}")
    SNAPSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SNAPSHOTS.glob("*.json"):
        old.unlink()
    for path, model in sorted(MODELS.items()):
        _snapshot(path).write_text(_schema_text(model), encoding="utf-8")
        print(_snapshot(path).relative_to(ROOT))
