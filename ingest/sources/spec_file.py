"""One report file (or YAML data file) read strictly: size caps, safe YAML, schema, one clear error each.

The YAML itself is read by the tool's one guarded loader (`ingest.sources.guarded_yaml`).

Every failure is a `SpecFileError` carrying `SpecError`s that name the file, the field and a hint.
`ingest.sources.registry` loads a whole folder of such files.
"""

from __future__ import annotations

import difflib
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from ingest.sources.guarded_yaml import YamlRefused, load_yaml, read_yaml_file
from ingest.sources.schema import ReportSpec

#: Files in `reports/` that are not reports (templates, drafts).
SKIP_PREFIX = "_"

#: Field -> (message, hint) for a value that fails the field's pattern: readable rules, not regexes.
_PATTERN_RULES = {
    "id": (
        "must be 1 to 64 characters: lowercase letters, digits, '.', '_' and '-', starting with a letter or digit",
        "e.g. kimi-k1.5 (it becomes a file name)",
    ),
    "arxiv_id": ("must be an arXiv identifier: four digits, a dot, four or five digits", 'e.g. "2508.06471" (quoted)'),
}

_HINTS = {
    "extra_forbidden": "unknown key; check its spelling against {doc}",
    "missing": "this field is required; see {doc}",
    "literal_error": "use one of the allowed values",
    "string_pattern_mismatch": "lowercase letters, digits, '.', '_' and '-' only (it becomes a file name)",
    "date_from_datetime_parsing": "write dates as YYYY-MM-DD",
    "date_parsing": "write dates as YYYY-MM-DD",
    "date_type": "write dates as YYYY-MM-DD",
    "int_parsing": "write a whole number without separators, e.g. 28771",
    "int_type": "write a whole number without separators, e.g. 28771",
    "string_type": "write text (quote it if it looks like a number or date)",
    "dict_type": "this must be a mapping of `key: value` lines",
    "list_type": "this must be a list, e.g. [a, b]",
    "model_type": "this must be a mapping of `key: value` lines",
}


@dataclass(frozen=True)
class SpecError:
    """Why one report file could not be loaded."""

    file: str
    field: str
    message: str
    hint: str = ""

    def __str__(self) -> str:
        where = f"{self.file}: {self.field}" if self.field else self.file
        return f"{where}: {self.message}" + (f" (hint: {self.hint})" if self.hint else "")


class SpecFileError(Exception):
    """Raised by `load_report`; carries every problem found in the file."""

    def __init__(self, errors: list[SpecError]):
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = errors


def read_file(path: Path, what: str = "") -> str:
    """`guarded_yaml.read_yaml_file` with its refusals as a SpecFileError naming the file."""
    try:
        return read_yaml_file(path)
    except YamlRefused as exc:
        message = f"cannot read {what}: {exc}" if what else str(exc)
        raise SpecFileError([SpecError(str(path), "", message, exc.hint)]) from exc


def parse_yaml(text: str, file: str) -> object:
    """`guarded_yaml.load_yaml` with its refusals as a SpecFileError naming the file (and line)."""
    try:
        return load_yaml(text)
    except YamlRefused as exc:
        raise SpecFileError([SpecError(file, exc.where, str(exc), exc.hint)]) from exc


def _field_name(loc: Iterable) -> str:
    return ".".join("from" if p == "from_" else str(p) for p in loc)


def _key_names(model: type[BaseModel], seen: set[type] | None = None) -> set[str]:
    """Every key a model and the models inside it accept (field names and aliases)."""
    seen = seen if seen is not None else set()
    if model in seen:
        return set()
    seen.add(model)
    out: set[str] = set()
    stack: list[object] = []
    for name, f in model.model_fields.items():
        out |= {name, *(a for a in (f.alias,) if a)}
        stack.append(f.annotation)
    while stack:
        t = stack.pop()
        if isinstance(t, type) and issubclass(t, BaseModel):
            out |= _key_names(t, seen)
        else:
            stack.extend(typing.get_args(t))
    return out


def validation_errors(
    exc: ValidationError, file: str, doc: str = "reports/_template.yaml", model: type[BaseModel] | None = ReportSpec
) -> list[SpecError]:
    """Turn pydantic's errors into SpecErrors with a hint per error type; `doc` names where the format is documented.

    An unknown key gets the nearest valid key of `model` as its hint (`sorce` -> `source`).
    """
    out = []
    names = sorted(_key_names(model)) if model is not None else []
    for err in exc.errors():
        msg = err["msg"]
        hint = _HINTS.get(err["type"], "").format(doc=doc)
        if err["type"] == "string_pattern_mismatch":  # the rule in words, never the raw regex
            key = str(err["loc"][-1]) if err["loc"] else ""
            msg, hint = _PATTERN_RULES.get(key, ("does not have the expected form", hint))
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
            near = difflib.get_close_matches(str(err["loc"][-1]), names, n=1, cutoff=0.6) if err["loc"] else []
            if near:
                hint = f"did you mean `{near[0]}`? (the valid keys are in {doc})"
        out.append(SpecError(file, _field_name(err["loc"]), msg, hint))
    return out


M = TypeVar("M", bound=BaseModel)


def load_model(path: str | Path, model: type[M], what: str, doc: str) -> M:
    """Read a YAML data file (lexicon, lens) into a strict model; every failure is a SpecFileError
    naming the file, the field and a hint that points at `doc`, where the format is described."""
    p = Path(path)
    return model_from_text(read_file(p, what), p, model, doc)


def model_from_text(text: str, path: str | Path, model: type[M], doc: str) -> M:
    """`load_model` of a data file's text, already read (see `ingest.analysis.lens.load_lens`)."""
    p = Path(path)
    data = parse_yaml(text, str(p))
    if not isinstance(data, dict):
        raise SpecFileError([SpecError(str(p), "", "expected a mapping at the top level", f"see {doc}")])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errs = validation_errors(exc, str(p), doc, model)
        raise SpecFileError([e if e.hint else SpecError(e.file, e.field, e.message, f"see {doc}") for e in errs]) from exc


def load_report(path: str | Path, known_dimensions: set[str] | None = None) -> ReportSpec:
    """Load and validate one report file; raise SpecFileError naming file, field and hint.

    `known_dimensions`, when given, restricts the keys of `curated:` to the lens' dimensions.
    """
    spec = _read_report(Path(path))
    _check_dimensions(spec, str(path), known_dimensions)
    return spec


def _read_report(p: Path) -> ReportSpec:
    """Everything `load_report` checks that depends on the file alone (what the cache keeps)."""
    name = str(p)
    text = read_file(p)
    data = parse_yaml(text, name)
    if not isinstance(data, dict):
        raise SpecFileError([SpecError(name, "", "expected a mapping of fields at the top level", "start with `id: ...`")])
    try:
        spec = ReportSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecFileError(validation_errors(exc, name)) from exc
    if spec.id != p.stem:
        raise SpecFileError(
            [
                SpecError(
                    name, "id", f"id {spec.id!r} does not match the file name", f"rename the file to {spec.id}.yaml or change id"
                )
            ]
        )
    return spec


def _check_dimensions(spec: ReportSpec, name: str, known_dimensions: set[str] | None) -> None:
    """`curated:` keys must be dimensions of a lens (checked on every load: the lenses may change)."""
    _check_curated(spec.curated, name, known_dimensions)


def _check_curated(keys: Iterable[str], name: str, known_dimensions: set[str] | None) -> None:
    if known_dimensions is not None:
        unknown = sorted(set(keys) - known_dimensions)
        if unknown:
            raise SpecFileError(
                [
                    SpecError(name, f"curated.{k}", "unknown dimension", f"one of: {', '.join(sorted(known_dimensions))}")
                    for k in unknown
                ]
            )
