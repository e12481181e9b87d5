"""Quotes as real systems write them (paper §3, App. J: a verbatim review span with its label):
typographic quotation marks, ellipses, changed case and white space, a span over a newline.
Expected values are hand-counted on the review below (invented text)."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from trace_crs.metrics import grounding as gr
from trace_crs.metrics.quotes import parse_quotes, quote_counts, quote_spans, unlabelled_spans
from trace_crs.metrics.text import text_view

REVIEW = ("We came for brunch on a Sunday.\n\nThe shrimp and grits were rich and smoky, "
          "and the staff kept our coffee topped up all morning. Parking was a nightmare though.")
CITED = {"R1": REVIEW}


@pytest.mark.parametrize(("text", "gs", "cd"), [
    # straight marks: 5 quote words of 7 response words
    ('Go: "the shrimp and grits were" [R1]', 1.0, 5 / 6),
    # the same in typographic marks — before: no quote found, GS 1.0 (vacuous) and CD 0
    ("Go: \u201cthe shrimp and grits were\u201d [R1]", 1.0, 5 / 6),
    ("Go: \u00abthe shrimp and grits were\u00bb [R1]", 1.0, 5 / 6),
    # case and white space: "We came for brunch on a Sunday. The shrimp" over the blank line
    ('Go: "WE CAME FOR BRUNCH on a Sunday.   The shrimp" [R1]', 1.0, 9 / 10),
    # a trailing ellipsis marks a cut, not text: 4 verbatim words of 5 response words
    ('Go: "kept our coffee topped\u2026" [R1]', 1.0, 4 / 5),
    ('Go: "kept our coffee topped..." [R1]', 1.0, 4 / 5),
    # an inner ellipsis joins two verbatim pieces of >= 4 words: both count (4 + 4 of 9 words)
    ('Go: "the shrimp and grits \u2026 kept our coffee topped" [R1]', 1.0, 8 / 9),
    # one piece invented: the quote fails, only the verbatim piece's 4 words count for CD
    ('Go: "the shrimp and grits \u2026 best oysters in town ever" [R1]', 0.0, 4 / 10),
    # a piece under 4 words is not checkable: fails (as a 3-word quote would)
    ('Go: "the shrimp and grits \u2026 Parking was" [R1]', 0.0, 4 / 7),
])
def test_grounding_of_quotes_as_systems_write_them(text, gs, cd):
    assert gr.grounding_score([text], [CITED])[0] == pytest.approx(gs)
    assert gr.citation_density([text], [CITED])[0] == pytest.approx(cd)


def test_a_quote_that_passes_as_written_is_not_split_at_its_ellipsis():
    review = "Nice... and the pasta here is really good"
    text = '"Nice... and the pasta" [R1]'  # verbatim with its own ellipsis; the piece "Nice" alone would fail
    assert gr.grounding_score([text], [{"R1": review}])[0] == 1.0
    assert gr.citation_density([text], [{"R1": review}])[0] == pytest.approx(1.0)


def test_typographic_quotes_keep_offsets_and_single_quotes_are_not_quotes():
    text = "A \u201cquiet spot\u201d [R2] and \u2018cosy\u2019 [R1]"
    (q,) = parse_quotes(text)
    assert (q.text, q.label, q.start) == ("quiet spot", "R2", 2)
    assert quote_spans(text)[0][:2] == (2, 19)  # "“quiet spot” [R2]": 17 characters


def test_typographic_marks_inside_a_straight_quote_stay_its_text():
    # real reviews hold curly marks; a straight quote of such a span is read exactly as before
    review = "Honestly the \u201cworld famous\u201d cheesesteak lived up to the hype."
    text = 'See: "the \u201cworld famous\u201d cheesesteak lived up" [R1] and \u201cup to the hype\u201d [R1]'
    assert [q.text for q in parse_quotes(text)] == ["the \u201cworld famous\u201d cheesesteak lived up", "up to the hype"]
    assert gr.grounding_score([text], [{"R1": review}])[0] == 1.0


def test_quote_counts_say_what_was_read():
    texts = ['"a b c d" [R1] and \u201ce f g h\u201d [R2]', "bare label [R1] [R2]", 'cut "x y z w\u2026" [R1] [R3]', "",
             # two labels in one bracket are read (one quote citing both); a short quoted phrase is no span
             'Go "great food and kind staff" [R1, R2], you said "quiet"',
             # forms the reader does not read: lower case, parentheses
             'Go "great food and kind staff" [r1].', 'Or "lovely quiet garden at night" (R2)']
    # quotes: 2 + 1 ("x y z w…" citing R1 and R3) + 1; bare labels: "[R1] [R2]" of the second text only
    assert quote_counts(texts) == {"quotes": 4, "typographic_marks": 1, "label_first": 0, "several_labels": 2,
                                   "with_ellipsis": 1, "labels_without_quote": 2, "unlabelled_quoted_spans": 2,
                                   "turns_marks_but_no_quote": 3}


def test_unlabelled_spans_pair_marks_after_blanking_labelled_quotes():
    assert unlabelled_spans('"a b c d" [R1] then "e f g h" [R2]') == []  # not the span ' [R1] then '
    assert unlabelled_spans('"a b c d" [R1] then \u201ce f g h i\u201d (R2)') == ["e f g h i"]


def test_text_views_read_typographic_quotes_and_keep_other_text_as_written():
    t = "Try \u201cgood grits here\u201d [R1], they \u201csay\u201d."
    assert text_view([t], "quotes") == ["good grits here"]
    assert text_view([t], "unquoted") == ["Try , they \u201csay\u201d."]


def test_score_cli_reads_curly_quotes_and_says_what_it_read(kb_dir, dialogues, tmp_path, capsys):
    from trace_crs.cli import main
    from trace_crs.kb.store import dump_jsonl

    dump_jsonl(dialogues, tmp_path / "d.jsonl")
    # review ra of the metric tests' KB holds "the pasta was fantastic"; D2's turn cites with a bare label only
    dump_jsonl([{"dialogue_id": "crs_yelp_00001", "turn_id": 2, "ranked_poi_ids": ["P1", "P2"],
                 "text": "P1: \u201cthe pasta was fantastic\u201d [R1]"},
                {"dialogue_id": "crs_yelp_00002", "turn_id": 2, "ranked_poi_ids": ["P2", "P1"],
                 "text": "P2, as a guest said [R1]."}], tmp_path / "p.jsonl")
    assert main(["score", "--kb", str(kb_dir), "--dialogues", str(tmp_path / "d.jsonl"),
                 "--predictions", str(tmp_path / "p.jsonl"), "--out", str(tmp_path / "s.json")]) == 0
    err = capsys.readouterr().err
    assert "warning: 1 turns carry [Rn] labels or quoted spans but no quote" in err
    agg = json.loads((tmp_path / "s.json").read_text())
    assert agg["quotes"] == {"quotes": 1, "typographic_marks": 1, "label_first": 0, "several_labels": 0,
                             "with_ellipsis": 0, "labels_without_quote": 1,
                             "unlabelled_quoted_spans": 0, "turns_marks_but_no_quote": 1}
    per_turn = pd.read_parquet(tmp_path / "s.per_turn.parquet").set_index(["dialogue_id", "turn_id"])
    assert per_turn.loc[("crs_yelp_00001", 2), "gs"] == 1.0 and per_turn.loc[("crs_yelp_00001", 2), "cd"] > 0


def test_predictions_file_with_a_byte_order_mark_reads_and_bad_json_names_its_line(kb, dialogues, tmp_path):
    from trace_crs.metrics.predictions import PredictionError, read_predictions

    line = json.dumps({"dialogue_id": "crs_yelp_00001", "turn_id": 2, "ranked_poi_ids": ["P1"], "text": "P1."})
    (tmp_path / "bom.jsonl").write_text(line + "\n", encoding="utf-8-sig")  # was: malformed JSON, exit 3
    assert list(read_predictions(tmp_path / "bom.jsonl", dialogues, kb)) == [("crs_yelp_00001", 2)]
    (tmp_path / "bad.jsonl").write_text(line + "\n{oops\n")
    with pytest.raises(PredictionError) as exc:
        read_predictions(tmp_path / "bad.jsonl", dialogues, kb)
    assert str(exc.value).startswith(f"{tmp_path / 'bad.jsonl'}:2: field '<json>': malformed JSON")  # once, not twice


# --- label-first and several-label citations (one reader: trace_crs.dialogues.quote_reader) ---
OTHER = "Quiet room at night and kind staff at the desk."
TWO = {"R1": REVIEW, "R2": OTHER}


@pytest.mark.parametrize(("text", "gs", "cd"), [
    # label first, as the smoke itinerary_llm run writes it: 5 verbatim words of 6 (label not counted)
    ('[R1] "the shrimp and grits were" Go.', 1.0, 5 / 6),
    ('Go: [R1]: \u201cthe shrimp and grits were\u201d', 1.0, 5 / 6),
    # a label-first quote citing the wrong review fails
    ('[R2] "the shrimp and grits were" Go.', 0.0, 0.0),
    # several labels: one citation per label; R1 holds it, R2 does not -> GS 1/2; CD counts the words once
    ('Go: "the shrimp and grits were" [R1, R2]', 0.5, 5 / 6),
    ('Go: "the shrimp and grits were" [R1][R2]', 0.5, 5 / 6),
    # the same as writing the quote twice, once per label: GS 1/2
    ('Go: "the shrimp and grits were" [R1] "the shrimp and grits were" [R2]', 0.5, 5 / 11),
    # both reviews hold it -> 1.0
    ('Go: "kind staff at the desk" [R2, R2]', 1.0, 5 / 6),
    # a label-first stream: both quotes read with their own labels (4 + 4 verbatim words of 8)
    ('[R1] "kept our coffee topped" [R2] "kind staff at the"', 1.0, 8 / 8),
])
def test_grounding_of_label_first_and_several_label_quotes(text, gs, cd):
    assert gr.grounding_score([text], [TWO])[0] == pytest.approx(gs)
    assert gr.citation_density([text], [TWO])[0] == pytest.approx(cd)


def test_provenance_coverage_sees_a_label_group():
    # "brunch" at 0, the group "[R1, R2]" at 25 (within w = 80): covered; before, the group was no label
    assert gr.provenance_coverage(['brunch "we came for it" [R1, R2]'])[0] == 1.0
    assert gr.provenance_coverage(["brunch, see [r1]"])[0] == 0.0


def test_quote_counts_report_label_first_and_several_labels():
    texts = ['[R1] "great food and kind staff"', '"great food and kind staff" [R1, R2]', "[R3] alone"]
    assert quote_counts(texts) == {"quotes": 2, "typographic_marks": 0, "label_first": 1, "several_labels": 1,
                                   "with_ellipsis": 0, "labels_without_quote": 1, "unlabelled_quoted_spans": 0,
                                   "turns_marks_but_no_quote": 1}


def test_several_labels_resolve_for_scoring(kb, dialogues):
    from trace_crs.metrics.predictions import cited_texts

    # no citations list: R1, R2 -> the 1st and 2nd review of the top POI, whether written [R1, R2] or [R1][R2]
    top = kb.reviews_of("P1")
    for text in ('"x" [R1, R2]', '"x" [R1][R2]'):
        got = cited_texts(kb, {"text": text, "ranked_poi_ids": ["P1"]})
        assert got == {f"R{i + 1}": r.text for i, r in enumerate(top[:2])}
