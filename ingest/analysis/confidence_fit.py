"""Refit the confidence model at ingest time, so a decision saved in Review trains it on the next run.

Why here and not only in eval/train_confidence.py: the issue asks that a Review decision become a
training example *on the next run*, without anyone rerunning the training script. The training
script ships its labelled examples as plain feature vectors and labels (no text, no pickle) in
`data/confidence_examples.json`; a run whose reports folder holds curated cells beside stored
automatic cells fits the same logistic regression on those examples plus one example per such
decision (right = the curator kept the automatic value) and scores this run's cells with it.

The fitted model's fingerprint includes a digest of its examples, so the annotation key (and with
it every stored cell's confidence) changes when the examples change. scikit-learn is imported
only when there is something to refit (a cold ingest without Review decisions stays light).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ingest.analysis.confidence import DEFAULT_THRESHOLD, FEATURES, Model, load_model, parse_model
from ingest.analysis.lens import Lens
from ingest.common.atomic import atomic_write_bytes, dumps
from ingest.common.records import Bundle
from ingest.sources.schema import ReportSpec

if TYPE_CHECKING:  # imported by the fit only: every run imports this module, few refit
    from threadpoolctl import ThreadpoolController

EXAMPLES_PATH = Path(__file__).resolve().parents[2] / "data" / "confidence_examples.json"
#: A kept refit is a few hundred bytes; anything far larger is not one.
MAX_CACHE_BYTES = 1 << 16
MAX_EXAMPLES_BYTES = 5_000_000
MAX_EXAMPLES = 20_000
#: Inverse L2 strength: strong regularisation, since a few hundred examples from a few dozen documents.
C = 0.5


class Bundles(Protocol):
    """Where the stored bundles come from (the store, passed in by the driver: analysis does not import it)."""

    def load_bundle(self, report_id: str) -> Bundle | None: ...


@dataclass(frozen=True)
class Examples:
    """Training examples as plain vectors over `FEATURES` and labels (1 = the cell was right)."""

    x: tuple[tuple[float, ...], ...] = ()
    y: tuple[int, ...] = ()
    gold: int = 0  # how many came from the labelled documents
    review: int = 0  # how many from Review decisions

    def __add__(self, other: Examples) -> Examples:
        return Examples(self.x + other.x, self.y + other.y, self.gold + other.gold, self.review + other.review)

    @property
    def digest(self) -> str:
        blob = json.dumps([self.x, self.y], separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:12]

    def to_json(self) -> dict:
        return {"features": list(FEATURES), "rows": [list(r) for r in self.x], "labels": list(self.y)}


def vector(feats: dict[str, float]) -> tuple[float, ...]:
    """A cell's stored features as a vector over `FEATURES` (missing ones are 0)."""
    return tuple(round(float(feats.get(f, 0.0)), 4) for f in FEATURES)


def parse_examples(data: object) -> Examples:
    """Shipped examples from untrusted JSON: the same feature list, finite numbers, labels 0/1."""
    if not isinstance(data, dict) or data.get("features") != list(FEATURES):
        raise ValueError("confidence examples: missing, or for another feature list")
    rows, labels = data.get("rows"), data.get("labels")
    if not isinstance(rows, list) or not isinstance(labels, list) or len(rows) != len(labels) or len(rows) > MAX_EXAMPLES:
        raise ValueError("confidence examples: `rows` and `labels` must be lists of the same length")
    x = []
    for r in rows:
        ok = isinstance(r, list) and len(r) == len(FEATURES)
        if not ok or not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in r):
            raise ValueError("confidence examples: a row is not a vector of finite numbers")
        x.append(tuple(float(v) for v in r))
    if any(v not in (0, 1) or isinstance(v, bool) for v in labels):
        raise ValueError("confidence examples: labels must be 0 or 1")
    return Examples(tuple(x), tuple(int(v) for v in labels), gold=len(x))


@lru_cache(maxsize=4)
def _load(path: str, mtime: float, size: int) -> Examples | None:
    if size > MAX_EXAMPLES_BYTES:
        return None
    try:
        return parse_examples(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def load_examples(path: Path = EXAMPLES_PATH) -> Examples | None:
    """The shipped examples (memoised on mtime and size); None when absent, too large or malformed."""
    try:
        st = path.stat()
    except OSError:
        return None
    return _load(str(path), st.st_mtime, st.st_size)


def same_value(curated: Iterable[str], auto: Iterable[str]) -> bool:
    """Did the curator keep the automatic value (case and surrounding space aside)?"""
    return {v.lower().strip() for v in curated} == {v.lower().strip() for v in auto}


def review_examples(specs: Iterable[ReportSpec], store: Bundles, lens: Lens) -> Examples:
    """One example per curated cell whose report has a stored automatic cell with features (this lens)."""
    x: list[tuple[float, ...]] = []
    y: list[int] = []
    for spec in sorted(specs, key=lambda s: s.id):
        if not spec.curated:
            continue
        try:
            bundle = store.load_bundle(spec.id)
        except (OSError, ValueError):
            continue  # one unreadable bundle never stops the run
        ann = bundle.annotation if bundle is not None else None
        if ann is None or ann.lens != lens.id:
            continue
        for dim, cur in sorted(spec.curated.items()):
            cell = ann.cells.get(dim)
            if cell is None or cell.features is None:
                continue
            x.append(vector(cell.features))
            y.append(int(same_value(cur.values, cell.value)))
    return Examples(tuple(x), tuple(y), review=len(x))


@lru_cache(maxsize=1)
def _blas_threads() -> ThreadpoolController:
    """The loaded BLAS/OpenMP libraries, found once: `threadpool_limits` searches them on every call,
    a share of every fit in the evals' leave-one-out loops (hundreds of fits)."""
    from sklearn.linear_model import LogisticRegression  # noqa: F401  (loads the libraries to control)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def fit(ex: Examples, threshold: float = DEFAULT_THRESHOLD) -> Model:
    """Logistic regression over `FEATURES` (a constant model when every example has one label).

    lbfgs on a fixed data order is deterministic: the same examples give the same coefficients."""
    trained = {"gold": ex.gold, "review": ex.review}
    if len(set(ex.y)) < 2:
        p = min(0.999, max(0.001, sum(ex.y) / max(1, len(ex.y))))
        return Model({}, round(math.log(p / (1 - p)), 5), threshold, trained)
    # deferred: only fitting needs scikit-learn, over 2 s of CPU at import (bench/import_costs.py)
    from sklearn.linear_model import LogisticRegression

    # one BLAS thread: a few hundred rows fit ~10x faster than with threads fighting for shared cores
    with _blas_threads().limit(limits=1):
        clf = LogisticRegression(C=C, max_iter=2000).fit([list(r) for r in ex.x], list(ex.y))
    coef = {f: round(float(w), 5) for f, w in zip(FEATURES, clf.coef_[0], strict=True)}
    return Model(coef, round(float(clf.intercept_[0]), 5), threshold, trained)


def run_model(
    specs: Iterable[ReportSpec], store: Bundles, lens: Lens | None, path: Path = EXAMPLES_PATH, cache: Path | None = None
) -> Model:
    """The model this run scores cells with: the committed one, refitted on the shipped examples plus
    the Review decisions when there are any (and the shipped examples are readable).

    With `cache` (a file), a refit is kept there under the digest of its examples and threshold, so a
    run whose decisions did not change reads the model back instead of importing scikit-learn and
    fitting again (the same examples give the same fit)."""
    base = load_model()
    if lens is None:
        return base
    review = review_examples(specs, store, lens)
    if not review.y:  # (the shipped examples are read only for a refit: 0.02 s of JSON checks per run)
        return base
    shipped = load_examples(path)
    if shipped is None:
        return base
    both = shipped + review
    key = f"{both.digest}|{base.threshold}|{','.join(FEATURES)}"
    kept = _cached(cache, key)
    if kept is not None:
        return replace(kept, examples=both.digest)
    model = fit(both, base.threshold)
    if cache is not None:
        with suppress(OSError):  # a read-only data folder: the next run fits again
            atomic_write_bytes(cache, dumps({"key": key, "model": model.to_json()}))
    return replace(model, examples=both.digest)


def _cached(cache: Path | None, key: str) -> Model | None:
    """The refit kept under `key` (None when absent, for other examples, or unreadable)."""
    if cache is None:
        return None
    try:
        data = json.loads(cache.read_bytes()[:MAX_CACHE_BYTES])
        return parse_model(data["model"]) if isinstance(data, dict) and data.get("key") == key else None
    except (OSError, ValueError, KeyError, TypeError):
        return None
