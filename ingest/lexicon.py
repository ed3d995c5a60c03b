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
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .registry import load_model

DEFAULT_LEXICON = Path(__file__).resolve().parent.parent / "data" / "lexicon.yaml"

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
            CompiledTerm(g.id, t.name, t.rule, t.compile(), tuple(t.forms) if t.rule != "regex" else (), t.case_sensitive)
            for g in self.groups
            for t in g.terms
        ]


_BOUNDARY = re.compile(r"[0-9A-Za-z_\u00c0-\u024f]")


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

    def spans(self, text: str, lowered: str | None = None) -> list[tuple[int, int]]:
        """Non-overlapping (start, end) of every match, leftmost first, longest form first —
        exactly what `self.regex.finditer(text)` returns. `lowered` is `text.lower()` if known."""
        if not self.forms:
            return [m.span() for m in self.regex.finditer(text) if m.end() > m.start()]
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


def load_lexicon(path: str | Path = DEFAULT_LEXICON) -> Lexicon:
    """Load and validate a lexicon file; raise SpecFileError naming the file and field."""
    return load_model(path, Lexicon, "lexicon", "the format notes at the top of data/lexicon.yaml")
