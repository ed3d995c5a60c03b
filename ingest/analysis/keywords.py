"""Stage 5 — keywords: counts, per-1,000-word densities and a KWIC concordance per section.

Matching runs on each section's text with whitespace folded to single spaces (newlines
included), the segments of a section joined by one space, so a phrase broken across lines
or pages still matches — as `grep` does on the reference's folded text. Every hit keeps its
page. Matches of one term do not overlap; different terms may overlap ("agent" also counts
inside "agentic"), as in the study. `all` is the sum of the sections, so the tables add up.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from ingest.analysis.lexicon import Lexicon
from ingest.reading.sections import SECTIONS, Segment
from ingest.reading.textnorm import WordRule, count_words, fold_ws

#: Characters of context kept on each side of a hit.
KWIC_CONTEXT = 70
#: KWIC lines kept per term and section (counts stay exact): a reader pages through a few hundred,
#: while a hostile or giant document could otherwise store millions of lines.
MAX_KWIC_PER_SECTION = 5000


@dataclass
class KeywordResult:
    """Counts (one row per section × term, sections plus 'all') and every hit in context."""

    words: dict[str, int]
    counts: list[dict] = field(default_factory=list)
    kwic: list[dict] = field(default_factory=list)


def density_unit(rule: str | None) -> str:
    """What a document's density is counted per 1,000 of: its words, or for a CJK document (whose
    words are counted one per character, `textnorm.word_rule`) its characters."""
    return "characters" if rule == "cjk" else "words"


def density(count: float, words: float | None, places: int = 4) -> float | None:
    """Occurrences per 1,000 words, rounded half up to `places` decimals as a reader would by hand.

    The one density of the project (stored tables, charts, the study's one-decimal statistics);
    None when the section has no words (not zero: unknown).
    """
    try:
        if not words or words != words or count != count:  # 0, None or NaN
            return None
        d = Decimal(int(count)) * 1000 / Decimal(int(words))
    except (TypeError, ValueError):
        return None
    return float(d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _section_texts(segments: list[Segment]) -> dict[str, tuple[str, list[int], list[Segment]]]:
    """Folded text of each section, with the start offset of each segment inside it."""
    out: dict[str, tuple[str, list[int], list[Segment]]] = {}
    for name in SECTIONS:
        segs = [s for s in segments if s.section == name]
        parts, starts, pos = [], [], 0
        for s in segs:
            t = fold_ws(s.text)
            starts.append(pos)
            parts.append(t)
            pos += len(t) + 1
        out[name] = (" ".join(parts), starts, segs)
    return out


def count_keywords(segments: list[Segment], lexicon: Lexicon, rule: WordRule = "whitespace") -> KeywordResult:
    """Count every lexicon term in every section; return tidy rows ready for the store."""
    texts = _section_texts(segments)
    words = {name: sum(count_words(s.text, rule) for s in texts[name][2]) for name in SECTIONS}
    words["all"] = sum(words.values())
    res = KeywordResult(words=words)
    lowered = {name: texts[name][0].lower() for name in SECTIONS}
    for ct in lexicon.compiled:
        total = 0
        for name in SECTIONS:
            text, starts, segs = texts[name]
            n = 0
            for start, end in ct.spans(text, lowered[name]) if text else ():
                n += 1
                if n > MAX_KWIC_PER_SECTION:
                    continue
                seg = segs[bisect.bisect_right(starts, start) - 1]
                res.kwic.append(
                    {
                        "group": ct.group,
                        "term": ct.term,
                        "section": name,
                        "page": seg.page,
                        "page_label": seg.label,
                        "left": left_context(text, start),
                        "match": text[start:end],
                        "right": right_context(text, end),
                        "offset": start,
                    }
                )
            total += n
            res.counts.append(_row(ct.group, ct.term, ct.rule, name, n, words[name]))
        res.counts.append(_row(ct.group, ct.term, ct.rule, "all", total, words["all"]))
    return res


def left_context(text: str, start: int) -> str:
    """Up to KWIC_CONTEXT characters before a match, without a cut word at the far end."""
    cut = max(0, start - KWIC_CONTEXT)
    left = text[cut:start]
    if cut > 0 and not text[cut - 1].isspace() and not left[:1].isspace():
        space = left.find(" ")
        left = left[space + 1 :] if space >= 0 else ""
    return left


def right_context(text: str, end: int) -> str:
    """Up to KWIC_CONTEXT characters after a match, without a cut word at the far end."""
    stop = end + KWIC_CONTEXT
    right = text[end:stop]
    if stop < len(text) and not text[stop].isspace() and not right[-1:].isspace():
        space = right.rfind(" ")
        right = right[:space] if space >= 0 else ""
    return right


def _row(group: str, term: str, rule: str, section: str, n: int, words: int) -> dict:
    return {
        "group": group,
        "term": term,
        "rule": rule,
        "section": section,
        "count": n,
        "words": words,
        "density": density(n, words),
    }
