"""Reports by release date, with their disclosure level and a keyword's density: the timeline view.

A report's date is its `released:` field; without one, an arXiv identifier gives the month of
submission (2508.06471 -> 2025-08), marked as such so a reader never takes it for a release day.
Reports with neither, or with a date outside `EARLIEST` to a year after today (a typo, or a hostile
`released: 9999-12-31` that would stretch the axis over millennia), are listed apart, never placed
on the axis; so every placed report fits the axis's months (`MAX_MONTHS`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from dataclasses import dataclass

import pandas as pd

from ingest.outputs.mdtable import blank
from ingest.outputs.stats import Source, report_figures

ARXIV = re.compile(r"^(\d{2})(\d{2})\.\d{4,5}")
BY_RELEASE, BY_ARXIV = "released", "arXiv id (month)"
#: The earliest date placed on the axis, and how far after today a date may lie (a report announced
#: for a date soon); other dates are listed apart.
EARLIEST = dt.date(1950, 1, 1)
AHEAD = dt.timedelta(days=366)
#: Months the axis may span: from EARLIEST to a year after today, with room to spare.
MAX_MONTHS = 1200


@dataclass(frozen=True)
class Dated:
    """When a report came out and how that is known."""

    day: dt.date
    by: str

    @property
    def month(self) -> str:
        return f"{self.day.year:04d}-{self.day.month:02d}"


def date_of(released: object, arxiv_id: object, today: dt.date | None = None) -> Dated | None:
    """The report's date: `released`, else the month its arXiv id encodes, else None; None too for a
    date before EARLIEST or (given `today`) more than AHEAD after it."""
    found = None
    if isinstance(released, dt.date):
        found = Dated(released, BY_RELEASE)
    elif isinstance(released, str) and released:
        with contextlib.suppress(ValueError):
            found = Dated(dt.date.fromisoformat(released[:10]), BY_RELEASE)
    m = ARXIV.match(str(arxiv_id)) if found is None and not blank(arxiv_id) else None
    if m and 1 <= int(m.group(2)) <= 12:
        found = Dated(dt.date(2000 + int(m.group(1)), int(m.group(2)), 1), BY_ARXIV)
    if found is None or found.day < EARLIEST or (today is not None and found.day > today + AHEAD):
        return None
    return found


def timeline(
    reports: pd.DataFrame,
    levels: dict[str, str],
    reported: pd.DataFrame,
    counts: pd.DataFrame,
    term: str,
    prefer: Source = "measured",
    today: dt.date | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """Dated reports (oldest first) with month, how dated, level and the term's density per 1,000
    words (measured preferred, reported otherwise, as `figures` says); and the undated report ids
    (no date, or one `date_of` does not place)."""
    dates = {
        str(r.report_id): date_of(getattr(r, "released", None), getattr(r, "arxiv_id", None), today)
        for r in reports.itertuples(index=False)
    }
    dated = reports[reports["report_id"].map(lambda rid: dates.get(str(rid)) is not None)] if len(reports) else reports
    ids = set(dated["report_id"]) if len(dated) else set()
    # figures of the dated reports only (the per-report lookups are the cost; undated ones need none)
    rep = reported[reported["report_id"].isin(ids)] if len(reported) else reported
    cnt = counts[counts["report_id"].isin(ids)] if len(counts) else counts
    figs = {f.report_id: f for f in report_figures(dated, rep, cnt, prefer)} if ids else {}
    rows, undated = [], []
    for r in reports.itertuples(index=False):
        d = dates.get(str(r.report_id))
        if d is None:
            undated.append(str(r.report_id))
            continue
        f = figs.get(str(r.report_id))
        n = f.figures.count.get(term) if f else None
        words = f.figures.words if f else None
        density = round(1000 * n / words, 2) if n is not None and words else None
        rows.append({
            "report_id": r.report_id, "model": r.model, "month": d.month, "dated by": d.by,
            "date": d.day.isoformat() if d.by == BY_RELEASE else d.month,  # an arXiv id gives no day
            "level": levels.get(str(r.report_id), ""), "density": density, "figures": f.used if f else "none",
        })  # fmt: skip
    cols = ["report_id", "model", "date", "month", "dated by", "level", "density", "figures"]
    df = pd.DataFrame(rows, columns=cols).sort_values(["date", "model"], kind="stable").reset_index(drop=True)
    return df, undated


def months_between(first: str, last: str) -> list[str]:
    """Every month from `first` to `last` ("YYYY-MM"), so the axis spaces months evenly."""
    y, m = int(first[:4]), int(first[5:7])
    out = []
    while f"{y:04d}-{m:02d}" <= last and len(out) < MAX_MONTHS:
        out.append(f"{y:04d}-{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out
