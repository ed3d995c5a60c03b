"""Strict schema of a report file (`reports/<id>.yaml`).

Every model forbids unknown keys: a typo such as `sorce:` must fail loudly instead of
silently dropping the source. Field descriptions double as the documentation that
`reports/_template.yaml` and the README are checked against (tests/test_docs.py).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

#: Report ids become file names in `data/`; this keeps them from escaping it (`../x`).
ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,63}$"

DocType = Literal["github-pdf", "arxiv", "blog", "other"]

#: The five study keywords in the order the study prints them.
STUDY_TERMS: tuple[str, ...] = ("agentic", "agent", "tool", "reward", "credit assignment")


class Strict(BaseModel):
    """Base model: unknown keys are errors, strings are stripped."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


def url_scheme(v: str | None) -> str | None:
    """A source or version URL: http(s) or file only (checked by both models)."""
    if v is not None and not re.match(r"^(https?|file)://", v):
        raise ValueError("url must start with http://, https:// or file://")
    return v


class Source(Strict):
    """Where the report text comes from: a URL, a local file, or both (file wins offline)."""

    url: str | None = Field(None, description="http(s) URL of the PDF, arXiv abs/pdf page, GitHub blob or blog post")
    path: str | None = Field(None, description="local file, relative to the YAML file (PDF, .md or .html)")

    @model_validator(mode="after")
    def _one_of(self) -> Source:
        if not self.url and not self.path:
            raise ValueError("source needs `url:` or `path:` (or both); omit `source:` entirely if neither is known")
        return self

    @field_validator("url")
    @classmethod
    def _scheme(cls, v: str | None) -> str | None:
        return url_scheme(v)


class Reported(Strict):
    """Figures published elsewhere (e.g. the cross-report study). Never overwritten by measurement."""

    from_: str = Field(alias="from", description="who published these figures, e.g. 'cross-report study (2026-08)'")
    scope: Literal["whole-document", "body", "references"] = Field(
        "whole-document", description="which part of the document the figures count"
    )
    words: int | None = Field(None, ge=0, description="word count as published")
    counts: dict[str, int] = Field(default_factory=dict, description="term -> count as published (lexicon term names)")
    notes: dict[str, str] = Field(default_factory=dict, description="term -> remark as published, e.g. 'all in references'")

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True, populate_by_name=True)

    @field_validator("counts")
    @classmethod
    def _non_negative(cls, v: dict[str, int]) -> dict[str, int]:
        bad = [k for k, n in v.items() if n < 0]
        if bad:
            raise ValueError(f"counts must be >= 0 (got negative for {', '.join(bad)})")
        return v


def page_number(v: int | str | None) -> int | str | None:
    """A page as a report file gives it: a PDF page counts from 1 (a number, or text of one); other text
    names a blog section heading."""
    if isinstance(v, int) and v < 1:
        raise ValueError(f"page must be 1 or more (got {v}); PDF pages count from 1")
    if isinstance(v, str) and re.fullmatch(r"\s*[-+]?\d+\s*", v) and int(v) < 1:
        raise ValueError(f"page must be 1 or more (got {v.strip()!r}); PDF pages count from 1")
    if isinstance(v, str) and not v.strip():
        raise ValueError("page must be a page number or a section heading, not empty text")
    return v


class CuratedCell(Strict):
    """A hand-checked value for one comparison-table dimension; overrides the automatic cell."""

    value: str | list[str] = Field(description="category name(s) from the lens, or 'not disclosed'")
    detail: str | None = Field(None, description="free-text description as a human would write it in the table")
    quote: str | None = Field(None, description="verbatim sentence supporting the value")
    page: int | str | None = Field(None, description="1-based PDF page (or blog section heading) of the quote")
    notes: str | None = Field(None, description="why this value; caveats")
    reviewed: dt.date | None = Field(None, description="date of the review decision, YYYY-MM-DD (the Review page writes it)")

    @field_validator("page")
    @classmethod
    def _page(cls, v: int | str | None) -> int | str | None:
        return page_number(v)

    @property
    def values(self) -> list[str]:
        """The value as a list (one cell may hold several categories)."""
        return [self.value] if isinstance(self.value, str) else list(self.value)


class CuratedResult(Strict):
    """A score a reader took by hand (from an image, a chart, or a table the reader could not parse).

    Stored with origin `curated` and never overwritten by the automatic reading.
    """

    benchmark: str = Field(min_length=1, description="benchmark name as printed, e.g. 'SWE-bench Verified'")
    model: str = Field(min_length=1, description="model name as printed, e.g. 'Kimi K3'")
    value: str | float | int = Field(description="the score as printed, e.g. '71.6' or '71.6%'")
    metric: str | None = Field(None, description="metric as printed, e.g. 'pass@1' (optional)")
    setting: str | None = Field(None, description="what distinguishes rows of one model, e.g. 'thinking' (optional)")
    page: int | str | None = Field(None, description="1-based PDF page (or blog section heading) where the score is shown")
    figure: str | None = Field(None, description="figure or table label, e.g. 'Figure 1' (page or figure is required)")
    notes: str | None = Field(None, description="how the value was read; caveats")

    @field_validator("page")
    @classmethod
    def _page(cls, v: int | str | None) -> int | str | None:
        return page_number(v)

    @model_validator(mode="after")
    def _where(self) -> CuratedResult:
        if self.page is None and not self.figure:
            raise ValueError("a curated result needs `page:` or `figure:` (where a reader can check it)")
        return self


class SourceVersion(Strict):
    """One earlier or later version of the report's source (arXiv v1/v2, a dated URL, an older file).

    Listed in `versions:`; `python -m ingest diff ID OLD NEW` compares two of them by `label`.
    """

    label: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$", description="short name of the version, e.g. 'v1'")
    url: str | None = Field(None, description="http(s) URL of this version (e.g. https://arxiv.org/abs/2508.06471v1)")
    path: str | None = Field(None, description="local file of this version, relative to the YAML file")
    date: dt.date | None = Field(None, description="date of this version, YYYY-MM-DD (optional)")

    @model_validator(mode="after")
    def _one_of(self) -> SourceVersion:
        if not self.url and not self.path:
            raise ValueError("a version needs `url:` or `path:`")
        return self

    @field_validator("url")
    @classmethod
    def _scheme(cls, v: str | None) -> str | None:
        return url_scheme(v)

    def source(self) -> Source:
        """The version as a `source:` block (fetched with the same rules)."""
        return Source(url=self.url, path=self.path)


class ReportSpec(Strict):
    """One report file. `id` must equal the file name without `.yaml`."""

    id: str = Field(pattern=ID_PATTERN, description="short unique id; lowercase letters, digits, '.', '_', '-'")
    model: str = Field(min_length=1, description="model name as the lab writes it, e.g. 'Kimi K3'")
    aliases: list[str] = Field(
        default_factory=list, description="other names of the report's own model(s) in result tables, e.g. 'K3-Thinking'"
    )
    organization: str = Field(min_length=1, description="lab or company")
    country: str | None = Field(None, description="country of the organization (optional)")
    released: dt.date | None = Field(None, description="release date of the report, YYYY-MM-DD (optional)")
    doc_type: DocType = Field(description="github-pdf | arxiv | blog | other")
    arxiv_id: str | None = Field(
        None, pattern=r"^\d{4}\.\d{4,5}(v\d+)?$", description="arXiv identifier, e.g. 2508.06471 (optional)"
    )
    source: Source | None = Field(None, description="where to get the text; omit when unknown")
    params: str | None = Field(None, description="free text, e.g. '2.8T MoE, 104B active'")
    tags: list[str] = Field(default_factory=list, description="free labels for filtering")
    notes: str | None = Field(None, description="anything a reader should know about this report")
    reported: Reported | None = Field(None, description="figures published elsewhere, kept apart from measured ones")
    curated: dict[str, CuratedCell] = Field(
        default_factory=dict, description="dimension -> hand-checked comparison-table cell (overrides automatic)"
    )
    results: list[CuratedResult] = Field(
        default_factory=list, description="benchmark scores read by hand (e.g. from images); marked curated"
    )
    versions: list[SourceVersion] = Field(
        default_factory=list, description="other versions of the source (arXiv v1/v2, dated URLs), oldest first"
    )

    @field_validator("versions")
    @classmethod
    def _unique_labels(cls, v: list[SourceVersion]) -> list[SourceVersion]:
        labels = [x.label for x in v]
        dup = sorted({x for x in labels if labels.count(x) > 1})
        if dup:
            raise ValueError(f"version labels must be unique (repeated: {', '.join(dup)})")
        return v
