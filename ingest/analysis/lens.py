"""A lens: the comparison table's dimensions, categories and cues, declared once in YAML.

`data/lenses/*.yaml` is read by the pipeline (annotate), the tables, the eval script and the
dashboard; labels and validation derive from it, so a new lens is a new YAML file and no code.
Loading is strict: unknown keys, bad regular expressions, duplicate names and kind-specific
mistakes (a `level` dimension without levels) are `SpecFileError`s naming file, field and hint.

Dimension kinds (what `ingest.analysis.annotate` does with them):

* `multi`     several categories may hold at once (reward sources);
* `single`    one category, the best-supported one (credit granularity);
* `algorithm` categories are named methods, each decided *used* or *mentioned only*; its
  `introduces:` patterns add, per report, a method the report defines itself; a `generic: true`
  category stands for an own-training algorithm the report describes without naming it;
* `mentioned` no categories of its own: the mentioned-only names of its `source` dimension;
* `level`     an ordered level computed from named indicators (disclosure); every indicator is
  kept as a yes/no checklist item with its quote.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import re
import sys
import threading
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ingest.sources.registry import SpecError, SpecFileError
from ingest.sources.spec_file import model_from_text, read_file

LENS_DIR = Path(__file__).resolve().parents[2] / "data" / "lenses"
DEFAULT_LENS = LENS_DIR / "agentic_rl.yaml"

#: Cell values with a fixed meaning; no category may take these names.
NOT_DISCLOSED = "not disclosed"
NOT_ASSESSED = "not assessed"
RESERVED = (NOT_DISCLOSED, NOT_ASSESSED)

Kind = Literal["multi", "single", "algorithm", "mentioned", "level"]


#: True while a lens text whose regular expressions all compiled before is validated (see `load_lens`).
_REGEX_CHECKED: contextvars.ContextVar[bool] = contextvars.ContextVar("lens_regex_checked", default=False)


def _compile_all(patterns: list[str]) -> list[str]:
    """Reject a bad regular expression at load time, naming it (not at annotation time)."""
    if _REGEX_CHECKED.get():
        return patterns
    for p in patterns:
        try:
            re.compile(p)
        except re.error as exc:
            raise ValueError(f"invalid regular expression {p!r}: {exc}") from exc
    return patterns


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


class Category(_Strict):
    """One value a dimension can take, with the lexical cues that signal it in a sentence."""

    name: str = Field(min_length=1, description="value written in tables and curated YAML")
    label: str | None = Field(None, description="display label (default: name)")
    description: str | None = Field(None, description="what a careful reader looks for; also part of the TF-IDF prototype")
    cues: list[str] = Field(min_length=1, description="regular expressions (case-insensitive) that signal this category")
    generic: bool = Field(
        False,
        description="`algorithm` only: the category stands for an algorithm of the report's own training that the "
        "report does not name; its cues match a generic description of it ('we adopt an on-policy RL algorithm')",
    )
    exclude: list[str] = Field(
        default_factory=list, description="`generic` only: a sentence matching one of these never supports the category"
    )
    summary_headings: list[str] = Field(
        default_factory=list,
        description="`generic` only: headings of sections that restate methods detailed elsewhere (abstract, "
        "introduction, conclusion); there, and before the first heading, a generic description counts only when "
        "the report uses no named method",
    )

    auxiliary: bool = Field(
        False,
        description="`algorithm` only: a method that is no RL algorithm of its own (rejection-sampling fine-tuning, "
        "a tree search): listed after the RL algorithms, so it is never the main one (codebook: the main one first)",
    )
    use_requires: list[str] = Field(
        default_factory=list,
        description="`algorithm` only: a use of this method counts only in a sentence that also matches one of these "
        "(rejection sampling is a training stage only where the accepted samples are trained on); else a mention",
    )
    mention_if: list[str] = Field(
        default_factory=list,
        description="`algorithm` only: in a sentence matching one of these the method is at most mentioned "
        "(rejection sampling that validates or screens data is a data check, not training)",
    )

    @field_validator("cues", "exclude", "summary_headings", "use_requires", "mention_if")
    @classmethod
    def _cues(cls, v: list[str]) -> list[str]:
        return _compile_all(v)

    @model_validator(mode="after")
    def _generic_only(self) -> Category:
        if (self.exclude or self.summary_headings) and not self.generic:
            raise ValueError("`exclude:`/`summary_headings:` are only for a `generic: true` category")
        return self

    @field_validator("name")
    @classmethod
    def _not_reserved(cls, v: str) -> str:
        if v.lower() in RESERVED:
            raise ValueError(f"{v!r} is reserved; every dimension can already be 'not disclosed' or 'not assessed'")
        return v


class HeadingRule(_Strict):
    """An indicator's second way to fire: a sentence under a heading that says what the section is
    about need not say it again (codebook: an algorithm named under an RL-training heading)."""

    heading: list[str] = Field(min_length=1, description="the sentence's section heading must match one of these")
    all_of: list[list[str]] = Field(min_length=1, description="cue groups; the sentence must match one cue from each")

    @field_validator("heading")
    @classmethod
    def _heading(cls, v: list[str]) -> list[str]:
        return _compile_all(v)

    @field_validator("all_of")
    @classmethod
    def _groups(cls, v: list[list[str]]) -> list[list[str]]:
        for g in v:
            if not g:
                raise ValueError("empty cue group")
            _compile_all(g)
        return v


class Indicator(_Strict):
    """A named, explainable disclosure signal: fires on a sentence matching one cue of every group."""

    name: str = Field(pattern=r"^[a-z0-9_]+$", description="short id shown in the table's `indicators` column")
    label: str | None = None
    description: str | None = None
    all_of: list[list[str]] = Field(min_length=1, description="cue groups; a sentence must match one cue from each")
    exclude: list[str] = Field(default_factory=list, description="a sentence matching any of these does not fire")
    window: int = Field(
        1,
        ge=1,
        le=3,
        description="sentences read together: 2 = the sentence with the one before it under the same heading "
        "('These tasks included agent capabilities' after 'we applied RL to 20 tasks')",
    )
    under_heading: HeadingRule | None = Field(
        None, description="also fires on a sentence under a matching heading that matches these groups"
    )
    amount: int | None = Field(
        None,
        ge=1,
        description="codebook 'amount of dedicated text': fires when at least this many sentences outside summary "
        "sections are on the dimension's topic (its `require`, not `exclude`); `all_of` is then ['(?!)']",
    )

    @field_validator("all_of")
    @classmethod
    def _groups(cls, v: list[list[str]]) -> list[list[str]]:
        for g in v:
            if not g:
                raise ValueError("empty cue group")
            _compile_all(g)
        return v

    @field_validator("exclude")
    @classmethod
    def _exclude(cls, v: list[str]) -> list[str]:
        return _compile_all(v)


class RoleRule(_Strict):
    """What a sentence does in its document, read from its heading and words (codebook: only the authors'
    own training is evidence of use; background, related work, contrasts, evaluation and future work are not)."""

    role: str = Field(min_length=1, description="the role given to a sentence this rule meets (e.g. 'related work')")
    headings: list[str] = Field(
        default_factory=list, description="the sentence's heading or its chapter (top-level heading) matches one of these"
    )
    text: list[str] = Field(default_factory=list, description="the sentence's text matches one of these")
    unless: list[str] = Field(
        default_factory=list,
        description="a sentence matching one of these keeps the role 'own' even if `text` matches (the authors as "
        "subject: 'we adopt GRPO (Shao et al., 2024)' cites, but describes their own training)",
    )

    @field_validator("headings", "text", "unless")
    @classmethod
    def _rx(cls, v: list[str]) -> list[str]:
        return _compile_all(v)

    @model_validator(mode="after")
    def _some_test(self) -> RoleRule:
        if not self.headings and not self.text:
            raise ValueError("a role rule needs `headings:` or `text:`")
        return self


class DeriveRule(_Strict):
    """Codebook derivation: the value a method's advantage implies (GRPO/DPO: one score per response)."""

    value: str = Field(min_length=1, description="the category implied")
    methods: list[str] = Field(default_factory=list, description="categories of the source dimension that imply it")
    requires: str | None = Field(
        None,
        description="the value holds only where an own-training sentence supports this category of the derived "
        "dimension (a PPO critic with GAE stated); otherwise the derivation's `otherwise` value",
    )


class Derive(_Strict):
    """`single`: derive the value from the main method of an algorithm dimension (codebook: credit granularity
    follows from the advantage), unless the report states a finer credit in its own training (then `mixed`)."""

    source: str = Field(min_length=1, description="the algorithm dimension whose main used method decides")
    rules: list[DeriveRule] = Field(min_length=1)
    otherwise: str | None = Field(
        None, description="the value for a named method no rule lists (or whose `requires` is not met); none: no derivation"
    )
    ignore: list[str] = Field(
        default_factory=list, description="methods that are no RL advantage (rejection sampling): the next used one decides"
    )
    finer: list[str] = Field(
        default_factory=list,
        description="categories stated in own-training method sentences that, beside a derived value, make the cell "
        "`mixed` (per-turn, per-step or process rewards in a stage or track of their own)",
    )


class NoStage(_Strict):
    """A value of its own for a report whose model has no such training stage at all (codebook `rl_used: no`):
    distinct from "not disclosed", which says the stage exists but the report does not say how."""

    value: str = Field(min_length=1, description="the value shown (e.g. 'no RL stage')")
    description: str | None = None
    dimensions: list[str] = Field(min_length=1, description="the dimensions that show it")
    source: str = Field(min_length=1, description="the algorithm dimension: a used method means there is a stage")
    ignore: list[str] = Field(
        default_factory=list, description="methods of the source that are no such stage (rejection-sampling fine-tuning)"
    )
    stage: list[str] = Field(
        min_length=1, description="an own-training sentence matching one of these says the model goes through the stage"
    )
    stage_headings: list[str] = Field(
        default_factory=list, description="an own-training sentence under a heading matching one of these is in the stage"
    )
    negated: list[str] = Field(default_factory=list, description="a sentence matching one of these says it does not")
    evidence: list[str] = Field(
        default_factory=list, description="else the first own sentence matching one of these (how the model is trained)"
    )

    @field_validator("stage", "stage_headings", "negated", "evidence")
    @classmethod
    def _rx(cls, v: list[str]) -> list[str]:
        return _compile_all(v)


class Level(_Strict):
    """A disclosure level reached when at least `min_indicators` indicators fire."""

    name: str = Field(min_length=1)
    min_indicators: int = Field(ge=0)


class Dimension(_Strict):
    """One column of the comparison table."""

    id: str = Field(pattern=r"^[a-z0-9_]+$", description="column id, also the key of a report's `curated:` block")
    label: str
    description: str | None = None
    kind: Kind
    categories: list[Category] = Field(default_factory=list)
    source: str | None = Field(None, description="`mentioned` only: the algorithm dimension it derives from")
    min_sentences: int = Field(1, ge=1, description="supporting sentences a category needs to be chosen")
    context: list[str] = Field(default_factory=list, description="a supporting sentence must also match one of these")
    negation: list[str] = Field(default_factory=list, description="a sentence matching one of these supports nothing")
    used_before: list[str] = Field(default_factory=list, description="`algorithm`: phrases left of a name that mean 'we use it'")
    used_after: list[str] = Field(default_factory=list, description="`algorithm`: phrases right of a name that mean 'we use it'")
    contrast_before: list[str] = Field(
        default_factory=list, description="`algorithm`: phrases left of a name that mean 'compared with it'"
    )
    contrast_after: list[str] = Field(
        default_factory=list, description="`algorithm`: phrases right of a name that mean 'compared with it'"
    )
    mention_before: list[str] = Field(
        default_factory=list,
        description="`algorithm`: phrases left of a name that make it a plain mention even beside a use phrase "
        "(data 'validated through' a method: a data check, not training with it)",
    )
    not_after: list[str] = Field(
        default_factory=list,
        description="`algorithm`: text right after a name that shows the word is not the method at all "
        "(a data set named after it, 'DAPO-Math-17K'): neither used nor mentioned",
    )
    introduces: list[str] = Field(
        default_factory=list,
        description="`algorithm`: patterns whose group `name` captures a method the report defines itself "
        "(e.g. an acronym defined next to 'policy optimization'); a name no category knows becomes a category",
    )
    references: list[str] = Field(
        default_factory=list,
        description="`algorithm`: patterns whose group `name` captures another report a method is named by "
        "('the same algorithm as in K1.5'); the value is `reference_value` until that report's method is looked up",
    )
    reference_value: str = Field("as in {name}", description="`algorithm`: the value of a method named by reference")
    mixed: str | None = Field(
        None,
        description="`single`: the category chosen when different method sections (stages or tracks of the "
        "training) each support a different category (codebook: credit granularity `mixed`)",
    )
    derive: Derive | None = Field(None, description="`single`: derive the value from the main used method (see Derive)")
    require: list[str] = Field(default_factory=list, description="`level`: every indicator sentence must match one of these")
    exclude: list[str] = Field(default_factory=list, description="`level`: sentences matching any of these never fire")
    indicators: list[Indicator] = Field(default_factory=list)
    levels: list[Level] = Field(default_factory=list)

    @field_validator(
        "context",
        "negation",
        "used_before",
        "used_after",
        "contrast_before",
        "contrast_after",
        "mention_before",
        "not_after",
        "require",
        "exclude",
    )
    @classmethod
    def _regexes(cls, v: list[str]) -> list[str]:
        return _compile_all(v)

    @field_validator("introduces", "references")
    @classmethod
    def _introduces(cls, v: list[str]) -> list[str]:
        if _REGEX_CHECKED.get():
            return v  # (this text passed the check below before: see `load_lens`)
        for p in _compile_all(v):
            if "name" not in re.compile(p).groupindex:
                raise ValueError(f"pattern {p!r} needs a named group (?P<name>...) capturing the method's name")
        return v

    @model_validator(mode="after")
    def _by_kind(self) -> Dimension:
        if self.kind in ("multi", "single", "algorithm") and not self.categories:
            raise ValueError(f"kind {self.kind!r} needs `categories:`")
        if self.kind == "mentioned" and not self.source:
            raise ValueError("kind 'mentioned' needs `source:` (the id of an algorithm dimension)")
        if self.kind != "mentioned" and self.source:
            raise ValueError("`source:` is only for kind 'mentioned'")
        if self.kind != "algorithm" and (self.introduces or self.references):
            raise ValueError("`introduces:`/`references:` are only for kind 'algorithm'")
        if "{name}" not in self.reference_value:
            raise ValueError("`reference_value:` must contain {name}")
        if self.kind != "algorithm" and any(c.generic for c in self.categories):
            raise ValueError("`generic: true` categories are only for kind 'algorithm'")
        if self.kind == "level":
            if not self.indicators or not self.levels:
                raise ValueError("kind 'level' needs `indicators:` and `levels:`")
            mins = [lv.min_indicators for lv in self.levels]
            if mins != sorted(mins) or len(set(mins)) != len(mins) or mins[0] != 0:
                raise ValueError("levels must go lowest first, the first with min_indicators: 0, each higher than the last")
            names = [i.name for i in self.indicators]
            if len(names) != len(set(names)):
                raise ValueError("duplicate indicator names")
        elif self.indicators or self.levels:
            raise ValueError("`indicators:`/`levels:` are only for kind 'level'")
        names = [c.name for c in self.categories]
        if self.mixed is not None and (self.kind != "single" or self.mixed not in names):
            raise ValueError("`mixed:` is only for kind 'single' and must name one of its categories")
        if self.derive is not None:
            if self.kind != "single":
                raise ValueError("`derive:` is only for kind 'single'")
            implied = [r.value for r in self.derive.rules] + [r.requires for r in self.derive.rules if r.requires]
            implied += [*self.derive.finer, *([self.derive.otherwise] if self.derive.otherwise else [])]
            bad = sorted({v for v in implied if v not in names})
            if bad:
                raise ValueError(f"`derive:` names unknown categories: {', '.join(bad)}")
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"duplicate category name(s): {', '.join(dup)}")
        return self

    @property
    def values(self) -> list[str]:
        """Every value a cell of this dimension may hold (for validation and pickers)."""
        if self.kind == "level":
            return [lv.name for lv in self.levels]
        return [c.name for c in self.categories] + [NOT_DISCLOSED]


class Lens(_Strict):
    """A whole lens file."""

    version: Literal[1] = 1
    id: str = Field(pattern=r"^[a-z0-9_]+$")
    label: str
    description: str | None = None
    skip_headings: list[str] = Field(
        default_factory=list,
        description="sentences under a heading matching one of these (e.g. 'Related Work') never support a decision",
    )
    background_headings: list[str] = Field(
        default_factory=list,
        description="headings of summary sections (abstract, introduction, conclusion): their sentences rank below "
        "method sentences as evidence and count as background in a cell's confidence",
    )
    no_stage: NoStage | None = Field(None, description="a value for reports without the stage the lens is about")
    sentence_roles: list[RoleRule] = Field(
        default_factory=list,
        description="what a sentence does (related work, preliminaries, contrast, evaluation, future work, caption), "
        "first rule met wins; a sentence no rule meets is the authors' own work, the only evidence of use",
    )
    summary_columns: list[str] = Field(
        default_factory=list,
        description="dimension ids of the summary table and of Compare's default columns (default: every "
        "dimension except `mentioned` ones)",
    )
    tier_level: str | None = Field(
        None, description="the `level` dimension that groups the tiers table (default: the first level dimension)"
    )
    dimensions: list[Dimension] = Field(min_length=1)
    claims_categories: list[str] = Field(
        default_factory=list,
        description="benchmark categories (ids in data/benchmarks.yaml) whose scores the dashboard's "
        "'claims vs disclosure' view sets against this lens's level dimension",
    )

    @field_validator("skip_headings", "background_headings")
    @classmethod
    def _skip(cls, v: list[str]) -> list[str]:
        return _compile_all(v)

    @model_validator(mode="after")
    def _refs(self) -> Lens:
        ids = [d.id for d in self.dimensions]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"duplicate dimension id(s): {', '.join(dup)}")
        for d in self.dimensions:
            if d.kind == "mentioned":
                src = next((x for x in self.dimensions if x.id == d.source), None)
                if src is None or src.kind != "algorithm":
                    raise ValueError(f"dimension {d.id!r}: source {d.source!r} is not an algorithm dimension of this lens")
            if d.derive is not None:
                src = next((x for x in self.dimensions if x.id == d.derive.source), None)
                if src is None or src.kind != "algorithm":
                    raise ValueError(f"dimension {d.id!r}: derive.source {d.derive.source!r} is not an algorithm dimension")
                known = {c.name for c in src.categories}
                named = {m for r in d.derive.rules for m in r.methods} | set(d.derive.ignore)
                if named - known:
                    raise ValueError(f"dimension {d.id!r}: derive names unknown methods: {', '.join(sorted(named - known))}")
        if self.no_stage is not None:
            ns = self.no_stage
            bad = [d for d in [*ns.dimensions, ns.source] if d not in ids]
            if bad:
                raise ValueError(f"no_stage: {', '.join(bad)} not among the dimensions")
            if self.dimension(ns.source).kind != "algorithm":
                raise ValueError(f"no_stage.source: {ns.source!r} is not an algorithm dimension")
            if ns.value.lower() in RESERVED or any(ns.value in self.dimension(d).values for d in ns.dimensions):
                raise ValueError(f"no_stage.value: {ns.value!r} is already a value of its dimensions")
        unknown = [c for c in self.summary_columns if c not in ids]
        if unknown:
            raise ValueError(f"summary_columns: {', '.join(unknown)} not among the dimensions ({', '.join(ids)})")
        if self.tier_level is not None and self.tier_level not in [d.id for d in self.dimensions if d.kind == "level"]:
            raise ValueError(f"tier_level: {self.tier_level!r} is not a dimension of kind 'level'")
        return self

    @property
    def ids(self) -> list[str]:
        return [d.id for d in self.dimensions]

    @property
    def summary_ids(self) -> list[str]:
        """Columns of the summary table, in order (the lens's `summary_columns`, else every non-`mentioned` one)."""
        return list(self.summary_columns) or [d.id for d in self.dimensions if d.kind != "mentioned"]

    @property
    def level_id(self) -> str | None:
        """The level dimension the tiers table groups by."""
        return self.tier_level or next((d.id for d in self.dimensions if d.kind == "level"), None)

    def dimension(self, dim_id: str) -> Dimension:
        return next(d for d in self.dimensions if d.id == dim_id)

    def allowed_values(self, dim_id: str) -> list[str]:
        """Values a cell may hold; a `mentioned` dimension takes its source's category names."""
        d = self.dimension(dim_id)
        values = self.dimension(d.source).values if d.kind == "mentioned" and d.source else d.values
        return [*values, self.no_stage.value] if self.no_stage is not None and dim_id in self.no_stage.dimensions else values

    @property
    def no_stage_value(self) -> str | None:
        """The declared value for a report without the stage (`no_stage:`), if any."""
        return self.no_stage.value if self.no_stage is not None else None

    @cached_property
    def fingerprint(self) -> str:
        """Hash of the lens content: bundles annotated with another lens are recomputed."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]


def load_lens(path: str | Path = DEFAULT_LENS, cache: str | Path | None = None) -> Lens:
    """Load and validate a lens file; raise SpecFileError naming file, field and a hint.

    Memoised on (path, mtime, size): a run reads the same lens several times. With `cache` (the
    data folder's cache), a lens text whose regular expressions all compiled once is not compiled
    again to check them (bench/add_one_steps.py prints what that saves a run's start-up): its
    SHA-256, with the Python version, names an empty marker file there. Every other check runs.
    """
    p = Path(path)
    try:
        st = p.stat()
        key = (str(p.resolve()), st.st_mtime_ns, st.st_size)
    except OSError as exc:
        raise SpecFileError([SpecError(str(p), "", f"cannot read lens: {exc.strerror or exc}", "check the path")]) from exc
    with _LENSES_LOCK:  # the dashboard loads lenses from several sessions' threads
        lens = _LENSES.get(key)
        if lens is None:
            lens = _LENSES[key] = _load_lens_file(key[0], cache)
            _LENSES.pop(next(iter(_LENSES))) if len(_LENSES) > _LENSES_MAX else None  # one in, at most one out
    return lens


#: Lenses loaded, by (resolved path, mtime, size); at most `_LENSES_MAX`, the oldest dropped first.
_LENSES: dict[tuple[str, int, int], Lens] = {}
_LENSES_MAX = 16
_LENSES_LOCK = threading.Lock()
LENS_CHECKS_VERSION = 1  # in the "regex checked" marker's name: raise it when the lens's checks change


def lens_to_compile(path: str | Path = DEFAULT_LENS) -> Lens:
    """`load_lens` without compiling the patterns to check them, nor memoising the lens: only for a
    caller that compiles every pattern next and drops the lens when one fails (the worker
    server's warm-up, `ingest.run.warm.warm_caches`, which then serves only jobs carrying a lens
    of the same fingerprint, one the driver loaded with every check)."""
    return _load_lens_file(str(Path(path).resolve()), None, checked=True)


def _load_lens_file(path: str, cache: str | Path | None, checked: bool = False) -> Lens:
    text = read_file(Path(path), "lens")  # read once: the marker and the check name the same text
    marker = None
    if cache is not None:
        digest = hashlib.sha256(f"{LENS_CHECKS_VERSION}\0{sys.version}\0{text}".encode())
        marker = Path(cache) / "lens-regex-checked" / digest.hexdigest()[:32]
    checked = checked or (marker is not None and marker.is_file())
    token = _REGEX_CHECKED.set(checked)
    try:
        lens = model_from_text(text, path, Lens, "the format notes at the top of data/lenses/agentic_rl.yaml")
    finally:
        _REGEX_CHECKED.reset(token)
    if marker is not None and not checked:
        with contextlib.suppress(OSError):  # (a read-only data folder: checked on every load)
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
    return lens


def lens_for(dimension_ids: Iterable[str], lens_dir: str | Path = LENS_DIR) -> Lens:
    """The lens a stored comparison table was built with: the one sharing most of its dimension ids.

    The store's tables do not name their lens; their dimension ids do. Ties and an empty table
    fall back to the default lens, so an empty store still shows the default lens's columns.
    """
    ids = set(dimension_ids)
    best, score = load_lens(DEFAULT_LENS), len(ids & set(load_lens(DEFAULT_LENS).ids))
    for f in sorted(Path(lens_dir).glob("*.yaml")):
        try:
            lens = load_lens(f)
        except SpecFileError:
            continue
        n = len(ids & set(lens.ids))
        if n > score:
            best, score = lens, n
    return best


def known_dimensions(lens_dir: str | Path = LENS_DIR, cache: str | Path | None = None) -> set[str]:
    """Dimension ids of every lens in the folder: the keys a report's `curated:` block may use.
    (`cache`: see `load_lens`.)"""
    out: set[str] = set()
    for f in sorted(Path(lens_dir).glob("*.yaml")):
        out |= set(load_lens(f, cache).ids)
    return out
