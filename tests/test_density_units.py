"""Issue 10 §2: densities of Chinese (CJK) text are per 1,000 characters, and every chart says so.

A CJK document's words are counted one per character (textnorm.word_rule), so its density is per
1,000 characters; the study's reported figures and whitespace documents stay per 1,000 words. The
data are built with the real pipeline from two small posts, one English and one Chinese.
"""

from __future__ import annotations

import pytest

from ingest import pipeline, pipeline_settings
from ingest.analysis.keywords import density_unit
from ingest.outputs.scores import coverage_vs_density
from ingest.store.store import Store
from views import benchmark_charts, figures, keyword_charts
from views.chart_plotly import figure

from .conftest import write_report

EN = "# Post\n\nWe train an agent with a tool and a reward model. The agent calls the tool often.\n"
ZH = "# 文章\n\n我们用工具和奖励训练智能体（agent）。智能体经常调用工具，奖励来自规则。\n"


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("units")
    reports = root / "reports"
    reports.mkdir()
    (reports / "en.md").write_text(EN, encoding="utf-8")
    (reports / "zh.md").write_text(ZH, encoding="utf-8")
    write_report(reports, "en", "source:\n  path: en.md\n")
    write_report(reports, "zh", "source:\n  path: zh.md\n")
    result = pipeline.run(reports_dir=reports, settings=pipeline_settings.Settings(data_dir=root / "data", jobs=1))
    assert all(o.status == "ok" for o in result.outcomes), [o.message for o in result.outcomes]
    store = Store(root / "data")
    return {name: store.read_table(name) for name in ("reports", "counts", "reported", "results")}


def test_unit_follows_the_word_rule() -> None:
    assert density_unit("cjk") == "characters"
    assert density_unit("whitespace") == density_unit(None) == "words"


def test_keyword_matrix_and_charts_say_characters_for_the_chinese_post(tables: dict) -> None:
    m = figures.keyword_matrix(tables["reports"], tables["counts"], tables["reported"], ["agent", "tool"], "study")
    units = dict(zip(m["report_id"], m["unit"], strict=False))
    assert units == {"en": "words", "zh": "characters"}
    heat = figure(keyword_charts.heatmap(m, ["agent", "tool"])).to_dict()
    tips = [str(t) for tr in heat["data"] if tr.get("type") == "scatter" for t in tr["text"]]
    assert any(t.startswith("ZH") and "per 1,000 characters" in t for t in tips)
    assert any(t.startswith("EN") and "per 1,000 words" in t for t in tips)
    assert "characters for CJK documents" in heat["layout"]["title"]["text"]
    scatter = figure(keyword_charts.length_scatter(m, "agent")).to_dict()
    assert "characters for CJK documents" in scatter["layout"]["yaxis"]["title"]["text"]
    assert ["evidence?report=zh&term=agent"] in [list(c) for tr in scatter["data"] for c in tr["customdata"]]
    tips = [str(t) for tr in scatter["data"] for t in tr["hovertext"]]
    assert any(t.startswith("ZH") and "characters" in t for t in tips)


def test_english_only_charts_carry_no_cjk_note(tables: dict) -> None:
    reports = tables["reports"][tables["reports"]["report_id"] == "en"]
    m = figures.keyword_matrix(reports, tables["counts"], tables["reported"], ["agent"], "study")
    assert "CJK" not in figure(keyword_charts.heatmap(m, ["agent"])).to_dict()["layout"]["title"]["text"]


def test_benchmark_density_scatter_uses_the_one_density_and_its_unit(tables: dict) -> None:
    frame = coverage_vs_density(tables["reports"], tables["results"], tables["counts"], tables["reported"], [], "study", "agent")
    row = frame.set_index("report_id")
    assert row.at["zh", "unit"] == "characters" and row.at["en", "unit"] == "words"
    counts = tables["counts"]
    c = counts[(counts["report_id"] == "en") & (counts["term"] == "agent") & (counts["section"] == "all")].iloc[0]
    assert row.at["en", "density"] == pytest.approx(round(c["count"] * 1000 / c["words"], 4))
    fig = figure(benchmark_charts.density_scatter(frame, "agent")).to_dict()
    assert "characters for CJK documents" in fig["layout"]["yaxis"]["title"]["text"]
