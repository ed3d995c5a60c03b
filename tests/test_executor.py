"""Reports run in worker processes under a time and memory limit, N at a time, with identical results."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

import ingest.pipeline as pipeline
from ingest.analysis.lexicon import load_lexicon
from ingest.cli import main
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.pipeline_steps import Task, compute
from ingest.run.executor import run_isolated, run_jobs, stop_forkserver
from ingest.run.jobs import Done, Failure, Job, Limits
from ingest.store.manifest import TABLES
from ingest.store.store import Store

from .conftest import REPO, write_pdf, write_report
from .executor_jobs import _alive, _allocate, _big, _pages, _raise, _segfault, _sleep, _sleep_with_grandchild, _unreadable
from .pathological import deflate_bomb

#: Columns that hold times or durations, which differ between any two runs.
VOLATILE = {"seconds", "finished_at", "ingested_at", "peak_mb"}


def test_deflate_bomb_generator_makes_a_small_file_that_inflates_hugely(tmp_path):
    pdf = deflate_bomb(tmp_path / "small.pdf", 4)
    assert pdf.stat().st_size < 20_000
    doc = compute(Task("x", str(pdf), Settings(), load_lexicon(), None)).result
    assert doc is not None and doc.words["all"] == 2  # "deflate bomb": the spaces are just spaces


# --------------------------------------------------------------------------- the executor on its own
# Job functions run in another process, which imports them by name: they live in a light module.


def test_timeout_kills_the_job_and_everything_it_started(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    t0 = time.monotonic()
    result = run_isolated(_sleep_with_grandchild, str(pidfile), Limits(timeout=1.5))
    assert time.monotonic() - t0 < 10
    assert isinstance(result, Failure) and result.kind == "timeout"
    assert result.message == "extraction took longer than 1.5 s"
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "the job's own child process survived the timeout"


def test_memory_limit_stops_a_job_with_a_clear_message():
    result = run_isolated(_allocate, 2048, Limits(memory_mb=512))
    assert isinstance(result, Failure) and result.kind == "memory"
    assert result.message == "extraction needed more than 512 MB of memory"
    small = run_isolated(_allocate, 16, Limits(memory_mb=512))
    assert isinstance(small, Done) and small.value == 16 << 20 and small.peak_mb is not None


def test_crash_and_exception_in_a_job_become_failures():
    crash = run_isolated(_segfault, None, Limits())
    assert isinstance(crash, Failure) and crash.kind == "crash" and "SIGSEGV" in crash.message
    bug = run_isolated(_raise, None, Limits())
    assert isinstance(bug, Failure) and bug.kind == "error" and "ValueError: a bug" in bug.message


def test_a_value_is_handed_out_as_returned_and_an_unreadable_one_is_a_failure():
    """The worker's value travels pickled and is unpickled when handed out (after the next job started)."""
    got = dict(run_jobs([Job("big", _big, 3 << 20), Job("bad", _unreadable, None), Job("int", _sleep, 0)], Limits(), workers=1))
    assert isinstance(got["big"], Done) and got["big"].value == b"x" * (3 << 20)
    assert isinstance(got["int"], Done) and got["int"].value == 0
    bad = got["bad"]
    assert isinstance(bad, Failure) and bad.kind == "error"
    assert "unreadable reply (ValueError: cannot be read back)" in bad.message


def test_jobs_run_in_parallel_and_a_slow_one_does_not_hold_up_the_others():
    seen: list[tuple[object, int, int]] = []
    jobs = [Job("slow", _sleep, 60), Job("a", _sleep, 0.2), Job("b", _sleep, 0.2), Job("pages", _pages, 3)]
    t0 = time.monotonic()
    results = dict(run_jobs(jobs, Limits(timeout=5), workers=2, on_progress=lambda *a: seen.append(a)))
    assert isinstance(results.pop("slow"), Failure)
    assert {k: r.value for k, r in results.items() if isinstance(r, Done)} == {"a": 0.2, "b": 0.2, "pages": 3}
    assert ("pages", 3, 3) in seen
    assert time.monotonic() - t0 < 40  # not the 60 s of the slow job


def test_closing_the_run_early_kills_running_jobs():
    it = run_jobs([Job(i, _sleep, 30) for i in range(2)] + [Job(9, _sleep, 0)], Limits(timeout=60), workers=3)
    key, result = next(it)
    assert key == 9 and isinstance(result, Done)
    t0 = time.monotonic()
    it.close()  # must not wait 30 s for the sleepers
    assert time.monotonic() - t0 < 10


def test_limits_are_validated():
    for bad in ({"timeout": 0}, {"timeout": float("nan")}, {"memory_mb": 10}, {"memory_mb": 1.5}):
        with pytest.raises(ValueError):
            Limits(**bad)
    with pytest.raises(ValueError):
        Settings(jobs=0)


# --------------------------------------------------------------------------- through the pipeline


def _run_driver(tmp_path: Path, code: str) -> None:
    """Run `code` as a fresh interpreter's main script (a driver of its own) in `tmp_path`; it must exit 0."""
    script = tmp_path / "driver.py"
    script.write_text(code)
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]


def _reports(tmp_path: Path, n: int = 6) -> Path:
    reports = tmp_path / "reports"
    reports.mkdir()
    for i in range(n):
        pages = [
            [f"Report {i}: agentic reinforcement learning with tool use.", "The reward comes from unit tests."],
            ["We adopt GRPO for training." if i % 2 else "We train with PPO.", "References", "Doe. An agent. 2025."],
        ]
        write_pdf(reports / f"r{i}.pdf", pages)
        write_report(reports, f"r{i}", f"source:\n  path: r{i}.pdf\n")
    write_report(reports, "nosrc", "reported:\n  from: a study\n  words: 100\n  counts: {agent: 1}\n")
    (reports / "broken.pdf").write_bytes(b"%PDF-1.4\nnot really a pdf")
    write_report(reports, "broken", "source:\n  path: broken.pdf\n")
    return reports


def _snapshot(data: Path) -> dict[str, object]:
    """Every stored table and bundle, without the columns that hold times."""
    store = Store(data)
    out: dict[str, object] = {}
    for name in TABLES:
        df = store.read_table(name)
        df = df.drop(columns=[c for c in df.columns if c in VOLATILE])
        out[name] = df.sort_values(list(df.columns[:1])).reset_index(drop=True) if len(df) else df
    for rid in store.bundle_ids():
        b = store.load_bundle(rid)
        bundle = b.to_json() if b is not None else {}
        bundle.get("meta", {}).pop("ingested_at", None)
        (bundle.get("results") or {}).pop("seconds", None)  # the results stage times itself
        out[f"bundle {rid}"] = bundle
    return out


def _assert_same(a: dict[str, object], b: dict[str, object]) -> None:
    assert a.keys() == b.keys()
    for key, left in a.items():
        if isinstance(left, pd.DataFrame):
            pd.testing.assert_frame_equal(left, b[key], obj=key)
        else:
            assert left == b[key], key


def test_jobs_2_gives_the_same_tables_and_bundles_as_jobs_1(tmp_path):
    reports = _reports(tmp_path)
    one = run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "one", jobs=1))
    two = run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "two", jobs=2))
    assert [(o.report_id, o.status, o.message) for o in one.outcomes] == [
        (o.report_id, o.status, o.message) for o in two.outcomes
    ]
    statuses = {o.report_id: o.status for o in two.outcomes}
    assert statuses["broken"] == "failed" and statuses["nosrc"] == "no-source"
    assert sum(s == "ok" for s in statuses.values()) == 6
    _assert_same(_snapshot(tmp_path / "one"), _snapshot(tmp_path / "two"))


def test_deflate_bomb_fails_within_the_memory_limit_and_the_batch_goes_on(tmp_path):
    reports = _reports(tmp_path, n=2)
    settings = Settings(data_dir=tmp_path / "data", jobs=2)
    first = run(reports_dir=reports, settings=settings)
    assert {o.report_id: o.status for o in first.outcomes}["r0"] == "ok"
    before = Store(settings.data_dir).load_bundle("r0")
    deflate_bomb(reports / "r0.pdf", 2048)  # 2 MB on disk, 2 GB inflated
    assert (reports / "r0.pdf").stat().st_size < 3_000_000
    res = run(reports_dir=reports, settings=settings)
    out = {o.report_id: o for o in res.outcomes}
    bomb = out["r0"]
    assert (bomb.status, bomb.message) == ("failed", "extraction needed more than 1 GB of memory")
    assert bomb.peak_mb is not None and bomb.peak_mb <= 1024
    assert out["r1"].status == "cached" and out["nosrc"].status == "no-source"
    assert Store(settings.data_dir).load_bundle("r0") == before  # the last good result is kept
    status = Store(settings.data_dir).read_table("status").set_index("report_id")
    assert status.loc["r0", "message"] == "extraction needed more than 1 GB of memory"


def test_slow_report_times_out_with_a_clear_message(tmp_path):
    reports = tmp_path / "reports"
    reports.mkdir()
    deflate_bomb(reports / "slow.pdf", 2048)  # with memory to spare, inflating 2 GB takes seconds
    write_report(reports, "slow", "source:\n  path: slow.pdf\n")
    res = run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "data", timeout=0.5, memory_limit_mb=4096))
    (out,) = res.outcomes
    assert (out.status, out.message) == ("failed", "extraction took longer than 0.5 s")


def test_compute_is_pure_it_never_writes_the_data_folder(tmp_path):
    pdf = write_pdf(tmp_path / "a.pdf", [["Agentic tool use."]])
    data = tmp_path / "never-created"
    out = compute(Task("a", str(pdf), Settings(data_dir=data), load_lexicon(), None))
    assert out.error is None and out.doc is not None and out.result.words["all"] == 3
    assert not data.exists()
    shipped = compute(Task("a", "elsewhere/a.pdf", Settings(data_dir=data), load_lexicon(), None, data=pdf.read_bytes()))
    untimed = [replace(r, results=replace(r.results, seconds=0.0)) for r in (shipped.result, out.result)]
    assert untimed[0] == untimed[1]  # the same analysis, apart from the time the results stage took


def test_worker_with_other_code_versions_is_refused(tmp_path):
    pdf = write_pdf(tmp_path / "a.pdf", [["Agentic tool use."]])
    out = compute(Task("a", str(pdf), Settings(), load_lexicon(), None, versions=(0, 0, 0)))
    assert out.result is None and "other code" in (out.error or "")


def test_cli_takes_jobs_timeout_and_memory_limit(tmp_path, capsys):
    reports = _reports(tmp_path, n=2)
    args = ["--quiet", "--reports-dir", str(reports), "--data-dir", str(tmp_path / "d")]
    code = main([*args, "--jobs", "2", "--timeout", "30", "--memory-limit", "768"])
    assert code == 1  # the broken report fails; the others are stored
    assert "broken" in capsys.readouterr().err
    assert Store(tmp_path / "d").load_bundle("r1") is not None
    for bad in (["--jobs", "0"], ["--timeout", "-1"], ["--memory-limit", "x"]):
        with pytest.raises(SystemExit) as exc:
            main([*args, *bad])
        assert exc.value.code == 2
    assert main([*args, "--memory-limit", "10"]) == 2  # below the 64 MB a worker needs to start
    assert "memory limit" in capsys.readouterr().err


def test_worker_server_restarts_after_it_is_stopped():
    """`stop_forkserver` (run at exit, and by the benchmark between runs) leaves the executor usable."""
    assert isinstance(run_isolated(_sleep, 0, Limits()), Done)
    stop_forkserver()
    stop_forkserver()  # a second stop is harmless
    assert isinstance(run_isolated(_sleep, 0, Limits()), Done)


def test_parallel_runs_start_the_largest_sources_first_and_keep_report_order(tmp_path, monkeypatch):
    reports = tmp_path / "reports"
    reports.mkdir()
    for name, pages in (("a-small", 1), ("b-big", 12), ("c-mid", 4)):
        write_pdf(reports / f"{name}.pdf", [[f"Page {i} of {name}: agentic tool use."] for i in range(pages)])
        write_report(reports, name, f"source:\n  path: {name}.pdf\n")
    started: list[str] = []
    real = pipeline.make_executor

    def recording(settings, on_progress=None, on_start=None):
        ex = real(settings, on_progress, on_start)
        inner = ex.imap_unordered
        ex.imap_unordered = lambda jobs: inner((started.append(j.arg.report_id), j)[1] for j in jobs)
        return ex

    monkeypatch.setattr(pipeline, "make_executor", recording)
    two = run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "two", jobs=2))
    assert started == ["b-big", "c-mid", "a-small"]
    assert [o.report_id for o in two.outcomes] == ["a-small", "b-big", "c-mid"]
    started.clear()
    run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "one", jobs=1))
    assert started == ["a-small", "b-big", "c-mid"]  # one worker: the order of the reports


def test_plain_runs_never_import_dask():
    code = "import sys, ingest.cli, ingest.pipeline; sys.exit('distributed' in sys.modules or 'dask' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0



#: Modules only a worker reading a document needs: the driver of `python -m ingest NEW.yaml` never
#: imports them (bench/import_costs.py prints what each spares), the forkserver preloads them.
WORKER_ONLY = ("ingest.analysis.results_pdf", "pypdfium2", "ingest.reading.structure_regions", "ingest.reading.markdown")


def test_the_ingest_driver_imports_no_document_reader():
    code = (
        "import sys, ingest.cli, ingest.pipeline, ingest.pipeline_steps, ingest.outputs.tables\n"
        f"print(' '.join(m for m in {WORKER_ONLY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [], out.stderr


def test_the_forkserver_preloads_the_document_readers_the_driver_defers():
    from ingest.run.executor import PRELOAD

    assert {"ingest.analysis.results_pdf", "ingest.reading.markdown", "pypdfium2"} <= set(PRELOAD)

def test_workers_use_the_drivers_package_even_from_another_checkouts_folder(tmp_path):
    """A folder holding another `ingest` (an older checkout) must not shadow the driver's in the workers."""
    (tmp_path / "ingest").mkdir()
    (tmp_path / "ingest" / "__init__.py").write_text("")  # an `ingest` without executor or pipeline
    code = (
        f"import sys; sys.path.insert(0, {str(REPO)!r})\n"
        "from ingest.run.executor import Done, Limits, run_isolated\n"
        "from tests.executor_jobs import _sleep\n"
        "if __name__ == '__main__':\n"
        "    r = run_isolated(_sleep, 0, Limits())\n"
        "    sys.exit(0 if isinstance(r, Done) else f'{r}')\n"
    )
    _run_driver(tmp_path, code)


def test_a_light_single_threaded_driver_forks_jobs_itself_with_the_same_limits(tmp_path):
    """A fresh `python -m ingest` forks its jobs itself (no worker server to start), and the
    limits still hold there: time (the job's own children killed too), memory, crashes."""
    pidfile = tmp_path / "grandchild.pid"
    code = (
        f"import sys; sys.path.insert(0, {str(REPO)!r})\n"
        "from multiprocessing import forkserver\n"
        "from ingest.run.executor import Done, Failure, Limits, fork_here, run_isolated\n"
        "from tests.executor_jobs import _allocate, _segfault, _sleep, _sleep_with_grandchild\n"
        "if __name__ == '__main__':\n"
        "    assert fork_here(Limits()), 'a fresh interpreter should fork its jobs itself'\n"
        "    ok = run_isolated(_allocate, 16, Limits(memory_mb=512))\n"
        "    assert isinstance(ok, Done) and ok.value == 16 << 20 and ok.peak_mb is not None, ok\n"
        "    big = run_isolated(_allocate, 2048, Limits(memory_mb=512))\n"
        "    assert isinstance(big, Failure) and big.kind == 'memory', big\n"
        f"    slow = run_isolated(_sleep_with_grandchild, {str(pidfile)!r}, Limits(timeout=1.5))\n"
        "    assert isinstance(slow, Failure) and slow.kind == 'timeout', slow\n"
        "    crash = run_isolated(_segfault, None, Limits())\n"
        "    assert isinstance(crash, Failure) and 'SIGSEGV' in crash.message, crash\n"
        "    assert forkserver._forkserver._forkserver_pid is None, 'a worker server was started'\n"
    )
    _run_driver(tmp_path, code)
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "the job's own child process survived the timeout"


def test_a_threaded_or_large_driver_does_not_fork_jobs_itself():
    """Forking copies one thread only (another's locks stay locked in the child), and the worker's
    memory limit counts the address space it inherits: such a driver uses the worker server."""
    import threading

    from ingest.run.executor import fork_here

    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert not fork_here(Limits(memory_mb=1 << 20))
    finally:
        stop.set()
        t.join()
    assert not fork_here(Limits(memory_mb=64))  # this interpreter alone is larger than 16 MB


def test_one_report_from_a_fresh_cli_process_starts_no_worker_server(tmp_path):
    reports = _reports(tmp_path, n=1)
    code = (
        f"import sys; sys.path.insert(0, {str(REPO)!r})\n"
        "from multiprocessing import forkserver\n"
        "from ingest.cli import main\n"
        "if __name__ == '__main__':\n"
        f"    args = [{str(reports / 'r0.yaml')!r}, '--reports-dir', {str(reports)!r}, '--data-dir', {str(tmp_path / 'd')!r}]\n"
        "    code = main(args)\n"
        "    assert code == 0, code\n"
        "    assert forkserver._forkserver._forkserver_pid is None, 'a worker server was started'\n"
    )
    _run_driver(tmp_path, code)
    assert Store(tmp_path / "d").load_bundle("r0") is not None


def test_start_server_early_only_where_jobs_are_not_forked_here(monkeypatch):
    """The worker server is started ahead of the first job only by a driver that would not fork it itself."""
    from ingest.run import executor

    started: list[bool] = []
    monkeypatch.setattr(executor, "warm_up", lambda: started.append(True))
    monkeypatch.setattr(executor, "fork_here", lambda limits: True)
    assert executor.start_server_early(Limits()) is False and started == []
    monkeypatch.setattr(executor, "fork_here", lambda limits: False)
    assert executor.start_server_early(Limits()) is True and started == [True]
