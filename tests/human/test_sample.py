"""Item sampler: blind, seeded, complete (dialogue context, response, quotes, cited reviews), no leakage."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from trace_crs.errors import UsageError
from trace_crs.human.sample import sample_items
from trace_crs.kb.schema import POI, Review
from trace_crs.kb.store import KB

BASES = ["tfidf", "rag_citation", "llm_zero_shot"]


def _kb():
    pois = {f"p{i}": POI(f"p{i}", f"Place {i}", "", "Town", "TS", 0.0, 0.0, "restaurant", ["Food"], 4.0, 3, 2)
            for i in range(4)}
    reviews = {f"r{i}": Review(f"r{i}", f"p{i % 4}", 5, f"Review {i} says the soup was hot.", "2020-01-01")
               for i in range(8)}
    return KB(pois=pois, reviews=reviews)


def _dialogues(n):
    return {f"d{k}": {"dialogue_id": f"d{k}", "candidate_poi_ids": ["p0", "p1", "p2", "p3"],
                      "scenario": {"hidden_preferences": {"secret": "GOLD-LEAK"}},
                      "turns": [{"turn_id": 1, "role": "user", "text": f"I want soup {k}", "action": "request"},
                                {"turn_id": 2, "role": "system", "text": "gold answer GOLD-LEAK", "action": "recommend"}]}
            for k in range(n)}


def _records(n):
    rows = []
    for k in range(n):
        for b in BASES:
            text = f'{b} says "the soup was hot" [R1].' if b != "llm_zero_shot" else f"{b}: no quotes here."
            rows.append({"dialogue_id": f"d{k}", "turn_id": 2, "baseline": b, "text": text,
                         "citations": json.dumps([{"label": "R1", "review_id": f"r{k % 8}"}])})
    return pd.DataFrame(rows)


def test_items_blind_complete_and_seeded():
    scores = pd.DataFrame([{"baseline": b, "dialogue_id": f"d{k}", "turn_id": 2, "gs": 0.5, "cgs": 0.25, "cd": 0.1}
                           for k in range(6) for b in BASES])
    t1, t2, key = sample_items(_records(6), _dialogues(6), _kb(), BASES, n=4, seed=42, n_task2=2, scores=scores)
    assert len(t1) == 12 and len(t2) == 2 and len(key) == 12
    assert [i["item_id"] for i in t1] == [k["item_id"] for k in key] == [f"t1-{k:03d}" for k in range(12)]
    blob = json.dumps(t1 + t2)
    assert "GOLD-LEAK" not in blob and not any(b in json.dumps(t1[i]["item_id"]) for b in BASES for i in range(12))
    for item, k in zip(t1, key):
        assert item["context"] == [{"role": "user", "text": f"I want soup {item['dialogue_id'][1:]}"}]
        assert k["baseline"] in item["response"]           # the key names the system that wrote it
        assert item["system_label"] == k["system_label"] and k["gs"] == 0.5
        if k["baseline"] != "llm_zero_shot":
            assert item["quotes"] == ["the soup was hot"] and item["reviews"][0]["poi_name"].startswith("Place")
    labels = {k["dialogue_id"]: set() for k in key}
    for k in key:
        labels[k["dialogue_id"]].add(k["system_label"])
    assert all(v == {"System A", "System B", "System C"} for v in labels.values())
    assert len(t2[0]["candidates"]) == 4 and t2[0]["request"].startswith("I want soup")
    assert "response" not in t2[0]
    again = sample_items(_records(6), _dialogues(6), _kb(), BASES, n=4, seed=42, n_task2=2, scores=scores)
    assert again == (t1, t2, key)
    other = sample_items(_records(6), _dialogues(6), _kb(), BASES, n=4, seed=7, n_task2=2)
    assert other[2] != key and other[2][0]["gs"] is None


def test_too_few_dialogues_and_unknown_baseline():
    with pytest.raises(UsageError, match="only 3 dialogues"):
        sample_items(_records(3), _dialogues(3), _kb(), BASES, n=4)
    with pytest.raises(UsageError, match="not in the run"):
        sample_items(_records(3), _dialogues(3), _kb(), ["tfidf", "dense"], n=1)
