"""Stage 1 — registry: load `reports/*.yaml` strictly, one clear error per broken file.

A broken file never stops the others from loading: `load_registry` returns the good
reports and a list of `SpecError`s, each naming the file, the field and a hint.
"""

from __future__ import annotations

import difflib
import functools
import gc
import hashlib
import json
import os
import re
import stat
import tempfile
import time
import typing
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, TypeAdapter, ValidationError

from ingest.sources import schema
from ingest.sources.schema import ReportSpec

#: Files in `reports/` that are not reports (templates, drafts).
SKIP_PREFIX = "_"
#: A report YAML larger than this is refused before parsing (defends against YAML bombs too).
MAX_YAML_BYTES = 256 * 1024

#: Field -> (message, hint) for a value that fails the field's pattern: readable rules, not regexes.
_PATTERN_RULES = {
    "id": (
        "must be 1 to 64 characters: lowercase letters, digits, '.', '_' and '-', starting with a letter or digit",
        "e.g. kimi-k1.5 (it becomes a file name)",
    ),
    "arxiv_id": ("must be an arXiv identifier: four digits, a dot, four or five digits", 'e.g. "2508.06471" (quoted)'),
}

_HINTS = {
    "extra_forbidden": "unknown key; check its spelling against {doc}",
    "missing": "this field is required; see {doc}",
    "literal_error": "use one of the allowed values",
    "string_pattern_mismatch": "lowercase letters, digits, '.', '_' and '-' only (it becomes a file name)",
    "date_from_datetime_parsing": "write dates as YYYY-MM-DD",
    "date_parsing": "write dates as YYYY-MM-DD",
    "date_type": "write dates as YYYY-MM-DD",
    "int_parsing": "write a whole number without separators, e.g. 28771",
    "int_type": "write a whole number without separators, e.g. 28771",
    "string_type": "write text (quote it if it looks like a number or date)",
    "dict_type": "this must be a mapping of `key: value` lines",
    "list_type": "this must be a list, e.g. [a, b]",
    "model_type": "this must be a mapping of `key: value` lines",
}


@dataclass(frozen=True)
class SpecError:
    """Why one report file could not be loaded."""

    file: str
    field: str
    message: str
    hint: str = ""

    def __str__(self) -> str:
        where = f"{self.file}: {self.field}" if self.field else self.file
        return f"{where}: {self.message}" + (f" (hint: {self.hint})" if self.hint else "")


class SpecFileError(Exception):
    """Raised by `load_report`; carries every problem found in the file."""

    def __init__(self, errors: list[SpecError]):
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = errors


@dataclass
class Registry:
    """The loadable reports, and the files that failed with their errors."""

    reports: list[ReportSpec] = field(default_factory=list)
    paths: dict[str, Path] = field(default_factory=dict)
    errors: list[SpecError] = field(default_factory=list)
    #: Each spec's JSON, made once: the tables key and every report's input key hash it (10,000
    #: dumps cost about 0.1 s). Keyed by the spec object itself (kept alive here), not its id.
    _json: dict[int, tuple[ReportSpec, str]] = field(default_factory=dict, compare=False, repr=False)

    def get(self, report_id: str) -> ReportSpec | None:
        return next((r for r in self.reports if r.id == report_id), None)

    def spec_json(self, spec: ReportSpec) -> str:
        """`spec.model_dump_json(by_alias=True)`, computed once per spec object."""
        hit = self._json.get(id(spec))
        if hit is None or hit[0] is not spec:
            hit = self._json[id(spec)] = (spec, spec.model_dump_json(by_alias=True))
        return hit[1]


#: libyaml's C parser when PyYAML has it (about 10x faster than the pure-Python one); same safe constructor.
_SafeBase: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeyLoader(_SafeBase):  # type: ignore[misc, valid-type]
    """Safe loader that rejects duplicate keys (yaml silently keeps the last one)."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: set = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return yaml.constructor.SafeConstructor.construct_mapping(loader, node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


#: Aliases allowed in one file; a "billion laughs" bomb needs many more.
MAX_ALIASES = 20
#: Nesting allowed in one file; PyYAML's composer recurses, so `[[[[…]]]]` would exhaust the stack.
MAX_DEPTH = 50
#: Scalars and collections allowed in one file: a report has a few hundred; 256 KB of `[1,1,1,…]`
#: would be 120,000 (3 s and tens of MB to build), so parsing stops counting well before that.
MAX_NODES = 20_000


class _BudgetError(ValueError):
    """The YAML is shaped like an attack (alias bomb, deep nesting), not like a report."""


def _check_alias_budget(text: str) -> None:
    """Refuse YAML that uses many aliases ("billion laughs") or deep nesting; reports never need them.

    Scans parser events (the parser is not recursive), before anything is composed.
    """
    aliases = depth = nodes = 0
    try:
        for ev in yaml.parse(text, Loader=_SafeBase):  # lazily: a refused file is never parsed to its end
            nodes += 1
            if nodes > MAX_NODES:
                raise _BudgetError(f"too many YAML values (more than {MAX_NODES:,})")
            aliases, depth = _budget_step(ev, aliases, depth)
    except yaml.YAMLError as exc:  # libyaml stops at its own nesting limit before ours
        if "nesting depth" in str(exc):
            raise _BudgetError(f"YAML nested too deeply (more than {MAX_DEPTH} levels)") from exc
        raise


def _budget_step(ev: yaml.Event, aliases: int, depth: int) -> tuple[int, int]:
    """Count one parser event against the alias and depth budgets."""
    if isinstance(ev, yaml.AliasEvent):
        aliases += 1
        if aliases > MAX_ALIASES:
            raise _BudgetError(f"too many YAML aliases (more than {MAX_ALIASES})")
    elif isinstance(ev, yaml.CollectionStartEvent):
        depth += 1
        if depth > MAX_DEPTH:
            raise _BudgetError(f"YAML nested too deeply (more than {MAX_DEPTH} levels)")
    elif isinstance(ev, yaml.CollectionEndEvent):
        depth -= 1
    return aliases, depth


def parse_yaml(text: str, file: str) -> object:
    """`yaml.safe_load` with size, duplicate-key and alias-bomb protection; errors become SpecFileError.

    The size cap comes first, before a single character is parsed: pasted text or an upload of
    20 MB would otherwise cost minutes and gigabytes in the parser before any later check.
    """
    if len(text) > MAX_YAML_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_YAML_BYTES:
        raise SpecFileError(
            [SpecError(file, "", f"file too large (more than {MAX_YAML_BYTES:,} bytes)", "a report file is a few KB")]
        )
    try:
        _check_alias_budget(text)
        return yaml.load(text, Loader=_UniqueKeyLoader)
    except _BudgetError as exc:
        raise SpecFileError([SpecError(file, "", str(exc), "remove anchors (&), aliases (*) and deep nesting")]) from exc
    except ValueError as exc:  # e.g. PyYAML's date constructor on `released: 2026-13-45`
        raise SpecFileError([SpecError(file, "", f"invalid value: {exc}", "write dates as YYYY-MM-DD")]) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        ctx = getattr(exc, "context_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        if mark and ctx and ctx.line != mark.line:  # e.g. an unclosed quote: the error shows where it began
            where += f" (the construct starts at line {ctx.line + 1})"
        problem = getattr(exc, "problem", None) or str(exc)
        raise SpecFileError(
            [SpecError(file, where, f"invalid YAML: {problem}", "check indentation and quoting (':' in text needs quotes)")]
        ) from exc


def _field_name(loc: Iterable) -> str:
    return ".".join("from" if p == "from_" else str(p) for p in loc)


def _key_names(model: type[BaseModel], seen: set[type] | None = None) -> set[str]:
    """Every key a model and the models inside it accept (field names and aliases)."""
    seen = seen if seen is not None else set()
    if model in seen:
        return set()
    seen.add(model)
    out: set[str] = set()
    stack: list[object] = []
    for name, f in model.model_fields.items():
        out |= {name, *(a for a in (f.alias,) if a)}
        stack.append(f.annotation)
    while stack:
        t = stack.pop()
        if isinstance(t, type) and issubclass(t, BaseModel):
            out |= _key_names(t, seen)
        else:
            stack.extend(typing.get_args(t))
    return out


def validation_errors(
    exc: ValidationError, file: str, doc: str = "reports/_template.yaml", model: type[BaseModel] | None = ReportSpec
) -> list[SpecError]:
    """Turn pydantic's errors into SpecErrors with a hint per error type; `doc` names where the format is documented.

    An unknown key gets the nearest valid key of `model` as its hint (`sorce` -> `source`).
    """
    out = []
    names = sorted(_key_names(model)) if model is not None else []
    for err in exc.errors():
        msg = err["msg"]
        hint = _HINTS.get(err["type"], "").format(doc=doc)
        if err["type"] == "string_pattern_mismatch":  # the rule in words, never the raw regex
            key = str(err["loc"][-1]) if err["loc"] else ""
            msg, hint = _PATTERN_RULES.get(key, ("does not have the expected form", hint))
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
            near = difflib.get_close_matches(str(err["loc"][-1]), names, n=1, cutoff=0.6) if err["loc"] else []
            if near:
                hint = f"did you mean `{near[0]}`? (the valid keys are in {doc})"
        out.append(SpecError(file, _field_name(err["loc"]), msg, hint))
    return out


M = TypeVar("M", bound=BaseModel)


def load_model(path: str | Path, model: type[M], what: str, doc: str) -> M:
    """Read a YAML data file (lexicon, lens) into a strict model; every failure is a SpecFileError
    naming the file, the field and a hint that points at `doc`, where the format is described."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecFileError([SpecError(str(p), "", f"cannot read {what}: {exc.strerror or exc}", "check the path")]) from exc
    data = parse_yaml(text, str(p))
    if not isinstance(data, dict):
        raise SpecFileError([SpecError(str(p), "", "expected a mapping at the top level", f"see {doc}")])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errs = validation_errors(exc, str(p), doc, model)
        raise SpecFileError([e if e.hint else SpecError(e.file, e.field, e.message, f"see {doc}") for e in errs]) from exc


def load_report(path: str | Path, known_dimensions: set[str] | None = None) -> ReportSpec:
    """Load and validate one report file; raise SpecFileError naming file, field and hint.

    `known_dimensions`, when given, restricts the keys of `curated:` to the lens' dimensions.
    """
    spec = _read_report(Path(path))
    _check_dimensions(spec, str(path), known_dimensions)
    return spec


def _read_report(p: Path) -> ReportSpec:
    """Everything `load_report` checks that depends on the file alone (what the cache keeps)."""
    name = str(p)
    try:
        size = p.stat().st_size
        if p.is_dir():
            raise SpecFileError([SpecError(name, "", "is a directory, not a YAML file")])
        if size > MAX_YAML_BYTES:
            raise SpecFileError([SpecError(name, "", f"file too large ({size} bytes)", "a report file is a few KB")])
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise SpecFileError([SpecError(name, "", "file not found")]) from exc
    except UnicodeDecodeError as exc:
        raise SpecFileError([SpecError(name, "", "not UTF-8 text", "save the file as UTF-8")]) from exc
    data = parse_yaml(text, name)
    if not isinstance(data, dict):
        raise SpecFileError([SpecError(name, "", "expected a mapping of fields at the top level", "start with `id: ...`")])
    try:
        spec = ReportSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecFileError(validation_errors(exc, name)) from exc
    if spec.id != p.stem:
        raise SpecFileError(
            [
                SpecError(
                    name, "id", f"id {spec.id!r} does not match the file name", f"rename the file to {spec.id}.yaml or change id"
                )
            ]
        )
    return spec


def _check_dimensions(spec: ReportSpec, name: str, known_dimensions: set[str] | None) -> None:
    """`curated:` keys must be dimensions of a lens (checked on every load: the lenses may change)."""
    _check_curated(spec.curated, name, known_dimensions)


def _check_curated(keys: Iterable[str], name: str, known_dimensions: set[str] | None) -> None:
    if known_dimensions is not None:
        unknown = sorted(set(keys) - known_dimensions)
        if unknown:
            raise SpecFileError(
                [
                    SpecError(name, f"curated.{k}", "unknown dimension", f"one of: {', '.join(sorted(known_dimensions))}")
                    for k in unknown
                ]
            )


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
    d = Path(reports_dir)
    base = str(d)
    names = _report_names(d)
    if base == ".":
        return names
    sep = "" if base.endswith(os.sep) else os.sep
    return [base + sep + n for n in names]


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
        with _no_gc():  # 10,000 new objects would trigger full collections of the caller's whole heap
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
) -> Roster:
    """`load_registry` without making the specs of cached files (see `Roster`); same arguments."""
    paths = [str(Path(f)) for f in files] if files is not None else _report_paths(reports_dir or "reports")
    store, cached = None, {}
    if cache is not None and len(paths) > CACHE_MIN_FILES:
        with _no_gc():  # 10,000 new objects would trigger full collections: half the time of a warm load
            store = SpecCache.open(cache)
            cached = store.lookup(paths)
    roster = Roster(known_dimensions=known_dimensions)
    for i, path in enumerate(paths):
        hit = cached.get(i)
        spec = None
        try:
            if hit is None:
                spec = store.load(Path(path)) if store is not None else _read_report(Path(path))
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
        if spec is not None:
            roster._specs[rid] = spec
        js = hit.spec_json if hit is not None else store.spec_json(path) if store is not None else None
        if js is not None:
            roster._json[rid] = js
    if store is not None:
        folder = Path(reports_dir or "reports") if files is None else None
        store.save(scanned=folder)
    return roster


# ------------------------------------------------------------------------------------ spec cache
#: Bump when the cache file's layout changes (the code that reads reports is hashed in as well).
CACHE_FORMAT = 2
_CACHE_MAGIC = "frl-registry-cache"
#: A file modified this close to the moment it was read may change again within the same mtime tick
#: (same size, same stamp); its outcome is not cached until it is older (git's "racy clean" problem).
RACY_NS = 2_000_000_000
#: Entries kept at most; past this, entries not seen by the current load are dropped.
CACHE_MAX_ENTRIES = 200_000
#: A load of this many files or fewer (e.g. `python -m ingest reports/new.yaml`) parses them directly:
#: cheaper than reading a cache of 10,000 entries.
CACHE_MIN_FILES = 64


@dataclass(frozen=True, slots=True)
class _Entry:
    """One cached file: its stamp, then its report's id, `curated:` keys and spec JSON, or its errors."""

    stamp: tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode
    report_id: str
    curated: tuple[str, ...]
    spec_json: str | None  # `spec.model_dump_json(by_alias=True)` of the validated spec
    errors: tuple[tuple[str, str, str], ...]  # (field, message, hint); the file name is filled in on use
    line: str = ""  # the entry as stored (written back unchanged)

    def to_line(self, key: str) -> str:
        """`"path"<TAB>size mtime ctime inode<TAB>id<TAB>[curated, errors]<TAB>spec JSON` (JSON escapes
        every tab and newline inside the path and the spec; an id has none)."""
        if self.line:
            return self.line
        extra = json.dumps([list(self.curated), [list(e) for e in self.errors]], separators=(",", ":"))
        stamp = " ".join(map(str, self.stamp))
        return "\t".join((json.dumps(key), stamp, self.report_id, extra, self.spec_json or ""))


_ID = re.compile(schema.ID_PATTERN)
_NO_EXTRA = "[[],[]]"


def _stem(path: str) -> str:
    """`Path(path).stem`, quicker for the usual `….yaml`."""
    name = path.rpartition(os.sep)[2]
    return name[:-5] if name.endswith(".yaml") and len(name) > 5 else Path(name).stem


def _extra(text: str) -> tuple[tuple[str, ...], tuple[tuple[str, str, str], ...]]:
    """The `[curated keys, errors]` field of a line; ValueError when it is not that."""
    got = json.loads(text)
    if not (isinstance(got, list) and len(got) == 2 and all(isinstance(x, list) for x in got)):
        raise ValueError("not [curated, errors]")
    curated, errors = got
    if not all(isinstance(c, str) for c in curated):
        raise ValueError("curated keys are not text")
    if not all(isinstance(e, list) and len(e) == 3 and all(isinstance(x, str) for x in e) for e in errors):
        raise ValueError("errors are not [field, message, hint]")
    return tuple(curated), tuple((f, m, h) for f, m, h in errors)


def _parse_line(line: str) -> tuple[str, _Entry] | None:
    """(path, entry) of one stored line; None when it is not a well-formed entry. Made for speed
    (10,000 lines in a run): JSON is decoded only where a value needs it."""
    parts = line.split("\t", 4)
    if len(parts) != 5:
        return None
    k, stamp_text, rid, extra, spec_json = parts
    try:
        key = k[1:-1] if len(k) > 1 and k[0] == k[-1] == '"' and "\\" not in k else json.loads(k)
        stamp = tuple(map(int, stamp_text.split(" ")))
        curated, errors = ((), ()) if extra == _NO_EXTRA else _extra(extra)
    except (ValueError, TypeError):
        return None
    if not isinstance(key, str) or len(stamp) != 4:
        return None
    # a spec (whose id is its file's name, as the schema demands) or errors, never both
    if not (not errors and _ID.match(rid) is not None and rid == _stem(key) if spec_json else errors):
        return None
    entry = _Entry(stamp, rid, curated, spec_json or None, errors, line)  # type: ignore[arg-type]
    return key, entry


@contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector (nothing built here is cyclic garbage)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _stamp(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _code_key() -> str:
    """What a cached outcome depends on besides the file: this module, the schema, the limits, pydantic."""
    import pydantic

    h = hashlib.sha256(f"{CACHE_FORMAT}|{pydantic.VERSION}|{MAX_YAML_BYTES}|{MAX_ALIASES}|{MAX_DEPTH}|{MAX_NODES}|".encode())
    for module in (__file__, schema.__file__):
        h.update(Path(module).read_bytes())
    return h.hexdigest()[:32]


class SpecCache:
    """The outcome of loading each report file, so an unchanged file is never parsed twice.

    One text file: a header line, then one line per file, `[absolute path, size, mtime_ns,
    ctime_ns, inode, id, curated keys, errors]` as JSON, a tab, and the validated spec as
    `model_dump_json` (empty when the file has errors, given as `[field, message, hint]`; the
    file name is filled in on use). The spec stays text until a caller needs the object: a
    `Roster` hashes it as it is, and validates it by the schema when it makes the spec.

    Never trusted blindly: the file carries a format, a hash of the code that reads reports and a
    SHA-256 of its body — anything amiss (corrupt, truncated, older format, other code) and the
    whole cache is ignored and rebuilt — a malformed line is dropped (its file read again), and
    every spec is validated by the schema when it is made (one that fails is read from its file
    again). An entry is used only when its file's size, mtime, ctime and inode are unchanged.
    Errors are kept too, so a broken file reports the same error on every run. Written
    atomically, and only when an entry changed.
    """

    def __init__(self, path: Path, entries: dict[str, _Entry]):
        self.path = path
        self.entries = entries
        self.seen: set[str] = set()
        self.changed = False
        self.started_ns = time.time_ns()
        self._fresh: dict[str, str] = {}  # spec JSON of files parsed by this load, by path as given

    @classmethod
    def open(cls, path: str | Path) -> SpecCache:
        """The cache at `path`, or an empty one when it is missing or unusable."""
        path = Path(path)
        try:
            raw = path.read_bytes()
            head, _, body = raw.partition(b"\n")
            magic, fmt, key, digest = head.decode("ascii").split(" ")
            if magic != _CACHE_MAGIC or fmt != str(CACHE_FORMAT) or key != _code_key():
                raise ValueError("another format or another version of the code")
            if hashlib.sha256(body).hexdigest() != digest:
                raise ValueError("checksum mismatch")
            text = body.decode("utf-8")
        except (OSError, ValueError, UnicodeDecodeError):
            return cls(path, {})
        entries: dict[str, _Entry] = {}
        for line in text.split("\n") if text else ():
            got = _parse_line(line)
            if got is not None:
                entries[got[0]] = got[1]
        return cls(path, entries)

    def lookup(self, paths: list[str]) -> dict[int, _Entry]:
        """Entries of the unchanged files among `paths`, by position."""
        out: dict[int, _Entry] = {}
        for i, name in enumerate(paths):
            key = os.path.abspath(name)
            self.seen.add(key)
            entry = self.entries.get(key)
            if entry is None:
                continue
            try:
                st = os.stat(name)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and entry.stamp == _stamp(st):
                out[i] = entry
        return out

    def spec_json(self, path: str) -> str | None:
        """The spec JSON of a file this load parsed (None when it did not)."""
        return self._fresh.get(path)

    def load(self, path: Path) -> ReportSpec:
        """Parse the report at `path` and cache the outcome; raises SpecFileError."""
        key = os.path.abspath(path)
        self.seen.add(key)
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if st is None or not stat.S_ISREG(st.st_mode):
            return _read_report(path)  # missing, a folder, …: nothing to cache
        try:
            spec = _read_report(path)
        except SpecFileError as exc:
            if all(e.file == str(path) for e in exc.errors):  # (an error naming another file is not this file's)
                errors = tuple((e.field, e.message, e.hint) for e in exc.errors)
                self._put(key, _Entry(_stamp(st), "", (), None, errors), st)
            raise
        js = self._fresh[str(path)] = spec.model_dump_json(by_alias=True)
        self._put(key, _Entry(_stamp(st), spec.id, tuple(spec.curated), js, ()), st)
        return spec

    def _put(self, key: str, entry: _Entry, st: os.stat_result) -> None:
        if st.st_mtime_ns >= self.started_ns - RACY_NS:
            # Too fresh to trust its stamp: read it again next time. (A new file, e.g. the report
            # just added, changes nothing in the cache: 10,000 entries are not rewritten for it.)
            self.changed |= self.entries.pop(key, None) is not None
        else:
            self.entries[key] = entry
            self.changed = True

    def save(self, scanned: Path | None = None) -> None:
        """Write the cache if anything changed; entries of `scanned` (a whole folder) not seen are dropped."""
        if scanned is not None:
            folder = os.path.abspath(scanned)
            gone = [k for k in self.entries if k not in self.seen and os.path.dirname(k) == folder]
            for k in gone:
                del self.entries[k]
            self.changed |= bool(gone)
        if len(self.entries) > CACHE_MAX_ENTRIES:
            self.entries = {k: v for k, v in self.entries.items() if k in self.seen}
            self.changed = True
        if not self.changed:
            return
        body = "\n".join(e.to_line(k) for k, e in self.entries.items()).encode()
        head = f"{_CACHE_MAGIC} {CACHE_FORMAT} {_code_key()} {hashlib.sha256(body).hexdigest()}\n".encode()
        with suppress(OSError):  # a read-only data folder: work uncached
            _atomic_write(self.path, head + body)
        self.changed = False


def _atomic_write(path: Path, data: bytes) -> None:
    """Temp file in the same folder, then `os.replace`: a reader sees the old cache or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
