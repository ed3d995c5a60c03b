"""Indicators × reports, in the manner of the Foundation Model Transparency Index.

A level dimension of the lens (e.g. agentic-RL disclosure) is decided from named indicators, each
fired or not by a sentence of the report; the comparison table keeps every report's checklist
(`indicators` column, "rl_stage: yes (p. 5); reward_hacking: no"). Here those checklists become one
grid: a row per indicator of the lens, a column per report, each cell yes (with the page and the
sentence that fired it) or no, and a score per report (indicators met / indicators). A report with
no checklist (no source text was read) is listed apart, never scored as all "no".
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ingest.analysis.comparison import parse_checklist
from ingest.analysis.lens import Lens
from ingest.outputs.mdtable import blank


@dataclass(frozen=True)
class Cell:
    """One indicator of one report: fired or not, the page label and the sentence that fired it."""

    fired: bool
    page: str = ""
    quote: str = ""


@dataclass(frozen=True)
class Score:
    """One report's checklist summary: indicators met out of those in the lens, and the stored level."""

    report_id: str
    met: int
    total: int
    level: str

    @property
    def share(self) -> float:
        return self.met / self.total if self.total else 0.0


@dataclass(frozen=True)
class Indicators:
    """The grid of one level dimension: indicator ids (lens order) and labels, scored reports (best
    first), cells by (indicator, report), and the reports without a checklist."""

    names: list[str]
    labels: dict[str, str]
    scores: list[Score]
    cells: dict[tuple[str, str], Cell]
    unscored: list[str]

    def frame(self, models: dict[str, str]) -> pd.DataFrame:
        """The grid as text, for CSV/Markdown: a row per indicator, a column per report, "yes (p. 5)"/"no",
        and a last row with each report's score."""
        rows = []
        for n in self.names:
            row = {"indicator": self.labels.get(n, n)}
            for s in self.scores:
                c = self.cells.get((n, s.report_id))
                row[models.get(s.report_id, s.report_id)] = "" if c is None else (f"yes (p. {c.page})" if c.fired else "no")
            rows.append(row)
        rows.append({"indicator": "score", **{models.get(s.report_id, s.report_id): f"{s.met}/{s.total}" for s in self.scores}})
        return pd.DataFrame(rows)


def indicator_grid(comparison: pd.DataFrame, evidence: pd.DataFrame, lens: Lens, dim_id: str) -> Indicators:
    """The grid of one level dimension from the stored comparison and evidence tables."""
    dim = lens.dimension(dim_id)
    names = [i.name for i in dim.indicators]
    labels = {i.name: i.label or i.name.replace("_", " ") for i in dim.indicators}
    rows = comparison[comparison["dimension"] == dim_id] if not comparison.empty else comparison
    quotes: dict[tuple[str, str], str] = {}
    if not evidence.empty:
        ev = evidence[(evidence["dimension"] == dim_id) & (evidence["rank"] == 1)]
        quotes = {(str(c), str(r)): str(q) for c, r, q in zip(ev["category"], ev["report_id"], ev["quote"], strict=True)}
    cells: dict[tuple[str, str], Cell] = {}
    scores, unscored = [], []
    for r in rows.to_dict("records"):
        rid = str(r["report_id"])
        items = parse_checklist(r.get("indicators")) if isinstance(r.get("indicators"), str) else []
        if not items:
            unscored.append(rid)
            continue
        for it in items:
            page = "" if blank(it["page_label"]) else str(it["page_label"])
            cells[(it["indicator"], rid)] = Cell(bool(it["fired"]), page, quotes.get((it["indicator"], rid), ""))
        met = sum(1 for n in names if (c := cells.get((n, rid))) is not None and c.fired)
        scores.append(Score(rid, met, len(names), "" if blank(r.get("value")) else str(r["value"])))
    scores.sort(key=lambda s: (-s.met, s.report_id))
    return Indicators(names, labels, scores, cells, unscored)
