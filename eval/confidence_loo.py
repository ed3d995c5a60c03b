"""The confidence model's leave-one-document-out figures: examples (one automatic cell each), the
fit ingest itself uses, and the report lines that eval/annotate_eval.py and eval/train_confidence.py
print.

Its own module so that both scripts use it without importing each other (`gold_examples`, which
needs the labelled documents' truth, lives in annotate_eval).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property

from ingest.analysis.confidence import DEFAULT_THRESHOLD, NONE_SURE, Model
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

    @cached_property
    def vector(self) -> tuple[float, ...]:
        """The features as the model's vector (computed once: the leave-one-out loops refit hundreds of times)."""
        return vector(self.features)


def as_examples(examples: list[Example]) -> Examples:
    """Plain vectors and labels (no text), in the order given."""
    gold = sum(e.source == "gold" for e in examples)
    x = tuple(e.vector for e in examples)
    return Examples(x, tuple(int(e.correct) for e in examples), gold, len(examples) - gold)


def fit(examples: list[Example], threshold: float = DEFAULT_THRESHOLD) -> Model:
    """Logistic regression over the features (the same fit ingest uses to refit on Review decisions)."""
    return fit_examples(as_examples(examples), threshold)


#: Confident cells must be right at least this often (issue 22).
TARGET = 0.95
#: `NONE_SURE` (ingest/analysis/confidence.py) is the threshold when no probability meets TARGET: nothing is confident.


def choose_threshold(pairs: list[tuple[Example, float]], target: float = TARGET) -> float:
    """The lowest probability at which the cells at or above it are right >= `target` of the time.

    Neutral: the set at or above a probability holds every cell with that probability, so the
    choice depends on the probabilities and labels only (not on cell order), and nothing prefers
    a declared value; `NONE_SURE` when no probability qualifies."""
    best = NONE_SURE
    for t in sorted({p for _, p in pairs}, reverse=True):
        sure = [e.correct for e, p in pairs if p >= t]
        if sum(sure) >= target * len(sure):
            best = min(best, t)
    return best


def nested_loo(examples: list[Example]) -> list[tuple[Example, float, float]]:
    """(cell, probability, threshold) for each labelled document's cells, where both the model and its
    threshold come from the other documents only (the threshold by a leave-one-out among them).

    The inner leave-one-out of document d leaves out {d, e}, as the one of e leaves out {e, d}: each set's
    model is fitted once (same examples in the same order, so the same model as fitting it twice)."""
    without = _fits_without(examples)
    out = []
    for doc in _gold_docs(examples):
        thr = choose_threshold(loo(examples, (doc,), without))
        model = replace(without(doc), threshold=thr)
        out += [(e, model.predict(e.features), thr) for e in examples if e.doc == doc]
    return out


def loo(
    examples: list[Example], held: tuple[str, ...] = (), without: Callable[..., Model] | None = None
) -> list[tuple[Example, float]]:
    """Each labelled document's cells (but those of the `held` documents) scored by a model fit on every
    other document and all reviews (and without the `held` documents)."""
    without = without or _fits_without(examples)
    return [(e, without(*held, doc).predict(e.features))
            for doc in _gold_docs(examples) if doc not in held for e in examples if e.doc == doc]  # fmt: skip


def _gold_docs(examples: list[Example]) -> list[str]:
    return sorted({e.doc for e in examples if e.source == "gold"})


def _fits_without(examples: list[Example]) -> Callable[..., Model]:
    """without(*docs) -> the model fitted on every example of the other documents, fitted once per set."""
    cache: dict[frozenset[str], Model] = {}

    def without(*docs: str) -> Model:
        key = frozenset(docs)
        if key not in cache:
            cache[key] = fit([e for e in examples if e.doc not in key])
        return cache[key]

    return without


def _share(flags: list[tuple[bool, bool]]) -> str:
    """'k/n confident, right r/k = x%; to review m/n = y%' of (confident, correct) flags."""
    n, sure = len(flags), [ok for c, ok in flags if c]
    k, r = len(sure), sum(sure)
    return (f"{k}/{n} cells confident, right {r}/{k} = {r / max(1, k):.1%}; to review {n - k}/{n} = "
            f"{(n - k) / max(1, n):.1%}")  # fmt: skip


def report(nested: list[tuple[Example, float, float]], model: Model, examples: list[Example]) -> list[str]:
    """Leave-one-document-out (model and threshold chosen without the document) beside in-sample, the
    trade-off curve on the leave-one-out probabilities, calibration bins and the Brier score."""
    n = len(nested)
    thr = sorted({t for _, _, t in nested})
    acc = sum(e.correct for e, _, _ in nested)
    brier = sum((p - e.correct) ** 2 for e, p, _ in nested) / max(1, n)
    lines = [
        f"confidence (leave-one-document-out; threshold chosen inside each fold as the lowest probability whose "
        f"confident cells are >= {TARGET:.0%} right, {thr[0]:.3f}-{thr[-1]:.3f}): "
        + _share([(p >= t, e.correct) for e, p, t in nested])
        + f"; all cells right {acc}/{n} = {acc / max(1, n):.1%}; Brier {brier:.3f}",
        f"confidence (in-sample: the committed model, threshold {model.threshold}, on the cells it was fit on): "
        + _share([(model.predict(e.features) >= model.threshold, e.correct) for e in examples]),
        "  trade-off (leave-one-document-out probabilities): threshold -> share to review, confident cells right",
    ]
    pairs = [(e, p) for e, p, _ in nested]
    for t in (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95):
        sure = [e.correct for e, p in pairs if p >= t]
        lines.append(f"    {t:.2f}: to review {1 - len(sure) / max(1, n):.1%}, confident right "
                     f"{sum(sure)}/{len(sure)} = {sum(sure) / max(1, len(sure)):.1%}")  # fmt: skip
    for lo, hi in ((0.0, 0.5), (0.5, 0.7), (0.7, 0.9), (0.9, 1.01)):
        b = [(e, p) for e, p in pairs if lo <= p < hi]
        if b:
            mean, ok = sum(p for _, p in b) / len(b), sum(e.correct for e, _ in b) / len(b)
            lines.append(f"  predicted {lo:.1f}-{min(hi, 1):.1f}: {len(b):>3} cells, mean {mean:.2f}, right {ok:.0%}")
    return lines


def held_out_sure(nested: list[tuple[Example, float, float]], target: float = TARGET) -> bool:
    """Whether "confident" means anything: some cells were at or above their fold's threshold, and those
    cells were right at least `target` of the time, leave-one-document-out (issue 33)."""
    sure = [e.correct for e, p, t in nested if p >= t]
    return bool(sure) and sum(sure) >= target * len(sure)


def final_model(examples: list[Example], nested: list[tuple[Example, float, float]] | None = None) -> Model:
    """The model to commit: fit on every example, threshold from their leave-one-document-out probabilities;
    with `nested` (`nested_loo`) whose confident cells miss the target, `NONE_SURE`: no cell is labelled
    confident, and Review is simply least sure first."""
    if nested is not None and not held_out_sure(nested):
        return fit(examples, NONE_SURE)
    return fit(examples, choose_threshold(loo(examples)))
