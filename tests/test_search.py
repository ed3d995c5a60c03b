"""Search page (views/search.py): any word or phrase in the stored text, as KWIC lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ingest.common.document import Document, Page
from ingest.outputs import search
from tests.conftest import ShippedRun

REPO = Path(__file__).resolve().parents[1]


def test_search_finds_a_phrase_across_line_breaks_literally_and_case_insensitively() -> None:
    doc = Document("pdf", "pdfium", [Page(1, "We use reward\nshaping here."), Page(2, "Reward Shaping (a.*b) again.")])
    hits = search.search_document("r", doc, "  reward   shaping ")
    assert [(h.page, h.match) for h in hits] == [(1, "reward shaping"), (2, "Reward Shaping")]
    assert hits[0].left == "We use " and hits[0].right == " here."
    assert search.search_document("r", doc, "a.*b")[0].match == "a.*b"  # literal text, never a regex
    assert search.search_document("r", doc, "") == []
    assert len(search.clean_query("x" * 10_000)) == search.MAX_QUERY


def test_search_caps_lines_per_report() -> None:
    doc = Document("pdf", "pdfium", [Page(1, "agent " * 500)])
    assert len(search.search_document("r", doc, "agent")) == search.PER_REPORT


def test_search_page_on_the_shipped_reports_finds_any_phrase(shipped: ShippedRun, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRL_DATA_DIR", str(shipped.data))  # the session's store: read-only
    at = AppTest.from_file(str(REPO / "views" / "search.py"), default_timeout=60)
    at.query_params["q"] = "sandbox"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("line(s) with “sandbox” in 3 report(s)" in c.value.replace("\\", "") for c in at.caption)
    body = "\n".join(el.proto.body for el in at.get("html"))
    assert "[sandbox]" in body.lower() and "see the page" in body
    at.text_input(key="q").set_value("<script>alert(1)</script>").run()
    assert not at.exception and "<script>alert" not in "\n".join(el.proto.body for el in at.get("html"))


def _search_page_showing_ten() -> None:
    from views import search as page

    page.SHOWN = 10  # the shipped reports' three texts give at most 100 lines, views.search.SHOWN
    page.render()


def test_search_page_draws_the_first_lines_and_all_on_request(shipped: ShippedRun, monkeypatch: pytest.MonkeyPatch) -> None:
    """A frequent word draws views.search.SHOWN lines first (a 500-line table tripled a first render);
    a button draws them all, for that query only."""
    monkeypatch.setenv("FRL_DATA_DIR", str(shipped.data))  # the session's store: read-only
    at = AppTest.from_function(_search_page_showing_ten, default_timeout=60)
    at.query_params["q"] = "the"
    at.run()

    def lines() -> int:
        return "\n".join(el.proto.body for el in at.get("html")).count("<tr") - 1  # the head row

    assert not at.exception and lines() == 10
    at.button(key="search_more").click().run()
    assert lines() > 10 and not at.button
    at.text_input(key="q").set_value("and").run()
    assert lines() == 10
