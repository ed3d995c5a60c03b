"""Issue 8 §3: the dashboard as a public surface — plain-text messages, read-only mode, confined Add report.

Messages carrying user- or file-derived text must be plain text (no Markdown image a browser would
fetch, no eaten underscores) and name no server path; Add report can be switched off and accepts
a local file only as an upload; its ingest refuses internal URLs like the command line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest

from tests.app_fixtures import copy_built
from tests.test_app import APP, run_app, texts
from tests.test_hosts import listening
from views import nav
from views.plain import escape_md, redact

HOSTILE = "![x](http://127.0.0.1:9/t.png) **bold** _a_b_ <img src=x> :red[hi] $x$ [link](http://evil/)"
ID_HINT = "lowercase letters, digits, '.', '_' and '-', starting with a letter or digit"


def markdown_bodies(at: AppTest) -> list[str]:
    """Every element body the browser renders as Markdown."""
    out: list[str] = []
    for kind in ("markdown", "caption", "error", "warning", "info", "success", "title", "header", "subheader"):
        out += [str(e.value) for e in at.get(kind)]
    return out


def assert_no_markdown_payload(at: AppTest) -> None:
    """No Markdown body holds an image, link or tag that is not backslash-escaped."""
    for body in markdown_bodies(at):
        live = re.sub(r"\\.", "", body)  # what is left once every escaped character is dropped
        assert "![" not in live and "](" not in live and "<img" not in live, body


@pytest.fixture
def env(pipeline_store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy_built(pipeline_store(3), tmp_path / "built")  # the real pipeline's; Add report writes to an empty reports folder
    monkeypatch.setenv("FRL_DATA_DIR", str(tmp_path / "built" / "data"))
    monkeypatch.setenv("FRL_REPORTS_DIR", str(tmp_path / "reports"))
    for var in ("FRL_READ_ONLY", "FRL_SOURCE_ROOTS", "FRL_ALLOW_PRIVATE_HOSTS"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def paste(at: AppTest, text: str) -> AppTest:
    at.radio(key="add_mode").set_value("YAML").run()
    at.text_area(key="add_yaml").set_value(text)
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


YAML_HEAD = "id: x\nmodel: X\norganization: L\ndoc_type: blog\n"


# --------------------------------------------------------------------------- plain text


def test_markdown_in_a_pasted_path_is_shown_as_plain_text_and_nothing_written(env):
    at = paste(run_app("add_report"), YAML_HEAD + f"source:\n  path: '{HOSTILE}'\n")
    shown = [t for t in texts(at) if "upload" in t]
    assert shown and HOSTILE in shown[0]
    assert_no_markdown_payload(at)
    assert not (env / "reports").exists() or not list((env / "reports").glob("*.yaml"))


def test_markdown_in_a_schema_error_is_plain_text(env):
    at = paste(run_app("add_report"), YAML_HEAD + f"'{HOSTILE}': 1\n")
    assert any(HOSTILE in t and "unknown key" in t for t in texts(at))
    assert_no_markdown_payload(at)


def test_underscores_in_the_id_hint_survive(env):
    at = run_app("add_report")
    for k, v in {"id": "Bad ID!", "model": "X", "organization": "Lab"}.items():
        at.text_input(key=f"add_{k}").set_value(v)
    at.button[0].click().run()
    assert any(ID_HINT in t for t in texts(at))  # the rule in words, its underscore intact
    assert not any("[a-z0-9._-]" in t for t in texts(at))  # never the raw regex


def test_report_page_header_and_status_line_are_plain(env, monkeypatch):
    from ingest.pipeline import run
    from ingest.pipeline_settings import Settings

    # A report file whose model name is hostile Markdown and whose source lies outside the roots:
    # the real pipeline fails it with a message that quotes the typed path.
    spec = {"id": "hostile", "model": HOSTILE, "organization": "Lab", "doc_type": "other",
            "source": {"path": "/srv/private/x.pdf"}}  # fmt: skip
    built = env / "built"
    (built / "reports" / "hostile.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    run(reports_dir=built / "reports", settings=Settings(data_dir=built / "data", offline=True))
    at = run_app("report", report="hostile")
    assert at.header[0].value == escape_md(HOSTILE)
    status = [x for x in texts(at) if x.startswith("Last run: failed")]
    assert status and "/srv/private" not in status[0] and "…/x.pdf" in status[0]
    assert_no_markdown_payload(at)


def test_escape_md_escapes_every_markdown_character():
    out = escape_md("a_b *c* `d` [e](f) ![g](h) <i> # j\n    k | l ~m~ $n$ :o:")
    for ch in "_*`[]()!<>#|~$:":
        assert all(out[i - 1] == "\\" for i, c in enumerate(out) if c == ch), (ch, out)
    assert "\n    " not in out  # no indented code block


def test_redact_shortens_server_paths_but_not_urls():
    folders = [("/srv/app/reports", "reports"), ("/srv/app/data", "data")]
    s = "looked at /srv/app/reports/x.pdf, cache /srv/app/data/cache; other /etc/secret/key.pem; https://h.org/a/b.pdf"
    got = redact(s, folders)
    assert got == "looked at reports/x.pdf, cache data/cache; other …/key.pem; https://h.org/a/b.pdf"


def test_empty_store_notice_names_no_server_path(tmp_path, monkeypatch):
    monkeypatch.setenv("FRL_DATA_DIR", str(tmp_path / "nothing"))
    at = run_app()
    assert any("No results in nothing yet" in t for t in texts(at))
    assert all(str(tmp_path) not in t for t in texts(at) + markdown_bodies(at))


# --------------------------------------------------------------------------- Add report: read-only, uploads only


def test_read_only_dashboard_hides_add_report_and_writes_nothing(env, monkeypatch):
    monkeypatch.setenv("FRL_READ_ONLY", "1")
    assert "add" not in nav.names()
    at = AppTest.from_file(str(Path(APP).parent / "views" / "add_report.py"), default_timeout=60).run()
    assert not at.exception
    assert any("read-only" in t for t in texts(at))
    assert not at.button and not at.text_input and not at.text_area
    assert not (env / "reports").exists()
    monkeypatch.setenv("FRL_READ_ONLY", "perhaps")  # an unclear value fails safe
    assert "add" not in nav.names()
    monkeypatch.setenv("FRL_READ_ONLY", "0")
    assert "add" in nav.names()


@pytest.mark.parametrize(
    "source", ["path: /etc/passwd", "path: ../../../../etc/passwd", "path: files/x.pdf", "url: file:///etc/passwd"]
)
def test_typed_local_sources_are_refused(env, source):
    at = paste(run_app("add_report"), YAML_HEAD + f"source:\n  {source}\n")
    assert any("upload" in t for t in texts(at))
    assert not (env / "reports").exists() or not list((env / "reports").glob("*.yaml"))


def test_file_url_in_the_form_is_refused(env):
    at = run_app("add_report")
    for k, v in {"id": "f", "model": "F", "organization": "Lab", "url": "file:///etc/passwd"}.items():
        at.text_input(key=f"add_{k}").set_value(v)
    at.button[0].click().run()
    assert any("file:// URLs are not accepted here" in t for t in texts(at))
    assert not (env / "reports" / "f.yaml").exists()


def test_add_report_ingest_refuses_internal_urls_without_connecting(env):
    with listening() as lst:
        at = run_app("add_report")
        url = f"http://127.0.0.1:{lst.port}/report.pdf"
        for k, v in {"id": "inner", "model": "Inner", "organization": "Lab", "url": url}.items():
            at.text_input(key=f"add_{k}").set_value(v)
        at.button[0].click().run()
        assert not at.exception
        assert any("inner: failed" in t and "requests to internal addresses are refused" in t for t in texts(at))
        assert lst.accepts == 0
