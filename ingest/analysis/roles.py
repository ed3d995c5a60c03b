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

from ingest.analysis.cues import alternation, rx_hit
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


_CACHE: dict[str, list[_Rule]] = {}


def _rules(lens: Lens) -> list[_Rule]:
    if lens.fingerprint not in _CACHE:
        _CACHE[lens.fingerprint] = [
            _Rule(r.role, alternation(r.headings), alternation(r.text), alternation(r.unless)) for r in lens.sentence_roles
        ]
    return _CACHE[lens.fingerprint]


def role_of(s: Sentence, lens: Lens) -> str:
    """The role of one sentence: the first rule it meets, else `OWN`."""
    for r in _rules(lens):
        met = rx_hit(r.headings, s.heading) or rx_hit(r.headings, s.chapter) or rx_hit(r.text, s.text)
        if met and not rx_hit(r.unless, s.text):
            return r.role
    return OWN


def roles(sents: list[Sentence], lens: Lens) -> dict[int, str]:
    """Sentence index -> role, for every sentence that is not the authors' own work."""
    out = {}
    for s in sents:
        r = role_of(s, lens)
        if r != OWN:
            out[s.index] = r
    return out
