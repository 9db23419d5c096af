"""Shared fixtures: where the benchmark data lives, and skipping when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def benchmarks_dir() -> Path:
    """``$BELIEFGRAPH_BENCHMARKS``, else ``../shared/benchmarks`` beside the checkout."""
    env = os.environ.get("BELIEFGRAPH_BENCHMARKS")
    return Path(env) if env else ROOT.parent / "shared" / "benchmarks"


@pytest.fixture
def benchmarks() -> Path:
    path = benchmarks_dir()
    if not path.is_dir():
        pytest.skip(f"benchmark data not found at {path} (set BELIEFGRAPH_BENCHMARKS)")
    return path
