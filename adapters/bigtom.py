"""BigToM (Gandhi et al., 2023): story templates turned into the paper's test conditions.

Each CSV row is one template with 19 ``;``-separated fields, no header and no quoting: the
context (five sentences: three of setting, the agent's initial belief, the causal event that
changes the world), the percepts by which the agent does / does not notice the event, the
actions it then takes, the belief / desire / action questions, their answers when the agent
noticed the event and when it did not, an unrelated random event with its two percepts, and
two bookkeeping fields (how the row was written, ``auto`` or ``user``, and a flag).

The loader builds the conditions as the release's ``generate_conditions.py`` does (the same
story text, split on ".", joined the same way): initial belief shown or hidden × forward
belief / forward action / backward belief × true belief / false belief / true control /
false control; the options are the two answers, the gold the one the condition makes true.
In the controls the causal event is replaced by the random event, so the agent's belief
never changes. The desire questions and the ``percept_to_belief`` variable, which the
generator writes but the paper does not score, are left out.

The graph is built from the fields, not by parsing the prose (a "template parse", parser
``bigtom-template``): the initial belief is a fact the agent knows (the belief sentence,
or, when it is hidden, the context sentence before the event), the causal event turns it
false and its replacement true unseen, and the percept shows the agent the change, or
nothing. A forward belief question is answered from the agent's belief, a forward action
question by the action that goes with that belief. A backward belief question has no
percept: the observed action is the evidence, so the agent is taken to have noticed the
event exactly when it takes the action of the agent who knows (the inverse of the forward
rule), and the belief is then read from the graph. Parsing the story prose needs the LLM
parser.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from beliefgraph.api import track
from beliefgraph.errors import ConfigurationError, DataFormatError
from beliefgraph.explain import explain
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Event, ParsedStory, Proposition, Sentence
from beliefgraph.solvers.outcomes import with_outcomes

from .benchmark import Benchmark, benchmarks
from .choices import choose_by_belief, normalise, read_option
from .item import Item, ItemResult
from .loading import LoadedItems, Problems, csv_rows, require_utf8, strict_if_none

__all__ = [
    "CONDITIONS",
    "FIELDS",
    "PAPER_INSTRUCTION",
    "VARIABLES",
    "PaperPrompt",
    "conditions",
    "load_bigtom",
    "make_bigtom",
    "paper_messages",
    "paper_options",
    "read_paper_reply",
    "tb_and_fb",
    "template_story",
]

PARSER = "bigtom-template"
"""The name the template reader's events carry."""

FIELDS = (
    "story",
    "aware_of_event",
    "not_aware_of_event",
    "action_aware",
    "action_not_aware",
    "belief_question",
    "desire_question",
    "action_question",
    "belief_answer_aware",
    "desire_answer_aware",
    "action_answer_aware",
    "belief_answer_not_aware",
    "desire_answer_not_aware",
    "action_answer_not_aware",
    "random_event",
    "aware_of_random_event",
    "not_aware_of_random_event",
    "source",
    "flag",
)
"""The 19 fields of a row, in order (names after the release's ``generate_conditions.py``)."""

VARIABLES = ("forward_belief", "forward_action", "backward_belief")
CONDITIONS = ("true_belief", "false_belief", "true_control", "false_control")
Variable = Literal["forward_belief", "forward_action", "backward_belief"]
Condition = Literal["true_belief", "false_belief", "true_control", "false_control"]

_BELIEF = re.compile(
    r"^(?P<who>.+?) (?P<neg>does not |doesn't |did not |is not |isn't )?"
    r"(?P<verb>believes?|thinks?|knows?|(?:is )?(?:un)?aware|(?:is )?sure|assumes?|expects?)"
    r"(?: that| about| of)? (?P<clause>.+?)\.?$"
)
"""A belief answer: "<agent> believes / thinks / knows (about) / is (not) aware of ...",
the forms the release's templates use for the agent's belief."""


# -- loading -----------------------------------------------------------------------------------
def load_bigtom(path: Path, problems: Problems | None = None) -> list[Item]:
    """Read ``bigtom.csv`` (or every ``.csv`` in a folder) into one item per condition.

    Each row gives 24 items: initial belief hidden / shown × the three variables × the four
    conditions. ``meta`` holds the row's named fields, the condition, the variable,
    ``initial_belief`` ("shown" / "hidden") and the agent. A blank line is skipped; a row of
    empty fields is a malformed row, reported.

    Raises
    ------
    DataFormatError
        For a folder without CSV files, or a row without 19 fields, with an empty field, or
        with a context of fewer than five sentences (naming the file and line; with
        ``problems`` given, a bad row is collected there and the rest is read).
    """
    problems = strict_if_none(problems)
    if path.is_dir():
        return problems.folder(path, "*.csv", load_bigtom, "BigToM")
    items = []
    for lineno, row in csv_rows(path, delimiter=";"):
        if isinstance(row, Exception):
            with problems.record(path, lineno):
                raise row
            continue
        if not row or (len(row) == 1 and not row[0].strip()):
            continue  # a blank line holds no row
        with problems.record(path, lineno):
            require_utf8(row, "the row")
            items.extend(conditions(row, source=path, line=lineno))
    return problems.result(items)


def conditions(
    row: Sequence[str], *, source: str | Path = "bigtom.csv", line: int = 1
) -> list[Item]:
    """The 24 condition items of one template row (``generate_conditions.py``'s texts).

    Raises
    ------
    DataFormatError
        For a row without 19 fields, with an empty field, a context of fewer than five
        sentences or a belief answer that does not read "<agent> believes ...".

    Examples
    --------
    >>> items = conditions(_EXAMPLE_ROW.split(";"))
    >>> len(items), items[0].id
    (24, 'bigtom:1:0_forward_belief_true_belief')
    >>> items[1].story  # initial belief hidden, false belief: the percept that fails
    'Ann is in the kitchen. Ann wants warm tea. Ann made tea. The tea cools down. Ann does not...'
    >>> items[1].choices
    ('Ann believes the tea is cold.', 'Ann believes the tea is hot.')
    >>> items[1].answer
    'Ann believes the tea is hot.'
    """
    path = Path(source)
    f = _check_row(path, line, list(row))
    return _conditions(path, line, f)


def _check_row(path: Path, lineno: int, row: list[str]) -> dict[str, str]:
    if len(row) != len(FIELDS):
        raise DataFormatError(
            f"{path}:{lineno}: expected {len(FIELDS)} ';'-separated fields, got {len(row)}"
        )
    fields = {name: value.strip() for name, value in zip(FIELDS, row, strict=True)}
    empty = [n for n in FIELDS[:17] if not fields[n]]
    if empty:
        raise DataFormatError(f"{path}:{lineno}: empty field(s) {empty}")
    if len(fields["story"].split(".")) < 6:
        raise DataFormatError(
            f"{path}:{lineno}: the context must have five sentences (setting x3, initial "
            f"belief, causal event); got {fields['story']!r}"
        )
    for name in ("belief_answer_aware", "belief_answer_not_aware"):
        if not _BELIEF.match(fields[name]):
            raise DataFormatError(
                f"{path}:{lineno}: field {name} should read '<agent> believes / thinks / knows "
                f"...', got "
                f"{fields[name]!r}"
            )
    return fields


def _conditions(path: Path, lineno: int, f: dict[str, str]) -> list[Item]:
    parts = f["story"].split(".")
    agent = _agent(f)
    out: list[Item] = []
    for shown in (False, True):
        keep = parts[:5] if shown else [*parts[:3], parts[4]]
        story = "".join(p + "." for p in keep)
        control = ".".join([*parts[: 4 if shown else 3], " " + f["random_event"]])
        for variable in VARIABLES:
            belief = variable != "forward_action"
            question = f["belief_question"] if belief else f["action_question"]
            kind = "belief" if belief else "action"
            aware, unaware = f[f"{kind}_answer_aware"], f[f"{kind}_answer_not_aware"]
            for condition in CONDITIONS:
                if variable == "backward_belief":
                    last = {
                        "true_belief": f"{story} {f['action_aware']}",
                        "false_belief": f"{story} {f['action_not_aware']}",
                    }.get(condition, f"{control} {f['action_not_aware']}")
                else:
                    last = {
                        "true_belief": f"{story} {f['aware_of_event']}",
                        "false_belief": f"{story} {f['not_aware_of_event']}",
                        "true_control": f"{control} {f['aware_of_random_event']}",
                        "false_control": f"{control} {f['not_aware_of_random_event']}",
                    }[condition]
                tag = f"{int(shown)}_{variable}_{condition}"
                init = "shown" if shown else "hidden"
                out.append(
                    Item(
                        id=f"{path.stem}:{lineno}:{tag}",
                        story=last,
                        question=question,
                        choices=(aware, unaware),
                        answer=aware if condition == "true_belief" else unaware,
                        meta={
                            "file": path.name,
                            "line": lineno,
                            "agent": agent,
                            "variable": variable,
                            "condition": condition,
                            "initial_belief": init,
                            # the breakdown keys, so that an item never answered has them too
                            "cell": f"{variable}/{condition}",
                            "paper_cell": f"{init}/{variable}/{condition}",
                            "fields": f,
                        },
                    )
                )
    return out


def _agent(f: dict[str, str]) -> str:
    m = _BELIEF.match(f["belief_answer_not_aware"])
    return m["who"].strip() if m else f["story"].split()[0]


# -- the template parse --------------------------------------------------------------------------
def _state(answer: str) -> Proposition:
    """The state a belief answer names ("Zara believes the painting is ..."), as a fact."""
    m = _BELIEF.match(answer)
    clause = (m["clause"] if m else answer).strip().rstrip(".")
    if m and (m["neg"] or "unaware" in m["verb"]):
        clause = f"not: {clause}"  # "does not know about the door": its own state
    return Proposition(
        content_type="Contents/Physical State",
        subject=clause[:1].upper() + clause[1:],
        relation="hold",
    )


def template_story(item: Item) -> ParsedStory:
    """The typed events of a BigToM condition, read off its template's fields.

    Examples
    --------
    >>> story = template_story(conditions(_EXAMPLE_ROW.split(";"))[0])
    >>> for e in story.events:
    ...     print(e.id, e.kind, e.perceivers, e.proposition.render())
    1 narrate ('Ann',) The tea is hot holds
    2 narrate () The tea is hot does not hold
    3 narrate () The tea is cold holds
    4 observe ('Ann',) The tea is cold holds
    5 observe ('Ann',) The tea is hot does not hold
    """
    f: dict[str, str] = item.meta["fields"]
    agent: str = item.meta["agent"]
    variable = item.meta["variable"]
    condition = item.meta["condition"]
    shown = item.meta["initial_belief"] == "shown"
    parts = [p.strip() + "." for p in f["story"].split(".")[:5]]
    control = condition.endswith("control")
    before, after = _state(f["belief_answer_not_aware"]), _state(f["belief_answer_aware"])
    texts = [*parts[:3], *parts[3:4] * shown]
    texts.append(f["random_event"] if control else parts[4])
    if variable == "backward_belief":
        final = f["action_aware"] if condition == "true_belief" else f["action_not_aware"]
    else:
        final = {
            "true_belief": f["aware_of_event"],
            "false_belief": f["not_aware_of_event"],
            "true_control": f["aware_of_random_event"],
            "false_control": f["not_aware_of_random_event"],
        }[condition]
    texts.append(final)
    event_at = len(texts) - 2
    events: list[Event] = []
    per_sentence: dict[int, list[int]] = {}

    def add(index: int, **fields: Any) -> None:
        e = Event(
            id=len(events) + 1, sentence=texts[index], sentence_index=index, parser=PARSER, **fields
        )
        events.append(e)
        per_sentence.setdefault(index, []).append(e.id)

    # The initial belief: stated (sentence 4) or, when hidden, set up by the context before
    # the event (sentence 3: "Zara reads the label carefully").
    add(event_at - 1, kind="narrate", proposition=before, perceivers=(agent,))
    if control:
        happening = Proposition(
            content_type="Action/Event", subject=_capital(texts[event_at]), relation="happen"
        )
        add(event_at, kind="narrate", proposition=happening, perceivers=())
        if final == f["aware_of_random_event"]:
            add(
                event_at + 1,
                kind="observe",
                actors=(agent,),
                proposition=happening,
                perceivers=(agent,),
            )
    else:
        add(
            event_at,
            kind="narrate",
            proposition=before.model_copy(update={"negated": True}),
            perceivers=(),
        )
        add(event_at, kind="narrate", proposition=after, perceivers=())
        if final in (f["aware_of_event"], f["action_aware"]):
            # Perceived, or (backward) inferred from the action of an agent who knows.
            add(
                event_at + 1,
                kind="observe",
                actors=(agent,),
                proposition=after,
                perceivers=(agent,),
            )
            add(
                event_at + 1,
                kind="observe",
                actors=(agent,),
                proposition=before.model_copy(update={"negated": True}),
                perceivers=(agent,),
            )
    sentences = tuple(
        Sentence(index=i, text=t, events=tuple(per_sentence.get(i, ())))
        for i, t in enumerate(texts)
    )
    return ParsedStory(
        text=" ".join(texts),
        sentences=sentences,
        events=tuple(events),
        actors=(agent,),
        parser=PARSER,
    )


def _capital(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].upper() + text[1:]


def _build(item: Item) -> BeliefGraph:
    return BeliefGraph(template_story(item))


# -- answering -----------------------------------------------------------------------------------
def _answer(item: Item, graph: BeliefGraph) -> ItemResult:
    f: dict[str, str] = item.meta["fields"]
    agent: str = item.meta["agent"]
    variable = item.meta["variable"]
    before, after = _state(f["belief_answer_not_aware"]), _state(f["belief_answer_aware"])
    knows = graph.belief((agent,), variable=after.variable)
    kept = graph.belief((agent,), variable=before.variable)
    if knows is not None and knows.proposition.assigned is True:
        belief, aware = knows, True
    elif kept is not None and kept.proposition.assigned is True:
        belief, aware = kept, False
    else:
        belief, aware = None, None
    prediction: str | None = None
    lines: list[str] = []
    if belief is not None:
        lines.extend(explain(graph, belief))
        if variable == "backward_belief":
            action = graph.story.sentences[-1].text  # the evidence: what the agent does
            knowing = action == f["action_aware"]
            lines.insert(
                0,
                f'{agent}\'s action ("{action}") is the one taken by an agent who '
                f"{'knows' if knowing else 'does not know'} of the event.",
            )
        kind = "action" if variable == "forward_action" else "belief"
        prediction = f[f"{kind}_answer_aware"] if aware else f[f"{kind}_answer_not_aware"]
        if variable == "forward_action":
            lines.append(f"{agent} acts on that belief: {prediction}")
    else:
        lines.append(f"{agent} holds no belief about the state the question asks about.")
    correct = prediction == item.answer
    return ItemResult(
        id=item.id,
        gold=item.answer,
        prediction=prediction,
        correct=correct,
        explanation=tuple(lines),
        breakdown=_breakdown(item),
        supported=correct if prediction is not None else None,
        disagreement=None if correct or prediction is None else "other",
    )


def _breakdown(item: Item) -> dict[str, str]:
    variable, condition = str(item.meta["variable"]), str(item.meta["condition"])
    return {
        "condition": condition,
        "variable": variable,
        "initial_belief": str(item.meta["initial_belief"]),
        "cell": f"{variable}/{condition}",
        # The paper's table has 24 cells: initial belief shown / hidden as well.
        "paper_cell": f"{item.meta['initial_belief']}/{variable}/{condition}",
    }


# -- text mode: the story prose through the run's parser -----------------------------------------
_STOP = frozenset(
    ("a", "an", "the", "is", "are", "was", "were", "be", "to", "of", "in", "on", "at", "and",
     "or", "not", "that", "it", "its", "his", "her")
)  # fmt: skip


def _words(text: str) -> frozenset[str]:
    return frozenset(normalise(w) for w in re.findall(r"[A-Za-z]+", text) if w.lower() not in _STOP)


def _clause(answer: str) -> str:
    m = _BELIEF.match(answer)
    return m["clause"] if m else answer


def _text_build(item: Item) -> BeliefGraph:
    """The graph of the prose through the run's parser, with the states its narrated changes
    leave and who saw their traces (``solvers.outcomes``): "heavy rainfall opens the valve"
    leaves the valve open, and "Carlos sees the flooded cornfield" shows it to Carlos."""
    graph = track(item.story, strict=False)
    story = with_outcomes(graph.story)
    return graph if story is graph.story else BeliefGraph(story)


@functools.lru_cache(maxsize=1 << 12)
def _option_reading(answer: str) -> tuple[Proposition, ...]:
    """What a belief answer says the agent believes, read by the offline grammar: the whole
    answer ("Carlos believes the valve is open"), else its clause alone ("the package
    contains a scarf", a form the grammar reads only as a sentence of its own)."""
    props = read_option(answer)
    if not props:
        clause = _clause(answer).strip().rstrip(".")
        props = read_option(clause[:1].upper() + clause[1:] + ".")
    return props


_STATES = frozenset(("Location", "Contents/Physical State", "Identity/Relation", "Epistemic"))
"""What a BigToM belief answer is about: the state of the world. The agent's desires, plans,
feelings and the actions it remembers are read only when its beliefs about that state decide
nothing ("Carlos plans to open the valve" says nothing about whether he thinks it is open)."""


def _best_match(
    f: dict[str, str], agent: str, held: list[Any]
) -> tuple[tuple[int, bool, Any] | None, list[tuple[int, bool, Any]]]:
    """The (overlap, aware, belief) sharing most content words with an option, and the
    matches of the other option that share as many."""
    names = _words(agent)
    scored = []
    for aware in (True, False):
        clause = _words(_clause(f["belief_answer_aware" if aware else "belief_answer_not_aware"]))
        clause -= names
        for b in held:
            overlap = len(clause & (_words(b.proposition.render()) - names))
            scored.append((overlap, aware, b))
    best = max(scored, key=lambda t: t[0], default=None)
    rivals = [t for t in scored if best is not None and t[0] == best[0] and t[1] != best[1]]
    return best, rivals


def _latest_match(
    f: dict[str, str], agent: str, held: list[Any]
) -> tuple[tuple[int, bool, Any] | None, list[tuple[int, bool, Any]]]:
    """The agent's most recent belief that shares more content words with one option than
    with the other, as (overlap, aware, belief); (None, []) when none does."""
    names = _words(agent)
    options = [
        _words(_clause(f["belief_answer_aware" if aware else "belief_answer_not_aware"])) - names
        for aware in (True, False)
    ]
    for b in sorted(held, key=lambda b: b.start, reverse=True):
        said = _words(b.proposition.render()) - names
        aware, unaware = (len(said & o) for o in options)
        if aware != unaware:
            return (max(aware, unaware), aware > unaware, b), []
    return None, []


def _text_answer(item: Item, graph: BeliefGraph) -> ItemResult:
    """Answer from the graph of the prose: which of the two belief answers the agent's own
    beliefs at the end of the story match (content words shared with a belief it holds),
    its beliefs about the state of the world first, the others only when those decide nothing.

    The template's fields are used only to name the options and their actions; the beliefs
    come from the parse of the story text. No match, or a tie, is no answer.
    """
    f: dict[str, str] = item.meta["fields"]
    agent: str = item.meta["agent"]
    variable = item.meta["variable"]
    own = [b for b in graph.beliefs(max_order=1, at=graph.end) if b.holders == (agent,)]
    held = [b for b in own if not b.proposition.negated]
    # Asked of the graph first: each option read as a proposition (thing, attribute, value),
    # and the agent's latest belief that bears on them decides ("the net is not torn"
    # rules out "torn" as much as "the net is repaired" does).
    options = [_option_reading(f[f"belief_answer_{k}"]) for k in ("aware", "not_aware")]
    keyed = choose_by_belief(own, options)
    breakdown = _breakdown(item)
    if keyed is not None:
        best, rivals = (1, keyed[0] == 0, keyed[1]), []
        breakdown["answered_by"] = "graph"
        how = f"{agent}'s belief bears on the options read as propositions: " + "; ".join(
            " and ".join(p.render() for p in o) or "(unread)" for o in options
        )
    else:
        # The stated fallback: content words shared with the options. What the agent
        # learned last about what the options describe decides (a noticed change comes
        # after the belief it replaces).
        best, rivals = _latest_match(f, agent, held)
        if best is None:
            states = [b for b in held if b.proposition.content_type in _STATES]
            best, rivals = _best_match(f, agent, states)
        if best is None or best[0] == 0 or rivals:
            best, rivals = _best_match(f, agent, held)
        breakdown["answered_by"] = "word overlap"
        how = (
            f"no belief of {agent}'s bears on the options read as propositions; chosen by "
            "the content words a belief shares with an option (fallback)"
        )
    if best is None or best[0] == 0 or rivals:
        breakdown["answered_by"] = "none"
        why = (
            f"{agent} holds no belief in the parsed story that matches one option over the "
            f"other ({len(held)} belief(s) of {agent} read)."
        )
        return ItemResult(id=item.id, gold=item.answer, prediction=None, correct=False,
                          explanation=(why,), breakdown=breakdown)  # fmt: skip
    _, aware, belief = best
    kind = "action" if variable == "forward_action" else "belief"
    prediction = f[f"{kind}_answer_aware"] if aware else f[f"{kind}_answer_not_aware"]
    lines = [how, f"{agent} believes: {belief.proposition.render()}", *explain(graph, belief)]
    if variable == "forward_action":
        lines.append(f"{agent} acts on that belief: {prediction}")
    return ItemResult.answered(
        item,
        prediction,
        explanation=tuple(lines),
        breakdown=breakdown,
    )


# -- the paper's paired score -----------------------------------------------------------------
def tb_and_fb(
    results: Sequence[ItemResult], *, initial_belief: str | None = None, variable: str | None = None
) -> float:
    """The paper's TB ∧ FB: the share of (template, initial belief, variable) pairs whose
    true-belief *and* false-belief items are both right (0.0 when there are none).

    Pairs are read from the item ids (``file:line:<shown>_<variable>_<condition>``); a pair
    with only one of its two items in ``results`` is left out.

    >>> r = [ItemResult(id=f"b:1:0_forward_belief_{c}", gold="x", prediction="x", correct=ok)
    ...      for c, ok in (("true_belief", True), ("false_belief", False))]
    >>> tb_and_fb(r), tb_and_fb(r[:1])
    (0.0, 0.0)
    """
    pairs: dict[tuple[str, str, str], dict[str, bool]] = {}
    for r in results:
        head, _, tag = r.id.rpartition(":")
        shown, _, rest = tag.partition("_")
        var = next((v for v in VARIABLES if rest.startswith(v + "_")), None)
        condition = rest[len(var) + 1 :] if var else ""
        if var is None or condition not in ("true_belief", "false_belief"):
            continue
        init = "shown" if shown == "1" else "hidden"
        if (initial_belief and init != initial_belief) or (variable and var != variable):
            continue
        pairs.setdefault((head, init, var), {})[condition] = r.correct
    both = [all(p.values()) for p in pairs.values() if len(p) == 2]
    return sum(both) / len(both) if both else 0.0


def _paired_metrics() -> dict[str, Callable[[list[ItemResult]], float]]:
    out: dict[str, Callable[[list[ItemResult]], float]] = {"tb_and_fb": tb_and_fb}
    for init in ("hidden", "shown"):
        for var in VARIABLES:
            out[f"tb_and_fb/{init}/{var}"] = functools.partial(
                tb_and_fb, initial_belief=init, variable=var
            )
    return out


# -- the same model, directly: the paper's prompt -------------------------------------------------
PAPER_INSTRUCTION = (
    "Answer the questions based on the context. Keep your answer concise, few words are "
    "enough, maximum one sentence. Answer as 'Answer:<option>)<answer>'."
)
"""The release's ``prompt_instructions/evaluate.txt``: the system message of its chat models'
0-shot multiple-choice run (``evaluate_llm.py``, method ``chat-0shot``, ``--mcq``)."""


def paper_options(item: Item) -> tuple[str, str]:
    """The two answers in the order the prompt shows them as a) and b).

    The release shuffles them with ``random.seed(0)`` in the order it reads its condition
    files; here the order is drawn from the item's id alone (never from the gold), so that it
    does not depend on which items a run holds.

    >>> item = conditions(_EXAMPLE_ROW.split(";"))[1]
    >>> sorted(paper_options(item)) == sorted(item.choices)
    True
    """
    first, second = item.choices[0], item.choices[1]
    flip = hashlib.sha256(item.id.encode("utf-8")).digest()[0] % 2
    return (second, first) if flip else (first, second)


def paper_messages(item: Item) -> list[dict[str, str]]:
    """The release's chat-0shot MCQ prompt for one condition item.

    >>> m = paper_messages(conditions(_EXAMPLE_ROW.split(";"))[1])
    >>> print(m[1]["content"])  # doctest: +ELLIPSIS
    Story: Ann is in the kitchen. ... Ann does not touch the cup.
    Question: Does Ann believe the tea is hot or cold?
    Choose one of the following:
    a)Ann believes the tea is ...
    b)Ann believes the tea is ...
    """
    a, b = paper_options(item)
    question = f"{item.question}\nChoose one of the following:\na){a}\nb){b}"
    return [
        {"role": "system", "content": PAPER_INSTRUCTION},
        {"role": "user", "content": f"Story: {item.story}\nQuestion: {question}"},
    ]


def read_paper_reply(item: Item, reply: str) -> str | None:
    """The option a reply chose, as the release's grader reads it: the option key ``a)`` or
    ``b)`` in the reply (exactly one of them); else the one option whose text it contains.
    None when neither settles it (the release then asks an LLM grader, which is not run here).

    >>> item = conditions(_EXAMPLE_ROW.split(";"))[1]
    >>> a, b = paper_options(item)
    >>> read_paper_reply(item, "Answer: b) " + b) == b, read_paper_reply(item, "not sure")
    (True, None)
    """
    options = paper_options(item)
    text = reply.lower()
    keys = [o for key, o in zip(("a)", "b)"), options, strict=True) if key in text]
    if len(keys) == 1:
        return keys[0]
    said = normalise(reply)
    named = [o for o in options if normalise(o.rstrip(".")) in said]
    return named[0] if len(named) == 1 else None


class PaperPrompt:
    """BigToM's own prompt for the direct baseline (one request per condition item)."""

    prompt_id = "bigtom.paper.chat0shot.v1"

    def story_key(self, item: Item) -> str:
        return item.id

    def run(self, item: Item, ask: Callable[[list[dict[str, str]]], str]) -> str:
        return ask(paper_messages(item))

    def score(self, item: Item, state: Any) -> ItemResult:
        reply = str(state)
        prediction = read_paper_reply(item, reply)
        why = (
            f"the model replied {reply.strip()!r}",
            "the reply names neither option alone" if prediction is None else
            f"read as: {prediction}",
        )  # fmt: skip
        return ItemResult.answered(item, prediction, explanation=why, breakdown=_breakdown(item))


def _sampled(
    rows: int | None, cells: Sequence[str] | None, skip: int = 0
) -> Callable[..., list[Item]]:
    """The loader, keeping ``rows`` template rows of each file after the first ``skip`` and
    the ``cells`` (``initial_belief/variable/condition``) named: an item-blind sample."""
    if rows is None and cells is None and not skip:
        return load_bigtom
    if rows is not None and rows < 1:
        raise ConfigurationError(f"rows must be a positive number of templates, got {rows!r}")
    if skip < 0:
        raise ConfigurationError(f"skip must be a number of templates >= 0, got {skip!r}")
    known = {f"{i}/{v}/{c}" for i in ("hidden", "shown") for v in VARIABLES for c in CONDITIONS}
    wrong = sorted(set(cells or ()) - known)
    if wrong:
        raise ConfigurationError(f"unknown BigToM cells {wrong}; cells read {sorted(known)[0]!r}")

    def load(path: Path, problems: Problems | None = None) -> list[Item]:
        items = load_bigtom(path, problems)
        lines: dict[str, list[int]] = {}
        for item in items:
            seen = lines.setdefault(str(item.meta["file"]), [])
            if item.meta["line"] not in seen:
                seen.append(item.meta["line"])
        kept = [
            item for item in items
            if item.meta["line"] in lines[str(item.meta["file"])][
                skip : None if rows is None else skip + rows
            ]
            and (cells is None or _breakdown(item)["paper_cell"] in cells)
        ]  # fmt: skip
        return LoadedItems(kept, getattr(items, "problems", ()))

    return load


@benchmarks.register("bigtom")
def make_bigtom(
    mode: Literal["template", "text"] = "template",
    *,
    direct: bool = False,
    rows: int | None = None,
    cells: Sequence[str] | None = None,
    skip: int = 0,
) -> Benchmark:
    """The BigToM adapter.

    Parameters
    ----------
    mode : {"template", "text"}
        ``template`` (default): the graph is built from the row's fields (the reasoner
        alone). ``text``: the story prose is read by the run's parser (``evaluate(...,
        parser=...)``, offline the rules parser) and answered from the agent's beliefs in
        that graph (parser + reasoner).
    direct : bool
        The same-model direct baseline: each condition item asked with the paper's own
        prompt (``paper_messages``) through the run's LLM client, no graph, scored by the
        same scorer (``adapters.direct``).
    rows : int, optional
        Only the first ``rows`` template rows of each file (an item-blind sample).
    skip : int
        Leave out the first ``skip`` template rows of each file first (``skip=12, rows=12``:
        rows 13-24, a sample held out from one taken with ``rows=12``).
    cells : sequence of str, optional
        Only these cells, each ``initial_belief/variable/condition`` (e.g.
        ``hidden/forward_belief/false_belief``: one of the release's condition files).

    Raises
    ------
    ConfigurationError
        For another mode, a bad ``rows`` or ``skip``, or an unknown cell.
    """
    if mode not in ("template", "text"):
        raise ConfigurationError(f"BigToM modes are 'template' and 'text', got {mode!r}")
    text = mode == "text"
    base = Benchmark(
        name="bigtom",
        load=_sampled(rows, cells, skip),
        build=_text_build if text else _build,
        answer=_text_answer if text else _answer,
        breakdowns=("condition", "variable", "initial_belief", "cell", "paper_cell"),
        metrics=_paired_metrics(),
    )
    if direct:
        from .direct import make_direct

        return make_direct(base, PaperPrompt())
    return base


_EXAMPLE_ROW = (
    "Ann is in the kitchen. Ann wants warm tea. Ann made tea. Ann believes the tea is hot. "
    "The tea cools down.;Ann touches the cup.;Ann does not touch the cup.;Ann reheats the tea.;"
    "Ann drinks the tea.;Does Ann believe the tea is hot or cold?;Does Ann want warm tea?;"
    "What will Ann do?;Ann believes the tea is cold.;Ann wants warm tea.;Ann will reheat the "
    "tea.;Ann believes the tea is hot.;Ann wants warm tea.;Ann will drink the tea.;A bird sings."
    ";Ann hears the bird.;Ann does not hear the bird.;auto;0"
)
"""A made-up template row for the examples."""
