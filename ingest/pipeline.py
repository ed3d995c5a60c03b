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
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import os
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ingest.analysis.annotate import ANNOTATE_VERSION, annotate
from ingest.analysis.confidence import Model, load_model
from ingest.analysis.confidence_fit import run_model
from ingest.analysis.evidence import sentences
from ingest.analysis.keywords import count_keywords
from ingest.analysis.lens import DEFAULT_LENS, LENS_DIR, Lens, known_dimensions, load_lens
from ingest.analysis.lexicon import DEFAULT_LEXICON, Lexicon, load_lexicon
from ingest.analysis.results import may_hold_table, read_results, results_key, status_note
from ingest.reading.extract import (
    EXTRACTOR_VERSION,
    TRUNCATED,
    Document,
    Engine,
    ExtractionError,
    KeptPages,
    Progress,
    extract_file,
)
from ingest.reading.sections import section_spans, split_sections
from ingest.reading.textnorm import word_rule
from ingest.run.executor import (
    DEFAULT_MEMORY_MB,
    DEFAULT_TIMEOUT,
    DaskExecutor,
    Done,
    Executor,
    Job,
    Limits,
    LocalExecutor,
    Result,
    default_jobs,
)
from ingest.run.warm import warm_caches
from ingest.sources import fetch
from ingest.sources.confine import normalise_roots
from ingest.sources.registry import Registry, Roster, SpecError, load_registry, load_roster
from ingest.sources.schema import ReportSpec
from ingest.store import history
from ingest.store.records import Analysis, Bundle, Meta, SectionRow
from ingest.store.store import DEFAULT_DATA_DIR, Store, describe_os_error

#: Bump when counting/sectioning changes, so stored bundles are recomputed.
PIPELINE_VERSION = 4

Status = Literal["ok", "cached", "no-source", "failed"]


@dataclass(frozen=True)
class Settings:
    """How to run the pipeline; validated on creation so a typo fails before any work is done."""

    data_dir: Path = DEFAULT_DATA_DIR
    lexicon_path: Path = DEFAULT_LEXICON
    lens_path: Path = DEFAULT_LENS
    engine: Engine = "pdfium"
    force: bool = False
    offline: bool = False
    max_pages: int = 3000
    #: Download limits for `source.url` (timeouts, size cap, retries, redirects); see ingest/sources/fetch.py.
    fetch_settings: fetch.FetchSettings = field(default_factory=fetch.FetchSettings)
    #: Folders a `source.path` or `file://` URL may lie in (resolved; `run` adds the reports folder).
    source_roots: tuple[Path, ...] = ()
    #: Wall-clock limit, in seconds, for one report's extraction and analysis (its worker is killed).
    timeout: float = DEFAULT_TIMEOUT
    #: Memory (address-space) limit, in MB, of the worker process that reads one report.
    memory_limit_mb: int = DEFAULT_MEMORY_MB
    #: Reports read at once, each in its own worker process (None: one per available core).
    jobs: int | None = None
    #: Address of a Dask scheduler ("tcp://host:8786") to read reports on; None reads them here.
    executor: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.source_roots, str | Path) or not isinstance(self.source_roots, tuple | list):
            raise ValueError(f"source_roots must be a tuple of folders, not {self.source_roots!r}")
        object.__setattr__(self, "source_roots", normalise_roots(self.source_roots))
        if not isinstance(self.fetch_settings, fetch.FetchSettings):
            raise ValueError("fetch_settings must be a FetchSettings")
        if self.engine not in ("pdfium", "pdfplumber"):
            raise ValueError(f"engine must be 'pdfium' or 'pdfplumber', not {self.engine!r}")
        if self.max_pages < 1:
            raise ValueError(f"max_pages must be at least 1, not {self.max_pages}")
        self.limits()  # validates timeout and memory_limit_mb
        if self.jobs is not None and (isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or self.jobs < 1):
            raise ValueError(f"jobs must be a whole number of at least 1, not {self.jobs!r}")
        if self.executor is not None and (not isinstance(self.executor, str) or not self.executor.strip()):
            raise ValueError(f"executor must be a Dask scheduler address such as tcp://host:8786, not {self.executor!r}")
        object.__setattr__(self, "data_dir", Path(self.data_dir))
        object.__setattr__(self, "lexicon_path", Path(self.lexicon_path))
        object.__setattr__(self, "lens_path", Path(self.lens_path))

    def limits(self) -> Limits:
        """The per-report limits of a worker process."""
        return Limits(timeout=self.timeout, memory_mb=self.memory_limit_mb)


@dataclass
class Outcome:
    """What happened to one report in this run."""

    report_id: str
    status: Status
    message: str = ""
    words: int | None = None
    pages: int | None = None
    seconds: float = 0.0
    file: str = ""
    #: Peak memory of the worker process that read the report, in MB (None when none ran).
    peak_mb: float | None = None

    @property
    def failed(self) -> bool:
        return self.status == "failed"


@dataclass
class RunResult:
    outcomes: list[Outcome] = field(default_factory=list)
    spec_errors: list[SpecError] = field(default_factory=list)

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.failed]


def download_settings(settings: Settings) -> fetch.FetchSettings:
    """The download limits of one report: its `--timeout` covers the download too (the work gets
    what is left, see `Job.timeout`), and the download's process has the workers' memory limit."""
    fs = settings.fetch_settings
    return dataclasses.replace(fs, total_timeout=min(fs.total_timeout, settings.timeout), memory_mb=settings.memory_limit_mb)


def fingerprint(sha256: str, lexicon: Lexicon, settings: Settings, extra: str = "") -> str:
    """Everything a bundle's content depends on, hashed."""
    key = f"{sha256}|{lexicon.fingerprint}|{settings.engine}|{PIPELINE_VERSION}|x{EXTRACTOR_VERSION}|{extra}"
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def analyse(
    doc: Document,
    lexicon: Lexicon,
    lens: Lens | None = None,
    source: Path | None = None,
    kept: KeptPages | None = None,
    model: Model | None = None,
) -> Analysis:
    """Sections, words, keyword counts, (with a lens) the annotated comparison cells, and the
    benchmark-result tables (re-reading only the table pages of `source`, when given; `kept`:
    the pages extraction kept open for that; `model`: the run's confidence model)."""
    segments = split_sections(doc)
    rule = word_rule(doc.text)
    kw = count_keywords(segments, lexicon, rule)
    sections = tuple(
        SectionRow(s.section, s.start_page, s.end_page, s.heading, kw.words.get(s.section, 0)) for s in section_spans(segments)
    )
    annotation = annotate(sentences(segments), lens, model=model) if lens is not None else None
    return Analysis(
        word_rule=rule,
        words=kw.words,
        sections=sections,
        counts=tuple(kw.counts),
        kwic=tuple(kw.kwic),
        results=read_results(doc, source, kept=kept),
        annotation=annotation,
    )


def lens_key(lens: Lens | None, model: Model | None = None) -> str:
    """The lens part of a bundle fingerprint: lens content, the annotation code version and the
    confidence model (a retrained or refitted model re-scores every cell on the next run)."""
    own = f"{lens.fingerprint}|a{ANNOTATE_VERSION}|c{(model or load_model()).fingerprint}" if lens is not None else ""
    return own + f"|{results_key()}"


def code_versions() -> tuple[int, int, int]:
    """Versions of the code whose output a bundle holds; a worker must run the same ones."""
    return (PIPELINE_VERSION, EXTRACTOR_VERSION, ANNOTATE_VERSION)


@dataclass(frozen=True)
class Task:
    """Everything `compute` needs for one report; picklable, so it runs in a worker process or on
    another machine. The lexicon and lens travel as parsed content, not as file paths."""

    report_id: str
    source: str  # local path of the source (its suffix decides Markdown vs HTML)
    settings: Settings
    lexicon: Lexicon
    lens: Lens | None
    text: Document | None = None  # the cached extraction, when there is one
    data: bytes | None = None  # the source's bytes, for a worker that cannot read `source` (Dask)
    versions: tuple[int, int, int] = field(default_factory=code_versions)
    model: Model | None = None  # the run's confidence model (None: the committed one)


@dataclass(frozen=True)
class Computed:
    """What `compute` returns: the analysis, and the text when it was freshly extracted (to cache)."""

    result: Analysis | None = None
    doc: Document | None = None  # None when the text came from the cache
    kind: str = ""
    engine: str = ""
    pages: int = 0
    notes: list[str] = field(default_factory=list)
    error: str | None = None  # the user-facing reason the source could not be read


def compute(task: Task, progress: Progress | None = None) -> Computed:
    """Extract (unless cached) and analyse one report. Pure: reads only the source, writes nothing."""
    if task.versions != code_versions():
        theirs, ours = task.versions, code_versions()
        return Computed(error=f"the worker runs other code (versions {ours}, driver {theirs}); install the same version")
    settings = task.settings
    doc = task.text
    try:
        # The results stage re-reads a PDF's table pages, so the source file is needed even when
        # the text comes from the cache; a worker without this machine's files gets its bytes.
        with tempfile.TemporaryDirectory(prefix="frl-") as tmp:
            path = Path(task.source)
            if task.data is not None:
                path = Path(tmp) / f"source{Path(task.source).suffix[:16]}"
                path.write_bytes(task.data)
            # Freshly extracted with pdfium, the pages that may hold a table stay open for the results stage.
            kept = KeptPages(may_hold_table) if doc is None and settings.engine == "pdfium" else None
            try:
                if doc is None:
                    doc = extract_file(path, engine=settings.engine, max_pages=settings.max_pages, progress=progress, keep=kept)
                result = analyse(doc, task.lexicon, task.lens, path, kept, task.model)
            finally:
                if kept is not None:
                    kept.close()
    except ExtractionError as exc:
        return Computed(error=str(exc))
    fresh = task.text is None
    return Computed(result, doc if fresh else None, doc.kind, doc.engine, len(doc.pages), list(doc.notes))


@dataclass
class Planned:
    """A report whose work was handed to a worker, with what `finish` needs to store it."""

    spec: ReportSpec
    yaml_path: Path
    fetched: fetch.Fetched
    fingerprint: str
    task: Task
    out: Outcome
    t0: float
    plan_seconds: float


def _record(store: Store, out: Outcome, written: set[str] | None = None) -> Outcome:
    """Write the report's status, unless the stored one still tells the truth (best effort: a full
    disk must not turn a result into a crash). `written` collects the reports whose status was written.

    Why not always: the tables are rebuilt for every report whose status file changed, so a re-run
    over 10,000 unchanged reports that rewrote each status (only its time is new) rebuilt them all.
    """
    if out.status != "ok" and _still_true(store.load_status(out.report_id), out):
        return out
    status = {**vars(out), "finished_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
    with contextlib.suppress(OSError):
        store.save_status(out.report_id, status)
        if written is not None:
            written.add(out.report_id)
    return out


def _still_true(old: dict | None, out: Outcome) -> bool:
    """Does the stored status `old` already describe this outcome (one where no worker wrote a result)?

    A `cached` outcome leaves the status of the run that computed the stored bundle (`ok`, or an
    earlier `cached`) as it is; any other outcome must match the stored status and message. A
    status of another YAML file or outcome (e.g. `failed` before, `cached` now) is rewritten.
    """
    if not isinstance(old, dict) or old.get("report_id") != out.report_id or old.get("file") != out.file:
        return False
    if out.status == "cached":
        return old.get("status") in ("ok", "cached")
    return old.get("status") == out.status and old.get("message") == out.message


def plan(
    spec: ReportSpec,
    yaml_path: Path,
    store: Store,
    lexicon: Lexicon,
    settings: Settings,
    lens: Lens | None = None,
    ship_source: bool = False,
    written: set[str] | None = None,
    model: Model | None = None,
) -> Outcome | Planned:
    """Driver side, before the work: a final `Outcome` (no source, unchanged, fetch failed) or a `Planned` task.

    `ship_source` puts the source's bytes into the task, for workers that do not share this
    machine's files (a Dask cluster). `written` collects the report when its bundle is written here.
    `model`: the run's confidence model (see `run`), part of the fingerprint.
    """
    t0 = time.perf_counter()
    out = Outcome(spec.id, "ok", file=str(yaml_path))
    try:
        if spec.source is None:
            out.status, out.message = "no-source", "no source given: reported figures only"
            # Keep a snapshot of the spec, so a later broken edit of the YAML still shows the report.
            snapshot = Meta(spec.id, spec.model_dump(mode="json", by_alias=True), str(yaml_path))
            old = store.load_bundle(spec.id)
            if old is None or old.meta != snapshot:
                store.save_bundle(spec.id, Bundle(snapshot))
                if written is not None:
                    written.add(spec.id)
            return out
        fetched = fetch.locate(
            spec.source,
            yaml_path.parent,
            store.http_dir,
            offline=settings.offline,
            settings=download_settings(settings),
            roots=settings.source_roots,
        )
        fp = fingerprint(fetched.sha256, lexicon, settings, extra=lens_key(lens, model))
        old = store.load_bundle(spec.id)
        if old is not None and not settings.force and old.meta.fingerprint == fp:
            note = f" ({fetched.note})" if fetched.note else ""
            out.status, out.message = "cached", "unchanged since last run" + note
            out.words, out.pages = old.meta.words, old.meta.pages
            return out
        text = store.get_text(fetched.sha256, settings.engine)
        data = Path(fetched.path).read_bytes() if ship_source else None
        task = Task(spec.id, str(fetched.path), settings, lexicon, lens, text=text, data=data, model=model)
        return Planned(spec, yaml_path, fetched, fp, task, out, t0, time.perf_counter() - t0)
    except (fetch.FetchError, ExtractionError) as exc:
        out.status, out.message = "failed", str(exc)
    except OSError as exc:  # reading the source or writing the store: one line, no traceback
        out.status, out.message = "failed", os_error_line(exc)
    except Exception as exc:
        out.status, out.message = "failed", f"internal error ({type(exc).__name__}: {exc})"
    finally:
        out.seconds = time.perf_counter() - t0
    return out


def os_error_line(exc: OSError) -> str:
    """An OSError of a stage as one line for the user: what failed and that the last good results stay."""
    name = Path(exc.filename).name if isinstance(exc.filename, str) and exc.filename else ""
    where = f" ({name})" if name else ""
    return f"cannot read or write a file{where}: {describe_os_error(exc)}; earlier results are kept"


def finish(p: Planned, result: Result, store: Store) -> Outcome:
    """Driver side, after the work: store the text and bundle of a good result; never erase the last good one."""
    out, spec = p.out, p.spec
    out.peak_mb = result.peak_mb
    out.seconds = p.plan_seconds + result.seconds
    note = f" ({p.fetched.note})" if p.fetched.note else ""
    try:
        if not isinstance(result, Done):
            out.status, out.message = "failed", result.message
            return out
        c: Computed = result.value
        if c.error is not None:
            out.status, out.message = "failed", c.error
            return out
        assert c.result is not None
        t1 = time.perf_counter()
        if c.doc is not None:
            store.put_text(p.fetched.sha256, p.task.settings.engine, c.doc)
        meta = Meta(
            report_id=spec.id,
            spec=spec.model_dump(mode="json", by_alias=True),
            yaml_path=str(p.yaml_path),
            fingerprint=p.fingerprint,
            sha256=p.fetched.sha256,
            origin=p.fetched.origin,
            final_url=p.fetched.final_url,
            kind=c.kind,
            engine=c.engine,
            pages=c.pages,
            words=c.result.words["all"],
            word_rule=c.result.word_rule,
            notes=tuple(c.notes),
            ingested_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        )
        # A changed source for the same id (a revised report): keep the older reading as history.
        history.keep_if_changed(store, store.load_bundle(spec.id), p.fetched.sha256)
        store.save_bundle(spec.id, Bundle.of(meta, c.result))
        out.words, out.pages = meta.words, meta.pages
        warnings = "".join(f"; {n}" for n in c.notes if n.startswith(TRUNCATED))  # text cut by a cap
        out.message = ("extracted with " + c.engine if c.doc is not None else "text from cache") + note + warnings
        out.message += status_note(c.result.results)
        out.seconds += time.perf_counter() - t1
    except OSError as exc:  # e.g. a full disk while the text or bundle is written (atomic: nothing half-written)
        out.status, out.message = "failed", os_error_line(exc)
    except Exception as exc:
        out.status, out.message = "failed", f"internal error ({type(exc).__name__}: {exc})"
    return out


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
) -> list[Outcome]:
    """Plan each report in the driver, run the work on the executor, finish in the driver; keep input order.

    `written` collects the reports whose bundle or status file was written (what the tables must take in).

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

    def on_start(key: object) -> None:
        nonlocal started
        started += 1
        if started == 1 and len(order) > 1 and executor.forks_here():
            # Jobs are forked from this process: compile the cues here, once, while the first
            # job runs, so every later job inherits them (the first compiles its own).
            warm_caches(lexicon, lens)
        if key == order[-1] and meanwhile is not None:
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


def yaml_stat(reports_dir: str | Path, paths: Iterable[str | Path] = ()) -> dict[str, tuple[int, int, int]]:
    """(size, mtime, inode) of every report file of the folder and of `paths`: one directory scan, no read."""
    out: dict[str, tuple[int, int, int]] = {}
    try:
        entries = [e for e in os.scandir(reports_dir) if e.name.endswith((".yaml", ".yml"))]
    except OSError:
        entries = []
    for e in entries:
        with contextlib.suppress(OSError):
            s = e.stat()
            out[str(Path(e.path))] = (s.st_size, s.st_mtime_ns, s.st_ino)
    for p in map(str, paths):
        with contextlib.suppress(OSError):
            s = os.stat(p)
            out.setdefault(str(Path(p)), (s.st_size, s.st_mtime_ns, s.st_ino))
    return out


class _TablesPrep:
    """What the table update needs besides the bundles — the whole folder's registry, the tables
    key, the table builder's modules — worked out once, while the last jobs run."""

    #: Reports written in this run above which the early scan of stamps is not worth refreshing.
    REFRESH_MAX = 256

    def __init__(self, store: Store, registry: Registry, files: object, reports_dir: str | Path, dims: set[str], cache: Path,
                 key_extra: str, lexicon: Lexicon, seen: dict[str, tuple[int, int, int]] | None = None) -> None:  # fmt: skip
        self.store = store
        self.args = (registry, files, reports_dir, dims, cache, key_extra, lexicon)
        self.full: Roster | None = None
        self.key = ""
        self._scan: threading.Thread | None = None
        self._stamps: dict[str, str] | None = None
        #: Report files as they were before the run read them (`seen` when the caller took it earlier).
        self._seen: dict[str, tuple[int, int, int]] = dict(seen or {})
        self.from_disk = False

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
        from ingest.store import tables  # noqa: F401  (pyarrow: about 0.3 s of CPU, overlapping the jobs)

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
        if files is not None or self.from_disk or not self._seen:
            self._seen = self._yaml_stat()  # before reading: an edit during the read shows as a change
        # Tables always cover the whole reports folder, not just the files named on the command line;
        # the folder's specs are made only for the reports whose rows are rebuilt (see `Roster`).
        if files is None and not self.from_disk:
            full = Roster.of(registry)
        else:
            full = load_roster(reports_dir, known_dimensions=dims, cache=cache)
        for spec in registry.reports:
            if spec.id not in full.paths:  # (a named file outside the folder)
                full.add(spec, registry.paths[spec.id], registry.spec_json(spec))
        self.key = tables_key(full, lexicon, key_extra)
        self.full = full


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
    lexicon = load_lexicon(settings.lexicon_path)
    lens = load_lens(settings.lens_path)
    # `curated:` keys must be dimensions of some lens (a typo fails loudly, another lens' cells still load).
    dims = known_dimensions(LENS_DIR) | set(lens.ids)
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
    # Always from the whole folder, so a run of a few files scores with the same model as a full run.
    every = registry if files is None else load_registry(reports_dir, known_dimensions=dims, cache=cache)
    model = run_model(every.reports, store, lens)
    prep = _TablesPrep(store, registry, files, reports_dir, dims, cache, lens_key(lens, model), lexicon, seen)
    written: set[str] = set()
    outs = _ingest_all(items, store, lexicon, settings, lens, progress, page_progress, prep, written, model)
    result.outcomes.extend(outs)
    prep.load()  # (done already, unless no report needed a job)
    assert prep.full is not None
    # The tables take in written bundles and statuses; an unchanged re-run wrote none (see `_record`),
    # and then only a change of the YAML files, lexicon or lens (the tables key) rebuilds them.
    changed = bool(written) or any(o.status == "ok" for o in result.outcomes)
    # Outcomes wrote their status (and maybe their bundle) after the early scan of the stamps.
    stamps = prep.stamps(o.report_id for o in result.outcomes)
    if changed or store.tables_key() != prep.key or prep.yaml_changed():
        from ingest.store.tables import rebuild_tables  # pyarrow is imported only when tables are rebuilt

        with store.lock():
            behind = store.behind_token()
            # A YAML edited since this run read the folder (a Review decision saved meanwhile, whose
            # own rebuild may already be done) is read again here, under the lock: the tables
            # written below never take an older view of a report file than the last rebuild did.
            if prep.refresh_if_changed():
                stamps = None
            assert prep.full is not None
            rebuild_tables(store, prep.full, lens, stamps=stamps)
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
