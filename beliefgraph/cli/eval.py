"""``beliefgraph eval BENCH --data PATH``: a benchmark's official score, traces and summary."""

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

from beliefgraph.adapters import EvalResult, dump_summary, evaluate, load

from .errors import reported

__all__ = ["eval_command"]


def eval_command(
    bench: Annotated[str, typer.Argument(help="Benchmark: tomi, hitom, tombench, opentom, ...")],
    data: Annotated[Path, typer.Option(help="The released file or folder to score.")],
    limit: Annotated[int | None, typer.Option(help="Only the first N items.")] = None,
    stage: Annotated[
        int | None, typer.Option(help="For benchmarks with stages (OmniToM): which to score.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Write one JSON line per item (id, gold, prediction, ...).")
    ] = None,
    summary: Annotated[
        Path | None, typer.Option(help="Write the summary JSON (benchmark, n, accuracy, by, ...).")
    ] = None,
    parser: Annotated[
        str | None,
        typer.Option(help="Parse stories with this parser: rules, llm, or auto (rules, then LLM)."),
    ] = None,
    llm_base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint (or BELIEFGRAPH_LLM_BASE_URL).")
    ] = None,
    llm_model: Annotated[
        str | None, typer.Option(help="Model name at that endpoint (or BELIEFGRAPH_LLM_MODEL).")
    ] = None,
    llm_mode: Annotated[
        str | None, typer.Option(help="tools (default) or json_object for servers without tools.")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show tracebacks.")] = False,
) -> None:
    """Score the tracker on a benchmark file; unanswerable items count as wrong."""
    console = Console()
    with reported(verbose):
        total = len(load(bench, data))
        total = min(total, limit) if limit is not None else total
        columns = (
            *Progress.get_default_columns()[:1],
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task(f"{bench}", total=total)
            settings = {"stage": stage} if stage is not None else {}
            llm = {"base_url": llm_base_url, "model": llm_model, "mode": llm_mode}
            llm = {k: v for k, v in llm.items() if v is not None}
            if llm and parser is None:
                parser = "llm"  # naming an endpoint means using it
            result = evaluate(
                bench, data, limit=limit, on_item=lambda _: progress.advance(task),
                parser=parser, parser_settings=llm or None, **settings,
            )  # fmt: skip
        console.print(summary_table(result))
        if out is not None:
            result.write_traces(out)
            console.print(f"wrote {result.n} traces to {out}")
        if summary is not None:
            dump_summary(result, summary)
            console.print(f"wrote the summary to {summary}")


def summary_table(result: EvalResult) -> Table:
    """The run as a table: overall figures, then every breakdown."""
    table = Table(title=f"{result.benchmark}: {result.accuracy:.2%} of {result.n}")
    table.add_column("breakdown")
    table.add_column("key")
    table.add_column("n", justify="right")
    table.add_column("accuracy", justify="right")
    table.add_row("overall", "", str(result.n), f"{result.accuracy:.2%}")
    table.add_row("answered", "", str(result.answered), "")
    table.add_row("parse coverage", "", "", f"{result.parse_coverage:.2%}")
    for name, value in result.metrics.items():
        table.add_row(name, "", "", f"{value:.4f}")
    for name, keys in result.by().items():
        for key, cell in keys.items():
            table.add_row(name, key, str(cell["n"]), f"{cell['accuracy']:.2%}")
    table.caption = (
        f"{result.seconds:.2f} s, {result.n / max(result.seconds, 1e-9):.0f} items/s, "
        f"{result.llm_calls} LLM calls"
    )
    return table
