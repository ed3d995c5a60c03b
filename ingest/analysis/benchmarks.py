"""The benchmark catalogue (`data/benchmarks.yaml`): canonical ids, aliases, categories, and the
vocabularies the results stage reads tables with (metric labels, settings, key columns, attribute
rows). Declared once as data; the pipeline, exports, eval and dashboard all read it from here.

Name normalisation (`norm_name`) is the one rule used to compare benchmark and model names
everywhere (lookup and evaluation): NFKC, casefold, apostrophes dropped, and everything but
letters, digits, '+' and '&' dropped.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ingest.sources.registry import load_model

DEFAULT_CATALOGUE = Path(__file__).resolve().parents[2] / "data" / "benchmarks.yaml"
_DOC = "the format notes at the top of data/benchmarks.yaml"

_DROP = re.compile(r"[^0-9a-z+&\u00c0-\uffff]")
#: Split and version qualifiers retried without: "MathVista-Test", "LiveCodeBench v6", "MMLU (5-shot)".
_QUALIFIER = re.compile(
    r"(\s*\([^)]*\)|[\s_-]*(test|val|valid|validation|dev|full|all|v\d+(\.\d+)*|\d{4}[-.]\d{2}([-.]\d{2})?(\s*-\s*\d{4}[-.]\d{2}([-.]\d{2})?)?))$",
    re.I,
)


#: Entries a catalogue's per-text caches keep before they start over: a long-lived catalogue (a
#: worker's, the dashboard's) meets every table text of every report, so its memory stays bounded.
MEMO_ENTRIES = 65536

_K = TypeVar("_K")
_V = TypeVar("_V")


def _memo(cache: dict[_K, _V], key: _K, make: Callable[[], _V]) -> _V:
    """`cache[key]`, made by `make()` when missing; the cache is emptied when it holds MEMO_ENTRIES."""
    try:
        return cache[key]
    except KeyError:
        pass
    if len(cache) >= MEMO_ENTRIES:
        cache.clear()
    value = cache[key] = make()
    return value


@lru_cache(maxsize=65536)
def norm_name(s: str) -> str:
    """Comparable form of a printed name: "LiveCode Bench" == "LiveCodeBench", "AIME'24" -> "aime24"."""
    s = unicodedata.normalize("NFKC", s or "").casefold().replace("'", "").replace("\u2019", "")
    return _DROP.sub("", s)


#: A reference to a group, or inline flags: what a pattern cannot keep inside `_any_pattern`.
_GROUP_REF = re.compile(r"\\[1-9]|\(\?P=|\(\?\(|\(\?[aiLmsux-]+[:)]")


def valid_regexes(patterns: list[str]) -> list[str]:
    """Reject a bad regular expression when the catalogue loads, naming it (not while a table is read)."""
    for p in patterns:
        try:
            re.compile(p)
        except re.error as exc:
            raise ValueError(f"{p!r} is not a valid regular expression ({exc})") from exc
    return patterns


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


class Benchmark(_Strict):
    """One catalogue entry."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")
    name: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)
    patterns: list[str] = Field(default_factory=list)
    category: str
    higher_is_better: bool = True
    unit: str = "%"

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, v: list[str]) -> list[str]:
        return valid_regexes(v)


class Catalogue(_Strict):
    """The whole file; see its header for the format."""

    version: int = Field(ge=1, le=1)
    categories: dict[str, str]
    metrics: list[str] = Field(default_factory=list)
    settings: list[str] = Field(default_factory=list)
    key_columns: list[str] = Field(default_factory=list)
    attribute_rows: list[str] = Field(default_factory=list)
    label_words: list[str] = Field(default_factory=list)
    rating_metrics: list[str] = Field(default_factory=list)
    benchmark_words: list[str] = Field(default_factory=list)
    result_captions: list[str] = Field(default_factory=list)
    non_result_captions: list[str] = Field(default_factory=list)
    model_words: list[str] = Field(default_factory=list)
    benchmark_columns: list[str] = Field(default_factory=list)
    split_columns: list[str] = Field(default_factory=list)
    benchmarks: list[Benchmark]

    @field_validator(
        "metrics",
        "settings",
        "key_columns",
        "attribute_rows",
        "label_words",
        "rating_metrics",
        "benchmark_words",
        "result_captions",
        "non_result_captions",
        "model_words",
        "benchmark_columns",
        "split_columns",
    )
    @classmethod
    def _regexes(cls, v: list[str]) -> list[str]:
        return valid_regexes(v)

    @model_validator(mode="after")
    def _consistent(self) -> Catalogue:
        seen: dict[str, str] = {}
        for b in self.benchmarks:
            if b.category not in self.categories:
                raise ValueError(f"benchmark {b.id}: unknown category {b.category!r} (one of {', '.join(self.categories)})")
            for name in (b.name, *b.aliases):
                key = norm_name(name)
                if key in seen and seen[key] != b.id:
                    raise ValueError(f"name {name!r} of {b.id} is already a name of {seen[key]}")
                seen[key] = b.id
        ids = [b.id for b in self.benchmarks]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"duplicate benchmark id(s): {', '.join(dup)}")
        return self

    # ---------------------------------------------------------------- lookups
    @cached_property
    def _names(self) -> dict[str, Benchmark]:
        out: dict[str, Benchmark] = {}
        for b in self.benchmarks:
            for name in (b.name, *b.aliases, b.id):
                out.setdefault(norm_name(name), b)
        return out

    @cached_property
    def _patterns(self) -> list[tuple[re.Pattern[str], Benchmark]]:
        return [(re.compile(p), b) for b in self.benchmarks for p in b.patterns]

    @cached_property
    def _any_pattern(self) -> tuple[re.Pattern[str], dict[int, Benchmark]] | None:
        """The patterns as one alternation, each in a group of its own, and the benchmark of each
        group: its `fullmatch` takes the first pattern that matches in full, as a scan of
        `_patterns` in order does (an alternative is tried, with all its backtracking, before the
        next), in one call. None (scan instead) when a pattern refers to a group by number or
        name or sets flags, which its place in the alternation would change."""
        parts, owner, group = [], {}, 1
        for rx, b in self._patterns:
            if rx.flags != re.UNICODE or _GROUP_REF.search(rx.pattern):
                return None
            parts.append(f"({rx.pattern})")
            owner[group] = b
            group += 1 + rx.groups
        try:
            return re.compile("|".join(parts) or r"(?!)"), owner
        except re.error:
            return None

    @cached_property
    def by_id(self) -> dict[str, Benchmark]:
        return {b.id: b for b in self.benchmarks}

    @cached_property
    def _cache(self) -> dict[str, Benchmark | None]:
        return {}

    @cached_property
    def _vocabs(self) -> dict[str, re.Pattern[str]]:
        return {}

    @cached_property
    def _matched(self) -> dict[tuple[str, str], bool]:
        return {}

    @cached_property
    def name_keys(self) -> frozenset[str]:
        """Normalised names and aliases (for a quick "does this text name a benchmark" scan)."""
        return frozenset(k for k in self._names if len(k) >= 3)

    def mentions_any(self, text: str) -> bool:
        """True when a word or two-word run of `text` is a catalogue name (set lookups only: fast)."""
        words = [norm_name(w) for w in text.split()]
        keys = self.name_keys
        return any(w in keys or (w + nxt) in keys for w, nxt in zip(words, [*words[1:], ""], strict=True))

    def lookup(self, name: str) -> Benchmark | None:
        """The entry a printed benchmark name refers to, or None (see the module docstring)."""
        return _memo(self._cache, name, lambda: _lookup(self, name))

    def _vocab(self, field: str) -> re.Pattern[str]:
        if field not in self._vocabs:
            pats = getattr(self, field)
            self._vocabs[field] = re.compile("|".join(f"(?:{p})" for p in pats) or r"(?!)", re.I)
        return self._vocabs[field]

    def _is(self, field: str, text: str) -> bool:
        """Whether `text` (stripped) is a whole match of the `field` word list; cached by text, as
        `lookup` is: a table's headers and labels are asked about for every row and cell."""
        return _memo(self._matched, (field, text), lambda: bool(text) and bool(self._vocab(field).fullmatch(text.strip())))

    def is_metric(self, text: str) -> bool:
        return self._is("metrics", text)

    def is_setting(self, text: str) -> bool:
        return self._is("settings", text)

    def is_key_column(self, text: str) -> bool:
        return self._is("key_columns", text)

    def is_attribute_row(self, text: str) -> bool:
        return self._is("attribute_rows", text)

    def is_label_word(self, text: str) -> bool:
        return self._is("label_words", text)

    def says_benchmark(self, text: str) -> bool:
        """The text uses a word for benchmark scores (`benchmark_words`: "benchmark", "leaderboard", …)."""
        return bool(self._vocab("benchmark_words").search(text or ""))

    def is_rating_word(self, word: str) -> bool:
        """One word that is a rating metric on its own ("Total", "Score"): a summed-score column."""
        return bool(word) and bool(self._vocab("rating_metrics").fullmatch(word.strip("().:")))

    def is_result_caption(self, caption: str) -> bool:
        """A caption that says its table holds evaluation results (`result_captions`) and not that
        it describes models, data or systems (`non_result_captions`): how a table whose benchmarks
        the catalogue does not know is still read as results."""
        text = caption or ""
        return bool(self._vocab("result_captions").search(text)) and not self._vocab("non_result_captions").search(text)

    def is_non_result_caption(self, caption: str) -> bool:
        """A caption that says its table describes models, data or settings and not that it holds
        results ("Pre-training setting of each stage"): not read as results even when a cell
        names a catalogue benchmark (a data-mixture row called "Math")."""
        text = caption or ""
        return bool(self._vocab("non_result_captions").search(text)) and not self._vocab("result_captions").search(text)

    def is_split_parent(self, outer: str, inner: str) -> bool:
        """Label-column headers that say the outer column names benchmarks and the inner one their
        splits ("Benchmark" | "Split"): a row's split joins its benchmark's name, not its group."""
        o, i = (outer or "").strip(), (inner or "").strip()
        return bool(o and i) and bool(self._vocab("benchmark_columns").fullmatch(o) and self._vocab("split_columns").fullmatch(i))

    def is_model_word(self, text: str) -> bool:
        """A corner-cell word that says the label column holds models ("Model", "Method")."""
        return bool(text) and bool(self._vocab("model_words").fullmatch(text.strip()))

    def is_rating(self, metric: str | None, bench: Benchmark | None) -> bool:
        """Values of this metric/benchmark are not percentages (Elo, ratings, scores, counts)."""
        if bench is not None and bench.unit != "%":
            return True
        return bool(metric) and bool(self._vocab("rating_metrics").search(metric or ""))

    @cached_property
    def fingerprint(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]


def _lookup(cat: Catalogue, name: str) -> Benchmark | None:
    seen = set()
    cur = name
    for _ in range(4):
        key = norm_name(cur)
        if not key or key in seen:
            break
        seen.add(key)
        hit = cat._names.get(key)
        if hit is None and (one := cat._any_pattern) is not None:
            m = one[0].fullmatch(key)
            hit = one[1][m.lastindex] if m is not None and m.lastindex is not None else None
        elif hit is None:
            hit = next((b for rx, b in cat._patterns if rx.fullmatch(key)), None)
        if hit is not None:
            return hit
        stripped = _QUALIFIER.sub("", cur).strip()
        if stripped == cur:
            break
        cur = stripped
    return None


def load_catalogue(path: str | Path = DEFAULT_CATALOGUE) -> Catalogue:
    """Read and validate the catalogue; a broken file is a SpecFileError naming file, field and hint."""
    p = Path(path)
    try:
        mtime = p.stat().st_mtime_ns
    except OSError:
        mtime = 0
    return _load(str(p.resolve()), mtime)


@lru_cache(maxsize=4)
def _load(path: str, _mtime: int) -> Catalogue:
    return load_model(path, Catalogue, "benchmark catalogue", _DOC)
