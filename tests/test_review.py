"""Review workflow: the round-trip YAML writer, the review/agreement functions, and the Review page.

The writer edits the user's own report files, so the tests check that every other key, its order
and its comments survive byte for byte, that a refused decision leaves the file unchanged, and
that the write is atomic. Page tests build their data with the real pipeline (tests/review_fixtures.py).
"""

from __future__ import annotations

import datetime as dt
import html
import os
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml
from streamlit.testing.v1 import AppTest

from ingest.analysis.lens import load_lens
from ingest.outputs import curate, review
from ingest.sources.registry import SpecFileError, load_report
from ingest.store.store import Store
from tests import review_fixtures as rf
from tests.app_fixtures import html_tables

APP = str(Path(__file__).resolve().parents[1] / "app.py")
DAY = dt.date(2026, 11, 30)
LENS = load_lens()


def _alpha(tmp_path: Path) -> Path:
    p = tmp_path / "alpha.yaml"
    p.write_text(rf.ALPHA_YAML, encoding="utf-8")
    return p


def _beta(tmp_path: Path) -> Path:
    p = tmp_path / "beta.yaml"
    p.write_text(rf.BETA_YAML, encoding="utf-8")
    return p


# ------------------------------------------------------------------------------- round-trip writer
def test_record_decision_keeps_every_other_line_and_comment(tmp_path: Path) -> None:
    p = _alpha(tmp_path)
    curate.record_decision(p, "rl_algorithm", ["GRPO"], "accepted", "We adopt GRPO as our RL algorithm.", 3, DAY)
    text = p.read_text(encoding="utf-8")
    assert text.startswith(rf.ALPHA_YAML)  # the original file, byte for byte, then the new block
    assert text[len(rf.ALPHA_YAML) :] == (
        "curated:\n  rl_algorithm:\n    value: [GRPO]\n    quote: We adopt GRPO as our RL algorithm.\n"
        "    page: 3\n    notes: accepted\n    reviewed: 2026-11-30\n"
    )
    spec = load_report(p)
    assert spec.curated["rl_algorithm"].reviewed == DAY
    assert spec.arxiv_id == "2501.00001" and spec.params == "7B dense" and spec.reported is not None


def test_record_decision_updates_a_cell_in_place_keeping_its_comment(tmp_path: Path) -> None:
    p = _beta(tmp_path)
    curate.record_decision(p, "rl_algorithm", ["PPO"], "accepted", today=DAY)
    text = p.read_text(encoding="utf-8")
    assert "  # checked by hand earlier\n  rl_algorithm:\n    value: [PPO]\n    detail: PPO with a value model\n" in text
    assert "url: https://example.org/beta.pdf  # the local copy wins" in text
    # a new value drops the detail that described the old one; a single-valued dimension is a plain string
    curate.record_decision(p, "rl_algorithm", ["GRPO"], "changed", today=DAY)
    curate.record_decision(p, "credit_granularity", "token", "by hand", today=DAY)
    spec = load_report(p)
    assert spec.curated["rl_algorithm"].detail is None and spec.curated["rl_algorithm"].values == ["GRPO"]
    assert spec.curated["credit_granularity"].value == "token"
    assert list(spec.curated) == ["rl_algorithm", "credit_granularity"]
    assert "# checked by hand earlier" in p.read_text(encoding="utf-8")


def test_new_curated_block_goes_where_the_schema_puts_it(tmp_path: Path) -> None:
    p = tmp_path / "x.yaml"
    p.write_text("id: x\nmodel: X\norganization: L\ndoc_type: other\n", encoding="utf-8")
    curate.set_source(p, url="https://example.org/x.pdf")
    curate.record_decision(p, "disclosure", "low", "ok", today=DAY)
    keys = list(yaml.safe_load(p.read_text()))
    assert keys == ["id", "model", "organization", "doc_type", "source", "curated"]


@pytest.mark.parametrize(
    ("dimension", "value", "note", "needle"),
    [
        ("no_such_dimension", "GRPO", "x", "unknown dimension"),
        ("rl_algorithm", [], "x", "no value"),
        ("rl_algorithm", ["  "], "x", "no value"),
        ("rl_algorithm", "not assessed", "x", "not a decision"),
        ("rl_algorithm", ["GRPO", "grpo"], "x", "twice"),
        ("disclosure", ["low", "medium"], "x", "exactly one"),
        ("rl_algorithm", "GRPO", "bad\x00note", "control characters"),
        ("rl_algorithm", "GRPO", "n" * 600, "too long"),
    ],
)
def test_invalid_decision_is_refused_and_the_file_is_unchanged(
    tmp_path: Path, dimension: str, value: object, note: str, needle: str
) -> None:
    p = _beta(tmp_path)
    before = p.read_bytes()
    with pytest.raises(SpecFileError, match=needle):
        curate.record_decision(p, dimension, value, note, today=DAY)  # type: ignore[arg-type]
    assert p.read_bytes() == before


def test_broken_or_hostile_file_is_never_edited(tmp_path: Path) -> None:
    p = tmp_path / "bad.yaml"
    for text in ("id: bad\nmodel: B\norganization: L\ndoc_type: other\nsorce: x\n", "a: &a [*a, *a]\n" * 30, "id: [\n"):
        p.write_text(text, encoding="utf-8")
        with pytest.raises(SpecFileError):
            curate.record_decision(p, "rl_algorithm", "GRPO", "x", today=DAY)
        assert p.read_text(encoding="utf-8") == text


def test_decision_whose_result_would_not_load_is_refused(tmp_path: Path) -> None:
    p = _alpha(tmp_path)
    before = p.read_bytes()
    with pytest.raises(SpecFileError):
        curate.record_decision(p, "rl_algorithm", "GRPO", "x", page=0, today=DAY)
    with pytest.raises(SpecFileError, match="url"):
        curate.set_source(p, url="ftp://example.org/x.pdf")
    assert p.read_bytes() == before


def test_write_is_atomic_a_failed_replace_leaves_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = _alpha(tmp_path)
    before = p.read_bytes()

    def boom(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        curate.record_decision(p, "rl_algorithm", "GRPO", "x", today=DAY)
    assert p.read_bytes() == before
    assert sorted(f.name for f in tmp_path.iterdir()) == ["alpha.yaml"]


def test_set_source_keeps_reported_curated_ids_and_doc_type(tmp_path: Path) -> None:
    p = _beta(tmp_path)
    spec0 = load_report(p)
    rel = curate.store_upload(tmp_path, "beta", "whatever name.PDF", b"%PDF-1.4 fake")
    assert rel == "sources/beta.pdf" and (tmp_path / rel).read_bytes() == b"%PDF-1.4 fake"
    curate.set_source(p, path=rel)
    spec = load_report(p)
    assert spec.source is not None and spec.source.path == rel and spec.source.url == "https://example.org/beta.pdf"
    assert spec.model_dump(exclude={"source"}) == spec0.model_dump(exclude={"source"})
    curate.set_source(p, url="https://example.org/new.pdf", only=True)
    spec = load_report(p)
    assert spec.source is not None and (spec.source.url, spec.source.path) == ("https://example.org/new.pdf", None)
    assert "# checked by hand earlier" in p.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "data", "want"),
    [
        ("a.md", b"# Title\n\ntext", "sources/r.md"),
        ("page.html", b"<html><body>x</body></html>", "sources/r.html"),
        ("notes.txt", b"<!doctype html><title>t</title>", "sources/r.html"),
        ("x.pdf", b"<html>login</html>", "sources/r.html"),
        ("../../etc/passwd.pdf", b"%PDF-1.7\n", "sources/r.pdf"),
    ],
)
def test_upload_is_stored_under_the_reports_folder_by_content(tmp_path: Path, name: str, data: bytes, want: str) -> None:
    assert curate.store_upload(tmp_path, "r", name, data) == want
    assert (tmp_path / want).read_bytes() == data


@pytest.mark.parametrize(
    ("rid", "name", "data"),
    [("r", "x.pdf", b"not a pdf"), ("r", "x.exe", b"MZ"), ("r", "x.md", b""), ("../r", "x.md", b"t"), ("r", "x.md", b"\xff\xfe")],
)
def test_bad_upload_is_refused(tmp_path: Path, rid: str, name: str, data: bytes) -> None:
    with pytest.raises(ValueError):
        curate.store_upload(tmp_path, rid, name, data)
    assert not (tmp_path / "sources").exists() or not list((tmp_path / "sources").iterdir())


# ------------------------------------------------------------------------------- review functions
def _cmp(rows: list[tuple[str, str, str | None, str, bool]]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"report_id": r, "dimension": d, "auto_value": a, "origin": o, "disagree": x, "value": a} for r, d, a, o, x in rows]
    )


def test_agreement_counts_and_share_per_lens_dimension() -> None:
    c = _cmp(
        [
            ("a", "rl_algorithm", "GRPO", "curated", False),
            ("b", "rl_algorithm", "PPO", "curated", True),
            ("c", "rl_algorithm", "GRPO", "auto", False),
            ("d", "rl_algorithm", None, "curated", False),
            ("a", "disclosure", "low", "auto", False),
        ]
    )
    ag = review.agreement(c, LENS).set_index("dimension")
    assert list(ag.index) == LENS.ids
    row = ag.loc["rl_algorithm"]
    assert (row["reports"], row["automatic"], row["curated"], row["both"], row["agree"], row["disagree"]) == (4, 3, 3, 2, 1, 1)
    assert row["agreement"] == 0.5
    assert pd.isna(ag.loc["disclosure", "agreement"])  # nothing checked is not "always wrong"
    assert review.agreement(pd.DataFrame(), LENS)["both"].sum() == 0


def test_unreviewed_lists_a_reports_automatic_cells() -> None:
    c = _cmp([("a", "rl_algorithm", "GRPO", "curated", False), ("b", "rl_algorithm", "x", "auto", False),
              ("c", "disclosure", "low", "auto", False)])  # fmt: skip
    assert review.unreviewed(c, "c") == ["disclosure"]
    assert review.unreviewed(c, "a") == []


def test_page_of_prefers_section_label_of_posts() -> None:
    assert review.page_of(5, "5") == 5
    assert review.page_of(3, "3 Reinforcement Learning") == "3 Reinforcement Learning"
    assert review.page_of(pd.NA, None) is None


# ------------------------------------------------------------------------------- Review page (AppTest, real pipeline)
@pytest.fixture(scope="module")
def built(review_store: Path) -> Path:
    return review_store  # built once per session (tests/conftest.py); each test copies it


@pytest.fixture
def env(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    reports, data = rf.copy_built(built, tmp_path)
    monkeypatch.setenv("FRL_DATA_DIR", str(data))
    monkeypatch.setenv("FRL_REPORTS_DIR", str(reports))
    monkeypatch.delenv("FRL_READ_ONLY", raising=False)
    return reports, data


def review_page(**state: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    for k, v in state.items():
        at.session_state[k] = v
    at.switch_page("views/review.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def tables(at: AppTest) -> list[pd.DataFrame]:
    """The page's HTML tables (views/htmltable.py) as frames of the text a reader sees."""
    return html_tables("\n".join(el.proto.body for el in at.get("html")))


def texts(at: AppTest) -> list[str]:
    """The plain-text elements of the page (views.plain.message shows messages as st.text)."""
    return [t.value for t in at.text]


def cells(at: AppTest) -> list[str]:
    """The text a reader sees in each cell's HTML block (views.review.cell_html): label, state, value lines."""
    bodies = [c for el in at.get("html") for c in el.proto.body.split('<div class="frl-cell">')[1:]]
    lines = (re.sub(r"</(p|div)>", "\n", re.sub(r"<table.*?</table>", "", b, flags=re.S)) for b in bodies)
    return [html.unescape(re.sub(r"<[^>]+>", "", b)).strip() for b in lines]


def cell_text(at: AppTest) -> str:
    return "\n".join(cells(at))


def _comparison(data: Path) -> pd.DataFrame:
    return Store(data).read_table("comparison").set_index(["report_id", "dimension"])


def test_review_page_shows_cells_with_evidence_checklist_and_agreement(env: tuple[Path, Path]) -> None:
    at = review_page(rid="alpha")
    assert at.title[0].value == "Review"
    assert "automatic: GRPO" in cell_text(at)
    assert not at.radio and not at.text_input  # the decision controls are drawn only once "Decide…" opened them
    assert not at.dataframe  # plain HTML tables (the data grid costs most of a second in the browser)
    values = tables(at)
    evidence = [v for v in values if v.attrs["caption"].startswith("Ranked evidence sentences")]
    assert any("We adopt GRPO as our RL algorithm for agentic training." in set(v["Quote"]) for v in evidence)
    assert all(list(v.columns[:2]) == ["Category", "Rank"] and "Page" in v.columns for v in evidence)
    checklists = [v for v in values if v.attrs["caption"] == "Indicator checklist behind the level"]
    assert checklists and all({"Indicator", "Found"} <= set(v.columns) for v in checklists)
    assert all(set(v["Found"]) <= {"yes", "no"} for v in checklists)
    agreement = values[-1]
    assert list(agreement["Dimension"]) == [d.label for d in LENS.dimensions]
    assert list(agreement.columns[1:]) == ["Reports", "Automatic", "Curated", "Both", "Agree", "Disagree", "Agreement"]
    at = review_page(rid="alpha", decide="rl_algorithm")  # one cell's controls opened: its controls only
    assert at.button(key="save_rl_algorithm") is not None and [r.key for r in at.radio] == ["act_rl_algorithm"]


def test_accept_writes_curated_cell_keeps_comments_and_updates_the_table(env: tuple[Path, Path]) -> None:
    reports, data = env
    at = review_page(rid="alpha", decide="rl_algorithm")
    at.text_input(key="note_rl_algorithm").set_value("looks right")
    at.button(key="save_rl_algorithm").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Saved the decision" in t for t in texts(at))
    text = (reports / "alpha.yaml").read_text(encoding="utf-8")
    assert text.startswith(rf.ALPHA_YAML)
    cell = load_report(reports / "alpha.yaml").curated["rl_algorithm"]
    assert cell.values == ["GRPO"] and cell.notes == "accepted the automatic value: looks right"
    assert cell.quote == "We adopt GRPO as our RL algorithm for agentic training." and cell.reviewed == dt.date.today()
    row = _comparison(data).loc[("alpha", "rl_algorithm")]
    assert row["origin"] == "curated" and not row["disagree"]
    assert "curated: GRPO" in cell_text(at)  # the page shows it after the rerun


def test_note_typed_in_closed_decision_controls_is_kept_for_when_they_open_again(env: tuple[Path, Path]) -> None:
    at = review_page(rid="alpha", decide="rl_algorithm")
    at.text_input(key="note_rl_algorithm").set_value("half-written note").run()
    at.session_state["decide"] = None  # the reader closes the controls (the pill again) without saving
    at.run()
    assert not at.text_input and not at.exception
    at.run()  # another rerun while closed (e.g. a pick elsewhere on the page)
    at.session_state["decide"] = "rl_algorithm"
    at.run()
    assert at.text_input(key="note_rl_algorithm").value == "half-written note"


def test_pick_another_category_flags_a_disagreement_shown_on_evidence(env: tuple[Path, Path]) -> None:
    reports, data = env
    at = review_page(rid="alpha", decide="credit_granularity")
    at.radio(key="act_credit_granularity").set_value("category").run()
    at.selectbox(key="cat_credit_granularity").set_value("token/segment").run()
    at.button(key="save_credit_granularity").click().run()
    assert not at.exception
    cell = load_report(reports / "alpha.yaml").curated["credit_granularity"]
    assert cell.value == "token/segment" and cell.notes == "changed from automatic trajectory/outcome"
    assert cell.quote is None  # no sentence supports "token/segment"
    row = _comparison(data).loc[("alpha", "credit_granularity")]
    assert row["disagree"] and row["auto_value"] == "trajectory/outcome"
    ev = AppTest.from_file(APP, default_timeout=90)
    ev.run()
    ev.session_state["report"], ev.session_state["dim"] = "alpha", "credit_granularity"
    ev.switch_page("views/evidence.py").run()
    assert not ev.exception
    assert "<h3>Automatic reading beside the curated value</h3>" in "".join(el.proto.body for el in ev.get("html"))
    beside = next(t for t in tables(ev) if "Curated value" in t.columns)
    assert beside.iloc[0]["Curated value"] == "token/segment" and beside.iloc[0]["Automatic value"] == "trajectory/outcome"
    assert "trajectory level" in beside.iloc[0]["Quote"] and beside.iloc[0]["Report"] != "alpha"  # the model, not the id


def test_written_value_with_markdown_is_stored_verbatim_and_shown_as_text(env: tuple[Path, Path]) -> None:
    reports, _ = env
    at = review_page(rid="alpha", decide="reward_source")
    at.radio(key="act_reward_source").set_value("write").run()
    at.text_input(key="val_reward_source").set_value("**bold** [x](javascript:alert(1)); rule-based/verifiable")
    at.button(key="save_reward_source").click().run()
    cell = load_report(reports / "alpha.yaml").curated["reward_source"]
    assert cell.values == ["**bold** [x](javascript:alert(1))", "rule-based/verifiable"]
    assert not any("javascript" in m.value for m in at.markdown)
    assert "**bold** [x](javascript:alert(1))" in cell_text(at)  # escaped HTML text: shown as typed
    bodies = [el.proto.body for el in at.get("html") if "frl-cell" in el.proto.body]
    assert not any("href=\"javascript" in b or "<strong>bold" in b for b in bodies)


def test_refused_decision_shows_the_error_and_leaves_the_file(env: tuple[Path, Path]) -> None:
    reports, _ = env
    before = (reports / "alpha.yaml").read_bytes()
    at = review_page(rid="alpha", decide="rl_algorithm")
    at.radio(key="act_rl_algorithm").set_value("write").run()
    at.button(key="save_rl_algorithm").click().run()
    assert any("refused" in t for t in texts(at))
    assert (reports / "alpha.yaml").read_bytes() == before


def test_next_unreviewed_moves_to_a_report_with_pending_cells(env: tuple[Path, Path]) -> None:
    at = review_page(rid="beta")
    at.button(key="next").click().run()
    assert at.selectbox(key="rid").value == "alpha"


def test_read_only_dashboard_shows_cells_without_write_controls(env: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRL_READ_ONLY", "1")
    at = review_page(rid="alpha", decide="rl_algorithm", source_pop=True)  # even "open": no controls
    assert "automatic: GRPO" in cell_text(at)
    labels = [b.proto.label for b in at.button]
    assert "Save decision" not in labels and "Attach and ingest" not in labels
    assert not at.text_input and not at.radio and not at.get("button_group")  # nor the "Decide a cell" pills
    assert any("Read-only" in t for t in texts(at))


def test_source_popover_attaches_a_url_and_keeps_the_file(env: tuple[Path, Path]) -> None:
    reports, _ = env
    at = review_page(rid="alpha", source_pop=True)
    at.text_input(key="src_url").set_value("https://example.org/alpha.pdf")
    at.button(key="src_save").click().run()
    assert not at.exception
    spec = load_report(reports / "alpha.yaml")
    assert spec.source is not None and spec.source.url == "https://example.org/alpha.pdf"
    assert spec.source.path == "sources/alpha.md"  # kept: the local file still wins, no network needed
    text = (reports / "alpha.yaml").read_text(encoding="utf-8")
    assert "# reported figures from somewhere" in text and 'arxiv_id: "2501.00001"' in text
    before = (reports / "alpha.yaml").read_bytes()
    for bad in ("javascript:alert(1)", "file:///etc/passwd"):
        at.text_input(key="src_url").set_value(bad)
        at.button(key="src_save").click().run()
        assert any("refused" in t for t in texts(at))
    assert (reports / "alpha.yaml").read_bytes() == before


def test_review_page_on_an_empty_store_explains_how_to_fill_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRL_DATA_DIR", str(tmp_path / "nothing"))
    at = review_page()
    assert any("No results" in t for t in texts(at))


def test_agreement_export_reads_the_stored_comparison(env: tuple[Path, Path]) -> None:
    from ingest.outputs import export

    reports, data = env
    curate.record_decision(reports / "alpha.yaml", "rl_algorithm", ["PPO"], "disagree on purpose", today=DAY)
    from ingest.pipeline import run
    from ingest.pipeline_settings import Settings

    run([reports / "alpha.yaml"], reports_dir=reports, settings=Settings(data_dir=data, offline=True))
    ag = export.TABLES["agreement"](Store(data)).set_index("dimension")
    # beta's curated PPO agrees with its automatic PPO; alpha's curated PPO disagrees with GRPO
    assert (ag.loc["rl_algorithm", "both"], ag.loc["rl_algorithm", "agree"], ag.loc["rl_algorithm", "disagree"]) == (2, 1, 1)
    assert ag.loc["rl_algorithm", "agreement"] == 0.5
    md = export.render(ag.reset_index(), "md")
    assert "| rl_algorithm | RL algorithm | 2 | 2 | 2 | 2 | 1 | 1 | 0.5 |" in md


def test_review_cells_cached_per_generation_are_rebuilt_after_a_decision(env: tuple[Path, Path]) -> None:
    """A report's cells are cached per store generation: a decision writes a new generation, so the
    page's pending count and the cell's state change at once, never showing the cached old ones."""
    label = LENS.dimension("rl_algorithm").label

    def state(at: AppTest) -> tuple[int, str]:
        line = next(c.value for c in at.caption if "still unreviewed" in c.value)
        head = next(c for c in cells(at) if c.startswith(f"{label} · "))
        return int(line.split()[0]), head.split("\n", 1)[0].rsplit("· ", 1)[-1]

    at = review_page(rid="alpha", decide="rl_algorithm")
    before, was = state(at)
    assert before >= 1 and was == "unreviewed"
    at.button(key="save_rl_algorithm").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert state(at) == (before - 1, "curated")
    assert state(review_page(rid="alpha")) == (before - 1, "curated")  # a new session reads the new generation too


def _review_url(**params: str) -> AppTest:
    """The Review page opened from a link (`/review?rid=…`)."""
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page("views/review.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_review_link_by_id_opens_that_report_and_keeps_the_id_in_the_url(env: tuple[Path, Path]) -> None:
    at = _review_url(rid="beta")
    assert at.selectbox(key="rid").value == "beta"
    assert at.query_params["rid"] in ("beta", ["beta"])  # the id, never the shown model name


def test_review_link_to_an_unknown_id_says_so_and_opens_no_report(env: tuple[Path, Path]) -> None:
    at = _review_url(rid="qwen3")
    assert any("No report with id 'qwen3'" in t for t in texts(at))
    assert at.selectbox(key="rid").value is None
    assert not any(t.startswith("automatic:") for t in texts(at)) and not cells(at)


def test_next_unreviewed_skips_reports_without_a_file(env: tuple[Path, Path]) -> None:
    reports, _ = env
    (reports / "alpha.yaml").unlink()  # alpha has pending cells but no file to write a decision into
    at = review_page(rid="beta")
    at.button(key="next").click().run()
    assert at.selectbox(key="rid").value != "alpha"


def _train_confidence():
    import importlib.util
    import sys

    from tests.conftest import REPO

    if "train_confidence" not in sys.modules:
        sys.path.insert(0, str(REPO / "eval"))
        spec = importlib.util.spec_from_file_location("train_confidence", REPO / "eval" / "train_confidence.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules["train_confidence"] = mod
        spec.loader.exec_module(mod)
    return sys.modules["train_confidence"]


def test_a_saved_review_decision_becomes_a_confidence_training_example(env: tuple[Path, Path]) -> None:
    """Issue 22: every curated cell beside its stored automatic cell is an example (right = kept)."""
    tc = _train_confidence()
    reports, data = env
    lens = load_lens()
    before = tc.review_examples(reports, data, lens)
    curate.record_decision(reports / "alpha.yaml", "rl_algorithm", ["PPO"], "disagree on purpose", today=DAY)
    after = tc.review_examples(reports, data, lens)
    assert len(after) == len(before) + 1
    ex = next(e for e in after if e.doc == "review:alpha" and e.dim == "rl_algorithm")
    assert ex.correct is False and ex.source == "review" and ex.features
    import confidence_loo  # beside train_confidence in eval/, which _train_confidence put on the path

    model = confidence_loo.fit([*after, *[tc.Example("g", "x", ex.features, True, "gold")] * 3])
    assert model.trained_on["review"] == len(after)


def test_review_page_says_what_the_least_sure_third_holds_and_goes_to_the_least_sure(env: tuple[Path, Path]) -> None:
    at = review_page(rid="alpha")
    said = "automatic cells are confident" if review.labels_confident() else "No cell is labelled confident"
    assert any(said in c.value for c in at.caption)
    assert any("least sure first" in c.value and "expected to hold" in c.value for c in at.caption)
    cmp_ = Store(env[1]).read_table("comparison")
    at.button(key="next").click().run()
    assert at.selectbox(key="rid").value == review.next_least_sure(cmp_, after="alpha")


def test_next_reviewable_follows_the_queue_and_tests_files_only_until_a_hit() -> None:
    """"Next least sure" on the cached queue order: the first reviewable report other than the shown one,
    else the shown one if it is the only one pending, else none; a file is tested only down to the hit."""
    from views.review import next_reviewable

    tested: list[str] = []

    def file_of(r: str) -> Path | None:
        tested.append(r)
        return None if r == "nofile" else Path(f"{r}.yaml")

    order = ["nofile", "a", "b", "c"]
    assert next_reviewable(order, ["a", "b", "c", "nofile"], file_of, after=None) == "a"
    assert tested == ["nofile", "a"]  # not every report's file
    assert next_reviewable(order, ["a", "b", "c", "nofile"], file_of, after="a") == "b"
    assert next_reviewable(order, ["b", "c"], file_of, after="c") == "b"  # "a" is not among the ids
    assert next_reviewable(["nofile", "a"], ["a", "nofile"], file_of, after="a") == "a"  # the only one pending
    assert next_reviewable(["nofile"], ["nofile"], file_of, after=None) is None
    assert next_reviewable([], ["a"], file_of, after="a") is None
