"""Sentence roles: does a sentence describe the authors' own training, or something else?

Why: the codebook counts only the authors' own training as evidence of use. A report also explains
methods in general (preliminaries), cites others (related work, "In the RLHF scenario [23] …"),
gives reasons against a choice ("the use of a reward model usually suffers from reward hacking"),
describes its evaluation, captions figures and plans future work. The lens's `sentence_roles:` rules
say how to tell, from the sentence's heading (or its chapter, the top-level heading above it), its
words, citations and subject, in general terms (English and Chinese); the first rule a sentence
meets gives its role, and a sentence no rule meets is the authors' own work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.analysis.cues import Folded, alternation, fold, gate_may, literal_gate, rx_hit
from ingest.analysis.evidence import Sentence
from ingest.analysis.lens import Lens

#: The role of a sentence that no rule meets.
OWN = "own"


@dataclass(frozen=True)
class _Rule:
    role: str
    headings: re.Pattern[str] | None
    text: re.Pattern[str] | None
    unless: re.Pattern[str] | None
    #: plain strings one of which the folded sentence must contain for `text` / `unless` to match (`literal_gate`)
    text_gate: frozenset[str] | None = None
    unless_gate: frozenset[str] | None = None


_CACHE: dict[str, list[_Rule]] = {}


def _rules(lens: Lens) -> list[_Rule]:
    if lens.fingerprint not in _CACHE:
        _CACHE[lens.fingerprint] = [
            _Rule(
                r.role,
                alternation(r.headings),
                alternation(r.text),
                alternation(r.unless),
                literal_gate(r.text),
                literal_gate(r.unless),
            )
            for r in lens.sentence_roles
        ]
    return _CACHE[lens.fingerprint]


def _text_hit(rx: re.Pattern[str] | None, gate: frozenset[str] | None, text: str, folded: str) -> bool:
    """`rx_hit(rx, text)`, searched only when the folded text holds one of the gate's strings (exact)."""
    return rx is not None and gate_may(gate, folded) and rx.search(text) is not None


def role_of(
    s: Sentence, lens: Lens, folded: str | None = None, heads: dict[tuple[str, str], tuple[bool, ...]] | None = None
) -> str:
    """The role of one sentence: the first rule it meets, else `OWN`.

    `folded`: `fold(s.text)` when the caller has it; `heads`: the rules' heading tests by
    (heading, chapter), shared by the sentences of a document (most share a few headings)."""
    rules = _rules(lens)
    key = (s.heading, s.chapter)
    by_head = heads.get(key) if heads is not None else None
    if by_head is None:
        by_head = tuple(rx_hit(r.headings, s.heading) or rx_hit(r.headings, s.chapter) for r in rules)
        if heads is not None:
            heads[key] = by_head
    f = fold(s.text) if folded is None else folded
    for r, head in zip(rules, by_head, strict=True):
        if (head or _text_hit(r.text, r.text_gate, s.text, f)) and not _text_hit(r.unless, r.unless_gate, s.text, f):
            return r.role
    return OWN


def roles(sents: list[Sentence], lens: Lens, low: Folded | None = None) -> dict[int, str]:
    """Sentence index -> role, for every sentence that is not the authors' own work (`low`: the
    document's folded sentence texts, shared with the other stages)."""
    low = Folded() if low is None else low
    heads: dict[tuple[str, str], tuple[bool, ...]] = {}
    out = {}
    for s in sents:
        r = role_of(s, lens, low[s.text], heads)
        if r != OWN:
            out[s.index] = r
    return out
