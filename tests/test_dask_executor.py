"""The Dask executor: the same per-report work on a real `distributed` cluster gives the same results."""

from __future__ import annotations

import time

import pytest

from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.run.executor import DaskExecutor
from ingest.run.jobs import ExecutorError, Limits

from .pathological import deflate_bomb
from .test_executor import _assert_same, _reports, _snapshot

distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (requirements-cluster.txt)")


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes on 127.0.0.1, no dashboard; always shut down."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, silence_logs=40
    ) as c:
        yield c


def test_dask_run_equals_the_local_run(tmp_path, cluster):
    reports = _reports(tmp_path, n=3)
    local = run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "local", jobs=1))
    dask = run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "dask", executor=cluster.scheduler_address))
    assert [(o.report_id, o.status, o.message) for o in local.outcomes] == [
        (o.report_id, o.status, o.message) for o in dask.outcomes
    ]
    _assert_same(_snapshot(tmp_path / "local"), _snapshot(tmp_path / "dask"))
    # A forced re-count ships the cached text: nothing is re-extracted on the workers.
    settings = Settings(data_dir=tmp_path / "dask", executor=cluster.scheduler_address, force=True)
    again = run(reports_dir=reports, settings=settings)
    assert {o.message for o in again.outcomes if o.status == "ok"} == {"text from cache"}


def test_limits_hold_on_dask_workers(tmp_path, cluster):
    reports = tmp_path / "reports"
    reports.mkdir()
    deflate_bomb(reports / "bomb.pdf", 2048)
    (reports / "bomb.yaml").write_text("id: bomb\nmodel: B\norganization: Lab\ndoc_type: other\nsource:\n  path: bomb.pdf\n")
    res = run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "d", executor=cluster.scheduler_address))
    (out,) = res.outcomes
    assert (out.status, out.message) == ("failed", "extraction needed more than 1 GB of memory")
    assert out.peak_mb is not None and out.peak_mb <= 1024
    with distributed.Client(cluster, set_as_default=False) as client:
        assert len(client.nthreads()) == 2  # the Dask workers themselves survived


def test_unreachable_scheduler_is_one_clear_error():
    t0 = time.monotonic()
    with pytest.raises(ExecutorError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9"):
        DaskExecutor("tcp://127.0.0.1:9", Limits(), connect_timeout=1)
    assert time.monotonic() - t0 < 30
