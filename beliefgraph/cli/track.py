"""``beliefgraph track FILE``: the world facts and each actor's beliefs, and answers."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.console import Console
from rich.padding import Padding
from rich.table import Table

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
    from beliefgraph.graph import BeliefGraph

__all__ = ["beliefs_table", "track_command"]


def track_command(
    file: Annotated[str, typer.Argument(help="Story text file, or - for standard input.")],
    ask: Annotated[
        list[str] | None,
        typer.Option(
            "--ask",
            "-a",
            help="A question to answer (repeatable). Each is answered on its own: one that "
            "fails prints its error, the others still answer, and the exit code is 1.",
        ),
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the belief graph as JSON to this path.")
    ] = None,
    max_order: MaxOrder = 4,
    trust: Trust = "default",
    open_containers: OpenContainers = False,
    parser: Parser = None,
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
    llm_mode: LLMMode = None,
    batch_out: BatchOut = None,
    lenient: Lenient = False,
    table: Annotated[
        bool, typer.Option(help="Print the belief table (--no-table: only the answers).")
    ] = True,
    table_order: Annotated[
        int,
        typer.Option(
            help="The belief table lists chains to this order (a 5-actor story has 25 "
            "chains to order 2 but 425 to order 4); --max-order still sets what the graph, "
            "--json and --ask reach.",
        ),
    ] = 2,
    verbose: Verbose = False,
) -> None:
    """Track a story and print what everyone believes at its end."""
    from beliefgraph.errors import BeliefGraphError

    console = Console()
    failed = 0
    with reported(verbose):
        graph = track_text(
            read_text(file),
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
        if table:
            tab, legend = beliefs_table(
                graph, width=console.width, max_order=min(table_order, max_order)
            )
            console.print(tab)
            if legend:
                console.print(legend, highlight=False, style="dim")
        for question in ask or []:
            try:
                answer = graph.ask(question)
            except BeliefGraphError as err:
                failed += 1
                console.print(f"\n[bold]{question}[/]", highlight=False)
                error_console.print(f"  [bold red]error:[/] {err}", highlight=False)
                continue
            # None is the API's "cannot say"; a reader gets a word, not a Python value.
            value = "unknown" if answer.value is None else answer.value
            console.print(f"\n[bold]{question}[/]\n  [green]{value}[/]", highlight=False)
            for line in answer.explanation:  # wrapped lines stay under their bullet
                console.print(Padding(f"- {line}", (0, 0, 0, 2)), highlight=False)
        if json_out is not None:
            json_out.write_text(graph.to_json(indent=2), encoding="utf-8")
            console.print(f"\nwrote {json_out}")
    if failed:
        error_console.print(
            f"{failed} of {len(ask or [])} question(s) could not be answered", highlight=False
        )
        raise typer.Exit(code=1)


# Short forms for narrow terminals; the legend under the table spells them out.
_SHORT = {
    "True": "T",
    "False": "F",
    "Unknown": "?",
    "Private": "Priv",
    "Shared": "Shrd",
    "Public": "Pub",
    "Narration": "Narr",
    "Perception": "Perc",
    "Memory": "Mem",
    "Testimony": "Test",
    "Inference": "Infr",
    "Imagination": "Imag",
    "Neutral": "Neut",
    "Temporal": "Temp",
    "Deceptive": "Decp",
    "Counterfactual": "Cfac",
}
_LABELS = ("truth", "access", "source", "context")
_SHORT_HEADERS = {"truth": "T", "access": "acc", "source": "src", "context": "ctx"}
_BELIEF_MIN = 24


def beliefs_table(
    graph: BeliefGraph, *, width: int = 80, max_order: int | None = None
) -> tuple[Table, str]:
    """The end-of-story beliefs as a table that fits ``width`` columns, and its legend.

    Every column is always shown. When the labels spelled out do not fit, they are
    abbreviated (``F``, ``Priv``, ``Mem``, ...) and the returned legend spells the
    abbreviations out; otherwise the legend is empty. ``max_order`` limits the chains
    listed (default: the graph's own). The belief text and the event list
    wrap rather than being cut.

    Examples
    --------
    >>> from beliefgraph import track
    >>> g = track("Sally and Anne are in the room. Sally puts the ball in the basket. "
    ...           "Sally goes out. Anne moves the ball to the box.", max_order=1)
    >>> table, legend = beliefs_table(g, width=80)
    >>> [c.header for c in table.columns]
    ['holder', 'ord', 'belief', 'T', 'acc', 'src', 'ctx', 'from']
    >>> legend.startswith("T truth")
    True
    """
    from beliefgraph.explain import phrase_chain

    rows = []
    for b in graph.beliefs(max_order=max_order, at=graph.end):
        holder = phrase_chain(b.holders[:1]).removesuffix(" believes") if b.holders else "world"
        inner = " believes ".join(b.holders[1:])
        text = (inner + " believes " if inner else "") + b.proposition.render()
        labels = (b.truth_status, b.knowledge_access, b.mental_source, b.context)
        rows.append((holder, str(b.order), text, labels, ", ".join(map(str, b.provenance)), b))
    holder_w = max([len("holder"), *(min(len(r[0]), 14) for r in rows)])
    from_w = max([len("from"), *(min(len(r[4]), 8) for r in rows)])
    full_w = [max([len(h), *(len(r[3][i]) for r in rows)]) for i, h in enumerate(_LABELS)]
    # Column widths plus " │ " separators and the outer borders.
    needed = holder_w + len("order") + _BELIEF_MIN + sum(full_w) + from_w + 3 * 8 + 1
    compact = needed > width
    deepest = graph.max_order if max_order is None else max_order
    table = Table(
        title=f"Beliefs at the end of the story (to order {deepest})",
        box=box.SIMPLE_HEAD if compact else box.HEAVY_HEAD,
        padding=(0, 1),
        pad_edge=not compact,
        expand=False,
    )
    table.add_column("holder", overflow="fold")
    table.add_column("ord" if compact else "order", justify="right", no_wrap=True)
    table.add_column("belief", min_width=16 if compact else _BELIEF_MIN, ratio=1)
    for name in _LABELS:
        table.add_column(_SHORT_HEADERS[name] if compact else name, no_wrap=True)
    table.add_column("from", overflow="fold")
    for holder, order, text, labels, provenance, b in rows:
        shown = [_SHORT[v] if compact else v for v in labels]
        style = "red" if b.truth_status == "False" else None
        table.add_row(holder, order, text, *shown, provenance, style=style)
    legend = ""
    if compact:
        used = sorted({v for r in rows for v in r[3]}, key=list(_SHORT).index)
        legend = "T truth, acc access, src source, ctx context, from events: " + ", ".join(
            f"{_SHORT[v]}={v}" for v in used
        )
    return table, legend
