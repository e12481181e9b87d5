"""Parquet inputs that are not Parquet are exit 3 naming the file (trace_crs.cli.tables), for
``stats bootstrap``, ``stats oracle`` and ``human sample``; nothing is written."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "fuzz"))
from hostile import tree_hash

from trace_crs.cli import main
from trace_crs.cli.tables import read_table
from trace_crs.errors import DataError


@pytest.mark.parametrize("content", [b"", b"garbage\n", b"PAR1" + b"\x00" * 20])
def test_read_table_names_the_file(tmp_path, content):
    p = tmp_path / "x.parquet"
    p.write_bytes(content)
    with pytest.raises(DataError, match="x.parquet: not a readable Parquet table") as exc:
        read_table(p)
    assert exc.value.exit_code == 3


def test_read_table_reads_parquet_and_a_missing_file_stays_a_usage_error(tmp_path):
    pd.DataFrame({"a": [1, 2]}).to_parquet(tmp_path / "ok.parquet")
    assert read_table(tmp_path / "ok.parquet")["a"].tolist() == [1, 2]
    with pytest.raises(FileNotFoundError):
        read_table(tmp_path / "missing.parquet")


@pytest.mark.parametrize("argv", [
    "stats bootstrap --scores {w}/scores --out {w}/b.csv",
    "stats oracle --scores {w}/scores --records {w}/rec.parquet --out {w}/o.csv",
    "human sample --run {w}/run --kb {w}/kb --dialogues {w}/d.jsonl --out {w}/i.jsonl --key-out {w}/k.jsonl",
])
def test_commands_name_the_bad_parquet_file(tmp_path, capsys, argv):
    for d in ("scores", "run", "kb"):
        (tmp_path / d).mkdir()
    for f in ("scores/a.per_turn.parquet", "scores/a.per_dialogue.parquet", "run/records.parquet", "rec.parquet"):
        (tmp_path / f).write_text("garbage\n")
    (tmp_path / "d.jsonl").write_text("{}\n")
    before = tree_hash(tmp_path)
    assert main(argv.format(w=tmp_path).split()) == 3
    err = capsys.readouterr().err
    assert ".parquet: not a readable Parquet table" in err and err.count("\n") == 1
    assert tree_hash(tmp_path) == before
