"""Issue 8 §1: local sources are confined to the source roots (reports folder, --source-root, FRL_SOURCE_ROOTS).

Every hostile path family — an absolute path, `../` traversal, a symlink in reports/ pointing out,
a `file://` URL — is refused with one message that does not depend on whether the file exists and
names no server path; the secret's text never reaches the store.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ingest import cli
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.sources.confine import OUTSIDE, OutsideRoots, confine, env_flag, env_roots, normalise_roots
from ingest.sources.fetch import FetchError, fetch_url, local_file
from ingest.store.store import Store

from .conftest import CORPUS, REPO, write_report

CANARY = "zebracanary"  # a word that appears only in the secret file


@pytest.fixture
def box(tmp_path: Path) -> dict[str, Path]:
    """reports/ (the root) beside a secret file outside it, and a readable report inside."""
    reports, outside = tmp_path / "reports", tmp_path / "outside"
    reports.mkdir()
    outside.mkdir()
    secret = outside / "secret.md"
    secret.write_text(f"# Secret\n\nThe {CANARY} agent password is hunter2.\n")
    (reports / "inside.md").write_text("# Inside\n\nThe agent uses a tool.\n")
    return {"reports": reports, "outside": outside, "secret": secret, "tmp": tmp_path}


def refusal(path: str, base: Path, roots: tuple[Path, ...]) -> str:
    with pytest.raises(FetchError) as err:
        local_file(path, base, normalise_roots(roots))
    return str(err.value)


# --------------------------------------------------------------------------- the rule itself


def test_etc_passwd_is_refused(box):
    msg = refusal("/etc/passwd", box["reports"], (box["reports"],))
    assert OUTSIDE in msg and "'/etc/passwd'" in msg


def test_dotdot_traversal_is_refused_and_names_no_server_path(box):
    msg = refusal("../outside/secret.md", box["reports"], (box["reports"],))
    assert OUTSIDE in msg and str(box["tmp"]) not in msg


def test_symlink_in_reports_pointing_outside_is_refused(box):
    (box["reports"] / "link.md").symlink_to(box["secret"])
    (box["reports"] / "dirlink").symlink_to(box["outside"], target_is_directory=True)
    assert OUTSIDE in refusal("link.md", box["reports"], (box["reports"],))
    assert OUTSIDE in refusal("dirlink/secret.md", box["reports"], (box["reports"],))


def test_missing_and_existing_files_outside_get_the_same_message(box):
    """No existence oracle: only the typed text differs between the two refusals."""
    base, roots = box["reports"], (box["reports"],)
    exists = refusal("../outside/secret.md", base, roots).replace("../outside/secret.md", "<P>")
    missing = refusal("../outside/nothing.md", base, roots).replace("../outside/nothing.md", "<P>")
    missing_dir = refusal("../nowhere/at/all.md", base, roots).replace("../nowhere/at/all.md", "<P>")
    assert exists == missing == missing_dir
    assert refusal("/etc/passwd", base, roots).replace("/etc/passwd", "<P>") == refusal("/etc/no-such-file", base, roots).replace(
        "/etc/no-such-file", "<P>"
    )


def test_file_url_obeys_the_same_rule(box, tmp_path):
    with pytest.raises(FetchError, match="outside the allowed source folders"):
        fetch_url(box["secret"].as_uri(), tmp_path / "cache", roots=normalise_roots([box["reports"]]))
    with pytest.raises(FetchError, match="outside the allowed source folders"):
        fetch_url("file:///etc/passwd", tmp_path / "cache", roots=normalise_roots([box["reports"]]))
    got = fetch_url((box["reports"] / "inside.md").as_uri(), tmp_path / "cache", roots=normalise_roots([box["reports"]]))
    assert got.path.name == "inside.md"


def test_inside_the_root_missing_file_names_path_relative_to_root(box):
    msg = refusal("sub/none.pdf", box["reports"], (box["reports"],))
    assert "not found (looked at reports/sub/none.pdf)" in msg and str(box["tmp"]) not in msg


def test_extra_root_allows_its_files_and_symlinks_into_it(box):
    (box["reports"] / "link.md").symlink_to(box["secret"])
    roots = normalise_roots([box["reports"], box["outside"]])
    assert local_file("link.md", box["reports"], roots).path == box["secret"].resolve()
    assert local_file("../outside/secret.md", box["reports"], roots).path == box["secret"].resolve()


def test_root_prefix_is_not_a_root(box):
    """`/x/reports-evil` is not inside `/x/reports` although the string starts the same."""
    evil = box["tmp"] / "reports-evil"
    evil.mkdir()
    (evil / "a.md").write_text("x")
    assert OUTSIDE in refusal("../reports-evil/a.md", box["reports"], (box["reports"],))


def test_no_roots_means_no_local_files(box):
    with pytest.raises(OutsideRoots):
        confine("inside.md", box["reports"], ())


# --------------------------------------------------------------------------- through the pipeline


@pytest.mark.parametrize(
    "source",
    [
        "path: {secret}",
        "path: ../outside/secret.md",
        "path: link.md",
        "path: /etc/passwd",
        "path: ../../../../../../etc/passwd",
        "url: 'file://{secret}'",
        "url: file:///etc/passwd",
        "path: ../outside/never-there.md",
    ],
)
def test_pipeline_refuses_sources_outside_the_roots_and_stores_nothing(box, source):
    (box["reports"] / "link.md").symlink_to(box["secret"])
    write_report(box["reports"], "evil", "source:\n  " + source.format(secret=box["secret"]) + "\n")
    res = run(reports_dir=box["reports"], settings=Settings(data_dir=box["tmp"] / "data"))
    [out] = res.outcomes
    assert out.failed and "outside the allowed source folders" in out.message, out.message
    if "{secret}" not in source:  # the typed text is echoed; nothing else names a server path
        assert str(box["tmp"]) not in out.message
    store = Store(box["tmp"] / "data")
    assert not (b := store.load_bundle("evil")) or not b.measured
    assert CANARY not in store.read_table("kwic").to_csv()


def test_pipeline_reads_sources_inside_the_reports_folder_and_extra_roots(box):
    write_report(box["reports"], "ok-inside", "source:\n  path: inside.md\n")
    write_report(box["reports"], "ok-extra", "source:\n  path: ../outside/secret.md\n")
    settings = Settings(data_dir=box["tmp"] / "data", source_roots=(box["outside"],))
    res = run(reports_dir=box["reports"], settings=settings)
    assert {o.report_id: o.status for o in res.outcomes} == {"ok-inside": "ok", "ok-extra": "ok"}


def test_settings_validate_roots(tmp_path):
    assert Settings(source_roots=(tmp_path / "a", tmp_path / "a")).source_roots == (tmp_path.resolve() / "a",)
    for bad in ("just-a-string", (None,), ("",)):
        with pytest.raises(ValueError):
            Settings(source_roots=bad)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- CLI and environment


def test_cli_source_root_option_and_environment(box, monkeypatch, capsys):
    write_report(box["reports"], "extra", "source:\n  path: ../outside/secret.md\n")
    monkeypatch.delenv("FRL_SOURCE_ROOTS", raising=False)
    assert cli.main(["check", "--reports-dir", str(box["reports"])]) == 1
    assert "outside the allowed source folders" in capsys.readouterr().err
    assert cli.main(["check", "--reports-dir", str(box["reports"]), "--source-root", str(box["outside"])]) == 0
    monkeypatch.setenv("FRL_SOURCE_ROOTS", os.pathsep.join(["", str(box["outside"]), ""]))
    assert env_roots() == (box["outside"],)
    assert cli.main(["check", "--reports-dir", str(box["reports"])]) == 0
    data = box["tmp"] / "data"
    assert cli.main(["--quiet", "--reports-dir", str(box["reports"]), "--data-dir", str(data)]) == 0


def test_cli_refuses_a_source_root_that_is_not_a_folder(box, monkeypatch, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--reports-dir", str(box["reports"]), "--source-root", str(box["tmp"] / "typo")])
    assert exc.value.code == 2
    monkeypatch.setenv("FRL_SOURCE_ROOTS", str(box["tmp"] / "typo"))
    assert cli.main(["--quiet", "--reports-dir", str(box["reports"]), "--data-dir", str(box["tmp"] / "d")]) == 2
    assert "FRL_SOURCE_ROOTS" in capsys.readouterr().err


def test_env_flag_is_strict():
    assert env_flag("X", {"X": "1"}) and env_flag("X", {"X": " Yes "})
    assert not env_flag("X", {"X": "0"}) and not env_flag("X", {}) and not env_flag("X", {"X": ""})
    with pytest.raises(ValueError, match="use 1"):
        env_flag("X", {"X": "maybe"})


@pytest.mark.skipif(not (CORPUS / "pdf").is_dir(), reason=f"corpus not found at {CORPUS}")
def test_corpus_examples_need_and_work_with_the_documented_root(monkeypatch, capsys):
    """examples/corpus/*.yaml point at ../shared/corpus: refused by default, fine with `--source-root ../shared/corpus`."""
    monkeypatch.delenv("FRL_SOURCE_ROOTS", raising=False)
    monkeypatch.chdir(REPO)
    files = [str(p.relative_to(REPO)) for p in sorted((REPO / "examples" / "corpus").glob("*.yaml"))]
    local = [f for f in files if "path:" in (REPO / f).read_text()]
    assert local
    assert cli.main(["check", *local]) == 1
    assert "outside the allowed source folders" in capsys.readouterr().err
    assert cli.main(["check", "--source-root", "../shared/corpus", *files]) == 0
    out = capsys.readouterr()
    assert not out.err and out.out.count("ok: ") == len(files)


@pytest.mark.corpus
@pytest.mark.skipif(not (CORPUS / "pdf").is_dir(), reason=f"corpus not found at {CORPUS}")
def test_corpus_example_ingests_with_the_documented_root(monkeypatch, tmp_path):
    monkeypatch.delenv("FRL_SOURCE_ROOTS", raising=False)
    monkeypatch.chdir(REPO)
    (tmp_path / "reports").mkdir()
    args = ["examples/corpus/deepseek-r1.yaml", "--quiet", "--offline", "--reports-dir", str(tmp_path / "reports")]
    args += ["--data-dir", str(tmp_path / "data")]
    assert cli.main([*args, "--source-root", "../shared/corpus"]) == 0
    assert Store(tmp_path / "data").load_bundle("deepseek-r1").meta.pages > 10


def test_check_refuses_a_file_url_outside_the_roots_without_reading(box, capsys):
    write_report(box["reports"], "furl", f"source:\n  url: '{box['secret'].as_uri()}'\n")
    assert cli.main(["check", "--reports-dir", str(box["reports"])]) == 1
    err = capsys.readouterr().err
    assert "file URL" in err and "outside the allowed source folders" in err and CANARY not in err


def test_check_reports_a_missing_local_source_inside_the_roots(box, capsys):
    """`check` finds a typo in source.path before an ingest does; outside the roots it still says only 'outside'."""
    write_report(box["reports"], "typo", "source:\n  path: insde.md\n")
    write_report(box["reports"], "folder", "source:\n  path: .\n")
    write_report(box["reports"], "good", "source:\n  path: inside.md\n")
    write_report(box["reports"], "away", "source:\n  path: ../outside/missing.md\n")
    assert cli.main(["check", "--reports-dir", str(box["reports"])]) == 1
    out = capsys.readouterr()
    lines = {ln.split(":")[1].strip().split("/")[-1]: ln for ln in out.err.splitlines()}
    assert "reports/insde.md does not exist" in lines["typo.yaml"]
    assert "is not a file" in lines["folder.yaml"]
    assert "outside the allowed source folders" in lines["away.yaml"] and "exist" not in lines["away.yaml"]
    assert all(str(box["tmp"]) not in ln.split(".yaml: ", 1)[1] for ln in out.err.splitlines())  # no server path past the YAML's
    assert "good.yaml" in out.out
