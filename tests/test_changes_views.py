"""Dashboard pages for following the field (AppTest): Changes shows the planted differences of a
revised report, Compare marks the report, Incoming accepts and dismisses proposals."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ingest.sources.watch import load_state
from tests.test_versions_diff import ADDED, REMOVED
from tests.versions_fixtures import build_revised_store

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def revised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    data, reports = build_revised_store(tmp_path)
    monkeypatch.setenv("FRL_DATA_DIR", str(data))
    monkeypatch.setenv("FRL_REPORTS_DIR", str(reports))
    monkeypatch.delenv("FRL_LENS", raising=False)
    monkeypatch.delenv("FRL_READ_ONLY", raising=False)
    return data, reports


def _page(name: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "views" / f"{name}.py"), default_timeout=120)
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


def _html(at: AppTest) -> str:
    return "\n".join(str(e.proto.body) for e in at.get("html"))


def test_changes_page_shows_the_planted_differences(revised):
    at = _page("changes", report="lens-7b")
    assert not at.exception
    page = _html(at)
    for expected in ("44.8", "41.3", "BFCL v3", ADDED, REMOVED, "GRPO in document"):
        assert expected.replace(",", "") in page.replace(",", ""), expected
    assert "removed" in page and "added" in page and "changed" in page


def test_changes_page_names_the_current_version_by_the_report_s_own_date(revised):
    _data, reports = revised
    path = reports / "lens-7b.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "released: 2025-06-30\n", encoding="utf-8")
    at = _page("changes", report="lens-7b")
    assert not at.exception
    new = at.selectbox(key="new")
    shown = list(new.options)
    assert any("2025-06-30, released, current" in s for s in shown), shown
    assert "No differences" not in " ".join(str(c.value) for c in at.caption)
    assert "44.8" in _html(at)


def test_compare_marks_the_report_whose_latest_version_changed_a_cell(revised):
    at = _page("compare")
    assert not at.exception
    note = [h for h in _html(at).split("\n") if "frl-changed" in h]
    assert note and "changes?report=lens-7b" in note[0] and "Other Model" not in note[0]


def test_incoming_page_accepts_and_dismisses(revised):
    data, reports = revised
    at = _page("incoming")
    assert "Kimi K9" in _html(at)
    at.button(key="acc_kimi-k9").click().run()
    assert (reports / "kimi-k9.yaml").is_file() and not (reports / "incoming" / "kimi-k9.yaml").exists()
    assert "accepted" in " ".join(str(t.value) for t in at.text)
    # a second proposal, dismissed: its URL is remembered
    (reports / "incoming" / "x1.yaml").write_text(
        "id: x1\nmodel: X1\norganization: Lab\ndoc_type: blog\nsource: {url: 'https://example.org/x1'}\n"
    )
    at = _page("incoming")
    at.button(key="dis_x1").click().run()
    assert not (reports / "incoming" / "x1.yaml").exists()
    assert load_state(data).dismissed == ["https://example.org/x1"]


def test_incoming_page_is_list_only_when_read_only(revised, monkeypatch):
    monkeypatch.setenv("FRL_READ_ONLY", "1")
    at = _page("incoming")
    assert "Kimi K9" in _html(at) and not at.button
