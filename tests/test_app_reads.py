"""Dashboard reads: a page that shows one report reads that report's rows, never a whole per-report table.

Why: at 10,000 reports the KWIC, evidence and counts tables hold millions of rows; reading them
whole for one report's card costs seconds and hundreds of MB (issue 12 §3). Each test reads a
private copy of the store (a new cache key), so nothing cached by another test hides a read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from ingest.analysis.lens import load_lens
from ingest.store.store import Store
from tests.app_fixtures import copy_store

APP = str(Path(__file__).resolve().parents[1] / "app.py")
ALGO = next(d.id for d in load_lens().dimensions if d.kind == "algorithm")
#: Per-report tables that no single-report page may read whole.
BIG = {"kwic", "evidence", "sections", "counts"}


@pytest.fixture(scope="module")
def built(pipeline_store) -> Path:
    return pipeline_store(6)[0]  # the session's store (shared with test_app.py), read-only: each test reads a copy


@pytest.fixture
def reads(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, object, object]]:
    """Every Store.read_table call as (table, report_ids, filters), on a private copy of the store."""
    monkeypatch.setenv("FRL_DATA_DIR", str(copy_store(built, tmp_path / "data")))
    monkeypatch.setenv("FRL_REPORTS_DIR", str(tmp_path / "reports"))
    monkeypatch.delenv("FRL_LENS", raising=False)
    calls: list[tuple[str, object, object]] = []
    real = Store.read_table

    def spy(self, name, report_ids=None, columns=None, filters=None):  # type: ignore[no-untyped-def]
        calls.append((name, report_ids, filters))
        return real(self, name, report_ids=report_ids, columns=columns, filters=filters)

    monkeypatch.setattr(Store, "read_table", spy)
    st.cache_data.clear()  # a copy of the shared store may carry the same cache key as one an earlier test read
    st.cache_resource.clear()
    return calls


def _open(page: str, **state: str) -> AppTest:
    """Open `page` straight away (the app's default page would read the comparison table first)."""
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    for k, v in state.items():
        at.session_state[k] = v
    at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _whole(calls: list[tuple[str, object, object]]) -> set[str]:
    return {name for name, ids, filters in calls if name in BIG and ids is None and not filters}


def test_report_card_reads_only_its_report(reads: list) -> None:
    at = _open("report", report="r02")
    assert any(name == "counts" and list(ids or []) == ["r02"] for name, ids, _ in reads)
    assert not _whole(reads), _whole(reads)
    assert "<h3>Comparison table row</h3>" in "".join(el.proto.body for el in at.get("html"))


def test_evidence_page_reads_only_the_shown_dimension_and_term(reads: list) -> None:
    _open("evidence", report="r00", dim=ALGO, term="agent")
    assert not _whole(reads), _whole(reads)
    assert any(name == "evidence" and list(ids or []) == ["r00"] for name, ids, _ in reads)
