"""Typed records passed between stages: one document's analysis, its annotation, the stored bundle.

The pipeline builds these, the store writes and reads them (`to_json` / `from_json`), the table
builders turn them into rows. Fields are named once here instead of as string keys in every
consumer, so a renamed or missing field fails where it is used, not as a silent `None`.

The JSON mapping is generic (`ingest.common.jsonrecord`): a record's fields, in declaration order,
are its JSON keys, and the few irregular fields say so with `jfield` (a default for bundles
written before the field existed, a key left out when empty). The JSON written is the bundle
format stored before these classes existed (same keys, same order), so stored bundles stay
valid. `from_json` is tolerant of absent optional keys (older bundles) and strict about types:
anything else raises `BundleError`, which the store treats as "no bundle" — the report is then
recomputed, never crashed on.

Keyword `counts` and `kwic` rows stay plain dicts: they are table rows as stored (one dict per
DataFrame row, possibly hundreds of thousands), produced by `ingest.analysis.keywords` with the columns
of the `counts` and `kwic` tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ingest.common.jsonrecord import BundleError, Record, jfield

__all__ = [
    "Analysis",
    "Annotation",
    "Bundle",
    "Cell",
    "ChecklistItem",
    "EvidenceRow",
    "Meta",
    "ResultCell",
    "ResultTable",
    "Results",
    "SectionRow",
]


# --------------------------------------------------------------------------- sections


@dataclass(frozen=True, slots=True)
class SectionRow(Record):
    """One section of a document: its page range (1-based, inclusive), heading and word count."""

    section: str
    start_page: int
    end_page: int
    heading: str = jfield(absent="")
    words: int = jfield(absent=0)


# --------------------------------------------------------------------------- annotation


@dataclass(frozen=True, slots=True)
class EvidenceRow(Record):
    """A ranked candidate sentence for one category (or indicator) of one lens dimension."""

    dimension: str
    category: str
    rank: int
    score: float = jfield(null_as=0.0)
    role: str | None  # support | use | contrast | mention (algorithms) | indicator; None in old bundles
    cues: str | None  # the cues it matched, "; "-joined; None in old bundles
    quote: str
    page: int | None
    page_label: str | None
    section: str | None


@dataclass(frozen=True, slots=True)
class ChecklistItem(Record):
    """One indicator of a level dimension: whether it fired, and the first sentence that fired it."""

    indicator: str
    label: str = jfield(absent=lambda o: o.get("indicator"))  # older bundles: the indicator's name
    fired: bool
    sentences: int = jfield(absent=0)
    quote: str | None
    page: int | None
    page_label: str | None


def _finite_map(o: dict[str, float], what: str) -> dict[str, float]:
    """A {name: finite number} mapping (at most 64 entries): the confidence model's features."""
    if len(o) > 64:
        raise BundleError(f"{what}: too many entries")
    for k, f in o.items():
        if f != f or f in (float("inf"), float("-inf")):
            raise BundleError(f"{what}: {k!r} is not a finite number")
    return {k: float(f) for k, f in o.items()}


@dataclass(frozen=True, slots=True)
class Cell(Record):
    """The automatic value of one lens dimension for one document, with its best quote.

    `value` holds category names (or "not disclosed"); the optional fields say why, per kind of
    dimension: `support` (categorical: supporting sentences per category), `roles` (algorithms:
    use/contrast/mention counts per method), `indicators`/`checklist`/`why`/`counted` (levels).
    The optional fields are left out of the JSON when None.
    """

    value: tuple[str, ...]
    confidence: float | None
    quote: str | None = None
    page: int | None = None
    page_label: str | None = None
    section: str | None = None
    support: dict[str, int] | None = jfield(None, omit_none=True)
    roles: dict[str, dict[str, int]] | None = jfield(None, omit_none=True)
    indicators: tuple[str, ...] | None = jfield(None, omit_none=True)
    checklist: tuple[ChecklistItem, ...] | None = jfield(None, omit_none=True)
    why: str | None = jfield(None, omit_none=True)
    counted: int | None = jfield(None, omit_none=True)
    #: Evidence features the confidence was computed from (ingest/analysis/confidence.py); kept so a
    #: Review decision on this cell can become a training example.
    features: dict[str, float] | None = jfield(None, omit_none=True, decode=_finite_map)


@dataclass(frozen=True, slots=True)
class Annotation(Record):
    """Every dimension of one lens for one document: the cells and the ranked evidence behind them."""

    lens: str
    lens_fingerprint: str = jfield(absent="")
    cells: dict[str, Cell] = field(default_factory=dict)
    evidence: tuple[EvidenceRow, ...] = ()


# --------------------------------------------------------------------------- benchmark results


@dataclass(frozen=True, slots=True)
class ResultCell(Record):
    """One automatic result cell: a model's value on a benchmark, as printed."""

    model: str
    benchmark: str
    value: str
    metric: str = jfield("", null_as="")
    group: str = jfield("", null_as="")
    setting: str = jfield("", null_as="")
    note: str = jfield("", null_as="")  # what was taken off the printed value: a citation, a footnote marker
    #: Why the cell needs review ("" when independent evidence agrees on it: `ingest.analysis.word_verify`).
    review: str = jfield("", null_as="", absent="not checked on the page's words; review")


@dataclass(frozen=True, slots=True)
class ResultTable(Record):
    """One benchmark-result table as read: where it is, its cells and what validation flagged."""

    page: int
    page_label: str = jfield(absent=lambda o: str(o.get("page")))
    label: str = jfield(absent="")
    caption: str = jfield(absent="")
    orientation: str = jfield(absent="")  # models-as-rows | models-as-columns
    flags: tuple[str, ...] = ()
    region: tuple[float, ...] | None = None
    cells: tuple[ResultCell, ...] = ()
    #: Rows or columns that describe the models (parameters, context length, shots, "Type"): kept
    #: as (model, attribute name in `benchmark`, value), never as scores.
    attributes: tuple[ResultCell, ...] = ()

    @property
    def verified(self) -> bool:
        """Every cell validated (no review flag): the numbers are shown as verified."""
        return not self.flags


@dataclass(frozen=True, slots=True)
class Results(Record):
    """The results stage's output for one document: tables read, notes, and the stage's seconds."""

    version: int = jfield(absent=0)
    tables: tuple[ResultTable, ...] = ()
    notes: tuple[str, ...] = ()
    seconds: float = jfield(0.0, null_as=0.0)
    #: Names the report defines for models in its tables: (full name as printed before it, short
    #: name) from "Full Name (Short)"; the own-model flag treats a short name as its full name.
    defined_names: tuple[tuple[str, str], ...] = ()


# --------------------------------------------------------------------------- one document


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the analysis of one document gives (`ingest.pipeline_steps.analyse`), before it is stored.

    `words` is per section plus "all"; `annotation` is None without a lens.
    """

    word_rule: str
    words: dict[str, int]
    sections: tuple[SectionRow, ...]
    counts: tuple[dict[str, Any], ...]
    kwic: tuple[dict[str, Any], ...]
    results: Results
    annotation: Annotation | None = None


def _measured(meta: Meta) -> bool:
    return meta.fingerprint is not None


def _extracted(**kw: Any) -> Any:
    """A Meta field that only a measured bundle has (keyword-only; left out of a snapshot's JSON)."""
    return jfield(kw_only=True, only_if=_measured, **kw)


@dataclass(frozen=True, slots=True)
class Meta(Record):
    """Where a bundle came from. A *snapshot* (a report without source: only the spec, so a later
    broken edit of its YAML still shows the report) has no `fingerprint` and no extraction fields.

    The constructor takes `report_id, spec, yaml_path` first; the other fields are keyword-only and
    declared in the order of the stored JSON.
    """

    report_id: str
    fingerprint: str | None = _extracted(default=None)
    sha256: str | None = _extracted(default=None)
    origin: str | None = _extracted(default=None)
    final_url: str | None = _extracted(default=None)
    kind: str | None = _extracted(default=None)
    engine: str | None = _extracted(default=None)
    pages: int | None = _extracted(default=None)
    words: int | None = _extracted(default=None)
    word_rule: str | None = _extracted(default=None)
    notes: tuple[str, ...] = _extracted(default=())
    spec: dict[str, Any]  # the report's YAML as validated then (ReportSpec JSON)
    yaml_path: str
    ingested_at: str | None = _extracted(default=None)

    @property
    def snapshot(self) -> bool:
        return self.fingerprint is None


def _has_text(bundle: Bundle) -> bool:
    return not bundle.meta.snapshot


@dataclass(frozen=True, slots=True)
class Bundle(Record):
    """The last good result of one report, as stored (`results/reports/<id>.json.gz`).

    A snapshot bundle (no source) holds only `meta`; a measured one adds the analysis.
    """

    meta: Meta
    sections: tuple[SectionRow, ...] = jfield((), only_if=_has_text)
    counts: tuple[dict[str, Any], ...] = jfield((), only_if=_has_text)
    kwic: tuple[dict[str, Any], ...] = jfield((), only_if=_has_text)
    annotation: Annotation | None = jfield(None, omit_none=True)
    results: Results | None = jfield(None, omit_none=True)

    @property
    def measured(self) -> bool:
        """Whether the report's text was read (keyword counts exist)."""
        return bool(self.counts)

    @classmethod
    def of(cls, meta: Meta, analysis: Analysis) -> Bundle:
        return cls(meta, analysis.sections, analysis.counts, analysis.kwic, analysis.annotation, analysis.results)
