"""Inputs that only make sense together with a run: a run's ``MANIFEST.json`` records the SHA-256
of the KB's ``pois.jsonl`` and of the dialogues it evaluated (:mod:`trace_crs.runner.run`);
a command that reads a run together with ``--kb``/``--dialogues`` (``human sample``) refuses
others (exit 3, naming both hashes) instead of attaching the run's replies to other dialogues."""

from __future__ import annotations

import json
from pathlib import Path

from trace_crs.errors import DataError

# manifest key -> (flag, the file of the flag's value that is hashed)
CHECKED = {"dialogues": ("--dialogues", None), "kb/pois.jsonl": ("--kb", "pois.jsonl")}


def check_run_inputs(run: str | Path, given: dict[str, str | Path | None], named_by: str | None = None) -> None:
    """Compare the inputs ``run``'s manifest records with ``given`` (manifest key -> the path
    given for it: a file, or a KB directory for ``kb/pois.jsonl``).  A run without a manifest
    (unfinished) or a key it does not record is not compared.  ``named_by``: where the paths
    come from when not from the command's flags (the run's ``config.yaml``)."""
    from trace_crs.kb.store import sha256_file

    manifest = Path(run) / "MANIFEST.json"
    if not manifest.is_file():
        return
    try:
        recorded = json.loads(manifest.read_text(encoding="utf-8")).get("inputs") or {}
    except (ValueError, UnicodeDecodeError, AttributeError):
        raise DataError("not a run manifest (JSON object with 'inputs')", file=str(manifest)) from None
    for key, path in given.items():
        flag, inner = CHECKED[key]
        flag = f"{named_by}'s {flag[2:]}" if named_by else flag
        if path is None or not isinstance(recorded.get(key), str):
            continue
        target = Path(path) / inner if inner else Path(path)
        if not target.is_file():
            continue  # the command reports a missing input itself
        digest = sha256_file(target)
        if digest != recorded[key]:
            raise DataError(
                f"the run evaluated {key} with SHA-256 {recorded[key]}, but {flag} {path} has {digest}; "
                "give the run's own inputs",
                file=str(manifest),
                field=f"inputs.{key}",
            )
