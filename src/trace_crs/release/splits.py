"""The split files of a release (paper §2.1, Appendix R): ``<split>_dialogue_ids.json`` in the
``--splits`` directory, the test file required."""

from __future__ import annotations

import re
from pathlib import Path

from trace_crs.dialogues.schema import SPLITS
from trace_crs.release.bundle import load_json
from trace_crs.release.checks import ReleaseFormatError

SPLIT_FILE = re.compile(r"(.+)_dialogue_ids\.json")


def read_splits(directory: Path, ids: set[str]) -> dict[str, str]:
    """``{dialogue_id: split}`` from the split files present (the test file is required); a
    ``<name>_dialogue_ids.json`` whose name is not a split (``dev_``, ``Test_``) is an error, not
    skipped (its dialogues would silently land in train)."""
    if not (directory / "test_dialogue_ids.json").is_file():
        raise FileNotFoundError(f"{directory / 'test_dialogue_ids.json'}: split file not found")
    for p in sorted(directory.iterdir()):
        m = SPLIT_FILE.fullmatch(p.name)
        if m and m[1] not in SPLITS:
            raise ReleaseFormatError(
                str(p), None, "<file>", f"split {m[1]!r} is not one of {', '.join(SPLITS)}; rename or remove it", 1
            )
    out: dict[str, str] = {}
    for split in SPLITS:
        path = directory / f"{split}_dialogue_ids.json"
        if path.exists() and not path.is_file():  # skipped, its dialogues would silently land in train
            raise ReleaseFormatError(str(path), None, "<file>", "a split list must be a JSON file, not a directory", 1)
        if not path.is_file():
            continue
        listed = load_json(path)
        if not isinstance(listed, list) or not all(isinstance(i, str) for i in listed):
            raise ReleaseFormatError(str(path), None, "<file>", "expected a JSON array of dialogue ids")
        for i in listed:
            if i not in ids:
                raise ReleaseFormatError(str(path), i, "<id>", "listed in the split file but not in the dataset")
            if i in out:
                raise ReleaseFormatError(str(path), i, "<id>", f"already listed in the {out[i]} split")
            out[i] = split
    return out


def ignored_split_files(directory: Path) -> list[str]:
    """Names of the (non-hidden) files in ``directory`` that are not split lists: read by nobody,
    so ``release import`` reports them and warns (a misnamed split file would otherwise be silent)."""
    return sorted(
        p.name for p in directory.iterdir() if not p.name.startswith(".") and not SPLIT_FILE.fullmatch(p.name)
    )
