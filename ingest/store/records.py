"""Typed records passed between stages: one document's analysis, its annotation, the stored bundle.

The pipeline builds these, the store writes and reads them (`to_json` / `from_json`), the table
builders turn them into rows. Fields are named once here instead of as string keys in every
consumer, so a renamed or missing field fails where it is used, not as a silent `None`.

The JSON written is the bundle format stored before these classes existed (same keys, same
order), so stored bundles stay valid. `from_json` is tolerant of absent optional keys (older
bundles) and strict about types: anything else raises `BundleError`, which the store treats as
"no bundle" — the report is then recomputed, never crashed on.

Keyword `counts` and `kwic` rows stay plain dicts: they are table rows as stored (one dict per
DataFrame row, possibly hundreds of thousands), produced by `ingest.analysis.keywords` with the columns
of the `counts` and `kwic` tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class BundleError(ValueError):
    """A stored bundle (or part of one) does not have the expected shape."""


# --------------------------------------------------------------------------- checked readers


def _obj(x: object, what: str) -> Mapping[str, Any]:
    if not isinstance(x, Mapping):
        raise BundleError(f"{what}: expected an object, got {type(x).__name__}")
    return x


def _list(x: object, what: str) -> list[Any]:
    if x is None:
        return []
    if not isinstance(x, list | tuple):
        raise BundleError(f"{what}: expected a list, got {type(x).__name__}")
    return list(x)


def _str(x: object, what: str) -> str:
    if not isinstance(x, str):
        raise BundleError(f"{what}: expected text, got {type(x).__name__}")
    return x


def _opt_str(x: object, what: str) -> str | None:
    return None if x is None else _str(x, what)


def _int(x: object, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise BundleError(f"{what}: expected a whole number, got {type(x).__name__}")
    return x


def _opt_int(x: object, what: str) -> int | None:
    return None if x is None else _int(x, what)


def _opt_float(x: object, what: str) -> float | None:
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise BundleError(f"{what}: expected a number, got {type(x).__name__}")
    return x  # type: ignore[return-value]


def _strs(x: object, what: str) -> tuple[str, ...]:
    return tuple(_str(v, what) for v in _list(x, what))


def _int_map(x: object, what: str) -> dict[str, int]:
    return {_str(k, what): _int(v, what) for k, v in _obj(x, what).items()}


def _rows(x: object, what: str) -> tuple[dict[str, Any], ...]:
    """Table rows as stored (fresh from json.loads, so kept as they are, not copied: KWIC is large)."""
    rows = tuple(_list(x, what))
    if not all(type(r) is dict for r in rows):
        raise BundleError(f"{what}: expected a list of objects")
    return rows


# --------------------------------------------------------------------------- sections


@dataclass(frozen=True, slots=True)
class SectionRow:
    """One section of a document: its page range (1-based, inclusive), heading and word count."""

    section: str
    start_page: int
    end_page: int
    heading: str
    words: int

    def to_json(self) -> dict[str, Any]:
        return {
            "section": self.section,
            "start_page": self.start_page,
            "end_page": self.end_page,
            "heading": self.heading,
            "words": self.words,
        }

    @classmethod
    def from_json(cls, d: object) -> SectionRow:
        o = _obj(d, "section")
        return cls(
            section=_str(o.get("section"), "section.section"),
            start_page=_int(o.get("start_page"), "section.start_page"),
            end_page=_int(o.get("end_page"), "section.end_page"),
            heading=_str(o.get("heading", ""), "section.heading"),
            words=_int(o.get("words", 0), "section.words"),
        )


# --------------------------------------------------------------------------- annotation


@dataclass(frozen=True, slots=True)
class EvidenceRow:
    """A ranked candidate sentence for one category (or indicator) of one lens dimension."""

    dimension: str
    category: str
    rank: int
    score: float
    role: str | None  # support | use | contrast | mention (algorithms) | indicator; None in old bundles
    cues: str | None  # the cues it matched, "; "-joined; None in old bundles
    quote: str
    page: int | None
    page_label: str | None
    section: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "dimension": self.dimension,
            "category": self.category,
            "rank": self.rank,
            "score": self.score,
            "role": self.role,
            "cues": self.cues,
            "quote": self.quote,
            "page": self.page,
            "page_label": self.page_label,
            "section": self.section,
        }

    @classmethod
    def from_json(cls, d: object) -> EvidenceRow:
        o = _obj(d, "evidence")
        return cls(
            dimension=_str(o.get("dimension"), "evidence.dimension"),
            category=_str(o.get("category"), "evidence.category"),
            rank=_int(o.get("rank"), "evidence.rank"),
            score=_opt_float(o.get("score", 0.0), "evidence.score") or 0.0,
            role=_opt_str(o.get("role"), "evidence.role"),
            cues=_opt_str(o.get("cues"), "evidence.cues"),
            quote=_str(o.get("quote"), "evidence.quote"),
            page=_opt_int(o.get("page"), "evidence.page"),
            page_label=_opt_str(o.get("page_label"), "evidence.page_label"),
            section=_opt_str(o.get("section"), "evidence.section"),
        )


@dataclass(frozen=True, slots=True)
class ChecklistItem:
    """One indicator of a level dimension: whether it fired, and the first sentence that fired it."""

    indicator: str
    label: str
    fired: bool
    sentences: int
    quote: str | None
    page: int | None
    page_label: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "indicator": self.indicator,
            "label": self.label,
            "fired": self.fired,
            "sentences": self.sentences,
            "quote": self.quote,
            "page": self.page,
            "page_label": self.page_label,
        }

    @classmethod
    def from_json(cls, d: object) -> ChecklistItem:
        o = _obj(d, "checklist item")
        name = _str(o.get("indicator"), "checklist.indicator")
        fired = o.get("fired")
        if not isinstance(fired, bool):
            raise BundleError("checklist.fired: expected true or false")
        return cls(
            indicator=name,
            label=_str(o.get("label", name), "checklist.label"),
            fired=fired,
            sentences=_int(o.get("sentences", 0), "checklist.sentences"),
            quote=_opt_str(o.get("quote"), "checklist.quote"),
            page=_opt_int(o.get("page"), "checklist.page"),
            page_label=_opt_str(o.get("page_label"), "checklist.page_label"),
        )


@dataclass(frozen=True, slots=True)
class Cell:
    """The automatic value of one lens dimension for one document, with its best quote.

    `value` holds category names (or "not disclosed"); the optional fields say why, per kind of
    dimension: `support` (categorical: supporting sentences per category), `roles` (algorithms:
    use/contrast/mention counts per method), `indicators`/`checklist`/`why`/`counted` (levels).
    """

    value: tuple[str, ...]
    confidence: float | None
    quote: str | None = None
    page: int | None = None
    page_label: str | None = None
    section: str | None = None
    support: dict[str, int] | None = None
    roles: dict[str, dict[str, int]] | None = None
    indicators: tuple[str, ...] | None = None
    checklist: tuple[ChecklistItem, ...] | None = None
    why: str | None = None
    counted: int | None = None
    #: Evidence features the confidence was computed from (ingest/analysis/confidence.py); kept so a
    #: Review decision on this cell can become a training example.
    features: dict[str, float] | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "value": list(self.value),
            "confidence": self.confidence,
            "quote": self.quote,
            "page": self.page,
            "page_label": self.page_label,
            "section": self.section,
        }
        if self.support is not None:
            d["support"] = dict(self.support)
        if self.roles is not None:
            d["roles"] = {k: dict(v) for k, v in self.roles.items()}
        if self.indicators is not None:
            d["indicators"] = list(self.indicators)
        if self.checklist is not None:
            d["checklist"] = [i.to_json() for i in self.checklist]
        if self.why is not None:
            d["why"] = self.why
        if self.counted is not None:
            d["counted"] = self.counted
        if self.features is not None:
            d["features"] = dict(self.features)
        return d

    @classmethod
    def from_json(cls, d: object) -> Cell:
        o = _obj(d, "cell")
        roles, checklist = o.get("roles"), o.get("checklist")
        return cls(
            value=_strs(o.get("value"), "cell.value"),
            confidence=_opt_float(o.get("confidence"), "cell.confidence"),
            quote=_opt_str(o.get("quote"), "cell.quote"),
            page=_opt_int(o.get("page"), "cell.page"),
            page_label=_opt_str(o.get("page_label"), "cell.page_label"),
            section=_opt_str(o.get("section"), "cell.section"),
            support=None if o.get("support") is None else _int_map(o["support"], "cell.support"),
            roles=None if roles is None else {_str(k, "roles"): _int_map(v, "roles") for k, v in _obj(roles, "roles").items()},
            indicators=None if o.get("indicators") is None else _strs(o["indicators"], "cell.indicators"),
            checklist=None if checklist is None else tuple(ChecklistItem.from_json(i) for i in _list(checklist, "checklist")),
            why=_opt_str(o.get("why"), "cell.why"),
            counted=_opt_int(o.get("counted"), "cell.counted"),
            features=None if o.get("features") is None else _float_map(o["features"], "cell.features"),
        )


def _float_map(v: object, what: str) -> dict[str, float]:
    """A {name: finite number} mapping from stored JSON (at most 64 entries)."""
    o = _obj(v, what)
    if len(o) > 64:
        raise BundleError(f"{what}: too many entries")
    out = {}
    for k, x in o.items():
        f = _opt_float(x, what)
        if f is None or f != f or f in (float("inf"), float("-inf")):
            raise BundleError(f"{what}: {k!r} is not a finite number")
        out[_str(k, what)] = float(f)
    return out


@dataclass(frozen=True, slots=True)
class Annotation:
    """Every dimension of one lens for one document: the cells and the ranked evidence behind them."""

    lens: str
    lens_fingerprint: str
    cells: dict[str, Cell] = field(default_factory=dict)
    evidence: tuple[EvidenceRow, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "lens": self.lens,
            "lens_fingerprint": self.lens_fingerprint,
            "cells": {k: c.to_json() for k, c in self.cells.items()},
            "evidence": [e.to_json() for e in self.evidence],
        }

    @classmethod
    def from_json(cls, d: object) -> Annotation:
        o = _obj(d, "annotation")
        return cls(
            lens=_str(o.get("lens"), "annotation.lens"),
            lens_fingerprint=_str(o.get("lens_fingerprint", ""), "annotation.lens_fingerprint"),
            cells={_str(k, "annotation.cells"): Cell.from_json(v) for k, v in _obj(o.get("cells", {}), "cells").items()},
            evidence=tuple(EvidenceRow.from_json(e) for e in _list(o.get("evidence"), "annotation.evidence")),
        )


# --------------------------------------------------------------------------- benchmark results


@dataclass(frozen=True, slots=True)
class ResultCell:
    """One automatic result cell: a model's value on a benchmark, as printed."""

    model: str
    benchmark: str
    value: str
    metric: str = ""
    group: str = ""
    setting: str = ""
    note: str = ""  # what was taken off the printed value: a citation, a footnote marker

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "benchmark": self.benchmark,
            "value": self.value,
            "metric": self.metric,
            "group": self.group,
            "setting": self.setting,
            "note": self.note,
        }

    @classmethod
    def from_json(cls, d: object) -> ResultCell:
        if type(d) is dict and d.keys() == _RESULT_CELL_KEYS and all(type(v) is str for v in d.values()):
            return cls(**d)  # the usual case, checked at once (a table may hold hundreds of cells)
        o = _obj(d, "result cell")
        return cls(
            model=_str(o.get("model"), "result.model"),
            benchmark=_str(o.get("benchmark"), "result.benchmark"),
            value=_str(o.get("value"), "result.value"),
            metric=_opt_str(o.get("metric"), "result.metric") or "",
            group=_opt_str(o.get("group"), "result.group") or "",
            setting=_opt_str(o.get("setting"), "result.setting") or "",
            note=_opt_str(o.get("note"), "result.note") or "",
        )


_RESULT_CELL_KEYS = {"model", "benchmark", "value", "metric", "group", "setting", "note"}


@dataclass(frozen=True, slots=True)
class ResultTable:
    """One benchmark-result table as read: where it is, its cells and what validation flagged."""

    page: int
    page_label: str
    label: str
    caption: str
    orientation: str  # models-as-rows | models-as-columns
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

    def to_json(self) -> dict[str, Any]:
        return {
            "page": self.page,
            "page_label": self.page_label,
            "label": self.label,
            "caption": self.caption,
            "orientation": self.orientation,
            "flags": list(self.flags),
            "region": None if self.region is None else list(self.region),
            "cells": [c.to_json() for c in self.cells],
            "attributes": [c.to_json() for c in self.attributes],
        }

    @classmethod
    def from_json(cls, d: object) -> ResultTable:
        o = _obj(d, "result table")
        region = o.get("region")
        return cls(
            page=_int(o.get("page"), "table.page"),
            page_label=_str(o.get("page_label", str(o.get("page"))), "table.page_label"),
            label=_str(o.get("label", ""), "table.label"),
            caption=_str(o.get("caption", ""), "table.caption"),
            orientation=_str(o.get("orientation", ""), "table.orientation"),
            flags=_strs(o.get("flags"), "table.flags"),
            region=None if region is None else tuple(_opt_float(v, "table.region") or 0.0 for v in _list(region, "table.region")),
            cells=tuple(ResultCell.from_json(c) for c in _list(o.get("cells"), "table.cells")),
            attributes=tuple(ResultCell.from_json(c) for c in _list(o.get("attributes", []), "table.attributes")),
        )


@dataclass(frozen=True, slots=True)
class Results:
    """The results stage's output for one document: tables read, notes, and the stage's seconds."""

    version: int
    tables: tuple[ResultTable, ...] = ()
    notes: tuple[str, ...] = ()
    seconds: float = 0.0
    #: Names the report defines for models in its tables: (full name as printed before it, short
    #: name) from "Full Name (Short)"; the own-model flag treats a short name as its full name.
    defined_names: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "tables": [t.to_json() for t in self.tables],
            "notes": list(self.notes),
            "seconds": self.seconds,
            "defined_names": [list(p) for p in self.defined_names],
        }

    @classmethod
    def from_json(cls, d: object) -> Results:
        o = _obj(d, "results")
        return cls(
            version=_int(o.get("version", 0), "results.version"),
            tables=tuple(ResultTable.from_json(t) for t in _list(o.get("tables"), "results.tables")),
            notes=_strs(o.get("notes"), "results.notes"),
            seconds=_opt_float(o.get("seconds", 0.0), "results.seconds") or 0.0,
            defined_names=tuple(
                (p[0], p[1])
                for p in (_strs(x, "results.defined_names") for x in _list(o.get("defined_names"), "results.defined_names"))
                if len(p) == 2
            ),
        )


# --------------------------------------------------------------------------- one document


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the analysis of one document gives (`ingest.pipeline.analyse`), before it is stored.

    `words` is per section plus "all"; `annotation` is None without a lens.
    """

    word_rule: str
    words: dict[str, int]
    sections: tuple[SectionRow, ...]
    counts: tuple[dict[str, Any], ...]
    kwic: tuple[dict[str, Any], ...]
    results: Results
    annotation: Annotation | None = None


@dataclass(frozen=True, slots=True)
class Meta:
    """Where a bundle came from. A *snapshot* (a report without source: only the spec, so a later
    broken edit of its YAML still shows the report) has no `fingerprint` and no extraction fields."""

    report_id: str
    spec: dict[str, Any]  # the report's YAML as validated then (ReportSpec JSON)
    yaml_path: str
    fingerprint: str | None = None
    sha256: str | None = None
    origin: str | None = None
    final_url: str | None = None
    kind: str | None = None
    engine: str | None = None
    pages: int | None = None
    words: int | None = None
    word_rule: str | None = None
    notes: tuple[str, ...] = ()
    ingested_at: str | None = None

    @property
    def snapshot(self) -> bool:
        return self.fingerprint is None

    def to_json(self) -> dict[str, Any]:
        if self.snapshot:
            return {"report_id": self.report_id, "spec": self.spec, "yaml_path": self.yaml_path}
        return {
            "report_id": self.report_id,
            "fingerprint": self.fingerprint,
            "sha256": self.sha256,
            "origin": self.origin,
            "final_url": self.final_url,
            "kind": self.kind,
            "engine": self.engine,
            "pages": self.pages,
            "words": self.words,
            "word_rule": self.word_rule,
            "notes": list(self.notes),
            "spec": self.spec,
            "yaml_path": self.yaml_path,
            "ingested_at": self.ingested_at,
        }

    @classmethod
    def from_json(cls, d: object) -> Meta:
        o = _obj(d, "meta")
        return cls(
            report_id=_str(o.get("report_id"), "meta.report_id"),
            spec=dict(_obj(o.get("spec"), "meta.spec")),
            yaml_path=_str(o.get("yaml_path"), "meta.yaml_path"),
            fingerprint=_opt_str(o.get("fingerprint"), "meta.fingerprint"),
            sha256=_opt_str(o.get("sha256"), "meta.sha256"),
            origin=_opt_str(o.get("origin"), "meta.origin"),
            final_url=_opt_str(o.get("final_url"), "meta.final_url"),
            kind=_opt_str(o.get("kind"), "meta.kind"),
            engine=_opt_str(o.get("engine"), "meta.engine"),
            pages=_opt_int(o.get("pages"), "meta.pages"),
            words=_opt_int(o.get("words"), "meta.words"),
            word_rule=_opt_str(o.get("word_rule"), "meta.word_rule"),
            notes=_strs(o.get("notes"), "meta.notes"),
            ingested_at=_opt_str(o.get("ingested_at"), "meta.ingested_at"),
        )


@dataclass(frozen=True, slots=True)
class Bundle:
    """The last good result of one report, as stored (`results/reports/<id>.json.gz`).

    A snapshot bundle (no source) holds only `meta`; a measured one adds the analysis.
    """

    meta: Meta
    sections: tuple[SectionRow, ...] = ()
    counts: tuple[dict[str, Any], ...] = ()
    kwic: tuple[dict[str, Any], ...] = ()
    annotation: Annotation | None = None
    results: Results | None = None

    @property
    def measured(self) -> bool:
        """Whether the report's text was read (keyword counts exist)."""
        return bool(self.counts)

    @classmethod
    def of(cls, meta: Meta, analysis: Analysis) -> Bundle:
        return cls(meta, analysis.sections, analysis.counts, analysis.kwic, analysis.annotation, analysis.results)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"meta": self.meta.to_json()}
        if not self.meta.snapshot:
            d["sections"] = [s.to_json() for s in self.sections]
            d["counts"] = list(self.counts)
            d["kwic"] = list(self.kwic)
        if self.annotation is not None:
            d["annotation"] = self.annotation.to_json()
        if self.results is not None:
            d["results"] = self.results.to_json()
        return d

    @classmethod
    def from_json(cls, d: object) -> Bundle:
        """A bundle from its stored JSON; raises BundleError when the shape is wrong."""
        try:
            o = _obj(d, "bundle")
            ann, res = o.get("annotation"), o.get("results")
            return cls(
                meta=Meta.from_json(o.get("meta")),
                sections=tuple(SectionRow.from_json(s) for s in _list(o.get("sections"), "sections")),
                counts=_rows(o.get("counts"), "counts"),
                kwic=_rows(o.get("kwic"), "kwic"),
                annotation=None if ann is None else Annotation.from_json(ann),
                results=None if res is None else Results.from_json(res),
            )
        except BundleError:
            raise
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            raise BundleError(f"bundle: {type(exc).__name__}: {exc}") from exc
