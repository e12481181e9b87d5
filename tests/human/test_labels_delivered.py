"""Label files the way annotators deliver them: the CSV ``human export --csv`` writes, a byte-order
mark, Windows line ends, another encoding, a missing cell, a label off the scale, one annotator."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from trace_crs.cli import main
from trace_crs.cli.human import _csv_rows
from trace_crs.errors import DataError
from trace_crs.human.labels import read_labels

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "human"
RECS = [json.loads(x) for x in (FIX / "labels.jsonl").read_text().splitlines()]


def as_csv(path: Path, recs: list[dict], encoding: str = "utf-8", newline: str = "\n") -> Path:
    """The records as the exporter writes them (``trace-crs human export --csv``)."""
    path.write_bytes(_csv_rows(recs).to_csv(index=False, lineterminator=newline).encode(encoding))
    return path


def test_the_exporters_csv_reads_back_as_its_jsonl(tmp_path):
    assert any(r["task"] == "t1" and not r["quotes"] for r in RECS)        # an empty list cell is in the fixture
    assert read_labels(as_csv(tmp_path / "l.csv", RECS)) == read_labels(FIX / "labels.jsonl")


def test_bom_and_windows_line_ends_in_either_format(tmp_path):
    jsonl = tmp_path / "l.jsonl"
    jsonl.write_bytes(b"\xef\xbb\xbf" + (FIX / "labels.jsonl").read_bytes().replace(b"\n", b"\r\n"))
    want = read_labels(FIX / "labels.jsonl")
    assert read_labels(jsonl) == want
    assert read_labels(as_csv(tmp_path / "l.csv", RECS, "utf-8-sig", "\r\n")) == want


def test_a_string_with_a_line_separator_inside_stays_one_record(tmp_path):
    p = tmp_path / "l.jsonl"
    p.write_text(json.dumps({**RECS[0], "comment": "a\u2028b"}, ensure_ascii=False) + "\n", encoding="utf-8")
    [t1], _ = read_labels(p)
    assert t1.comment == "a\u2028b"


def test_not_utf8_names_the_line(tmp_path):
    p = tmp_path / "l.jsonl"
    lines = [json.dumps(r).encode() for r in RECS[:3]]
    lines[2] = lines[2].replace(b'"comment": ""', '"comment": "café"'.encode("latin-1"))
    p.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(DataError, match=r"l.jsonl:3: field .<bytes>.: not UTF-8"):
        read_labels(p)


@pytest.mark.parametrize("edit, where", [
    (lambda r: r.pop("naturalness"), "l.csv:3: field 'naturalness': Field required"),      # a missing cell
    (lambda r: r.update(informativeness=7), "l.csv:3: field 'informativeness': Input should be less than or equal to 5"),
    (lambda r: r.update(informativeness=3.5), "l.csv:3: field 'informativeness': Input should be a valid integer"),
    (lambda r: r.update(errors=["no_errors", "wrong_poi"]), "l.csv:3: field 'errors': Value error, 'no_errors' excludes"),
])
def test_a_bad_csv_cell_names_file_line_and_field(tmp_path, edit, where):
    recs = [dict(r) for r in RECS[:3]]
    edit(recs[1])
    with pytest.raises(DataError, match=where.replace("(", r"\(")):
        read_labels(as_csv(tmp_path / "l.csv", recs))


def test_a_csv_without_a_task_column_or_with_stray_cells(tmp_path):
    p = tmp_path / "l.csv"
    p.write_text("annotator,item_id\nA1,i1\n")
    with pytest.raises(DataError, match=r"l.csv:1: field 'task': no 'task' column"):
        read_labels(p)
    p.write_text("task,annotator\nt1,A1,extra\n")
    with pytest.raises(DataError, match=r"l.csv:2: more cells than header columns"):
        read_labels(p)


def test_cli_reads_a_csv_and_writes_the_jsonl_tables(tmp_path, capsys):
    key = str(FIX / "key.jsonl")
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["human", "agree", "--labels", str(FIX / "labels.jsonl"), "--key", key, "--n-boot", "20", "--quiet",
                 "--out", str(a)]) == 0
    csv = as_csv(tmp_path / "labels.csv", RECS, "utf-8-sig", "\r\n")
    assert main(["human", "agree", "--labels", str(csv), "--key", key, "--n-boot", "20", "--quiet", "--out", str(b)]) == 0
    tables = sorted(p.name for p in a.glob("*.parquet"))
    assert tables and all((a / n).read_bytes() == (b / n).read_bytes() for n in tables)


def test_one_annotator_gives_undefined_alphas_not_numbers(tmp_path):
    p = tmp_path / "one.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in RECS if r["annotator"] == "A1"))
    out = tmp_path / "out"
    assert main(["human", "agree", "--labels", str(p), "--key", str(FIX / "key.jsonl"), "--n-boot", "20", "--quiet",
                 "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_annotators"] == 1 and summary["mean_alpha"] is None
    assert all(summary[f"alpha_{s}"] is None for s in ("info", "nat", "cite", "err"))


def test_an_id_with_a_stray_space_is_refused_not_a_second_annotator(tmp_path):
    recs = [dict(r) for r in RECS[:3]]
    recs[2]["annotator"] = recs[2]["annotator"] + " "
    with pytest.raises(DataError, match=r"l.csv:4: field 'annotator': Value error, 'A\d ' has leading or trailing"):
        read_labels(as_csv(tmp_path / "l.csv", recs))
