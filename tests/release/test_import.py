"""`trace-crs release import` on the hand-made fixtures: mapping, hydration, report, errors."""
from __future__ import annotations

import json

import pytest

from trace_crs.cli import main
from trace_crs.dialogues.schema import load_dialogues
from trace_crs.kb.store import load_kb

from .conftest import import_args


def _dialogues(out):
    return {d["dialogue_id"]: d for d in load_dialogues(out / "dialogues.jsonl")}


def test_fixture_release_imports_and_hydrates(release, tmp_path):
    out = tmp_path / "imported"
    assert main(["--quiet", *import_args(release, out)]) == 0
    kb = load_kb(out / "kb")
    assert (len(kb.pois), len(kb.reviews)) == (24, 48)  # 3 cells x 8 POIs, 2 invented reviews each
    ds = _dialogues(out)
    assert sorted(ds) == ["crs_yelp_02669", "crs_yelp_04339", "crs_yelp_08506"]
    tampa = ds["crs_yelp_08506"]
    # hand-read from build_fixtures.py: turn 4 cites "a quiet corner ..." of Nonna Pia (POI 2), review 0
    t4 = tampa["turns"][3]
    assert t4["text"] == 'Try Nonna Pia Trattoria: one guest wrote "a quiet corner made it perfect for our anniversary" [R1].'
    c = t4["citations"][0]
    review = kb.reviews[c["review_id"]]
    assert review.text[c["start"]:c["end"]] == c["quote"] == "a quiet corner made it perfect for our anniversary"
    assert t4["gold_poi_ids"] == t4["referenced_poi_ids"] == [review.business_id]
    assert t4["acceptable_alternative_poi_ids"] == []
    assert tampa["scenario"]["difficulty"] == "hard" and tampa["scenario"]["persona_type"] == "date_night"
    assert tampa["scenario"]["hidden_preferences"] == {"style": None, "price_max": None, "noise": None,
                                                       "ambience": [], "features": [], "anchor": None}
    assert "[Q:" not in " ".join(t["text"] for d in ds.values() for t in d["turns"])
    assert {k: d["split"] for k, d in ds.items()} == {"crs_yelp_02669": "train", "crs_yelp_04339": "test",
                                                      "crs_yelp_08506": "train"}
    assert tampa["open_set_poi_ids"] == tampa["candidate_poi_ids"]  # the fixture's slice is exactly the pool


def test_mapping_report_counts_every_field(release, tmp_path):
    out = tmp_path / "imported"
    assert main(["--quiet", *import_args(release, out)]) == 0
    report = json.loads((out / "mapping_report.json").read_text())
    assert report["counts"] | {"splits": None} == {"dialogues": 3, "turns": 24, "quotes": 9, "cards": 24,
                                                   "card_pointers": 9, "pois": 24, "reviews": 48, "splits": None,
                                                   "quotes_without_checksums": 0}
    rows = {r["field"]: r for r in report["fields"]}
    assert rows["scenario.hidden_preferences"]["status"] == "absent" and rows["scenario.hidden_preferences"]["present"] == 0
    assert rows["scenario.persona"]["present"] == 0  # the fixture scenarios carry persona_type only
    assert rows["turns.gold_poi_ids"]["units"] == 6  # one recommend + one compare turn per dialogue
    assert rows["split"]["present"] == 1  # only the test file is released
    assert report["unconsumed_release_keys"] == {}


def test_unknown_release_keys_are_reported_not_dropped(release, tmp_path):
    data = json.loads((release / "crs_dataset.json").read_text())
    data[0]["turns"][0]["sentiment"] = "positive"
    (release / "crs_dataset.json").write_text(json.dumps(data))
    assert main(["--quiet", *import_args(release, tmp_path / "o")]) == 0
    assert json.loads((tmp_path / "o" / "mapping_report.json").read_text())["unconsumed_release_keys"] == {"turn.sentiment": 1}


def _corrupt_offset(release):
    data = json.loads((release / "crs_dataset.json").read_text())
    data[2]["turns"][3]["quotes"][0]["start"] += 1
    (release / "crs_dataset.json").write_text(json.dumps(data))
    return "crs_yelp_08506", "[2].turns[3].quotes[0].start"


def _missing_review(release):
    data = json.loads((release / "crs_dataset.json").read_text())
    gone = data[0]["turns"][3]["quotes"][0]["review_id"]
    path = release / "yelp" / "yelp_academic_dataset_review.json"
    path.write_text("".join(l for l in path.read_text().splitlines(True) if gone not in l))
    return "crs_yelp_02669", "review_id"


def _duplicate_id(release):
    data = json.loads((release / "crs_dataset.json").read_text())
    data[1]["dialogue_id"] = data[0]["dialogue_id"]
    (release / "crs_dataset.json").write_text(json.dumps(data))
    return "crs_yelp_02669", "[1].dialogue_id"


def _lost_placeholder(release):
    data = json.loads((release / "crs_dataset.json").read_text())
    data[1]["turns"][5]["text"] = data[1]["turns"][5]["text"].replace('"[Q:3]" [R2]', "it")
    (release / "crs_dataset.json").write_text(json.dumps(data))
    return "crs_yelp_04339", "[1].turns[5].text"


def _edited_review(release):
    path = release / "yelp" / "yelp_academic_dataset_review.json"
    path.write_text(path.read_text().replace("Ten minutes from the airport", "Ten minutes from the airport!"))
    return "crs_yelp_02669", "sha256"


@pytest.mark.parametrize("corrupt", [_corrupt_offset, _missing_review, _duplicate_id, _edited_review,
                                     _lost_placeholder],
                         ids=["offset", "missing_review", "duplicate_id", "edited_review", "lost_placeholder"])
def test_bad_release_exits_3_naming_file_dialogue_field_and_writes_nothing(release, tmp_path, capsys, corrupt):
    did, field = corrupt(release)
    out = tmp_path / "imported"
    assert main(import_args(release, out)) == 3
    err = capsys.readouterr().err
    assert "crs_dataset.json" in err and f"dialogue {did}" in err and field in err, err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["release"]  # no staging directory left behind


def test_failed_import_keeps_an_earlier_output(release, tmp_path):
    out = tmp_path / "imported"
    assert main(["--quiet", *import_args(release, out)]) == 0
    before = (out / "dialogues.jsonl").read_bytes()
    _corrupt_offset(release)
    assert main(import_args(release, out)) == 3
    assert (out / "dialogues.jsonl").read_bytes() == before


def test_out_inside_an_input_is_refused(release):
    assert main(import_args(release, release / "splits")) == 2


def test_quotes_without_checksums_are_hydrated_and_counted(release, tmp_path):
    data = json.loads((release / "crs_dataset.json").read_text())
    for t in data[0]["turns"]:
        for q in t["quotes"]:
            del q["sha256"], q["span_sha256"]
    (release / "crs_dataset.json").write_text(json.dumps(data))
    out = tmp_path / "imported"
    assert main(["--quiet", *import_args(release, out)]) == 0
    assert json.loads((out / "mapping_report.json").read_text())["counts"]["quotes_without_checksums"] == 3
    t4 = _dialogues(out)["crs_yelp_02669"]["turns"][3]
    assert t4["citations"][0]["quote"] == "the shuttle runs all night"
