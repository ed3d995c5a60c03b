"""Keyword lexicon: groups of terms with a match rule, declared once in `data/lexicon.yaml`.

The pipeline compiles each term into one regular expression; the dashboard reads the same
file for its group picker and labels. Rules are described in the YAML header and README.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ingest.sources.registry import load_model

DEFAULT_LEXICON = Path(__file__).resolve().parents[2] / "data" / "lexicon.yaml"

Rule = Literal["substring", "word", "regex"]
# Word boundaries are Latin letters/digits only, so "Agent能力" still contains the word "Agent".
_WB_L = r"(?<![0-9A-Za-z_\u00c0-\u024f])"
_WB_R = r"(?![0-9A-Za-z_\u00c0-\u024f])"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


class Term(_Strict):
    """One counted term and how it matches."""

    name: str = Field(min_length=1)
    rule: Rule
    inflections: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    pattern: str | None = None
    case_sensitive: bool = False
    description: str | None = None

    @model_validator(mode="after")
    def _rule_fields(self) -> Term:
        if self.rule == "regex":
            if not self.pattern:
                raise ValueError("rule `regex` needs `pattern:`")
            if self.inflections or self.aliases:
                raise ValueError("rule `regex` takes no inflections/aliases; put them in the pattern")
            try:
                re.compile(self.pattern)
            except re.error as exc:
                raise ValueError(f"invalid regular expression: {exc}") from exc
        elif self.pattern:
            raise ValueError(f"`pattern:` is only for rule `regex` (this term's rule is {self.rule!r})")
        if self.rule == "substring" and self.inflections:
            raise ValueError("rule `substring` already matches inflections; use `aliases:` for other spellings")
        return self

    @property
    def forms(self) -> list[str]:
        """Literal strings matched (longest first, so 'reward models' wins over 'reward model')."""
        return sorted({self.name, *self.inflections, *self.aliases}, key=lambda s: (-len(s), s))

    def compile(self) -> re.Pattern[str]:
        flags = 0 if self.case_sensitive else re.IGNORECASE
        if self.rule == "regex":
            return re.compile(self.pattern or "", flags)
        alts = "|".join(re.escape(f).replace(r"\ ", " ") for f in self.forms)
        if self.rule == "substring":
            return re.compile(alts, flags)
        return re.compile(f"{_WB_L}(?:{alts}){_WB_R}", flags)


class Group(_Strict):
    """A named set of terms (a lexicon group), e.g. the study's five words."""

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    label: str
    description: str | None = None
    terms: list[Term] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> Group:
        names = [t.name for t in self.terms]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"duplicate term name(s) in group {self.id!r}: {', '.join(dup)}")
        return self


class Lexicon(_Strict):
    """All groups; `version` lets the format evolve."""

    version: Literal[1] = 1
    groups: list[Group] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_groups(self) -> Lexicon:
        ids = [g.id for g in self.groups]
        if len(ids) != len(set(ids)):
            raise ValueError("duplicate group ids")
        return self

    def group(self, group_id: str) -> Group:
        return next(g for g in self.groups if g.id == group_id)

    @cached_property
    def fingerprint(self) -> str:
        """Hash of the lexicon's content: results counted with another lexicon are recounted."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]

    @cached_property
    def compiled(self) -> list[CompiledTerm]:
        return [
            CompiledTerm(
                g.id,
                t.name,
                t.rule,
                rx := t.compile(),
                tuple(t.forms) if t.rule != "regex" else (),
                t.case_sensitive,
                match_starts(rx) if t.rule == "regex" else None,
            )
            for g in self.groups
            for t in g.terms
        ]


_BOUNDARY = re.compile(r"[0-9A-Za-z_\u00c0-\u024f]")
#: Characters `re.IGNORECASE` equates with an ASCII letter (Kelvin sign, dotted İ, dotless ı, long ſ):
#: where one occurs, a lower-cased text is not a faithful map of case-insensitive matches.
_ASCII_LOOKALIKES = ("\u212a", "\u0130", "\u0131", "\u017f")


def match_starts(rx: re.Pattern[str]) -> tuple[str, ...] | None:
    """Plain ASCII strings one of which every match of `rx` starts with (lower case when `rx`
    ignores case), or None when the pattern does not say (a class, a repeat or a scoped flag first,
    or a match that may be empty).

    Why: `finditer` of a pattern that starts with a word ("keep|retain …", "best", "LLM") tries a
    match at every character of a section; trying only where one of these strings stands finds
    the same matches (see `CompiledTerm.spans`)."""

    def first(seq: list) -> set[str] | None:  # type: ignore[type-arg]
        i = 0
        while i < len(seq) and seq[i][0] in (
            sre_constants.AT,
            sre_constants.ASSERT,
            sre_constants.ASSERT_NOT,
        ):  # zero-width: skipped
            i += 1
        if i == len(seq):
            return None
        op, av = seq[i]
        if op is sre_constants.LITERAL:
            run = ""
            while i < len(seq) and seq[i][0] is sre_constants.LITERAL:
                run += chr(seq[i][1])
                i += 1
            return {run}
        if op is sre_constants.SUBPATTERN:
            if av[1] or av[2]:  # scoped flags change how the literal compares
                return None
            return first(list(av[-1]))
        if op is sre_constants.BRANCH:
            out: set[str] = set()
            for alt in av[1]:
                got = first(list(alt))
                if got is None:
                    return None
                out |= got
            return out
        return None

    try:
        parsed = sre_parse.parse(rx.pattern, rx.flags)
        if parsed.getwidth()[0] == 0:
            return None
        got = first(list(parsed))
    except Exception:  # an unusual pattern: search it the plain way
        return None
    if not got or not all(x.isascii() for x in got):
        return None
    if rx.flags & re.IGNORECASE:
        got = {x.lower() for x in got}
    # A string that starts with another of the set adds no place to try ("keeping" after "keep").
    return tuple(sorted(x for x in got if not any(y != x and x.startswith(y) for y in got)))


@dataclass(frozen=True)
class CompiledTerm:
    """A term ready to match. Literal rules use `str.find` (several times faster than a regex
    with look-arounds on long texts); `regex` is the reference semantics they reproduce."""

    group: str
    term: str
    rule: str
    regex: re.Pattern[str]
    forms: tuple[str, ...] = ()
    case_sensitive: bool = False
    starts: tuple[str, ...] | None = None  # `regex` rule: strings every match starts with (`match_starts`)

    def spans(self, text: str, lowered: str | None = None) -> list[tuple[int, int]]:
        """Non-overlapping (start, end) of every match, leftmost first, longest form first —
        exactly what `self.regex.finditer(text)` returns. `lowered` is `text.lower()` if known."""
        if not self.forms:
            return self._regex_spans(text, lowered)
        hay = text
        if not self.case_sensitive:
            hay = lowered if lowered is not None else text.lower()
            if len(hay) != len(text):  # a Unicode case mapping changed the length: offsets would drift
                return [m.span() for m in self.regex.finditer(text)]
        cands = []
        for form in self.forms:
            needle = form if self.case_sensitive else form.lower()
            i = hay.find(needle)
            while i >= 0:
                end = i + len(needle)
                if self.rule != "word" or not (
                    (i > 0 and _BOUNDARY.match(text, i - 1)) or (end < len(text) and _BOUNDARY.match(text, end))
                ):
                    cands.append((i, -len(needle)))
                i = hay.find(needle, i + 1)
        out: list[tuple[int, int]] = []
        pos = 0
        for start, neg_len in sorted(cands):
            if start >= pos:
                out.append((start, start - neg_len))
                pos = start - neg_len
        return out

    def _regex_spans(self, text: str, lowered: str | None) -> list[tuple[int, int]]:
        """The pattern's non-empty matches. With `starts`, a match is tried only where one of those
        strings stands (in the text, or in its lower-case form when the pattern ignores case and
        lower-casing keeps every position and every case-insensitive match): the leftmost match
        from a position starts at one of these places, so the matches are those of `finditer`."""
        if self.starts is None:
            return [m.span() for m in self.regex.finditer(text) if m.end() > m.start()]
        hay = text
        if self.regex.flags & re.IGNORECASE:
            hay = lowered if lowered is not None else text.lower()
            if len(hay) != len(text) or any(ch in text for ch in _ASCII_LOOKALIKES):
                return [m.span() for m in self.regex.finditer(text) if m.end() > m.start()]
        at: set[int] = set()
        for s in self.starts:
            i = hay.find(s)
            while i >= 0:
                at.add(i)
                i = hay.find(s, i + 1)
        out: list[tuple[int, int]] = []
        pos = 0
        match = self.regex.match
        for i in sorted(at):
            if i < pos:
                continue
            m = match(text, i)
            if m is not None:  # (never empty: `match_starts` requires a non-empty match)
                out.append(m.span())
                pos = m.end()
        return out


def load_lexicon(path: str | Path = DEFAULT_LEXICON) -> Lexicon:
    """Load and validate a lexicon file; raise SpecFileError naming the file and field."""
    return load_model(path, Lexicon, "lexicon", "the format notes at the top of data/lexicon.yaml")
