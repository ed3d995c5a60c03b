"""Methods named by reference to another report ("the same algorithm as in K1.5"), looked up.

Why: the codebook lists such a method as the referenced report's method, noted as named by
reference. Annotation reads one report at a time, so it writes "as in NAME" (the lens's
`reference_value`); where the referenced report is at hand (another report of the same store, or
another labelled document in the eval), its own main method replaces that value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from ingest.analysis.lens import Lens
from ingest.common.records import Annotation

#: Characters that separate the words of a report id or title ("kimi-k1.5", "Kimi k1.5: Scaling …").
_WORDS = re.compile(r"[\s\-_:,;()/]+")


def name_words(name: str) -> set[str]:
    """The case-folded words of a report's name, id or title (what `match_report` compares)."""
    return {w for w in _WORDS.split(name.casefold()) if w}


def match_report(name: str, titles: Mapping[str, str]) -> str | None:
    """The report (id -> title) a reference names: every word of the name is a word of the report's
    id or title, case-folded ("K1.5" -> "kimi-k1.5"); None when no report or several match."""
    words = {w for w in _WORDS.split(name.casefold()) if w}
    if not words:
        return None
    hits = [rid for rid, title in titles.items() if words <= {w for w in _WORDS.split(f"{rid} {title}".casefold()) if w}]
    return hits[0] if len(hits) == 1 else None


def resolve_references(ann: Annotation, lens: Lens, lookup: Callable[[str], str | None]) -> Annotation:
    """The annotation with each "as in NAME" value of an algorithm dimension replaced by `lookup(NAME)`
    (the referenced report's main method), where it finds one; the cell's `why` says it was named by reference."""
    cells = dict(ann.cells)
    for dim in lens.dimensions:
        if dim.kind != "algorithm" or dim.id not in cells:
            continue
        rx = re.compile(re.escape(dim.reference_value).replace(re.escape("{name}"), "(?P<name>.+)"))
        cell, values, said = cells[dim.id], [], []
        for v in cell.value:
            m = rx.fullmatch(v)
            found = lookup(m.group("name")) if m else None
            values.append(found or v)
            if found:
                said.append(f"{found} named by reference ({v})")
        if said:
            why = "; ".join([*([cell.why] if cell.why else []), *said])
            cells[dim.id] = replace(cell, value=tuple(dict.fromkeys(values)), why=why)
    return replace(ann, cells=cells)


@dataclass(frozen=True)
class Target:
    """The report a reference names, as the comparison table shows its main method."""

    report_id: str
    model: str
    value: str
    quote: str | None = None
    page_label: str | None = None


#: Between a reference and the method it resolved to, in a derived cell's value ("as in K1.5 → GRPO").
DERIVED_ARROW = " → "


def reference_pattern(lens: Lens, dim_id: str) -> re.Pattern[str] | None:
    """The pattern of a reference value ("as in NAME") in a cell of `dim_id`, capturing NAME; None when
    the dimension holds no methods (a `mentioned` dimension reads its source's `reference_value`)."""
    dim = lens.dimension(dim_id)
    if dim.kind == "mentioned" and dim.source:
        dim = lens.dimension(dim.source)
    if dim.kind != "algorithm":
        return None
    return re.compile(re.escape(dim.reference_value).replace(re.escape("{name}"), "(?P<name>.+)"))


def method_of(value: str) -> str:
    """The method a cell value stands for: "as in K1.5 → GRPO" is GRPO (what Review saves when the
    automatic value is accepted); any other value is itself."""
    return value.rpartition(DERIVED_ARROW)[2]


def _norm(values: list[str]) -> set[str]:
    return {" ".join(v.lower().split()) for v in values}


def resolve_rows(
    rows: list[dict], lens: Lens, lookup: Callable[[str], Target | None], sep: str = "; "
) -> tuple[list[dict], tuple[str, ...]]:
    """One report's comparison rows with each automatic "as in NAME" value shown as derived — "as in NAME →
    GRPO", the referenced report's method, its evidence named in `notes` — where `lookup(NAME)` finds the
    report; and every NAME referred to (resolved or not: the rows must be rebuilt when that report comes or
    changes). A curated cell keeps its value; its `auto_value` is shown derived too, and it disagrees with
    the automatic reading only when the curated methods differ from the resolved ones."""
    out, names = [], []
    for row in rows:
        auto = row.get("auto_value")
        rx = reference_pattern(lens, row["dimension"]) if auto and row.get("origin") in ("auto", "curated") else None
        if rx is None:
            out.append(row)
            continue
        values, said = [], []
        for v in str(auto).split(sep):
            m = rx.fullmatch(v)
            target = lookup(m.group("name")) if m else None
            if m:
                names.append(m.group("name"))
            values.append(f"{v}{DERIVED_ARROW}{target.value}" if target else v)
            if target:
                where = f" (p. {target.page_label})" if target.page_label else ""
                quote = f": “{target.quote}”" if target.quote else ""
                said.append(
                    f"derived: {v} is report {target.report_id} ({target.model}), whose cell says {target.value}{where}{quote}"
                )
        if said and row["origin"] == "auto":
            notes = "; ".join([*([row["notes"]] if row.get("notes") else []), *said])
            row = {**row, "value": sep.join(values), "auto_value": sep.join(values), "notes": notes}
        elif said:  # curated: the value stands; the automatic reading is compared as resolved
            cur = [v for v in str(row.get("value") or "").split(sep) if v]
            row = {**row, "auto_value": sep.join(values), "disagree": _norm(cur) != _norm([method_of(v) for v in values])}
        out.append(row)
    return out, tuple(dict.fromkeys(names))
