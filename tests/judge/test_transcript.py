import json
from pathlib import Path

import pytest

from trace_crs.errors import DataError
from trace_crs.judge.adapters import (
    accepted_pois,
    from_dialogue,
    from_generic,
    from_predictions,
    item_name,
)
from trace_crs.judge.transcript import (
    load_transcripts,
    parse_transcript,
    transcript_record,
)
from trace_crs.kb.store import iter_jsonl

FIXTURES = Path(__file__).parent / "fixtures"

GOOD = {"dialogue_id": "d1", "turns": [{"role": "user", "text": "hi"},
                                       {"role": "assistant", "text": "Try A.", "items": ["A", "B"]},
                                       {"role": "user", "text": "and?"},
                                       {"role": "assistant", "text": "Try B or C.", "items": ["B", "C"]}]}


def write(tmp_path, recs):
    p = tmp_path / "t.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return p


def test_round_trip_and_session_list(tmp_path):
    [t] = load_transcripts(write(tmp_path, [GOOD]))
    assert t.recommended == ["A", "B", "C"]          # concatenated, first mention kept
    assert parse_transcript(transcript_record(t)) == t
    assert transcript_record(t) == GOOD             # unset optional fields are left out


def test_history_split_in_log():
    t = parse_transcript({**GOOD, "history_turns": 2})
    log = t.log()
    hist, inter = log.split("<interaction>")
    assert "<system>Try A.</system>" in hist and "<system>Try B or C.</system>" in inter
    assert t.recommended == ["B", "C"]               # only the rated part's items


@pytest.mark.parametrize("bad, line, field", [
    ({**GOOD, "turns": [{"role": "bot", "text": "x"}]}, 2, "turns.0.role"),
    ({**GOOD, "turns": [{"role": "user"}]}, 2, "turns.0.text"),
    ({**GOOD, "history_turns": 4}, 2, "<record>"),
    ({**GOOD, "extra": 1}, 2, "extra"),
    ({"turns": GOOD["turns"]}, 2, "dialogue_id"),
    (GOOD, 2, "dialogue_id"),                        # duplicate of line 1
])
def test_bad_records_name_file_line_field(tmp_path, bad, line, field):
    p = write(tmp_path, [GOOD, bad])
    with pytest.raises(DataError) as err:
        load_transcripts(p)
    assert (err.value.file, err.value.line, err.value.field) == (str(p), line, field)
    assert f"{p}:{line}" in str(err.value)


def test_empty_file_is_an_error(tmp_path):
    with pytest.raises(DataError, match="empty"):
        load_transcripts(write(tmp_path, []))


def test_from_dialogue(kb, dialogues):
    t = from_dialogue(dialogues[0], kb)
    assert [x.role for x in t.turns] == ["user", "assistant"] * 4
    assert t.turns[3].items == [item_name(kb, "r3")] == ["Sushi Zen [Japanese, Restaurant; $$$]"]
    # r3 (turn 4) was rejected; r2 (turn 6) accepted: only r2 is what the traveller wanted
    assert t.ground_truth == [item_name(kb, "r2")] and t.domain == "restaurant"
    assert accepted_pois(dialogues[1]) == ["r1", "r7"]                        # both accepted
    last = {**dialogues[0], "turns": dialogues[0]["turns"][:6]}                # no accept at all
    assert accepted_pois(last) == ["r2"]


def test_from_predictions_splices_baseline_turns(kb, dialogues):
    d = dialogues[0]
    rid = kb.reviews_of("r1")[0].review_id
    preds = {(d["dialogue_id"], 4): {"dialogue_id": d["dialogue_id"], "turn_id": 4, "ranked_poi_ids": ["r1", "r7", "r2", "r3"],
                                     "text": '"The pasta was delicious" [R1]', "citations": [{"label": "R1", "review_id": rid}]}}
    t = from_predictions(d, preds, kb, system="tfidf")
    assert t.system == "tfidf" and t.dialogue_id == "tfidf/crs_test_00001" and t.turns[3].text == '"The pasta was delicious" [R1]'
    assert t.turns[3].items == [item_name(kb, p) for p in ("r1", "r7", "r2")]     # top 3 presented
    assert t.turns[3].evidence == {"R1": kb.reviews[rid].text}
    assert t.turns[5].text == "" and t.turns[5].items == []                     # missing prediction
    assert t.turns[1].text == d["turns"][1]["text"]                              # non-rec turns kept


def test_generic_fixture_layout():
    got = [from_generic(rec, "f", n) for n, rec in iter_jsonl(FIXTURES / "movie_crs.jsonl")]
    assert [t.dialogue_id for t in got] == ["movie_a", "movie_b", "movie_c"]
    assert got[0].recommended == ["The Matrix", "Avatar", "2012", "Twister"] and got[0].ground_truth == ["2012"]
    assert [x.role for x in got[1].turns] == ["user", "assistant"] * 2 and got[1].recommended == []
    assert got[2].history_turns == 2 and got[2].recommended == ["The Others"]
    with pytest.raises(DataError, match="turns.1.role"):
        from_generic({"dialogue_id": "x", "turns": [{"role": "user", "text": "a"}, {"role": "narrator", "text": "b"}]})
