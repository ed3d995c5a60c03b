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
    assert any(t.value.startswith("No date (") and "Gemma 4" in t.value for t in at.text)
