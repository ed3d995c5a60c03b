"""Typed bundle records: exact round trip through the stored JSON (every record type), and a bundle of
unknown shape is recomputed (never crashes the run or the table build)."""

from __future__ import annotations

import dataclasses
import gzip
import json
import pickle
from pathlib import Path

import pytest

from ingest.common import records
from ingest.common.jsonrecord import Record
from ingest.common.records import (
    Annotation,
    Bundle,
    BundleError,
    Cell,
    ChecklistItem,
    EvidenceRow,
    Meta,
    ResultCell,
    Results,
    ResultTable,
    SectionRow,
)
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.store.store import Store

from .conftest import write_pdf, write_report

PAGES = [
    ["Reinforcement Learning", "We adopt GRPO as our RL algorithm, unlike PPO.", "The reward comes from unit tests."],
    ["Results", "Agentic tool use improves.", "References", "Doe. An agentic benchmark for tools. 2025."],
]


@pytest.fixture
def ingested(tmp_path: Path) -> tuple[Path, Settings]:
    reports = tmp_path / "reports"
    reports.mkdir()
    write_pdf(reports / "paper.pdf", PAGES)
    write_report(reports, "paper", source={"path": "paper.pdf"})
    write_report(reports, "nosrc")
    settings = Settings(data_dir=tmp_path / "data")
    result = run(reports_dir=reports, settings=settings)
    assert not result.failed, [o.message for o in result.failed]
    return reports, settings


def _raw(store: Store, rid: str) -> dict:
    return json.loads(gzip.decompress((store.bundle_dir / f"{rid}.json.gz").read_bytes()))


def _write_raw(store: Store, rid: str, data: object) -> None:
    (store.bundle_dir / f"{rid}.json.gz").write_bytes(gzip.compress(json.dumps(data).encode()))


def test_stored_bundle_round_trips_exactly_through_the_typed_records(ingested) -> None:
    """from_json(to_json) is the identity, and to_json gives back the stored JSON key for key, in order."""
    _, settings = ingested
    store = Store(settings.data_dir)
    for rid in ("paper", "nosrc"):
        raw = _raw(store, rid)
        b = Bundle.from_json(raw)
        assert json.dumps(b.to_json()) == json.dumps(raw)
        assert Bundle.from_json(b.to_json()) == b
    paper, nosrc = store.load_bundle("paper"), store.load_bundle("nosrc")
    assert paper.measured and paper.annotation is not None and paper.results is not None
    assert isinstance(paper.annotation.cells["rl_algorithm"], Cell) and paper.annotation.cells["rl_algorithm"].value == ("GRPO",)
    assert all(isinstance(e, EvidenceRow) for e in paper.annotation.evidence)
    assert nosrc.meta.snapshot and not nosrc.measured
    assert set(_raw(store, "nosrc")) == {"meta"} and set(_raw(store, "nosrc")["meta"]) == {"report_id", "spec", "yaml_path"}


def test_analysis_records_survive_pickling_to_and_from_a_worker(ingested) -> None:
    b = Store(ingested[1].data_dir).load_bundle("paper")
    assert pickle.loads(pickle.dumps(b)) == b


@pytest.mark.parametrize(
    "damage",
    [
        "not json at all",
        {"meta": "a string"},
        {"meta": {"report_id": "paper"}},  # no spec, no yaml_path
        "annotation-cells-not-a-mapping",
        "page-is-text",
    ],
)
def test_bundle_of_unknown_shape_is_recomputed_not_crashed_on(ingested, damage) -> None:
    reports, settings = ingested
    store = Store(settings.data_dir)
    good = _raw(store, "paper")
    if damage == "not json at all":
        (store.bundle_dir / "paper.json.gz").write_bytes(gzip.compress(b"{not json"))
    elif damage == "annotation-cells-not-a-mapping":
        _write_raw(store, "paper", good | {"annotation": {**good["annotation"], "cells": "GRPO"}})
    elif damage == "page-is-text":
        ev = [{**e, "page": "five"} for e in good["annotation"]["evidence"]]
        _write_raw(store, "paper", good | {"annotation": {**good["annotation"], "evidence": ev}})
    else:
        _write_raw(store, "paper", damage)
    assert store.load_bundle("paper") is None
    result = run(reports_dir=reports, settings=settings)
    (out,) = [o for o in result.outcomes if o.report_id == "paper"]
    assert out.status == "ok", out.message  # recomputed, not "cached" and not "failed"
    assert store.load_bundle("paper") is not None
    cmp = store.read_table("comparison")
    assert cmp[(cmp.report_id == "paper") & (cmp.dimension == "rl_algorithm")].value.item() == "GRPO"


def test_older_bundle_without_newer_fields_still_reads(ingested) -> None:
    """Evidence without role/cues, a level cell without its checklist, no results part: still a bundle."""
    _, settings = ingested
    store = Store(settings.data_dir)
    raw = _raw(store, "paper")
    raw.pop("results")
    raw["annotation"]["evidence"] = [
        {k: v for k, v in e.items() if k not in ("role", "cues")} for e in raw["annotation"]["evidence"]
    ]
    for cell in raw["annotation"]["cells"].values():
        cell.pop("checklist", None)
    _write_raw(store, "paper", raw)
    b = store.load_bundle("paper")
    assert b is not None and b.results is None
    assert all(e.role is None for e in b.annotation.evidence)
    level = next(c for c in b.annotation.cells.values() if c.counted is not None)
    assert level.checklist is None and level.indicators is not None


def test_from_json_names_the_field_that_is_wrong() -> None:
    with pytest.raises(BundleError, match=r"cell\.value"):
        Annotation.from_json({"lens": "x", "cells": {"d": {"value": [1], "confidence": 0.5}}})
    with pytest.raises(BundleError, match=r"meta\.spec"):
        Meta.from_json({"report_id": "r", "spec": None, "yaml_path": "r.yaml"})


def test_rerun_rewrites_no_bundle_when_nothing_changed(ingested) -> None:
    """The typed snapshot of a report without source compares equal to the stored one (no rewrite)."""
    reports, settings = ingested
    store = Store(settings.data_dir)

    def bundles() -> dict[str, str]:  # size and mtime of each bundle file (status files are rewritten every run)
        return {rid: stamp.split("|")[0] for rid, stamp in store.bundle_stamps().items()}

    before = bundles()
    result = run(reports_dir=reports, settings=settings)
    assert {o.report_id: o.status for o in result.outcomes} == {"paper": "cached", "nosrc": "no-source"}
    assert bundles() == before


# --------------------------------------------------------------------------- one generic JSON mapping

_CHECK = ChecklistItem("grader", "Grader named", True, 2, "A grader scores it.", 3, "iii")
_CELL = Cell(
    ("GRPO",), 0.75, "We adopt GRPO.", 2, "2", "rl", {"GRPO": 3}, {"GRPO": {"use": 2}}, ("a",), (_CHECK,), "why", 1, {"f": 0.5}
)
_RCELL = ResultCell("M", "MMLU", "88.1", "acc", "g", "5-shot", "[3]")
_TABLE = ResultTable(4, "iv", "Table 2", "Results", "models-as-rows", ("flag",), (1.0, 2.5, 3.0, 4.0), (_RCELL,), (_RCELL,))
_RESULTS = Results(3, (_TABLE,), ("note",), 1.5, (("Full Name", "FN"),))
_META = Meta(
    "r", {"id": "r"}, "r.yaml", fingerprint="fp", sha256="s", origin="o", final_url="u", kind="pdf", engine="pdfium",
    pages=2, words=10, word_rule="w", notes=("n",), ingested_at="2026-01-01T00:00:00+00:00",
)  # fmt: skip
_EVIDENCE = EvidenceRow("rl", "GRPO", 1, 0.9, "use", "grpo", "We adopt GRPO.", 2, "2", "rl")
_ANNOTATION = Annotation("lens", "lfp", {"rl": _CELL}, (_EVIDENCE,))
EXAMPLES = {
    SectionRow: SectionRow("intro", 1, 2, "Introduction", 300),
    EvidenceRow: _EVIDENCE,
    ChecklistItem: _CHECK,
    Cell: _CELL,
    Annotation: _ANNOTATION,
    ResultCell: _RCELL,
    ResultTable: _TABLE,
    Results: _RESULTS,
    Meta: _META,
    Bundle: Bundle(_META, (SectionRow("s", 1, 1, "S", 1),), ({"k": 1},), ({"q": "x"},), _ANNOTATION, _RESULTS),
}


def test_every_stored_record_type_has_a_round_trip_example() -> None:
    stored = {c for c in vars(records).values() if isinstance(c, type) and issubclass(c, Record) and c is not Record}
    assert stored == set(EXAMPLES)


@pytest.mark.parametrize("cls", list(EXAMPLES), ids=lambda c: c.__name__)
def test_record_round_trips_through_json_with_every_field_set(cls) -> None:
    rec = EXAMPLES[cls]
    raw = json.loads(json.dumps(rec.to_json()))
    assert cls.from_json(raw) == rec
    assert list(raw) == [f.name for f in dataclasses.fields(cls)]  # every field, in declaration order
    assert json.dumps(cls.from_json(raw).to_json()) == json.dumps(raw)


def test_optional_keys_are_left_out_as_the_stored_format_has_them() -> None:
    cell = Cell(("x",), None)
    assert list(cell.to_json()) == ["value", "confidence", "quote", "page", "page_label", "section"]
    snap = Bundle(Meta("r", {}, "r.yaml"))
    assert snap.to_json() == {"meta": {"report_id": "r", "spec": {}, "yaml_path": "r.yaml"}}
    assert Bundle.from_json(snap.to_json()) == snap


def test_older_records_without_later_keys_read_with_their_defaults() -> None:
    assert SectionRow.from_json({"section": "s", "start_page": 1, "end_page": 2}) == SectionRow("s", 1, 2, "", 0)
    item = ChecklistItem.from_json({"indicator": "grader", "fired": False})
    assert (item.label, item.sentences, item.quote) == ("grader", 0, None)
    table = ResultTable.from_json({"page": 7})
    assert (table.page_label, table.label, table.cells, table.attributes) == ("7", "", (), ())
    assert ResultCell.from_json({"model": "M", "benchmark": "B", "value": "1", "metric": None}).metric == ""
    ev = EvidenceRow.from_json({"dimension": "d", "category": "c", "rank": 1, "score": None, "quote": "q"})
    assert (ev.score, ev.role, ev.page) == (0.0, None, None)
    assert Results.from_json({}) == Results(0)
    assert Annotation.from_json({"lens": "l"}) == Annotation("l", "")


@pytest.mark.parametrize(
    ("cls", "raw", "field"),
    [
        (ChecklistItem, {"indicator": "i", "fired": "yes"}, r"checklistitem\.fired"),
        (Cell, {"value": ["x"], "confidence": 0.5, "features": {"f": float("nan")}}, r"cell\.features"),
        (Cell, {"value": ["x"], "confidence": True}, r"cell\.confidence"),
        (ResultTable, {"page": 1, "region": "box"}, r"resulttable\.region"),
        (Results, {"defined_names": [["only one"]]}, r"results\.defined_names"),
        (ResultCell, {"model": "M", "benchmark": "B", "value": 1.5}, r"resultcell\.value"),
        (Bundle, {"meta": {"report_id": "r", "spec": {}, "yaml_path": "p"}, "kwic": ["row"]}, r"bundle\.kwic"),
    ],
)
def test_wrong_types_raise_bundle_error_naming_the_field(cls, raw, field) -> None:
    with pytest.raises(BundleError, match=field):
        cls.from_json(raw)
