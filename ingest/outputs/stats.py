"""The study's statistics table (words, then each term as `count (density)`), as pure functions.

Shared by `python -m ingest export --table stats|stats-measured`, the report card and the
dashboard, so the Markdown a user pastes into a write-up is what the tests check against the study.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import pandas as pd

from ingest.analysis.keywords import density
from ingest.analysis.lexicon import load_lexicon
from ingest.outputs.mdtable import blank
from ingest.store.store import Store

Source = Literal["reported", "measured"]
Used = Literal["reported", "measured", "none"]

#: Lexicon group whose terms form the statistics table (data/lexicon.yaml).
STATS_GROUP = "study"


def study_terms() -> list[str]:
    """Terms of the lexicon's study group, in lexicon order."""
    return [t.name for t in load_lexicon().group(STATS_GROUP).terms]


def density_text(count: float, words: float) -> str:
    """Per 1,000 words to one decimal, rounded half up (`keywords.density`), as the study prints it."""
    d = density(count, words, places=1)
    return "" if d is None else f"{d:.1f}"


@dataclass
class Figures:
    """One report's whole-document figures of one kind: words, term -> count, term -> published note."""

    words: int | None = None
    count: dict[str, int] = field(default_factory=dict)
    note: dict[str, str] = field(default_factory=dict)


@dataclass
class ReportFigures:
    """The figures used for a report's row and which kind they are (`none`: neither exists)."""

    report_id: str
    model: str
    used: Used
    figures: Figures


def _reported(reported: pd.DataFrame, rid: str) -> Figures | None:
    if reported.empty or not (reported["report_id"] == rid).any():
        return None
    mine = reported[reported["report_id"] == rid]
    words = mine["words"].dropna()
    terms = mine[mine["term"].notna()]
    return Figures(
        words=int(words.iloc[0]) if len(words) else None,
        count={t.term: int(t.count) for t in terms.itertuples() if not blank(t.count)},
        note={t.term: t.note for t in terms.itertuples() if isinstance(t.note, str) and t.note},
    )


def _measured(meas: pd.DataFrame, rid: str, words: object) -> Figures | None:
    mm = meas[meas["report_id"] == rid] if not meas.empty else meas
    if mm.empty:
        return None
    all_ = mm[mm["section"] == "all"]
    refs = mm[mm["section"] == "references"]
    ref_n = dict(zip(refs["term"], refs["count"], strict=False))
    cnt = {t: int(n) for t, n in zip(all_["term"], all_["count"], strict=False)}
    if blank(words) and len(all_):
        words = all_["words"].iloc[0]
    return Figures(
        words=None if blank(words) else int(words),  # type: ignore[arg-type]
        count=cnt,
        note={t: "all in references" for t, n in cnt.items() if n > 0 and int(ref_n.get(t, 0)) == n},
    )


def report_figures(reports: pd.DataFrame, reported: pd.DataFrame, counts: pd.DataFrame, source: Source) -> list[ReportFigures]:
    """Per report, the chosen kind of figures, falling back to the other kind (flagged in `used`)."""
    meas = counts[counts["group"] == STATS_GROUP] if not counts.empty and "group" in counts else counts
    out = []
    for r in reports.itertuples(index=False):
        rep = _reported(reported, r.report_id)
        mea = _measured(meas, r.report_id, getattr(r, "words", None))
        order = [(rep, "reported"), (mea, "measured")]
        if source == "measured":
            order.reverse()
        figs, used = next(((f, u) for f, u in order if f is not None), (Figures(), "none"))
        out.append(ReportFigures(r.report_id, str(r.model), used, figs))  # type: ignore[arg-type]
    return out


def stats_frame(
    reports: pd.DataFrame,
    reported: pd.DataFrame,
    counts: pd.DataFrame,
    terms: Sequence[str] | None = None,
    source: Source = "reported",
    figures: bool = False,
) -> pd.DataFrame:
    """The study's statistics table: words, then each term as `count (density)`.

    Cell form follows the study: a published note replaces the density (`3 (all in references)`)
    and a term with zero hits in every report is printed as a bare count (`0`, nothing to compare).
    The other cells of a row with such a note keep their densities (the study printed bare counts
    there, Gemma 4 `10`, which leaves a reader of the export unable to compare that row).
    `source` picks reported (default: the study reproduces even after measuring) or measured
    figures; a report lacking the chosen kind falls back to the other, flagged in `figures`. That
    column is left out when every row holds the chosen kind (as the study prints it), unless `figures`
    asks for it always, so a table of any selection of reports has the same columns.
    """
    terms = list(terms or study_terms())
    rows = report_figures(reports, reported, counts, source)
    all_zero = {t: all(r.figures.count.get(t, 0) == 0 for r in rows if t in r.figures.count) for t in terms}
    out = []
    for r in rows:
        f = r.figures
        line: dict[str, object] = {"model": r.model, "words": "" if f.words is None else f"{f.words:,}"}
        for t in terms:
            n = f.count.get(t)
            if n is None:
                line[t] = "n/a" if r.used == "none" else ""
            elif t in f.note:
                line[t] = f"{n} ({f.note[t]})"
            elif all_zero[t] or not f.words:
                line[t] = str(n)
            else:
                line[t] = f"{n} ({density_text(n, f.words)})"
        line["figures"] = r.used
        out.append(line)
    df = pd.DataFrame(out, columns=["model", "words", *terms, "figures"])
    if not figures and (df["figures"] == source).all():
        df = df.drop(columns="figures")
    return df


def stats_table(store: Store, source: Source = "reported") -> pd.DataFrame:
    """Statistics table of the stored data."""
    return stats_frame(store.read_table("reports"), store.read_table("reported"), store.read_table("counts"), source=source)
