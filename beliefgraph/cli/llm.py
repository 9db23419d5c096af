"""``beliefgraph llm import|export``: answer a run's LLM requests through a batch file.

A run with ``--batch-out b.jsonl`` (or ``BELIEFGRAPH_LLM_BATCH_OUT``) writes the requests it
would send to ``b.jsonl`` in the OpenAI Batch API format; any model answers that file;
``beliefgraph llm import answers.jsonl`` validates and stores the answers in the cache, and
rerunning the same command replays them. ``export`` writes the requests still waiting.
"""

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from .errors import reported

__all__ = ["llm_app"]

llm_app = typer.Typer(
    name="llm",
    help="Batch files: import a model's answers into the LLM cache, export pending requests.",
    no_args_is_help=True,
)

_CACHE_HELP = (
    "The LLM cache file (default: BELIEFGRAPH_LLM_CACHE or the user cache folder). A run "
    "with --batch-out b.jsonl and no BELIEFGRAPH_LLM_CACHE keeps its cache beside the batch "
    "file: --cache b.cache.sqlite3."
)


def _cache(path: Path | None):  # type: ignore[no-untyped-def]
    from beliefgraph.parsers.llm import LLMCache, default_cache_path

    return LLMCache(path or default_cache_path())


@llm_app.command("import")
def import_command(
    results: Annotated[
        Path, typer.Argument(help="The Batch API's output file (JSONL), or any file like it.")
    ],
    cache: Annotated[Path | None, typer.Option(help=_CACHE_HELP)] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show tracebacks.")] = False,
) -> None:
    """Validate each answer against its request's schema and store it in the cache.

    Lines that cannot be stored are listed by line number and custom_id; the valid ones are
    stored whatever the others hold. Exit 1 when any line was not stored cleanly.
    """
    from beliefgraph.parsers.llm import import_results

    console = Console()
    with reported(verbose):
        report = import_results(results, _cache(cache))
    for line in report.lines():
        console.print(f"[yellow]{line}[/]", highlight=False, soft_wrap=True)
    console.print(
        f"stored {report.stored} answer(s); {len(report.failures)} failed their schema "
        f"(stored as failures); {len(report.problems)} line(s) not stored",
        highlight=False,
    )
    if not report.ok:
        raise typer.Exit(code=1)


@llm_app.command("export")
def export_command(
    out: Annotated[Path, typer.Argument(help="Where to write the batch input file (JSONL).")],
    cache: Annotated[Path | None, typer.Option(help=_CACHE_HELP)] = None,
    all_requests: Annotated[
        bool, typer.Option("--all", help="Every request ever written, answered or not.")
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show tracebacks.")] = False,
) -> None:
    """Write the batch requests that have no answer in the cache yet."""
    from beliefgraph.parsers.llm import export_pending

    with reported(verbose):
        n = export_pending(_cache(cache), out, all_requests=all_requests)
    Console().print(f"wrote {n} request(s) to {out}", highlight=False)
