"""Tutorial 6: play a CoMMET StoryTurn with a lie, turn by turn, on one growing graph.

Run it from anywhere:

    python examples/06_commet_storyturn_lie.py

CoMMET (Chen et al.) tells a story in turns and asks a question after each, some of them
"Why or why not?". Each turn has five fields, ``Story | Feedback | Question | Image |
Answer``. The runner adds each turn's events to the same graph and answers from the graph
as it then stands, so a later question sees everything said before it.

The story is the paper's gold sticker StoryTurn (Table 6), shortened to three turns: Leo
lies, Mrs. Green repeats the lie believing it (a false statement, not a lie), and then the
wind really does take the sticker. The runner needs a parse of every turn: here a recorded,
hand-checked one written inline, in the format of ``tests/fixtures/commet/``. The full
seven-turn version is played at the end when the repository's fixtures are beside this file.
"""

import json
from pathlib import Path

from beliefgraph.adapters.commet import (
    StoryTurn,
    StoryTurnParse,
    Turn,
    load_storyturns,
    run_storyturn,
)

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "commet"

# The turns, written as the paper prints them: Story | Feedback | Question | Image | Answer.
TURNS = [
    "Mrs. Green places a shiny gold sticker on her desk. Mrs. Green leaves the room for a "
    "moment. While she is gone, Leo takes the sticker and hides it in his pocket. When Mrs. "
    'Green comes back, she sees the empty desk. Leo tells her, "Maybe the wind blew it out '
    'the window." |  | Is Leo lying? |  | Yes',
    'Mia comes to the desk to get her prize. Mrs. Green says, "I am so sorry Mia, the wind '
    'blew it out the window." |  | Is Mrs. Green lying? Why or why not? |  | No. Because '
    "she does not know Leo has it; she thinks the wind took it",
    "Leo puts the sticker back on the desk. Just then, a gust of wind blows the sticker out "
    "the open window! |  | Was Leo lying earlier when he told Mrs. Green the wind blew the "
    "sticker away? Why or why not? |  | Yes. Because at the time he told Mrs. Green the wind "
    "took it, the sticker was actually in his pocket",
]
storyturn = StoryTurn(id="gold_sticker_short", turns=tuple(Turn.parse(t) for t in TURNS))

# The recorded parse: per turn, the events of each story sentence (numbered within the turn),
# the question as a typed query, and the key belief a "Because ..." answer must name.
OUTSIDE = {"content_type": "Location", "subject": "sticker", "relation": "in", "value": "outside"}
POCKET = {**OUTSIDE, "value": "Leo's pocket"}
PARSE = StoryTurnParse.model_validate({
    "id": storyturn.id,
    "actors": ["Mrs. Green", "Leo", "Mia"],
    "turns": [
        {"story": [
            {"sentence": 0, "kind": "move", "actors": ["Mrs. Green"], "obj": "sticker",
             "destination": "desk"},
            {"sentence": 1, "kind": "exit", "actors": ["Mrs. Green"]},
            {"sentence": 2, "kind": "move", "actors": ["Leo"], "obj": "sticker",
             "origin": "desk", "destination": "Leo's pocket"},
            {"sentence": 3, "kind": "enter", "actors": ["Mrs. Green"]},
            {"sentence": 4, "kind": "tell", "actors": ["Leo"], "hearers": ["Mrs. Green"],
             "proposition": OUTSIDE}],
         "question": {"kind": "lying", "speaker": "Leo"}},
        {"story": [
            {"sentence": 0, "kind": "enter", "actors": ["Mia"]},
            {"sentence": 1, "kind": "tell", "actors": ["Mrs. Green"], "hearers": ["Mia"],
             "proposition": OUTSIDE}],
         "question": {"kind": "lying", "speaker": "Mrs. Green", "claim": OUTSIDE},
         "key": [{"holders": ["Mrs. Green"], "proposition": OUTSIDE}]},
        {"story": [
            {"sentence": 0, "kind": "move", "actors": ["Leo"], "obj": "sticker",
             "origin": "Leo's pocket", "destination": "desk"},
            {"sentence": 1, "kind": "narrate", "proposition": OUTSIDE}],
         "question": {"kind": "lying", "speaker": "Leo", "hearer": "Mrs. Green",
                      "claim": OUTSIDE, "which": "earliest"},
         "key": [{"holders": ["Leo"], "proposition": POCKET}]},
    ],
})  # fmt: skip

# --- 1. Play it ------------------------------------------------------------------------------
# `run_storyturn` grows one graph turn by turn. "Because ..." answers are rendered from the
# reasons the graph gives, and scored by the offline judge: right when they rest on the key
# belief the parse names.
run = run_storyturn(storyturn, PARSE)
for r in run.results:
    print(f"\nturn {r.turn + 1}: {r.question}")
    print(f"  answer: {r.prediction}")
    if r.reading is not None and r.answer_type == "yes_no":  # a plain yes/no keeps its reason
        print(f"  (because {'; '.join(r.reading.because)})")
    verdict = f" ({r.verdict})" if r.verdict else ""
    print(f"  gold:   {r.gold} -> {'right' if r.correct else 'wrong'}{verdict}")
    assert r.correct

# Why turn 3 is still a lie: lying is judged at the telling. When Leo spoke, his own belief
# put the sticker in his pocket; that the wind later made his claim true does not change it.
tell = next(e for e in run.graph.events if e.kind == "tell")
leo = run.graph.belief(("Leo",), variable=("sticker", "in"), at=tell.id)
now = run.graph.belief((), variable=("sticker", "in"))
assert leo is not None and now is not None
print(f"\nwhen Leo spoke (event {tell.id}) he believed the sticker was in: {leo.proposition.value}")
print(f"where it is at the end: {now.proposition.value}")
print(f"story level: {'every question right' if run.correct else 'some question wrong'}")

# --- 2. The paper's full StoryTurn, from the repository's fixture ----------------------------
# `load_storyturns` reads the file; its recorded parses sit beside it in `.parses.json`.
fixture = FIXTURES / "storyturns.json"
if fixture.is_file():
    full = next(s for s in load_storyturns(fixture) if s.id == "story_36_gold_sticker")
    records = json.loads(fixture.with_suffix(".parses.json").read_text(encoding="utf-8"))
    parse = StoryTurnParse.model_validate(next(p for p in records if p["id"] == full.id))
    full_run = run_storyturn(full, parse)
    right = sum(r.correct for r in full_run.results)
    print(f"\n{full.id} ({full.task}): {right} of {len(full_run.results)} questions right")
    print("  e.g.", full_run.results[-2].question, "->", full_run.results[-2].prediction)
else:
    print(f"\n(the full StoryTurn is in {fixture}, which is not beside this checkout)")
# Scoring a whole file, story level and per question, from the command line:
#   beliefgraph eval commet --data tests/fixtures/commet/storyturns.json
