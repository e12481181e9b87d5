"""Inconsistencies a release can carry and still be imported (release/consistency.py): each kind
on a hand-corrupted copy of the fixture release (tests/fixtures/release), counted in the mapping
report with file, line and field, summarised on stderr, and refused by --strict (exit 4)."""
from __future__ import annotations

import json

import pytest

from trace_crs.cli import main
from trace_crs.dialogues.release import text_sha256
from trace_crs.release.consistency import KINDS, first_lines, reads_as_utf16, utf16_span

from .conftest import import_args

# Lines of the corrupted fixture files, read off them by hand (json indent=1, sorted keys): the
# line of the finding's own field (the key of the offending pointer or turn text).
EMOJI = "\U0001f600"  # 😀: one code point, two UTF-16 code units


def _dump(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=True) + "\n"  # the fixtures' own layout


def _edit(release, name, change):
    path = release / name
    data = json.loads(path.read_text())
    change(data)
    path.write_text(_dump(data))


def _edit_review(release, review_id, change) -> str:
    path = release / "yelp" / "yelp_academic_dataset_review.json"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for r in rows:
        if r["review_id"] == review_id:
            r["text"] = change(r["text"])
            text = r["text"]
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    return text


def _shift_card_pointers(review_id, by):
    """The cards' pointers into ``review_id`` moved to its edited text (code points, checksums kept)."""
    def change(cards):
        for card in cards:
            for p in card.get("citations") or []:
                if p["review_id"] == review_id:
                    p.update(start=p["start"] + by, end=p["end"] + by)
    return change


def _unreferenced(release):
    def change(d):
        d[0]["turns"][3]["referenced_review_ids"] = []
    _edit(release, "crs_dataset.json", change)
    return "crs_dataset.json", "review_not_referenced", 1, 59, "[0].turns[3].quotes[0].review_id"


def _dangling(release):
    def change(d):
        d[1]["turns"][3]["text"] += " See also [R2, R3]."  # a group: two labels on no quote
    _edit(release, "crs_dataset.json", change)
    return "crs_dataset.json", "dangling_label", 2, 210, "[1].turns[3].text"


def _repeated(release):
    def change(d):
        turn = d[2]["turns"][5]
        turn["quotes"][1]["q"] = 2
        turn["text"] = turn["text"].replace('"[Q:3]" [R2]', '"[Q:2]" [R2]')  # placeholders still match
    _edit(release, "crs_dataset.json", change)
    return "crs_dataset.json", "repeated_q", 1, 377, "[2].turns[5].quotes[1].q"


def _utf16(release):
    """Review of dialogue 2 turn 4 gets an emoji + space in front: the quote at 42:92 moves to
    44:94 in code points, 45:95 in UTF-16 units; the release writes the UTF-16 offsets and no
    span checksum."""
    text = _edit_review(release, "rvTampa02x0yyyyyyyyyyy", lambda t: f"{EMOJI} {t}")

    def change(d):
        q = d[2]["turns"][3]["quotes"][0]
        q.update(start=45, end=95, sha256=text_sha256(text))
        del q["span_sha256"]
    _edit(release, "crs_dataset.json", change)
    _edit(release, "poi_knowledge_base.json", _shift_card_pointers("rvTampa02x0yyyyyyyyyyy", 2))
    return "crs_dataset.json", "utf16_offsets", 1, 337, "[2].turns[3].quotes[0].start"


def _utf16_card(release):
    """Card 1's pointer (review rvNashvi010, 15:43) in UTF-16 units after an emoji + space; the
    dialogue quote on the same review is moved to its right code-point offsets (17:45)."""
    text = _edit_review(release, "rvNashvi010yyyyyyyyyyy", lambda t: f"{EMOJI} {t}")

    def dataset(d):
        d[0]["turns"][5]["quotes"][0].update(start=17, end=45, sha256=text_sha256(text))

    def cards(c):
        p = c[1]["citations"][0]
        p.update(start=18, end=46)
        del p["span_sha256"]
    _edit(release, "crs_dataset.json", dataset)
    _edit(release, "poi_knowledge_base.json", cards)
    return "poi_knowledge_base.json", "utf16_offsets", 1, 16, "[1].citations[0].start"


def _two_reviews(release):
    """Dialogue 0 turn 5: [R1] on [Q:2] (review rvNashvi010) and on [Q:3] (review rvNashvi041)."""
    def change(d):
        turn = d[0]["turns"][5]
        turn["quotes"][1]["label"] = "R1"
        turn["text"] = turn["text"].replace('"[Q:3]" [R2]', '"[Q:3]" [R1]')  # placeholders still match
    _edit(release, "crs_dataset.json", change)
    return "crs_dataset.json", "label_two_reviews", 1, 100, "[0].turns[5].quotes[1].label"


CASES = [_unreferenced, _dangling, _repeated, _utf16, _utf16_card, _two_reviews]
IDS = ["review_not_referenced", "dangling_label", "repeated_q", "utf16_offsets", "utf16_card", "label_two_reviews"]


@pytest.mark.parametrize("corrupt", CASES, ids=IDS)
def test_each_kind_is_imported_and_counted_with_file_line_field(release, tmp_path, capsys, corrupt):
    name, kind, count, line, field = corrupt(release)
    out = tmp_path / "imported"
    assert main(import_args(release, out)) == 0
    section = json.loads((out / "mapping_report.json").read_text())["consistency"]
    counts = {(f, k): v["count"] for f, kinds in section.items() for k, v in kinds.items()}
    assert counts == {("crs_dataset.json", "review_not_referenced"): 0, ("crs_dataset.json", "dangling_label"): 0,
                      ("crs_dataset.json", "label_two_reviews"): 0,
                      ("crs_dataset.json", "repeated_q"): 0, ("crs_dataset.json", "utf16_offsets"): 0,
                      ("poi_knowledge_base.json", "utf16_offsets"): 0} | {(name, kind): count}
    first = section[name][kind]["first"][0]
    assert (first["line"], first["field"]) == (line, field)
    # the line is the field's own key, checked by an independent scan of the written file
    lines = (release / name).read_text().splitlines()
    assert lines[line - 1].strip().startswith(f'"{field.rsplit(".", 1)[1]}": ')
    err = capsys.readouterr().err
    assert "warning: imported with consistency:" in err and f"{name}: " in err and f"{count} {KINDS[kind]}" in err


@pytest.mark.parametrize("corrupt", CASES, ids=IDS)
def test_strict_refuses_each_kind_with_exit_4_naming_file_line_field(release, tmp_path, capsys, corrupt):
    name, _kind, _count, line, field = corrupt(release)
    out = tmp_path / "imported"
    assert main([*import_args(release, out), "--strict"]) == 4
    err = capsys.readouterr().err
    assert f"{release / name}:{line}: field '{field}'" in err, err
    assert "--strict refuses" in err
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["release"]


def test_dangling_labels_lists_both_labels_of_a_group(release, tmp_path):
    _dangling(release)
    assert main(["--quiet", *import_args(release, tmp_path / "o")]) == 0
    first = json.loads((tmp_path / "o" / "mapping_report.json").read_text())["consistency"]["crs_dataset.json"]
    assert [f["problem"] for f in first["dangling_label"]["first"]] == [
        "[R2] is on none of the turn's quotes", "[R3] is on none of the turn's quotes"]


def test_a_clean_release_reports_zeros_and_strict_imports_it_identically(release, tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(import_args(release, a)) == 0
    err = capsys.readouterr().err
    assert ("release import: consistency: crs_dataset.json: 0 quotes citing a review their turn does not "
            "reference, 0 labels on no quote, 0 labels on quotes of different reviews, 0 repeated quote numbers, "
            "0 offsets in UTF-16 units; "
            "poi_knowledge_base.json: 0 offsets in UTF-16 units (mapping_report.json)") in err
    assert main(["--quiet", *import_args(release, b), "--strict"]) == 0
    assert capsys.readouterr().err == ""  # --quiet and nothing found: no summary line
    for p in sorted(x.relative_to(a) for x in a.rglob("*") if x.is_file()):
        assert (a / p).read_bytes() == (b / p).read_bytes(), p
    report = json.loads((a / "mapping_report.json").read_text())
    assert sorted(report) == ["consistency", "counts", "fields", "ignored_split_dir_files", "kb_sha256", "split_files",
                              "unconsumed_release_keys"]


def test_utf16_offsets_with_a_span_checksum_are_an_error_with_the_utf16_hint(release, tmp_path, capsys):
    """With span_sha256 the import already refuses shifted offsets (exit 3); the message now says
    the UTF-16 reading gives the released span."""
    text = _edit_review(release, "rvTampa02x0yyyyyyyyyyy", lambda t: f"{EMOJI} {t}")

    def change(d):
        d[2]["turns"][3]["quotes"][0].update(start=45, end=95, sha256=text_sha256(text))
    _edit(release, "crs_dataset.json", change)
    _edit(release, "poi_knowledge_base.json", _shift_card_pointers("rvTampa02x0yyyyyyyyyyy", 2))
    assert main(import_args(release, tmp_path / "o")) == 3
    err = capsys.readouterr().err
    assert "[2].turns[3].quotes[0].start" in err and "the release counts offsets in UTF-16 units" in err
    assert "'a quiet corner made it perfect for our anniversary'" in err


# utf16_span / reads_as_utf16 on hand-counted strings: EMOJI is code point 0 and UTF-16 units 0-1.
TEXT = f"{EMOJI} Great pasta, friendly staff."  # code points: " "=1, "Great"=2..7; units: "Great"=3..8


@pytest.mark.parametrize("start,end,span", [
    (3, 8, "Great"), (9, 14, "pasta"), (0, 2, EMOJI), (1, 3, None), (0, 1, None), (3, 40, None), (5, 5, None),
])
def test_utf16_span(start, end, span):
    assert utf16_span(TEXT, start, end) == span


@pytest.mark.parametrize("text,start,end,expected", [
    (TEXT, 3, 8, True),              # code points "reat " cut a word and end in a space; units "Great"
    (TEXT, 9, 30, True),             # code points "asta, friendly staff." vs units "pasta, friendly staff"
    (TEXT, 9, 29, False),            # units "pasta, friendly staf" cut a word too: no evidence
    (TEXT, 2, 7, False),             # code points "Great" on word bounds: not UTF-16
    ("Great pasta", 0, 5, False),    # no character outside the BMP: both readings agree
    ("Great pasta", 1, 4, False),    # a word cut, but the readings agree: not a UTF-16 question
    (f"Nice {EMOJI} view", 8, 12, True),   # code points end past the text (11); units give "view"
    (f"{EMOJI}{EMOJI}ab cd", 4, 6, True),   # code points " c", units "ab"
    (f"{EMOJI} a,b", 3, 4, False),   # code points "," and units "a" both on word bounds: code points kept
    (TEXT, 1, 8, False),             # splits the emoji's surrogate pair: no UTF-16 reading
])
def test_reads_as_utf16(text, start, end, expected):
    assert reads_as_utf16(text, start, end) is expected


def test_first_lines(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('[\n {"dialogue_id": "a"},\n\n {"dialogue_id": "b", "x": "a-b"}\n]\n')
    assert first_lines(p, ["b", "a", "zz"]) == {"b": 4, "a": 2, "zz": None}


def test_utf16_offsets_past_the_text_are_an_error_with_the_utf16_hint(release, tmp_path, capsys):
    """Without a span checksum, UTF-16 offsets that end past the review in code points are out of
    range (exit 3, as before); the message says the UTF-16 reading gives a whole-word span."""
    text = _edit_review(release, "rvTampa02x0yyyyyyyyyyy", lambda t: f"{EMOJI} {t}")

    def change(d):  # the whole review after "😀 ": code points 2:len, UTF-16 units 3:len+1
        q = d[2]["turns"][3]["quotes"][0]
        q.update(start=3, end=len(text) + 1, sha256=text_sha256(text))
        del q["span_sha256"]
    _edit(release, "crs_dataset.json", change)
    _edit(release, "poi_knowledge_base.json", _shift_card_pointers("rvTampa02x0yyyyyyyyyyy", 2))
    assert main(import_args(release, tmp_path / "o")) == 3
    err = capsys.readouterr().err
    assert "[2].turns[3].quotes[0].start" in err and "the release counts offsets in UTF-16 units" in err
    assert repr(text[2:]) in err
