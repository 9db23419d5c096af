"""The LLM parser (``parser="llm"``) and the offline-first parser (``parser="auto"``).

``LLMParser.parse(text)`` numbers the sentences, asks the model for a ``StoryParse`` in one
call (long stories: one call per ``chunk`` sentences, each seeing what came before), checks
it against the text, and converts it into the events the offline parser emits. A transcript
(``Speaker: utterance`` lines) is read as a dialogue (``dialogue.parse_dialogue``).

``AutoParser`` runs the offline rules parser first; only the sentences it cannot read go to
the LLM, in one call that shows the story and what was already read. A story the rules read
whole costs no call and needs no LLM settings.

A reply that fails its checks when no re-ask is possible (a batch answer replayed; or, when
not ``strict``, after a live run's re-asks ran out) is salvaged rather than discarded
(``salvage``): an actor or thing the text names but the lists miss is added, an item that
cannot be repaired is dropped, each with an ``LLMSalvageWarning`` naming its sentence. In a
batch run, the client also writes the re-ask a live run would send (the answer and its
errors) to the batch file (``ReaskPending``): the salvaged parse is used meanwhile, and once
the re-ask's answer is imported, the rerun reads it instead (one more round).

After a parse, a ``repair(story) -> str | None`` hook may return an explanation; the model
is then re-asked once with it, and a remaining complaint is reported as a
``LLMRepairWarning`` (when the re-ask waits in a batch file, the first answer is used
meanwhile, with that warning). The default hook is ``check_parse``, the z3 consistency
checker on the parse's events (frame axioms, events' preconditions, clashing world facts).

Limits: the model sees the whole story (or everything up to the chunk) in one prompt, so
the context window bounds the story length; events are ordered by sentence, and within a
sentence in the order the model lists them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from beliefgraph.errors import BeliefGraphError, UnparsedSentenceError
from beliefgraph.models import Event, ParseCost, ParsedStory, Sentence
from beliefgraph.text import FIRST, numbered

from .cache import LLMCache
from .client import LLMClient, LLMSettings, LLMUsage, Request, collect_usage, open_cache
from .convert import merge_story, split_sentences, to_story
from .errors import AnswerPending, ParserRetryExhausted, ReaskPending
from .salvage import salvage
from .schema import MAX_ITEMS, StoryParse
from .templates import load_prompt, render

__all__ = [
    "AutoParser",
    "LLMParser",
    "LLMRepairWarning",
    "LLMSalvageWarning",
    "Repair",
    "check_parse",
]

Repair = Callable[[ParsedStory], "str | None"]
"""A consistency check: an explanation of what is wrong with a parse, or None."""


class LLMRepairWarning(UserWarning):
    """The repair hook still objects after the one re-ask it triggers."""


class LLMSalvageWarning(UserWarning):
    """A reply failed its checks with no re-ask left: a field was repaired or an item dropped."""


def check_parse(story: ParsedStory) -> str | None:
    """The default repair hook: what the consistency checker finds wrong with a parse.

    The parse's events are replayed and checked (``beliefgraph.check`` at order 0: the
    world, the frame axiom and events' preconditions); a parse the checker cannot read (no
    events, ids out of order) has nothing to repair.

    Returns
    -------
    str or None
        The report's explanation, one line per conflict, or None when consistent.
    """
    if not story.events:
        return None
    # Imported here: the checker loads z3, which a parser that is never checked need not.
    from beliefgraph.graph import BeliefGraph
    from beliefgraph.solvers.consistency import check

    try:
        report = check(BeliefGraph(story, max_order=0), max_order=0)
    except BeliefGraphError:
        return None
    return None if report.consistent else report.explain()


class LLMParser:
    """Story text to typed events through an LLM.

    Parameters
    ----------
    strict : bool
        Require an item for every sentence (a sentence without one is a validation error,
        re-asked); after the re-asks ``ParserRetryExhausted`` is raised. False keeps such
        sentences with ``parsed=False`` and warns.
    base_url, model, api_key, mode : str, optional
        The endpoint; default from the environment (see ``client``).
    timeout, max_retries, transient_retries, max_tokens, temperature
        Limits; see ``LLMSettings``.
    cache : LLMCache, path, bool or None
        The answer cache: None or True for the default file, False for none.
    repair : callable or None
        ``repair(story) -> str | None``; an explanation triggers one re-ask. Default
        ``check_parse`` (the consistency checker); None switches repair off.
    checks : sequence of callables, optional
        Extra validators ``check(parse) -> str | None``; an error text is sent back to the
        model like any validation error.
    chunk : int
        The most sentences one call reads.
    batch_out : path, optional
        Write the requests to this OpenAI Batch API file instead of calling (also
        ``BELIEFGRAPH_LLM_BATCH_OUT``); the sentences waiting for an answer stay unparsed
        with the reason "answer pending in batch file ..." (strict: ``AnswerPending``).
    client : LLMClient, optional
        A ready client (then the endpoint arguments are ignored).

    Raises
    ------
    LLMConfigurationError
        When no endpoint or model is configured (names the variables to set).

    Examples
    --------
    >>> LLMParser(base_url="http://127.0.0.1:9/v1", model="m", cache=False).name
    'llm'
    """

    name = "llm"

    def __init__(
        self,
        *,
        strict: bool = True,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        mode: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 2,
        transient_retries: int = 2,
        max_tokens: int = 4096,
        temperature: float = 0.0,
        cache: LLMCache | str | Path | bool | None = None,
        repair: Repair | None = check_parse,
        checks: Sequence[Callable[[StoryParse], str | None]] = (),
        chunk: int = 30,
        batch_out: str | Path | None = None,
        client: LLMClient | None = None,
    ) -> None:
        if client is None:
            settings = LLMSettings.resolve(
                base_url=base_url, model=model, api_key=api_key, mode=mode, timeout=timeout,
                max_retries=max_retries, transient_retries=transient_retries,
                max_tokens=max_tokens, temperature=temperature, batch_out=batch_out,
            )  # fmt: skip
            client = LLMClient(settings, open_cache(cache, batch_out=settings.batch_out))
        self.client = client
        self.strict = strict
        self.repair = repair
        self.checks = tuple(checks)
        self.chunk = max(1, min(chunk, MAX_ITEMS))
        self.last_usage = LLMUsage()
        """Calls and tokens of the most recent ``parse``."""

    @property
    def usage(self) -> LLMUsage:
        """Calls and tokens over this parser's life (cache hits counted apart)."""
        return self.client.usage

    # -- stories ---------------------------------------------------------------------------
    def parse(self, text: str) -> ParsedStory:
        """Read ``text`` (a story, or a transcript of ``Speaker: utterance`` lines).

        Raises
        ------
        ParserRetryExhausted
            The output stayed invalid after the re-asks; keeps the raw completion.
        LLMConnectionError, LLMTimeoutError, LLMRequestError
            The server is unreachable, too slow, or refuses the request.
        """
        from .dialogue import is_transcript, parse_dialogue, read_transcript

        with collect_usage() as used:
            self.last_usage = used  # live: complete on error too
            if is_transcript(text):
                story = parse_dialogue(read_transcript(text), parser=self, text=text)
            else:
                story = self._blank(text)
                for targets in self._chunks(story):
                    request, finish = self._plan(story, story.sentences, targets)
                    try:
                        story = self._run(request, finish)
                    except AnswerPending as pending:
                        if self.strict:
                            raise
                        story = pending_story(story, pending)
                        break  # later chunks build on this answer: the next batch round
        return self._finish(story)

    async def aparse(self, text: str) -> ParsedStory:
        """The async ``parse`` (used by the batch API)."""
        from .dialogue import aparse_dialogue, is_transcript, read_transcript

        with collect_usage() as used:
            self.last_usage = used  # live: complete on error too
            if is_transcript(text):
                story = await aparse_dialogue(read_transcript(text), parser=self, text=text)
            else:
                story = self._blank(text)
                for targets in self._chunks(story):
                    request, finish = self._plan(story, story.sentences, targets)
                    try:
                        story = await self._arun(request, finish)
                    except AnswerPending as pending:
                        if self.strict:
                            raise
                        story = pending_story(story, pending)
                        break  # later chunks build on this answer: the next batch round
        return self._finish(story)

    def parse_unparsed(self, base: ParsedStory, *, parser: str = "auto") -> ParsedStory:
        """Read only ``base``'s unparsed sentences, in one call, and merge them in."""
        targets = [s.index for s in base.sentences if not s.parsed]
        if not targets:
            self.last_usage = LLMUsage()
            return base.model_copy(update={"parser": parser})
        request, finish = self._plan(base, list(base.sentences), targets, name=parser)
        with collect_usage() as used:
            self.last_usage = used  # live: complete on error too
            try:
                story = self._run(request, finish)
            except AnswerPending as pending:
                if self.strict:
                    raise
                story = pending_story(base.model_copy(update={"parser": parser}), pending)
        return self._finish(story)

    async def aparse_unparsed(self, base: ParsedStory, *, parser: str = "auto") -> ParsedStory:
        """The async ``parse_unparsed``."""
        targets = [s.index for s in base.sentences if not s.parsed]
        if not targets:
            self.last_usage = LLMUsage()
            return base.model_copy(update={"parser": parser})
        request, finish = self._plan(base, list(base.sentences), targets, name=parser)
        with collect_usage() as used:
            self.last_usage = used  # live: complete on error too
            try:
                story = await self._arun(request, finish)
            except AnswerPending as pending:
                if self.strict:
                    raise
                story = pending_story(base.model_copy(update={"parser": parser}), pending)
        return self._finish(story)

    # -- planning --------------------------------------------------------------------------
    def _blank(self, text: str) -> ParsedStory:
        sentences = tuple(s.model_copy(update={"parsed": False}) for s in split_sentences(text))
        return ParsedStory(text=text, sentences=sentences, events=(), actors=(), parser=self.name)

    def _chunks(self, story: ParsedStory) -> list[list[int]]:
        n = len(story.sentences)
        return [list(range(i, min(i + self.chunk, n))) for i in range(0, n, self.chunk)]

    def _plan(
        self,
        base: ParsedStory,
        sentences: Sequence[Sentence],
        targets: list[int],
        *,
        name: str | None = None,
    ) -> tuple[Request, Callable[[StoryParse], ParsedStory]]:
        """The request reading ``targets`` of ``sentences``, and how to merge its answer."""
        name = name or self.name
        first = targets[0] == 0 and not base.events and name == self.name
        if first:
            shown = sentences[: targets[-1] + 1]
            prompt, messages = render("story", sentences=numbered(s.text for s in shown))
        else:
            shown = sentences[: targets[-1] + 1]
            prompt, messages = render(
                "auto",
                sentences=numbered(s.text for s in shown),
                parsed=summary(base, upto=targets[-1]) or "(nothing yet)",
                actors=", ".join(base.actors) or "(none)",
                entities=", ".join(e.name for e in base.entities) or "(none)",
                targets=", ".join(str(t + FIRST) for t in targets),
            )
        context = {
            "sentences": [s.text for s in sentences],
            "first": FIRST,
            "targets": targets,
            "actors": list(base.actors),
            "entities": [e.name for e in base.entities],
            "coverage": self.strict,
        }
        request = Request(prompt, tuple(messages), context, self.checks, StoryParse)

        def finish(parse: StoryParse) -> ParsedStory:
            parse = parse.shifted(FIRST)  # the reply counts as the prompt did, from 1
            if first and len(targets) == len(sentences):
                return to_story(base.text, sentences, parse, parser=name)
            return merge_story(base, parse, parser=name)

        return request, finish

    # -- running, with the repair hook -------------------------------------------------------
    def _run(self, request: Request, finish: Callable[[StoryParse], ParsedStory]) -> ParsedStory:
        try:
            parse = self.client.run(request)
        except ParserRetryExhausted as err:
            parse = self._salvage(request, err)
            if isinstance(err, ReaskPending):
                return finish(parse)  # the re-ask's answer is checked in the next round
        story = finish(parse)
        why = self.repair(story) if self.repair else None
        if not why:
            return story
        try:
            parse = self.client.run(self._repair_request(request, parse, why))
        except AnswerPending as pending:
            return _unrepaired(story, why, pending)
        story = finish(parse)
        self._warn_if_still(story)
        return story

    async def _arun(
        self, request: Request, finish: Callable[[StoryParse], ParsedStory]
    ) -> ParsedStory:
        try:
            parse = await self.client.arun(request)
        except ParserRetryExhausted as err:
            parse = self._salvage(request, err)
            if isinstance(err, ReaskPending):
                return finish(parse)  # the re-ask's answer is checked in the next round
        story = finish(parse)
        why = self.repair(story) if self.repair else None
        if not why:
            return story
        try:
            parse = await self.client.arun(self._repair_request(request, parse, why))
        except AnswerPending as pending:
            return _unrepaired(story, why, pending)
        story = finish(parse)
        self._warn_if_still(story)
        return story

    def _salvage(self, request: Request, err: ParserRetryExhausted) -> StoryParse:
        """A reply that failed its checks, repaired where it can be (``salvage``).

        Used when no re-ask is possible (a batch answer replayed) and, unless ``strict``,
        after a live run's re-asks ran out; every repair and drop is a warning naming its
        sentence. A reply that is not a JSON object, or whose repaired parse a caller's own
        ``checks`` still reject, raises ``err`` again.
        """
        if err.reask and self.strict:
            raise err
        saved = salvage(err.raw, request.context)
        if saved is None:
            raise err
        parse, notes = saved
        if any(check(parse) for check in request.checks):
            raise err  # a caller's own validator judges the whole parse: nothing to repair
        meanwhile = ""
        if isinstance(err, ReaskPending):
            meanwhile = (f"; the re-ask waits in batch file {err.path} (custom_id "
                         f"{err.custom_id}), and this repair is used meanwhile")  # fmt: skip
        for note in notes:
            warnings.warn(
                f"the parse failed its checks ({note}){meanwhile}", LLMSalvageWarning, stacklevel=4
            )
        return parse

    def _repair_request(self, request: Request, parse: StoryParse, why: str) -> Request:
        repair = load_prompt("repair")
        answer = {"role": "assistant", "content": parse.model_dump_json(exclude_defaults=True)}
        follow = repair.messages(explanation=why)
        messages = (*request.messages, answer, *follow)
        return Request(request.prompt, messages, request.context, request.checks, StoryParse)

    def _warn_if_still(self, story: ParsedStory) -> None:
        assert self.repair is not None
        if still := self.repair(story):
            warnings.warn(
                f"the consistency check still fails after one re-ask: {still}",
                LLMRepairWarning,
                stacklevel=4,
            )

    def _finish(self, story: ParsedStory) -> ParsedStory:
        # The graph carries what it cost, so eval can report calls per item and in total.
        story = story.model_copy(update={"cost": ParseCost(**self.last_usage.as_dict())})
        unread = story.unparsed
        pending = [s for s in story.sentences if s.reason and s.reason.startswith(_PENDING)]
        if pending:
            warnings.warn(
                f"{len(pending)} sentence(s) are kept unparsed: {pending[0].reason}",
                stacklevel=3,
            )
            return story
        if unread and self.strict:
            s = unread[0]
            raise UnparsedSentenceError(s.text, s.index, s.line)
        if unread:
            listing = "; ".join(f"{s.index}: {s.text!r}" for s in unread[:5])
            warnings.warn(
                f"the LLM read no event from {len(unread)} sentence(s) ({listing}); they are "
                "kept with parsed=False",
                stacklevel=3,
            )
        return story

    def __repr__(self) -> str:
        s = self.client.settings
        return f"LLMParser(model={s.model!r}, base_url={s.base_url!r}, mode={s.mode!r})"


class AutoParser:
    """The offline rules parser first; the LLM reads only the sentences it cannot.

    Parameters
    ----------
    strict : bool
        Require the LLM to read every sentence the rules left (re-asked like any validation
        error); False keeps what it leaves as the rules' uninterpreted facts, with a warning.
    llm : LLMParser, optional
        A ready LLM parser; by default one is built from ``llm_settings`` on first need.
    **llm_settings
        Passed to ``LLMParser`` when (and only when) a sentence needs the LLM.

    Examples
    --------
    >>> AutoParser().parse("Sally goes out.").events[0].parser
    'rules'
    """

    name = "auto"

    def __init__(
        self, *, strict: bool = True, llm: LLMParser | None = None, **llm_settings: Any
    ) -> None:
        from beliefgraph.parsers import RulesParser

        self.strict = strict
        self.rules = RulesParser(strict=False)
        self._llm_settings = llm_settings
        self._llm = llm

    @property
    def llm(self) -> LLMParser:
        """The LLM parser, built on first use (so a fully read story needs no settings)."""
        if self._llm is None:
            self._llm = LLMParser(strict=self.strict, **self._llm_settings)
        return self._llm

    @property
    def usage(self) -> LLMUsage:
        return self._llm.usage if self._llm is not None else LLMUsage()

    @property
    def last_usage(self) -> LLMUsage:
        return self._llm.last_usage if self._llm is not None else LLMUsage()

    def _rules(self, text: str) -> ParsedStory:
        with warnings.catch_warnings():  # what the rules cannot read goes to the LLM
            warnings.simplefilter("ignore", UserWarning)
            return self.rules.parse(text)

    def parse(self, text: str) -> ParsedStory:
        """Rules first, then one LLM call for whatever they left unread."""
        from .dialogue import is_transcript, parse_dialogue, read_transcript

        if is_transcript(text):
            return parse_dialogue(read_transcript(text), parser=self.llm, text=text, name="auto")
        base = self._rules(text)
        if not base.unparsed:
            if self._llm is not None:
                self._llm.last_usage = LLMUsage()
            return base.model_copy(update={"parser": self.name})
        return self.llm.parse_unparsed(base, parser=self.name)

    async def aparse(self, text: str) -> ParsedStory:
        """The async ``parse``."""
        from .dialogue import aparse_dialogue, is_transcript, read_transcript

        if is_transcript(text):
            return await aparse_dialogue(
                read_transcript(text), parser=self.llm, text=text, name="auto"
            )
        base = self._rules(text)
        if not base.unparsed:
            return base.model_copy(update={"parser": self.name})
        return await self.llm.aparse_unparsed(base, parser=self.name)


_PENDING = "answer pending in batch file"


def _unrepaired(story: ParsedStory, why: str, pending: AnswerPending) -> ParsedStory:
    """The first answer, kept while its re-ask waits in a batch file (a valid parse the
    consistency check objects to is more than no parse), with a warning saying both."""
    warnings.warn(
        f"the consistency check fails ({why}); the re-ask waits in batch file {pending.path} "
        f"(custom_id {pending.custom_id}), and the first answer is used meanwhile",
        LLMRepairWarning,
        stacklevel=4,
    )
    return story


def pending_story(
    story: ParsedStory, pending: AnswerPending, *, every: bool = False
) -> ParsedStory:
    """``story`` with its unparsed sentences (``every``: all) marked as waiting for a batch
    answer."""
    reason = f"{_PENDING} {pending.path} (custom_id {pending.custom_id})"
    sentences = tuple(
        s if s.parsed and not every else s.model_copy(update={"reason": reason})
        for s in story.sentences
    )
    return story.model_copy(update={"sentences": sentences})


# -- prompt text ------------------------------------------------------------------------------
def describe(e: Event) -> str:
    """A short rendering of an event for the prompt: ``move(Sally: ball -> basket)``."""
    who = ", ".join(e.actors)
    if e.kind == "move":
        return f"move({who}: {e.obj} -> {e.destination})"
    if e.kind in ("enter", "exit", "stay"):
        return f"{e.kind}({who}{': ' + e.room if e.room else ''})"
    if e.kind in ("open", "close"):
        return f"{e.kind}({who}: {e.obj})"
    said = e.proposition.render() if e.proposition else ""
    if e.kind == "tell":
        return f"tell({who} -> {', '.join(e.hearers) or 'all'}: {said})"
    return f"{e.kind}({who + ': ' if who else ''}{said})"


def summary(story: ParsedStory, *, upto: int) -> str:
    """What was read from each sentence up to ``upto`` (an index), one line per sentence,
    numbered as the prompt numbers the sentences."""
    unread = {s.index for s in story.sentences if not s.parsed}
    by_sentence: dict[int, list[str]] = {}
    for e in story.events:
        if e.sentence_index not in unread:
            by_sentence.setdefault(e.sentence_index, []).append(describe(e))
    return "\n".join(
        f"[{i + FIRST}] " + "; ".join(items)
        for i, items in sorted(by_sentence.items())
        if i <= upto
    )
