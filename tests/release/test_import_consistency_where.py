"""Where an import finding is reported (release/consistency.py, release/locate.py): the line of the
finding's own field in every layout the release files may take (indented, minified, wrapped in
``{"dialogues": [...]}``, cards keyed by business id); label_two_reviews; and the range check of
POI-card pointers without span or span checksum (exit 3, as the dataset's own pointers)."""
from __future__ import annotations

import json

import pytest

from trace_crs.cli import main
from trace_crs.release.locate import field_offsets, line_at, parse_field

from .conftest import import_args
from .test_import_consistency import CASES, EMOJI, IDS, _dump, _edit, _edit_review, _two_reviews


def _rewrite(release, name, dump):
    path = release / name
    path.write_text(dump(json.loads(path.read_text())))


def _first(out, name, kind):
    return json.loads((out / "mapping_report.json").read_text())["consistency"][name][kind]["first"][0]


@pytest.mark.parametrize("corrupt", CASES, ids=IDS)
def test_minified_files_report_line_1_and_the_same_field(release, tmp_path, capsys, corrupt):
    name, kind, count, _line, field = corrupt(release)
    for f in ("crs_dataset.json", "poi_knowledge_base.json"):
        _rewrite(release, f, json.dumps)
        assert "\n" not in (release / f).read_text()
    assert main(["--quiet", *import_args(release, tmp_path / "o")]) == 0
    first = _first(tmp_path / "o", name, kind)
    assert (first["line"], first["field"]) == (1, field)
    assert main(["--quiet", *import_args(release, tmp_path / "s"), "--strict"]) == 4
    assert f"{release / name}:1: field '{field}'" in capsys.readouterr().err


def test_dialogues_wrapped_in_an_object_report_the_fields_line(release, tmp_path):
    """``{"dialogues": [...]}`` (indent=1): everything one level deeper, the label of dialogue 0
    turn 5 quote 1 on line 101 (read off the file by hand)."""
    _two_reviews(release)
    _rewrite(release, "crs_dataset.json", lambda d: _dump({"dialogues": d}))
    assert main(["--quiet", *import_args(release, tmp_path / "o")]) == 0
    first = _first(tmp_path / "o", "crs_dataset.json", "label_two_reviews")
    assert (first["line"], first["field"]) == (101, "[0].turns[5].quotes[1].label")
    assert (release / "crs_dataset.json").read_text().splitlines()[100].strip() == '"label": "R1",'


def test_cards_keyed_by_business_id_report_the_fields_line(release, tmp_path):
    """Cards as an object keyed by business id: card [1] is the key fxNashvi01; its pointer's
    "start" (UTF-16 offsets, case utf16_card) on line 14 (read off the file by hand)."""
    CASES[IDS.index("utf16_card")](release)
    _rewrite(release, "poi_knowledge_base.json", lambda c: _dump({x.pop("business_id"): x for x in c}))
    assert main(["--quiet", *import_args(release, tmp_path / "o")]) == 0
    first = _first(tmp_path / "o", "poi_knowledge_base.json", "utf16_offsets")
    assert (first["line"], first["field"]) == (14, "[1].citations[0].start")
    assert (release / "poi_knowledge_base.json").read_text().splitlines()[13].strip() == '"start": 18'


def test_label_on_two_quotes_of_one_review_is_not_counted(release, tmp_path):
    def change(d):  # dialogue 0 turn 5: [Q:3] moved onto [Q:2]'s review and label
        turn = d[0]["turns"][5]
        turn["quotes"][1].update({k: turn["quotes"][0][k] for k in
                                  ("label", "review_id", "business_id", "start", "end", "sha256", "span_sha256")})
        turn["text"] = turn["text"].replace('"[Q:3]" [R2]', '"[Q:3]" [R1]')
    _edit(release, "crs_dataset.json", change)
    assert main(["--quiet", *import_args(release, tmp_path / "o"), "--strict"]) == 0


def test_label_two_reviews_problem_names_each_review_once(release, tmp_path):
    _two_reviews(release)
    assert main(["--quiet", *import_args(release, tmp_path / "o")]) == 0
    first = _first(tmp_path / "o", "crs_dataset.json", "label_two_reviews")
    assert first["record"] == "crs_yelp_02669"
    assert first["problem"] == ("[R1] is on quotes of different reviews: rvNashvi010yyyyyyyyyyy ([Q:2]), "
                                "rvNashvi041yyyyyyyyyyy ([Q:3])")


# Card 1's pointer into rvNashvi010 (15:43 of a review of 101 characters), span checksum removed.
@pytest.mark.parametrize("start,end", [(43, 15), (15, 15), (-1, 43), (15, 102), (110, 115)])
def test_card_pointer_out_of_range_without_span_is_exit_3(release, tmp_path, capsys, start, end):
    def cards(c):
        p = c[1]["citations"][0]
        p.update(start=start, end=end)
        del p["span_sha256"]
    _edit(release, "poi_knowledge_base.json", cards)
    assert main(import_args(release, tmp_path / "o")) == 3
    err = capsys.readouterr().err
    # the line of the pointer's own field (release.checks.located), here "start" of citations[0] of card [1]
    line = (release / "poi_knowledge_base.json").read_text().splitlines().index(f'    "start": {start}') + 1
    assert f"{release / 'poi_knowledge_base.json'}:{line}: field '[1].citations[0].start': " in err
    assert f"offsets {start}:{end} of review rvNashvi010yyyyyyyyyyy fall outside the review (101 characters)" in err
    assert not (tmp_path / "o").exists()


def test_card_pointer_in_utf16_units_past_the_text_is_exit_3_with_the_hint(release, tmp_path, capsys):
    """The dataset's rule for cards: UTF-16 offsets past the text in code points are out of range
    (exit 3) and the message says the UTF-16 reading gives a whole-word span."""
    text = _edit_review(release, "rvNashvi010yyyyyyyyyyy", lambda t: f"{EMOJI} {t}")

    def dataset(d):
        from trace_crs.dialogues.release import text_sha256
        d[0]["turns"][5]["quotes"][0].update(start=17, end=45, sha256=text_sha256(text))

    def cards(c):
        p = c[1]["citations"][0]
        p.update(start=3, end=len(text) + 1)
        del p["span_sha256"]
    _edit(release, "crs_dataset.json", dataset)
    _edit(release, "poi_knowledge_base.json", cards)
    assert main(import_args(release, tmp_path / "o")) == 3
    err = capsys.readouterr().err
    assert "[1].citations[0].start" in err and "the release counts offsets in UTF-16 units" in err
    assert repr(text[2:]) in err


# locate.py on a hand-written text: offsets counted by hand (the key's opening quote, or an
# array element's first character).
TEXT = '[\n {"a": 1, "b": [10, {"c": "x"}]},\n {"a\\u0062": 2, "a": 3, "a": 4}\n]'


@pytest.mark.parametrize("field,offset", [
    ("[0].a", 4), ("[0].b", 12), ("[0].b[1]", 22), ("[0].b[1].c", 23), ("[1].ab", 38),
    ("[1].a", 60),     # a key written twice: the last, as json.loads reads it
    ("[1]", 37), ("[2]", None), ("[0].b[2]", None), ("[0].a.z", None), ("[0].zz", None), ("[0].b.c", None),
])
def test_field_offsets(field, offset):
    path = parse_field(field)
    assert field_offsets(TEXT, [path]).get(path) == offset


def test_parse_field_and_line_at():
    assert parse_field("[2].turns[5].quotes[1].q") == (2, "turns", 5, "quotes", 1, "q")
    assert parse_field("[0]") == (0,)
    assert [line_at(TEXT, o) for o in (0, 4, 37, 60)] == [1, 2, 3, 3]


def test_field_offsets_of_text_that_is_not_json_is_empty():
    assert field_offsets('[{"a": ', [parse_field("[0].a")]) == {}


def test_finding_lines_fall_back_to_the_records_id_line(tmp_path):
    from trace_crs.release.consistency import finding_lines
    p = tmp_path / "x.json"
    p.write_text('[\n {"dialogue_id": "a",\n  "turns": [\n   {"text": "t"}]}\n]\n')
    found = [{"kind": "dangling_label", "record": "a", "field": f, "problem": ""}
             for f in ("[0].turns[0].text", "[0].turns[3].text")]
    assert finding_lines(p, "dialogue", found) == [4, 2]
