"""Typed bundle records: exact round trip through the stored JSON, and a bundle of unknown shape is
recomputed (never crashes the run or the table build)."""

from __future__ import annotations

import gzip
import json
import pickle
from pathlib import Path

import pytest

from ingest.pipeline import Settings, run
from ingest.store.records import Annotation, Bundle, BundleError, Cell, EvidenceRow, Meta
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
