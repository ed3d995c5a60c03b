"""Path strings built by hand where 10,000 `Path` objects per run would cost more than the work."""

from __future__ import annotations

import os


def folder_head(folder: str) -> str:
    """What goes before a file's name to name it inside `folder` ("" for the current folder), as
    `os.path.join(folder, name)` would give for a plain name: the folder's own spelling is kept."""
    return "" if folder == "." else folder if folder.endswith(os.sep) else folder + os.sep
