"""A reader sees labels and whole messages, never ids, markup or cut text: the Report page's comparison
row names categories as Compare's chips do, the Timeline's plain text has no Markdown backticks, and
the ingest summary prints a failed report's message whole."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ingest.analysis.lens import load_lens
from ingest.cli import main
from views.report import value_labels

from .conftest import REPO, ShippedRun, write_report


def test_report_page_names_categories_by_their_lens_labels(shipped: ShippedRun, monkeypatch: pytest.MonkeyPatch) -> None:
    lens = load_lens()
    assert value_labels(lens, "reward_source", "rule-based/verifiable; code-execution/test-cases") == (
        "Rule-based / verifiable; Code execution / tests"
    )
    assert value_labels(lens, "no_such_dimension", "x") == "x" and value_labels(lens, "reward_source", None) is None
    monkeypatch.setenv("FRL_DATA_DIR", str(shipped.data))
    at = AppTest.from_file(str(REPO / "views" / "report.py"), default_timeout=60)
    at.query_params["report"] = "glm-4.5"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    body = "\n".join(el.proto.body for el in at.get("html"))
    row = body[body.index("<td>Reward source</td>") :].split("</tr>", 1)[0]
    assert "Rule-based / verifiable" in row and "<td>rule-based/verifiable" not in row


def test_timeline_plain_text_has_no_markdown_backticks(shipped: ShippedRun, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRL_DATA_DIR", str(shipped.data))
    at = AppTest.from_file(str(REPO / "views" / "timeline.py"), default_timeout=60)
    at.run()
    texts = [t.value for t in at.text]
    assert any("released: YYYY-MM-DD" in t for t in texts) and not any("`" in t for t in texts)


def test_ingest_summary_prints_a_long_message_whole(tmp_path, capsys) -> None:
    reports = tmp_path / "reports"
    write_report(reports, "far", source={"url": "https://example.org/" + "b" * 120 + ".pdf"})
    assert main(["--offline", "--reports-dir", str(reports), "--data-dir", str(tmp_path / "data")]) == 1
    out = capsys.readouterr().out
    assert "run once without --offline" in out
