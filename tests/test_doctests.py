"""Every docstring example in the installed package runs, so none goes stale."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest


def _modules() -> list[str]:
    # The sub-packages live in their own folders (package_dir), so walk each one.
    roots = ["beliefgraph", "beliefgraph.parsers", "beliefgraph.solvers", "beliefgraph.adapters"]
    names = list(roots)
    for root in roots:
        package = importlib.import_module(root)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{root}."):
            if ".cli" in info.name or info.name.endswith("__main__") or info.name in names:
                continue  # CLI modules are tested with typer's runner
            names.append(info.name)
    return names


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
