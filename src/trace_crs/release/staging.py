"""Output directories that appear whole or not at all (the contract of ``trace_crs.atomic``,
for a directory): files are written into a hidden staging sibling, which then replaces the
target; an error removes the staging directory and leaves the target as it was."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from trace_crs.atomic import clean_stale
from trace_crs.errors import UsageError


def check_out(out: Path, inputs: list[Path], marker: str) -> None:
    """Refuse an ``--out`` that is (or holds) an input, or an existing directory that is not
    this command's earlier output (it lacks ``marker``)."""
    for p in inputs:
        if out.resolve() == p.resolve() or out.resolve() in p.resolve().parents:
            raise UsageError(f"--out {out} would overwrite the input {p}")
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / marker).exists())):
        raise UsageError(
            f"--out {out} exists and is not an earlier output of this command (no {marker}); " "choose a new directory"
        )


@contextmanager
def staged(out: Path) -> Iterator[Path]:
    """Yield a staging directory; on normal exit it replaces ``out``.  What a killed earlier
    run left beside ``out`` (its staging copy, a previous ``out`` set aside) is cleaned first
    (:func:`trace_crs.atomic.clean_stale`)."""
    clean_stale(out)
    staging = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        yield staging
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        if out.exists():
            os.replace(out, old)
        os.replace(staging, out)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
