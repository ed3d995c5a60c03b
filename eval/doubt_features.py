"""Candidate features for the doubt ranking (issue 33, item 6), measured leave-one-document-out.

    .venv/bin/python eval/doubt_features.py

Why: the Review queue orders cells by the confidence model's score; issue 33 asks for an AUC of at
least 0.80 for "the cell is right" and the least-sure 35 % of cells holding at least 70 % of the wrong
ones. The committed model reads the features of ingest/analysis/confidence.py. This script adds general
facts about a cell's evidence or its document — each computed from the annotation alone, never from a
label or a document's wording — one at a time and all together, and prints what the doubt ranking does
with each, for all labelled documents and for the older and newest label blocks apart. The fit is the
committed one (logistic regression, C as in ingest/analysis/confidence_fit.py) on the committed features
plus the candidate, flat and again per kind of dimension; each document's cells are scored by a model
fitted on the other documents. A candidate is worth shipping only if it lifts the newest block too.

Candidates (per cell, from its document's annotation):

* `thin_values`: values of the cell backed by exactly one evidence sentence;
* `weakest_value`: evidence sentences behind the cell's least-supported value (log);
* `rejected`: categories with evidence that the cell does not hold (log);
* `doc_evidence`: evidence rows of the whole document (log): how much it says on the lens's topics;
* `doc_methods`: distinct methods the document's algorithm evidence names (log);
* `mention_rows`, `contrast_rows`: evidence rows of the cell's dimension read as mention / contrast (log);
* `doc_defaults`: the document's cells inferred by default (nothing supported them);
* `level_index`: a level cell's place on its scale (0 none … 1 the top), 0 for other kinds;
* `value_not_disclosed`: the cell says "not disclosed".

Last, a second opinion: eval/role_compare.py's learned used-or-mentioned model beside the rules. For the
algorithm and mentioned cells, the methods of the document on which the two disagree (log) and the
learned model's closest call (|p - 0.5|, least over the document's methods). Clean leave-one-out: for
each held-out document the role models behind every document's feature are fitted without it too.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from annotate_eval import annotate_all, compare, gold_examples, load_docs, splits_of  # noqa: E402
from cell_figures import doubt, format_doubt  # noqa: E402
from confidence_loo import Example  # noqa: E402
from role_compare import Candidate, candidates  # noqa: E402

from bench.results_log import recorded  # noqa: E402
from ingest.analysis.confidence import KINDS  # noqa: E402
from ingest.analysis.confidence_fit import C, vector  # noqa: E402
from ingest.analysis.lens import DEFAULT_LENS, NOT_DISCLOSED, Lens, load_lens  # noqa: E402
from ingest.common.records import Annotation  # noqa: E402

Feature = Callable[[Example, Annotation, Lens], float]


def _dim_rows(e: Example, ann: Annotation, lens: Lens) -> list:
    dim = lens.dimension(e.dim)
    src = dim.source if dim.kind == "mentioned" and dim.source else dim.id
    return [r for r in ann.evidence if r.dimension == src]


def _per_value(e: Example, ann: Annotation, lens: Lens) -> list[int]:
    per = Counter(r.category for r in _dim_rows(e, ann, lens))
    return [per[v] for v in ann.cells[e.dim].value if v in per]


def _level_index(e: Example, ann: Annotation, lens: Lens) -> float:
    dim, v = lens.dimension(e.dim), ann.cells[e.dim].value[0]
    return dim.values.index(v) / max(1, len(dim.values) - 1) if dim.kind == "level" and v in dim.values else 0.0


CANDIDATES: dict[str, Feature] = {
    "thin_values": lambda e, a, lens: float(sum(n == 1 for n in _per_value(e, a, lens))),
    "weakest_value": lambda e, a, lens: math.log1p(min(_per_value(e, a, lens), default=0)),
    "rejected": lambda e, a, lens: math.log1p(len({r.category for r in _dim_rows(e, a, lens)} - set(a.cells[e.dim].value))),
    "doc_evidence": lambda e, a, lens: math.log1p(len(a.evidence)),
    "doc_methods": lambda e, a, lens: math.log1p(
        len({r.category for r in a.evidence if lens.dimension(r.dimension).kind == "algorithm"})
    ),
    "mention_rows": lambda e, a, lens: math.log1p(sum(r.role == "mention" for r in _dim_rows(e, a, lens))),
    "contrast_rows": lambda e, a, lens: math.log1p(sum(r.role == "contrast" for r in _dim_rows(e, a, lens))),
    "doc_defaults": lambda e, a, lens: float(sum(bool(c.features and c.features.get("default")) for c in a.cells.values())),
    "level_index": _level_index,
    "value_not_disclosed": lambda e, a, lens: float(a.cells[e.dim].value[:1] == (NOT_DISCLOSED,)),
}


def loo_scores(examples: list[Example], rows: list[list[float]]) -> list[float]:
    """Each document's cells scored by a logistic regression fitted on the other documents' cells."""
    from sklearn.linear_model import LogisticRegression

    y = [int(e.correct) for e in examples]
    out = [0.0] * len(examples)
    for doc in sorted({e.doc for e in examples}):
        train = [i for i, e in enumerate(examples) if e.doc != doc]
        clf = LogisticRegression(C=C, max_iter=3000).fit([rows[i] for i in train], [y[i] for i in train])
        held = [i for i, e in enumerate(examples) if e.doc == doc]
        for i, p in zip(held, clf.predict_proba([rows[i] for i in held])[:, 1], strict=True):
            out[i] = round(float(p), 3)
    return out


def design(
    examples: list[Example], res: dict[str, Annotation], lens: Lens, names: list[str], per_kind: bool
) -> list[list[float]]:
    """The committed features plus the named candidates (flat, or one copy per kind of dimension)."""
    kind = {d.id: d.kind for d in lens.dimensions}
    rows = []
    for e in examples:
        extra = [CANDIDATES[n](e, res[e.doc], lens) for n in names]
        row = list(vector(e.features))
        row += [v if kind[e.dim] == k else 0.0 for k in KINDS for v in extra] if per_kind else extra
        rows.append(row)
    return rows


def second_opinion(cands: list[Candidate], docs: list[str], held: str) -> dict[str, tuple[float, float]]:
    """Per document: (methods where the learned role model and the rules disagree, the model's closest
    call), the model fitted on the other documents but `held` (whose labels it must not see)."""
    from sklearn.linear_model import LogisticRegression

    out = {}
    for doc in docs:
        train = [c for c in cands if c.doc not in (doc, held)]
        test = [c for c in cands if c.doc == doc]
        if not test:
            out[doc] = (0.0, 0.5)
            continue
        clf = LogisticRegression(C=C, max_iter=2000).fit([c.x for c in train], [int(c.gold_used) for c in train])
        p = clf.predict_proba([c.x for c in test])[:, 1]
        dis = sum(bool(q >= 0.5) != c.rules_used for c, q in zip(test, p, strict=True))
        out[doc] = (math.log1p(dis), float(min(abs(q - 0.5) for q in p)))
    return out


def second_opinion_scores(examples: list[Example], docs: list, res: dict[str, Annotation], lens: Lens) -> list[float]:
    """Leave-one-document-out scores with the second-opinion features on algorithm and mentioned cells."""
    from sklearn.linear_model import LogisticRegression

    per, _, _ = compare(docs, res, lens)
    cands = candidates(docs, res, lens, {doc: set(row["alg"][0]) for doc, row in per.items()})
    kind = {d.id: d.kind for d in lens.dimensions}
    ids = sorted({e.doc for e in examples})
    y = [int(e.correct) for e in examples]
    out = [0.0] * len(examples)
    for held in ids:
        feats = second_opinion(cands, ids, held)
        rows = [
            [*vector(e.features), *(v if kind[e.dim] == k else 0.0 for k in ("algorithm", "mentioned") for v in feats[e.doc])]
            for e in examples
        ]
        train = [i for i, e in enumerate(examples) if e.doc != held]
        clf = LogisticRegression(C=C, max_iter=3000).fit([rows[i] for i in train], [y[i] for i in train])
        test = [i for i, e in enumerate(examples) if e.doc == held]
        for i, p in zip(test, clf.predict_proba([rows[i] for i in test])[:, 1], strict=True):
            out[i] = round(float(p), 3)
    return out


def main() -> int:
    lens = load_lens(DEFAULT_LENS)
    docs = load_docs()
    res, _ = annotate_all(docs, lens)
    examples = gold_examples(docs, res, lens)
    splits = splits_of(docs)
    print(f"doubt ranking, leave-one-document-out, {len(examples)} cells of {len(docs)} documents "
          "(target: AUC >= 0.80; the least-sure 35% hold >= 70% of the wrong cells)")  # fmt: skip
    variants: list[tuple[str, list[str], bool]] = [("committed features", [], False)]
    variants += [(f"+ {n}{' per kind' if pk else ''}", [n], pk) for n in CANDIDATES for pk in (False, True)]
    variants += [("+ all candidates", list(CANDIDATES), False), ("+ all candidates per kind", list(CANDIDATES), True)]
    runs = [(title, lambda n=names, k=per_kind: loo_scores(examples, design(examples, res, lens, n, k)))
            for title, names, per_kind in variants]  # fmt: skip
    runs.append(("+ second opinion (learned role model vs rules)", lambda: second_opinion_scores(examples, docs, res, lens)))
    for title, scores_of in runs:
        scores = scores_of()
        print(f"-- {title}")
        for split in ("all", "older", "newest"):
            scored = [(p, e.correct) for e, p in zip(examples, scores, strict=True) if e.doc in splits[split]]
            print("   " + format_doubt(split, doubt(scored)))
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        sys.exit(main())
