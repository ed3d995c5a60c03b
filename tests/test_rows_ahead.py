"""Table rows built ahead by a run's driver (issue 35.10): used only while they are still true.

Why: the driver builds each stored report's rows while the workers read the next reports, so the
table update after the last report reads no bundle again (bench/ingest_speed.py, cold ingest).
Rows built for other inputs (a spec, bundle or status changed since) must never reach the tables.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from ingest.analysis.lens import load_lens
from ingest.outputs import tables
from ingest.outputs.tables import ReadyRows, rebuild_tables, rows_ahead
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.sources.registry import load_registry
from ingest.store.store import Store

from .conftest import write_pdf, write_report

PAGES = [
    ["Agentic reinforcement learning with tool use.", "The reward comes from unit tests in a sandbox."],
    ["We adopt GRPO for training.", "Table 1: Results.", "Benchmark  Ours  Base", "MMLU  88.1  80.2"],
]


@pytest.fixture
def ingested(tmp_path: Path) -> tuple[Path, Path]:
    reports = tmp_path / "reports"
    reports.mkdir()
    for rid in ("alpha", "beta"):
        write_pdf(reports / f"{rid}.pdf", PAGES)
        write_report(reports, rid, f"source:\n  path: {rid}.pdf\n")
    data = tmp_path / "data"
    run(reports_dir=reports, settings=Settings(data_dir=data, offline=True, jobs=1))
    return reports, data


def _fresh_copy(data: Path, dst: Path) -> Store:
    """A store holding the same bundles and statuses, without tables."""
    for sub in ("reports", "status"):
        shutil.copytree(data / "results" / sub, dst / "results" / sub)
    return Store(dst)


def _tables(store: Store) -> dict[str, pd.DataFrame]:
    return {name: store.read_table(name) for name in store.table_names()}


def test_rows_built_ahead_make_the_same_tables(ingested: tuple[Path, Path], tmp_path: Path) -> None:
    reports, data = ingested
    registry, lens = load_registry(reports), load_lens()
    plain = _fresh_copy(data, tmp_path / "plain")
    rebuild_tables(plain, registry, lens)
    early = _fresh_copy(data, tmp_path / "early")
    ready = {s.id: rows_ahead(early, s, str(registry.paths[s.id]), lens, registry.spec_json(s)) for s in registry.reports}
    stats = rebuild_tables(early, registry, lens, ready=ready)
    assert stats.bundles_read == 2
    a, b = _tables(plain), _tables(early)
    assert a.keys() == b.keys() and all(a[k].equals(b[k]) for k in a)


def test_rows_built_for_other_inputs_are_not_used(ingested: tuple[Path, Path], tmp_path: Path) -> None:
    reports, data = ingested
    registry, lens = load_registry(reports), load_lens()
    store = _fresh_copy(data, tmp_path / "stale")
    spec = next(s for s in registry.reports if s.id == "alpha")
    good = rows_ahead(store, spec, str(registry.paths["alpha"]), lens, registry.spec_json(spec))
    wrong = {**good.rows, "reports": [{**good.rows["reports"][0], "model": "WRONG"}]}
    store.save_status("alpha", {**(store.load_status("alpha") or {}), "message": "changed since"})  # a new stamp
    rebuild_tables(store, registry, lens, ready={"alpha": ReadyRows(good.key, wrong)})
    shown = store.read_table("reports").set_index("report_id")["model"]
    assert shown["alpha"] == "ALPHA"


def test_a_run_reads_no_bundle_again_for_its_table_update(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    for rid in ("alpha", "beta", "gamma"):
        write_pdf(reports / f"{rid}.pdf", PAGES)
        write_report(reports, rid, f"source:\n  path: {rid}.pdf\n")
    inside: list[bool] = []
    read: list[str] = []
    real_rebuild, real_input = tables.rebuild_tables, tables.ReportInput

    def rebuild(*a, **k):  # type: ignore[no-untyped-def]
        inside.append(True)
        try:
            return real_rebuild(*a, **k)
        finally:
            inside.pop()

    def report_input(spec, *a, **k):  # type: ignore[no-untyped-def]
        if inside:
            read.append(spec.id)
        return real_input(spec, *a, **k)

    monkeypatch.setattr(tables, "rebuild_tables", rebuild)
    monkeypatch.setattr(tables, "ReportInput", report_input)
    res = run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "data", offline=True, jobs=1))
    assert [o.status for o in res.outcomes] == ["ok"] * 3
    assert read == []  # every report's rows were built ahead, while the next was read
    assert len(Store(tmp_path / "data").read_table("reports")) == 3


def test_a_first_build_has_pandas_loaded_before_the_table_update(tmp_path: Path) -> None:
    """A first build converts rows through pandas (`pa.Table.from_pylist`): the driver imports it while
    the last job runs, so the import does not follow the last report (an update never needs it:
    test_store_incremental.py's `test_adding_one_report_does_not_import_pandas`)."""
    reports = tmp_path / "reports"
    reports.mkdir()
    for rid in ("alpha", "beta"):
        write_pdf(reports / f"{rid}.pdf", PAGES)
        write_report(reports, rid, f"source:\n  path: {rid}.pdf\n")
    args = ["--reports-dir", str(reports), "--data-dir", str(tmp_path / "data"), "--quiet", "--offline", "--jobs", "1"]
    code = (
        "import sys\nimport ingest.outputs.tables as T\nreal, seen = T.rebuild_tables, []\n"
        "def spy(*a, **k):\n    seen.append('pandas' in sys.modules)\n    return real(*a, **k)\n"
        f"T.rebuild_tables = spy\nfrom ingest import cli\nrc = cli.main({args!r})\nprint(rc, seen)"
    )
    repo = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=repo)
    assert out.stdout.split() == ["0", "[True]"], out.stderr
