"""Dashboard over a damaged store: a plain-text notice, no traceback, no server paths (issue 8 §5).

Also checks that pages read through the manifest and that filtered reads load only what they need.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.store.store import Store
from views import data

from .conftest import write_pdf, write_report
from .test_store import PAGES

APP = str(Path(__file__).resolve().parents[1] / "app.py")


@pytest.fixture
def store_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    reports = tmp_path / "reports"
    reports.mkdir()
    for rid in ("alpha", "beta"):
        write_pdf(reports / f"{rid}.pdf", PAGES)
        write_report(reports, rid, f"source:\n  path: {rid}.pdf\n")
    run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "data"))
    monkeypatch.setenv("FRL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("FRL_REPORTS_DIR", str(reports))
    data.clear()
    return Store(tmp_path / "data")


def run_page(page: str | None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    if page:
        at.switch_page(f"views/{page}.py").run()
    return at


def texts(at: AppTest) -> str:
    parts = [e.value for kind in ("error", "info", "warning", "markdown", "text", "caption") for e in at.get(kind)]
    return "\n".join(str(p) for p in parts)


@pytest.mark.parametrize("table", ["reports", "counts", "comparison"])
@pytest.mark.parametrize("page", [None, "keywords", "evidence", "report"])
def test_damaged_store_shows_plain_notice_without_traceback_or_paths(store_env: Store, page: str | None, table: str) -> None:
    m = store_env.manifest()
    part = store_env.tables_dir / next(iter(m.tables[table].parts.values())).file
    part.write_bytes(b"garbage" * 10)
    at = run_page(page)
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error] == [data.DAMAGED_NOTICE]
    shown = texts(at)
    assert str(store_env.root) not in shown and "Traceback" not in shown and "/tmp" not in shown


def test_pages_render_from_the_manifest(store_env: Store) -> None:
    for page in (None, "keywords", "evidence", "report"):
        at = run_page(page)
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error


def test_kwic_rows_of_one_report_read_only_its_part(store_env: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    real = Store._read_part

    def spy(self, name, part, columns, expr):  # type: ignore[no-untyped-def]
        opened.append(f"{name}:{part.file}")
        return real(self, name, part, columns, expr)

    monkeypatch.setattr(Store, "_read_part", spy)
    data.clear()
    rows = data.kwic_rows("alpha", "agentic")
    assert set(rows["report_id"]) == {"alpha"} and len(rows) > 0
    m = store_env.manifest()
    from ingest.store.manifest import bucket_of

    assert opened == [f"kwic:{m.tables['kwic'].parts[bucket_of('alpha', m.tables['kwic'].buckets)].file}"]
    assert data.kwic_rows(None, "no-such-term").empty
