"""Nothing lost, nothing stale (issue 23): a failed table write, a full disk, a concurrent decision.

- After a run whose table write failed (disk full), the next plain run rebuilds the tables
  instead of calling them current (the store records that its tables are behind its bundles).
- A full disk while a report's bundle is written is one clear line, not "internal error".
- A Review decision saved while another ingest runs is in the tables that run writes: the run
  reads a report file edited since it started again, under the store's lock.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from ingest.outputs import curate, tables
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.store.store import Store

from .conftest import write_report

TEXT = "# Introduction\n\n" + "The agent acts. " * 4 + "\n"


def _agent_count(store: Store) -> int:
    c = store.read_table("counts")
    hit = c[(c["report_id"] == "r") & (c["term"] == "agent") & (c["section"] == "all")]
    return int(hit["count"].iloc[0])


@pytest.fixture
def env(tmp_path: Path) -> tuple[Path, Settings]:
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "r.md").write_text(TEXT, encoding="utf-8")
    write_report(reports, "r", source={"path": "r.md"})
    settings = Settings(data_dir=tmp_path / "data", offline=True, jobs=1)
    run(reports_dir=reports, settings=settings)
    assert _agent_count(Store(settings.data_dir)) == 4
    return reports, settings


def _disk_full(*_a: object, **_k: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_failed_table_write_leaves_tables_stale_only_until_the_next_plain_run(
    env: tuple[Path, Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    reports, settings = env
    (reports / "r.md").write_text(TEXT + "One more agent.\n", encoding="utf-8")
    with monkeypatch.context() as m:
        m.setattr(tables, "rebuild_tables", _disk_full)
        with pytest.raises(OSError):
            run(reports_dir=reports, settings=settings)
    store = Store(settings.data_dir)
    assert store.behind_token() is not None and store.tables_key() is None
    res = run(reports_dir=reports, settings=settings)  # plain: the report itself is cached now
    assert [o.status for o in res.outcomes] == ["cached"]
    assert _agent_count(Store(settings.data_dir)) == 5
    assert Store(settings.data_dir).behind_token() is None


def test_full_disk_while_saving_a_bundle_is_one_clear_line(env: tuple[Path, Settings], monkeypatch: pytest.MonkeyPatch) -> None:
    reports, settings = env
    (reports / "r.md").write_text(TEXT + "changed\n", encoding="utf-8")
    monkeypatch.setattr(Store, "save_bundle", _disk_full)
    res = run(reports_dir=reports, settings=settings)
    (o,) = res.outcomes
    assert o.status == "failed"
    assert "no space left on the device" in o.message and "internal error" not in o.message
    assert "\n" not in o.message
    assert _agent_count(Store(settings.data_dir)) == 4  # the last good results are still shown


def _rl_cell(store: Store) -> dict:
    c = store.read_table("comparison")
    return c[(c["report_id"] == "r") & (c["dimension"] == "rl_algorithm")].iloc[0].to_dict()


@pytest.mark.parametrize("named", [False, True], ids=["plain-run", "named-file"])
def test_review_decision_during_an_ingest_reaches_the_tables(env: tuple[Path, Settings], named: bool) -> None:
    """Run A reads the folder; meanwhile a decision is saved and its own run B rebuilds the tables;
    then A writes its tables: they must still show the decision."""
    reports, settings = env
    write_report(reports, "other", source={"path": "r.md"})  # (gives run A a job, so it goes the full way)

    def meanwhile(items):  # type: ignore[no-untyped-def]
        for n, item in enumerate(items):
            if n == 0:
                curate.record_decision(reports / "r.yaml", "rl_algorithm", "PPO", note="decided during a run")
                run(files=[reports / "r.yaml"], reports_dir=reports, settings=settings)  # the Review page's run
                assert _rl_cell(Store(settings.data_dir))["origin"] == "curated"
            yield item

    files = [reports / "other.yaml"] if named else None
    run(files=files, reports_dir=reports, settings=settings, progress=meanwhile)
    cell = _rl_cell(Store(settings.data_dir))
    assert cell["origin"] == "curated" and "PPO" in str(cell["value"])
