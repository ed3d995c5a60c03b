"""Curation: write a review decision or a new source into a report's YAML without losing anything.

The Review page settles automatic cells by writing `curated:` cells, and attaches or replaces a
report's source. Both edit the user's own file, so both go through one round-trip writer
(ruamel.yaml): every other key, its order, its comments and its quoting stay exactly as they were.

Every write is checked before it happens: the file must load strictly before the edit (so a
hostile or broken file is never parsed by the round-trip loader), the edited text must load
strictly again and give back exactly the values meant, and only then is it written atomically
(temp file + rename). A refused decision leaves the file byte for byte unchanged.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from ingest.analysis.lens import NOT_ASSESSED, Lens, known_dimensions, load_lens
from ingest.common.atomic import atomic_write_bytes
from ingest.common.document import magic_kind
from ingest.sources.registry import MAX_YAML_BYTES, SpecError, SpecFileError, load_report, parse_yaml, validation_errors
from ingest.sources.schema import ID_PATTERN, ReportSpec

#: Folder (inside the reports folder) where uploaded source files are kept, as `<id>.<ext>`.
SOURCES_DIR = "sources"
#: An uploaded source larger than this is refused (the same cap as a download).
MAX_UPLOAD_BYTES = 100 * 1024 * 1024
#: Longest note and value a decision may carry (a note is short; a quote is one sentence).
MAX_NOTE = 500
MAX_VALUE = 200
MAX_QUOTE = 2000


@dataclass(frozen=True)
class Decision:
    """One curator decision on one cell, as written into `curated.<dimension>`."""

    dimension: str
    values: list[str]
    note: str
    quote: str | None = None
    page: int | str | None = None
    reviewed: dt.date | None = None


def _yaml() -> YAML:
    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = 4096  # never re-wrap a long line of the user's file
    return y


def _fail(file: Path, field: str, message: str, hint: str = "") -> SpecFileError:
    return SpecFileError([SpecError(str(file), field, message, hint)])


def _clean(text: str | None, limit: int, file: Path, field: str) -> str | None:
    """Strip, refuse control characters and over-long text (a note is one short line of text)."""
    if text is None:
        return None
    t = " ".join(str(text).split())
    if not t:
        return None
    if len(t) > limit:
        raise _fail(file, field, f"too long ({len(t)} characters, at most {limit})", "shorten it")
    if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in t):
        raise _fail(file, field, "contains control characters", "write plain text")
    return t


def check_text(text: str, path: Path, dims: set[str] | None = None) -> ReportSpec:
    """Validate YAML text exactly as `load_report` would validate it at `path` (size, bombs, schema,
    id = file name, curated keys); raise SpecFileError otherwise."""
    name = str(path)
    if len(text.encode("utf-8")) > MAX_YAML_BYTES:
        raise _fail(path, "", "the edited file would be too large", "a report file is a few KB")
    data = parse_yaml(text, name)
    if not isinstance(data, dict):
        raise _fail(path, "", "expected a mapping of fields at the top level")
    try:
        spec = ReportSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecFileError(validation_errors(exc, name)) from exc
    if spec.id != path.stem:
        raise _fail(path, "id", f"id {spec.id!r} does not match the file name")
    if dims is not None:
        unknown = sorted(set(spec.curated) - dims)
        if unknown:
            raise _fail(path, f"curated.{unknown[0]}", "unknown dimension", f"one of: {', '.join(sorted(dims))}")
    return spec


def _edit(path: Path, change, dims: set[str] | None = None) -> ReportSpec:  # type: ignore[no-untyped-def]
    """Load `path` strictly, apply `change(doc)` to its round-trip tree, validate, write atomically.

    Refuses (file unchanged) when the file does not load before, the result does not load after,
    or the file changed on disk while this edit was being made.
    """
    path = Path(path)
    load_report(path, dims)  # strict first: bombs, bad YAML and unknown keys never reach ruamel
    before = path.read_bytes()
    y = _yaml()
    doc = y.load(before.decode("utf-8"))
    change(doc)
    buf = io.StringIO()
    y.dump(doc, buf)
    text = buf.getvalue()
    check_text(text, path, dims)
    if path.read_bytes() != before:
        raise _fail(path, "", "the file changed on disk while it was being edited", "reload and decide again")
    atomic_write_bytes(path, text.encode("utf-8"))
    try:
        return load_report(path, dims)
    except SpecFileError:  # cannot happen after check_text; never leave a broken file behind
        atomic_write_bytes(path, before)
        raise


def _insert_in_schema_order(doc: CommentedMap, key: str, value: object) -> None:
    """Add a top-level key where the schema (and the template) puts it, not always at the end."""
    order = list(ReportSpec.model_fields)
    pos = order.index(key)
    keys = list(doc.keys())
    at = 0
    for i, k in enumerate(keys):
        if k in order and order.index(k) < pos:
            at = i + 1
    doc.insert(at, key, value)


def _decision(
    path: Path,
    lens: Lens,
    dimension: str,
    value: str | list[str],
    note: str | None,
    quote: str | None,
    page: int | str | None,
    today: dt.date | None,
) -> Decision:
    if dimension not in lens.ids:
        raise _fail(path, f"curated.{dimension}", "unknown dimension", f"one of: {', '.join(lens.ids)}")
    raw = [value] if isinstance(value, str) else list(value)
    values = [v for v in (_clean(v, MAX_VALUE, path, f"curated.{dimension}.value") for v in raw) if v]
    if not values:
        raise _fail(path, f"curated.{dimension}.value", "no value given", "accept, pick a category or write a value")
    if any(v.lower() == NOT_ASSESSED for v in values):
        raise _fail(path, f"curated.{dimension}.value", f"{NOT_ASSESSED!r} is not a decision", "use 'not disclosed'")
    if len({v.lower() for v in values}) != len(values):
        raise _fail(path, f"curated.{dimension}.value", "the same value twice")
    dim = lens.dimension(dimension)
    if dim.kind == "level" and len(values) != 1:
        raise _fail(path, f"curated.{dimension}.value", "a level dimension takes exactly one value")
    if isinstance(page, str):
        page = _clean(page, MAX_VALUE, path, f"curated.{dimension}.page")
    if isinstance(page, int) and page < 1:
        raise _fail(path, f"curated.{dimension}.page", "pages are 1-based")
    return Decision(
        dimension=dimension,
        values=values,
        note=_clean(note, MAX_NOTE, path, f"curated.{dimension}.notes") or "reviewed",
        quote=_clean(quote, MAX_QUOTE, path, f"curated.{dimension}.quote"),
        page=page,
        reviewed=today or dt.date.today(),
    )


def _block_map(parent: CommentedMap, key: str, top: bool = False) -> CommentedMap:
    """`parent[key]` as a block-style mapping, created when missing or not a mapping (a new top-level
    key goes where the schema orders it, so the file reads like the template)."""
    m = parent.get(key)
    if not isinstance(m, CommentedMap):
        m = CommentedMap()
        if top and key not in parent:
            _insert_in_schema_order(parent, key, m)
        else:
            parent[key] = m
    m.fa.set_block_style()
    return m


def record_decision(
    yaml_path: str | Path,
    dimension: str,
    value: str | list[str],
    note: str | None = None,
    quote: str | None = None,
    page: int | str | None = None,
    today: dt.date | None = None,
    lens: Lens | None = None,
) -> ReportSpec:
    """Write a curator's decision into `curated.<dimension>` of the report file; return the new spec.

    The cell gets the value (a list for dimensions that may hold several categories), the
    supporting quote and page when given, the note and the review date; keys of an existing cell
    that the decision does not set are kept (its `detail` only while the value is unchanged, since
    it describes the old value). Everything else in the file — keys, order, comments — is kept.
    """
    path = Path(yaml_path)
    lens = lens or load_lens()
    dec = _decision(path, lens, dimension, value, note, quote, page, today)
    multi = lens.dimension(dimension).kind not in ("single", "level")

    def change(doc: CommentedMap) -> None:
        cell = _block_map(_block_map(doc, "curated", top=True), dec.dimension)
        old = cell.get("value")
        old_vals = [old] if isinstance(old, str) else list(old or [])
        if multi:
            seq = CommentedSeq(dec.values)
            seq.fa.set_flow_style()
            new: object = seq
        else:
            new = dec.values[0]
        if [str(v) for v in old_vals] != dec.values:
            cell.pop("detail", None)
        fields: dict[str, object] = {"value": new, "quote": dec.quote, "page": dec.page, "notes": dec.note,
                                     "reviewed": dec.reviewed}  # fmt: skip
        for k, v in fields.items():
            if v is None:
                if k in ("quote", "page"):
                    cell.pop(k, None)  # a quote of the old value would not support the new one
                continue
            cell[k] = v

    dims = known_dimensions() | set(lens.ids)
    spec = _edit(path, change, dims)
    cell = spec.curated[dec.dimension]
    if cell.values != dec.values or cell.notes != dec.note or cell.quote != dec.quote:  # pragma: no cover - guard
        raise _fail(path, f"curated.{dec.dimension}", "the written cell does not read back as decided")
    return spec


def set_source(yaml_path: str | Path, url: str | None = None, path: str | None = None, only: bool = False) -> ReportSpec:
    """Attach or replace the report's `source.url` and/or `source.path`, keeping the rest of the file.

    With `only`, the source becomes exactly what is given (the other key is removed, e.g. a stale
    local file that would otherwise win over a new URL). The schema checks the URL's scheme.
    """
    yp = Path(yaml_path)
    url = _clean(url, 2000, yp, "source.url")
    path = _clean(path, 500, yp, "source.path")
    if not url and not path:
        raise _fail(yp, "source", "give a URL or a file", "upload a file or paste a link")

    def change(doc: CommentedMap) -> None:
        src = _block_map(doc, "source", top=True)
        for k, v in (("url", url), ("path", path)):
            if v:
                src[k] = v
            elif only:
                src.pop(k, None)

    return _edit(yp, change, known_dimensions())


def _upload_ext(name: str, data: bytes) -> str:
    """The stored file's extension, decided by content first (a PDF is a PDF whatever its name)."""
    kind = magic_kind(data[:2048])
    if kind == "pdf":
        return "pdf"
    suffix = Path(name or "").suffix.lower()
    if kind == "html" or suffix in (".html", ".htm"):
        return "html"
    if suffix in (".md", ".markdown", ".txt"):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError("the Markdown file is not UTF-8 text") from exc
        return "md"
    if suffix == ".pdf":
        raise ValueError("not a PDF: it does not start with %PDF-")
    raise ValueError(f"unsupported file type {suffix or '(none)'}; upload a PDF, Markdown (.md) or HTML file")


def store_upload(reports_dir: str | Path, report_id: str, name: str, data: bytes) -> str:
    """Save an uploaded source as `<reports_dir>/sources/<id>.<ext>` atomically; return the path
    relative to the reports folder (what `source.path` holds). The file name is never the user's."""
    if not re.match(ID_PATTERN, report_id):
        raise ValueError(f"invalid report id {report_id!r}")
    if not data:
        raise ValueError("the uploaded file is empty")
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"the file is {len(data):,} bytes, more than the cap of {MAX_UPLOAD_BYTES:,}")
    rel = f"{SOURCES_DIR}/{report_id}.{_upload_ext(name, data)}"
    atomic_write_bytes(Path(reports_dir) / rel, data)
    return rel


class UploadTooLarge(ValueError):
    """An upload over the cap: refused by its announced size, before its bytes are read."""


def upload_bytes(up: object) -> bytes:
    """The bytes of an uploaded file, refused by its size before they are read (or copied)."""
    size = int(getattr(up, "size", 0) or 0)
    if size > MAX_UPLOAD_BYTES:
        raise UploadTooLarge(f"the file is {size:,} bytes, more than the cap of {MAX_UPLOAD_BYTES:,}")
    data = up.getvalue()  # type: ignore[attr-defined]
    if len(data) > MAX_UPLOAD_BYTES:
        raise UploadTooLarge(f"the file is {len(data):,} bytes, more than the cap of {MAX_UPLOAD_BYTES:,}")
    return data
