"""Run a benchmark end to end: load, track each story once, answer, score, summarise.

A run never stops for one record or one story. The loader reports what it cannot read
(``EvalResult.problems``, counted in the summary) and the rest is scored; a story that runs
past its time budget (``story_timeout``, default 60 s) is answered "timed out" for each of
its items, named in ``EvalResult.timed_out``, and the run goes on.

Stories are independent, so ``workers=N`` spreads them over the standard library's process
pool (``backend="process"``) or over a Ray cluster (``backend="ray"``, the ``ray`` extra);
the results, the progress callback and the traces come back in item order, identical to a
serial run. Limits: the time budget is a ``SIGALRM`` timer in the process that runs the story,
so it bounds Python code (the parser, the solvers, the answerers) but not a single call into
C that never returns; it needs the main thread (a run from another thread with a budget
goes through one worker process). Benchmarks whose answerer keeps run-wide state that their
metrics read (``Benchmark.parallel`` is False) always run in one process.
"""

from __future__ import annotations

import gc
import importlib
import inspect
import json
import math
import multiprocessing
import os
import signal
import threading
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import catalogue
from pydantic import Field

from beliefgraph.api import StoryParser, current_parser, using_parser
from beliefgraph.errors import BeliefGraphError, ConfigurationError, DataFormatError
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import BeliefModel
from beliefgraph.registry import parsers, resolve

from .benchmark import Benchmark, benchmarks
from .item import Item, ItemResult
from .loading import LoadedItems, LoadProblem, Problems

__all__ = [
    "DEFAULT_STORY_TIMEOUT",
    "EvalResult",
    "answer_items",
    "check_output_path",
    "dump_summary",
    "evaluate",
    "get_benchmark",
    "load",
]

DEFAULT_STORY_TIMEOUT = 60.0
"""Seconds one story (its parse and every answer about it) may take before it is skipped."""

Backend = Literal["process", "ray"]
_SECRET = ("key", "token", "secret", "password")


class EvalResult(BeliefModel):
    """A benchmark run: the summary a paper quotes, every item's trace, and how it was made."""

    benchmark: str
    results: tuple[ItemResult, ...]
    parse_coverage: float
    """Fraction of distinct stories the parser read completely."""
    seconds: float
    metrics: dict[str, float] = Field(default_factory=dict)
    """Every figure the benchmark defines beyond accuracy (e.g. macro-F1, its official metric)."""
    headline: str = "accuracy"
    """The name of the benchmark's official metric: ``accuracy`` or a key of ``metrics``."""
    parser: str = "default"
    """The parser that read the stories: the name given to ``evaluate`` (or of the one
    ``using_parser`` set around the run), or ``default`` (each adapter's own reading: the
    rules parser, or its template parse)."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """Everything else that produced the figures: adapter and parser settings (secrets
    redacted), ``limit``, ``workers``, ``backend``, ``story_timeout``."""
    problems: tuple[LoadProblem, ...] = ()
    """Records of the file that could not be read (not scored, counted in the summary)."""
    timed_out: tuple[str, ...] = ()
    """The first item id of every story that ran past ``story_timeout``."""
    llm_deferred: int = 0
    """LLM requests written to a batch file instead of sent (``batch_out``)."""

    @property
    def n(self) -> int:
        return len(self.results)

    @property
    def answered(self) -> int:
        return sum(r.prediction is not None for r in self.results)

    @property
    def accuracy(self) -> float:
        return sum(r.correct for r in self.results) / self.n if self.results else 0.0

    @property
    def headline_value(self) -> float:
        """The official metric's value (NaN when the run produced no such figure)."""
        if self.headline == "accuracy":
            return self.accuracy
        return self.metrics.get(self.headline, math.nan)

    @property
    def llm_calls(self) -> int:
        return sum(r.llm_calls for r in self.results)

    @property
    def llm_tokens(self) -> int:
        return sum(r.llm_tokens for r in self.results)

    def by(self) -> dict[str, dict[str, dict[str, float]]]:
        """Breakdown name -> key -> ``{n, accuracy}``."""
        groups: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
        for r in self.results:
            for name, key in r.breakdown.items():
                groups[name][key].append(r.correct)
        return {
            name: {
                key: {"n": len(v), "accuracy": sum(v) / len(v)} for key, v in sorted(keys.items())
            }
            for name, keys in groups.items()
        }

    def summary(self) -> dict[str, Any]:
        """The summary JSON: the figures, the official one named, and how they were made.

        Keys: ``benchmark``, ``headline`` (``{"metric", "value"}``), ``n``, ``answered``,
        ``accuracy``, ``metrics`` (every figure the benchmark defines), ``by``,
        ``parse_coverage``, ``seconds``, ``llm_calls``, ``parser``, ``settings``,
        ``load_problems`` (their count), ``problems`` (each as ``file:line: message``),
        ``timed_out``.
        """
        value = self.headline_value
        return {
            "benchmark": self.benchmark,
            "headline": {"metric": self.headline, "value": None if math.isnan(value) else value},
            "n": self.n,
            "answered": self.answered,
            "accuracy": self.accuracy,
            "metrics": dict(self.metrics),
            "by": self.by(),
            "parse_coverage": self.parse_coverage,
            "seconds": self.seconds,
            "llm_calls": self.llm_calls,
            "parser": self.parser,
            "settings": dict(self.settings),
            "load_problems": len(self.problems),
            "problems": [str(p) for p in self.problems],
            "timed_out": list(self.timed_out),
        } | ({"llm_deferred": self.llm_deferred} if self.llm_deferred else {})

    def write_traces(self, path: Path) -> None:
        """One JSON line per item."""
        with path.open("w", encoding="utf-8") as fh:
            for r in self.results:
                fh.write(r.model_dump_json() + "\n")


def get_benchmark(name: str, **settings: Any) -> Benchmark:
    """The registered adapter called ``name``, built with the adapter's own ``settings``.

    Raises
    ------
    UnknownNameError
        For a benchmark that is not registered.
    ConfigurationError
        For a setting the adapter does not take.
    """
    load_adapters(name)
    factory = resolve(benchmarks, name, "benchmark")
    try:
        return factory(**settings)
    except TypeError as err:
        raise ConfigurationError(
            f"benchmark {name!r} does not take {sorted(settings)}: {err}"
        ) from None


def load(name: str, path: str | Path, *, strict: bool = True) -> LoadedItems:
    """Read a benchmark's released file(s) into typed items.

    Parameters
    ----------
    name : str
        A registered benchmark.
    path : str or Path
        The released file or folder.
    strict : bool
        Raise at the first record that cannot be read (default). With ``strict=False`` such
        records are listed in the result's ``problems`` (file, line, what was expected), one
        warning says how many, and every other record is read.

    Raises
    ------
    UnknownNameError
        For a benchmark that is not registered.
    DataFormatError
        For a missing file or folder, a file that cannot be read at all, no readable record
        at all, or (strict) a malformed record, naming the file and line.
    """
    return _load(get_benchmark(name), Path(path), strict=strict, warn=True)


def _load(bench: Benchmark, path: Path, *, strict: bool, warn: bool) -> LoadedItems:
    if not path.exists():
        raise DataFormatError(f"{path}: no such file or directory")
    problems = Problems(strict=strict)
    # A loader written before problems were collected takes the path only and raises.
    items = bench.load(path, problems) if _takes_problems(bench.load) else bench.load(path)
    found = tuple(problems.found) + tuple(getattr(items, "problems", ()))
    found = tuple(dict.fromkeys(found))  # a loader may hand back the collector's own list
    if found and not items:
        shown = "; ".join(str(p) for p in found[:3])
        raise DataFormatError(
            f"{path}: no record could be read ({len(found)} problems, e.g. {shown})"
        )
    if not items and not found:
        # An empty (or blank) file is no benchmark: scoring it would print "0.00% of 0" and a
        # parse coverage of 100% as if a run had happened.
        raise DataFormatError(f"{path}: no record could be read (it holds no {bench.name} record)")
    if found and warn:
        warnings.warn(
            f"{path}: {len(found)} record(s) could not be read and are left out, e.g. {found[0]}",
            stacklevel=3,
        )
    return LoadedItems(items, found)


def _takes_problems(loader: Callable[..., Any]) -> bool:
    try:
        params = list(inspect.signature(loader).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in params)


def check_output_path(path: Path) -> None:
    """Raise before a run when its output cannot be written (so no run is lost at the end).

    Raises
    ------
    ConfigurationError
        For a path whose folder does not exist or is not writable, or that is a folder.
    """
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise ConfigurationError(f"{path}: is a folder; give a file name to write")
    if not folder.is_dir():
        raise ConfigurationError(f"{path}: the folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ConfigurationError(f"{path}: cannot write here (permission denied)")


def evaluate(
    name: str,
    path: str | Path,
    *,
    limit: int | None = None,
    on_item: Callable[[ItemResult], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    parser: str | None = None,
    parser_settings: dict[str, Any] | None = None,
    workers: int = 1,
    backend: Backend = "process",
    story_timeout: float | None = DEFAULT_STORY_TIMEOUT,
    **settings: Any,
) -> EvalResult:
    """Score the tracker on a benchmark file; each story is parsed once.

    Items the tracker cannot answer count as wrong and keep the reason in their trace;
    records the loader cannot read are listed in ``EvalResult.problems`` and not scored.

    Parameters
    ----------
    name : str
        A registered benchmark (``tomi``, ``hitom``, ``tombench``, ``opentom``, ``bigtom``).
    path : str or Path
        The released file or folder.
    limit : int, optional
        Only the first ``limit`` items (a positive number).
    on_item : callable, optional
        Called after each item, in item order (the CLI drives its progress bar with it).
    on_start : callable, optional
        Called once with the number of items to score, after loading.
    parser : str, optional
        Run the stories through this registered parser (``"llm"``, ``"auto"``) wherever the
        adapter tracks text; adapters with their own template parse keep it (BigToM and
        OpenToM read the prose with it in ``mode="text"``).
    parser_settings : dict, optional
        For that parser (``base_url``, ``model``, ``mode``, ...).
    workers : int
        Processes to spread the stories over (1: this process).
    backend : {"process", "ray"}
        With ``workers > 1``: the standard library's process pool, or Ray (``pip install
        beliefgraph[ray]``; joins the cluster at ``RAY_ADDRESS`` when set).
    story_timeout : float or None
        Seconds one story may take (parse and answers); None for no bound.
    **settings
        Passed to the adapter's factory (e.g. ``stage=2`` for OmniToM).

    Raises
    ------
    ConfigurationError
        For a limit below 1, workers below 1, a non-positive timeout, an unknown backend, or
        parser settings without a parser.
    """
    if limit is not None and (isinstance(limit, bool) or limit < 1):
        raise ConfigurationError(f"limit must be a positive number of items, got {limit!r}")
    if workers < 1:
        raise ConfigurationError(f"workers must be 1 or more, got {workers!r}")
    if story_timeout is not None and not story_timeout > 0:
        raise ConfigurationError(f"story_timeout must be positive seconds, got {story_timeout!r}")
    if backend not in ("process", "ray"):
        raise ConfigurationError(f"backend must be 'process' or 'ray', got {backend!r}")
    if parser is None and parser_settings:
        raise ConfigurationError("parser_settings need a parser (e.g. parser='llm')")
    bench = get_benchmark(name, **settings)
    items = _load(bench, Path(path), strict=False, warn=False)
    problems = items.problems
    if limit is not None:
        items = LoadedItems(items[:limit], problems)
    if on_start is not None:
        on_start(len(items))
    spec = _Spec(name, dict(settings), parser, dict(parser_settings or {}))
    chosen = spec.make_parser()
    recorded = {
        **settings,
        **{f"parser.{k}": _redact(k, v) for k, v in (parser_settings or {}).items()},
        "limit": limit,
        "workers": workers,
        "backend": backend if workers > 1 else "serial",
        "story_timeout": story_timeout,
    }
    if workers > 1 and not bench.parallel:
        warnings.warn(
            f"benchmark {name!r} keeps run-wide figures in its answerer, so its stories run "
            f"in one process (workers={workers} ignored)",
            stacklevel=2,
        )
        workers = 1
    with using_parser(chosen) if chosen is not None else nullcontext(), _settled_heap():
        result = _run(bench, list(items), on_item, spec, workers, backend, story_timeout)
    return result.model_copy(
        update={
            "parser": parser or _ambient_parser(),
            "settings": recorded,
            "problems": problems,
            "headline": bench.headline,
        }
    )


# -- running stories ---------------------------------------------------------------------------
def answer_items(bench: Benchmark, items: Sequence[Item]) -> list[ItemResult]:
    """Answer items already in hand, each story tracked once, results in item order.

    What ``evaluate`` does for a file, for items built in code (aware controls, variants of a
    story): in this process, with no time budget; a story that cannot be tracked makes its
    items wrong with the reason, as in a run.

    Parameters
    ----------
    bench : Benchmark
        The adapter (``get_benchmark(name)``).
    items : sequence of Item
        In any order; items of one story share its graph.

    Returns
    -------
    list of ItemResult
    """
    slots: list[ItemResult | None] = [None] * len(items)
    for story in _stories(bench, items):
        outcome = _run_story(bench, story, None)
        for k, r in zip(outcome.indices, outcome.results, strict=True):
            slots[k] = r
    return [r for r in slots if r is not None]


@dataclass(frozen=True)
class _Spec:
    """What a worker needs to rebuild the run's adapter and parser in its own process."""

    name: str
    settings: dict[str, Any]
    parser: str | None
    parser_settings: dict[str, Any]

    def make_parser(self) -> StoryParser | None:
        if self.parser is None:
            return None
        return resolve(parsers, self.parser, "parser")(strict=False, **self.parser_settings)


@dataclass
class _Outcome:
    """One story's items answered (picklable: it crosses process boundaries)."""

    indices: list[int]
    results: list[ItemResult]
    parsed: bool
    timed_out: str | None = None
    deferred: int = 0
    """LLM requests the story wrote to a batch file instead of sending."""

    def __getstate__(self) -> dict[str, Any]:
        # As JSON: pydantic's own pickling costs ~40 us an object, its JSON parser a fraction.
        state = dict(self.__dict__)
        state["results"] = [r.model_dump_json() for r in self.results]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["results"] = [ItemResult.model_validate_json(r) for r in state["results"]]
        self.__dict__.update(state)


class _StoryTimeout(BaseException):
    # A BaseException, so an adapter's own ``except Exception`` cannot swallow it.
    pass


def _run(
    bench: Benchmark,
    items: list[Item],
    on_item: Callable[[ItemResult], None] | None,
    spec: _Spec,
    workers: int,
    backend: Backend,
    timeout: float | None,
) -> EvalResult:
    start = time.perf_counter()
    stories = _stories(bench, items)
    if workers == 1 and (timeout is None or _can_alarm()):
        outcomes: Iterator[_Outcome] = (_run_story(bench, s, timeout) for s in stories)
    elif backend == "ray" and workers > 1:
        outcomes = _run_ray(spec, stories, workers, timeout)
    else:  # a pool; also a one-worker one, when this thread cannot keep a time budget
        outcomes = _run_pool(bench, spec, stories, workers, timeout)
    slots: list[ItemResult | None] = [None] * len(items)
    emitted, parsed, deferred, timed_out = 0, 0, 0, []
    for outcome in outcomes:
        deferred += outcome.deferred
        for k, r in zip(outcome.indices, outcome.results, strict=True):
            slots[k] = r
        parsed += outcome.parsed
        if outcome.timed_out is not None:
            timed_out.append(outcome.timed_out)
        while emitted < len(slots) and slots[emitted] is not None:
            if on_item is not None:
                on_item(slots[emitted])  # type: ignore[arg-type]
            emitted += 1
    results = [r for r in slots if r is not None]
    seconds = time.perf_counter() - start
    coverage = parsed / len(stories) if stories else 1.0
    metrics = {k: f(results) for k, f in bench.metrics.items()}
    return EvalResult(
        benchmark=bench.name,
        results=tuple(results),
        parse_coverage=coverage,
        seconds=seconds,
        metrics=metrics,
        timed_out=tuple(timed_out),  # stories come in order of their first item
        llm_deferred=deferred,
    )


Story = list[tuple[int, Item]]


def _stories(bench: Benchmark, items: Sequence[Item]) -> list[Story]:
    """Items grouped by story, stories in order of their first item."""
    groups: dict[str, Story] = {}
    for k, item in enumerate(items):
        groups.setdefault(bench.story_key(item), []).append((k, item))
    return list(groups.values())


def _run_story(bench: Benchmark, story: Story, timeout: float | None) -> _Outcome:
    from beliefgraph.parsers.llm.usage import collect_usage  # light: no client imports

    indices = [k for k, _ in story]
    first = story[0][1]
    try:
        with _budget(timeout):
            with collect_usage() as built:
                graph = _build(bench, first)
            with collect_usage() as answering:
                unparsed = _unparsed(graph)  # once per story, not per item
                results = [_answer(bench, item, graph, unparsed) for _, item in story]
    except _StoryTimeout:
        reason = (
            f"the story of {first.id} took longer than its {timeout:g} s budget "
            "(story_timeout) and was stopped"
        )
        return _Outcome(
            indices, [_unanswered(bench, item, reason) for _, item in story], False, first.id
        )
    # What the story cost, counted once on its first item: the parse (the one LLM client's
    # calls while building, or the graph's own record of a parser that counts apart), and
    # calls made while answering that no item reports as its own (OmniToM's row readings).
    calls, tokens = built.calls, built.total_tokens
    if isinstance(graph, BeliefGraph):
        calls = max(calls, graph.story.cost.calls)
        tokens = max(tokens, graph.story.cost.total_tokens)
    calls += max(0, answering.calls - sum(r.llm_calls for r in results))
    tokens += max(0, answering.total_tokens - sum(r.llm_tokens for r in results))
    if calls:
        results[0] = results[0].model_copy(  # on top of any calls the answer made itself
            update={
                "llm_calls": results[0].llm_calls + calls,
                "llm_tokens": results[0].llm_tokens + tokens,
            }
        )
    parsed = isinstance(graph, BeliefGraph) and not graph.story.unparsed
    return _Outcome(indices, results, parsed, deferred=built.deferred + answering.deferred)


@contextmanager
def _settled_heap() -> Iterator[None]:
    """Run with the cyclic garbage collector's passes made rarer, and the heap that exists
    before the run (modules, the parser's tables, the loaded items) left out of them.

    A run allocates many small objects, so Python's collector runs hundreds of times, and a
    full pass walks every object of the process: with spaCy loaded, collection took a fifth
    of a ToMi run. Freezing the existing heap and collecting the young generation every
    10,000 allocations instead of 700 leaves it a twentieth. Both settings are restored after
    the run. Forked workers inherit the frozen heap, which also spares its pages from being
    copied when the collector would touch them.
    """
    with _HEAP_LOCK:  # runs in several threads at once: the first sets, the last restores
        _HEAP_RUNS.append(gc.get_threshold())
        if len(_HEAP_RUNS) == 1:
            gc.freeze()  # no collection first: it would itself be a full pass
            gc.set_threshold(max(_HEAP_RUNS[0][0], 10_000), *_HEAP_RUNS[0][1:])
    try:
        yield
    finally:
        with _HEAP_LOCK:
            if len(_HEAP_RUNS) == 1:
                gc.set_threshold(*_HEAP_RUNS[0])
                gc.unfreeze()
            _HEAP_RUNS.pop()


_HEAP_LOCK = threading.Lock()
_HEAP_RUNS: list[tuple[int, ...]] = []  # the thresholds before each run in progress


def _can_alarm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def _budget(seconds: float | None) -> Iterator[None]:
    """Raise ``_StoryTimeout`` inside the block after ``seconds`` (main thread only)."""
    if seconds is None or not _can_alarm():
        yield
        return

    def expire(_signum: int, _frame: Any) -> None:
        raise _StoryTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _chunks(stories: list[Story], workers: int) -> list[list[Story]]:
    # Several chunks per worker balance uneven stories; one per story would pay a
    # round trip per story.
    size = max(1, len(stories) // (workers * 8))
    return [stories[i : i + size] for i in range(0, len(stories), size)]


_WORKER: dict[str, Any] = {}


def _worker_init(spec: _Spec) -> None:
    warnings.simplefilter("ignore")  # unread sentences are reported in the trace
    _WORKER["bench"] = get_benchmark(spec.name, **spec.settings)
    _WORKER["parser"] = spec.make_parser()


def _run_chunk(chunk: list[Story], timeout: float | None) -> list[_Outcome]:
    bench, parser = _WORKER["bench"], _WORKER["parser"]
    with using_parser(parser) if parser is not None else nullcontext():
        return [_run_story(bench, story, timeout) for story in chunk]


def _run_pool(
    bench: Benchmark, spec: _Spec, stories: list[Story], workers: int, timeout: float | None
) -> Iterator[_Outcome]:
    methods = multiprocessing.get_all_start_methods()
    # fork starts a worker in milliseconds with the parent's imports and registrations.
    fork = "fork" in methods
    context = multiprocessing.get_context("fork" if fork else "spawn")
    if fork and stories and _can_alarm():
        # The first story runs here, before the fork: whatever the adapter and the parser load
        # on first use (spaCy's tables, a client) is then loaded once and inherited, not
        # loaded again by every worker (0.3 s of CPU each for the rules parser).
        # (The run's parser is already the ambient one here: ``evaluate`` chose it.)
        yield _run_story(bench, stories[0], timeout)
        stories = stories[1:]
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_worker_init, initargs=(spec,)
    ) as pool:
        futures = [pool.submit(_run_chunk, chunk, timeout) for chunk in _chunks(stories, workers)]
        for future in futures:  # in submission order: item order for the caller
            yield from future.result()


def _ray_chunk(spec: _Spec, chunk: list[Story], timeout: float | None) -> list[_Outcome]:
    if _WORKER.get("spec") != spec:  # a Ray worker process serves many tasks: build once
        _worker_init(spec)
        _WORKER["spec"] = spec
    return _run_chunk(chunk, timeout)


def _run_ray(
    spec: _Spec, stories: list[Story], workers: int, timeout: float | None
) -> Iterator[_Outcome]:
    try:
        import ray
    except ImportError:
        raise ConfigurationError(
            "backend='ray' needs Ray: pip install 'beliefgraph[ray]' (or use backend='process')"
        ) from None
    if not ray.is_initialized():
        address = os.environ.get("RAY_ADDRESS")
        # A local Ray gets exactly the CPUs asked for; a cluster brings its own.
        ray.init(
            address=address,
            num_cpus=None if address else workers,
            include_dashboard=False,
            log_to_driver=False,
        )
    remote = ray.remote(num_cpus=1)(_ray_chunk)
    refs = [remote.remote(spec, chunk, timeout) for chunk in _chunks(stories, workers)]
    for ref in refs:
        yield from ray.get(ref)


def _build(bench: Benchmark, item: Item) -> BeliefGraph | Exception:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unread sentences are reported in the trace
        try:
            return bench.build(item)
        except Exception as err:  # one story never stops the run; its trace says why
            return err


def _answer(
    bench: Benchmark, item: Item, graph: BeliefGraph | Exception, unparsed: tuple[str, ...]
) -> ItemResult:
    if isinstance(graph, Exception):
        return _unanswered(bench, item, f"the story could not be tracked: {_why(graph)}")
    try:
        result = bench.answer(item, graph)
    except Exception as err:  # as above: this item is wrong, with the reason
        result = _unanswered(bench, item, _why(err))
    return result.model_copy(update={"unparsed": unparsed}) if unparsed else result


def _unparsed(graph: BeliefGraph | Exception) -> tuple[str, ...]:
    """The sentences of the story its parser could not read (none for a story not tracked)."""
    if isinstance(graph, Exception):
        return ()
    return tuple(s.text for s in graph.story.unparsed)


def _why(err: Exception) -> str:
    # Our own errors explain themselves; anything else (a library's, a bug) shows its type.
    return str(err) if isinstance(err, BeliefGraphError) else f"{type(err).__name__}: {err}"


def _unanswered(bench: Benchmark, item: Item, reason: str) -> ItemResult:
    keys = {k: str(item.meta.get(k, "?")) for k in bench.breakdowns}
    return ItemResult(
        id=item.id,
        gold=item.answer,
        prediction=None,
        correct=False,
        explanation=(reason,),
        breakdown=keys,
    )


def _ambient_parser() -> str:
    """The name of the parser ``using_parser`` chose around the run, else ``default``."""
    chosen = current_parser()
    if chosen is None:
        return "default"
    return str(getattr(chosen, "name", type(chosen).__name__))


def _redact(key: str, value: Any) -> Any:
    return "***" if any(s in key.lower() for s in _SECRET) and value else value


# Built-in benchmark name -> the adapter module that registers it.
BUILTIN_ADAPTERS: dict[str, str] = {
    "bigtom": "bigtom",
    "commet": "commet",
    "dialtom": "dialtom",
    "dialtom-llm": "dialtom",
    "hitom": "hitom",
    "omnitom": "omnitom",
    "opentom": "opentom",
    "simpletom": "simpletom",
    "tomato": "tomato",
    "tomato-llm": "tomato",
    "tombench": "tombench",
    "tomi": "tomi",
}


def load_adapters(name: str | None = None) -> catalogue.Registry:
    """Register the built-in adapter of benchmark ``name`` (None: all of them); the registry.

    A run needs one adapter; importing all ten would load what each of them imports (the
    OmniToM tables, the dialogue typers' LLM schemas) for nothing. A name that is not built
    in (an entry point's, or a typo the error will list) loads them all.
    """
    module = BUILTIN_ADAPTERS.get(name) if name is not None else None
    for m in [module] if module is not None else sorted(set(BUILTIN_ADAPTERS.values())):
        importlib.import_module(f"beliefgraph.adapters.{m}")
    return benchmarks


def dump_summary(result: EvalResult, path: Path) -> None:
    """Write the summary JSON."""
    path.write_text(json.dumps(result.summary(), indent=2) + "\n", encoding="utf-8")
