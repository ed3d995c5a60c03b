"""Candidate features for the doubt ranking (issue 33, item 6), measured leave-one-document-out.

    .venv/bin/python eval/doubt_features.py [--regularisation]

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

Second session (the lines after the candidates):

* headroom: per dimension, its cells, wrong cells and the AUC of the committed score inside it, and
  what the ranking over all cells would be if that one dimension's cells were ordered perfectly (the
  same scores, wrong ones lowest) — how much any feature of one kind of cell can lift the whole;
* document facts (`doc_facts`): sentences naming the lens's stage (`no_stage.stage_headings`), all
  of them and those outside the authors' own work (sentence roles: related work, future work, cited …);
  a short document (two cuts, see `SHORT`); flat and per kind;
* a level cell's place in its band of indicator counts (0 at the band's lower cut, 1 at the next);
* learned second opinions, fitted leave-one-document-out, printed as the AUC inside their dimension:
  the level from the checklist (which indicators fired; multinomial logistic regression: the chance of
  the rule's level) and each reward source from its support (one example per document and category: the
  chance the whole set agrees is the product over categories);
* one separate logistic regression per dimension (each with its own base rate), and gradient-boosted
  trees over the flat features (interactions of kind and evidence), in place of the committed fit.

`--regularisation`: only the committed features under other L2 strengths (C), raw and standardised,
and the base features alone (no per-kind copies): whether the fit, not the features, limits the ranking.
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

from annotate_eval import LEVELS, annotate_all, compare, gold_examples, load_docs, splits_of  # noqa: E402
from cell_figures import doubt, format_doubt  # noqa: E402
from confidence_loo import Example  # noqa: E402
from role_compare import Candidate, candidates  # noqa: E402

from bench.results_log import recorded  # noqa: E402
from ingest.analysis.confidence import BASE_FEATURES, KINDS, PER_KIND  # noqa: E402
from ingest.analysis.confidence_fit import C, vector  # noqa: E402
from ingest.analysis.cues import alternation, rx_hit  # noqa: E402
from ingest.analysis.lens import DEFAULT_LENS, NOT_DISCLOSED, Lens, load_lens  # noqa: E402
from ingest.analysis.roles import roles  # noqa: E402
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


def loo_scores(examples: list[Example], rows: list[list[float]], c: float = C, standardise: bool = False) -> list[float]:
    """Each document's cells scored by a logistic regression fitted on the other documents' cells
    (`c`: its inverse L2 strength; `standardise`: features scaled on the training documents first)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    y = [int(e.correct) for e in examples]
    out = [0.0] * len(examples)
    for doc in sorted({e.doc for e in examples}):
        train = [i for i, e in enumerate(examples) if e.doc != doc]
        fit = LogisticRegression(C=c, max_iter=3000)
        clf = (make_pipeline(StandardScaler(), fit) if standardise else fit).fit([rows[i] for i in train], [y[i] for i in train])
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


def headroom(examples: list[Example], scores: list[float], splits: dict[str, set[str]]) -> list[str]:
    """Per dimension: cells, wrong cells, the committed score's AUC inside it, and the ranking of all cells
    with that dimension alone ordered perfectly (its scores kept, wrong cells given the lowest of them)."""
    lines = []
    for dim in sorted({e.dim for e in examples}):
        idx = [i for i, e in enumerate(examples) if e.dim == dim]
        inside = doubt([(scores[i], examples[i].correct) for i in idx])
        best = list(scores)
        for i, v in zip(sorted(idx, key=lambda i: examples[i].correct), sorted(scores[i] for i in idx), strict=True):
            best[i] = v
        parts = []
        for split in ("all", "newest"):
            scored = [(p, e.correct) for e, p in zip(examples, best, strict=True) if e.doc in splits[split]]
            d = doubt(scored)
            parts.append(f"{split} AUC {d.auc:.2f}, least sure hold {d.share:.0%}")
        lines.append(f"   {dim:<24} {len(idx)} cells, {inside.wrong} wrong, AUC inside {inside.auc:.2f}; ordered perfectly: "
                     + "; ".join(parts))  # fmt: skip
    return lines


#: A short document (fewer evidence sentences than this): a blog post rather than a report. Two cuts, since
#: the figure moves with the cut (one labelled post has 49 sentences; only six have fewer than 45): a cut
#: read off this eval would be fitted to a handful of documents, so none is shipped.
SHORT = (45, 60)


def doc_facts(docs: list, lens: Lens) -> dict[str, dict[str, float]]:
    """Per document: sentences naming the lens's stage (all; outside the authors' own work) and shortness."""
    stage = alternation(lens.no_stage.stage_headings) if lens.no_stage else None
    out = {}
    for d in docs:
        other = roles(d.sents, lens)
        named = [s for s in d.sents if stage is not None and rx_hit(stage, s.text)]
        out[d.id] = {
            "stage_sentences": math.log1p(len(named)),
            "stage_not_own": math.log1p(sum(s.index in other for s in named)),
            **{f"short_document<{n}": float(len(d.sents) < n) for n in SHORT},
        }
    return out


def band_place(e: Example, ann: Annotation, lens: Lens) -> float:
    """A level cell's place in its band of indicator counts: 0 at the band's lower cut, 1 at the next cut."""
    dim, cell = lens.dimension(e.dim), ann.cells[e.dim]
    names = [lv.name for lv in dim.levels]
    if dim.kind != "level" or cell.value[0] not in names or cell.counted is None:
        return 0.0
    i = names.index(cell.value[0])
    if i + 1 >= len(names):
        return 1.0
    lo, hi = dim.levels[i].min_indicators, dim.levels[i + 1].min_indicators
    return (cell.counted - lo) / max(1, hi - lo)


def inside_auc(examples: list[Example], dim: str, score: dict[str, float]) -> float:
    """AUC of a per-document score for "the cell is right" among one dimension's cells."""
    return doubt([(score[e.doc], e.correct) for e in examples if e.dim == dim]).auc


def level_opinion(docs: list, res: dict[str, Annotation], dim: str, key: str) -> dict[str, float]:
    """Leave-one-document-out: the chance a multinomial logistic regression on the checklist (which indicators
    fired, and how many sentences behind them) gives the rule's level."""
    from sklearn.linear_model import LogisticRegression

    def x(d) -> list[float]:
        items = res[d.id].cells[dim].checklist or ()
        return [float(i.fired) for i in items] + [math.log1p(sum(i.sentences for i in items if i.fired))]

    out = {}
    for d in docs:
        train = [o for o in docs if o.id != d.id]
        clf = LogisticRegression(C=C, max_iter=3000).fit([x(o) for o in train], [LEVELS.index(o.gold[key]) for o in train])
        p = dict(zip(clf.classes_, clf.predict_proba([x(d)])[0], strict=True))
        out[d.id] = float(p.get(LEVELS.index(res[d.id].cells[dim].value[0]), 0.0))
    return out


def category_opinion(docs: list, res: dict[str, Annotation], lens: Lens, dim_id: str, truth: Callable) -> dict[str, float]:
    """Leave-one-document-out: for a multi-valued dimension, one example per document and category (chosen,
    supporters, one supporter, cue count of the best, the category), the chance each category's choice
    agrees with the gold; a cell's score is the product over categories."""
    from sklearn.linear_model import LogisticRegression

    cats = [c.name for c in lens.dimension(dim_id).categories]

    def x(d, cat: str) -> list[float]:
        cell = res[d.id].cells[dim_id]
        n = (cell.support or {}).get(cat, 0)
        rows = [r for r in res[d.id].evidence if r.dimension == dim_id and r.category == cat]
        cues = max((len((r.cues or "").split("; ")) for r in rows), default=0)
        return [float(cat in cell.value), math.log1p(n), float(n == 1), min(cues, 3) / 3, *(float(cat == c) for c in cats)]

    out = {}
    for d in docs:
        train = [(o, cat) for o in docs if o.id != d.id and truth(o) is not None for cat in cats]
        clf = LogisticRegression(C=C, max_iter=3000).fit([x(o, c) for o, c in train], [int(c in truth(o)) for o, c in train])
        p = clf.predict_proba([x(d, c) for c in cats])[:, 1]
        chosen = res[d.id].cells[dim_id].value
        out[d.id] = float(math.prod(q if c in chosen else 1 - q for c, q in zip(cats, p, strict=True)))
    return out


def per_dimension_scores(examples: list[Example]) -> list[float]:
    """Leave-one-document-out scores of one logistic regression per dimension over the per-kind features."""
    from sklearn.linear_model import LogisticRegression

    out = [0.0] * len(examples)
    for dim in sorted({e.dim for e in examples}):
        idx = [i for i, e in enumerate(examples) if e.dim == dim]
        rows = {i: [examples[i].features.get(f, 0.0) for f in PER_KIND] for i in idx}
        for doc in sorted({examples[i].doc for i in idx}):
            train = [i for i in idx if examples[i].doc != doc]
            labels = [int(examples[i].correct) for i in train]
            test = [i for i in idx if examples[i].doc == doc]
            if len(set(labels)) < 2:
                for i in test:
                    out[i] = sum(labels) / len(labels)
                continue
            clf = LogisticRegression(C=C, max_iter=3000).fit([rows[i] for i in train], labels)
            for i, p in zip(test, clf.predict_proba([rows[i] for i in test])[:, 1], strict=True):
                out[i] = round(float(p), 3)
    return out


def boosted_scores(examples: list[Example]) -> list[float]:
    """Leave-one-document-out scores of gradient-boosted trees (depth 3, 100 rounds) over the flat features."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from threadpoolctl import threadpool_limits

    rows = [[e.features.get(f, 0.0) for f in BASE_FEATURES] for e in examples]
    y = [int(e.correct) for e in examples]
    out = [0.0] * len(examples)
    with threadpool_limits(limits=1):
        for doc in sorted({e.doc for e in examples}):
            train = [i for i, e in enumerate(examples) if e.doc != doc]
            clf = HistGradientBoostingClassifier(max_depth=3, max_iter=100, learning_rate=0.05, min_samples_leaf=10)
            clf.fit([rows[i] for i in train], [y[i] for i in train])
            test = [i for i, e in enumerate(examples) if e.doc == doc]
            for i, p in zip(test, clf.predict_proba([rows[i] for i in test])[:, 1], strict=True):
                out[i] = round(float(p), 3)
    return out


def session_two(docs: list, res: dict[str, Annotation], lens: Lens, examples: list[Example], splits: dict[str, set[str]]) -> None:
    """The second session's measurements (module docstring)."""

    def show(title: str, scores: list[float]) -> None:
        print(f"-- {title}")
        for split in ("all", "older", "newest"):
            scored = [(p, e.correct) for e, p in zip(examples, scores, strict=True) if e.doc in splits[split]]
            print("   " + format_doubt(split, doubt(scored)))

    committed = loo_scores(examples, design(examples, res, lens, [], False))
    print("-- headroom: each dimension's cells ordered perfectly, one dimension at a time (committed scores)")
    print("\n".join(headroom(examples, committed, splits)))
    facts = doc_facts(docs, lens)
    kind = {d.id: d.kind for d in lens.dimensions}
    for names, per_kind in ((["stage_sentences"], False), (["stage_not_own"], False), (["stage_not_own"], True),
                            *(([f"short_document<{n}"], True) for n in SHORT),
                            (["stage_sentences", "stage_not_own"], False)):  # fmt: skip
        rows = []
        for e, row in zip(examples, design(examples, res, lens, [], False), strict=True):
            extra = [facts[e.doc][n] for n in names]
            rows.append(row + ([v if kind[e.dim] == k else 0.0 for k in KINDS for v in extra] if per_kind else extra))
        show(f"+ {' + '.join(names)}{' per kind' if per_kind else ''}", loo_scores(examples, rows))
    plain = design(examples, res, lens, [], False)
    rows = [[*row, band_place(e, res[e.doc], lens)] for e, row in zip(examples, plain, strict=True)]
    show("+ a level's place in its band", loo_scores(examples, rows))
    show("one logistic regression per dimension", per_dimension_scores(examples))
    show("gradient-boosted trees over the flat features", boosted_scores(examples))
    print("-- learned second opinions (leave-one-document-out), AUC inside their dimension beside the committed score's")
    for dim, key in (("disclosure", "agentic_rl"), ("rl_disclosure", "rl_disclosure")):
        if dim in kind:
            inside = doubt([(p, e.correct) for e, p in zip(examples, committed, strict=True) if e.dim == dim]).auc
            op = level_opinion(docs, res, dim, key)
            print(f"   {dim:<24} checklist model {inside_auc(examples, dim, op):.2f}; committed {inside:.2f}")
    multi = [d.id for d in lens.dimensions if d.kind == "multi"]
    for dim in multi:
        inside = doubt([(p, e.correct) for e, p in zip(examples, committed, strict=True) if e.dim == dim]).auc
        op = category_opinion(docs, res, lens, dim, lambda d: gold_set(d, lens))
        print(f"   {dim:<24} per-category model {inside_auc(examples, dim, op):.2f}; committed {inside:.2f}")


def gold_set(d, lens: Lens) -> set[str] | None:
    """The gold reward sources of a document (None for a report without RL: no category applies)."""
    if d.gold.get("rl_used") == "no":
        return None
    v = d.gold.get("reward_sources")
    items = v if isinstance(v, list) else [v] if v else []
    return {str(x) for x in items} - {NOT_DISCLOSED}


#: The L2 strengths of `--regularisation` (the committed C among them).
C_GRID = (0.02, 0.1, 0.5, 2.0)


def regularisation(examples: list[Example], res: dict[str, Annotation], lens: Lens, splits: dict[str, set[str]]) -> None:
    """The committed features under other fits: C, standardised or not, base features only."""
    rows = design(examples, res, lens, [], False)
    base = [r[: len(BASE_FEATURES)] for r in rows]
    fits = (("raw", rows, False), ("standardised", rows, True), ("base features only, standardised", base, True))
    for c in C_GRID:
        for title, x, std in fits:
            scores = loo_scores(examples, x, c, std)
            print(f"-- C = {c}, {title}{' (committed)' if c == C and not std and x is rows else ''}")
            for split in ("all", "newest"):
                scored = [(p, e.correct) for e, p in zip(examples, scores, strict=True) if e.doc in splits[split]]
                print("   " + format_doubt(split, doubt(scored)))


def main() -> int:
    lens = load_lens(DEFAULT_LENS)
    docs = load_docs()
    res, _ = annotate_all(docs, lens)
    examples = gold_examples(docs, res, lens)
    splits = splits_of(docs)
    print(f"doubt ranking, leave-one-document-out, {len(examples)} cells of {len(docs)} documents "
          "(target: AUC >= 0.80; the least-sure 35% hold >= 70% of the wrong cells)")  # fmt: skip
    if "--regularisation" in sys.argv[1:]:
        regularisation(examples, res, lens, splits)
        return 0
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
    session_two(docs, res, lens, examples, splits)
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        sys.exit(main())
