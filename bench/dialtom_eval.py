"""DialToM tables as the paper prints them, the length-only baseline beside every figure.

Table 3: correctness rate per domain, retrospective and prospective (hard); Table 7:
prospective-easy; Table 5: retrospective per attribute; Table 8: NOTA rate on counterfactual
profiles (with the rate at which the same rule wrongly says NOTA on the real profiles);
Table 6: BLEU, ROUGE-L and embedding similarity of the written inferences against the
human references (the offline writer, and the verified MCQ inference as the paper's GPT-4o
reference row); then the malformed records met and how they were handled.

Run::

    python bench/dialtom_eval.py --data ../shared/benchmarks/dialtom [--no-embeddings]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from beliefgraph.adapters import evaluate
from beliefgraph.adapters.dialtom import ATTRIBUTES, DOMAINS
from beliefgraph.adapters.harness import EvalResult
from beliefgraph.adapters.text_metrics import EmbeddingSimilarity


def _acc(result: EvalResult, breakdown: str, key: str) -> tuple[str, int]:
    cell = result.by().get(breakdown, {}).get(key)
    return ("-", 0) if cell is None else (f"{100 * cell['accuracy']:.1f}", int(cell["n"]))


def _metric(result: EvalResult, name: str, scale: float = 100.0, digits: int = 1) -> str:
    value = result.metrics.get(name)
    return "-" if value is None else f"{scale * value:.{digits}f}"


def tables(r: EvalResult) -> str:
    out = ["### Correctness rate per task and domain (Tables 3 and 7)", ""]
    out += ["| task | domain | n | tracker | length baseline |", "|---|---|---|---|---|"]
    for task in ("retrospective", "prospective", "prospective-easy"):
        for domain in DOMAINS:
            key = f"{task}/{domain}"
            acc, n = _acc(r, "task_domain", key)
            if n:
                base = _metric(r, f"length_baseline.task_domain.{key}")
                out.append(f"| {task} | {domain} | {n} | {acc} | {base} |")
    out += ["", "### Retrospective per attribute (Table 5)", ""]
    out += ["| attribute | n | tracker | length baseline |", "|---|---|---|---|"]
    for attr in ATTRIBUTES:
        acc, n = _acc(r, "task_attribute", f"retrospective/{attr}")
        base = _metric(r, f"length_baseline.task_attribute.retrospective/{attr}")
        out.append(f"| {attr} | {n} | {acc} | {base} |")
    out += ["", "### NOTA on counterfactual profiles (Table 8)", ""]
    out += ["| domain | n | NOTA rate | false NOTA on real profiles (hard) | length baseline |"]
    out += ["|---|---|---|---|---|"]
    for domain in DOMAINS:
        acc, n = _acc(r, "task_domain", f"counterfactual/{domain}")
        if n:
            alarm = _metric(r, f"nota_false_alarm.task_domain.prospective/{domain}")
            out.append(f"| {domain} | {n} | {acc} | {alarm} | 0.0 (never NOTA) |")
    out += ["", "### Written inferences against the human references (Table 6)", ""]
    out += ["| writer | domain | BLEU | ROUGE-L | embedding cosine |", "|---|---|---|---|---|"]
    for name, label in (("written", "offline writer"), ("written_gold_option", "gold option")):
        for domain in ("", *DOMAINS):
            suffix = f".{domain}" if domain else ""
            bleu = _metric(r, f"{name}.bleu{suffix}", 1.0, 2)
            if bleu == "-":
                continue
            rouge = _metric(r, f"{name}.rouge_l{suffix}", 1.0, 3)
            emb = _metric(r, f"{name}.embedding{suffix}", 1.0, 3)
            out.append(f"| {label} | {domain or 'all'} | {bleu} | {rouge} | {emb} |")
    repairs = {k: v for k, v in r.metrics.items() if k.startswith("malformed.")}
    if repairs:
        out += ["", "### Malformed records", "", "| kind | count |", "|---|---|"]
        out += [f"| {k.split('.', 1)[1]} | {int(v)} |" for k, v in sorted(repairs.items())]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="A DialToM file or folder.")
    parser.add_argument("--no-embeddings", action="store_true", help="Skip the embedding figure.")
    parser.add_argument("--out", type=Path, help="Write the markdown tables here too.")
    args = parser.parse_args()
    embeddings = not args.no_embeddings
    if embeddings and not EmbeddingSimilarity.available():
        print(EmbeddingSimilarity.unavailable_reason())
    text = tables(evaluate("dialtom", args.data, embeddings=embeddings))
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
