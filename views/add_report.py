"""Add report page: a form, a YAML paste or a PDF upload -> a valid reports/<id>.yaml, then ingest it.

Validation is the schema's own (`ReportSpec`), so the page shows exactly the messages
`python -m ingest check` would. Files are written atomically and never replace an existing
report (or uploaded PDF) unless the user ticks "replace".

The page is a public surface: anyone who can open the dashboard can use it. So it can be
switched off (`FRL_READ_ONLY=1`: a plain notice, nothing written), an upload is the only way to
give it a local file (a typed `path:` or a `file://` URL is refused), the ingest applies the same
source roots and private-host rule as the command line, and every message is plain text.
"""

from __future__ import annotations

import datetime as dt
import os
import typing
from pathlib import Path

import streamlit as st
import yaml
from pydantic import ValidationError

from ingest.common.atomic import atomic_write_bytes, describe_os_error
from ingest.outputs.curate import UploadTooLarge, upload_bytes
from ingest.sources.confine import OutsideRoots, folder_inside
from ingest.sources.fetch import FetchSettings
from ingest.sources.registry import MAX_YAML_BYTES, SpecError, SpecFileError, load_report, parse_yaml, validation_errors
from ingest.sources.schema import DocType, ReportSpec
from views import data, htmltable
from views.plain import escape_md, message

UPLOAD_DIR = "files"


def spec_from_fields(fields: dict[str, object]) -> ReportSpec:
    """Validate form fields (blank ones dropped) as a ReportSpec; raises SpecFileError with the schema's messages."""
    clean = {k: v for k, v in fields.items() if v not in (None, "", [], {})}
    src = {k: clean.pop(k) for k in ("url", "path") if k in clean}
    if src:
        clean["source"] = src
    if isinstance(clean.get("tags"), str):
        clean["tags"] = [t.strip() for t in str(clean["tags"]).split(",") if t.strip()]
    return _validate(clean, f"reports/{clean.get('id', '?')}.yaml")


def spec_from_yaml(text: str) -> ReportSpec:
    """Validate pasted YAML as a ReportSpec; raises SpecFileError (the size cap first, before any parsing)."""
    obj = parse_yaml(text, "pasted YAML")
    if not isinstance(obj, dict):
        raise SpecFileError([SpecError("pasted YAML", "", "the YAML must be a mapping of `key: value` lines")])
    return _validate(obj, "pasted YAML")


def _validate(obj: dict, file: str) -> ReportSpec:
    try:
        return ReportSpec.model_validate(obj)
    except ValidationError as exc:
        raise SpecFileError(validation_errors(exc, file)) from exc


def typed_local_source(spec: ReportSpec) -> str:
    """Why a spec's typed source is refused here ('' if fine): only an upload may give a local file."""
    src = spec.source
    if src is None:
        return ""
    if src.path:
        return (
            f"source.path {src.path!r}: a local file can only be given by uploading it on this page; "
            "remove `path:` or upload the PDF"
        )
    if src.url and src.url.strip().lower().startswith("file:"):
        return f"source.url {src.url!r}: file:// URLs are not accepted here; upload the file instead"
    return ""


def spec_yaml(spec: ReportSpec) -> str:
    """The YAML text written for a spec (only the fields that were given)."""
    return yaml.safe_dump(spec.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True),
                          sort_keys=False, allow_unicode=True)  # fmt: skip


#: Upload kinds: file suffix accepted -> suffix the source is saved under.
UPLOAD_KINDS: dict[str, str] = {"pdf": ".pdf", "md": ".md", "markdown": ".md", "html": ".html", "htm": ".html"}
DELETED_DIR = ".deleted"


def write_report(
    spec: ReportSpec, reports_dir: Path, replace: bool = False, pdf: bytes | None = None, suffix: str = ".pdf"
) -> Path:
    """Write reports/<id>.yaml (and an uploaded source: PDF, Markdown or HTML) atomically; refuses to
    overwrite unless `replace`.

    The written file is loaded back with the registry's strict loader, so a file the pipeline
    would reject never stays on disk.
    """
    path = reports_dir / f"{spec.id}.yaml"
    if path.exists() and not replace:
        raise FileExistsError(f"{path.name} already exists; tick “replace” to overwrite it")
    if pdf is not None:
        if suffix not in set(UPLOAD_KINDS.values()):
            raise ValueError(f"unsupported source type {suffix!r}")
        pdf_path = folder_inside(reports_dir / UPLOAD_DIR, reports_dir) / f"{spec.id}{suffix}"
        if pdf_path.exists() and not replace:
            raise FileExistsError(f"{UPLOAD_DIR}/{pdf_path.name} already exists; tick “replace” to overwrite it")
        atomic_write_bytes(pdf_path, pdf)
    old = path.read_bytes() if path.exists() else None
    atomic_write_bytes(path, spec_yaml(spec).encode("utf-8"))
    try:
        load_report(path)
    except SpecFileError:
        if old is None:
            path.unlink()
        else:
            atomic_write_bytes(path, old)
        raise
    return path


def _errors(exc: SpecFileError) -> None:
    for e in exc.errors:
        message("error", f"{e.field or e.file}: {e.message}" + (f" — {e.hint}" if e.hint else ""))


def _settings():  # type: ignore[no-untyped-def]
    """Pipeline settings of the dashboard: its data folder, source roots and private-host setting."""
    from ingest.pipeline_settings import (
        Settings,  # deferred (bench/import_costs.py): pages that add no report skip it
    )

    return Settings(
        data_dir=data.data_dir(),
        source_roots=data.source_roots(),
        fetch_settings=FetchSettings(allow_private_hosts=data.allow_private_hosts()),
    )


def _ingest(path: Path) -> None:
    """Run the real pipeline on the new file with a progress bar, then show its row."""
    from ingest.pipeline import run  # deferred: see _settings

    bar = st.progress(0.0, text="ingesting…")

    def progress(items):  # type: ignore[no-untyped-def]
        items = list(items)
        for i, (spec, p) in enumerate(items):
            bar.progress(i / max(len(items), 1), text=escape_md(f"ingesting {spec.id}…"))
            yield spec, p
        bar.progress(0.95, text="rebuilding tables…")

    result = run(files=[path], reports_dir=data.reports_dir(), settings=_settings(), progress=progress)
    bar.progress(1.0, text="done")
    data.clear()
    for o in result.outcomes:
        message("error" if o.failed else "success", f"{o.report_id}: {o.status} — {o.message}")
    rid = path.stem
    st.markdown(htmltable.link("report", f"Open the card of {rid} →", report=rid), unsafe_allow_html=True)


def delete_report(report_id: str, reports_dir: Path) -> Path:
    """Move reports/<id>.yaml (and its uploaded source) to reports/.deleted/: out of the tables, never lost.

    Each file is kept under a new timestamped name (`<id>.<UTC time>[.<n>].<ext>`) that no earlier
    deletion used: deleting, re-adding and deleting the same id again keeps both old files.
    """
    path = reports_dir / f"{report_id}.yaml"
    if not path.is_file() or path.parent.resolve() != reports_dir.resolve():
        raise FileNotFoundError(f"{path.name} not found")
    dest = folder_inside(reports_dir / DELETED_DIR, reports_dir)
    dest.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    kept = dest / path.name
    for f in [path, *sorted((reports_dir / UPLOAD_DIR).glob(f"{report_id}.*"))]:
        if f.stem == report_id and f.is_file():
            moved = keep_unique(f, dest, f"{report_id}.{stamp}", f.suffix)
            kept = moved if f == path else kept
    return kept


def keep_unique(src: Path, folder: Path, stem: str, suffix: str) -> Path:
    """Move `src` into `folder` as `<stem>[.<n>]<suffix>`, never over an existing file (hard link, then unlink)."""
    for n in range(10_000):
        target = folder / (f"{stem}{suffix}" if n == 0 else f"{stem}.{n}{suffix}")
        try:
            os.link(src, target)  # fails if `target` exists: no deleted file is ever overwritten
        except FileExistsError:
            continue
        except OSError:  # no hard links on this file system: rename, after checking the name is free
            if target.exists():
                continue
            src.rename(target)
            return target
        src.unlink()
        return target
    raise FileExistsError(f"no free name for {src.name} in {folder.name}/")


def _delete_section() -> None:
    """Delete a report, after an explicit confirmation; the tables are rebuilt without it."""
    with st.popover("Delete a report"):
        rdir = data.reports_dir()
        ids = sorted(p.stem for p in rdir.glob("*.yaml") if not p.name.startswith("_")) if rdir.is_dir() else []
        if not ids:
            st.caption("No report files.")
            return
        rid = st.selectbox("Report file", ids, key="del_id")
        sure = st.checkbox(f"Yes, remove {rid} (its file moves to {DELETED_DIR}/ and can be restored)", key="del_sure")
        if st.button("Delete", key="del_go", disabled=not sure, type="primary"):
            from ingest.pipeline import run  # deferred: see _settings

            try:
                kept = delete_report(rid, rdir)
            except (OSError, OutsideRoots) as exc:
                why = describe_os_error(exc) if isinstance(exc, OSError) and exc.errno else str(exc)
                message("error", f"cannot delete {rid}: {why}; the report is unchanged")
                return
            run(reports_dir=rdir, settings=_settings())
            data.clear()
            message("success", f"Removed {rid}; its file is kept as {DELETED_DIR}/{kept.name} in the reports folder.")


def render() -> None:
    """Draw the page."""
    st.title("Add report")
    if data.read_only():
        message("info", "This dashboard is read-only: adding reports is switched off (FRL_READ_ONLY).")
        return
    st.caption(
        escape_md(f"Writes {data.reports_dir().name}/<id>.yaml, then ingests it. A local file can only be given by upload.")
    )
    mode = st.radio("Input", ["form", "YAML"], horizontal=True, key="add_mode")
    with st.form("add_report"):
        if mode == "form":
            c1, c2 = st.columns(2)
            fields: dict[str, object] = {
                "id": c1.text_input("id (file name) *", placeholder="my-model", key="add_id"),
                "model": c2.text_input("model *", placeholder="My Model", key="add_model"),
                "organization": c1.text_input("organization *", key="add_organization"),
                "country": c2.text_input("country", key="add_country"),
                "doc_type": c1.selectbox("doc type *", list(typing.get_args(DocType)), key="add_doc_type"),
                "arxiv_id": c2.text_input("arXiv id", placeholder="2508.06471", key="add_arxiv_id"),
                "url": c1.text_input("source URL", key="add_url"),
                "params": c2.text_input("params", key="add_params"),
                "tags": c1.text_input("tags (comma-separated)", key="add_tags"),
                "notes": c2.text_input("notes", key="add_notes"),
            }
            text = ""
            st.caption("* required")
        else:
            fields = {}
            # No max_chars: the browser would drop a longer paste without a word; the size is checked on submit.
            text = st.text_area(f"Report YAML (see reports/_template.yaml; at most {MAX_YAML_BYTES // 1024} KB)", height=260,
                                key="add_yaml")  # fmt: skip
        pdf = st.file_uploader(
            "Source file: PDF, Markdown or HTML (optional; saved beside the YAML as its source)", type=list(UPLOAD_KINDS)
        )
        replace = st.checkbox("replace an existing report with the same id")
        submitted = st.form_submit_button("Save and ingest")
    if not submitted:
        _delete_section()
        return
    try:
        spec = spec_from_fields(fields) if mode == "form" else spec_from_yaml(text)
        refused = typed_local_source(spec)  # before the upload sets `path:` itself
        if refused:
            message("error", refused)
            return
        pdf_bytes = upload_bytes(pdf) if pdf is not None else None
        suffix = UPLOAD_KINDS.get(Path(pdf.name).suffix.lower().lstrip("."), ".pdf") if pdf is not None else ".pdf"
        if pdf_bytes is not None:
            src = {"path": f"{UPLOAD_DIR}/{spec.id}{suffix}"} | (
                {"url": spec.source.url} if spec.source and spec.source.url else {}
            )
            spec = _validate({**spec.model_dump(by_alias=True), "source": src}, f"reports/{spec.id}.yaml")
        path = write_report(spec, data.reports_dir(), replace=replace, pdf=pdf_bytes, suffix=suffix)
    except SpecFileError as exc:
        _errors(exc)
        return
    except (FileExistsError, UploadTooLarge, OutsideRoots) as exc:
        message("warning", str(exc))
        return
    except OSError as exc:  # a full disk, a read-only folder: one line, nothing half-written
        message("error", f"cannot save the report: {describe_os_error(exc)}")
        return
    message("success", f"Saved {data.reports_dir().name}/{path.name}")
    st.code(spec_yaml(spec), language="yaml")
    _ingest(path)


if __name__ == "__main__":
    render()
