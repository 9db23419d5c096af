"""Benchmark adapters: for each benchmark a loader, a graph builder and an answerer.

Each adapter module registers itself when imported. ``get_benchmark(name)`` (and so
``evaluate`` and ``load``) imports only the module of the benchmark asked for, so a ToMi run
does not load the other nine adapters and what they import; reading ``benchmarks`` from this
package imports them all, so its listing is complete.

>>> from beliefgraph.adapters import benchmarks
>>> "tomi" in benchmarks.get_all()
True
"""

from typing import Any

from .benchmark import Benchmark
from .choices import match_choice, normalise
from .harness import EvalResult, dump_summary, evaluate, get_benchmark, load
from .item import Item, ItemResult
from .loading import LoadedItems, LoadProblem

__all__ = [
    "Benchmark",
    "EvalResult",
    "Item",
    "ItemResult",
    "LoadProblem",
    "LoadedItems",
    "benchmarks",
    "dump_summary",
    "evaluate",
    "get_benchmark",
    "load",
    "match_choice",
    "normalise",
]


def __getattr__(name: str) -> Any:
    # ``benchmarks`` is the registry with every built-in adapter registered in it.
    if name == "benchmarks":
        from .harness import load_adapters

        return load_adapters()
    raise AttributeError(f"module 'beliefgraph.adapters' has no attribute {name!r}")
