"""`kb calibrate` / `kb realism` on what a real or broken Yelp bundle holds: an empty file, a
bundle without reviews, a line that is not an object, a review without text, a truncated last
line, bytes that are not UTF-8.  Each is an error naming file, line and field (exit 3), never a
traceback, an empty result or a review counted with length 0.  Invented text only."""
from __future__ import annotations

import json

import pytest

from trace_crs.cli import main
from trace_crs.kb.yelp import BUSINESS_FILE, REVIEW_FILE

BUSINESS = {"business_id": "b1", "name": "Casa Invented", "address": "", "city": "Tampa", "state": "FL",
            "latitude": 27.9, "longitude": -82.4, "stars": 4.0, "review_count": 2,
            "attributes": {"OutdoorSeating": "True"}, "categories": "Restaurants, Thai"}
REVIEWS = [{"review_id": f"r{i}", "business_id": "b1", "stars": 4, "date": "2020-01-01", "text": t}
           for i, t in enumerate(["Lovely patio \U0001F33F and caf\u00e9 vibes.\n\nGreat curry.", "Slow service."])]


def _bundle(tmp_path, business=(BUSINESS,), reviews=REVIEWS, tail=b""):
    d = tmp_path / "yelp"
    d.mkdir(exist_ok=True)
    (d / BUSINESS_FILE).write_text("".join(json.dumps(b) + "\n" for b in business))
    (d / REVIEW_FILE).write_bytes("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in reviews).encode() + tail)
    return d


def _kb(tmp_path):
    out = tmp_path / "kb"
    assert main(["--quiet", "kb", "build", "--source", "synthetic", "--per-cell", "2", "--seed", "42",
                 "--out", str(out)]) == 0
    return out


COMMANDS = {
    "calibrate": lambda d, tmp: ["kb", "calibrate", "--yelp-dir", str(d), "--min-reviews", "1"],
    "lengths": lambda d, tmp: ["kb", "calibrate", "--lengths", "--yelp-dir", str(d)],
    "realism": lambda d, tmp: ["kb", "realism", "--kb", str(_kb(tmp)), "--reference", str(d), "--n-per-class", "2"],
}
NO_TEXT = [dict(REVIEWS[0]), {k: v for k, v in REVIEWS[1].items() if k != "text"}]
NULL_TEXT = [dict(REVIEWS[0]), {**REVIEWS[1], "text": None}]


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize(("bundle", "where"), [
    (dict(reviews=[]), f"{REVIEW_FILE}: field '<file>': no review"),
    (dict(reviews=NO_TEXT), f"{REVIEW_FILE}:2: field 'text': missing"),
    (dict(reviews=NULL_TEXT), f"{REVIEW_FILE}:2: field 'text': expected str, got NoneType"),
    (dict(tail=b"[1, 2]\n"), f"{REVIEW_FILE}:3: field '<record>': expected a JSON object"),
    (dict(tail=b'{"review_id": "r9", "text": "cut sh'), f"{REVIEW_FILE}:3: field '<json>': malformed JSON"),
    (dict(tail=b'{"review_id": "r9", "business_id": "b1", "text": "caf\xe9"}\n'), f"{REVIEW_FILE}:3: field '<bytes>': not UTF-8"),
], ids=["no_reviews", "missing_text", "null_text", "not_an_object", "truncated_last_line", "not_utf8"])
def test_bad_bundle_is_a_data_error_naming_file_line_and_field(tmp_path, capsys, command, bundle, where):
    d = _bundle(tmp_path, **bundle)
    assert main(COMMANDS[command](d, tmp_path)) == 3  # before: NaN JSON / exit 0, AttributeError (1), length-0 reviews
    assert where in capsys.readouterr().err


def test_calibrate_without_a_faceted_business_says_so(tmp_path, capsys):
    d = _bundle(tmp_path, business=[{**BUSINESS, "attributes": None}])
    assert main(["kb", "calibrate", "--yelp-dir", str(d), "--min-reviews", "1"]) == 3
    assert "no review of a business whose attributes give a facet value (0 such businesses" in capsys.readouterr().err


def test_calibrate_business_without_id_names_the_line(tmp_path, capsys):
    d = _bundle(tmp_path, business=[BUSINESS, {k: v for k, v in BUSINESS.items() if k != "business_id"}])
    assert main(["kb", "calibrate", "--yelp-dir", str(d)]) == 3  # was KeyError, exit 2: "error: 'business_id'"
    assert f"{BUSINESS_FILE}:2: field 'business_id': missing" in capsys.readouterr().err


def test_unicode_bundle_calibrates_and_measures_code_points(tmp_path):
    d = _bundle(tmp_path)
    out = tmp_path / "len.json"
    assert main(["--quiet", "kb", "calibrate", "--lengths", "--yelp-dir", str(d), "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    lengths = sorted(len(r["text"]) for r in REVIEWS)  # 44 and 13 code points (the emoji is one, not two UTF-16 units)
    assert lengths == [13, 44]
    assert (report["n"], report["quantiles"][0], report["quantiles"][-1]) == (2, 13, 44)
    rates = tmp_path / "rates.json"
    assert main(["--quiet", "kb", "calibrate", "--yelp-dir", str(d), "--min-reviews", "1", "--out", str(rates)]) == 0
    assert json.loads(rates.read_text())["features:outdoor_seating"] == {"reviews": 2, "mentions": 1, "rate": 0.5}
