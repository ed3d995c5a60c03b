"""Train the confidence model of the comparison cells and measure it leave-one-document-out.

    .venv/bin/python eval/train_confidence.py            # print the leave-one-document-out figures
    .venv/bin/python eval/train_confidence.py --write    # also write data/confidence.json and
                                                         # data/confidence_examples.json

Training examples, one per automatic cell: the cell's evidence features (ingest/analysis/
confidence.py) and whether the cell is right. They come from
* the labelled documents (../shared/labels/gold.yaml): right = the cell equals the gold label;
* every decision saved from the Review page (a report YAML's `curated:` block beside the stored
  annotation of that report, `--reports` / `--data-dir`): right = the curator kept the automatic
  value. So a decision saved in Review is a training example the next time this script runs.

The model is scikit-learn's LogisticRegression (log loss, L2; a calibrated probability). Its
coefficients go to data/confidence.json as plain JSON. The labelled documents' examples go to
data/confidence_examples.json as plain feature vectors and labels (no text), so an ingest run
refits the model on them plus that run's Review decisions (ingest/analysis/confidence_fit.py).
"Confident" means a probability at or above the model's threshold, which is fitted too: the lowest
probability at which the cells at or above it are right at least 95% of the time, read off
leave-one-document-out probabilities (so the threshold never sees the cells it is applied to).
Reported leave-one-document-out: for each labelled document the model is fit on the examples of
every other document, and its threshold chosen by a leave-one-document-out inside those other
documents, so a document's cells are never scored or thresholded by anything that saw them. The
in-sample figure (the committed model and threshold on the cells it was fit on) is printed beside
it, with the trade-off curve (threshold, share of cells to review, how often confident cells are right).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from annotate_eval import Doc, annotate_all, cell_truth, load_docs  # noqa: E402

from bench.results_log import recorded  # noqa: E402
from ingest.analysis.confidence import DEFAULT_THRESHOLD, MODEL_PATH, Model  # noqa: E402
from ingest.analysis.confidence_fit import EXAMPLES_PATH, Examples, same_value, vector  # noqa: E402
from ingest.analysis.confidence_fit import fit as fit_examples  # noqa: E402
from ingest.analysis.lens import DEFAULT_LENS, Lens, load_lens  # noqa: E402
from ingest.sources.registry import SpecFileError, load_report  # noqa: E402
from ingest.store.records import Annotation  # noqa: E402
from ingest.store.store import DEFAULT_DATA_DIR, Store  # noqa: E402


@dataclass(frozen=True)
class Example:
    """One automatic cell: its features, whether it was right, and where it came from."""

    doc: str
    dim: str
    features: dict[str, float]
    correct: bool
    source: str  # "gold" | "review"


def gold_examples(docs: list[Doc], res: dict[str, Annotation], lens: Lens) -> list[Example]:
    truth = cell_truth(docs, res, lens)
    out = []
    for (doc, dim), ok in sorted(truth.items()):
        feats = res[doc].cells[dim].features
        if feats is not None:
            out.append(Example(doc, dim, feats, ok, "gold"))
    return out


def review_examples(reports: Path, data_dir: Path, lens: Lens) -> list[Example]:
    """Curated cells of every report YAML whose stored annotation has features for that cell."""
    out: list[Example] = []
    if not reports.is_dir() or not data_dir.is_dir():
        return out
    store = Store(data_dir)
    for path in sorted(reports.glob("*.yaml")):
        if path.name.startswith("_"):
            continue
        try:
            spec = load_report(path)
            bundle = store.load_bundle(spec.id)
        except (SpecFileError, OSError, ValueError):
            continue  # one bad file never stops the run
        ann = bundle.annotation if bundle is not None else None
        if ann is None or ann.lens != lens.id:
            continue
        for dim, cur in spec.curated.items():
            cell = ann.cells.get(dim)
            if cell is None or cell.features is None:
                continue
            same = same_value(cur.values, cell.value)
            out.append(Example(f"review:{spec.id}", dim, cell.features, same, "review"))
    return out


def as_examples(examples: list[Example]) -> Examples:
    """Plain vectors and labels (no text), in the order given."""
    gold = sum(e.source == "gold" for e in examples)
    x = tuple(vector(e.features) for e in examples)
    return Examples(x, tuple(int(e.correct) for e in examples), gold, len(examples) - gold)


def fit(examples: list[Example], threshold: float = DEFAULT_THRESHOLD) -> Model:
    """Logistic regression over the features (the same fit ingest uses to refit on Review decisions)."""
    return fit_examples(as_examples(examples), threshold)


#: Confident cells must be right at least this often (issue 22).
TARGET = 0.95
#: The threshold when no probability meets TARGET: (almost) nothing is confident.
NONE_SURE = 0.999


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
    threshold come from the other documents only (the threshold by a leave-one-out among them)."""
    out = []
    for doc in sorted({e.doc for e in examples if e.source == "gold"}):
        rest = [e for e in examples if e.doc != doc]
        thr = choose_threshold(loo(rest))
        model = fit(rest, thr)
        out += [(e, model.predict(e.features), thr) for e in examples if e.doc == doc]
    return out


def loo(examples: list[Example]) -> list[tuple[Example, float]]:
    """Each labelled document's cells scored by a model fit on every other document (and all reviews)."""
    out = []
    for doc in sorted({e.doc for e in examples if e.source == "gold"}):
        model = fit([e for e in examples if e.doc != doc])
        out += [(e, model.predict(e.features)) for e in examples if e.doc == doc]
    return out


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


def final_model(examples: list[Example]) -> Model:
    """The model to commit: fit on every example, threshold from their leave-one-document-out probabilities."""
    return fit(examples, choose_threshold(loo(examples)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lens", type=Path, default=DEFAULT_LENS)
    ap.add_argument("--reports", type=Path, default=ROOT / "reports")
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR, help="the store with the reports' annotations")
    ap.add_argument("--write", action="store_true", help=f"write the model to {MODEL_PATH}")
    args = ap.parse_args(argv)
    lens = load_lens(args.lens)
    docs = load_docs()
    res, _ = annotate_all(docs, lens)
    examples = gold_examples(docs, res, lens) + review_examples(args.reports, args.data_dir, lens)
    print(f"training examples: {sum(e.source == 'gold' for e in examples)} cells of labelled documents, "
          f"{sum(e.source == 'review' for e in examples)} review decisions")  # fmt: skip
    model = final_model(examples)
    print("\n".join(report(nested_loo(examples), model, examples)))
    if args.write:
        MODEL_PATH.write_text(json.dumps(model.to_json(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_PATH.relative_to(ROOT)} (model {model.fingerprint})")
        # Only the labelled documents' examples ship: a run adds its own Review decisions itself.
        shipped = as_examples([e for e in examples if e.source == "gold"])
        EXAMPLES_PATH.write_text(json.dumps(shipped.to_json(), separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"wrote {EXAMPLES_PATH.relative_to(ROOT)} ({len(shipped.y)} examples)")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
