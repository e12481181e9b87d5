"""The probe's release cases (typed release records all the way down): every nested field of
``crs_dataset.json`` and the card file with a wrong type, JSON nested 200,000 deep, an empty card
file, a misnamed split file.  Each is exit 3 naming file:line and the field, with one line on
stderr; inputs are byte-identical afterwards and nothing is written."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from hostile import tree_hash

from trace_crs.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "release"


@pytest.fixture
def release(tmp_path) -> Path:
    dst = tmp_path / "release"
    shutil.copytree(FIXTURES, dst, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return dst


def _argv(release: Path, out: Path) -> list[str]:
    return ["release", "import", "--dataset", str(release / "crs_dataset.json"), "--pois",
            str(release / "poi_knowledge_base.json"), "--splits", str(release / "splits"),
            "--yelp-dir", str(release / "yelp"), "--out", str(out)]


def _edit(release: Path, name: str, change) -> None:
    path = release / name
    data = json.loads(path.read_text())
    new = change(data)
    path.write_text(json.dumps(data if new is None else new, indent=1))


def _rec_turn(data: list, key: str, value: object) -> None:
    data[0]["turns"][3][key] = value


def _quote(data: list, key: str, value: object) -> None:
    data[0]["turns"][3]["quotes"][0][key] = value


DATASET_CASES = [
    ("referenced_review_ids as a string", lambda d: _rec_turn(d, "referenced_review_ids", "rvNashvi050"),
     "[0].turns[3].referenced_review_ids", "expected an array, got string"),
    ("quotes as a string", lambda d: _rec_turn(d, "quotes", "R1"), "[0].turns[3].quotes", "expected an array"),
    ("a list inside candidate_poi_ids", lambda d: d[0]["candidate_poi_ids"].__setitem__(2, ["x"]),
     "[0].candidate_poi_ids[2]", "expected string, got array"),
    ("a quote that is a number", lambda d: d[0]["turns"][3]["quotes"].__setitem__(0, 5),
     "[0].turns[3].quotes[0]", "expected an object"),
    ("a checksum that is null", lambda d: _quote(d, "sha256", None), "[0].turns[3].quotes[0].sha256", "got null"),
    ("a business id that is a number", lambda d: _quote(d, "business_id", 7), "[0].turns[3].quotes[0].business_id",
     "expected string"),
    ("turn_id as a string", lambda d: _rec_turn(d, "turn_id", "4"), "[0].turns[3].turn_id", "expected integer"),
    ("persona as a list", lambda d: d[0]["scenario"].__setitem__("persona", ["a"]), "[0].scenario.persona",
     "expected string"),
    ("metadata.seed as a string", lambda d: d[0]["metadata"].__setitem__("seed", "42"), "[0].metadata.seed",
     "expected integer"),
    ("metadata as a list", lambda d: d[0].__setitem__("metadata", []), "[0].metadata", "expected an object"),
]


@pytest.mark.parametrize("what,change,field,problem", DATASET_CASES, ids=[c[0] for c in DATASET_CASES])
def test_a_mistyped_dataset_field_is_exit_3_at_its_line(release, tmp_path, capsys, what, change, field, problem):
    _edit(release, "crs_dataset.json", change)
    before = tree_hash(release)
    assert main(_argv(release, tmp_path / "out")) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"field {field!r}" in err and problem in err, err
    m = re.search(r"crs_dataset\.json:(\d+):", err)
    assert m, err
    line = (release / "crs_dataset.json").read_text().splitlines()[int(m[1]) - 1]
    key = field.rsplit(".", 1)[-1].split("[")[0]
    assert f'"{key}"' in line or "[" in field.rsplit(".", 1)[-1], (line, field)  # the key's line, or the element's
    assert tree_hash(release) == before and not (tmp_path / "out").exists()


CARD_CASES = [
    ("cards keyed with a number", lambda d: {"abc": 5}, "[0]", "expected an object, got int"),
    ("citations as a string", lambda d: d[1].__setitem__("citations", "R1"), "[1].citations", "expected an array"),
    ("a citation start as a string", lambda d: d[1]["citations"][0].__setitem__("start", "15"),
     "[1].citations[0].start", "expected integer"),
    ("categories with a number", lambda d: d[0].__setitem__("categories", ["Hotels", 3]), "[0].categories[1]",
     "expected string"),
    ("an empty card file", lambda d: [], "<file>", "no POI cards"),
    ("an empty keyed card file", lambda d: {}, "<file>", "no POI cards"),
]


@pytest.mark.parametrize("what,change,field,problem", CARD_CASES, ids=[c[0] for c in CARD_CASES])
def test_a_mistyped_card_is_exit_3(release, tmp_path, capsys, what, change, field, problem):
    _edit(release, "poi_knowledge_base.json", change)
    before = tree_hash(release)
    assert main(_argv(release, tmp_path / "out")) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"field {field!r}" in err and problem in err, err
    assert re.search(r"poi_knowledge_base\.json:\d+:", err), err
    assert tree_hash(release) == before and not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["crs_dataset.json", "poi_knowledge_base.json"])
@pytest.mark.parametrize("depth", [40, 200_000])
def test_json_nested_too_deep_is_a_data_error(release, tmp_path, capsys, name, depth):
    (release / name).write_text("[" * depth + "]" * depth)
    before = tree_hash(release)
    assert main(_argv(release, tmp_path / "out")) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nested deeper than 32 levels" in err and name in err
    assert tree_hash(release) == before


def test_a_misnamed_split_file_is_refused_and_other_files_are_warned_about(release, tmp_path, capsys):
    (release / "splits" / "dev_dialogue_ids.json").write_text("[]\n")
    before = tree_hash(release)
    assert main(_argv(release, tmp_path / "out")) == 3
    err = capsys.readouterr().err
    assert "dev_dialogue_ids.json" in err and "'dev' is not one of" in err
    assert tree_hash(release) == before
    (release / "splits" / "dev_dialogue_ids.json").unlink()
    (release / "splits" / "README.txt").write_text("notes\n")
    assert main(_argv(release, tmp_path / "out")) == 0
    err = capsys.readouterr().err
    assert "not split lists, ignored: README.txt" in err
    report = json.loads((tmp_path / "out" / "mapping_report.json").read_text())
    assert report["ignored_split_dir_files"] == ["README.txt"]


def test_a_killed_imports_staging_copy_is_removed_by_the_next_import(release, tmp_path):
    import subprocess

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".out.tmp-{int(done.stdout)}"  # a dead process's staging copy (a whole KB)
    (stale / "kb").mkdir(parents=True)
    (stale / "kb" / "reviews.jsonl").write_text("a whole KB copy\n")
    assert main(["--quiet", *_argv(release, tmp_path / "out")]) == 0
    assert not stale.exists() and (tmp_path / "out" / "mapping_report.json").exists()


def test_a_lone_surrogate_escape_is_a_data_error_at_its_line(release, tmp_path, capsys):
    path = release / "crs_dataset.json"
    text = path.read_text()
    path.write_text(text.replace('"Hi, I have', '"\\ud800Hi, I have', 1))
    before = tree_hash(release)
    assert main(_argv(release, tmp_path / "out")) == 3
    err = capsys.readouterr().err
    line = next(i for i, s in enumerate(path.read_text().splitlines(), 1) if "\\ud800" in s)
    assert f"crs_dataset.json:{line}: field '[0].turns[0].text': a lone UTF-16 surrogate escape" in err
    assert tree_hash(release) == before


@pytest.mark.parametrize("what,change,field", [
    ("a candidate not in the bundle", lambda d: d[0]["candidate_poi_ids"].__setitem__(3, "fxNowhere"),
     "[0].candidate_poi_ids"),
    ("an unknown role (schema)", lambda d: d[1]["turns"][0].__setitem__("role", "robot"), "turns/0/role"),
])
def test_errors_found_after_typing_name_their_line(release, tmp_path, capsys, what, change, field):
    _edit(release, "crs_dataset.json", change)
    assert main(_argv(release, tmp_path / "out")) == 3
    err = capsys.readouterr().err
    assert re.search(r"crs_dataset\.json:\d+: ", err) and field in err, err
