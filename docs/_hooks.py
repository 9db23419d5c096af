"""mkdocs hooks: find the sources of every sub-package, and complete the nav.

1. The package maps ``beliefgraph.parsers|solvers|adapters`` to the top-level folders
   ``parsers/``, ``solvers/`` and ``adapters/`` (setuptools ``package-dir``), which griffe
   cannot follow. ``build/docs-src/beliefgraph/`` is assembled from symbolic links in the
   installed layout, and the mkdocstrings handler reads from there (``paths`` in mkdocs.yml).
2. The nav's "Adapters" section lists every ``docs/adapters/*.md`` (titled by its first
   heading), and a nav entry whose page does not exist yet is dropped, so pages can land in
   any order and ``mkdocs build --strict`` still passes.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STAGE = ROOT / "build" / "docs-src"
SUBPACKAGES = ("parsers", "solvers", "adapters")
GLOBBED = {"Adapters": "adapters"}


def on_config(config: Any, **kwargs: Any) -> Any:
    _stage()
    docs = Path(config["docs_dir"])
    config["nav"] = _complete(config["nav"], docs)
    return config


def _stage() -> None:
    package = STAGE / "beliefgraph"
    if package.exists():
        shutil.rmtree(package)
    package.mkdir(parents=True)
    for child in (ROOT / "beliefgraph").iterdir():
        if child.name != "__pycache__":
            (package / child.name).symlink_to(child)
    for name in SUBPACKAGES:
        (package / name).symlink_to(ROOT / name, target_is_directory=True)


def _complete(nav: list[Any], docs: Path) -> list[Any]:
    out: list[Any] = []
    for entry in nav:
        title, target = next(iter(entry.items())) if isinstance(entry, dict) else (None, entry)
        if title in GLOBBED:
            target = [
                {_title(page): page.relative_to(docs).as_posix()}
                for page in sorted((docs / GLOBBED[title]).glob("*.md"))
            ]
        elif isinstance(target, list):
            target = _complete(target, docs)
        elif not str(target).startswith(("http://", "https://")) and not (docs / target).is_file():
            continue
        if target:
            out.append({title: target} if title is not None else target)
    return out


def _title(page: Path) -> str:
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip().removesuffix(" adapter")
    return page.stem


_stage()  # before the handler first looks (mkdocs imports hooks while loading the config)
