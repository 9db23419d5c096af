"""``beliefgraph eval BENCH --data PATH``: a benchmark's official score, traces and summary."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from .errors import reported
from .options import (
    BatchOut,
    LLMBaseURL,
    LLMMode,
    LLMModel,
    Parser,
    Verbose,
    parser_choice,
    readable_warnings,
)

if TYPE_CHECKING:
    from beliefgraph.adapters import EvalResult

__all__ = ["eval_command", "summary_table"]


def eval_command(
    bench: Annotated[str, typer.Argument(help="Benchmark: tomi, hitom, tombench, opentom, ...")],
    data: Annotated[Path, typer.Option(help="The released file or folder to score.")],
    limit: Annotated[int | None, typer.Option(help="Only the first N items.")] = None,
    stage: Annotated[
        int | None, typer.Option(help="For benchmarks with stages (OmniToM): which to score.")
    ] = None,
    mode: Annotated[
        str | None,
        typer.Option(help="BigToM / OpenToM: 'text' reads the story prose with --parser."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Write one JSON line per item (id, gold, prediction, ...).")
    ] = None,
    summary: Annotated[
        Path | None, typer.Option(help="Write the summary JSON (benchmark, n, accuracy, by, ...).")
    ] = None,
    parser: Parser = None,
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
    llm_mode: LLMMode = None,
    batch_out: BatchOut = None,
    direct: Annotated[
        bool,
        typer.Option(
            "--direct",
            help="OmniToM, BigToM, OpenToM, CoMMET, SimpleToM, ToMBench, ToMATO, DialToM: the "
            "same-model direct baseline (the paper's own prompts through the same LLM client "
            "and cache, scored by the same scorer; no graph).",
        ),
    ] = False,
    judge_fewshots: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=3,
            help="OmniToM Stage 1 LLM judge: worked examples sent (0-3; the paper's 3).",
        ),
    ] = None,
    lenient: Annotated[
        bool,
        typer.Option(
            "--lenient/--strict",
            help="A benchmark run always reads leniently, as evaluate() does: a sentence no "
            "rule reads is kept, the items of its story are still scored, and parse coverage "
            "counts it. --strict is refused (score with a template parse instead).",
        ),
    ] = True,
    workers: Annotated[
        int, typer.Option(help="Spread the stories over N processes (results are identical).")
    ] = 1,
    backend: Annotated[
        str, typer.Option(help="With --workers: 'process' (this machine) or 'ray' (a cluster).")
    ] = "process",
    story_timeout: Annotated[
        float,
        typer.Option(help="Seconds one story may take; a slower one is reported and skipped."),
    ] = 60.0,
    verbose: Verbose = False,
) -> None:
    """Score the tracker on a benchmark file; unanswerable items count as wrong."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from beliefgraph.adapters import dump_summary, evaluate
    from beliefgraph.adapters.harness import check_output_path
    from beliefgraph.errors import ConfigurationError

    console = Console()
    with reported(verbose):
        if not lenient:
            raise ConfigurationError(
                "eval always reads leniently (unread sentences are counted in parse "
                "coverage and their items still scored); drop --strict"
            )
        name, llm = parser_choice(
            parser, llm_base_url=llm_base_url, llm_model=llm_model, llm_mode=llm_mode,
            batch_out=batch_out,
        )  # fmt: skip
        for target in (out, summary):  # checked before the run, so no run is lost at the end
            if target is not None:
                check_output_path(target)
        columns = (
            *Progress.get_default_columns()[:1],
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with readable_warnings(), Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task(f"{bench}", total=None)
            settings: dict[str, object] = {"stage": stage} if stage is not None else {}
            if mode is not None:
                settings["mode"] = mode
            if direct:
                settings["direct"] = True
            if judge_fewshots is not None:
                settings["judge_fewshots"] = judge_fewshots
            result = evaluate(
                bench, data, limit=limit, on_item=lambda _: progress.advance(task),
                on_start=lambda n: progress.update(task, total=n),
                parser=name, parser_settings=llm or None, workers=workers,
                backend=backend, story_timeout=story_timeout, **settings,  # type: ignore[arg-type]
            )  # fmt: skip
        console.print(summary_table(result))
        if batch_out is not None and result.llm_deferred:
            from beliefgraph.parsers.llm.cache import batch_cache_path

            console.print(
                f"wrote {result.llm_deferred} LLM request(s) to {batch_out}; have a model "
                "answer them, then `beliefgraph llm import ANSWERS.jsonl --cache "
                f"{batch_cache_path(batch_out)}` and run this command again",
                highlight=False, soft_wrap=True,
            )  # fmt: skip
        for problem in result.problems[:10]:
            console.print(f"[yellow]not read:[/yellow] {problem}", markup=True, highlight=False)
        if len(result.problems) > 10:
            console.print(f"... and {len(result.problems) - 10} more (see --summary)")
        for item_id in result.timed_out:
            console.print(f"[yellow]timed out:[/yellow] the story of {item_id}", highlight=False)
        if out is not None:
            result.write_traces(out)
            console.print(f"wrote {result.n} traces to {out}")
        if summary is not None:
            dump_summary(result, summary)
            console.print(f"wrote the summary to {summary}")


def summary_table(result: EvalResult) -> Table:
    """The run as a table: overall figures, then every breakdown."""
    title = f"{result.benchmark}: {result.accuracy:.2%} of {result.n}"
    if result.headline != "accuracy":  # the benchmark's official metric leads
        title = (
            f"{result.benchmark}: {result.headline} {result.headline_value:.4f} "
            f"({result.accuracy:.2%} of {result.n} items right)"
        )
    table = Table(title=title)
    table.add_column("breakdown")
    table.add_column("key")
    table.add_column("n", justify="right")
    table.add_column("accuracy", justify="right")
    table.add_row("overall", "", str(result.n), f"{result.accuracy:.2%}")
    table.add_row("answered", "", str(result.answered), "")
    table.add_row("parse coverage", "", "", f"{result.parse_coverage:.2%}")
    table.add_row("records not read", "", str(len(result.problems)), "")
    if result.timed_out:
        table.add_row("stories timed out", "", str(len(result.timed_out)), "")
    for name, value in result.metrics.items():
        table.add_row(name, "", "", f"{value:.4f}")
    for name, keys in result.by().items():
        for key, cell in keys.items():
            table.add_row(name, key, str(cell["n"]), f"{cell['accuracy']:.2%}")
    table.caption = (
        f"{result.seconds:.2f} s, {result.n / max(result.seconds, 1e-9):.0f} items/s, "
        f"{result.llm_calls} LLM calls, parser {result.parser}"
    )
    return table
