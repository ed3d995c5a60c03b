"""Atomic file writes and JSON bytes for the data folder.

Why its own module: every writer of the data folder (store, fetch cache, curated files, the
dashboard's upload) needs "never a half-written file" and nothing else of the store.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path


def atomic_write_bytes(path: Path, data: bytes, sync: bool = True) -> None:
    """Write via a temp file in the same folder and `os.replace`, so readers never see half a file.

    `sync=False` leaves the flush to disk to the caller (`fsync_files`), for files that only count
    once a later file names them (the table parts, named by the manifest): one flush of many
    files at the end costs a journal commit, one per file a commit each (3 ms on this disk)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


#: Threads that flush files at once (see `fsync_files`).
FSYNC_THREADS = 16


def fsync_files(paths: list[Path]) -> None:
    """Flush files written with `sync=False` to disk (a file gone meanwhile is skipped).

    On several threads: while other processes flush files too, each flush waits for a journal
    commit of its own, one after another (130 table parts: 0.3-0.5 s); flushes waiting together
    share commits (30 ms). The threads end before this returns."""
    if len(paths) <= 2:
        for p in paths:
            _fsync(p)
        return
    with ThreadPoolExecutor(min(FSYNC_THREADS, len(paths)), thread_name_prefix="fsync") as pool:
        for _ in pool.map(_fsync, paths):
            pass


def _fsync(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _json_default(o: object) -> object:
    if hasattr(o, "isoformat"):
        return o.isoformat()  # type: ignore[union-attr]
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def dumps(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False, default=_json_default).encode("utf-8")


def describe_os_error(exc: OSError) -> str:
    """An OSError as a short phrase without the file path (callers name the place themselves)."""
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "permission denied (read-only?)"
    if exc.errno == errno.EISDIR:
        return "is a directory"
    if exc.errno == errno.ENOENT:
        return "no such folder"
    return exc.strerror or type(exc).__name__
