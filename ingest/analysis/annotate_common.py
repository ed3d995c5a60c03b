"""What every dimension kind of `ingest.analysis.annotate` shares: a dimension's cues compiled once,
the sentences that support a value (`Hit`), their ranking (cue count, or TF-IDF similarity to a
category prototype), and the cell and evidence rows made from them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ingest.analysis.confidence import DocContext, Model, Support, features
from ingest.analysis.cues import CueSet, alternation, compile_cues, cue_set, literal_gate
from ingest.analysis.evidence import Sentence
from ingest.analysis.lens import Category, Dimension, Lens
from ingest.common.records import Cell, ChecklistItem, EvidenceRow

NO_CONTEXT = DocContext()
#: Candidate sentences kept per dimension × category in the evidence table.
TOP_K = 5


@dataclass
class _Compiled:
    """A dimension's cues compiled once: every cue of the dimension in one `CueSet` (so a sentence is
    searched only for the cues whose required strings it contains), each with its category."""

    names: tuple[str, ...]  # the categories, in lens order
    cats: CueSet  # every category's cues, in category order
    cat_of: tuple[str, ...]  # category of each pattern of `cats`
    context: CueSet | None
    negation: CueSet | None
    used_before: re.Pattern[str] | None = None
    used_after: re.Pattern[str] | None = None
    contrast_before: re.Pattern[str] | None = None
    contrast_after: re.Pattern[str] | None = None
    mention_before: re.Pattern[str] | None = None
    not_after: re.Pattern[str] | None = None
    use_requires: dict[str, re.Pattern[str] | None] = field(default_factory=dict)
    mention_if: dict[str, re.Pattern[str] | None] = field(default_factory=dict)
    exclude: dict[str, re.Pattern[str] | None] = field(default_factory=dict)
    summary: dict[str, re.Pattern[str] | None] = field(default_factory=dict)
    generic: frozenset[str] = frozenset()
    auxiliary: frozenset[str] = frozenset()
    introduces: list[tuple[frozenset[str] | None, re.Pattern[str]]] = field(default_factory=list)
    references: list[tuple[frozenset[str] | None, re.Pattern[str]]] = field(default_factory=list)
    reference_value: str = "as in {name}"


_CACHE: dict[tuple[str, str], _Compiled] = {}


def _compiled(lens: Lens, dim: Dimension) -> _Compiled:
    key = (lens.fingerprint, dim.id)
    if key not in _CACHE:
        _CACHE[key] = _Compiled(
            names=tuple(c.name for c in dim.categories),
            cats=CueSet([q for c in dim.categories for q in c.cues]),
            cat_of=tuple(c.name for c in dim.categories for _ in c.cues),
            context=cue_set(dim.context),
            negation=cue_set(dim.negation),
            used_before=alternation(dim.used_before),
            used_after=alternation(dim.used_after),
            contrast_before=alternation(dim.contrast_before),
            contrast_after=alternation(dim.contrast_after),
            mention_before=alternation(dim.mention_before),
            not_after=alternation(dim.not_after),
            use_requires={c.name: alternation(c.use_requires) for c in dim.categories if c.use_requires},
            mention_if={c.name: alternation(c.mention_if) for c in dim.categories if c.mention_if},
            exclude={c.name: alternation(c.exclude) for c in dim.categories if c.generic},
            summary={c.name: alternation(c.summary_headings) for c in dim.categories if c.generic},
            generic=frozenset(c.name for c in dim.categories if c.generic),
            auxiliary=frozenset(c.name for c in dim.categories if c.auxiliary),
            introduces=[(literal_gate([p]), rx) for p, rx in zip(dim.introduces, compile_cues(dim.introduces), strict=True)],
            references=[(literal_gate([p]), rx) for p, rx in zip(dim.references, compile_cues(dim.references), strict=True)],
            reference_value=dim.reference_value,
        )
    return _CACHE[key]


def prototype(cat: Category) -> str:
    """Text a category is compared with: its name, label, description and the words of its cues."""
    words = " ".join(re.sub(r"\\[a-z]|\(\?[-a-z:]*|[^A-Za-z0-9 -]", " ", c) for c in cat.cues)
    return " ".join(x for x in (cat.name.replace("/", " "), cat.label or "", cat.description or "", words) if x)


class _Similarity:
    """TF-IDF cosine similarity of sentences to category prototypes (fit per document)."""

    def __init__(self, sents: list[Sentence], lens: Lens):
        # deferred: scikit-learn's import costs over 2 s of CPU (bench/import_costs.py); only this similarity needs it
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.protos = {(d.id, c.name): prototype(c) for d in lens.dimensions for c in d.categories}
        docs = [s.text for s in sents] + list(self.protos.values())
        self.vec = TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), min_df=1, stop_words="english")
        try:
            self.matrix = self.vec.fit_transform(docs)
        except ValueError:  # empty vocabulary (no text)
            self.matrix = None
        self.n = len(sents)
        self.proto_row = {k: self.n + i for i, k in enumerate(self.protos)}

    def score(self, idx: list[int], key: tuple[str, str]) -> list[float]:
        if self.matrix is None or not idx or key not in self.proto_row:  # a method the report introduced
            return [0.0] * len(idx)
        p = self.matrix[self.proto_row[key]]
        return [float(x) for x in (self.matrix[idx] @ p.T).toarray().ravel()]


@dataclass
class Hit:
    """A sentence supporting a category, with why."""

    sentence: Sentence
    cues: list[str]
    role: str = "support"  # support | use | contrast | mention (algorithms) | indicator
    score: float = 0.0


def _rank(hits: list[Hit], sim: _Similarity | None, key: tuple[str, str], bg: frozenset[int] = frozenset()) -> list[Hit]:
    """Method sentences before background ones (`bg`: abstract, introduction, conclusion), then cue
    count, plus TF-IDF similarity when a `_Similarity` is given."""
    scores = sim.score([h.sentence.index for h in hits], key) if sim is not None else [0.0] * len(hits)
    for h, sc in zip(hits, scores, strict=True):
        h.score = round(sc + 0.05 * len(h.cues), 4)
    return sorted(hits, key=lambda h: (h.sentence.index in bg, -h.score, h.sentence.index))


def _scored(cell: Cell, sup: Support, ctx: DocContext, model: Model) -> Cell:
    """The cell with its evidence features and the confidence model's probability that it is right."""
    feats = features(sup, ctx)
    return replace(cell, confidence=model.predict(feats), features=feats)


def _cell(
    value: list[str],
    conf: float | None,
    best: Hit | None,
    *,
    support: dict[str, int] | None = None,
    roles: dict[str, dict[str, int]] | None = None,
    indicators: tuple[str, ...] | None = None,
    checklist: tuple[ChecklistItem, ...] | None = None,
    why: str | None = None,
    counted: int | None = None,
) -> Cell:
    """A cell quoting the best-ranked sentence (none when nothing supports the value)."""
    s = best.sentence if best else None
    return Cell(
        tuple(value),
        conf,
        s.text if s else None,
        s.page if s else None,
        s.page_label if s else None,
        s.section if s else None,
        support=support,
        roles=roles,
        indicators=indicators,
        checklist=checklist,
        why=why,
        counted=counted,
    )


def _evidence_rows(dim_id: str, ranked: dict[str, list[Hit]]) -> list[EvidenceRow]:
    rows = []
    for cat, hits in ranked.items():
        for i, h in enumerate(hits[:TOP_K]):
            s = h.sentence
            cues = "; ".join(h.cues)
            rows.append(EvidenceRow(dim_id, cat, i + 1, h.score, h.role, cues, s.text, s.page, s.page_label, s.section))
    return rows


def _order(bg: frozenset[int]):
    return lambda h: (h.sentence.index in bg, -h.score, h.sentence.index)
