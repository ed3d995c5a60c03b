"""Indicators page (views/indicators.py): indicators × reports with evidence and a score per report."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from ingest.analysis.lens import load_lens
from ingest.outputs.indicators import indicator_grid
from tests.conftest import ShippedRun

REPO = Path(__file__).resolve().parents[1]
LENS = load_lens()
LEVEL = LENS.level_id
NAMES = [i.name for i in LENS.dimension(LEVEL).indicators]


def test_grid_scores_reports_with_a_checklist_and_lists_the_others_apart() -> None:
    checklist = f"{NAMES[0]}: yes (p. 5); " + "; ".join(f"{n}: no" for n in NAMES[1:])
    cmp_ = pd.DataFrame([
        {"report_id": "a", "dimension": LEVEL, "value": "low", "indicators": checklist},
        {"report_id": "b", "dimension": LEVEL, "value": "none", "indicators": None},
    ])  # fmt: skip
    ev = pd.DataFrame([{"report_id": "a", "dimension": LEVEL, "category": NAMES[0], "rank": 1, "quote": "We run RL."}])
    g = indicator_grid(cmp_, ev, LENS, LEVEL)
    assert [(s.report_id, s.met, s.total) for s in g.scores] == [("a", 1, len(NAMES))]
    assert g.unscored == ["b"]  # no checklist: not assessed, never "no" everywhere
    cell = g.cells[(NAMES[0], "a")]
    assert cell.fired and cell.page == "5" and cell.quote == "We run RL."
    frame = g.frame({"a": "Model A"})
    assert frame.iloc[0]["Model A"] == "yes (p. 5)" and frame.iloc[-1]["Model A"] == f"1/{len(NAMES)}"


def test_indicators_page_on_the_shipped_reports_shows_measured_checklists(
    shipped: ShippedRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRL_DATA_DIR", str(shipped.data))  # the session's store: read-only
    at = AppTest.from_file(str(REPO / "views" / "indicators.py"), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    body = "\n".join(el.proto.body for el in at.get("html"))
    assert 'data-chart="indicators"' in body and "yes · p." in body and "GLM-4.5" in body
    assert "evidence?report=glm-4.5" in body
    assert any(t.value.startswith("Not assessed (") and "Gemma 4" in t.value for t in at.text)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Indicators (CSV)", "Indicators (Markdown)"]  # the figure's buttons: once its popover is open
    at.session_state["fig_indicators"] = True
    at.run()
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Indicators (CSV)", "Indicators (Markdown)", "SVG", "PNG", "HTML"]  # the grid as a figure too
