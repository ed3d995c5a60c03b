"""History of a report's sources: the readings of its older (and declared) versions.

Why: a lab revises a report (arXiv v2, an updated post, a new PDF in the same place) and a
re-ingest replaces the report's bundle. To say what changed, the older reading is kept:

    results/history/<id>/<sha256[:20]>.json.gz   a Bundle: the reading of one source version

The extracted text of every version stays in `cache/text/<sha256>…` (keyed by the source hash),
so a diff can compare sentences too. A reading is archived when the pipeline stores a new bundle
whose source hash differs from the stored one (`keep_if_changed`), and when `python -m ingest
diff` reads a version declared in the report's `versions:` list. Nothing here is ever deleted by
the pipeline.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ingest.common.atomic import atomic_write_bytes, dumps
from ingest.common.records import Bundle
from ingest.store.store import Store

_SHA = re.compile(r"^[0-9a-f]{20}$")
LATEST = "latest"


@dataclass(frozen=True)
class Version:
    """One reading of a report's source: its label, source hash and when it was read."""

    label: str  # the declared label (`versions:`), else the reading's date; unique per report
    sha256: str
    ingested_at: str
    origin: str
    current: bool  # the report's stored bundle (what the tables show)


def history_dir(store: Store, report_id: str) -> Path:
    """The folder of a report's older readings."""
    return store.results_dir / "history" / report_id


def _path(store: Store, report_id: str, sha256: str) -> Path:
    return history_dir(store, report_id) / f"{sha256[:20]}.json.gz"


def archive(store: Store, bundle: Bundle) -> bool:
    """Keep a measured bundle as a version of its report (once per source hash); False when not kept."""
    meta = bundle.meta
    if meta.snapshot or not meta.sha256 or not bundle.measured:
        return False
    path = _path(store, meta.report_id, meta.sha256)
    atomic_write_bytes(path, gzip.compress(dumps(bundle.to_json()), compresslevel=3))
    return True


def keep_if_changed(store: Store, old: Bundle | None, new_sha256: str) -> bool:
    """Before a new reading replaces `old`: archive `old` when its source differs (a revised report)."""
    if old is None or old.meta.sha256 in (None, new_sha256):
        return False
    return archive(store, old)


def load(store: Store, report_id: str, sha256: str) -> Bundle | None:
    """The archived reading of this source hash (None when absent or unreadable)."""
    try:
        return Bundle.from_json(json.loads(gzip.decompress(_path(store, report_id, sha256).read_bytes())))
    except (OSError, ValueError, EOFError, RecursionError):
        return None


def _archived(store: Store, report_id: str) -> list[Bundle]:
    try:
        names = sorted(os.listdir(history_dir(store, report_id)))
    except OSError:
        return []
    out = []
    for n in names:
        if n.endswith(".json.gz") and _SHA.match(n[: -len(".json.gz")]):
            b = load(store, report_id, n[:20])
            if b is not None and b.meta.sha256:
                out.append(b)
    return out


def versions(store: Store, report_id: str, declared: dict[str, str] | None = None) -> list[Version]:
    """Every reading of the report, oldest first; the stored bundle is the last (`current`).

    `declared` maps a source hash, or a source origin (a URL, or `path:<file>`), to its label in
    `versions:`; other readings are labelled by their date (`2026-12-01`, then `2026-12-01.2`, …).
    """
    declared = declared or {}
    current = store.load_bundle(report_id)
    by_sha: dict[str, tuple[Bundle, bool]] = {b.meta.sha256 or "": (b, False) for b in _archived(store, report_id)}
    if current is not None and current.measured and current.meta.sha256:
        by_sha[current.meta.sha256] = (current, True)
    ordered = sorted(by_sha.values(), key=lambda bc: (bc[1], bc[0].meta.ingested_at or ""))
    out: list[Version] = []
    used: set[str] = {LATEST}
    for b, is_current in ordered:
        m = b.meta
        label = declared.get(m.sha256 or "") or declared.get(m.origin or "") or (m.ingested_at or "undated")[:10]
        base, n = label, 1
        while label in used:
            n += 1
            label = f"{base}.{n}"
        used.add(label)
        out.append(Version(label, m.sha256 or "", m.ingested_at or "", m.origin or "", is_current))
    return out


def find(found: list[Version], key: str) -> Version | None:
    """The version named by `key`: its label, `latest`, `previous`, or a source-hash prefix (6+ hex)."""
    if not found:
        return None
    if key == LATEST:
        return found[-1]
    if key == "previous":
        return found[-2] if len(found) > 1 else None
    for v in found:
        if v.label == key:
            return v
    if len(key) >= 6 and re.fullmatch(r"[0-9a-f]+", key):
        hits = [v for v in found if v.sha256.startswith(key)]
        if len(hits) == 1:
            return hits[0]
    return None


def reading(store: Store, report_id: str, v: Version) -> Bundle | None:
    """The bundle of a version: the stored one for the current version, else the archived one."""
    if v.current:
        b = store.load_bundle(report_id)
        if b is not None and b.meta.sha256 == v.sha256:
            return b
    return load(store, report_id, v.sha256)
