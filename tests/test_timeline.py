"""Timeline page (views/timeline.py): reports by release date with level and keyword density."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from ingest.outputs import timeline as tl
from tests.conftest import ShippedRun

REPO = Path(__file__).resolve().parents[1]


def test_a_report_is_dated_by_release_else_by_its_arxiv_month_else_not_at_all() -> None:
    assert tl.date_of(dt.date(2026, 1, 31), "2508.06471") == tl.Dated(dt.date(2026, 1, 31), tl.BY_RELEASE)
    assert tl.date_of(None, "2508.06471") == tl.Dated(dt.date(2025, 8, 1), tl.BY_ARXIV)
    assert tl.date_of(None, "2513.00001") is None  # no 13th month
    assert tl.date_of(None, None) is None
    assert tl.months_between("2025-11", "2026-02") == ["2025-11", "2025-12", "2026-01", "2026-02"]


def test_dates_outside_the_axis_window_are_listed_apart_never_placed_at_the_first_month() -> None:
    """`released: 9999-12-31` (or 0001-01-01) would stretch the axis over millennia, and the axis's
    month cap would then drop the real reports or draw them at the first month: such dates are listed apart."""
    today = dt.date(2026, 12, 1)
    assert tl.date_of(dt.date(9999, 12, 31), None, today) is None and tl.date_of("0001-01-01", None, today) is None
    assert tl.date_of(dt.date(2027, 6, 1), None, today) is not None  # announced for a date within a year
    reports = pd.DataFrame([
        {"report_id": "far", "model": "Far", "released": dt.date(9999, 12, 31), "arxiv_id": None},
        {"report_id": "old", "model": "Old", "released": dt.date(1, 1, 1), "arxiv_id": None},
        {"report_id": "a", "model": "A", "released": dt.date(1950, 1, 1), "arxiv_id": None},
        {"report_id": "b", "model": "B", "released": dt.date(2026, 11, 2), "arxiv_id": None},
    ])  # fmt: skip
    reported = pd.DataFrame([{"report_id": r, "term": "tool", "count": 5, "words": 1000, "note": None} for r in "ab"])
    df, undated = tl.timeline(reports, {}, reported, pd.DataFrame(), "tool", today=today)
    assert df["report_id"].tolist() == ["a", "b"] and undated == ["far", "old"]
    assert set(df["month"]) <= set(tl.months_between(df["month"].min(), df["month"].max()))  # every point has its month


def test_timeline_orders_dated_reports_and_lists_the_undated() -> None:
    reports = pd.DataFrame([
        {"report_id": "b", "model": "B", "released": None, "arxiv_id": "2506.1", "words": None},
        {"report_id": "a", "model": "A", "released": dt.date(2025, 3, 2), "arxiv_id": None, "words": None},
        {"report_id": "c", "model": "C", "released": None, "arxiv_id": None, "words": None},
    ])  # fmt: skip
    reported = pd.DataFrame([{"report_id": "a", "term": "tool", "count": 5, "words": 1000, "note": None}])
    df, undated = tl.timeline(reports, {"a": "low"}, reported, pd.DataFrame(), "tool")
    assert df["report_id"].tolist() == ["a"] and undated == ["b", "c"]  # "2506.1" is no arXiv id
    assert df.loc[0, "density"] == 5.0 and df.loc[0, "level"] == "low" and df.loc[0, "dated by"] == tl.BY_RELEASE


def test_timeline_page_on_the_shipped_reports(shipped: ShippedRun, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRL_DATA_DIR", str(shipped.data))  # the session's store: read-only
    at = AppTest.from_file(str(REPO / "views" / "timeline.py"), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    body = "\n".join(el.proto.body for el in at.get("html"))
    assert 'data-chart="timeline"' in body and "report?report=glm-4.5" in body and "2025-08" in body
    assert any(t.value.startswith("No date") and "Gemma 4" in t.value for t in at.text)
