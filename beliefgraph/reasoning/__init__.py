"""Reasoning over a belief graph: awareness, desire, deception, emotion, judgment, explanation.

Every function here is a small, pure reading of a ``BeliefGraph`` that returns the answer
and the beliefs it rests on (``Cite``), so an awareness answer, the behavior it predicts
and the judgment of that behavior can never disagree: all three read one belief. Nothing
here is about one benchmark's format; the adapters (SimpleToM, CoMMET) only load, ask and
score.

What is symbolic, and what must come from the parse:

- symbolic: whether a chain believes a proposition (``believes``); awareness, the action
  whose precondition holds, and the judgment (``read_awareness``, ``predict_action``,
  ``judge_action``); the current desire among competing ones, latest first
  (``current_desire``); referring expressions resolved inside one chain's beliefs
  (``resolve_ref``); the options an actor can see (``visible_set``); lying(s, p, t)
  (``lying``); who a chain thinks caused a harm, anger and its fairness (``causers``,
  ``angry_at``, ``fair_anger``); sadness from a desire believed to have failed and surprise
  from a perception that contradicts a belief (``emotion_of``, ``surprise``); why someone
  said, felt or did something (``why_said``, ``why_emotion``, ``why_action``);
- from the parse (an LLM or a recorded one, ``RecordedParser``): the typed events, which
  option needs knowledge of the key fact, who could not hear or see what (perception
  facts), the default a label promises, desires and emotions as stated, and the scale of a
  superlative.

One module per family: ``awareness`` (with what one character knows of another's
perception: ``perception_slips``, ``as_modelled_by``), ``desire``, ``intent`` (why a mover
moved a thing: ``aim_of``), ``deception``, ``emotion``, ``judgment``, ``explanation``;
``queries`` answers a typed query by its kind; ``recorded`` builds stories from recorded
parses; ``basics``, ``phrasing`` and ``readings`` are what they share.
"""

from .awareness import (
    AwarenessReading,
    PerceptionSlip,
    as_modelled_by,
    perception_slips,
    read_awareness,
    visible_set,
)
from .basics import believes
from .deception import lying, utterances
from .desire import current_desire, desires_of, resolve_ref
from .emotion import UNAVAILABLE, angry_at, causers, emotion_of, fair_anger, surprise
from .explanation import why_action, why_emotion, why_said
from .intent import aim_of
from .judgment import ActionOption, judge_action, predict_action
from .phrasing import phrase
from .queries import (
    AngerQuery,
    ChoiceQuery,
    ContentsQuery,
    DesireQuery,
    EmotionQuery,
    FairnessQuery,
    LyingQuery,
    OwnChoiceQuery,
    Query,
    RealityQuery,
    RequestQuery,
    WhyActionQuery,
    WhyEmotionQuery,
    WhySaidQuery,
    answer_query,
)
from .readings import Cite, Interpretation, Reading, Ref
from .recorded import (
    EventSpec,
    RecordedParser,
    StoryBuilder,
    make_recorded_parser,
)

__all__ = [
    "UNAVAILABLE",
    "ActionOption",
    "AngerQuery",
    "AwarenessReading",
    "ChoiceQuery",
    "Cite",
    "ContentsQuery",
    "DesireQuery",
    "EmotionQuery",
    "EventSpec",
    "FairnessQuery",
    "Interpretation",
    "LyingQuery",
    "OwnChoiceQuery",
    "PerceptionSlip",
    "Query",
    "Reading",
    "RealityQuery",
    "RecordedParser",
    "Ref",
    "RequestQuery",
    "StoryBuilder",
    "WhyActionQuery",
    "WhyEmotionQuery",
    "WhySaidQuery",
    "aim_of",
    "angry_at",
    "answer_query",
    "as_modelled_by",
    "believes",
    "causers",
    "current_desire",
    "desires_of",
    "emotion_of",
    "fair_anger",
    "judge_action",
    "lying",
    "make_recorded_parser",
    "perception_slips",
    "phrase",
    "predict_action",
    "read_awareness",
    "resolve_ref",
    "surprise",
    "utterances",
    "visible_set",
    "why_action",
    "why_emotion",
    "why_said",
]
