"""Safe exports (issue 23): hostile strings in every field reach no export as a formula or raw HTML.

One report carries spreadsheet formulas, HTML, Markdown images and every kind of line break in
each free-text field (metadata, reported notes, curated cells, curated results) and in its
document (headings and sentences that become sections, KWIC lines and evidence quotes). It is
ingested by the real pipeline; then every table of `export --table` is written as CSV (both the
pandas path and the Arrow path, whole and part by part) and as Markdown, with the report card
and the dashboard's download builders, and each is checked cell by cell.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from ingest.outputs import export, neutral, report_card
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.store.store import Store

HOSTILE = [
    '=HYPERLINK("http://evil.example/x","click")',
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    '<img src="http://evil.example/i.png">',
    "![pixel](http://evil.example/p.png) [link](http://evil.example/)",
    "line one\rline two\nline three\u2028line four\u2029end",
]
#: One field value holding every payload (fields are stripped, so each payload also starts one).
ALL = " ".join(HOSTILE)
RAW_HTML = re.compile(r"<\s*[a-zA-Z/!?]")
LIVE_LINK = re.compile(r"(?<!\\)\]\(")


def _field(i: int) -> str:
    """Payload i first (so the cell begins with a formula character), then all the others."""
    return HOSTILE[i % len(HOSTILE)] + " " + ALL


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    root = tmp_path_factory.mktemp("hostile")
    reports = root / "reports"
    reports.mkdir()
    doc = ["# Introduction", ""]
    for i, p in enumerate(HOSTILE):
        doc += [f"## {p} agentic section {i}", "", f"{p} The agent uses a tool and gets a reward. {p}", ""]
        doc += [f"{p} Agentic training with credit assignment uses GRPO with a verifiable reward {p}.", ""]
    (reports / "doc.md").write_text("\n".join(doc), encoding="utf-8")
    spec = {
        "id": "h",
        "model": _field(0),
        "aliases": [_field(1)],
        "organization": _field(1),
        "country": _field(2),
        "doc_type": "other",
        "params": _field(3),
        "tags": [_field(4)],
        "notes": _field(5),
        "source": {"path": "doc.md"},
        "reported": {"from": _field(6), "words": 100, "counts": {"agentic": 3}, "notes": {"agentic": _field(0)}},
        "curated": {
            "rl_algorithm": {"value": _field(3), "detail": _field(1), "quote": _field(2), "page": _field(3), "notes": _field(4)},
            "disclosure": {"value": "detailed", "detail": _field(5), "notes": _field(6)},
        },
        "results": [
            {
                "benchmark": _field(i),
                "model": _field(i + 1),
                "value": _field(i + 2),
                "metric": _field(i + 3),
                "setting": _field(i + 4),
                "page": 1,
                "figure": _field(i + 5),
                "notes": _field(i + 6),
            }
            for i in range(3)
        ],
    }
    (reports / "h.yaml").write_text(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True), encoding="utf-8")
    res = run(reports_dir=reports, settings=Settings(data_dir=root / "data", offline=True, jobs=1))
    assert not res.spec_errors, res.spec_errors
    assert [o.status for o in res.outcomes] != ["failed"], res.outcomes
    return Store(root / "data")


def assert_csv_inert(text: str, what: str) -> int:
    """Every cell of the CSV text: none a spreadsheet would run. Returns the number of cells."""
    n = 0
    for row in csv.reader(io.StringIO(text, newline="")):
        for cell in row:
            n += 1
            assert not neutral.is_formula(cell), f"{what}: formula cell {cell!r}"
    return n


def assert_md_inert(text: str, what: str) -> None:
    assert not RAW_HTML.search(text), f"{what}: raw HTML {RAW_HTML.search(text)}"
    assert not LIVE_LINK.search(text), f"{what}: Markdown link or image"
    for brk in ("\r", "\u2028", "\u2029", "\x85", "\v", "\f"):
        assert brk not in text, f"{what}: line break {brk!r}"


def assert_md_table_rows(text: str, rows: int, what: str) -> None:
    """A carriage return or other break inside a cell would add or split rows."""
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    assert len(lines) == rows + 2, f"{what}: {len(lines)} table lines for {rows} rows"


def test_every_export_table_neutralises_every_hostile_field(hostile_store: Store) -> None:
    seen = 0
    for name, build in export.TABLES.items():
        df = build(hostile_store)
        assert_csv_inert(export.render(df, "csv"), f"{name}.csv")
        md = export.render(df, "md")
        assert_md_inert(md, f"{name}.md")
        assert_md_table_rows(md, len(df), f"{name}.md")
        seen += int(df.astype(str).apply(lambda c: c.str.contains("evil.example", regex=False)).to_numpy().any())
    assert seen >= 8, f"only {seen} tables carried the payloads: the fixture no longer reaches the exports"


@pytest.mark.parametrize("stream", [False, True])
def test_arrow_csv_exports_neutralise_formulas(
    hostile_store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    if stream:
        monkeypatch.setattr(export, "STREAM_ROWS", 0)  # the part-by-part path with dictionary columns
    for name in export.ARROW_CSV:
        out = tmp_path / f"{name}.csv"
        export.write_table(hostile_store, name, "csv", out)
        text = out.read_bytes().decode("utf-8")
        assert assert_csv_inert(text, name) > 0
        if name in ("kwic", "evidence"):
            assert "evil.example" in text, f"{name}: the payload did not reach this table"


def test_report_card_is_inert_markdown(hostile_store: Store) -> None:
    card = report_card.report_card(hostile_store, "h")
    assert "evil.example" in card
    assert_md_inert(card, "card")
    assert card.startswith("# =HYPERLINK")  # shown, escaped, not dropped


def test_numbers_stay_numbers() -> None:
    df = pd.DataFrame({"n": [-2.5, 3.0], "t": ["-2.5", "-2+3"], "i": [-1, 2]})
    rows = list(csv.reader(io.StringIO(neutral.to_csv(df))))
    assert rows[1] == ["-2.5", "-2.5", "-1"]
    assert rows[2] == ["3.0", "'-2+3", "2"]
    assert neutral.csv_cell("\tx") == "'\tx" and neutral.csv_cell("\rx") == "'\nx"


def test_dashboard_downloads_use_the_neutraliser() -> None:
    """Every CSV download button of the dashboard goes through `neutral.to_csv` (no bare to_csv)."""
    views = Path(__file__).resolve().parents[1] / "views"
    for py in views.glob("*.py"):
        for ln in py.read_text(encoding="utf-8").splitlines():
            bare = re.search(r"(?<!export)(?<!neutral)\.to_csv\(", ln)
            assert not bare, f"{py.name}: {ln.strip()}"
