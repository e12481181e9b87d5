"""Release/hydrate round trip, splits, Table-3 stats and the schema loader."""
import copy
import json

import pytest

from trace_crs.dialogues.generate import generate_simulated
from trace_crs.dialogues.release import HydrationError, hydrate_dialogue, release_dialogue
from trace_crs.dialogues.schema import DialogueFormatError, load_dialogues
from trace_crs.errors import DataError
from trace_crs.dialogues.splits import assign_splits
from trace_crs.dialogues.stats import corpus_stats
from trace_crs.kb.schema import Review
from trace_crs.kb.store import KB, dump_jsonl


@pytest.fixture(scope="module")
def corpus(tiny_kb):
    return generate_simulated(tiny_kb, 9, seed=42)


def test_release_hides_quotes_and_round_trips(corpus, tiny_kb):
    for d in corpus:
        r = release_dialogue(d, tiny_kb)
        quotes = [c["quote"] for t in d["turns"] for c in t["citations"]]
        released_text = " ".join(t["text"] for t in r["turns"])
        assert all(q not in released_text for q in quotes)
        assert released_text.count("[Q:") == len(quotes)
        assert [c["q"] for t in r["turns"] for c in t["citations"]] == list(range(1, len(quotes) + 1))
        assert hydrate_dialogue(r, tiny_kb) == d


def test_hydrate_errors_name_dialogue_and_quote(corpus, tiny_kb):
    d = corpus[0]
    r = release_dialogue(d, tiny_kb)
    first = next(c for t in d["turns"] for c in t["citations"])
    changed = dict(tiny_kb.reviews)
    old = changed[first["review_id"]]
    changed[first["review_id"]] = Review(old.review_id, old.business_id, old.stars, old.text + " Edited.", old.date)
    with pytest.raises(HydrationError, match=rf"dialogue {d['dialogue_id']}: quote 1 .*checksum differs"):
        hydrate_dialogue(r, KB(pois=tiny_kb.pois, reviews=changed))
    del changed[first["review_id"]]
    with pytest.raises(HydrationError, match=rf"dialogue {d['dialogue_id']}: quote 1 .*missing"):
        hydrate_dialogue(r, KB(pois=tiny_kb.pois, reviews=changed))


def _fake(i, city, poi_type):
    return {"dialogue_id": f"crs_yelp_{i:05d}", "scenario": {"city": city, "poi_type": poi_type}, "split": None}


def test_splits_70_15_15_per_stratum():
    ds = [_fake(i, "Tampa", "hotel") for i in range(20)] + [_fake(100 + i, "Reno", "hotel") for i in range(10)]
    ids = assign_splits(ds, seed=42)
    tampa = [d["split"] for d in ds[:20]]
    reno = [d["split"] for d in ds[20:]]
    assert (tampa.count("train"), tampa.count("val"), tampa.count("test")) == (14, 3, 3)
    # 10 × (.7, .15) = 7, 1.5 -> round half to even = 2, rest 1
    assert (reno.count("train"), reno.count("val"), reno.count("test")) == (7, 2, 1)
    assert sum(map(len, ids.values())) == 30
    again = [_fake(i, "Tampa", "hotel") for i in range(20)] + [_fake(100 + i, "Reno", "hotel") for i in range(10)]
    assert assign_splits(again, seed=42) == ids
    assert assign_splits([], seed=42) == {"train": [], "val": [], "test": []}


def _mini(turn_actions, alts, tier="easy", persona="family"):
    roles = ["user", "system"] * (len(turn_actions) // 2)
    turns = []
    for i, (role, action) in enumerate(zip(roles, turn_actions)):
        t = {"turn_id": i + 1, "role": role, "action": action, "referenced_poi_ids": [], "citations": []}
        if action in ("recommend", "compare"):
            t["referenced_poi_ids"] = list(alts.pop(0))
            t["acceptable_alternative_poi_ids"] = ["z"] if t["referenced_poi_ids"][0] == "a" else []
        turns.append(t)
    return {"turns": turns, "scenario": {"difficulty": tier, "persona_type": persona}, "split": "train",
            "candidate_poi_ids": list("abcdefgh")}


def test_stats_by_hand():
    d1 = _mini(["greet_and_seek", "ask_preference", "provide_preference", "recommend", "reject_and_refine", "compare",
                "accept", "farewell"], [["a"], ["b", "c"]])
    d2 = _mini(["greet_and_seek", "ask_preference", "provide_preference", "recommend", "reject_and_refine", "recommend",
                "reject_and_refine", "compare", "accept", "farewell"], [["a"], ["b"], ["a", "d"]], tier="hard", persona="senior")
    s = corpus_stats([d1, d2])
    assert s["turns_mean"] == 9.0 and s["turns_sd"] == pytest.approx(2 ** 0.5)  # (8, 10): sd = sqrt(2)
    assert s["pois_recommended_mean"] == 3.0  # {a,b,c} and {a,b,d}
    assert s["rejection_rate"] == pytest.approx(3 / 9)  # 3 rejections / (4 + 5) user turns
    assert s["rec_turns"] == 5 and s["rec_turns_with_alternative"] == pytest.approx(3 / 5)  # turns starting with "a"
    assert s["tiers"] == {"easy": 1, "medium": 0, "hard": 1, "expert": 0} and s["persona_archetypes"] == 2
    empty = corpus_stats([])
    assert empty["dialogues"] == 0 and empty["turns_mean"] != empty["turns_mean"]  # NaN


def test_loader_errors(tmp_path, corpus):
    good = tmp_path / "good.jsonl"
    dump_jsonl(corpus[:2], good)
    assert load_dialogues(good) == corpus[:2]
    bad = tmp_path / "bad.jsonl"
    broken = copy.deepcopy(corpus[1])
    del broken["turns"][0]["action"]
    bad.write_text(json.dumps(corpus[0]) + "\n" + json.dumps(broken) + "\n")
    with pytest.raises(DialogueFormatError, match=r"bad.jsonl:2: dialogue crs_yelp_00002: field 'turns/0'"):
        load_dialogues(bad)
    bad.write_text(json.dumps(corpus[0]) + "\n{not json\n")
    with pytest.raises(DialogueFormatError, match=r"bad.jsonl:2: .*malformed JSON"):
        load_dialogues(bad)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(DataError, match=r"empty.jsonl: field '<file>': no dialogues"):
        load_dialogues(empty)  # an empty corpus is an error, not zero dialogues
