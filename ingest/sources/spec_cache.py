"""The registry's spec cache: each report file's outcome (its validated spec or its errors),
so an unchanged file is never parsed twice. Results are the same with or without it."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Mapping
from contextlib import suppress
from pathlib import Path
from typing import NamedTuple

import pydantic

from ingest.common.paths import folder_head
from ingest.sources import guarded_yaml, schema, spec_file
from ingest.sources.guarded_yaml import MAX_ALIASES, MAX_DEPTH, MAX_NODES, MAX_YAML_BYTES
from ingest.sources.schema import ReportSpec
from ingest.sources.spec_file import SpecFileError, _read_report

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


class _Entry(NamedTuple):
    """One cached file: its stamp, then its report's id, `curated:` keys and spec JSON, or its errors.
    (A named tuple: 10,000 are made per run, at a fraction of a frozen dataclass's cost.)"""

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


def _parse_lines(text: str) -> dict[str, _Entry]:
    """Every well-formed entry of the cache's body, by path (see `_parse_line`).

    The usual line — a plain path, a spec, no `curated:` keys, no errors — is taken apart here
    with the same checks, in fewer steps (10,000 lines in a run: bench/add_one_steps.py, "registry
    cache: open and parse"); any other line goes through `_parse_line`."""
    entries: dict[str, _Entry] = {}
    match, new, tail = _ID.match, tuple.__new__, os.sep
    for line in text.split("\n") if text else ():
        parts = line.split("\t", 4)
        if len(parts) == 5:
            k, stamp_text, rid, extra, spec_json = parts
            key = k[1:-1]
            # a quoted path without escapes whose file is `<id>.yaml` (so `_stem(key) == rid`), and a valid id
            if (extra == _NO_EXTRA and spec_json and len(k) > 1 and k[0] == k[-1] == '"' and "\\" not in k
                    and key.endswith(f"{tail}{rid}.yaml") and match(rid) is not None):  # fmt: skip
                try:
                    size, mtime, ctime, inode = stamp_text.split(" ")
                    stamp = (int(size), int(mtime), int(ctime), int(inode))
                except ValueError:
                    continue  # (as `_parse_line`: a malformed stamp drops the line)
                entries[key] = new(_Entry, (stamp, rid, (), spec_json, (), line))
                continue
        got = _parse_line(line)
        if got is not None:
            entries[got[0]] = got[1]
    return entries


def _abspath(path: str, folders: dict[str, str]) -> str:
    """`os.path.abspath(path)`, its folder's made once (`folders` remembers them): a file name that
    is not "." or ".." joins the absolute folder as it is (10,000 files in a run)."""
    head, sep, name = path.rpartition(os.sep)
    if not sep or not name or name in (".", "..") or not head.strip(os.sep):  # (a file at the root: as it is)
        return os.path.abspath(path)
    folder = folders.get(head)
    if folder is None:
        folder = folders[head] = folder_head(os.path.abspath(head))
    return folder + name


def _stamp(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _code_key() -> str:
    """What a cached outcome depends on besides the file: the code that reads reports (the registry,
    `spec_file`, the YAML loader, this module), the schema, the limits, pydantic."""
    h = hashlib.sha256(f"{CACHE_FORMAT}|{pydantic.VERSION}|{MAX_YAML_BYTES}|{MAX_ALIASES}|{MAX_DEPTH}|{MAX_NODES}|".encode())
    # registry.py by path: importing it here would be an import cycle (it imports this module).
    for module in (Path(__file__).with_name("registry.py"), spec_file.__file__, guarded_yaml.__file__, __file__, schema.__file__):
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
        return cls(path, _parse_lines(text))

    def lookup(self, paths: list[str], stats: Mapping[str, os.stat_result] | None = None) -> dict[int, _Entry]:
        """Entries of the unchanged files among `paths`, by position (`stats`: files' `os.stat` the
        caller took already, by path as in `paths`; the others are stat'ed here)."""
        out: dict[int, _Entry] = {}
        stats = stats or {}
        folders: dict[str, str] = {}
        for i, name in enumerate(paths):
            key = _abspath(name, folders)
            self.seen.add(key)
            entry = self.entries.get(key)
            if entry is None:
                continue
            st = stats.get(name)
            if st is None:
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

    def load(self, path: Path, read: Callable[[Path], ReportSpec] = _read_report) -> ReportSpec:
        """Parse the report at `path` with `read` and cache the outcome; raises SpecFileError."""
        key = os.path.abspath(path)
        self.seen.add(key)
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if st is None or not stat.S_ISREG(st.st_mode):
            return read(path)  # missing, a folder, …: nothing to cache
        try:
            spec = read(path)
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
