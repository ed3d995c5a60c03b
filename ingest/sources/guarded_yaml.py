"""The one YAML loader of the tool: every YAML file it reads (reports, proposals, the watch list,
lexicon, lenses, the benchmark catalogue, pasted YAML) goes through `load_yaml`.

A YAML file is untrusted input like any other. PyYAML's safe loader builds no objects, but it
expands aliases ("billion laughs": 175 KB of aliases become gigabytes), recurses on nesting
(`[[[[…]]]]` exhausts the stack) and takes seconds and tens of MB for 256 KB of tiny values. So,
before anything is composed, the text's size is checked, then its parser events are counted
against the alias, depth and node budgets (the parser itself is not recursive); only then is it
loaded, with duplicate keys refused (PyYAML silently keeps the last one) and an invalid date
(`released: 2025-13-45`, unquoted) kept as text, so the schema reports it beside every other
error of the file instead of the loader stopping at it.

A file is read by `read_yaml_file`: a regular file only (after symbolic links; a link to
/dev/zero or a named pipe would never end), at most the size cap, UTF-8, every failure (a link
loop, no permission) one `YamlRefused` for that file alone.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import yaml

#: Text larger than this is refused before parsing (a report or data file is a few KB; pasted text too).
MAX_YAML_BYTES = 256 * 1024
#: Aliases allowed in one file; a "billion laughs" bomb needs many more.
MAX_ALIASES = 20
#: Nesting allowed in one file; PyYAML's composer recurses, so `[[[[…]]]]` would exhaust the stack.
MAX_DEPTH = 50
#: Scalars and collections allowed in one file: a report has a few hundred, the benchmark catalogue a
#: few thousand; 256 KB of `[1,1,1,…]` would be 120,000, slow and large to build.
MAX_NODES = 20_000

#: libyaml's C parser when PyYAML has it (much faster than the pure-Python one); same safe constructor.
_SafeBase: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlRefused(ValueError):
    """The text is too large, shaped like an attack, or not YAML; `where` (line and column) and
    `hint` say more."""

    def __init__(self, message: str, where: str = "", hint: str = ""):
        super().__init__(message)
        self.where = where
        self.hint = hint


class _Loader(_SafeBase):  # type: ignore[misc, valid-type]
    """Safe loader that rejects duplicate keys and keeps an invalid timestamp as its text."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: set = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            duplicate = key in seen
        except TypeError:  # an unhashable key (a list as a key): the constructor below says so
            break
        if duplicate:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return yaml.constructor.SafeConstructor.construct_mapping(loader, node, deep=deep)


def _construct_timestamp(loader: _Loader, node: yaml.ScalarNode) -> object:
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except (ValueError, OverflowError):
        return loader.construct_scalar(node)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


def _check_budgets(text: str) -> None:
    """Refuse YAML with many aliases ("billion laughs"), deep nesting or too many values; reports
    never need them. Scans parser events lazily: a refused file is never parsed to its end."""
    aliases = depth = nodes = 0
    try:
        for ev in yaml.parse(text, Loader=_SafeBase):
            nodes += 1
            if nodes > MAX_NODES:
                raise YamlRefused(f"too many YAML values (more than {MAX_NODES:,})", hint=_SIZE_HINT)
            if isinstance(ev, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise YamlRefused(f"too many YAML aliases (more than {MAX_ALIASES})", hint=_BUDGET_HINT)
            elif isinstance(ev, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise YamlRefused(f"YAML nested too deeply (more than {MAX_DEPTH} levels)", hint=_BUDGET_HINT)
            elif isinstance(ev, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError as exc:  # libyaml stops at its own nesting limit before ours
        if "nesting depth" in str(exc):
            raise YamlRefused(f"YAML nested too deeply (more than {MAX_DEPTH} levels)", hint=_BUDGET_HINT) from exc
        raise


_BUDGET_HINT = "remove anchors (&), aliases (*) and deep nesting"
_SIZE_HINT = "a report file is a few KB"


def load_yaml(text: str, max_bytes: int = MAX_YAML_BYTES) -> object:
    """The YAML document in `text`, within the size, alias, depth and node budgets; YamlRefused otherwise.

    The size cap comes first, before a single character is parsed: pasted text or an upload of
    20 MB would otherwise cost minutes and gigabytes in the parser before any later check.
    """
    size = len(text.encode("utf-8", "surrogatepass"))  # one encoded copy, before any parsing
    if size > max_bytes:
        raise YamlRefused(f"too large: {size:,} bytes, more than the limit of {max_bytes:,} bytes", hint=_SIZE_HINT)
    try:
        _check_budgets(text)
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        ctx = getattr(exc, "context_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        if mark and ctx and ctx.line != mark.line:  # e.g. an unclosed quote: the error shows where it began
            where += f" (the construct starts at line {ctx.line + 1})"
        problem = getattr(exc, "problem", None) or str(exc)
        raise YamlRefused(f"invalid YAML: {problem}", where, "check indentation and quoting (':' in text needs quotes)") from exc
    except (ValueError, TypeError, RecursionError) as exc:  # a constructor's error on a hostile value
        raise YamlRefused(f"invalid value: {exc}", hint="write dates as YYYY-MM-DD and numbers without separators") from exc


def read_yaml_file(path: str | Path, max_bytes: int = MAX_YAML_BYTES) -> str:
    """The text of a YAML file: a regular file (symbolic links followed), at most `max_bytes`, UTF-8;
    YamlRefused (one line) otherwise. Opened without blocking, so a named pipe is refused, not waited on."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise YamlRefused("file not found") from None
    except OSError as exc:
        raise YamlRefused(f"cannot be read ({exc.strerror or exc})", hint="check the file and its permissions") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise YamlRefused("is a directory, not a YAML file")
        if not stat.S_ISREG(st.st_mode):
            raise YamlRefused("is not a regular file (a device, pipe or socket)", hint="point at a YAML file")
        if st.st_size > max_bytes:
            raise YamlRefused(f"file too large ({st.st_size} bytes)", hint=_SIZE_HINT)
        with os.fdopen(fd, "rb") as fh:
            fd = -1  # closed by the file object from here on
            data = fh.read(max_bytes + 1)  # a file that grew since the check is cut here, not read on
    except OSError as exc:
        raise YamlRefused(f"cannot be read ({exc.strerror or exc})", hint="check the file and its permissions") from None
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > max_bytes:
        raise YamlRefused(f"file too large (more than {max_bytes:,} bytes)", hint=_SIZE_HINT)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise YamlRefused("not UTF-8 text", hint="save the file as UTF-8") from None
