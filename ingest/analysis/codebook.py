"""Codebook rules that read a sentence's section heading (../shared/labels/CODEBOOK.md).

Why apart from annotate.py: they are the two rules where the section a sentence stands in decides,
not its words; each is stated in the codebook's own wording and driven by lens keys
(`mixed:` on a single dimension, `under_heading:` on a level indicator).
"""

from __future__ import annotations

import re

from ingest.analysis.cues import CueSet, cues_match, rx_hit
from ingest.analysis.evidence import Sentence
from ingest.analysis.lens import Dimension


def stage_values(dim: Dimension, support: dict[str, list[Sentence]], bg: frozenset[int]) -> dict[str, str]:
    """Each method section's own category: heading -> the category most of its sentences support.

    Codebook (credit granularity `mixed`): different granularities in different stages or tracks of
    the model's own training. A stage or track is a section of its own; summary sections (`bg`:
    abstract, introduction, conclusion, text before the first heading) restate, and the appendix
    details, so neither is a stage. Ties within a section go to the lens order. The `mixed`
    category itself is no stage's value."""
    order = {c.name: i for i, c in enumerate(dim.categories)}
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
