"""What changed between two versions of a report: a pure function from two readings to a typed diff.

`diff_readings(old, new, lens)` compares two readings (a stored `Bundle` each, plus the extracted
text when it is at hand) and lists only what differs:

* pages and words (whole document and per section);
* keyword counts per section (lexicon term x section);
* each comparison cell of the lens: value and evidence (quote, page);
* benchmark result tables: result cells added, removed, or with a changed value;
* sentences added or removed that mention the lens's terms (a category's cues, or an indicator's
  cue groups all matched), with the dimensions they concern.

Nothing here reads files or the store; `format_diff` renders the record as plain text for the CLI.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from ingest.analysis.evidence import sentences
from ingest.analysis.lens import Lens
from ingest.common.document import Document
from ingest.common.records import Bundle, Cell
from ingest.reading.sections import split_sections
from ingest.store import history
from ingest.store.store import Store

_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Reading:
    """One version of a report as the diff sees it: its label, stored bundle and (optional) text."""

    label: str
    bundle: Bundle
    doc: Document | None = None


@dataclass(frozen=True)
class NumberChange:
    """A count that changed: `what` names it (e.g. 'words in body', 'reward in references')."""

    what: str
    old: int | None
    new: int | None


@dataclass(frozen=True)
class CellChange:
    """A comparison cell whose value or evidence changed."""

    dimension: str
    old_value: tuple[str, ...]
    new_value: tuple[str, ...]
    old_quote: str | None
    new_quote: str | None
    old_page: str | None
    new_page: str | None

    @property
    def value_changed(self) -> bool:
        return self.old_value != self.new_value


@dataclass(frozen=True)
class ResultChange:
    """A benchmark result cell added (old None), removed (new None) or changed."""

    benchmark: str
    model: str
    metric: str
    setting: str
    old: str | None
    new: str | None

    @property
    def kind(self) -> str:
        return "added" if self.old is None else "removed" if self.new is None else "changed"


@dataclass(frozen=True)
class SentenceChange:
    """A sentence mentioning the lens's terms that only one version has."""

    kind: str  # added | removed
    text: str
    page: str
    section: str
    dimensions: tuple[str, ...]


@dataclass(frozen=True)
class ReportDiff:
    """Everything that differs between two readings of one report (empty tuples: nothing changed)."""

    report_id: str
    old_label: str
    new_label: str
    pages: NumberChange | None = None
    words: tuple[NumberChange, ...] = ()
    keywords: tuple[NumberChange, ...] = ()
    cells: tuple[CellChange, ...] = ()
    results: tuple[ResultChange, ...] = ()
    sentences: tuple[SentenceChange, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def changed_cells(self) -> tuple[str, ...]:
        """Dimensions whose value (not only the evidence) changed."""
        return tuple(c.dimension for c in self.cells if c.value_changed)

    @property
    def empty(self) -> bool:
        return not (self.pages or self.words or self.keywords or self.cells or self.results or self.sentences)


# ------------------------------------------------------------------------------------------ parts


def _words(old: Bundle, new: Bundle) -> tuple[NumberChange, ...]:
    def per_section(b: Bundle) -> dict[str, int]:
        out: dict[str, int] = {"all": b.meta.words or 0} if b.meta.words is not None else {}
        for s in b.sections:
            if s.section != "all":
                out[s.section] = out.get(s.section, 0) + s.words
        return out

    a, b = per_section(old), per_section(new)
    order = ["all", *sorted((a.keys() | b.keys()) - {"all"})]
    return tuple(
        NumberChange(f"words in {'document' if k == 'all' else k}", a.get(k), b.get(k))
        for k in order
        if (k in a or k in b) and a.get(k) != b.get(k)
    )


def _keywords(old: Bundle, new: Bundle) -> tuple[NumberChange, ...]:
    def counts(b: Bundle) -> dict[tuple[str, str], int]:
        return {(str(r.get("term")), str(r.get("section"))): int(r.get("count") or 0) for r in b.counts}

    a, b = counts(old), counts(new)
    out = []
    for key in sorted(a.keys() | b.keys()):
        if a.get(key, 0) != b.get(key, 0):
            term, section = key
            where = "document" if section == "all" else section
            out.append(NumberChange(f"{term} in {where}", a.get(key, 0), b.get(key, 0)))
    return tuple(out)


def _page(c: Cell | None) -> str | None:
    if c is None or c.page is None:
        return None
    return c.page_label or str(c.page)


def _cells(old: Bundle, new: Bundle, lens: Lens | None) -> tuple[CellChange, ...]:
    a = old.annotation.cells if old.annotation else {}
    b = new.annotation.cells if new.annotation else {}
    order = [d for d in (lens.ids if lens else []) if d in a or d in b] + sorted(
        (a.keys() | b.keys()) - set(lens.ids if lens else [])
    )
    out = []
    for dim in order:
        x, y = a.get(dim), b.get(dim)
        ch = CellChange(
            dim,
            x.value if x else (),
            y.value if y else (),
            x.quote if x else None,
            y.quote if y else None,
            _page(x),
            _page(y),
        )
        if (ch.old_value, ch.old_quote, ch.old_page) != (ch.new_value, ch.new_quote, ch.new_page):
            out.append(ch)
    return tuple(out)


def _result_values(b: Bundle) -> dict[tuple[str, str, str, str], str]:
    out: dict[tuple[str, str, str, str], list[str]] = {}
    for t in b.results.tables if b.results else ():
        for c in t.cells:
            vals = out.setdefault((c.benchmark, c.model, c.metric, c.setting or c.group), [])
            if c.value not in vals:
                vals.append(c.value)
    return {k: " / ".join(v) for k, v in out.items()}


def _results(old: Bundle, new: Bundle) -> tuple[ResultChange, ...]:
    a, b = _result_values(old), _result_values(new)
    return tuple(ResultChange(*k, a.get(k), b.get(k)) for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k))


@cache
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


_Rule = tuple[str, tuple[re.Pattern[str], ...], tuple[tuple[tuple[re.Pattern[str], ...], ...], ...]]


def _term_rules(lens: Lens) -> list[_Rule]:
    """Per dimension: its categories' cues (any one matches) and each indicator's cue groups (all match)."""
    return [
        (
            d.id,
            _compiled(tuple(c for cat in d.categories for c in cat.cues)),
            tuple(tuple(_compiled(tuple(g)) for g in ind.all_of) for ind in d.indicators),
        )
        for d in lens.dimensions
    ]


def _mentions(text: str, rules: list[_Rule]) -> tuple[str, ...]:
    dims = []
    for dim, cues, indicators in rules:
        if any(p.search(text) for p in cues) or any(all(any(p.search(text) for p in g) for g in ind) for ind in indicators):
            dims.append(dim)
    return tuple(dims)


def _sentence_map(doc: Document) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for s in sentences(split_sections(doc)):
        key = _WS.sub(" ", s.text).strip()
        if key and s.section != "references":
            out.setdefault(key, (s.page_label or str(s.page), s.section))
    return out


def _sentences(old: Document, new: Document, lens: Lens) -> tuple[SentenceChange, ...]:
    a, b = _sentence_map(old), _sentence_map(new)
    rules = _term_rules(lens)
    out = []
    for kind, mine, other in (("removed", a, b), ("added", b, a)):
        for text, (page, section) in mine.items():
            if text in other:
                continue
            dims = _mentions(text, rules)
            if dims:
                out.append(SentenceChange(kind, text, page, section, dims))
    return tuple(out)


# ------------------------------------------------------------------------------------------ entry points


def diff_readings(report_id: str, old: Reading, new: Reading, lens: Lens | None = None) -> ReportDiff:
    """The differences between two readings of one report (pure)."""
    ob, nb = old.bundle, new.bundle
    notes = []
    oa, na = ob.annotation, nb.annotation
    if oa and na and oa.lens_fingerprint != na.lens_fingerprint:
        notes.append("the two readings were made with different lens versions; a cell may differ for that reason")
    pages = NumberChange("pages", ob.meta.pages, nb.meta.pages) if ob.meta.pages != nb.meta.pages else None
    sents: tuple[SentenceChange, ...] = ()
    if lens is not None and old.doc is not None and new.doc is not None:
        sents = _sentences(old.doc, new.doc, lens)
    elif lens is not None:
        notes.append("the text of one version is not cached; sentences were not compared")
    return ReportDiff(
        report_id,
        old.label,
        new.label,
        pages=pages,
        words=_words(ob, nb),
        keywords=_keywords(ob, nb),
        cells=_cells(ob, nb, lens),
        results=_results(ob, nb),
        sentences=sents,
        notes=tuple(notes),
    )


def _value(v: tuple[str, ...]) -> str:
    return ", ".join(v) if v else "(none)"


def _num(n: object) -> str:
    """A figure one reading lacks (a section only the other has) is "-", never a raw None."""
    return "-" if n is None else str(n)


def format_diff(d: ReportDiff) -> str:
    """The diff as plain text, one change per line, grouped by kind."""
    lines = [f"{d.report_id}: {d.old_label} -> {d.new_label}"]
    if d.empty:
        lines.append("no differences")
    if d.pages:
        lines.append(f"pages: {_num(d.pages.old)} -> {_num(d.pages.new)}")
    for title, items in (("words", d.words), ("keyword counts", d.keywords)):
        if items:
            lines.append(f"{title}:")
            lines += [f"  {c.what}: {_num(c.old)} -> {_num(c.new)}" for c in items]
    if d.cells:
        lines.append("comparison cells:")
        for c in d.cells:
            head = (
                f"  {c.dimension}: {_value(c.old_value)} -> {_value(c.new_value)}"
                if c.value_changed
                else f"  {c.dimension}: {_value(c.new_value)} (evidence changed)"
            )
            lines.append(head)
            if c.old_quote != c.new_quote:
                lines.append(f"    was (p. {c.old_page or '-'}): {c.old_quote or '(no quote)'}")
                lines.append(f"    now (p. {c.new_page or '-'}): {c.new_quote or '(no quote)'}")
            elif c.old_page != c.new_page:
                lines.append(f"    page: {c.old_page or '-'} -> {c.new_page or '-'}")
    if d.results:
        lines.append("result tables:")
        for r in d.results:
            what = " | ".join(x for x in (r.benchmark, r.model, r.metric, r.setting) if x)
            lines.append(f"  {r.kind}: {what}: {r.old or '-'} -> {r.new or '-'}")
    if d.sentences:
        lines.append("sentences mentioning the lens's terms:")
        for s in d.sentences:
            sign = "+" if s.kind == "added" else "-"
            lines.append(f"  {sign} (p. {s.page}, {', '.join(s.dimensions)}) {s.text}")
    lines += [f"note: {n}" for n in d.notes]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ from the store


def stored_diff(
    store: Store, report_id: str, lens: Lens | None, old_key: str = "previous", new_key: str = history.LATEST,
    labels: dict[str, str] | None = None, with_text: bool = True,
) -> ReportDiff | None:  # fmt: skip
    """The diff of two stored versions of a report (None when it has fewer than two or one cannot be read)."""
    found = history.versions(store, report_id, labels)
    old_v, new_v = history.find(found, old_key), history.find(found, new_key)
    if old_v is None or new_v is None:
        return None
    readings = []
    for v in (old_v, new_v):
        b = history.reading(store, report_id, v)
        if b is None:
            return None
        doc = store.get_text(v.sha256, b.meta.engine or "pdfium") if with_text else None
        readings.append(Reading(v.label, b, doc))
    return diff_readings(report_id, readings[0], readings[1], lens if with_text else None)


def changed_reports(store: Store) -> dict[str, tuple[str, ...]]:
    """Reports whose latest version changed a comparison cell's value, with those dimensions."""
    root = store.results_dir / "history"
    out: dict[str, tuple[str, ...]] = {}
    for rid in sorted(p.name for p in root.iterdir()) if root.is_dir() else ():
        d = stored_diff(store, rid, None, with_text=False)
        if d is not None and d.changed_cells:
            out[rid] = d.changed_cells
    return out
