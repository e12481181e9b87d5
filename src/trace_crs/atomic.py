"""Outputs appear whole or not at all: every file the package writes goes through here.

:func:`write_atomic` hands a temporary sibling (same directory, so the final rename is atomic
on POSIX) to a writer, then renames it over the target; on any error the temporary file is
removed and the target is untouched.  A killed process leaves at most a hidden ``.*.tmp`` file.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable


def write_atomic(path: str | Path, write: Callable[[Path], Any]) -> Path:
    """Write ``path`` through ``write(tmp_path)``, then rename into place; returns ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_text(path: str | Path, text: str) -> Path:
    """UTF-8 text, atomically, with ``\\n`` line ends."""
    return write_atomic(path, lambda t: t.write_text(text, encoding="utf-8", newline="\n"))


def write_json(obj: Any, path: str | Path, indent: int | None = None) -> Path:
    """Canonical JSON (sorted keys, NaN refused), atomically."""
    return write_text(path, json.dumps(obj, sort_keys=True, indent=indent, allow_nan=False) + "\n")
