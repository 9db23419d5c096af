"""Free-form questions through the grounding: options as propositions, answers from the graph.

A multiple-choice question in free form ("What does Xiao Li see in the box?", "What will Mary
likely do next?") is grounded like any proposition: each option becomes one row of the
story's grounding call (``beliefgraph.ground.v1``), held by the question's holder when the
question names one, so the reply links the option's content to the story sentences that
state or show it and says how the holder came by it. The model reads text; the engine
decides the answer:

- ``choose_by_access`` (knowledge and perception questions): an option is *held* by the
  holder when the story states it (``support == "stated"``) and the holder perceived every
  sentence it rests on, as the **graph's** perception model decides (who perceived the events
  read from that sentence), falling back to the grounding's scene (``present`` /
  ``involved``) for a sentence the parse read no event from. Exactly one held option is the
  answer; with none held, an option that denies the holder's access ("Does not see",
  "Sees nothing") is the answer when some option is stated in the story but not perceived by
  the holder. With none stated, the one option the story implies with evidence the holder
  perceived; of several such (since stop 14), the one naming a thing new to someone else the
  question names (none of the graph's events about it reached them, while they perceived the
  other options' things: knowledge guides attention), else the one whose evidence strictly
  includes every other's. Anything else is left unanswered, with the reason.
- ``option_needs`` (behavior and judgment questions): an option that responds to a fact the
  holder may not know cites that fact's sentences; it needs the holder to be aware of it. The
  caller reads the holder's awareness from the graph (``reasoning.read_awareness``).

Rows depend only on the story's text and the questions (never on the parse), so the grounding
call is independent of the parse call and one batch round serves both.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from beliefgraph.graph import BeliefGraph
from beliefgraph.models import BeliefModel, Event
from beliefgraph.text import segment

from .models import RowEvidence, StoryGrounding
from .reading import negated
from .tokens import content_tokens

__all__ = [
    "FreeQuestion",
    "OptionChoice",
    "choose_by_access",
    "co_present",
    "denies",
    "evidence_access",
    "ground_questions",
    "option_needs",
    "option_rows",
    "story_sentences",
]

Row = tuple[tuple[str, ...], str]


class FreeQuestion(BeliefModel):
    """One free-form multiple-choice question about a story."""

    text: str
    """The question as the benchmark words it."""
    options: tuple[str, ...]
    """The options, in the benchmark's order."""
    holder: str | None = None
    """The actor whose mind the question is about (None: a question about the world)."""
    phrasing: str = "{option} (answering: {question})"
    """How an option is put as a row's proposition (``{option}``, ``{question}``,
    ``{holder}``)."""


class OptionChoice(BeliefModel):
    """The engine's choice among a question's options."""

    index: int | None
    """The chosen option (None: the graph does not single one out)."""
    explanation: tuple[str, ...]
    """Why, one line per option considered."""


def story_sentences(story: str) -> list[str]:
    """The story's sentences in the segmenter's numbering (row sentence ``n`` is ``[n - 1]``)."""
    return [s.text for s in segment(story)]


def option_rows(questions: Sequence[FreeQuestion]) -> list[Row]:
    """The grounding rows of ``questions``: one per option, questions in order.

    >>> q = FreeQuestion(text="What does Ann see?", options=("a hat", "nothing"), holder="Ann")
    >>> option_rows([q])[1]
    (('Ann',), 'nothing (answering: What does Ann see?)')
    """
    rows: list[Row] = []
    for q in questions:
        chain = (q.holder,) if q.holder else ()
        for option in q.options:
            text = q.phrasing.format(option=option.strip(), question=q.text, holder=q.holder)
            rows.append((chain, text))
    return rows


def ground_questions(
    grounder: object, story: str, actors: Sequence[str], questions: Sequence[FreeQuestion]
) -> tuple[StoryGrounding, list[list[RowEvidence]]]:
    """Ground every option of ``questions`` in one call: the whole reply (its scenes say who
    could perceive each sentence), and the evidence per question, per option.

    ``grounder`` is an ``LLMGrounder`` (one request for the whole story, cached and batchable).
    """
    rows = option_rows(questions)
    grounding: StoryGrounding = grounder.ground(story_sentences(story), list(actors), rows)  # type: ignore[attr-defined]
    out: list[list[RowEvidence]] = []
    i = 0
    for q in questions:
        per: list[RowEvidence] = []
        for _ in q.options:
            ev = grounding.row(i)
            per.append(ev if ev is not None else RowEvidence(row=i))
            i += 1
        out.append(per)
    return grounding, out


def co_present(grounding: StoryGrounding, n: int, resolve: Callable[[str], str]) -> set[str] | None:
    """Who the grounding says could perceive sentence ``n`` (``present`` and ``involved``,
    names through ``resolve``); None when it has no scene for it."""
    scene = grounding.scene(n)
    if scene is None:
        return None
    return {resolve(a) for a in (*scene.present, *scene.involved)}


def _event_words(step: object) -> set[str]:
    e = step.event  # type: ignore[attr-defined]
    parts = [e.obj or "", e.destination or "", e.origin or "", e.room or ""]
    if e.proposition is not None:
        parts.append(e.proposition.render())
    return set(content_tokens(" ".join(parts)))


def _in_sentence(graph: BeliefGraph, event: Event, n: int) -> bool:
    """Whether ``event`` was read from sentence ``n`` (1-based, the segmenter's numbering).

    The rules parser numbers clauses, the LLM parser sentences; the event's own text, found
    inside the sentence, settles it for both.
    """
    if event.hypothetical:
        return False
    sentences = story_sentences(graph.story.text)
    if not 1 <= n <= len(sentences):
        return False
    clause = " ".join(event.sentence.split())
    if clause:
        return clause.rstrip(".!? ") in " ".join(sentences[n - 1].split())
    return event.sentence_index + 1 == n


def _about(event: Event, holder: str) -> bool:
    """A narrated fact about the holder (their perception, their state) is known to them: the
    perception model's own rule, which it applies only when it knows the holder's room."""
    p = event.proposition
    return event.kind == "narrate" and p is not None and p.subject == holder and not p.negated


def _perceived(
    graph: BeliefGraph, n: int, holder: str, option: str, scenes: StoryGrounding | None
) -> tuple[bool, str]:
    """Whether ``holder`` perceived what sentence ``n`` narrates about ``option``.

    The graph decides when the parse read events from the sentence: the events that name the
    option's words (else every event of the sentence) must all have been perceived by the
    holder, so a long sentence whose last clause happened out of the holder's sight is not
    perceived as a whole. Otherwise the grounding's scene (``present`` / ``involved``).
    """
    steps = [s for s in graph.timeline.steps if _in_sentence(graph, s.event, n)]
    if steps:
        # The thing's words, not the people's: every event about William names "William".
        people = set(content_tokens(" ".join(graph.actors)))
        words = set(content_tokens(option)) - people
        about = [s for s in steps if _event_words(s) & words] or steps
        return all(holder in s.perceivers or _about(s.event, holder) for s in about), "the graph"
    scene = scenes.scene(n) if scenes is not None else None
    if scene is None:
        return False, "no reading of it"
    return holder in (*scene.present, *scene.involved), "the grounding's scene"


def evidence_access(
    graph: BeliefGraph,
    holder: str,
    sentences: Sequence[int],
    text: str,
    scenes: StoryGrounding | None = None,
) -> tuple[bool, str]:
    """Whether ``holder`` perceived one of the sentences the grounding links ``text`` to: all
    the events of that sentence that name ``text``'s words (the graph's perception model).

    Knowledge from perceived evidence: a recall notice read, a bag looked into. The graph
    holds the events; the grounding links them to the proposition, which the events may word
    differently ("the salmon is recalled" as evidence of "the salmon contains the toxin").
    """
    for n in sorted(set(sentences)):
        ok, how = _perceived(graph, n, holder, text, scenes)
        if ok:
            return True, f"{holder} perceived sentence {n}, linked to it by the grounding ({how})."
    return False, f"{holder} perceived none of sentence(s) {sorted(set(sentences))} ({text!r})."


def choose_by_access(
    graph: BeliefGraph,
    question: FreeQuestion,
    evidence: Sequence[RowEvidence],
    scenes: StoryGrounding | None = None,
) -> OptionChoice:
    """The option the holder knows: stated in the story and perceived by the holder.

    See the module docstring for the rule. ``scenes`` (the grounding reply) is consulted only
    for sentences the parse read no event from.
    """
    lines: list[str] = []
    held: list[int] = []
    unseen_fact = False
    denials = [i for i, o in enumerate(question.options) if denies(o)]
    for i, (option, ev) in enumerate(zip(question.options, evidence, strict=True)):
        if i in denials:
            continue
        if ev.support != "stated" or not ev.sentences:
            lines.append(f"{option!r}: the story does not state it ({ev.support}).")
            continue
        if question.holder is None:
            held.append(i)
            lines.append(f"{option!r}: stated in sentence(s) {ev.sentences}.")
            continue
        checks = [(n, *_perceived(graph, n, question.holder, option, scenes)) for n in ev.sentences]
        missed = [f"{n} ({how})" for n, ok, how in checks if not ok]
        if missed:
            unseen_fact = True
            lines.append(
                f"{option!r}: stated in sentence(s) {ev.sentences}, but {question.holder} did "
                f"not perceive sentence {', '.join(missed)}."
            )
        else:
            held.append(i)
            lines.append(
                f"{option!r}: stated in sentence(s) {ev.sentences}, all perceived by "
                f"{question.holder}."
            )
    if len(held) == 1:
        return OptionChoice(index=held[0], explanation=tuple(lines))
    if not held and unseen_fact and len(denials) == 1:
        lines.append(
            f"{question.holder} perceived none of what the story states, so: "
            f"{question.options[denials[0]]!r}."
        )
        return OptionChoice(index=denials[0], explanation=tuple(lines))
    if not held:
        index, why_lines, n_implied = _implied(graph, question, evidence, denials, scenes)
        lines += why_lines
        if index is not None:
            return OptionChoice(index=index, explanation=tuple(lines))
        if (
            n_implied == 0
            and question.holder is not None
            and len(denials) == 1
            and _missed_some(graph, question.holder)
        ):
            # The closed-world reading: nothing the story states or implies reached the
            # holder, who missed part of it, so the option that denies them access is the
            # answer (one who perceived everything is not read as ignorant for lack of links).
            lines.append(
                f"nothing the story states or implies for any other option reached "
                f"{question.holder}, so: {question.options[denials[0]]!r}."
            )
            return OptionChoice(index=denials[0], explanation=tuple(lines))
    why = "no option" if not held else f"{len(held)} options"
    lines.append(f"{why} stated and perceived by {question.holder or 'the narrator'}: unanswered.")
    return OptionChoice(index=None, explanation=tuple(lines))


def _missed_some(graph: BeliefGraph, holder: str) -> bool:
    """Whether ``holder`` missed an event of the story (an act, a telling or a look they did
    not perceive), as the graph's perception model decides; narration is not an event anyone
    perceives."""
    return any(
        holder not in step.perceivers and not _about(step.event, holder)
        for step in graph.timeline.steps
        if step.event.kind != "narrate"
    )


_DENIAL_LEADS = frozenset(("does", "doesn't", "did", "didn't", "do", "don't", "not", "no",
                           "nothing", "none", "never", "cannot", "can't", "unknown"))  # fmt: skip


def denies(option: str) -> bool:
    """Whether an option denies the holder access ("Does not see", "Doesn't know", "Nothing"):
    it opens with a negation. An option that merely contains one ("she wants to mock herself
    ... is not a wise choice") states something else.

    >>> denies("Does not see"), denies("She says the day is not a wise choice")
    (True, False)
    """
    words = option.strip().lower().replace("\u2019", "'").split()
    return bool(words) and words[0] in _DENIAL_LEADS and negated(option)


def _implied(
    graph: BeliefGraph,
    question: FreeQuestion,
    evidence: Sequence[RowEvidence],
    denials: Sequence[int],
    scenes: StoryGrounding | None,
) -> tuple[int | None, list[str], int]:
    """The one option the story implies for the holder, when none is stated: an inferred
    belief is held by whoever perceived its evidence (the graph's perception model), so the
    option the grounding links to story sentences, that the story does not contradict, and
    whose evidence the holder perceived (any evidence, for a question about the world) is
    the answer when it is the only such option. Also returns how many such options there
    are."""
    lines: list[str] = []
    found: list[int] = []
    for i, (option, ev) in enumerate(zip(question.options, evidence, strict=True)):
        if i in denials or ev.support == "contradicted" or not ev.sentences:
            continue
        if question.holder is None:
            found.append(i)
            continue
        seen, why = evidence_access(graph, question.holder, ev.sentences, option, scenes)
        if seen:
            found.append(i)
        else:
            lines.append(f"{option!r}: implied by sentence(s) {ev.sentences}, but {why}")
    if len(found) == 1:
        i = found[0]
        who = question.holder or "the narrator"
        lines.append(
            f"{question.options[i]!r}: the only option the story implies (sentence(s) "
            f"{evidence[i].sentences}, not contradicted) with evidence {who} perceived, so it "
            "is the answer."
        )
        return i, lines, 1
    if len(found) > 1:
        lines.append(f"{len(found)} options are implied by evidence the holder perceived.")
        novel = _new_to_someone(graph, question, found)
        if novel is not None:
            i, who = novel
            lines.append(
                f"{question.options[i]!r} names the one thing of these that {who} never "
                f"perceived (the graph's perception model): what is new to {who} is what "
                f"{who} attends to, so it is the answer."
            )
            return i, lines, len(found)
        best = _covers_the_rest(found, evidence)
        if best is not None:
            lines.append(
                f"{question.options[best]!r} rests on sentence(s) "
                f"{sorted(set(evidence[best].sentences))}, which include the evidence of every "
                "other implied option and more: the reading that accounts for the most of the "
                "story, so it is the answer."
            )
            return best, lines, len(found)
    return None, lines, len(found)


def _new_to_someone(
    graph: BeliefGraph, question: FreeQuestion, found: Sequence[int]
) -> tuple[int, str] | None:
    """The one option that names a thing new to someone else the question or its options
    name: the story has events about it, none of which that person perceived, while every
    other option's thing is one they perceived (knowledge guides attention: "look at that
    toy!" from one who missed the third toy means the third toy). Only the words that tell
    the options apart count. None unless exactly one option is new to the person."""
    texts = {i: question.options[i] for i in found}
    said = " ".join((question.text, *texts.values()))
    # whole names only: "Al" is not named by "also"
    people = [a for a in graph.actors if a != question.holder
              and re.search(rf"(?<!\w){re.escape(a)}(?!\w)", said, re.I)]  # fmt: skip
    if not people:
        return None
    names = set(content_tokens(" ".join(graph.actors)))
    tokens = {i: set(content_tokens(t)) - names for i, t in texts.items()}
    shared = set.intersection(*tokens.values()) if tokens else set()
    own = {i: t - shared for i, t in tokens.items()}
    # acts, looks and tellings: narration is no one's perception (a narrated "she does not
    # know about the light" is about her, not seen by her)
    steps = [(s, _event_words(s)) for s in graph.timeline.steps if s.event.kind != "narrate"]
    for who in people:
        new: list[int] = []
        for i, words in own.items():
            about = [s for s, w in steps if words and w & words]
            if not about:
                new = []  # a thing the story never shows: nothing to compare
                break
            if all(who not in s.perceivers for s in about):
                new.append(i)
        if len(new) == 1:
            return new[0], who
    return None


def _covers_the_rest(found: Sequence[int], evidence: Sequence[RowEvidence]) -> int | None:
    """The one option whose evidence strictly includes every other option's: of several
    readings the story allows, the one that also explains what the others leave out (a
    plain "inference to the best explanation" over the grounding's links; no words
    compared). None when no option's evidence includes all the others'."""
    sets = {i: set(evidence[i].sentences) for i in found}
    best = [i for i in found
            if all(sets[j] < sets[i] for j in found if j != i)]  # fmt: skip
    return best[0] if len(best) == 1 else None


def option_needs(evidence: RowEvidence, key_sentences: set[int]) -> str | None:
    """``"aware"`` when the story gives the reason for the option only in the key fact's
    sentences (only someone who knows k has it), ``"unaware"`` when the reason also or only
    lies in other sentences (what the holder perceives), None when the grounding links the
    option to no sentence.

    >>> option_needs(RowEvidence(row=0, sentences=[1]), {1})
    'aware'
    >>> option_needs(RowEvidence(row=0, sentences=[1, 2]), {1})
    'unaware'
    """
    if not evidence.sentences:
        return None
    return "aware" if set(evidence.sentences) <= key_sentences else "unaware"
