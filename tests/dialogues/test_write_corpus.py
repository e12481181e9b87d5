"""``write_corpus`` writes the corpus, its split lists and the generator's extra files (failures,
acceptance report) as one commit: a writer that fails leaves the previous output whole."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "fuzz"))
from hostile import tree_hash

from trace_crs.dialogues.generate import write_corpus

DIALOGUES = [{"dialogue_id": f"d{i}", "split": s} for i, s in enumerate(["train", "val", "test"])]


def test_extra_files_are_written_with_the_corpus(tmp_path):
    out = tmp_path / "c.jsonl"
    extra = {out.with_suffix(".acceptance.json"): lambda t: t.write_text("{}\n")}
    write_corpus(DIALOGUES, out, extra)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.acceptance.json", "c.jsonl", "c.splits"]
    assert (tmp_path / "c.splits" / "val_dialogue_ids.json").read_text().split() == ["[", '"d1"', "]"]


def test_a_failing_extra_writer_leaves_the_previous_output(tmp_path):
    out = tmp_path / "c.jsonl"
    write_corpus(DIALOGUES, out, {out.with_suffix(".acceptance.json"): lambda t: t.write_text("old\n")})
    before = tree_hash(tmp_path)

    def broken(tmp: Path) -> None:
        tmp.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_corpus(DIALOGUES[:2], out, {out.with_suffix(".acceptance.json"): broken})
    assert tree_hash(tmp_path) == before and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
