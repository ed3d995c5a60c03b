"""Strict report schema: one clear error per broken file, the others still load."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ingest.sources.registry import MAX_ALIASES, SpecFileError, load_registry, load_report
from ingest.sources.schema import ReportSpec

from .conftest import REPO, write_report


def errors_of(path: Path) -> str:
    with pytest.raises(SpecFileError) as err:
        load_report(path)
    return str(err.value)


def test_shipped_reports_all_load():
    reg = load_registry(REPO / "reports")
    assert reg.errors == []
    assert len(reg.reports) == 11  # the study's ten and DeepSeek-R1, bundled as a third measured report


def test_unknown_key_names_file_field_and_hint(tmp_path):
    p = write_report(tmp_path, "r1", "sorce:\n  path: x.pdf\n")
    msg = errors_of(p)
    assert str(p) in msg and "sorce" in msg and "unknown key" in msg and "_template.yaml" in msg


def test_unknown_key_suggests_the_nearest_valid_one(tmp_path):
    p = write_report(tmp_path, "r1", "sorce:\n  paht: x.pdf\norganisation: Lab\n")
    msg = errors_of(p)
    assert "did you mean `source`?" in msg and "did you mean `organization`?" in msg


def test_yaml_syntax_error_points_at_the_line_where_it_starts(tmp_path):
    p = tmp_path / "r1.yaml"
    p.write_text('id: r1\nmodel: "R1\norganization: Lab\ndoc_type: blog\n', encoding="utf-8")
    assert "starts at line 2" in errors_of(p)


def test_missing_required_field(tmp_path):
    p = tmp_path / "r1.yaml"
    p.write_text("id: r1\nmodel: M\ndoc_type: arxiv\n")
    assert "organization" in errors_of(p) and "required" in errors_of(p)


def test_wrong_types_and_values(tmp_path):
    p = write_report(tmp_path, "r1", "released: last year\nreported:\n  from: x\n  words: many\n", doc_type="journal")
    msg = errors_of(p)
    assert "doc_type" in msg and "released" in msg and "reported.words" in msg and "YYYY-MM-DD" in msg


def test_id_must_match_file_name_and_be_safe(tmp_path):
    assert "does not match the file name" in errors_of(_mismatch(tmp_path))
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump({"id": "../x", "model": "M", "organization": "O", "doc_type": "other"}))
    assert "id" in errors_of(p) and "file name" in errors_of(p)


def _mismatch(tmp_path: Path) -> Path:
    p = tmp_path / "other.yaml"
    p.write_text(yaml.safe_dump({"id": "r1", "model": "M", "organization": "O", "doc_type": "other"}))
    return p


def test_invalid_yaml_reports_line(tmp_path):
    p = tmp_path / "r1.yaml"
    p.write_text("id: r1\nmodel: [unclosed\n")
    msg = errors_of(p)
    assert "invalid YAML" in msg and "line" in msg


def test_duplicate_keys_are_refused(tmp_path):
    p = tmp_path / "r1.yaml"
    p.write_text("id: r1\nmodel: A\nmodel: B\norganization: O\ndoc_type: other\n")
    assert "duplicate key" in errors_of(p)


def test_yaml_bomb_is_refused_quickly(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    p = tmp_path / "r1.yaml"
    p.write_text("\n".join(lines) + "\n")
    assert "aliases" in errors_of(p) and str(MAX_ALIASES) in errors_of(p)


def test_source_needs_url_or_path(tmp_path):
    assert "source needs" in errors_of(write_report(tmp_path, "r1", "source: {}\n"))


def test_one_broken_file_does_not_stop_the_others(tmp_path):
    write_report(tmp_path, "good", "")
    write_report(tmp_path, "bad", "extra: 1\n")
    (tmp_path / "_template.yaml").write_text("this is: [ignored")
    reg = load_registry(tmp_path)
    assert [r.id for r in reg.reports] == ["good"]
    assert len(reg.errors) == 1 and reg.errors[0].field == "extra"


def test_curated_keys_checked_against_known_dimensions(tmp_path):
    p = write_report(tmp_path, "r1", "curated:\n  reward_sorce:\n    value: not disclosed\n")
    with pytest.raises(SpecFileError, match="unknown dimension"):
        load_report(p, known_dimensions={"reward_source"})


def _fields(model: type, prefix: str = "") -> set[str]:
    out = set()
    for name, f in model.model_fields.items():
        key = f.alias or name
        out.add(prefix + key)
    return out


def test_template_documents_every_field():
    """reports/_template.yaml must show (and so document) every field of the schema."""
    from ingest.sources.schema import CuratedCell, CuratedResult, Reported, Source

    template = yaml.safe_load((REPO / "reports" / "_template.yaml").read_text())
    spec = ReportSpec.model_validate(template)  # the template itself is valid
    assert spec.id == "my-model"
    assert set(template) == _fields(ReportSpec)
    assert set(template["source"]) == _fields(Source)
    assert set(template["reported"]) == _fields(Reported)
    assert set(next(iter(template["curated"].values()))) == _fields(CuratedCell)
    assert set(template["results"][0]) == _fields(CuratedResult)
