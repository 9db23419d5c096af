"""``beliefgraph check FILE``: whether a story or a saved graph is consistent, and why not."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from .errors import error_console, reported
from .io import read_text
from .options import (
    BatchOut,
    Lenient,
    LLMBaseURL,
    LLMMode,
    LLMModel,
    MaxOrder,
    OpenContainers,
    Parser,
    Trust,
    Verbose,
    track_text,
)

if TYPE_CHECKING:
    from beliefgraph.solvers.consistency import ConsistencyReport

__all__ = ["check_command"]


def check_command(
    ctx: typer.Context,
    file: Annotated[
        str,
        typer.Argument(help="Story text, a graph JSON (track --json), or - for standard input."),
    ],
    without: Annotated[
        list[str] | None,
        typer.Option(
            "--without",
            "-x",
            help="Switch an axiom off (repeatable), e.g. unique_location, factive, "
            "persistence; an unknown name lists them all. Its conflicts then go unreported.",
        ),
    ] = None,
    max_order: MaxOrder = 4,
    max_conflicts: Annotated[int, typer.Option(help="Stop after this many conflicts.")] = 10,
    trust: Trust = "default",
    open_containers: OpenContainers = False,
    parser: Parser = None,
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
    llm_mode: LLMMode = None,
    batch_out: BatchOut = None,
    lenient: Lenient = False,
    verbose: Verbose = False,
) -> None:
    """Check a story's beliefs against the consistency axioms; exit 1 when they clash.

    For a graph JSON, --max-order, the parser and trust options are those it was saved with.
    """
    from beliefgraph.graph import BeliefGraph
    from beliefgraph.solvers.consistency import check

    console = Console()
    with reported(verbose):
        text = read_text(file)
        if text.lstrip().startswith("{"):
            graph = BeliefGraph.from_json(text)
            order = None
            _warn_unused(ctx, file)
        else:
            graph = track_text(
                text,
                parser=parser,
                llm_base_url=llm_base_url,
                llm_model=llm_model,
                llm_mode=llm_mode,
                batch_out=batch_out,
                lenient=lenient,
                max_order=max_order,
                trust=trust,
                open_containers=open_containers,
            )
            order = max_order
        report = check(graph, without=without or (), max_order=order, max_conflicts=max_conflicts)
        _print(console, report)
    if not report.consistent:
        raise typer.Exit(code=1)


# The options that shape how a story is read; a saved graph was read already.
_STORY_OPTIONS = (
    "max_order", "trust", "open_containers", "parser", "llm_base_url", "llm_model",
    "llm_mode", "batch_out", "lenient",
)  # fmt: skip


def _warn_unused(ctx: typer.Context, file: str) -> None:
    """Warn about story options given with a saved graph: they cannot change it, and
    ignoring them silently would let a user believe they did."""
    given = [
        "--" + name.replace("_", "-")
        for name in _STORY_OPTIONS
        # Typer carries its own click, so the source is told by name, not by class.
        if getattr(ctx.get_parameter_source(name), "name", None) in ("COMMANDLINE", "ENVIRONMENT")
    ]
    if given:
        error_console.print(
            f"[yellow]warning:[/] {file} is a saved graph: {', '.join(given)} "
            f"{'does' if len(given) == 1 else 'do'} not apply to it (it keeps the settings it "
            "was saved with)",
            highlight=False,
            soft_wrap=True,
        )


def _print(console: Console, report: ConsistencyReport) -> None:
    if report.consistent:
        console.print(f"[bold green]{report.explain()}[/]", highlight=False)
    else:
        console.print(f"[bold red]inconsistent[/]: {len(report.conflicts)} conflict(s)")
        for i, c in enumerate(report.conflicts, 1):
            console.print(f"\n[bold]{i}.[/] {c.explanation}", highlight=False)
            console.print(f"   axioms: {', '.join(c.axioms) or 'none'}", highlight=False)
            for line in c.sentences:
                console.print(f"   - {line}", highlight=False)
        if not report.complete:
            console.print("\n(more conflicts may remain: raise --max-conflicts)")
    if report.unchecked:
        console.print(f"{len(report.unchecked)} belief(s) could not be encoded and were skipped.")
