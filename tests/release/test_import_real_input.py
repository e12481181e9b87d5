"""`trace-crs release import` on what a real release and a real Yelp bundle hold: spellings of
the scenario city, a POI type in another case, an empty dataset, a pool in another city, and a
small release built in a temp dir from the real Yelp sample (unicode, emoji, newlines in the
quoted span).  Yelp text is read from ../shared and never written into the repository."""
from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path

import pytest

from trace_crs.cli import main
from trace_crs.dialogues.schema import load_dialogues
from trace_crs.kb.geo import canonical_city
from trace_crs.kb.store import load_kb

from .conftest import import_args

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "data" / "yelp-sample"


def _edit(release: Path, fn) -> None:
    path = release / "crs_dataset.json"
    data = json.loads(path.read_text())
    fn(data)
    path.write_text(json.dumps(data, ensure_ascii=False))


@pytest.mark.parametrize("spelling", ["tampa", "  TAMPA ", "Tampa"])
def test_scenario_city_is_written_in_the_kb_spelling(release, tmp_path, spelling):
    _edit(release, lambda d: d[2]["scenario"].__setitem__("city", spelling))  # crs_yelp_08506, Tampa
    out = tmp_path / "o"
    assert main(["--quiet", *import_args(release, out)]) == 0
    d = {x["dialogue_id"]: x for x in load_dialogues(out / "dialogues.jsonl")}["crs_yelp_08506"]
    assert d["scenario"]["city"] == "Tampa"
    assert d["open_set_poi_ids"] == d["candidate_poi_ids"]  # before: an empty open set for "tampa"


def _city(value):
    return lambda d: d[2]["scenario"].__setitem__("city", value)


@pytest.mark.parametrize(("edit", "field", "says"), [
    (_city("Boston"), "[2].scenario.city", "'Boston' is not one of the 8 paper cities"),
    (_city("Nashville"), "[2].candidate_poi_ids[0]", "is in Tampa, the scenario's city is Nashville"),
    (lambda d: d[2]["scenario"].__setitem__("poi_type", "Restaurant"), "[2].scenario.poi_type",
     "'Restaurant' is not one of ['attraction', 'hotel', 'restaurant']"),
], ids=["unknown_city", "pool_in_another_city", "poi_type_case"])
def test_scenario_values_are_checked_naming_file_dialogue_and_field(release, tmp_path, capsys, edit, field, says):
    _edit(release, edit)
    out = tmp_path / "o"
    assert main(import_args(release, out)) == 3  # the type case was a KeyError, exit 2, "error: 'Restaurant'"
    err = capsys.readouterr().err
    assert "crs_dataset.json" in err and "dialogue crs_yelp_08506" in err and field in err and says in err, err
    assert not out.exists()


def test_card_poi_type_is_checked(release, tmp_path, capsys):
    path = release / "poi_knowledge_base.json"
    cards = json.loads(path.read_text())
    first = cards[0] if isinstance(cards, list) else cards[sorted(cards)[0]]
    first["poi_type"] = "museum"
    path.write_text(json.dumps(cards))
    assert main(import_args(release, tmp_path / "o")) == 3
    err = capsys.readouterr().err
    assert "poi_knowledge_base.json" in err and "poi_type" in err and "'museum' is not one of" in err, err


def test_empty_dataset_is_an_error_not_an_empty_corpus(release, tmp_path, capsys):
    (release / "crs_dataset.json").write_text("[]")
    (release / "splits" / "test_dialogue_ids.json").write_text("[]")
    assert main(import_args(release, tmp_path / "o")) == 3
    assert "crs_dataset.json" in (err := capsys.readouterr().err) and "no dialogues" in err, err
    assert not (tmp_path / "o").exists()


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _real_release(root: Path, edit_text=None) -> tuple[Path, dict]:
    """One Philadelphia restaurant dialogue over 8 real sample businesses; its recommend turn
    quotes 2 real reviews (the first with a span crossing a newline when the sample has one)."""
    business = [json.loads(l) for l in (SAMPLE / "yelp_academic_dataset_business.json").open(encoding="utf-8")]
    reviews = [json.loads(l) for l in (SAMPLE / "yelp_academic_dataset_review.json").open(encoding="utf-8")]
    of = defaultdict(list)
    for r in reviews:
        of[r["business_id"]].append(r)
    pool = [b for b in business if canonical_city(b["city"]) == "Philadelphia" and "Restaurants" in
            (b["categories"] or "") and of[b["business_id"]]][:8]
    assert len(pool) == 8
    ids = [b["business_id"] for b in pool]
    kept = [dict(r) for b in ids for r in of[b]]
    if edit_text:
        edit_text(kept[0])
    quotes, text = [], "Try "
    for k, bid in enumerate(ids[:2]):
        r = next(x for x in kept if x["business_id"] == bid)
        t = r["text"][:500]
        nl = t.find("\n")
        start, end = (max(0, nl - 30), min(len(t), nl + 30)) if 0 <= nl else (0, min(len(t), 60))
        quotes.append({"q": k + 1, "label": f"R{k + 1}", "business_id": bid, "review_id": r["review_id"],
                       "start": start, "end": end, "sha256": _sha(t), "span_sha256": _sha(t[start:end])})
        text += f'"[Q:{k + 1}]" [R{k + 1}] '
    turn = {"role": "system", "action": "recommend", "text": text, "referenced_poi_ids": [ids[0]],
            "referenced_review_ids": [q["review_id"] for q in quotes], "quotes": quotes}
    dialogue = {"dialogue_id": "crs_yelp_00001", "candidate_poi_ids": ids, "metadata": {"difficulty": "Easy"},
                "scenario": {"persona_type": "foodie", "city": "philadelphia", "poi_type": "restaurant"},
                "turns": [{"role": "user", "action": "greet_and_seek", "text": "Dinner in Philly?"}, turn]}
    (root / "splits").mkdir(parents=True)
    (root / "yelp").mkdir()
    (root / "crs_dataset.json").write_text(json.dumps([dialogue], ensure_ascii=False), encoding="utf-8")
    (root / "poi_knowledge_base.json").write_text(json.dumps([{"business_id": b} for b in ids]))
    (root / "splits" / "test_dialogue_ids.json").write_text('["crs_yelp_00001"]')
    (root / "yelp" / "yelp_academic_dataset_business.json").write_text(
        "".join(json.dumps(b, ensure_ascii=False) + "\n" for b in pool), encoding="utf-8")
    (root / "yelp" / "yelp_academic_dataset_review.json").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept), encoding="utf-8")
    return root, {q["review_id"]: q for q in quotes}


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="the Yelp sample (../shared/data/yelp-sample) is absent")
@pytest.mark.parametrize("edit_text", [
    None,
    # invented text in a real record: emoji (outside the BMP), accents, HTML entities kept verbatim
    lambda r: r.__setitem__("text", "Caf\u00e9 \U0001F60D lovely.\n\nThe cr\u00e8me br\u00fbl\u00e9e &amp; "
                                    "&#39;tea&#39; \u2014 perfect!"),
], ids=["real_text", "unicode_emoji_entities"])
def test_real_yelp_release_hydrates_spans_verbatim(tmp_path, edit_text):
    root, quotes = _real_release(tmp_path / "rel", edit_text)
    out = tmp_path / "o"
    assert main(["--quiet", *import_args(root, out)]) == 0
    kb = load_kb(out / "kb")
    (d,) = load_dialogues(out / "dialogues.jsonl")
    assert d["scenario"]["city"] == "Philadelphia" and set(d["candidate_poi_ids"]) <= set(d["open_set_poi_ids"])
    cites = d["turns"][1]["citations"]
    assert [c["review_id"] for c in cites] == list(quotes)
    for c in cites:  # offsets are code points of the 500-character KB text, as the release states them
        q = quotes[c["review_id"]]
        assert (c["start"], c["end"]) == (q["start"], q["end"])
        assert c["quote"] == kb.reviews[c["review_id"]].text[q["start"]:q["end"]]
        assert _sha(c["quote"]) == q["span_sha256"] and f'"{c["quote"]}" [{c["label"]}]' in d["turns"][1]["text"]
