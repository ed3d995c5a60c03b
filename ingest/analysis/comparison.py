"""The comparison table: automatic cells merged with curated ones, with disagreement flags.

One row per report × lens dimension (lens order). A curated cell (the report YAML's `curated:`
block) wins and is marked `origin=curated`; the automatic value stays visible in `auto_value`,
and `disagree` is True when both exist and name different categories. Without a curated cell
the automatic cell is shown (`origin=auto`); with neither — no source text and no curated cell —
the value is "not assessed" (`origin=none`). "not disclosed" is a real value: the text was read
and is silent on the point. Level dimensions (disclosure) fill `indicators` with the whole
checklist that decided the level: every indicator yes (page of its quote) or no.
"""

from __future__ import annotations

from collections.abc import Sequence

from ingest.analysis.lens import NOT_ASSESSED, NOT_DISCLOSED, Lens
from ingest.common.records import Annotation, Cell
from ingest.sources.schema import CuratedCell, ReportSpec

COMPARISON_COLUMNS = [
    "report_id",
    "dimension",
    "value",
    "origin",
    "confidence",
    "quote",
    "page",
    "page_label",
    "section",
    "detail",
    "notes",
    "auto_value",
    "disagree",
    "indicators",
]
EVIDENCE_COLUMNS = ["report_id", "dimension", "category", "rank", "score", "quote", "page", "page_label", "section"]
SEP = "; "


def _norm(values: Sequence[str]) -> set[str]:
    return {" ".join(v.lower().split()) for v in values}


def join(values: Sequence[str]) -> str:
    """Several categories in one cell, in the given order."""
    return SEP.join(values) if values else NOT_DISCLOSED


def usable(annotation: Annotation | None, lens: Lens) -> Annotation | None:
    """The stored annotation when it was made with this lens (another lens' cells would mislabel columns)."""
    if annotation is None or annotation.lens != lens.id:
        return None
    return annotation


def unknown_values(cell: CuratedCell, lens: Lens, dim_id: str) -> list[str]:
    """Curated values that are not categories of the lens dimension (a typo, or the study's own wording)."""
    allowed = _norm(lens.allowed_values(dim_id))
    return [v for v in cell.values if " ".join(v.lower().split()) not in allowed]


def checklist_text(cell: Cell) -> str | None:
    """A level cell's indicator checklist in one line, FMTI-style: every indicator yes (with the page
    of the sentence that fired it) or no, e.g. "rl_stage: yes (p. 5); reward_hacking: no".

    Annotations stored before the checklist existed list only the indicators that fired.
    """
    items = cell.checklist
    if not items:
        return SEP.join(cell.indicators or ()) or None
    return SEP.join(f"{i.indicator}: yes (p. {i.page_label})" if i.fired else f"{i.indicator}: no" for i in items)


def parse_checklist(text: str | None) -> list[dict]:
    """The inverse of `checklist_text` for display: [{indicator, fired, page_label}]."""
    out = []
    for part in (text or "").split(SEP):
        name, _, rest = part.partition(": ")
        if not name:
            continue
        page = rest[len("yes (p. ") : -1] if rest.startswith("yes (p. ") else None
        out.append({"indicator": name, "fired": rest.startswith("yes") or not rest, "page_label": page})
    return out


def comparison_rows(lens: Lens, spec: ReportSpec, annotation: Annotation | None) -> list[dict]:
    """Rows of one report, dimensions in lens order (see the module docstring for the merge rules)."""
    ann = usable(annotation, lens)
    rows = []
    for dim in lens.dimensions:
        auto = ann.cells.get(dim.id) if ann is not None else None
        cur = spec.curated.get(dim.id)
        indicators = checklist_text(auto) if auto and dim.kind == "level" else None
        row = dict.fromkeys(COMPARISON_COLUMNS)
        row.update(report_id=spec.id, dimension=dim.id, auto_value=join(auto.value) if auto else None, disagree=False)
        row["indicators"] = indicators
        if cur is not None:
            notes = cur.notes
            bad = unknown_values(cur, lens, dim.id)
            if bad:
                warn = f"value(s) not in lens {lens.id}: {', '.join(bad)}"
                notes = f"{notes}; {warn}" if notes else warn
            row.update(
                value=join(cur.values),
                origin="curated",
                quote=cur.quote,
                page=cur.page if isinstance(cur.page, int) else None,
                page_label=None if cur.page is None else str(cur.page),
                detail=cur.detail,
                notes=notes,
                disagree=auto is not None and _norm(cur.values) != _norm(auto.value),
            )
        elif auto is not None:
            row.update(
                value=join(auto.value),
                origin="auto",
                confidence=auto.confidence,
                quote=auto.quote,
                page=auto.page,
                page_label=auto.page_label,
                section=auto.section,
                notes=auto.why,
            )
        else:
            row.update(value=NOT_ASSESSED, origin="none")
        rows.append(row)
    return rows


def evidence_rows(report_id: str, annotation: Annotation | None, lens: Lens) -> list[dict]:
    """Rows of the `evidence` table: ranked candidate sentences of one report (none without a usable annotation)."""
    ann = usable(annotation, lens)
    return [{"report_id": report_id, **e.to_json()} for e in ann.evidence] if ann is not None else []
