"""Stage 7 — annotate: decide each lens dimension from evidence sentences (pure functions).

Decisions are lexical and explainable:

* **Decide** with the cues declared in the lens YAML. A sentence *supports* a category when it
  matches one of the category's cues, the dimension's `context`, and none of its `negation`
  patterns. `multi` keeps every category with at least `min_sentences` supporters, `single`
  the best-supported one. With 28 labelled documents a trained classifier would learn the
  documents rather than the categories, so decisions stay with cues a reader can audit; the cues
  implement ../shared/labels/CODEBOOK.md (eval/annotate_eval.py --cues lists cues fitted to one document).
  A method the report introduces itself (the algorithm dimension's `introduces:` patterns)
  becomes a category of its own for that report.
* **Rank** the supporting sentences: method sections before summary sections (the lens'
  `background_headings`), then by how many distinct cues they match (the best-ranked sentence is
  the cell's quote). `ranking="tfidf"` adds TF-IDF cosine similarity to a category
  *prototype* (its label, description and the literal words of its cues); `eval/annotate_eval.py`
  measures both on the gold evidence pages; TF-IDF is at most marginally better (17 vs 15 of 29
  top quotes on the gold page at the last run) and costs a scikit-learn import, so cue count is
  the default.
* **Algorithms** are decided *used* or *mentioned only* from the words around each name in
  its clause: "we adopt / our / as our algorithm" before or after it means used; "unlike /
  compared with / than / baseline" means contrast; a category's `use_requires:` / `mention_if:`
  say when a sentence can make it a use at all (rejection sampling that only validates data is
  mentioned), and `not_after:` drops a name that is something else ("DAPO-Math-17K", a data set).
  A name is used when it has at least one use and no more contrasts than uses.
* **Unnamed algorithms**: when the report's own model is trained with RL whose algorithm it
  describes only generically ("we adopt an on-policy RL algorithm"), a `generic: true` category
  says so ("RL, algorithm not named"), with that sentence as evidence. Absence is a finding, like
  "not disclosed". The description counts only where it is the report's own training (its cues
  say "we … adopt / RL here employs"), no method is named in the sentence, none is used under
  the same heading (there the description is of that method), it is not under a skipped heading,
  nor in a summary section (abstract, introduction, conclusion) of a report that names its method
  elsewhere, and matches none of the category's `exclude:` patterns (future work, baselines).
* **Levels** (disclosure) count named indicators; the cell keeps the whole checklist (each
  indicator yes/no with the first sentence that fired it), so the level can be checked by hand.
  No opaque score. Sentences under a summary heading fire no indicator. The cut points are chosen
  from the labelled data (eval/annotate_eval.py reports them leave-one-out, neutral tie-break).

Confidence: every cell carries its evidence features and the probability the committed
confidence model (ingest/analysis/confidence.py, data/confidence.json) gives that it is right.

The kinds live in their own modules: the shared cues, hits, ranking and cells in
`annotate_common`, algorithms in `annotate_algorithms`, levels in `annotate_levels`; this module
decides the categorical dimensions and runs every dimension of a lens for one document.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal

from ingest.analysis.annotate_algorithms import (
    WINDOW,
    _algorithm,
    algorithm_roles,
    decide_algorithms,
    generic_uses,
    introduced_methods,
)
from ingest.analysis.annotate_common import (
    NO_CONTEXT,
    TOP_K,
    Hit,
    _cell,
    _Compiled,
    _compiled,
    _evidence_rows,
    _order,
    _rank,
    _scored,
    _Similarity,
    prototype,
)
from ingest.analysis.annotate_levels import _level
from ingest.analysis.codebook import derived_value, stage_values
from ingest.analysis.confidence import DocContext, Model, Support, background, load_model, summary, with_doc_methods
from ingest.analysis.cues import (
    FLAGS,
    CueSet,
    Folded,
    Hits,
    alternation,
    compile_cues,
    cue_set,
    cues_match,
    fold,
    gate_may,
    literal_gate,
    rx_hit,
)
from ingest.analysis.evidence import Sentence
from ingest.analysis.lens import NOT_DISCLOSED, Dimension, Lens
from ingest.analysis.roles import roles
from ingest.analysis.stages import no_stage
from ingest.common.records import Annotation, Cell, EvidenceRow

__all__ = [
    "ANNOTATE_VERSION",
    "FLAGS",
    "NO_CONTEXT",
    "TOP_K",
    "WINDOW",
    "CueSet",
    "Folded",
    "Hit",
    "Ranking",
    "algorithm_roles",
    "alternation",
    "annotate",
    "compile_cues",
    "cue_set",
    "cues_match",
    "decide_algorithms",
    "fold",
    "gate_may",
    "generic_uses",
    "introduced_methods",
    "literal_gate",
    "prototype",
    "rx_hit",
]

#: Bump when evidence or annotation rules change in code, so stored annotations are recomputed.
ANNOTATE_VERSION = 11
Ranking = Literal["tfidf", "cues"]


def _supporters(sents: list[Sentence], dim: Dimension, comp: _Compiled, low: Folded | None = None) -> dict[str, list[Hit]]:
    out: dict[str, list[Hit]] = {c.name: [] for c in dim.categories}
    low = Folded() if low is None else low
    seen: dict[tuple[str, str, str], list[tuple[str, list[str]]]] = {}  # a repeated sentence is read once
    for i, s in enumerate(sents):
        # the paragraph's topic may be set by the sentence before or after it under the same heading ("The RL
        # stage uses two rewards. For math, we employ an LLM judge …")
        near = " ".join(
            n.text for n in (sents[i - 1] if i else None, sents[i + 1] if i + 1 < len(sents) else None)
            if n is not None and n.heading == s.heading and abs(n.index - s.index) == 1
        )  # fmt: skip
        t, key = s.text, (s.text, s.heading or "", near)
        if key not in seen:
            seen[key] = _category_cues(t, low[t], comp, key[1], near)
        for name, found in seen[key]:
            out[name].append(Hit(s, found))
    return out


def _category_cues(t: str, low: str, comp: _Compiled, heading: str = "", before: str = "") -> list[tuple[str, list[str]]]:
    """(category, cues matched) for one sentence's text `t` (`low` = `fold(t)`) under `heading`.

    A sentence supports a category when one of its cues matches, the context matches the sentence
    or its section heading (a sentence under "Direct Preference Optimization" is about preference
    training) and no negation does. Cheapest tests first: the context's plain strings, then the cues
    whose plain strings the sentence contains; the patterns only for a sentence a cue matched.
    """
    head = fold(heading) if heading else ""
    prior = fold(before) if before else ""

    def about(text: str, folded: str) -> bool:
        return bool(folded) and comp.context.search(text, folded)  # type: ignore[union-attr]

    if comp.context is not None and not (
        comp.context.may(low) or (head and comp.context.may(head)) or (prior and comp.context.may(prior))
    ):
        return []
    found: dict[str, set[str]] = {}
    rxs, cat_of = comp.cats.rxs, comp.cat_of
    for i in comp.cats.candidates(low):
        m = rxs[i].search(t)
        if m:
            found.setdefault(cat_of[i], set()).add(m.group(0).lower())
    if not found:
        return []
    if comp.context is not None and not (about(t, low) or about(heading, head) or about(before, prior)):
        return []
    if cues_match(comp.negation, t, low):
        return []
    return [(name, sorted(found[name])) for name in comp.names if name in found]


def _categorical(
    dim: Dimension,
    sents: list[Sentence],
    sim: _Similarity | None,
    lens: Lens,
    low: Folded | None = None,
    ctx: DocContext = NO_CONTEXT,
    model: Model | None = None,
) -> tuple[Cell, list[EvidenceRow]]:
    cell, rows, ranked, chosen = _categorical_cell(dim, sents, sim, lens, low, ctx.background)
    hits = [h for c in chosen for h in ranked[c]]
    n_sup = sum(len(h) for h in ranked.values())
    sup = Support(
        dim.kind,
        default=not chosen,
        sentences=tuple(h.sentence for h in hits),
        definition=any(len(h.cues) >= 2 for h in hits),
        n_values=len(chosen),
        competition=1 - len(hits) / n_sup if n_sup else 0.0,
        n_other=len({h.sentence.index for c, hs in ranked.items() if c not in chosen for h in hs}),
    )
    return _scored(cell, sup, ctx, model or load_model()), rows


def _categorical_cell(
    dim: Dimension, sents: list[Sentence], sim: _Similarity | None, lens: Lens, low: Folded | None, bg: frozenset[int]
) -> tuple[Cell, list[EvidenceRow], dict[str, list[Hit]], list[str]]:
    sup = _supporters(sents, dim, _compiled(lens, dim), low)
    ranked = {c: _rank(h, sim, (dim.id, c), bg) for c, h in sup.items() if h}
    support = {c: len(h) for c, h in ranked.items()}
    chosen = [c.name for c in dim.categories if support.get(c.name, 0) >= dim.min_sentences]
    if dim.kind == "single" and chosen:
        chosen = [max(chosen, key=lambda c: support[c])]  # max keeps lens order on ties
        stages = stage_values(dim, {c: [h.sentence for h in hits] for c, hits in ranked.items()}, bg)
        if dim.mixed is not None and len(set(stages.values())) >= 2:
            chosen = [dim.mixed]
            ranked[dim.mixed] = sorted(
                (h for c in set(stages.values()) for h in ranked[c] if h.sentence.heading in stages), key=_order(bg)
            )
    rows = _evidence_rows(dim.id, ranked)
    if not chosen:
        return _cell([NOT_DISCLOSED], None, None, support=support), rows, ranked, chosen
    return _cell(chosen, None, ranked[chosen[0]][0], support=support), rows, ranked, chosen


def _derived(
    dim: Dimension,
    sents: list[Sentence],
    sim: _Similarity | None,
    lens: Lens,
    low: Folded,
    ctx: DocContext,
    model: Model,
    alg: Cell | None,
) -> tuple[Cell, list[EvidenceRow]]:
    """A `single` dimension with `derive:`: the value the codebook derives from the main used method of
    the source cell `alg` (see `derived_value`), quoting the sentence that states it, else one that
    supports the value, else the method's own evidence; where no named method decides, the cue
    decision of `_categorical`."""
    used = alg.value if alg is not None else ()
    _, rows, ranked, _ = _categorical_cell(dim, sents, sim, lens, low, ctx.background)
    src = lens.dimension(dim.derive.source)  # type: ignore[union-attr]
    # an unnamed method, or one named by reference to another report, implies no advantage by itself
    ref = re.compile(re.escape(src.reference_value).replace(re.escape("{name}"), ".+"))
    generic = frozenset(c.name for c in src.categories if c.generic) | {m for m in used if ref.fullmatch(m)}
    got = derived_value(dim, used, generic, {c: [h.sentence for h in hs] for c, hs in ranked.items()}, ctx.background)
    if got is None:
        return _categorical(dim, sents, sim, lens, low, ctx, model)
    value, main, evidence = got
    hits = [h for h in ranked.get(evidence, []) if h.sentence.index not in ctx.background] if evidence else []
    why = f"derived from the main method {main} (codebook)" + (f", stated: {evidence}" if evidence else "")
    quoted = hits or [h for h in ranked.get(value, []) if h.sentence.index not in ctx.background]
    derived = _cell([value], None, quoted[0] if quoted else None, support={c: len(h) for c, h in ranked.items()}, why=why)
    if not quoted and alg is not None and alg.quote:  # the method's own sentence is the evidence
        derived = replace(derived, quote=alg.quote, page=alg.page, page_label=alg.page_label, section=alg.section)
    sup = Support(
        dim.kind,
        default=False,
        sentences=tuple(h.sentence for h in hits),
        definition=bool(hits),
        n_values=1,
        n_other=sum(len(h) for c, h in ranked.items() if c != evidence),
    )
    return _scored(derived, sup, ctx, model), rows


def _no_stage(cells: dict[str, Cell], own: list[Sentence], lens: Lens, ctx: DocContext, model: Model) -> None:
    """A report without the lens's stage (`no_stage:`) shows its declared value in the declared dimensions,
    quoting the sentence that says so or says how the model is trained; the source dimension keeps the
    methods it found that are no such stage (rejection-sampling fine-tuning)."""
    ns = lens.no_stage
    if ns is None or ns.source not in cells:
        return
    found = no_stage(own, lens, cells[ns.source].value)
    if found is None:
        return
    s = found.sentence
    for dim_id in ns.dimensions:
        old = cells.get(dim_id)
        if old is None or (dim_id == ns.source and old.value != (NOT_DISCLOSED,)):
            continue
        cell = _cell([found.value], None, Hit(s, []) if s else None, why="the report says so" if found.said else
                     "no own-training sentence names the stage")  # fmt: skip
        sup = Support(lens.dimension(dim_id).kind, default=not found.said, sentences=(s,) if s else (), definition=found.said)
        cells[dim_id] = _scored(cell, sup, ctx, model)


def _skipped(sents: list[Sentence], lens: Lens) -> set[int]:
    """Indices of sentences under headings the lens skips (related work, limitations, failed attempts)."""
    skipped = Hits(alternation(lens.skip_headings))
    return {s.index for s in sents if s.heading and skipped[s.heading]}


def _with_methods(cells: dict[str, Cell], evidence: list[EvidenceRow], lens: Lens, model: Model) -> dict[str, Cell]:
    """Every cell with the document's count of distinct methods named (known only once the algorithm
    dimensions are read) among its features, and its confidence from them."""
    kinds = {d.id: d.kind for d in lens.dimensions}
    n = len({r.category for r in evidence if kinds.get(r.dimension) == "algorithm"})
    out = {}
    for dim, cell in cells.items():
        if cell.features is None:
            out[dim] = cell
            continue
        feats = with_doc_methods(cell.features, n)
        out[dim] = replace(cell, features=feats, confidence=model.predict(feats))
    return out


def _topic_not_own(sents: list[Sentence], other: set[int], lens: Lens) -> int:
    """Sentences naming the lens's stage (`no_stage.stage_headings`) that are not the authors' own work."""
    stage = alternation(lens.no_stage.stage_headings) if lens.no_stage else None
    return 0 if stage is None else sum(s.index in other and rx_hit(stage, s.text) for s in sents)


def annotate(sents: list[Sentence], lens: Lens, ranking: Ranking = "cues", model: Model | None = None) -> Annotation:
    """Every dimension of the lens for one document: a `Cell` per dimension and the ranked evidence.

    `cells[dim]` has value (category names, or ("not disclosed",)), confidence, quote,
    page, page_label, section, and per kind the support / roles / indicators behind it.

    Quotes are ranked by cue count by default: eval/annotate_eval.py measures TF-IDF ranking
    (`ranking="tfidf"`) as at most marginally better on the gold evidence pages, and importing
    scikit-learn would cost a cold ingest about a second. `model`: the confidence model of this
    run (refitted on Review decisions, see confidence_fit.py); the committed one by default.
    """
    sim = _Similarity(sents, lens) if ranking == "tfidf" else None
    skip = _skipped(sents, lens)
    is_summary = alternation(lens.background_headings)
    model = model or load_model()
    kept = [s for s in sents if s.index not in skip]
    low = Folded()  # each sentence folded once for all dimensions
    # codebook: only sentences on the authors' own training are evidence of use (sentence roles)
    other = set(roles(sents, lens, low))
    ctx = DocContext(
        background(sents, is_summary),
        len(sents),
        summary(sents, is_summary),
        headings=len({s.heading for s in sents if s.heading}),
        topic_not_own=_topic_not_own(sents, other, lens),
    )
    own = [s for s in kept if s.index not in other]
    cells: dict[str, Cell] = {}
    evidence: list[EvidenceRow] = []
    derived = [d for d in lens.dimensions if d.kind == "single" and d.derive is not None]
    for dim in [d for d in lens.dimensions if d not in derived] + derived:  # a derived one after its source
        if dim in derived:
            alg = cells.get(dim.derive.source)  # type: ignore[union-attr]
            cells[dim.id], rows = _derived(dim, own, sim, lens, low, ctx, model, alg)
        elif dim.kind in ("multi", "single"):
            cells[dim.id], rows = _categorical(dim, own, sim, lens, low, ctx, model)
        elif dim.kind == "algorithm":
            cell, mcell, rows = _algorithm(dim, sents, sim, lens, skip | other, low, ctx, model)
            cells[dim.id] = cell
            for other in lens.dimensions:
                if other.kind == "mentioned" and other.source == dim.id:
                    cells[other.id] = mcell
        elif dim.kind == "level":
            cells[dim.id], rows = _level(dim, kept, lens, low, ctx, model)
        else:
            continue
        evidence += rows
    _no_stage(cells, own, lens, ctx, model)
    cells = _with_methods(cells, evidence, lens, model)
    cells = {d.id: cells[d.id] for d in lens.dimensions if d.id in cells}  # table order
    return Annotation(lens.id, lens.fingerprint, cells, tuple(evidence))
