"""The level (disclosure) dimensions of `ingest.analysis.annotate`: count the named indicators that
fire and keep the whole checklist, each indicator yes/no with the first sentence that fired it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ingest.analysis.annotate_common import NO_CONTEXT, Hit, _cell, _evidence_rows, _scored
from ingest.analysis.codebook import under_heading
from ingest.analysis.confidence import DocContext, Model, Support, load_model
from ingest.analysis.cues import CueSet, Folded, alternation, cue_set, cues_match, fold
from ingest.analysis.evidence import Sentence
from ingest.analysis.lens import Dimension, Lens
from ingest.common.records import Cell, ChecklistItem, EvidenceRow


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
            [(i.name, [CueSet(g, split=True) for g in i.all_of], cue_set(i.exclude), i.window) for i in dim.indicators],
            {
                i.name: (alternation(i.under_heading.heading), [CueSet(g, split=True) for g in i.under_heading.all_of])
                if i.under_heading
                else None
                for i in dim.indicators
            },
        )
    return _LEVEL_CACHE[key]


@dataclass
class _Scope:
    """A level dimension's `require:` and `exclude:` tests of a text, each made once per text (a
    repeated sentence, or window of sentences, is tested once)."""

    rx: _LevelRx
    low: Folded
    pooled: dict[str, bool] = field(default_factory=dict)
    excluded: dict[str, bool] = field(default_factory=dict)

    def admitted(self, text: str) -> bool:
        if text not in self.pooled:
            f = self.low[text]
            self.pooled[text] = (self.rx.require is None or self.rx.require.search(text, f)) and not self.out_of_scope(text)
        return self.pooled[text]

    def out_of_scope(self, text: str) -> bool:
        if text not in self.excluded:
            self.excluded[text] = cues_match(self.rx.exclude, text, self.low[text])
        return self.excluded[text]


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
    scope = _Scope(rx, low)
    fired = _fired_indicators(dim, sents, rx, scope, ctx)
    n = len(fired)
    behind = {h.sentence.index for hits in fired.values() for h in hits}
    # sentences on the topic (the dimension's `require`) outside summaries that fire no indicator: a
    # level read from few indicators of a report that says much on the topic is less sure
    other = sum(s.index not in behind and s.index not in ctx.summary and scope.admitted(s.text) for s in sents)
    levels = dim.levels
    li = max(i for i, lv in enumerate(levels) if lv.min_indicators <= n)
    lower = levels[li].min_indicators
    upper = levels[li + 1].min_indicators if li + 1 < len(levels) else None
    margin = min(n - lower + 1, (upper - n) if upper is not None else 9)
    why = [f"{name} (p. {h[0].sentence.page_label}, {len(h)} sentence(s))" for name, h in fired.items()]
    best = next(iter(fired.values()))[0] if fired else None
    cell = _cell(
        [levels[li].name],
        None,
        best,
        indicators=tuple(fired),
        checklist=_checklist(dim, fired),
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
        n_other=other,
    )
    return _scored(cell, sup, ctx, model or load_model()), rows


def _fired_indicators(
    dim: Dimension, sents: list[Sentence], rx: _LevelRx, scope: _Scope, ctx: DocContext
) -> dict[str, list[Hit]]:
    """The indicators with at least `min_sentences` sentences that fire them, in lens order."""
    low = scope.low
    # a summary section (abstract, introduction, conclusion) restates or motivates: it discloses nothing
    # the method sections do not (blog text before any heading is the text itself and still counts)
    pool = [(i, s) for i, s in enumerate(sents) if scope.admitted(s.text) and s.index not in ctx.summary]
    # an indicator read over a window of sentences admits a sentence whose window is on the topic (a
    # translation may split one sentence in two: "The key challenge of Agent RL … . We run 20,000 environments")
    wide = [(i, s) for i, s in enumerate(sents) if s.index not in ctx.summary and not scope.out_of_scope(s.text)]
    fired: dict[str, list[Hit]] = {}
    amounts = {i.name: i.amount for i in dim.indicators if i.amount}
    for name, groups, ex, window in rx.indicators:
        if name in amounts:  # the amount of text on the topic: every sentence of the pool supports it
            if len(pool) >= amounts[name]:
                fired[name] = [Hit(s, [], "indicator", 1.0) for _, s in pool]
            continue
        hits = []
        tested: dict[str, bool] = {}
        for i, s in wide if window > 1 else pool:
            text = s.text
            if window > 1:  # read with the sentences just before it under the same heading (not excluded ones)
                before = [
                    p for p in sents[max(0, i - window + 1) : i] if p.heading == s.heading and not scope.out_of_scope(p.text)
                ]
                text = " ".join([*(p.text for p in before), text])
                if not scope.admitted(text):
                    continue
            if text not in tested:
                f = fold(text) if window > 1 else low[text]
                tested[text] = (
                    all(g.may(f) for g in groups) and all(g.search(text, f) for g in groups) and not cues_match(ex, text, f)
                )
            if tested[text] or under_heading(rx.under.get(name), s, low[s.text], ex):
                hits.append(Hit(s, [], "indicator", 1.0))
        if len(hits) >= dim.min_sentences:
            fired[name] = hits
    return fired


def _checklist(dim: Dimension, fired: dict[str, list[Hit]]) -> tuple[ChecklistItem, ...]:
    """Every indicator of the dimension, yes/no, with the first sentence that fired it."""
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
    return tuple(checklist)
