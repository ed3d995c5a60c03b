"""Caps before parsing and nothing lost on delete (issue 23).

A pasted YAML over the size cap, or one with tens of thousands of values, is refused before it
is parsed (no seconds of parsing, no hundreds of MB); an upload is refused by its size before its
bytes are read; a report deleted, re-added and deleted again keeps both deleted files.
"""

from __future__ import annotations

import resource
import time
from pathlib import Path

import pytest

from ingest.outputs import curate
from ingest.sources.registry import MAX_NODES, MAX_YAML_BYTES, SpecFileError, parse_yaml
from views.add_report import DELETED_DIR, delete_report, spec_from_fields, spec_from_yaml, write_report


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.parametrize("mb", [2, 20])
def test_pasted_yaml_over_the_cap_is_refused_before_parsing(mb: int) -> None:
    text = "id: x\nmodel: m\norganization: o\ndoc_type: blog\nnotes: |\n" + "  " + "a" * (mb * 1024 * 1024) + "\n"
    before = _peak_mb()
    t0 = time.perf_counter()
    with pytest.raises(SpecFileError, match="too large"):
        spec_from_yaml(text)
    assert time.perf_counter() - t0 < 1.0
    assert _peak_mb() - before < 3 * mb + 50  # the text and one encoded copy at most, no parse tree


@pytest.mark.parametrize(
    "text",
    [
        "tags: [" + ",".join(["a"] * 100_000) + "]\n",
        "".join(f"k{i}: 1\n" for i in range(30_000)),
        "tags:\n" + "- a\n" * 60_000,
    ],
    ids=["flow-list", "many-keys", "block-list"],
)
def test_yaml_with_too_many_values_is_refused_quickly(text: str) -> None:
    text = text[:MAX_YAML_BYTES]
    t0 = time.perf_counter()
    with pytest.raises(SpecFileError, match=f"more than {MAX_NODES:,}"):
        parse_yaml(text, "pasted YAML")
    assert time.perf_counter() - t0 < 1.5


class _Upload:
    def __init__(self, size: int, data: bytes = b"") -> None:
        self.size, self.data, self.read = size, data, False

    def getvalue(self) -> bytes:
        self.read = True
        return self.data


def test_upload_over_the_cap_is_refused_by_its_size_before_reading() -> None:
    up = _Upload(curate.MAX_UPLOAD_BYTES + 1)
    with pytest.raises(curate.UploadTooLarge):
        curate.upload_bytes(up)
    assert not up.read
    assert curate.upload_bytes(_Upload(3, b"abc")) == b"abc"


def test_delete_readd_delete_keeps_both_deleted_files(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    for model in ("First", "Second"):
        spec = spec_from_fields({"id": "same", "model": model, "organization": "L", "doc_type": "blog"})
        write_report(spec, reports, pdf=model.encode(), suffix=".md")
        delete_report("same", reports)
    kept = sorted((reports / DELETED_DIR).iterdir())
    yamls = [p.read_text(encoding="utf-8") for p in kept if p.suffix == ".yaml"]
    assert len(yamls) == 2 and any("First" in y for y in yamls) and any("Second" in y for y in yamls)
    assert sorted(p.read_bytes() for p in kept if p.suffix == ".md") == [b"First", b"Second"]
    assert not (reports / "same.yaml").exists()


def test_keep_unique_never_overwrites(tmp_path: Path) -> None:
    from views.add_report import keep_unique

    (tmp_path / "d").mkdir()
    names = []
    for i in range(3):
        src = tmp_path / "x.yaml"
        src.write_text(str(i))
        names.append(keep_unique(src, tmp_path / "d", "x.stamp", ".yaml").name)
    assert names == ["x.stamp.yaml", "x.stamp.1.yaml", "x.stamp.2.yaml"]
    assert [(tmp_path / "d" / n).read_text() for n in names] == ["0", "1", "2"]
