"""Confidence of an automatic comparison cell: the chance it is right, from its evidence.

Why learned: how far a cell can be trusted depends on its evidence in ways no hand weight gets
right (one use in a method section beats five mentions in an introduction). The features are
plain facts about the evidence, so the model stays explainable:

* how many independent sentences support the value, and how many of them stand in method /
  training sections rather than the abstract, introduction or conclusion (`background_headings`
  of the lens) or the appendix;
* whether the best supporter is definition-level (an algorithm the authors say they train with; a
  sentence matching two cues or more; a level well inside its band of indicator counts);
* whether the value was inferred by default ("not disclosed", level "none": nothing fired);
* competition (other categories supported, contrasts of the chosen method) and the evidence on the
  topic that is not behind the value (`n_other`: other categories' sentences; for a level, sentences
  on the topic that fire no indicator, so "none" for a report that says much on agents is less sure);
* where the supporters stand also counts against: `n_background` (summary sections);
* each of these also per kind of dimension (`PER_KIND`: "multi:n_values" …), so that a fact may weigh
  differently in a reward-source cell and in a level (measured leave-one-document-out, issue 33);
* how well the document's structure was recovered (`DOC_FEATURES`, not copied per kind): its distinct
  headings (`doc_headings`) and sentences per heading (`sents_per_heading`). The sentence roles and the
  summary / method split are read from headings, so a long text under few headings (a post, or a report
  whose headings the extractor missed) leaves every cell less sure;
* for a cell listing methods only mentioned, the document's sentences naming the lens's stage that are not
  the authors' own work (related work, future work, citations …; `topic_not_own`): a report that says much
  about others' RL has more to mention than the names the cues know, so an empty or short list is less sure.

The model is a logistic regression (log-loss fit: its output is a calibrated probability on the
data it was fit on) trained by `eval/train_confidence.py` on the labelled documents and on every
decision saved from the Review page, and committed as plain coefficients in
`data/confidence.json` (no pickle). Applying it is a dot product. A run whose reports hold Review
decisions refits it on the shipped examples plus those decisions (`confidence_fit.py`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ingest.analysis.cues import Hits
from ingest.analysis.evidence import Sentence

MODEL_PATH = Path(__file__).resolve().parents[2] / "data" / "confidence.json"
KINDS = ("multi", "single", "algorithm", "mentioned", "level")
BASE_FEATURES: tuple[str, ...] = (
    *(f"kind_{k}" for k in KINDS),
    "default",
    "n_support",
    "n_method",
    "n_background",
    "method_share",
    "appendix_only",
    "definition",
    "n_values",
    "competition",
    "n_other",
    "margin",
    "doc_size",
    "doc_headings",
    "sents_per_heading",
    "topic_not_own",
)
#: Facts of the whole document (or of one kind only) that are not copied per kind (eval/doubt_features.py).
DOC_FEATURES: tuple[str, ...] = ("doc_headings", "sents_per_heading", "topic_not_own")
#: The evidence features read per kind of dimension: the same fact weighs differently in a reward-source
#: cell (several values, each needing support) and in a level (a count of indicators); each cell carries
#: a copy of them named "<kind>:<feature>" for its own kind, 0 for the others.
PER_KIND: tuple[str, ...] = tuple(f for f in BASE_FEATURES if not f.startswith("kind_") and f not in DOC_FEATURES)
#: Facts read per kind only (no shared copy): `doc_methods`, the distinct methods the document's algorithm
#: evidence names (log). A report that discusses many methods leaves more room to take a mentioned method
#: for the one used, or a method's reward for the report's; how much that weighs depends on the kind of
#: cell (eval/doubt_features.py, "doc_methods per kind"). Known only once the algorithm dimensions are read,
#: so annotate sets it on every cell afterwards (`with_doc_methods`).
KIND_ONLY: tuple[str, ...] = ("doc_methods",)
FEATURES = (*BASE_FEATURES, *(f"{k}:{f}" for k in KINDS for f in (*PER_KIND, *KIND_ONLY)))
#: A cell is "confident" at or above this probability (declared, not fitted: see docs/comparison.md).
DEFAULT_THRESHOLD = 0.9
#: The threshold of a model that labels nothing confident: no cut was right >= 95% of the time held out
#: (eval/train_confidence.py); the Review queue is then simply least sure first.
NONE_SURE = 0.999
MAX_MODEL_BYTES = 1_000_000


@dataclass(frozen=True)
class Support:
    """The sentences behind a cell's value and the facts the features are made of."""

    kind: str
    default: bool
    sentences: tuple[Sentence, ...] = ()
    definition: bool = False
    n_values: int = 1
    competition: float = 0.0
    margin: int = 0
    #: sentences on the dimension's topic that are not behind the value (other categories' support; for
    #: a level, topic sentences that fire no indicator)
    n_other: int = 0


@dataclass(frozen=True)
class DocContext:
    """What the features need to know of the whole document."""

    background: frozenset[int] = frozenset()  # indices of sentences in summary sections
    sentences: int = 0  # evidence sentences in the document (long reports have richer labels)
    summary: frozenset[int] = frozenset()  # indices of sentences under a summary heading (not before the first)
    headings: int = 0  # distinct headings the sentences stand under
    topic_not_own: int = 0  # sentences naming the lens's stage that are not the authors' own work (sentence roles)


def features(sup: Support, ctx: DocContext) -> dict[str, float]:
    """The feature vector of one cell."""
    background = ctx.background
    sents = {s.index: s for s in sup.sentences}.values()  # independent = distinct sentences
    n = len(sents)
    method = [s for s in sents if s.index not in background and s.section != "appendix"]
    out = dict.fromkeys(BASE_FEATURES, 0.0)  # the other kinds' copies are 0 and not stored
    out[f"kind_{sup.kind}"] = 1.0
    out.update(
        default=float(sup.default),
        n_support=math.log1p(n),
        n_method=math.log1p(len(method)),
        n_background=math.log1p(sum(s.index in background for s in sents)),
        method_share=len(method) / n if n else 0.0,
        appendix_only=float(n > 0 and all(s.section == "appendix" for s in sents)),
        definition=float(sup.definition),
        n_values=float(min(sup.n_values, 5)),
        competition=round(float(sup.competition), 4),
        n_other=math.log1p(sup.n_other),
        margin=float(min(sup.margin, 3)),
        doc_size=math.log10(1 + ctx.sentences),
        doc_headings=math.log1p(ctx.headings),
        sents_per_heading=math.log1p(ctx.sentences / max(1, ctx.headings)),
        topic_not_own=math.log1p(ctx.topic_not_own) if sup.kind == "mentioned" else 0.0,
    )
    out.update({f"{sup.kind}:{f}": out[f] for f in PER_KIND})
    out[f"{sup.kind}:doc_methods"] = 0.0  # known once the algorithm dimensions are read: `with_doc_methods`
    return {k: round(v, 4) for k, v in out.items()}


def with_doc_methods(feats: dict[str, float], methods: int) -> dict[str, float]:
    """A cell's features with the document's count of distinct methods named (`KIND_ONLY`) set for its kind."""
    kind = next((k for k in KINDS if feats.get(f"kind_{k}")), None)
    if kind is None:
        return feats
    return {**feats, f"{kind}:doc_methods": round(math.log1p(methods), 4)}


@dataclass(frozen=True)
class Model:
    """Logistic-regression coefficients over `FEATURES` and the confidence threshold."""

    coef: dict[str, float]
    intercept: float
    threshold: float = DEFAULT_THRESHOLD
    trained_on: dict[str, int] = field(default_factory=dict)
    #: Digest of the examples a model refitted at ingest was fit on ("" for the committed model):
    #: part of the fingerprint, so new Review decisions re-score every cell (confidence_fit.py).
    examples: str = ""

    def predict(self, feats: dict[str, float]) -> float:
        z = self.intercept + sum(self.coef.get(k, 0.0) * v for k, v in feats.items())
        return round(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))), 3)

    def confident(self, p: float | None) -> bool:
        return p is not None and p >= self.threshold

    @property
    def fingerprint(self) -> str:
        own = [self.coef, self.intercept, self.threshold] + ([self.examples] if self.examples else [])
        blob = json.dumps(own, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:12]

    def to_json(self) -> dict:
        return {
            "features": list(FEATURES),
            "coef": self.coef,
            "intercept": self.intercept,
            "threshold": self.threshold,
            "trained_on": self.trained_on,
        }


#: Used when data/confidence.json is missing or unreadable: more support -> more confidence,
#: a default value -> less (the shape the trained model learns; not a probability).
FALLBACK = Model({"n_support": 1.2, "n_method": 0.8, "definition": 0.8, "default": -0.5, "competition": -1.5}, -0.5)


def parse_model(data: object) -> Model:
    """A model from untrusted JSON: known features only, finite numbers, threshold in (0, 1)."""
    if not isinstance(data, dict):
        raise ValueError("confidence model: not an object")
    coef = data.get("coef")
    if not isinstance(coef, dict):
        raise ValueError("confidence model: `coef` must be an object")
    clean = {}
    for k, v in coef.items():
        if k not in FEATURES or not isinstance(v, int | float) or not math.isfinite(v):
            raise ValueError(f"confidence model: bad coefficient {k!r}")
        clean[k] = float(v)
    icpt, thr = data.get("intercept"), data.get("threshold", DEFAULT_THRESHOLD)
    if not isinstance(icpt, int | float) or not math.isfinite(icpt):
        raise ValueError("confidence model: bad intercept")
    if not isinstance(thr, int | float) or not 0 < thr < 1:
        raise ValueError("confidence model: threshold must be in (0, 1)")
    seen = data.get("trained_on") or {}
    trained = {str(k): int(v) for k, v in seen.items() if isinstance(v, int)} if isinstance(seen, dict) else {}
    return Model(clean, float(icpt), float(thr), trained)


@lru_cache(maxsize=4)
def _load(path: str, mtime: float, size: int) -> Model:
    if size > MAX_MODEL_BYTES:
        return FALLBACK
    try:
        return parse_model(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return FALLBACK


def load_model(path: Path = MODEL_PATH) -> Model:
    """The committed model (memoised on the file's mtime and size); the fallback when absent or bad."""
    try:
        st = path.stat()
    except OSError:
        return FALLBACK
    return _load(str(path), st.st_mtime, st.st_size)


def background(sents: Iterable[Sentence], is_summary: re.Pattern[str] | None) -> frozenset[int]:
    """Indices of sentences in summary sections (abstract, introduction, conclusion) or before the first heading."""
    on = Hits(is_summary)  # each heading tested once
    return frozenset(s.index for s in sents if not s.heading or on[s.heading])


def summary(sents: Iterable[Sentence], is_summary: re.Pattern[str] | None) -> frozenset[int]:
    """Indices of sentences under a heading of a summary section (abstract, introduction, conclusion)."""
    on = Hits(is_summary)
    return frozenset(s.index for s in sents if s.heading and on[s.heading])


def unsure(origin: object, confidence: object, model: Model | None = None) -> bool:
    """An automatic cell whose confidence is below the model's threshold (curated cells never are).

    A missing confidence (a table stored before confidences existed) counts as unsure: nobody has
    measured it."""
    if origin != "auto":
        return False
    thr = (model or load_model()).threshold
    return not isinstance(confidence, int | float) or confidence != confidence or confidence < thr
