"""A non-editable install gives a working package, sub-packages and CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_install_imports_and_runs_the_cli(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if build.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{build.stderr[-2000:]}")
    (wheel,) = wheels.glob("beliefgraph-*.whl")
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        timeout=600,
    )
    installed = {p.relative_to(target).as_posix() for p in target.rglob("*.py")}
    # Every source module must ship, under its beliefgraph.* name (package_dir mapping).
    mapping = {
        "beliefgraph": "beliefgraph",
        "parsers": "beliefgraph/parsers",
        "solvers": "beliefgraph/solvers",
        "adapters": "beliefgraph/adapters",
    }
    for folder, name in mapping.items():
        for src in (ROOT / folder).rglob("*.py"):
            rel = src.relative_to(ROOT / folder).as_posix()
            assert f"{name}/{rel}" in installed, f"{folder}/{rel} is missing from the wheel"
    assert not any(p.startswith(("parsers/", "solvers/", "adapters/")) for p in installed)
    # Data files ship too: the prompt templates and OmniToM's vendored release prompts.
    for data in (ROOT / "parsers" / "llm" / "prompts").glob("*.txt"):
        assert (target / "beliefgraph/parsers/llm/prompts" / data.name).is_file(), data.name
    for data in ("prompts.json", "LICENSE"):
        assert (target / "beliefgraph/adapters/omnitom/release" / data).is_file(), data

    env = {**os.environ, "PYTHONPATH": str(target)}
    probe = (
        "import beliefgraph, beliefgraph.parsers, beliefgraph.solvers, beliefgraph.adapters;"
        "print(beliefgraph.__file__);"
        "g = beliefgraph.track(open(r'%s').read());"
        "print(g.ask('Where will Sally look for the ball?').value)"
    ) % (ROOT / "examples" / "sally_anne.txt")
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    first, answer = out.stdout.split()
    assert Path(first).is_relative_to(target)
    assert answer == "basket"

    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "beliefgraph",
            "track",
            str(ROOT / "examples" / "sally_anne.txt"),
            "--ask",
            "Where will Sally look for the ball?",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert cli.returncode == 0, cli.stderr
    assert "basket" in cli.stdout
