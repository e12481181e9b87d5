"""Helpers of the hostile-input tests: a tree hash (inputs byte-identical before/after) and the
fixture data every command needs (KB, corpus, predictions, a scored run) built once per session."""
from __future__ import annotations

import hashlib
from pathlib import Path


def tree_hash(root: Path) -> dict[str, str]:
    """``{relative path: sha256}`` of every file under ``root`` (the names count too)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out
