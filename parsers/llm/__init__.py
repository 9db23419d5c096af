"""The LLM-assisted parser: story or dialogue text to the same typed events, via an LLM.

Two registered parsers:

- ``llm`` (``beliefgraph.llm_parser.v1``): the whole text goes to the model;
- ``auto`` (``beliefgraph.auto_parser.v1``): the offline rules parser first, and only the
  sentences it cannot read go to the model, in one call.

Both emit the ``ParsedStory`` the offline parser emits; each event records the parser that
produced it (``Event.parser``). ``beliefgraph.track_dialogue`` builds the graph of a
conversation from these events.
Settings come from arguments or the environment (``BELIEFGRAPH_LLM_BASE_URL``,
``BELIEFGRAPH_LLM_MODEL``, ``OPENAI_API_KEY``, ``BELIEFGRAPH_LLM_MODE``); see ``docs/llm.md``.

Examples
--------
>>> from beliefgraph.registry import parsers
>>> {"llm", "auto"} <= set(parsers.get_all())
True
"""

import importlib
from typing import Any

from beliefgraph.registry import parsers

from .errors import (
    AnswerPending,
    LLMCacheError,
    LLMConfigurationError,
    LLMConnectionError,
    LLMError,
    LLMRequestError,
    LLMTimeoutError,
    ParserRetryExhausted,
    ReaskPending,
)

# instructor and openai take a while to import: the rest loads on first use, so importing
# beliefgraph.parsers (which registers these factories) stays cheap.
_LAZY = {
    "BatchResult": "batch",
    "aparse_batch": "batch",
    "parse_batch": "batch",
    "ImportReport": "batchfile",
    "export_pending": "batchfile",
    "import_results": "batchfile",
    "LLMCache": "cache",
    "LLMCacheWarning": "cache",
    "default_cache_path": "cache",
    "MODES": "client",
    "LLMClient": "client",
    "LLMSettings": "client",
    "make_client": "client",
    "LLMUsage": "usage",
    "Turn": "dialogue",
    "is_transcript": "dialogue",
    "parse_dialogue": "dialogue",
    "read_transcript": "dialogue",
    "AutoParser": "parser",
    "LLMParser": "parser",
    "LLMRepairWarning": "parser",
    "LLMSalvageWarning": "parser",
    "StoryParse": "schema",
    "max_concurrency": "transport",
    "set_max_concurrency": "transport",
    "PROMPT_VERSION": "templates",
}

__all__ = [
    "MODES",
    "PROMPT_VERSION",
    "AnswerPending",
    "AutoParser",
    "BatchResult",
    "ImportReport",
    "LLMCache",
    "LLMCacheError",
    "LLMCacheWarning",
    "LLMClient",
    "LLMConfigurationError",
    "LLMConnectionError",
    "LLMError",
    "LLMParser",
    "LLMRepairWarning",
    "LLMRequestError",
    "LLMSalvageWarning",
    "LLMSettings",
    "LLMTimeoutError",
    "LLMUsage",
    "ParserRetryExhausted",
    "ReaskPending",
    "StoryParse",
    "Turn",
    "aparse_batch",
    "default_cache_path",
    "export_pending",
    "import_results",
    "is_transcript",
    "make_auto_parser",
    "make_client",
    "make_llm_parser",
    "max_concurrency",
    "parse_batch",
    "parse_dialogue",
    "read_transcript",
    "set_max_concurrency",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@parsers.register("llm")
def make_llm_parser(**settings: Any) -> Any:
    """Build the LLM parser (``LLMParser``); ``settings`` are its keyword arguments."""
    from .parser import LLMParser

    return LLMParser(**settings)


@parsers.register("auto")
def make_auto_parser(**settings: Any) -> Any:
    """Build the rules-first parser (``AutoParser``); ``settings`` go to its LLM parser."""
    from .parser import AutoParser

    return AutoParser(**settings)


parsers.register("beliefgraph.llm_parser.v1", func=make_llm_parser)
parsers.register("beliefgraph.auto_parser.v1", func=make_auto_parser)
