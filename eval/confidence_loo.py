"""The confidence model's leave-one-document-out figures: examples (one automatic cell each), the
fit ingest itself uses, and the report lines that eval/annotate_eval.py and eval/train_confidence.py
print.

Its own module so that both scripts use it without importing each other (`gold_examples`, which
needs the labelled documents' truth, lives in annotate_eval).
"""

from __future__ import annotations

from dataclasses import dataclass

from ingest.analysis.confidence import DEFAULT_THRESHOLD, Model
from ingest.analysis.confidence_fit import Examples, vector
from ingest.analysis.confidence_fit import fit as fit_examples


@dataclass(frozen=True)
class Example:
    """One automatic cell: its features, whether it was right, and where it came from."""

    doc: str
    dim: str
    features: dict[str, float]
    correct: bool
    source: str  # "gold" | "review"


def as_examples(examples: list[Example]) -> Examples:
    """Plain vectors and labels (no text), in the order given."""
    gold = sum(e.source == "gold" for e in examples)
    x = tuple(vector(e.features) for e in examples)
    return Examples(x, tuple(int(e.correct) for e in examples), gold, len(examples) - gold)


def fit(examples: list[Example], threshold: float = DEFAULT_THRESHOLD) -> Model:
    """Logistic regression over the features (the same fit ingest uses to refit on Review decisions)."""
    return fit_examples(as_examples(examples), threshold)


def loo(examples: list[Example]) -> list[tuple[Example, float]]:
    """Each labelled document's cells scored by a model fit on every other document (and all reviews)."""
    out = []
    for doc in sorted({e.doc for e in examples if e.source == "gold"}):
        model = fit([e for e in examples if e.doc != doc])
        out += [(e, model.predict(e.features)) for e in examples if e.doc == doc]
    return out


def report(pairs: list[tuple[Example, float]], threshold: float) -> list[str]:
    """Share of cells confident, how often confident cells are right, review share, Brier score."""
    n = len(pairs)
    conf = [(e, p) for e, p in pairs if p >= threshold]
    right = sum(e.correct for e, _ in conf)
    acc = sum(e.correct for e, _ in pairs)
    brier = sum((p - e.correct) ** 2 for e, p in pairs) / n if n else 0.0
    lines = [
        f"confidence (leave-one-document-out, threshold {threshold}): {len(conf)}/{n} cells confident, "
        f"right {right}/{len(conf)} = {right / max(1, len(conf)):.1%}; to review {n - len(conf)}/{n} = "
        f"{(n - len(conf)) / max(1, n):.1%}; all cells right {acc}/{n} = {acc / max(1, n):.1%}; Brier {brier:.3f}"
    ]
    for lo, hi in ((0.0, 0.5), (0.5, 0.7), (0.7, 0.9), (0.9, 1.01)):
        b = [(e, p) for e, p in pairs if lo <= p < hi]
        if b:
            mean, ok = sum(p for _, p in b) / len(b), sum(e.correct for e, _ in b) / len(b)
            lines.append(f"  predicted {lo:.1f}-{min(hi, 1):.1f}: {len(b):>3} cells, mean {mean:.2f}, right {ok:.0%}")
    return lines
