"""``beliefgraph omnitom FILE``: a story's OmniToM tables (Stage 1 rows, Stage 2 labels)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from .errors import reported
from .io import read_text
from .options import (
    BatchOut,
    Lenient,
    LLMBaseURL,
    LLMMode,
    LLMModel,
    Parser,
    Verbose,
    parser_choice,
    readable_warnings,
    track_text,
)

__all__ = ["omnitom_command"]

# OmniToM's tables go to third order (what A thinks B thinks C believes); deeper chains
# have no row in the schema, so this is the adapter's depth rather than track()'s 4.
_OMNITOM_ORDER = 3


def omnitom_command(
    file: Annotated[str, typer.Argument(help="Story text file, or - for standard input.")],
    nested: Annotated[
        str, typer.Option(help="Nested rows: 'contested' (as the gold lists them), 'all', 'none'.")
    ] = "contested",
    truth: Annotated[
        str, typer.Option(help="Truth Status from 'graph', or the z3 'solver' ('auto': if usable).")
    ] = "graph",
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the rows as a release JSONL record here.")
    ] = None,
    parser: Parser = None,
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
    llm_mode: LLMMode = None,
    batch_out: BatchOut = None,
    lenient: Lenient = False,
    verbose: Verbose = False,
) -> None:
    """Print both OmniToM tables of a story: Stage 1 rows, then the seven labels of each.

    The Stage 1 table is the adapter's (``stage1_table``): the graph's rows, merged with the
    model's belief proposals when the story is read by the LLM parser (one more request,
    ``omnitom.beliefs.v1``, on the same endpoint, cache and batch file). Rows without the
    graph's labels (the proposals) are labelled as Stage 2 labels given rows (``label_rows``).
    """
    from beliefgraph.adapters.omnitom import Labeler, label_rows, pipe_table, to_record

    console = Console()
    with reported(verbose):
        text = read_text(file)
        graph = track_text(
            text,
            parser=parser,
            llm_base_url=llm_base_url,
            llm_model=llm_model,
            llm_mode=llm_mode,
            batch_out=batch_out,
            lenient=lenient,
            max_order=_OMNITOM_ORDER,
        )
        labeler = Labeler(graph, truth=truth)  # type: ignore[arg-type]
        with readable_warnings():
            table, note = _stage1(graph, labeler, nested, parser, llm_base_url, llm_model,
                                  llm_mode, batch_out)  # fmt: skip
            bare = [r for r in table.rows if r.labels is None]
            labelled = iter(
                [g.to_row() for g in label_rows(graph, bare, labeler=labeler, story=text)]
            )
        rows = [r if r.labels is not None else next(labelled) for r in table.rows]
        plain = {"soft_wrap": True, "markup": False, "highlight": False}
        console.print("[bold]Stage 1: belief extraction[/]")
        console.print(pipe_table(rows), **plain)
        if note:
            console.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)
        for why in table.rejected:
            console.print(f"left out: {why}", **plain)
        console.print("\n[bold]Stage 2: belief labels[/]")
        console.print(pipe_table(rows, labels=True), **plain)
        if json_out is not None:
            record = to_record(rows, story_id=0, story_category="", story=text.strip())
            json_out.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
            console.print(f"\nwrote {json_out}")


def _stage1(
    graph: Any,
    labeler: Any,
    nested: str,
    parser: str | None,
    llm_base_url: str | None,
    llm_model: str | None,
    llm_mode: str | None,
    batch_out: Path | None,
) -> tuple[Any, str | None]:
    """The Stage 1 table through ``stage1_table``, with a proposer over the LLM parser's
    endpoint when the story was read by it (none offline, as in ``evaluate``)."""
    from beliefgraph.adapters.omnitom import Proposer, stage1_table

    name, settings = parser_choice(
        parser, llm_base_url=llm_base_url, llm_model=llm_model, llm_mode=llm_mode,
        batch_out=batch_out,
    )  # fmt: skip
    proposer = None
    if name in ("llm", "auto"):
        from beliefgraph.parsers.llm import make_client

        proposer = Proposer(make_client(**settings))
    return stage1_table(graph, proposer=proposer, labeler=labeler, nested=nested)  # type: ignore[arg-type]
