"""A table region's words as lines and phrases: the units `word_verify` checks cells against.

A line is the words on one baseline; a phrase, the words of a line closer than `PHRASE_GAP_EM` (one
printed cell text, as the page shows it). Nothing here knows about results: it is the geometry the
checks stand on, kept apart so the checks read as checks."""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field
from functools import lru_cache

from ingest.analysis.result_meaning import clean
from ingest.reading.table_text import Word, value_or_dash

#: Words further apart than this share of their size are two phrases (a column gap, not a space).
PHRASE_GAP_EM = 0.5
_WORD = re.compile(r"[^\W_]+")


def tokens(*texts: str) -> set[str]:
    """The words of all `texts` (each text's words cached by `words_of`)."""
    return set().union(*map(words_of, texts))


@lru_cache(maxsize=65536)
def words_of(text: str) -> frozenset[str]:
    """The words of a name, cached: a table's labels and headers are asked about for every cell."""
    return frozenset(_WORD.findall(clean(text).casefold()))


@dataclass(slots=True, eq=False)
class Phrase:
    """Words of one line closer than `PHRASE_GAP_EM`: one printed cell text, as the page shows it.
    Never changed once made (not frozen: a region makes thousands, and a frozen dataclass sets each
    field through `object.__setattr__`); phrases are told apart by identity."""

    text: str
    x0: float
    x1: float
    line: int
    words: tuple[Word, ...] = ()
    alone: bool = False  # the only phrase of its line
    value: bool = field(init=False)  # a printed value or a dash (asked of every phrase many times)

    def __post_init__(self) -> None:
        self.value = value_or_dash(self.text)


_X0 = operator.attrgetter("x0")


def baseline_lines(words: list[Word]) -> list[list[Word]]:
    """Words grouped by baseline (within a third of their size), top to bottom, left to right."""
    out: list[list[Word]] = []
    head: Word | None = None  # the first word of the last line
    for w in sorted(words, key=lambda w: (w.base, w.x0)):
        if head is not None and abs(w.base - head.base) <= max(head.size, w.size, 1.0) / 3:
            out[-1].append(w)
        else:
            out.append([w])
            head = w
    return [sorted(ln, key=_X0) if len(ln) > 1 else ln for ln in out]


def phrases(words: list[Word]) -> list[list[Phrase]]:
    """The phrases of each line of `words`, top to bottom."""
    out: list[list[Phrase]] = []
    for i, ln in enumerate(baseline_lines(words)):
        cur = [ln[0]]
        groups: list[list[Word]] = [cur]
        prev = ln[0]  # the last word of the last phrase
        for w in ln[1:]:
            if w.x0 - prev.x1 > PHRASE_GAP_EM * max(w.size, prev.size, 1.0):
                cur = [w]
                groups.append(cur)
            else:
                cur.append(w)
            prev = w
        alone = len(groups) == 1
        out.append([Phrase(" ".join(x.text for x in g), g[0].x0, g[-1].x1, i, tuple(g), alone) for g in groups])
    return out


def over(p: Phrase, v: Phrase) -> bool:
    return min(p.x1, v.x1) - max(p.x0, v.x0) > 0


def splits(p: Phrase, values: list[Phrase]) -> bool:
    """Whether header phrase `p` is cut over the `values` of a line (`Column.line`): it stands over
    two or more of them and each of its words over exactly one — headers of adjacent columns set
    closer than a word gap, not one header spanning them."""
    x0, x1 = p.x0, p.x1
    if sum(1 for q in values if min(x1, q.x1) - max(x0, q.x0) > 0) < 2:  # (`over(p, q)` inline)
        return False
    # each word as `over` would test it as a phrase of its own
    return not any(sum(min(w.x1, q.x1) - max(w.x0, q.x0) > 0 for q in values) != 1 for w in p.words)


def cut(p: Phrase, v: Phrase) -> Phrase | None:
    """`p` cut to its words over `v`; None when none is."""
    mine = [w for w in p.words if min(w.x1, v.x1) - max(w.x0, v.x0) > 0]  # `over` of the word alone
    if not mine:
        return None
    return Phrase(" ".join(w.text for w in mine), mine[0].x0, mine[-1].x1, p.line, tuple(mine))
