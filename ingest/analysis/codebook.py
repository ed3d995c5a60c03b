"""Codebook rules that read a sentence's section heading (../shared/labels/CODEBOOK.md).

Why apart from annotate.py: they are the two rules where the section a sentence stands in decides,
not its words; each is stated in the codebook's own wording and driven by lens keys
(`mixed:` on a single dimension, `under_heading:` on a level indicator).
"""

from __future__ import annotations

import re

from ingest.analysis.cues import CueSet, cues_match, rx_hit
from ingest.analysis.evidence import Sentence
from ingest.analysis.lens import NOT_DISCLOSED, Dimension


def stage_values(
    dim: Dimension, support: dict[str, list[Sentence]], bg: frozenset[int], prefer: tuple[str, ...] = ()
) -> dict[str, str]:
    """Each method section's own category: heading -> the category most of its sentences support.

    Codebook (credit granularity `mixed`): different granularities in different stages or tracks of
    the model's own training. A stage or track is a section of its own; summary sections (`bg`:
    abstract, introduction, conclusion, text before the first heading) restate, and the appendix
    details, so neither is a stage. Ties within a section go to the `prefer`red categories (the finer,
    more specific statement), then to the lens order. The `mixed` category itself is no stage's value."""
    order = {c.name: i - len(dim.categories) * (c.name in prefer) for i, c in enumerate(dim.categories)}
    per: dict[str, dict[str, int]] = {}
    for cat, sents in support.items():
        if cat == dim.mixed or cat not in order:
            continue
        for s in sents:
            if s.heading and s.index not in bg and s.section != "appendix":
                per.setdefault(s.heading, {}).setdefault(cat, 0)
                per[s.heading][cat] += 1
    return {head: min(cnt, key=lambda c: (-cnt[c], order[c])) for head, cnt in per.items()}


def under_heading(rule: tuple[re.Pattern[str] | None, list[CueSet]] | None, s: Sentence, folded: str, ex: CueSet | None) -> bool:
    """An indicator's `under_heading` rule: the sentence's heading says what it is about, so the
    sentence need not (codebook: an algorithm named under an RL-training heading counts as
    "algorithm named"). `folded` is the sentence's folded text; `ex` the indicator's exclusions."""
    if rule is None or not s.heading or not rx_hit(rule[0], s.heading):
        return False
    return all(g.search(s.text, folded) for g in rule[1]) and not cues_match(ex, s.text, folded)


def derived_value(
    dim: Dimension, used: tuple[str, ...], generic: frozenset[str], support: dict[str, list[Sentence]], bg: frozenset[int]
) -> tuple[str, str, str | None] | None:
    """(value, main method, category whose sentence is the evidence) that the codebook derives from the
    report's main used method (`dim.derive`), or None when no named method decides (then the cues do).

    Codebook (credit granularity): GRPO/DPO/RLOO-style outcome advantages give one score per response
    (trajectory/outcome); a learned critic with GAE for the model's own RL gives per-token credit, but only
    where an own-training sentence states it (`requires`); method sections (stages or tracks) of the own
    training that each state a different granularity make it `mixed` (see `stage_values`). `support` holds the
    own-training sentences of each category; summary sections (`bg`) restate and decide nothing."""
    d = dim.derive
    if d is None:
        return None
    main = next((m for m in used if m not in d.ignore and m != NOT_DISCLOSED), None)
    if main is None or main in generic:
        return None
    own = {c: [x for x in ss if x.index not in bg] for c, ss in support.items()}
    value, evidence = d.otherwise, None
    for r in d.rules:
        if main in r.methods:
            met = r.requires is None or bool(own.get(r.requires))
            value, evidence = (r.value, r.requires) if met else (d.otherwise, None)
            break
    if value is None:
        return None
    # stages or tracks (method sections) whose own best-supported granularities differ: mixed, quoting the finer one
    stages = set(stage_values(dim, own, bg, tuple(d.finer)).values())
    if len(stages) >= 2 and dim.mixed is not None:
        finer = [c for c in d.finer if c in stages] or sorted(stages - {value})
        return dim.mixed, main, finer[0] if finer else None
    return value, main, evidence
