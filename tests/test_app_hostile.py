"""The dashboard against what a new user (or a hostile link) hits (issue 34): a YAML paste over the
limit says so; an unknown id in a URL says so instead of showing another report; a report that failed
to ingest is marked failed with its reason on Compare, never "not assessed"; every page takes long,
Unicode and path-like query parameters without an error."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ingest.pipeline import Settings, run
from ingest.store.store import Store
from tests import test_app
from tests.test_app import LENS, run_app, texts
from views import compare, nav

from .conftest import write_pdf, write_report

VIEWS = Path(__file__).resolve().parents[1] / "views"
built, private_env, store_env = test_app.built, test_app.private_env, test_app.store_env


def page(file: str, **params: str) -> AppTest:
    """One page run with these query parameters (as a link would open it); no exception allowed."""
    at = AppTest.from_file(str(VIEWS / file), default_timeout=90)
    at.query_params.update(params)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_yaml_paste_over_the_limit_says_so(private_env: Path, tmp_path: Path) -> None:
    at = run_app("add_report")
    at.radio(key="add_mode").set_value("YAML").run()
    text = "id: big\nmodel: B\norganization: L\ndoc_type: blog\nnotes: |\n  " + "a" * 407_000 + "\n"
    at.text_area(key="add_yaml").set_value(text)
    at.button[0].click().run()
    said = " ".join(texts(at))
    assert "too large" in said and "407,0" in said and "262,144 bytes" in said, said
    assert not (tmp_path / "reports" / "big.yaml").exists()


@pytest.mark.parametrize("file,key", [("report.py", "report"), ("evidence.py", "report"), ("source.py", "report")])
def test_an_unknown_report_id_in_the_url_says_so(store_env: Path, file: str, key: str) -> None:
    at = page(file, **{key: "dapoo", "dim": LENS.ids[0]})
    assert any("No report with id 'dapoo'" in t for t in texts(at)), texts(at)
    assert not at.get("html") or "r00" not in "".join(el.proto.body for el in at.get("html"))  # no other report shown


def test_a_known_report_id_in_the_url_opens_that_report(store_env: Path) -> None:
    at = page("report.py", report="r02")
    assert not any("No report with id" in t for t in texts(at))
    assert nav.unknown_id is not None and at.selectbox(key="report").value == "r02"


def test_a_report_that_failed_to_ingest_is_marked_failed_with_its_reason_on_compare(tmp_path: Path) -> None:
    reports, data = tmp_path / "reports", tmp_path / "data"
    good = write_pdf(tmp_path / "good.pdf", [["The agent uses a tool and a verifiable reward with GRPO."]])
    write_report(reports, "good", source={"path": str(good)})
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    write_report(reports, "broken", source={"path": str(tmp_path / "broken.pdf")})
    run(reports_dir=reports, settings=Settings(data_dir=data, source_roots=(tmp_path,), offline=True))
    store = Store(data)
    wide = compare.wide_table(store.read_table("reports"), store.read_table("comparison"), LENS.ids, store.read_table("status"))
    row = wide.set_index("report_id").loc["broken"]
    assert row[f"_{LENS.ids[0]}"] == [compare.INGEST_FAILED] and "unreadable PDF" in row["failed"]
    assert "the last ingest failed" in compare.hover(row[LENS.ids[0]], LENS.dimension(LENS.ids[0]))
    cols = compare.columns(LENS, LENS.summary_ids, wide)
    frame = compare.matrix_frame(wide, cols, [])
    meta = dict(zip(frame["report_id"], frame["meta"], strict=True))
    assert "ingest failed: " in meta["broken"] and "ingest failed" not in meta["good"]
    assert wide.set_index("report_id").loc["good", f"_{LENS.ids[0]}"] != [compare.INGEST_FAILED]


HOSTILE_VALUES = {
    "long": "x" * 20_000,
    "unicode": "İ\u202e\u0000\ud7ff🙂 r00 \u2028",
    "path": "../../../../etc/passwd",
    "encoded-path": "..%2F..%2Fdata%2Fresults",
    "markdown": "[x](http://evil.example) <img src=x>",
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_VALUES))
def test_every_page_takes_hostile_query_parameters(store_env: Path, kind: str) -> None:
    value = HOSTILE_VALUES[kind]
    keys = ("report", "rid", "dim", "term", "section", "q", "p", "old", "new", "table", "cols", "org", "doc", "group", "scope")
    for file, *_ in nav.PAGES.values():
        at = page(file, **dict.fromkeys(keys, value))
        shown = " ".join(texts(at))
        assert "Traceback" not in shown and "/etc/passwd" not in "".join(el.proto.body for el in at.get("html")), file
