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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from annotate_eval import annotate_all, gold_examples, load_docs  # noqa: E402
from confidence_loo import Example, as_examples, final_model, nested_loo, report  # noqa: E402

from bench.results_log import recorded  # noqa: E402
from ingest.analysis.confidence import MODEL_PATH  # noqa: E402
from ingest.analysis.confidence_fit import EXAMPLES_PATH, same_value  # noqa: E402
from ingest.analysis.lens import DEFAULT_LENS, Lens, load_lens  # noqa: E402
from ingest.sources.registry import SpecFileError, load_report  # noqa: E402
from ingest.store.store import DEFAULT_DATA_DIR, Store  # noqa: E402


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
    nested = nested_loo(examples)
    model = final_model(examples, nested)
    print("\n".join(report(nested, model, examples)))
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
