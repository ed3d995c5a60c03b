"""Confinement of local sources: a `source.path` (or `file://` URL) must lie inside an allowed root.

A report file is untrusted input, and so is whatever the dashboard's Add report page receives.
Without a rule, `source: {path: /etc/passwd}` or `../../…` would make the server read any file it
can reach and show its text in the KWIC table and evidence quotes. The rule: the path, after
resolving `..` and every symlink (`os.path.realpath`), must lie inside one of the allowed source
roots — the reports folder, plus folders named with `--source-root DIR` or `$FRL_SOURCE_ROOTS`.

The refusal is one message that depends only on what the user wrote, never on the file system:
an existing and a missing file outside the roots get the same words (no existence oracle), and
no server path appears in it. Callers read the *resolved* path, so the file checked is the file read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

#: Environment variable with extra source roots, separated by os.pathsep (":" on Linux/macOS).
ROOTS_ENV = "FRL_SOURCE_ROOTS"
#: Environment variable that lets URL sources reach loopback/private/link-local addresses.
PRIVATE_HOSTS_ENV = "FRL_ALLOW_PRIVATE_HOSTS"
#: Environment variable that switches the dashboard's Add report page off.
READ_ONLY_ENV = "FRL_READ_ONLY"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}

#: The refusal, identical for existing and missing files (and free of server paths).
OUTSIDE = (
    "is outside the allowed source folders (the reports folder and any --source-root or "
    f"{ROOTS_ENV} folder); put the file there, upload it, or allow its folder with --source-root"
)


class OutsideRoots(ValueError):
    """A local source lies outside every allowed root; the message is meant for the user."""


def env_flag(name: str, environ: Mapping[str, str] | None = None, *, default: bool = False) -> bool:
    """An on/off environment setting ("1"/"true"/"yes"/"on" or "0"/"false"/"no"/"off"/empty).

    Any other value is a ValueError, so a typo never silently picks the unsafe setting.
    """
    raw = (os.environ if environ is None else environ).get(name)
    if raw is None:
        return default
    v = raw.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise ValueError(f"{name}={raw!r}: use 1 (on) or 0 (off)")


def parse_roots(text: str) -> tuple[Path, ...]:
    """Folders from an os.pathsep-separated list (blank entries skipped), as given."""
    return tuple(Path(p.strip()) for p in text.split(os.pathsep) if p.strip())


def env_roots(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """The extra source roots named in $FRL_SOURCE_ROOTS (none when unset)."""
    return parse_roots((os.environ if environ is None else environ).get(ROOTS_ENV, ""))


def resolve_root(root: str | os.PathLike[str]) -> Path:
    """A root as an absolute path with symlinks resolved (it need not exist: then it holds nothing)."""
    if isinstance(root, bool) or not isinstance(root, str | os.PathLike) or not str(root).strip():
        raise ValueError(f"a source root must be a folder path, not {root!r}")
    if "\x00" in str(root):
        raise ValueError("a source root must not contain NUL characters")
    return Path(os.path.realpath(os.path.expanduser(os.fspath(root))))


def normalise_roots(roots: Iterable[str | os.PathLike[str]]) -> tuple[Path, ...]:
    """Resolved roots without duplicates, in the given order."""
    out: list[Path] = []
    for r in roots:
        p = resolve_root(r)
        if p not in out:
            out.append(p)
    return tuple(out)


def within(path: Path, roots: Iterable[Path]) -> Path | None:
    """The root (already resolved) that contains the resolved `path`, or None."""
    for root in roots:
        if path == root or path.is_relative_to(root):
            return root
    return None


def confine(path: str, base_dir: Path, roots: Iterable[Path], what: str = "source.path") -> tuple[Path, Path]:
    """Resolve `path` (relative to `base_dir`) and check it lies inside a root: (resolved path, its root).

    Raises OutsideRoots with a message that depends only on `path` and `what`, so it cannot tell an
    existing file from a missing one. Only after this check may the caller look at the file.
    """
    if "\x00" in path:
        raise OutsideRoots(f"{what} {path!r} contains a NUL character")
    p = Path(path)
    if not p.is_absolute():
        p = Path(base_dir) / p
    resolved = Path(os.path.realpath(p))
    root = within(resolved, roots)
    if root is None:
        raise OutsideRoots(f"{what} {path!r} {OUTSIDE}")
    return resolved, root


def folder_inside(folder: Path, root: Path) -> Path:
    """`folder`, a folder the tool writes into under `root` (incoming/, files/, .deleted/ of the reports
    folder), when it resolves inside the resolved root; OutsideRoots when a symbolic link takes it
    elsewhere (the tool never writes outside the reports folder through a link)."""
    resolved, top = Path(os.path.realpath(folder)), Path(os.path.realpath(root))
    if resolved != top and not resolved.is_relative_to(top):
        name = f"{Path(root).name}/{Path(folder).relative_to(root).as_posix()}"
        raise OutsideRoots(f"{name} is a link to a folder outside {Path(root).name}/; nothing is written there")
    return folder


def shown(path: Path, root: Path) -> str:
    """A resolved path inside `root` as `<root folder name>/<relative path>`: no server path in messages."""
    rel = path.relative_to(root).as_posix()
    return root.name + ("" if rel == "." else f"/{rel}")
