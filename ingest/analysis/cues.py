"""Cue matching shared by the annotation stages: case folding as regex IGNORECASE does, cue sets
searched only where they can match, alternations, and the literal prefilters behind them.

Why a module of its own: these are the hot loops of annotation (every cue against every
sentence) and their exactness is tested on their own (tests/test_annotate.py: the prefilters never
drop a sentence a cue matches); the annotation rules in annotate.py only use them.
"""

from __future__ import annotations

import re
from itertools import compress
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

FLAGS = re.IGNORECASE


#: Letters that `re.IGNORECASE` equates with "i" although `str.casefold` does not (checked over all
#: of Unicode by tests/test_annotate.py); `fold` maps them first.
_RE_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i"})


def fold(text: str) -> str:
    """`text` case-folded the way `re.IGNORECASE` compares letters: a plain string that every match
    of a pattern contains (`literal_gate`, folded alike) is in `fold(text)` whenever the pattern
    matches `text`."""
    if text.isascii() or ("\u0130" not in text and "\u0131" not in text):
        return text.casefold()
    return text.translate(_RE_FOLD).casefold()


class Folded(dict):
    """Folded text of each sentence text, computed once per document and shared by every dimension."""

    def __missing__(self, text: str) -> str:
        low = self[text] = fold(text)
        return low


class CueSet:
    """Patterns matched one by one, each only where it can match.

    Why: one alternation of many case-insensitive cues costs the regex engine a try of every cue at
    every character of every sentence. Here each pattern is searched only in sentences whose folded
    text contains one of the plain strings every match of it contains (`_required`; a pattern with
    none is always searched), so a sentence costs a few substring tests plus the searches of the
    few cues that can match. The answer is the same as searching every pattern.

    `split`: the set is only asked whether some pattern matches (`may`, `search`), never which or
    where; then each top-level alternative of a pattern is a pattern of its own (`alternatives`), with
    its own required strings, so a sentence is searched only for the alternatives it can match (one
    cue list is often a single long alternation). `rxs` and `candidates` then index those alternatives.
    """

    def __init__(self, patterns: list[str], split: bool = False) -> None:
        self.patterns = list(patterns)
        pieces = [q for p in self.patterns for q in (alternatives(p) if split else [p])]
        self.rxs = compile_cues(pieces)
        self.free: tuple[int, ...] = ()  # patterns without a required string: always searched
        by_lit: dict[str, list[int]] = {}
        free = []
        for i, p in enumerate(pieces):
            req = _literals(p)
            if req is None:
                free.append(i)
            else:
                for lit in sorted(req):
                    by_lit.setdefault(lit, []).append(i)
        self.free = tuple(free)
        self.lits: tuple[tuple[str, tuple[int, ...]], ...] = tuple((k, tuple(v)) for k, v in by_lit.items())
        # the strings and their patterns apart: `map(folded.__contains__, ...)` tests every string in C
        self._strs = tuple(k for k, _ in self.lits)
        self._ids = tuple(v for _, v in self.lits)

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def may(self, folded: str) -> bool:
        """Whether some pattern may match the text whose `fold` is `folded` (never False when one does)."""
        return bool(self.free) or any(map(folded.__contains__, self._strs))

    def candidates(self, folded: str) -> list[int]:
        """Indices, in order, of the patterns that may match (a superset of those that do)."""
        present = list(compress(self._ids, map(folded.__contains__, self._strs)))
        if not self.free:
            if not present:
                return []
            if len(present) == 1:
                return list(present[0])
        return sorted(set(self.free).union(*present))

    def search(self, text: str, folded: str) -> bool:
        """Whether one of the patterns matches `text` (`folded` = `fold(text)`)."""
        tried: set[int] = set()
        for i in self.free:
            if self.rxs[i].search(text):
                return True
        for ii in compress(self._ids, map(folded.__contains__, self._strs)):
            for i in ii:
                if i not in tried:
                    if self.rxs[i].search(text):
                        return True
                    tried.add(i)
        return False


def cue_set(patterns: list[str]) -> CueSet | None:
    """The patterns as a `CueSet` asked only whether one matches (`split`), or None for no patterns."""
    return CueSet(patterns, split=True) if patterns else None


def cues_match(cs: CueSet | None, text: str, folded: str) -> bool:
    return cs is not None and cs.search(text, folded)


def compile_cues(patterns: list[str]) -> list[re.Pattern[str]]:
    """The patterns compiled, each as `lookahead_last` rewrites it (same matches, same spans)."""
    return [re.compile(lookahead_last(p), FLAGS) for p in patterns]


def alternation(patterns: list[str]) -> re.Pattern[str] | None:
    """One compiled regex matching wherever one of `patterns` matches (None for no patterns).

    `alternation(ps).search(t)` is truthy exactly when `any(re.search(p, t) for p in ps)` is, since
    each pattern is wrapped in its own group; scoped flags such as `(?-i:Lean)` stay scoped.
    Used for the short phrase lists read around a method name; sentence-wide cue lists are `CueSet`s.
    """
    if not patterns:
        return None
    try:
        return re.compile("|".join(f"(?:{p})" for p in patterns), FLAGS)
    except re.error:  # e.g. the same named group in two cues: search them one by one
        return _AnyOf(compile_cues(patterns))  # type: ignore[return-value]


class _AnyOf:
    """Fallback for cues that cannot share one regex: `search` returns the first match of any."""

    def __init__(self, rxs: list[re.Pattern[str]]):
        self.rxs = rxs

    def search(self, text: str) -> re.Match[str] | None:
        return next((m for r in self.rxs if (m := r.search(text))), None)


def lookahead_last(pattern: str) -> str:
    """`pattern` rewritten to match the same text at the same places, faster when it opens with a lookahead.

    Why: the regex engine tries `(?=A)B` at every character, and a lookahead that reads ahead over
    a long span (`(?=[^.;]{0,200}\\bRL\\b)`) makes each try cost the span, where `B` alone fails at its
    first word almost everywhere. `(?=(?:B))(?=A)B` tests `B` first at each place; where `B` does not
    match there, neither did the pattern, and where it does, the pattern goes on as before (a lookahead
    consumes nothing, so the match and its span are unchanged; with `B` = `B1|B2`, the added test is
    met wherever `B1` matches). The copy of `B` captures nothing, so group numbers stay. A pattern with
    a backreference, a named group, a conditional or verbose mode is left as it is, as is every other.
    """
    if not pattern.startswith("(?=") or re.search(r"\\[1-9]|\(\?P|\(\?\(|\(\?[aiLmsu-]*x", pattern):
        return pattern
    end = _group_end(pattern)
    if end is None or end + 1 >= len(pattern):
        return pattern
    rest = _non_capturing(pattern[end + 1 :])
    if rest is None:
        return pattern
    out = f"(?=(?:{rest})){pattern}"
    try:
        re.compile(out, FLAGS)
    except re.error:
        return pattern
    return out


def alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of `pattern` ("a|b(c|d)" -> ["a", "b(c|d)"]): `pattern` matches
    somewhere in a text exactly when one of them does. A pattern whose parts cannot stand alone
    (global inline flags, a backreference or a conditional, verbose mode) is its own single part."""
    if re.match(r"\(\?[aiLmsux]+\)", pattern) or re.search(r"\\[1-9]|\(\?P=|\(\?\(|\(\?[aiLmsu-]*x", pattern):
        return [pattern]
    cuts, depth = [], 0
    for i, c, plain in _scan(pattern):
        if plain and c == "(":
            depth += 1
        elif plain and c == ")":
            depth -= 1
        elif plain and c == "|" and depth == 0:
            cuts.append(i)
    if not cuts or depth != 0:
        return [pattern]
    parts = [pattern[a + 1 : b] for a, b in zip([-1, *cuts], [*cuts, len(pattern)], strict=True)]
    try:
        for p in parts:
            re.compile(p, FLAGS)
    except re.error:
        return [pattern]
    return parts


def _scan(pattern: str):  # type: ignore[no-untyped-def]
    """(index, char, outside a character class and not escaped) for each character of `pattern`."""
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            yield i, pattern[i : i + 2], False
            i += 2
            continue
        if in_class:
            yield i, c, False
            in_class = c != "]"
        elif c == "[":
            yield i, c, False
            in_class, i = True, i + 1
            if pattern[i : i + 1] == "^":
                i += 1
            if pattern[i : i + 1] == "]":  # a leading "]" is a literal of the class
                i += 1
            continue
        else:
            yield i, c, True
        i += 1


def _group_end(pattern: str) -> int | None:
    """Index of the parenthesis that closes the group opening `pattern`, or None."""
    depth = 0
    for i, c, plain in _scan(pattern):
        if plain and c == "(":
            depth += 1
        elif plain and c == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


def _non_capturing(pattern: str) -> str | None:
    """`pattern` with each capturing group made non-capturing (None when its parentheses do not balance)."""
    out, last, depth = [], 0, 0
    for i, c, plain in _scan(pattern):
        if plain and c == "(":
            depth += 1
            if not pattern.startswith("?", i + 1):
                out.append(pattern[last : i + 1] + "?:")
                last = i + 1
        elif plain and c == ")":
            depth -= 1
            if depth < 0:
                return None
    return "".join(out) + pattern[last:] if depth == 0 else None


def rx_hit(rx: re.Pattern[str] | None, text: str) -> bool:
    return bool(rx is not None and rx.search(text))


class Hits(dict):
    """`rx_hit(rx, text)` of each distinct text, searched once: a document's sentences share a few
    hundred headings, and heading tests run per sentence."""

    def __init__(self, rx: re.Pattern[str] | None) -> None:
        super().__init__()
        self.rx = rx

    def __missing__(self, text: str) -> bool:
        hit = self[text] = rx_hit(self.rx, text)
        return hit


def _required(seq: object) -> frozenset[str] | None:
    """Strings of which every match of the parsed regex `seq` contains one (folded), or None."""

    best: frozenset[str] | None = None

    def better(cand: frozenset[str] | None) -> None:
        nonlocal best
        if cand and (best is None or min(map(len, cand)) > min(map(len, best))):
            best = cand

    run = ""
    for op, av in seq:  # type: ignore[attr-defined]
        if op is sre_constants.LITERAL:
            run += fold(chr(av))
            continue
        better(frozenset([run]) if run else None)
        run = ""
        if op is sre_constants.SUBPATTERN:
            better(_required(av[-1]))
        elif op is sre_constants.BRANCH:
            alts = [_required(b) for b in av[1]]
            better(None if any(a is None for a in alts) else frozenset().union(*alts))  # type: ignore[arg-type]
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and av[0] >= 1:
            better(_required(av[2]))
    better(frozenset([run]) if run else None)
    return best


def _literals(pattern: str) -> frozenset[str] | None:

    return _required(sre_parse.parse(pattern, FLAGS))


def literal_gate(patterns: list[str]) -> frozenset[str] | None:
    """Plain strings one of which (folded, see `fold`) a sentence must contain to match any of `patterns`.

    A fast, exact prefilter: `s in fold(text)` is far cheaper than a regex search, and a
    sentence without any of the strings cannot match, so results are unchanged. None when some
    pattern has no required literal (then every sentence is searched).
    """
    out: set[str] = set()
    for p in patterns:
        req = _literals(p)
        if req is None:
            return None
        out |= req
    return frozenset(out) if out else None


def gate_may(gate: frozenset[str] | None, folded: str) -> bool:
    return gate is None or any(map(folded.__contains__, gate))
