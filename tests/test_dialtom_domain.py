"""An unknown DialToM domain is a reported record problem, not a silent "MI".

The domain names the conversation's two roles in DialToM's prompts (Counselor/Client for MI,
Supporter/Seeker for ESC, Persuader/Persuadee for PFG). A record of another domain used to
be asked with MI's roles; now it is a malformed record like any other: counted, named in its
explanation, scored wrong, and the rest of the file is scored.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_adapter_dialtom import ATTRIBUTES, prosp, retro

from beliefgraph.adapters import evaluate
from beliefgraph.adapters.dialtom import direct_messages, load_dialtom
from beliefgraph.errors import DataFormatError


def test_a_file_of_an_unknown_domain_is_reported_record_by_record(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "MI_retrospective_verified.json").write_text(json.dumps([retro("1, 0", "Belief")]))
    (data / "XYZ_retrospective_verified.json").write_text(
        json.dumps([retro("2, 0", "Belief"), retro("2, 1", "Trust")])
    )
    items = load_dialtom(data)
    odd = [i for i in items if i.meta["domain"] == "XYZ"]
    assert len(odd) == 2
    for item in odd:
        assert item.meta["malformed"] == "unknown domain 'XYZ': DialToM's domains are MI, ESC, PFG"
        assert item.choices == ()
    result = evaluate("dialtom", data, embeddings=False)
    assert result.n == 3 and result.answered == 1  # the MI record is scored
    assert result.metrics["malformed.skipped_record"] == 2
    named = [r for r in result.results if r.id.startswith("XYZ")]
    assert len(named) == 2
    assert all("unknown domain 'XYZ'" in " ".join(r.explanation) for r in named)


def test_counterfactual_and_written_records_check_their_domain(tmp_path: Path) -> None:
    (tmp_path / "XYZ_prospective_verified.json").write_text(json.dumps([prosp("1, 0", "Emotions")]))
    statements = [f"I {a} that nothing will change." for a in ATTRIBUTES]
    cf = tmp_path / "XYZ_counterfact.json"
    cf.write_text(json.dumps({"1, 0_Emotions": statements}))
    [item] = load_dialtom(cf)
    assert item.meta["malformed"].startswith("unknown domain 'XYZ'")

    written = tmp_path / "written"
    written.mkdir()
    record = retro("1, 0", "Belief")
    (written / "combined_written_data.json").write_text(
        json.dumps({"MI": {"1, 0": record}, "XYZ": {"1, 0": record}})
    )
    (written / "written_inference.csv").write_text(
        "dataset,sub_id,mental_state,inferences\n"
        'MI,"1, 0",Belief,The client believes cutting down helps.\n'
        'XYZ,"1, 0",Belief,The client believes cutting down helps.\n'
    )
    by_domain = {i.meta["domain"]: i for i in load_dialtom(written / "combined_written_data.json")}
    assert "malformed" not in by_domain["MI"].meta
    assert by_domain["XYZ"].meta["malformed"].startswith("unknown domain 'XYZ'")


def test_the_direct_prompt_refuses_an_unknown_domain_instead_of_guessing_mi(
    tmp_path: Path,
) -> None:
    path = tmp_path / "MI_retrospective_verified.json"
    path.write_text(json.dumps([retro("1, 0", "Belief")]))
    [item] = load_dialtom(path)
    assert "Counselor" in direct_messages(item)[0]["content"]
    odd = item.model_copy(update={"meta": {**item.meta, "domain": "XYZ"}})
    with pytest.raises(DataFormatError, match=r"unknown domain 'XYZ'"):
        direct_messages(odd)
