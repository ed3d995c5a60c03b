"""The pipeline: registry → fetch → extract → sections → keywords → (evidence → annotate) → store.

`ingest_report` runs one report and never raises: every failure becomes an `Outcome` with
a message, and the report's last good bundle stays in place. `run` does a batch and then
rebuilds the tables. Re-runs on unchanged inputs are nearly free: a bundle whose
fingerprint (source hash, lexicon, lens, engine, pipeline version) matches is kept as is.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from . import fetch
from .annotate import ANNOTATE_VERSION, annotate
from .confine import normalise_roots
from .evidence import sentences
from .extract import Document, Engine, ExtractionError, Progress, extract_file
from .keywords import count_keywords
from .lens import DEFAULT_LENS, LENS_DIR, Lens, known_dimensions, load_lens
from .lexicon import DEFAULT_LEXICON, Lexicon, load_lexicon
from .registry import Registry, SpecError, load_registry
from .schema import ReportSpec
from .sections import section_spans, split_sections
from .store import DEFAULT_DATA_DIR, Store
from .textnorm import word_rule

#: Bump when counting/sectioning changes, so stored bundles are recomputed.
PIPELINE_VERSION = 2

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
    #: Download limits for `source.url` (timeouts, size cap, retries, redirects); see ingest/fetch.py.
    fetch_settings: fetch.FetchSettings = field(default_factory=fetch.FetchSettings)
    #: Folders a `source.path` or `file://` URL may lie in (resolved; `run` adds the reports folder).
    source_roots: tuple[Path, ...] = ()

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
        object.__setattr__(self, "data_dir", Path(self.data_dir))
        object.__setattr__(self, "lexicon_path", Path(self.lexicon_path))
        object.__setattr__(self, "lens_path", Path(self.lens_path))


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


def fingerprint(sha256: str, lexicon: Lexicon, settings: Settings, extra: str = "") -> str:
    """Everything a bundle's content depends on, hashed."""
    key = f"{sha256}|{lexicon.fingerprint}|{settings.engine}|{PIPELINE_VERSION}|{extra}"
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def load_document(
    fetched: fetch.Fetched, store: Store, settings: Settings, progress: Progress | None = None
) -> tuple[Document, bool]:
    """Extracted text from the cache (keyed by SHA-256) or by extracting; returns (doc, cache_hit)."""
    doc = store.get_text(fetched.sha256, settings.engine)
    if doc is not None:
        return doc, True
    doc = extract_file(fetched.path, engine=settings.engine, max_pages=settings.max_pages, progress=progress)
    store.put_text(fetched.sha256, settings.engine, doc)
    return doc, False


def analyse(doc: Document, lexicon: Lexicon, lens: Lens | None = None) -> dict:
    """Sections, words, keyword counts and (with a lens) the annotated comparison cells (pure: no I/O)."""
    segments = split_sections(doc)
    rule = word_rule(doc.text)
    kw = count_keywords(segments, lexicon, rule)
    out = {
        "word_rule": rule,
        "words": kw.words,
        "sections": [{**vars(s), "words": kw.words.get(s.section, 0)} for s in section_spans(segments)],
        "counts": kw.counts,
        "kwic": kw.kwic,
    }
    if lens is not None:
        out["annotation"] = annotate(sentences(segments), lens)
    return out


def lens_key(lens: Lens | None) -> str:
    """The lens part of a bundle fingerprint: lens content plus the annotation code version."""
    return f"{lens.fingerprint}|a{ANNOTATE_VERSION}" if lens is not None else ""


def ingest_report(
    spec: ReportSpec,
    yaml_path: Path,
    store: Store,
    lexicon: Lexicon,
    settings: Settings,
    lens: Lens | None = None,
    page_progress: Progress | None = None,
) -> Outcome:
    """Run one report through every stage; never raises, never erases its last good bundle."""
    t0 = time.perf_counter()
    out = Outcome(spec.id, "ok", file=str(yaml_path))
    try:
        if spec.source is None:
            out.status, out.message = "no-source", "no source given: reported figures only"
            # Keep a snapshot of the spec, so a later broken edit of the YAML still shows the report.
            snapshot = {"report_id": spec.id, "spec": spec.model_dump(mode="json", by_alias=True), "yaml_path": str(yaml_path)}
            if (store.load_bundle(spec.id) or {}).get("meta") != snapshot:
                store.save_bundle(spec.id, {"meta": snapshot})
            return out
        fetched = fetch.locate(
            spec.source,
            yaml_path.parent,
            store.http_dir,
            offline=settings.offline,
            settings=settings.fetch_settings,
            roots=settings.source_roots,
        )
        note = f" ({fetched.note})" if fetched.note else ""
        fp = fingerprint(fetched.sha256, lexicon, settings, extra=lens_key(lens))
        old = store.load_bundle(spec.id)
        if old and not settings.force and old.get("meta", {}).get("fingerprint") == fp:
            out.status, out.message = "cached", "unchanged since last run" + note
            out.words, out.pages = old["meta"]["words"], old["meta"]["pages"]
            return out
        doc, hit = load_document(fetched, store, settings, page_progress)
        result = analyse(doc, lexicon, lens)
        meta = {
            "report_id": spec.id,
            "fingerprint": fp,
            "sha256": fetched.sha256,
            "origin": fetched.origin,
            "final_url": fetched.final_url,
            "kind": doc.kind,
            "engine": doc.engine,
            "pages": len(doc.pages),
            "words": result["words"]["all"],
            "word_rule": result["word_rule"],
            "notes": doc.notes,
            "spec": spec.model_dump(mode="json", by_alias=True),
            "yaml_path": str(yaml_path),
            "ingested_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        }
        store.save_bundle(spec.id, {"meta": meta, **{k: v for k, v in result.items() if k not in ("words", "word_rule")}})
        out.words, out.pages = meta["words"], meta["pages"]
        out.message = ("text from cache" if hit else f"extracted with {doc.engine}") + note
    except (fetch.FetchError, ExtractionError) as exc:
        out.status, out.message = "failed", str(exc)
    except Exception as exc:
        out.status, out.message = "failed", f"internal error ({type(exc).__name__}: {exc})"
    finally:
        out.seconds = time.perf_counter() - t0
        status = {**vars(out), "finished_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
        with contextlib.suppress(OSError):
            store.save_status(spec.id, status)
    return out


def run(
    files: Iterable[str | Path] | None = None,
    reports_dir: str | Path = "reports",
    settings: Settings | None = None,
    progress: Callable[[Iterable[tuple[ReportSpec, Path]]], Iterable[tuple[ReportSpec, Path]]] | None = None,
    page_progress: Progress | None = None,
) -> RunResult:
    """Ingest the given report files (or all of `reports_dir`) and rebuild the tables.

    `progress` wraps the list of reports (e.g. a progress bar); `page_progress(done, total)` is
    called while a PDF's pages are read, so a very long document shows progress too.
    """
    settings = settings or Settings()
    # The reports folder is always an allowed source root (issue 8: confinement of sources).
    settings = dataclasses.replace(settings, source_roots=(Path(reports_dir), *settings.source_roots))
    store = Store(settings.data_dir)
    lexicon = load_lexicon(settings.lexicon_path)
    lens = load_lens(settings.lens_path)
    # `curated:` keys must be dimensions of some lens (a typo fails loudly, another lens' cells still load).
    dims = known_dimensions(LENS_DIR) | set(lens.ids)
    registry: Registry = load_registry(reports_dir, files=files, known_dimensions=dims)
    result = RunResult(spec_errors=list(registry.errors))
    by_file: dict[str, list[SpecError]] = {}
    for err in registry.errors:
        by_file.setdefault(err.file, []).append(err)
    for file, errs in by_file.items():
        msg = "; ".join(str(e) for e in errs)
        result.outcomes.append(Outcome(Path(file).stem, "failed", msg, file=file))
    items = [(spec, registry.paths[spec.id]) for spec in registry.reports]
    for spec, path in progress(items) if progress else items:
        result.outcomes.append(ingest_report(spec, path, store, lexicon, settings, lens, page_progress))
    # Tables always cover the whole reports folder, not just the files named on the command line.
    full = registry if files is None else load_registry(reports_dir, known_dimensions=dims)
    for spec in registry.reports:
        if full.get(spec.id) is None:
            full.reports.append(spec)
            full.paths[spec.id] = registry.paths[spec.id]
    changed = any(o.status in ("ok", "failed") for o in result.outcomes)
    key = tables_key(full, lexicon, lens_key(lens))
    if changed or store.tables_key() != key:
        from .tables import rebuild_tables  # pandas is imported only when tables are rebuilt

        with store.lock():
            rebuild_tables(store, full, lens)
            store.set_tables_key(key)
    return result


def tables_key(registry: Registry, lexicon: Lexicon, extra: str = "") -> str:
    """Hash of what the tables depend on besides the bundles: every YAML in view, lexicon, version.

    When no report was (re)computed and this key is unchanged, the stored tables are current and
    a re-run skips rebuilding them — this is what makes a warm re-run nearly free.
    """
    h = hashlib.sha256(f"{PIPELINE_VERSION}|{lexicon.fingerprint}|{extra}".encode())
    for rid in sorted(registry.paths):
        p = registry.paths[rid]
        h.update(f"|{rid}|{p}|".encode())
        try:
            h.update(Path(p).read_bytes())
        except OSError:
            h.update(b"<unreadable>")
    for err in registry.errors:
        h.update(str(err).encode())
    return h.hexdigest()
