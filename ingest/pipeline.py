"""The pipeline: registry → fetch → extract → sections → keywords → (evidence → annotate) → store.

`ingest_report` runs one report and never raises: every failure becomes an `Outcome` with
a message, and the report's last good bundle stays in place. `run` does a batch and then
rebuilds the tables. Re-runs on unchanged inputs are nearly free: a bundle whose
fingerprint (source hash, lexicon, lens, engine, pipeline version) matches is kept as is.

Each report is split in three so the heavy, risky part can run elsewhere:

* `plan` (driver): fetch/locate the source, check the fingerprint, load cached text → a `Task`;
* `compute` (a worker process, see `ingest.run.executor`): extract and analyse — pure, picklable
  in and out, under a time and memory limit, locally `--jobs` at a time or on a Dask cluster;
* `finish` (driver): write the text cache, the bundle and the status. Workers never write the store.

Those steps live in `ingest.pipeline_steps`, the run's records (`Settings`, `Outcome`, `RunResult`)
in `ingest.pipeline_settings`; this module holds the batch: the executor, the run loop and the
table rebuild that ends it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.analysis.confidence import Model
from ingest.analysis.confidence_fit import run_model
from ingest.analysis.lens import LENS_DIR, Lens, known_dimensions, load_lens
from ingest.analysis.lexicon import Lexicon, load_lexicon
from ingest.common.paths import folder_head
from ingest.pipeline_settings import PIPELINE_VERSION, Outcome, RunResult, Settings
from ingest.pipeline_steps import (
    Planned,
    _record,
    compute,
    finish,
    lens_key,
    plan,
)
from ingest.reading.extract import Progress
from ingest.run.executor import DaskExecutor, LocalExecutor, default_jobs, start_server_early
from ingest.run.jobs import Executor, Job
from ingest.run.warm import warm_caches
from ingest.sources.registry import Registry, Roster, SpecError, load_registry, load_roster, report_path_head
from ingest.sources.schema import ReportSpec
from ingest.store.store import Store

if TYPE_CHECKING:  # the table builder (pyarrow) loads in the driver only when the tables change
    from ingest.outputs.tables import ReadyRows


def make_executor(
    settings: Settings,
    on_progress: Callable[[object, int, int], None] | None = None,
    on_start: Callable[[object], None] | None = None,
) -> Executor:
    """Local worker processes (`jobs` at a time), or a Dask cluster when `settings.executor` is set.

    `on_start(key)` is called in the driver right after each job is handed out (see `run_jobs`)."""
    if settings.executor:
        return DaskExecutor(settings.executor, settings.limits(), on_start=on_start)
    return LocalExecutor(settings.limits(), settings.jobs, on_progress, on_start)


def ingest_report(
    spec: ReportSpec,
    yaml_path: Path,
    store: Store,
    lexicon: Lexicon,
    settings: Settings,
    lens: Lens | None = None,
    page_progress: Progress | None = None,
    model: Model | None = None,
) -> Outcome:
    """Run one report through every stage; never raises, never erases its last good bundle."""
    step = plan(spec, yaml_path, store, lexicon, settings, lens, model=model)
    if isinstance(step, Outcome):
        return _record(store, step)
    on_progress = (lambda _key, done, total: page_progress(done, total)) if page_progress else None
    executor = LocalExecutor(settings.limits(), 1, on_progress)
    for _, result in executor.imap_unordered(
        [Job(spec.id, compute, step.task, timeout=round(settings.timeout - step.plan_seconds, 1))]
    ):
        return _record(store, finish(step, result, store))
    raise AssertionError("the executor returned no result")


class _Completed:
    """The reports of a run, yielded as each one finishes (sized, so a progress bar knows the total)."""

    def __init__(self, items: list, produce: Callable[[], Iterator[int]]):
        self.items, self.produce = items, produce

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator:
        return (self.items[i] for i in self.produce())


def _size_hint(spec: ReportSpec, yaml_path: Path) -> int:
    """Bytes of a report's local source file (0 when it has none or it cannot be seen): how long
    its work may take, to schedule parallel workers. Nothing is read; `plan` still checks the path."""
    src = spec.source
    if src is None or not src.path:
        return 0
    try:
        return (yaml_path.parent / src.path).stat().st_size
    except (OSError, ValueError):
        return 0


def _ingest_all(
    items: list[tuple[ReportSpec, Path]],
    store: Store,
    lexicon: Lexicon,
    settings: Settings,
    lens: Lens | None,
    progress: Callable | None,
    page_progress: Progress | None,
    meanwhile: Callable[[], None] | None = None,
    written: set[str] | None = None,
    model: Model | None = None,
    ahead: Callable[[ReportSpec, Path], None] | None = None,
) -> list[Outcome]:
    """Plan each report in the driver, run the work on the executor, finish in the driver; keep input order.

    `written` collects the reports whose bundle or status file was written (what the tables must take in);
    `ahead(spec, path)` works on a stored report (its table rows) while the next job runs, once no job is forked here.

    `meanwhile()` is the driver's own work for after the run (e.g. importing the table builder):
    it is called once the last job has been handed out, so it overlaps the jobs still running
    (and no job is forked from a driver that has since loaded more, see `executor.fork_here`).
    """
    outcomes: list[Outcome | None] = [None] * len(items)
    planned: dict[int, Planned] = {}
    ready: deque[int] = deque()  # reports finished without a worker (cached, no source, fetch failed)
    on_progress = (lambda _key, done, total: page_progress(done, total)) if page_progress else None
    ship = settings.executor is not None
    order = list(range(len(items)))
    if ship or (settings.jobs or default_jobs()) > 1:
        # Largest sources first, so the run does not end with one big report on one worker
        # while the others idle (outcomes still keep the order of the reports).
        order.sort(key=lambda i: -_size_hint(*items[i]))
    started = 0
    forking = True  # may a later job still be forked from this process (which must stay light until then)?

    def on_start(key: object) -> None:
        nonlocal started, forking
        started += 1
        if started == 1 and len(order) > 1 and executor.forks_here():
            # Jobs are forked from this process: compile the cues here, once, while the first
            # job runs, so every later job inherits them (the first compiles its own).
            warm_caches(lexicon, lens)
        if key == order[-1]:
            forking = False
            if meanwhile is not None:
                meanwhile()  # the last report's job is out: nothing more is forked in this run

    executor = make_executor(settings, on_progress, on_start)

    def jobs() -> Iterator[Job]:
        for i in order:
            spec, path = items[i]
            step = plan(spec, path, store, lexicon, settings, lens, ship_source=ship, written=written, model=model)
            if isinstance(step, Outcome):
                outcomes[i] = _record(store, step, written)
                ready.append(i)
            else:
                planned[i] = step
                yield Job(i, compute, step.task, timeout=round(settings.timeout - step.plan_seconds, 1))
        if started and meanwhile is not None:  # (the last report needed no job: the driver is free now)
            meanwhile()

    def finished() -> Iterator[int]:
        for i, result in executor.imap_unordered(jobs()):
            while ready:
                yield ready.popleft()
            outcomes[i] = _record(store, finish(planned.pop(i), result, store), written)
            if ahead is not None and (not forking or not executor.forks_here()):
                ahead(*items[i])
            yield i
        while ready:
            yield ready.popleft()

    try:
        done = _Completed(items, finished)
        for _ in progress(done) if progress else done:
            pass
    finally:
        executor.close()
    return [o for o in outcomes if o is not None]


def yaml_stat(
    reports_dir: str | Path, paths: Iterable[str | Path] = (), keep: dict[str, os.stat_result] | None = None
) -> dict[str, tuple[int, int, int]]:
    """(size, mtime, inode) of every report file of the folder and of `paths`: one directory scan, no read.

    `keep` receives the folder's files' whole `os.stat`, by path as `load_roster` names them (its
    `stats`: the registry cache's lookup then stats no file again)."""
    out: dict[str, tuple[int, int, int]] = {}
    try:
        entries = [e for e in os.scandir(reports_dir) if e.name.endswith((".yaml", ".yml"))]
    except OSError:
        entries = []
    head = report_path_head(reports_dir) if keep is not None else ""
    # Plain strings, normalised as os.path does (a Path per file cost more than its stat): an entry's
    # name has no separator and is never "." or "..", so `normpath(folder/name)` is the normalised
    # folder joined to the name, worked out once.
    base = folder_head(os.path.normpath(reports_dir))
    for e in entries:
        with contextlib.suppress(OSError):
            s = e.stat()
            out[base + e.name] = (s.st_size, s.st_mtime_ns, s.st_ino)
            if keep is not None:
                keep[head + e.name] = s
    for p in map(str, paths):
        with contextlib.suppress(OSError):
            s = os.stat(p)
            out.setdefault(os.path.normpath(p), (s.st_size, s.st_mtime_ns, s.st_ino))
    return out


class _TablesPrep:
    """What the table update needs besides the bundles — the whole folder's registry, the tables
    key, the table builder's modules — worked out once, while the last jobs run."""

    #: Reports written in this run above which the early scan of stamps is not worth refreshing.
    REFRESH_MAX = 256
    #: Reports whose table rows are built ahead at most: each one's rows stay in memory until the
    #: table update, which otherwise holds one bucket's rows at a time.
    AHEAD_MAX = 64

    def __init__(self, store: Store, registry: Registry, files: object, reports_dir: str | Path, dims: set[str], cache: Path,
                 key_extra: str, lexicon: Lexicon, seen: dict[str, tuple[int, int, int]] | None = None,
                 folder: Roster | None = None) -> None:  # fmt: skip
        self.store = store
        #: The folder's roster when the caller read it already (after taking `seen`): used by the first `load`.
        self._folder = folder
        self.args = (registry, files, reports_dir, dims, cache, key_extra, lexicon)
        self.full: Roster | None = None
        self.key = ""
        self._scan: threading.Thread | None = None
        self._stamps: dict[str, str] | None = None
        #: Report files as they were before the run read them (`seen` when the caller took it earlier).
        self._seen: dict[str, tuple[int, int, int]] = dict(seen or {})
        self.from_disk = False
        #: Table rows built ahead, by report (see `ahead`).
        self.ready: dict[str, ReadyRows] = {}

    def __call__(self) -> None:
        """Everything, the table builder's import included (a job ran, so the tables change).

        The store's change stamps (a stat of every bundle and status: 20,000 system calls at
        10,000 reports, which release the GIL) are scanned on a thread meanwhile. A thread is
        fine here: no job is forked after this (see `_ingest_all`).
        """
        if self._scan is None:
            self._scan = threading.Thread(target=self._scan_stamps, name="scan stamps", daemon=True)
            self._scan.start()
        self.load()
        # The table builder (pandas, pyarrow) loads here, in the driver while the jobs run, not in
        # the workers, which import this module (bench/import_costs.py prints its cost).
        from ingest.outputs import tables  # noqa: F401

        if not self.store.manifest_path.exists():
            # A first build converts the rows of new parts with `pa.Table.from_pylist`, which
            # imports pandas (0.2-0.4 s): here it overlaps the last job instead of following it.
            # Updates of existing parts go through `rows_to_arrow` and never need it.
            import pandas  # noqa: F401

    def ahead(self, spec: ReportSpec, yaml_path: Path, lens: Lens) -> None:
        """Build a just stored report's table rows now, while the next reports are read: the table
        update uses them if nothing they depend on changed since (see `tables.rows_ahead`).
        Best effort: whatever is not built here, the update builds."""
        if len(self.ready) >= self.AHEAD_MAX:
            return
        from ingest.outputs.tables import rows_ahead

        registry = self.args[0]
        with contextlib.suppress(Exception):
            self.ready[spec.id] = rows_ahead(self.store, spec, str(yaml_path), lens, registry.spec_json(spec))

    def _scan_stamps(self) -> None:
        with contextlib.suppress(Exception):  # (the table update then scans them itself)
            self._stamps = self.store.bundle_stamps()

    def stamps(self, written: Iterable[str]) -> dict[str, str] | None:
        """The early scan with the reports written since (`written`) stamped again; None when
        there was no early scan, or when so many were written that a new full scan is as cheap."""
        if self._scan is None:
            return None
        self._scan.join()
        written = set(written)
        if self._stamps is None or len(written) > self.REFRESH_MAX:
            return None
        out = {rid: m for rid, m in self._stamps.items() if rid not in written}
        out.update(self.store.stamps_of(written))
        return out

    def _yaml_stat(self) -> dict[str, tuple[int, int, int]]:
        registry, files, reports_dir, *_ = self.args
        return yaml_stat(reports_dir, registry.paths.values() if files is not None else ())

    def yaml_changed(self) -> bool:
        """Has a report file been added, removed or edited since `load` read the folder?"""
        return self.full is not None and self._yaml_stat() != self._seen

    def refresh_if_changed(self) -> bool:
        """Read the folder again when a report file changed since `load` (True then)."""
        if not self.yaml_changed():
            return False
        self.full = None
        self.from_disk = True  # (not the registry read at the start of the run)
        self.load()
        return True

    def load(self) -> None:
        """The registry and the tables key only (a run where nothing changed may not need more)."""
        if self.full is not None:
            return
        registry, files, reports_dir, dims, cache, key_extra, lexicon = self.args
        given, self._folder = (None if self.from_disk else self._folder), None
        if given is None and (files is not None or self.from_disk or not self._seen):
            self._seen = self._yaml_stat()  # before reading: an edit during the read shows as a change
        # Tables always cover the whole reports folder, not just the files named on the command line;
        # the folder's specs are made only for the reports whose rows are rebuilt (see `Roster`).
        if given is not None:
            full = given
        elif files is None and not self.from_disk:
            full = Roster.of(registry)
        else:
            full = load_roster(reports_dir, known_dimensions=dims, cache=cache)
        for spec in registry.reports:
            if spec.id not in full.paths:  # (a named file outside the folder)
                full.add(spec, registry.paths[spec.id], registry.spec_json(spec))
        self.key = tables_key(full, lexicon, key_extra)
        self.full = full


def _folder_roster(reports_dir: str | Path, registry: Registry, dims: set[str], cache: Path) -> tuple[dict, Roster]:
    """The report files as they are before the run reads the folder (`yaml_stat`: an edit during
    the read shows as a change), and the folder's roster, whose cache lookup takes the same stats."""
    stats: dict[str, os.stat_result] = {}
    seen = yaml_stat(reports_dir, registry.paths.values(), keep=stats)
    return seen, load_roster(reports_dir, known_dimensions=dims, cache=cache, stats=stats)


def _named_files(files: Iterable[str | Path] | None, store: Store, settings: Settings) -> list[str | Path] | None:
    """The report files named for this run, as a list (None: the whole folder).

    A named report not stored yet needs a job (a report's id is its file's name): a driver that
    cannot fork it itself starts its worker server now, so the server's start-up overlaps the
    registry, roster and model loads (bench/scale.py: "add one report end to end (in process)").
    """
    if files is None:
        return None
    named = list(files)
    if settings.executor is None and any(not store.has_bundle(Path(f).stem) for f in named):
        start_server_early(settings.limits())
    return named


def run(
    files: Iterable[str | Path] | None = None,
    reports_dir: str | Path = "reports",
    settings: Settings | None = None,
    progress: Callable[[Iterable[tuple[ReportSpec, Path]]], Iterable[tuple[ReportSpec, Path]]] | None = None,
    page_progress: Progress | None = None,
) -> RunResult:
    """Ingest the given report files (or all of `reports_dir`) and rebuild the tables.

    `progress` wraps the list of reports (e.g. a progress bar), which yields each report as it
    finishes; `page_progress(done, total)` is called while a PDF's pages are read, so a very long
    document shows progress too. Reports are read in worker processes (`settings.jobs` at a time,
    each under `settings.timeout` and `settings.memory_limit_mb`) or on a Dask cluster
    (`settings.executor`); outcomes keep the order of the reports. Raises `ExecutorError` when
    the executor cannot start (nothing is ingested then).
    """
    settings = settings or Settings()
    # The reports folder is always an allowed source root (issue 8: confinement of sources).
    settings = dataclasses.replace(settings, source_roots=(Path(reports_dir), *settings.source_roots))
    store = Store(settings.data_dir)
    files = _named_files(files, store, settings)
    lexicon = load_lexicon(settings.lexicon_path)
    lens = load_lens(settings.lens_path, cache=store.root / "cache")
    # `curated:` keys must be dimensions of some lens (a typo fails loudly, another lens' cells still load).
    dims = known_dimensions(LENS_DIR, store.root / "cache") | set(lens.ids)
    # Unchanged YAML files are not parsed again: their validated specs are cached (see registry.SpecCache).
    cache = store.root / "cache" / "registry.json"
    # Report files as they are before the run reads them: a file edited later (a Review decision
    # saved while this run works) is read again before the tables are written (see `_TablesPrep`).
    seen = yaml_stat(reports_dir) if files is None else None
    registry: Registry = load_registry(reports_dir, files=files, known_dimensions=dims, cache=cache)
    result = RunResult(spec_errors=list(registry.errors))
    by_file: dict[str, list[SpecError]] = {}
    for err in registry.errors:
        by_file.setdefault(err.file, []).append(err)
    for file, errs in by_file.items():
        msg = "; ".join(str(e) for e in errs)
        result.outcomes.append(Outcome(Path(file).stem, "failed", msg, file=file))
    items = [(spec, registry.paths[spec.id]) for spec in registry.reports]
    # Review decisions beside stored automatic cells refit the confidence model for this run.
    # Always from the whole folder, so a run of a few files scores with the same model as a full run;
    # for a few files the folder's roster (which the table update reads anyway) names the reports with
    # decisions, and only their specs are made.
    folder = None
    if files is None:
        decided = [s for s in registry.reports if s.curated]
    else:
        seen, folder = _folder_roster(reports_dir, registry, dims, cache)
        decided = [folder.spec(rid) for rid in folder.ids if rid in folder.curated]
    model = run_model(decided, store, lens, cache=store.root / "cache" / "confidence-refit.json")
    prep = _TablesPrep(store, registry, files, reports_dir, dims, cache, lens_key(lens, model), lexicon, seen, folder)
    written: set[str] = set()
    outs = _ingest_all(
        items, store, lexicon, settings, lens, progress, page_progress, prep, written, model,
        ahead=lambda spec, path: prep.ahead(spec, path, lens),
    )  # fmt: skip
    result.outcomes.extend(outs)
    prep.load()  # (done already, unless no report needed a job)
    assert prep.full is not None
    # The tables take in written bundles and statuses; an unchanged re-run wrote none (see `_record`),
    # and then only a change of the YAML files, lexicon or lens (the tables key) rebuilds them.
    changed = bool(written) or any(o.status == "ok" for o in result.outcomes)
    # Outcomes wrote their status (and maybe their bundle) after the early scan of the stamps.
    stamps = prep.stamps(o.report_id for o in result.outcomes)
    if changed or store.tables_key() != prep.key or prep.yaml_changed():
        from ingest.outputs.tables import rebuild_tables  # pyarrow is imported only when tables are rebuilt

        with store.lock():
            behind = store.behind_token()
            # A YAML edited since this run read the folder (a Review decision saved meanwhile, whose
            # own rebuild may already be done) is read again here, under the lock: the tables
            # written below never take an older view of a report file than the last rebuild did.
            if prep.refresh_if_changed():
                stamps = None
            assert prep.full is not None
            rebuild_tables(store, prep.full, lens, stamps=stamps, ready=prep.ready)
            store.set_tables_key(prep.key)
            store.clear_tables_behind(behind)
    return result


def tables_key(registry: Registry | Roster, lexicon: Lexicon, extra: str = "") -> str:
    """Hash of what the tables depend on besides the bundles: every YAML in view, lexicon, version.

    When no report was (re)computed and this key is unchanged, the stored tables are current and
    a re-run skips rebuilding them — this is what makes a warm re-run nearly free.
    """
    h = hashlib.sha256(f"{PIPELINE_VERSION}|{lexicon.fingerprint}|{extra}".encode())
    # The validated specs' JSON, not the file bytes: the same for the tables, and no read of 10,000 files.
    roster = registry if isinstance(registry, Roster) else Roster.of(registry)
    for rid in sorted(roster.ids):
        h.update(f"|{rid}|{roster.paths[rid]}|".encode())
        h.update(roster.spec_json(rid).encode())
    for err in roster.errors:
        h.update(str(err).encode())
    return h.hexdigest()
