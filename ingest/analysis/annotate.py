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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Literal

from ingest.analysis.codebook import stage_values, under_heading
from ingest.analysis.confidence import DocContext, Model, Support, background, features, load_model, summary
from ingest.analysis.cues import (  # noqa: F401 (fold, literal_gate: also used by tests and evals)
    FLAGS,
    CueSet,
    Folded,
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
from ingest.analysis.lens import NOT_DISCLOSED, Category, Dimension, Lens
from ingest.store.records import Annotation, Cell, ChecklistItem, EvidenceRow

#: Bump when evidence or annotation rules change in code, so stored annotations are recomputed.
ANNOTATE_VERSION = 6
NO_CONTEXT = DocContext()
Ranking = Literal["tfidf", "cues"]
#: Candidate sentences kept per dimension × category in the evidence table.
TOP_K = 5
#: Characters left/right of a method name searched for use/contrast phrases (within its clause).
WINDOW = 70


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
    introduces: list[tuple[frozenset[str] | None, re.Pattern[str]]] = field(default_factory=list)


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
            introduces=[(literal_gate([p]), rx) for p, rx in zip(dim.introduces, compile_cues(dim.introduces), strict=True)],
        )
    return _CACHE[key]


def prototype(cat: Category) -> str:
    """Text a category is compared with: its name, label, description and the words of its cues."""
    words = " ".join(re.sub(r"\\[a-z]|\(\?[-a-z:]*|[^A-Za-z0-9 -]", " ", c) for c in cat.cues)
    return " ".join(x for x in (cat.name.replace("/", " "), cat.label or "", cat.description or "", words) if x)


class _Similarity:
    """TF-IDF cosine similarity of sentences to category prototypes (fit per document)."""

    def __init__(self, sents: list[Sentence], lens: Lens):
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


def _supporters(sents: list[Sentence], dim: Dimension, comp: _Compiled, low: Folded | None = None) -> dict[str, list[Hit]]:
    out: dict[str, list[Hit]] = {c.name: [] for c in dim.categories}
    low = Folded() if low is None else low
    seen: dict[str, list[tuple[str, list[str]]]] = {}  # a repeated sentence is read once
    for s in sents:
        t = s.text
        if t not in seen:
            seen[t] = _category_cues(t, low[t], comp)
        for name, found in seen[t]:
            out[name].append(Hit(s, found))
    return out


def _category_cues(t: str, low: str, comp: _Compiled) -> list[tuple[str, list[str]]]:
    """(category, cues matched) for one sentence's text `t` (`low` = `fold(t)`).

    A sentence supports a category when one of its cues matches, the context matches and no
    negation does. Cheapest tests first: the context's plain strings, then the cues whose plain
    strings the sentence contains; the context and negation patterns only for a sentence a cue matched.
    """
    if comp.context is not None and not comp.context.may(low):
        return []
    found: dict[str, set[str]] = {}
    rxs, cat_of = comp.cats.rxs, comp.cat_of
    for i in comp.cats.candidates(low):
        m = rxs[i].search(t)
        if m:
            found.setdefault(cat_of[i], set()).add(m.group(0).lower())
    if not found:
        return []
    if comp.context is not None and not comp.context.search(t, low):
        return []
    if cues_match(comp.negation, t, low):
        return []
    return [(name, sorted(found[name])) for name in comp.names if name in found]


def _clause_left(text: str, start: int) -> str:
    left = text[max(0, start - WINDOW) : start]
    cut = max(left.rfind(","), left.rfind(";"), left.rfind(":"))
    return left[cut + 1 :] if cut >= 0 else left


def _clause_right(text: str, end: int) -> str:
    right = re.sub(r"^\s*[(\[][^)\]]*[)\]]", "", text[end : end + WINDOW])  # "(Shao et al., 2024)"
    m = re.search(r"[,;]", right)
    return right[: m.start()] if m else right


def introduced_methods(sents: list[Sentence], comp: _Compiled, low: Folded | None = None) -> dict[str, re.Pattern[str]]:
    """Methods the report names itself that no category knows: name -> a whole-word, case-sensitive cue.

    A name is taken from the dimension's `introduces` patterns (e.g. an acronym defined next to
    "policy optimization"); one that a category's cues already match maps onto that category.
    """
    out: dict[str, re.Pattern[str]] = {}
    if not comp.introduces:
        return out
    low = Folded() if low is None else low
    for s in sents:
        for gate, rx in comp.introduces:
            if not gate_may(gate, low[s.text]):
                continue
            for m in rx.finditer(s.text):
                name = " ".join(m.group("name").split()).strip(" .,;:")
                if len(name) < 2 or name in out or comp.cats.search(name, fold(name)):
                    continue
                out[name] = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w]|\+)")
    return out


def algorithm_roles(
    sents: list[Sentence],
    dim: Dimension,
    comp: _Compiled,
    extra: dict[str, re.Pattern[str]] | None = None,
    low: Folded | None = None,
) -> dict[str, list[Hit]]:
    """Every sentence naming a method, with its role: use, contrast or plain mention.

    `extra` adds methods the report introduces itself (see `introduced_methods`), each with one cue.
    """
    extra = extra or {}
    names = [*comp.names, *(n for n in extra if n not in comp.names)]
    own = [(n, fold(n), rx) for n, rx in extra.items()]  # (a name equal to a category's replaces its cues)
    low = Folded() if low is None else low
    out: dict[str, list[Hit]] = {name: [] for name in names}
    seen: dict[str, list[tuple[str, list[str], str]]] = {}  # a repeated sentence is read once
    for s in sents:
        t = s.text
        if t not in seen:
            seen[t] = _roles_of(t, low[t], comp, names, own)
        for name, cues, role in seen[t]:
            out[name].append(Hit(s, cues, role))
    return out


def _roles_of(
    t: str, low: str, comp: _Compiled, names: list[str], own: list[tuple[str, str, re.Pattern[str]]]
) -> list[tuple[str, list[str], str]]:
    """(method, cues matched, role) for every method one sentence's text `t` names (`low` = `fold(t)`);
    only the cues whose plain strings the sentence contains are searched."""
    by_name: dict[str, list[re.Pattern[str]]] = {}
    replaced = {n for n, _, _ in own}
    rxs, cat_of = comp.cats.rxs, comp.cat_of
    for i in comp.cats.candidates(low):
        if cat_of[i] not in replaced:
            by_name.setdefault(cat_of[i], []).append(rxs[i])
    for n, needle, rx in own:
        if needle in low:
            by_name[n] = [rx]
    if not by_name:
        return []
    negated: bool | None = None  # searched once a name is found
    found = []
    for name in names:
        if name not in by_name:
            continue
        roles, cues = [], set()
        # codebook: a use needs the sentence to say the method trains the model (`use_requires`), and a
        # method that only checks data (`mention_if`) is mentioned
        needs = comp.use_requires.get(name)
        can_use = not rx_hit(comp.mention_if.get(name), t) and (needs is None or rx_hit(needs, t))
        for r in by_name[name]:
            for m in r.finditer(t):
                if rx_hit(comp.not_after, t[m.end() : m.end() + 30]):
                    continue  # a data set or other thing named after the method
                cues.add(m.group(0).lower())
                if negated is None:
                    negated = cues_match(comp.negation, t, low)
                left, right = _clause_left(t, m.start()), _clause_right(t, m.end())
                if negated or rx_hit(comp.contrast_before, left) or rx_hit(comp.contrast_after, right):
                    roles.append("contrast")
                elif rx_hit(comp.mention_before, left) or not can_use:
                    roles.append("mention")
                elif rx_hit(comp.used_before, left) or rx_hit(comp.used_after, right):
                    roles.append("use")
                else:
                    roles.append("mention")
        if roles:
            role = "use" if "use" in roles else ("contrast" if "contrast" in roles else "mention")
            found.append((name, sorted(cues), role))
    return found


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


def _order(bg: frozenset[int]):
    return lambda h: (h.sentence.index in bg, -h.score, h.sentence.index)


def generic_uses(roles: dict[str, list[Hit]], comp: _Compiled, skip: set[int] = frozenset()) -> None:
    """Keep, for each `generic` category, only the sentences that describe the report's own training
    with an unnamed algorithm, all as uses; drop the rest (an unnamed method is never "mentioned").

    Dropped: a sentence naming a method (the description is of that method), one under a heading
    where a named method is used (the same stage), one under a skipped heading, one matching the
    category's `exclude` (future work, baselines), one read as a contrast; and, when the report uses
    a named method anywhere, one in a summary section (`summary_headings`, or before the first
    heading): an abstract's "we adopt a simple RL algorithm" restates the method named later.
    """
    if not comp.generic:
        return
    named = [hits for n, hits in roles.items() if n not in comp.generic]
    naming = {h.sentence.index for hits in named for h in hits}
    stages = {h.sentence.heading for hits in named for h in hits if h.role == "use" and h.sentence.heading}
    names_a_method = any(h.role == "use" for hits in named for h in hits)
    for name in comp.generic:
        ex, summary = comp.exclude.get(name), comp.summary.get(name)
        roles[name] = [
            Hit(h.sentence, h.cues, "use")
            for h in roles.get(name, [])
            if h.role != "contrast"
            and h.sentence.index not in naming
            and h.sentence.index not in skip
            and h.sentence.heading not in stages
            and not (names_a_method and (not h.sentence.heading or rx_hit(summary, h.sentence.heading)))
            and not rx_hit(ex, h.sentence.text)
        ]


def decide_algorithms(roles: dict[str, list[Hit]]) -> tuple[list[str], list[str]]:
    """(used, mentioned-only) method names: used = at least one use and no more contrasts than uses."""
    used, mentioned = [], []
    for name, hits in roles.items():
        if not hits:
            continue
        n_use = sum(h.role == "use" for h in hits)
        n_con = sum(h.role == "contrast" for h in hits)
        (used if n_use >= 1 and n_use >= n_con else mentioned).append(name)
    order = {n: -sum(h.role == "use" for h in roles[n]) for n in used}
    return sorted(used, key=lambda n: order[n]), mentioned


def _algorithm(
    dim: Dimension,
    sents: list[Sentence],
    sim: _Similarity | None,
    lens: Lens,
    skip: set[int] = frozenset(),
    low: Folded | None = None,
    ctx: DocContext = NO_CONTEXT,
    model: Model | None = None,
) -> tuple[Cell, Cell, list[EvidenceRow]]:
    model = model or load_model()
    bg = ctx.background
    comp = _compiled(lens, dim)
    low = Folded() if low is None else low
    roles = algorithm_roles(sents, dim, comp, introduced_methods(sents, comp, low), low)
    for hits in roles.values():  # under a skipped heading a name is at most mentioned
        for h in hits:
            if h.sentence.index in skip and h.role == "use":
                h.role = "mention"
    generic_uses(roles, comp, skip)
    used, mentioned = decide_algorithms(roles)
    used = sorted(used, key=lambda n: n in comp.generic)  # named methods first: the cell quotes one
    ranked = {}
    for name, hits in roles.items():
        if hits:
            rk = _rank(hits, sim, (dim.id, name), bg)
            # Quotes for a used method come from sentences that use it, then the rest.
            ranked[name] = sorted(rk, key=lambda h: h.role != "use") if name in used else rk
    tally = {n: {r: sum(h.role == r for h in hits) for r in ("use", "contrast", "mention")} for n, hits in roles.items() if hits}
    uses = [h for n in used for h in roles[n] if h.role == "use"]
    main = tally[used[0]] if used else {}
    sup = Support(
        "algorithm",
        default=not used,
        sentences=tuple(h.sentence for h in uses),
        definition=any(h.sentence.index not in bg for h in uses),  # a use stated in a method section
        n_values=len(used),
        competition=main.get("contrast", 0) / max(1, main.get("use", 0) + main.get("contrast", 0)),
    )
    cell = _cell(used or [NOT_DISCLOSED], None, ranked[used[0]][0] if used else None, roles=tally)
    ment = [h for n in mentioned for h in roles[n]]
    msup = Support(
        "mentioned",
        default=not mentioned,
        sentences=tuple(h.sentence for h in ment),
        definition=any(h.role == "contrast" for h in ment),  # compared with: clearly not the own method
        n_values=len(mentioned),
    )
    if mentioned:
        m = max(mentioned, key=lambda n: len(roles[n]))
        mcell = _cell(mentioned, None, ranked[m][0], roles={n: tally[n] for n in mentioned})
    else:
        mcell = _cell([NOT_DISCLOSED], None, None)
    return _scored(cell, sup, ctx, model), _scored(mcell, msup, ctx, model), _evidence_rows(dim.id, ranked)


@dataclass
class _LevelRx:
    require: CueSet | None
    exclude: CueSet | None
    indicators: list[tuple[str, list[CueSet], CueSet | None, int]]  # name, all_of groups, exclude, window
    #: per indicator: (heading regex, cue groups) of its `under_heading` rule, or None
    under: dict[str, tuple[re.Pattern[str] | None, list[CueSet]] | None] = field(default_factory=dict)


_LEVEL_CACHE: dict[tuple[str, str], _LevelRx] = {}


def _level_rx(lens: Lens, dim: Dimension) -> _LevelRx:
    key = (lens.fingerprint, dim.id)
    if key not in _LEVEL_CACHE:
        _LEVEL_CACHE[key] = _LevelRx(
            cue_set(dim.require),
            cue_set(dim.exclude),
            [(i.name, [CueSet(g) for g in i.all_of], cue_set(i.exclude), i.window) for i in dim.indicators],
            {
                i.name: (alternation(i.under_heading.heading), [CueSet(g) for g in i.under_heading.all_of])
                if i.under_heading
                else None
                for i in dim.indicators
            },
        )
    return _LEVEL_CACHE[key]


def _level(
    dim: Dimension,
    sents: list[Sentence],
    lens: Lens,
    low: Folded | None = None,
    ctx: DocContext = NO_CONTEXT,
    model: Model | None = None,
) -> tuple[Cell, list[EvidenceRow]]:
    """Count the indicators that fire; keep the whole checklist (FMTI-style: each yes/no with its quote)."""
    rx = _level_rx(lens, dim)
    low = Folded() if low is None else low
    pooled: dict[str, bool] = {}  # a repeated sentence (or window of sentences) is tested once

    def admitted(text: str) -> bool:
        if text not in pooled:
            f = low[text]
            pooled[text] = (rx.require is None or rx.require.search(text, f)) and not out_of_scope(text)
        return pooled[text]

    excluded: dict[str, bool] = {}

    def out_of_scope(text: str) -> bool:
        if text not in excluded:
            excluded[text] = cues_match(rx.exclude, text, low[text])
        return excluded[text]

    # a summary section (abstract, introduction, conclusion) restates or motivates: it discloses nothing
    # the method sections do not (blog text before any heading is the text itself and still counts)
    pool = [(i, s) for i, s in enumerate(sents) if admitted(s.text) and s.index not in ctx.summary]
    fired: dict[str, list[Hit]] = {}
    for name, groups, ex, window in rx.indicators:
        hits = []
        tested: dict[str, bool] = {}
        for i, s in pool:
            text = s.text
            if window > 1:  # read with the sentences just before it under the same heading (not excluded ones)
                before = [p for p in sents[max(0, i - window + 1) : i] if p.heading == s.heading and not out_of_scope(p.text)]
                text = " ".join([*(p.text for p in before), text])
            if text not in tested:
                f = fold(text) if window > 1 else low[text]
                tested[text] = (
                    all(g.may(f) for g in groups) and all(g.search(text, f) for g in groups) and not cues_match(ex, text, f)
                )
            if tested[text] or under_heading(rx.under.get(name), s, low[s.text], ex):
                hits.append(Hit(s, [], "indicator", 1.0))
        if len(hits) >= dim.min_sentences:
            fired[name] = hits
    n = len(fired)
    levels = dim.levels
    li = max(i for i, lv in enumerate(levels) if lv.min_indicators <= n)
    lower = levels[li].min_indicators
    upper = levels[li + 1].min_indicators if li + 1 < len(levels) else None
    margin = min(n - lower + 1, (upper - n) if upper is not None else 9)
    why = [f"{name} (p. {h[0].sentence.page_label}, {len(h)} sentence(s))" for name, h in fired.items()]
    checklist = []
    for ind in dim.indicators:
        first = fired[ind.name][0].sentence if ind.name in fired else None
        checklist.append(
            ChecklistItem(
                indicator=ind.name,
                label=ind.label or ind.name,
                fired=first is not None,
                sentences=len(fired.get(ind.name, [])),
                quote=first.text if first else None,
                page=first.page if first else None,
                page_label=first.page_label if first else None,
            )
        )
    best = next(iter(fired.values()))[0] if fired else None
    cell = _cell(
        [levels[li].name],
        None,
        best,
        indicators=tuple(fired),
        checklist=tuple(checklist),
        why="; ".join(why) if why else "no indicator fired",
        counted=n,
    )
    rows = _evidence_rows(dim.id, {name: hits for name, hits in fired.items()})
    sup = Support(
        "level",
        default=n == 0,
        sentences=tuple(h.sentence for hits in fired.values() for h in hits),
        definition=margin >= 2,
        n_values=n,
        margin=margin,
    )
    return _scored(cell, sup, ctx, model or load_model()), rows


def _skipped(sents: list[Sentence], lens: Lens) -> set[int]:
    """Indices of sentences under headings the lens skips (related work, limitations, failed attempts)."""
    rx = alternation(lens.skip_headings)
    return {s.index for s in sents if s.heading and rx_hit(rx, s.heading)}


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
    ctx = DocContext(background(sents, is_summary), len(sents), summary(sents, is_summary))
    model = model or load_model()
    kept = [s for s in sents if s.index not in skip]
    low = Folded()  # each sentence folded once for all dimensions
    cells: dict[str, Cell] = {}
    evidence: list[EvidenceRow] = []
    for dim in lens.dimensions:
        if dim.kind in ("multi", "single"):
            cells[dim.id], rows = _categorical(dim, kept, sim, lens, low, ctx, model)
        elif dim.kind == "algorithm":
            cell, mcell, rows = _algorithm(dim, sents, sim, lens, skip, low, ctx, model)
            cells[dim.id] = cell
            for other in lens.dimensions:
                if other.kind == "mentioned" and other.source == dim.id:
                    cells[other.id] = mcell
        elif dim.kind == "level":
            cells[dim.id], rows = _level(dim, kept, lens, low, ctx, model)
        else:
            continue
        evidence += rows
    return Annotation(lens.id, lens.fingerprint, cells, tuple(evidence))
