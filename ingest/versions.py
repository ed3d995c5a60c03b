"""Versions of a report: read a version declared in `versions:` and pair two readings for a diff.

A declared version (arXiv v1, a dated URL, an older file) is fetched with the same rules as any
source (host, size and confinement limits; the download cache), read by a worker process under
the same time and memory limits as ingest, and kept in the report's history
(`ingest.store.history`) — never as the report's current bundle. Readings the pipeline archived
on its own (a re-ingest that found a changed source) are listed alongside.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from ingest.analysis.confidence import Model
from ingest.analysis.lens import Lens
from ingest.analysis.lexicon import Lexicon
from ingest.common.records import Bundle, Meta
from ingest.outputs.diff import Reading
from ingest.pipeline_settings import Settings
from ingest.pipeline_steps import Computed, Task, compute, fingerprint, lens_key
from ingest.run.executor import LocalExecutor
from ingest.run.jobs import Done, Job
from ingest.sources import fetch
from ingest.sources.schema import ReportSpec, SourceVersion
from ingest.store import history
from ingest.store.store import Store


class VersionError(Exception):
    """A version cannot be read or found; the message is meant for the user."""


@dataclass(frozen=True)
class Context:
    """What reading a version needs: the report, where its YAML is, the store and the pipeline's settings."""

    spec: ReportSpec
    yaml_path: Path
    store: Store
    settings: Settings
    lexicon: Lexicon
    lens: Lens | None
    model: Model | None = None  # the confidence model of a run over the reports folder (see pipeline.run)


def declared_origins(spec: ReportSpec) -> dict[str, str]:
    """Origin of each declared version (as `Fetched.origin` names it) -> its label."""
    out: dict[str, str] = {}
    for v in spec.versions:
        if v.url:
            out[v.url] = v.label
        if v.path:
            out[f"path:{v.path}"] = v.label
    return out


def labels(store: Store, spec: ReportSpec) -> dict[str, str]:
    """`declared_origins`, plus the current reading labelled by the report's own date (`released:`)
    when no declared version names its source: the date a reader knows the version by, not the day
    it happened to be ingested."""
    out = declared_origins(spec)
    current = store.load_bundle(spec.id)
    sha = current.meta.sha256 if current is not None else None
    if spec.released and sha and sha not in out and (current.meta.origin or "") not in out:  # type: ignore[union-attr]
        out[sha] = spec.released.isoformat()
    return out


@dataclass(frozen=True)
class Listed:
    """One version as `diff --list` shows it; `sha256` is empty for a declared version not read yet."""

    label: str
    sha256: str
    date: str  # the version's own date when known (declared `date:`, `released:`), else the day it was read
    dated: str  # where `date` comes from: "declared", "released" or "read"
    current: bool
    origin: str

    def line(self) -> str:
        sha = self.sha256[:12] or "not read yet"
        when = f"{self.date or '-'} ({self.dated})"
        return f"{self.label:<14} {sha:<12}  {when:<21}  {'current ' if self.current else ''}{self.origin}".rstrip()


def listing(store: Store, spec: ReportSpec) -> list[Listed]:
    """Every version of the report: the stored readings oldest first, then declared versions not read
    yet (`diff ID` reads them)."""
    by_label = {v.label: v for v in spec.versions}
    found = history.versions(store, spec.id, labels(store, spec))
    out = []
    for v in found:
        decl = by_label.get(v.label)
        if decl is not None and decl.date:
            date, dated = decl.date.isoformat(), "declared"
        elif v.current and spec.released:
            date, dated = spec.released.isoformat(), "released"
        else:
            date, dated = v.ingested_at[:10], "read"
        out.append(Listed(v.label, v.sha256, date, dated, v.current, v.origin))
    seen = {x.label for x in out}
    for decl in spec.versions:
        if decl.label not in seen:
            where = decl.url or f"path:{decl.path}"
            out.append(Listed(decl.label, "", decl.date.isoformat() if decl.date else "", "declared", False, where))
    return out


def read_version(ctx: Context, version: SourceVersion) -> Bundle:
    """The reading of a declared version: from the history when its source is unchanged, else read now."""
    try:
        fetched = fetch.locate(
            version.source(),
            ctx.yaml_path.parent,
            ctx.store.http_dir,
            offline=ctx.settings.offline,
            settings=ctx.settings.fetch_settings,
            roots=ctx.settings.source_roots,
        )
    except fetch.FetchError as exc:
        raise VersionError(f"version {version.label}: {exc}") from exc
    fp = fingerprint(fetched.sha256, ctx.lexicon, ctx.settings, extra=lens_key(ctx.lens, ctx.model))
    for known in (history.load(ctx.store, ctx.spec.id, fetched.sha256), ctx.store.load_bundle(ctx.spec.id)):
        if known is not None and known.meta.sha256 == fetched.sha256 and known.meta.fingerprint == fp:
            if known.meta.origin != fetched.origin:  # label it by this version's origin in the history
                known = Bundle(
                    Meta(**{**_meta_fields(known.meta), "origin": fetched.origin}),
                    known.sections,
                    known.counts,
                    known.kwic,
                    known.annotation,
                    known.results,
                )
                history.archive(ctx.store, known)
            return known
    text = ctx.store.get_text(fetched.sha256, ctx.settings.engine)
    task = Task(ctx.spec.id, str(fetched.path), ctx.settings, ctx.lexicon, ctx.lens, text=text, model=ctx.model)
    for _, result in LocalExecutor(ctx.settings.limits(), 1).imap_unordered([Job(ctx.spec.id, compute, task)]):
        if not isinstance(result, Done):
            raise VersionError(f"version {version.label}: {result.message}")
        c: Computed = result.value
        if c.error is not None or c.result is None:
            raise VersionError(f"version {version.label}: {c.error}")
        if c.doc is not None:
            ctx.store.put_text(fetched.sha256, ctx.settings.engine, c.doc)
        meta = Meta(
            report_id=ctx.spec.id,
            spec=ctx.spec.model_dump(mode="json", by_alias=True),
            yaml_path=str(ctx.yaml_path),
            fingerprint=fp,
            sha256=fetched.sha256,
            origin=fetched.origin,
            final_url=fetched.final_url,
            kind=c.kind,
            engine=c.engine,
            pages=c.pages,
            words=c.result.words["all"],
            word_rule=c.result.word_rule,
            notes=tuple(c.notes),
            ingested_at=(version.date.isoformat() if version.date else dt.datetime.now(dt.UTC).isoformat(timespec="seconds")),
        )
        bundle = Bundle.of(meta, c.result)
        history.archive(ctx.store, bundle)
        return bundle
    raise VersionError(f"version {version.label}: the worker returned no result")


def _meta_fields(m: Meta) -> dict:
    return {f: getattr(m, f) for f in Meta.__dataclass_fields__}


def pair(ctx: Context, old_key: str | None, new_key: str | None) -> tuple[Reading, Reading]:
    """The two readings to compare: by label, `latest`, `previous` or hash prefix (default: previous, latest).

    A key naming a declared version is read first (fetched and analysed when not in the history);
    without keys every declared version is, so the versions a user declared are the ones compared.
    """
    wanted = {k for k in (old_key, new_key) if k}
    named = labels(ctx.store, ctx.spec)
    for v in ctx.spec.versions:
        if not wanted or v.label in wanted:
            named[read_version(ctx, v).meta.sha256 or ""] = v.label
    found = history.versions(ctx.store, ctx.spec.id, named)
    if len(found) < 2:
        raise VersionError(
            f"{ctx.spec.id} has {len(found)} stored version(s); a diff needs two (declare `versions:` in its YAML, "
            "or re-ingest after the source changed)"
        )
    out = []
    for key, default in ((old_key, "previous"), (new_key, history.LATEST)):
        v = history.find(found, key or default)
        if v is None:
            known = ", ".join(x.label for x in found)
            raise VersionError(f"{ctx.spec.id}: no version {key!r} (known: {known}, latest, previous)")
        b = history.reading(ctx.store, ctx.spec.id, v)
        if b is None:
            raise VersionError(f"{ctx.spec.id}: the stored reading of version {v.label} cannot be read")
        out.append(Reading(v.label, b, ctx.store.get_text(v.sha256, b.meta.engine or ctx.settings.engine)))
    return out[0], out[1]
