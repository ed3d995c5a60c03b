"""The three steps of one report: `plan` (driver), `compute` (worker), `finish` (driver).

* `plan`: fetch/locate the source, check the fingerprint, load cached text → a `Task`;
* `compute`: extract and analyse — pure, picklable in and out (see `ingest.run.executor`);
* `finish`: write the text cache, the bundle and the status. Workers never write the store.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import pickle
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ingest.analysis.annotate import ANNOTATE_VERSION, annotate
from ingest.analysis.confidence import Model, load_model
from ingest.analysis.evidence import sentences
from ingest.analysis.keywords import count_keywords
from ingest.analysis.lens import Lens
from ingest.analysis.lexicon import Lexicon
from ingest.analysis.results import read_results, results_key, status_note
from ingest.common.atomic import describe_os_error
from ingest.common.document import EXTRACTOR_VERSION, TRUNCATED, Document, ExtractionError
from ingest.common.records import Analysis, Bundle, Meta, SectionRow
from ingest.pipeline_settings import PIPELINE_VERSION, Outcome, Settings, download_settings
from ingest.reading.extract import KeptPages, Progress, extract_file
from ingest.reading.sections import section_spans, split_sections
from ingest.reading.textnorm import word_rule
from ingest.run.isolate import isolate
from ingest.run.jobs import Done, Result
from ingest.run.warm import warm_lens, warm_lexicon, warm_lexicon_of
from ingest.sources import fetch
from ingest.sources.schema import ReportSpec
from ingest.store import history
from ingest.store.store import Store


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

    def __reduce__(self) -> tuple:
        """Pickled with the lexicon and lens as (fingerprint, pickled content), the content pickled once
        per run: a worker that has the same content warm already (the worker server's, see
        `ingest.run.warm`) takes its own object, and only another one (a Dask worker) unpickles it.
        Each job's task otherwise cost 2 ms to pickle and 3 ms to unpickle, for the same lens every time."""
        state = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        state["lexicon"] = _shipped(self.lexicon)
        state["lens"] = _shipped(self.lens) if self.lens is not None else None
        return (_task_of, (state,))


#: Each lexicon and lens pickled once in this process: id -> (the object, its fingerprint and bytes).
_SHIPPED: dict[int, tuple[object, tuple[str, bytes]]] = {}


def _shipped(obj: Lexicon | Lens) -> tuple[str, bytes]:
    got = _SHIPPED.get(id(obj))
    if got is None or got[0] is not obj:
        if len(_SHIPPED) >= 8:
            _SHIPPED.clear()
        got = _SHIPPED[id(obj)] = (obj, (obj.fingerprint, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)))
    return got[1]


def _task_of(state: dict) -> Task:
    """A `Task` unpickled (see `Task.__reduce__`)."""
    fp, blob = state["lexicon"]
    state["lexicon"] = warm_lexicon_of(fp) or pickle.loads(blob)
    if state["lens"] is not None:
        fp, blob = state["lens"]
        state["lens"] = warm_lens(fp) or pickle.loads(blob)
    return Task(**state)


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
            kept = None
            if doc is None and settings.engine == "pdfium":
                from ingest.analysis.results_pdf import may_hold_table  # the PDF half: not in a driver

                kept = KeptPages(may_hold_table)
            try:
                if doc is None:
                    doc = extract_file(path, engine=settings.engine, max_pages=settings.max_pages, progress=progress, keep=kept)
                # The lexicon this process compiled already, when it is the same (the task's copy came pickled).
                result = analyse(doc, warm_lexicon(task.lexicon), task.lens, path, kept, task.model)
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
            isolate=isolate,
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
