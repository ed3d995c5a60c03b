"""Stage 1 — registry: load `reports/*.yaml` strictly, one clear error per broken file.

A broken file never stops the others from loading: `load_registry` returns the good
reports and a list of `SpecError`s, each naming the file, the field and a hint.

The steps live in their own modules: one file read strictly in `spec_file`, the cache of each
file's outcome in `spec_cache`. This module loads a folder and re-exports their public names.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from ingest.common.gcpace import rare_collections
from ingest.common.paths import folder_head
from ingest.sources.guarded_yaml import MAX_ALIASES, MAX_DEPTH, MAX_NODES, MAX_YAML_BYTES
from ingest.sources.schema import ReportSpec
from ingest.sources.spec_cache import CACHE_FORMAT, CACHE_MAX_ENTRIES, CACHE_MIN_FILES, RACY_NS, SpecCache
from ingest.sources.spec_file import (
    SKIP_PREFIX,
    SpecError,
    SpecFileError,
    _check_curated,
    _check_dimensions,
    _read_report,
    load_model,
    load_report,
    parse_yaml,
    read_file,
    validation_errors,
)

__all__ = [
    "CACHE_FORMAT",
    "CACHE_MAX_ENTRIES",
    "CACHE_MIN_FILES",
    "MAX_ALIASES",
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_YAML_BYTES",
    "RACY_NS",
    "SKIP_PREFIX",
    "Registry",
    "Roster",
    "SpecCache",
    "SpecError",
    "SpecFileError",
    "load_model",
    "load_registry",
    "load_report",
    "load_roster",
    "parse_yaml",
    "read_file",
    "report_files",
    "validation_errors",
]


@dataclass
class Registry:
    """The loadable reports, and the files that failed with their errors."""

    reports: list[ReportSpec] = field(default_factory=list)
    paths: dict[str, Path] = field(default_factory=dict)
    errors: list[SpecError] = field(default_factory=list)
    #: Each spec's JSON, made once: the tables key and every report's input key hash it, so a large
    #: registry dumps each spec once, not twice per report. Keyed by the spec object itself (kept alive here), not its id.
    _json: dict[int, tuple[ReportSpec, str]] = field(default_factory=dict, compare=False, repr=False)

    def get(self, report_id: str) -> ReportSpec | None:
        return next((r for r in self.reports if r.id == report_id), None)

    def spec_json(self, spec: ReportSpec) -> str:
        """`spec.model_dump_json(by_alias=True)`, computed once per spec object."""
        hit = self._json.get(id(spec))
        if hit is None or hit[0] is not spec:
            hit = self._json[id(spec)] = (spec, spec.model_dump_json(by_alias=True))
        return hit[1]


def report_files(reports_dir: str | Path) -> list[Path]:
    """The report YAML files of a folder, skipping `_template.yaml` and other `_` files.

    Sorted by name (what sorting the paths gives in one folder; comparing 10,000 Path objects is slow).
    """
    d = Path(reports_dir)
    return [d / n for n in _report_names(d)]


def _report_names(d: Path) -> list[str]:
    try:
        with os.scandir(d) as it:
            return sorted(e.name for e in it if e.name.endswith(".yaml") and not e.name.startswith(SKIP_PREFIX))
    except (FileNotFoundError, NotADirectoryError):
        return []


def _report_paths(reports_dir: str | Path) -> list[str]:
    """`report_files` as strings (`str(d / name)` exactly), without making 10,000 Path objects."""
    head = report_path_head(reports_dir)
    return [head + n for n in _report_names(Path(reports_dir))]


def report_path_head(reports_dir: str | Path) -> str:
    """What `load_roster` puts before a file's name to name a report file of the folder."""
    return folder_head(str(Path(reports_dir)))


def load_registry(
    reports_dir: str | Path | None = None,
    files: Iterable[str | Path] | None = None,
    known_dimensions: set[str] | None = None,
    cache: str | Path | None = None,
) -> Registry:
    """Load every report; collect errors instead of raising, and reject duplicate ids.

    `cache` (a file, e.g. `data/cache/registry.json`) keeps each file's outcome — its validated
    spec or its errors — keyed by path, size, mtime, ctime and inode, so an unchanged folder of
    10,000 files loads without parsing one (see `SpecCache`). Results are the same with or without it.
    """
    return load_roster(reports_dir, files, known_dimensions, cache).registry()


@dataclass
class Roster:
    """The reports of a folder as the table update needs them: ids in order, YAML paths (as
    strings) and each spec's JSON, which the tables key and every report's input key hash.

    A spec *object* is made — validated by the schema — only when asked for (`spec`), so
    `python -m ingest reports/new.yaml` at 10,000 reports validates the specs of the reports whose
    rows it rebuilds, not all 10,000 (a warm load used to spend most of its time there). The
    checks that decide which reports are in — each file's own errors (cached), the `curated:` keys
    against the lenses (on every load) and duplicate ids — are made for every file, as in
    `load_registry`, which is this with every spec made (`registry()`).
    """

    ids: list[str] = field(default_factory=list)
    paths: dict[str, str] = field(default_factory=dict)
    errors: list[SpecError] = field(default_factory=list)
    known_dimensions: set[str] | None = None
    #: Reports whose file has a `curated:` block (known without making their specs: the confidence
    #: refit reads only these).
    curated: set[str] = field(default_factory=set)
    _json: dict[str, str] = field(default_factory=dict, repr=False)
    _specs: dict[str, ReportSpec] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, registry: Registry) -> Roster:
        """The roster of an already loaded registry (every spec made)."""
        out = cls(errors=list(registry.errors))
        for spec in registry.reports:
            out.add(spec, registry.paths.get(spec.id, ""), registry.spec_json(spec))
        return out

    def add(self, spec: ReportSpec, path: str | Path, spec_json: str | None = None) -> None:
        self.ids.append(spec.id)
        if spec.curated:
            self.curated.add(spec.id)
        self.paths[spec.id] = str(path)
        self._specs[spec.id] = spec
        if spec_json is not None:
            self._json[spec.id] = spec_json

    def spec_json(self, report_id: str) -> str:
        """`spec.model_dump_json(by_alias=True)` of the report (from the cache when it came from there)."""
        js = self._json.get(report_id)
        if js is None:
            js = self._json[report_id] = self._specs[report_id].model_dump_json(by_alias=True)
        return js

    def spec(self, report_id: str) -> ReportSpec:
        """The report's validated spec (made on first use; raises SpecFileError in the one case the
        cached JSON fails the schema — an altered cache — and the file itself no longer loads)."""
        spec = self._specs.get(report_id)
        if spec is None:
            spec = self._specs[report_id] = self._made(report_id, _validated(self._json[report_id], report_id))
        return spec

    def _made(self, report_id: str, spec: ReportSpec | None) -> ReportSpec:
        """`spec` when it is valid here, else the report read from its file again (not trusting the cache)."""
        path = self.paths[report_id]
        if spec is not None:
            try:
                _check_dimensions(spec, path, self.known_dimensions)
                return spec
            except SpecFileError:
                pass
        return load_report(path, self.known_dimensions)

    def registry(self) -> Registry:
        """Every spec made (in one validation pass), as a `Registry`."""
        with rare_collections():  # 10,000 new objects would trigger collections of the caller's whole heap
            return self._registry()

    def _registry(self) -> Registry:
        pending = [rid for rid in self.ids if rid not in self._specs]
        reg = Registry(errors=list(self.errors))
        for rid, spec in zip(pending, _validated_many([self._json[rid] for rid in pending], pending), strict=True):
            try:
                self._specs[rid] = self._made(rid, spec)
            except SpecFileError as exc:  # (an altered cache, and the file no longer loads either)
                reg.errors.extend(exc.errors)
        folders: dict[str, Path] = {}
        for rid in self.ids:
            spec = self._specs.get(rid)
            if spec is None:
                continue
            reg.reports.append(spec)
            reg.paths[rid] = _as_path(self.paths[rid], folders)
            if rid in self._json:
                reg._json[id(spec)] = (spec, self._json[rid])
        return reg


def _as_path(path: str, folders: dict[str, Path]) -> Path:
    """`Path(path)`, joined to its folder's Path made once (parsing 10,000 whole paths is slow)."""
    head, _, name = path.rpartition(os.sep)
    if not head or not name:
        return Path(path)
    folder = folders.get(head)
    if folder is None:
        folder = folders[head] = Path(head)
    return folder / name


@functools.cache
def _specs_adapter() -> TypeAdapter:
    return TypeAdapter(list[ReportSpec])


def _validated(spec_json: str, report_id: str) -> ReportSpec | None:
    """A cached spec, validated by the schema; None when it fails (or is another report's)."""
    try:
        spec = ReportSpec.model_validate_json(spec_json)
    except ValidationError:
        return None
    return spec if spec.id == report_id else None


def _validated_many(jsons: list[str], ids: list[str]) -> list[ReportSpec | None]:
    """`_validated` of many specs in one pass from JSON (one at a time only when some spec fails)."""
    if not jsons:
        return []
    try:
        specs = _specs_adapter().validate_json("[" + ",".join(jsons) + "]")
    except ValidationError:
        return [_validated(js, rid) for js, rid in zip(jsons, ids, strict=True)]
    return [s if s.id == rid else None for s, rid in zip(specs, ids, strict=True)]


def load_roster(
    reports_dir: str | Path | None = None,
    files: Iterable[str | Path] | None = None,
    known_dimensions: set[str] | None = None,
    cache: str | Path | None = None,
    stats: Mapping[str, os.stat_result] | None = None,
) -> Roster:
    """`load_registry` without making the specs of cached files (see `Roster`); same arguments.

    `stats`: the report files' `os.stat` the caller took already, by path as named here (see
    `report_path_head`), which the cache lookup then uses in place of its own."""
    paths = [str(Path(f)) for f in files] if files is not None else _report_paths(reports_dir or "reports")
    store, cached = None, {}
    if cache is not None and len(paths) > CACHE_MIN_FILES:
        with rare_collections():  # 10,000 new objects would trigger collections of the caller's whole heap
            store = SpecCache.open(cache)
            cached = store.lookup(paths, stats)
    roster = Roster(known_dimensions=known_dimensions)
    for i, path in enumerate(paths):
        hit = cached.get(i)
        spec = None
        try:
            if hit is None:
                spec = store.load(Path(path), _read_report) if store is not None else _read_report(Path(path))
                _check_dimensions(spec, path, known_dimensions)
                rid = spec.id
            elif hit.errors:
                raise SpecFileError([SpecError(path, f, m, h) for f, m, h in hit.errors])
            else:
                _check_curated(hit.curated, path, known_dimensions)
                rid = hit.report_id
        except SpecFileError as exc:
            roster.errors.extend(exc.errors)
            continue
        if rid in roster.paths:
            roster.errors.append(SpecError(path, "id", f"duplicate id {rid!r} (also in {roster.paths[rid]})"))
            continue
        roster.ids.append(rid)
        roster.paths[rid] = path
        if spec.curated if spec is not None else hit.curated if hit is not None else None:
            roster.curated.add(rid)
        if spec is not None:
            roster._specs[rid] = spec
        js = hit.spec_json if hit is not None else store.spec_json(path) if store is not None else None
        if js is not None:
            roster._json[rid] = js
    if store is not None:
        folder = Path(reports_dir or "reports") if files is None else None
        store.save(scanned=folder)
    return roster
