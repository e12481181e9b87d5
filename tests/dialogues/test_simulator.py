"""The simulated generator on the tiny KB: rules of Appendix G, exact multi-reference gold,
rejections and verbatim citations, determinism."""
import copy
import json

import pytest

from trace_crs.dialogues.constraints import satisfies
from trace_crs.dialogues.generate import generate_simulated, write_corpus
from trace_crs.dialogues.pools import sample_candidates
from trace_crs.dialogues.validate import dialogue_failures, summarize
from trace_crs.kb.store import KB, sha256_file

REC = ("recommend", "compare")


@pytest.fixture(scope="module")
def corpus(tiny_kb):
    return generate_simulated(tiny_kb, 24, seed=42)


def test_all_pass_validation(corpus, tiny_kb):
    summary = summarize(corpus, tiny_kb)
    assert summary["pass_rate"] == 1.0, summary["failed"]


def test_structure_rules(corpus):
    for d in corpus:
        turns = d["turns"]
        assert [t["turn_id"] for t in turns] == list(range(1, len(turns) + 1))
        assert [t["role"] for t in turns] == ["user", "system"] * (len(turns) // 2)
        assert turns[0]["action"] == "greet_and_seek" and turns[-1]["action"] == "farewell"
        assert 6 <= len(turns) <= 12
        actions = [t["action"] for t in turns]
        assert {"ask_preference", "reject_and_refine", "compare"} <= set(actions)
        assert len({b for t in turns if t["action"] in REC for b in t["gold_poi_ids"]}) >= 3
        for t in turns:
            if t["action"] == "compare":
                assert len(t["gold_poi_ids"]) == 2


def test_multi_reference_gold_is_exact(corpus, tiny_kb):
    """Independent check: every gold and alternative meets the final hidden preferences on
    the last recommendation turn, and no other candidate does."""
    for d in corpus:
        prefs = d["scenario"]["hidden_preferences"]
        constraints = [(f, prefs[f]) for f in ("style", "price_max", "noise", "anchor") if prefs[f] is not None]
        constraints += [(f, v) for f in ("ambience", "features") for v in prefs[f]]
        last = [t for t in d["turns"] if t["action"] in REC][-1]

        def has(poi, facet, value):   # independent of the composite constraints' code
            got = poi.attributes.get(facet)
            return value in (got or []) if facet in ("ambience", "features") else got == value

        ok = {b for b in d["candidate_poi_ids"] if all(satisfies(tiny_kb.pois[b], c) for c in constraints)
              and not any(has(tiny_kb.pois[b], f, v) for f, vs in prefs["avoid"].items() for v in vs)
              and all(any(has(tiny_kb.pois[b], m["facet"], m["value"]) for m in g) for g in prefs["either"])}
        assert set(last["gold_poi_ids"]) | set(last["acceptable_alternative_poi_ids"]) == ok
        assert not set(last["gold_poi_ids"]) & set(last["acceptable_alternative_poi_ids"])


def test_rejected_pois_are_not_gold_afterwards(corpus):
    for d in corpus:
        turns = d["turns"]
        for i, t in enumerate(turns):
            if t["action"] == "reject_and_refine":
                previous = set(turns[i - 1]["gold_poi_ids"])
                recovery = turns[i + 1]
                assert recovery["action"] in REC
                assert not previous & (set(recovery["gold_poi_ids"]) | set(recovery["acceptable_alternative_poi_ids"]))


def test_citations_are_verbatim(corpus, tiny_kb):
    n = 0
    for d in corpus:
        for t in d["turns"]:
            for c in t["citations"]:
                review = tiny_kb.reviews[c["review_id"]]
                assert review.text[c["start"]:c["end"]] == c["quote"]
                assert f'"{c["quote"]}" [{c["label"]}]' in t["text"]
                assert review.business_id in t["referenced_poi_ids"]
                n += 1
    assert n > 0


def test_deterministic_bytes(tmp_path, tiny_kb, corpus):
    a = write_corpus(copy.deepcopy(corpus), tmp_path / "a" / "d.jsonl")
    b = write_corpus(generate_simulated(tiny_kb, 24, seed=42), tmp_path / "b" / "d.jsonl")
    assert sha256_file(a) == sha256_file(b)
    c = write_corpus(generate_simulated(tiny_kb, 24, seed=7), tmp_path / "c" / "d.jsonl")
    assert sha256_file(a) != sha256_file(c)
    ids = json.loads((tmp_path / "a" / "d.splits" / "train_dialogue_ids.json").read_text())  # beside, named after the corpus
    assert ids == sorted(d["dialogue_id"] for d in corpus if d["split"] == "train")


def test_pools(corpus):
    for d in corpus:
        c, p = d["candidate_poi_ids"], d["expanded_pool_poi_ids"]
        assert len(set(c)) == 8 and set(c) <= set(p["16"]) <= set(p["32"]) <= set(d["open_set_poi_ids"])
        assert len(p["16"]) == 10  # the tiny KB has 10 POIs per city × type: pools are capped


def test_pool_smaller_than_8_raises(tiny_kb):
    small = KB(pois={b: p for b, p in tiny_kb.pois.items() if b < "r05"}, reviews={})
    with pytest.raises(ValueError, match="has 5 POIs; at least 8"):
        import numpy as np
        sample_candidates(small, "Tampa", "restaurant", np.random.default_rng(0))


def test_bad_n_raises(tiny_kb):
    with pytest.raises(ValueError, match="--n must be positive"):
        generate_simulated(tiny_kb, 0)


def test_validation_catches_broken_dialogues(corpus, tiny_kb):
    d = copy.deepcopy(corpus[0])
    rec = next(t for t in d["turns"] if t["citations"])
    rec["citations"][0]["quote"] = "completely invented praise that no reviewer wrote"
    d["turns"][0]["role"] = "system"
    d["turns"].pop()  # no farewell
    reasons = {r for r, _ in dialogue_failures(d, tiny_kb)}
    assert {"quote_mismatch", "alternation", "closing", "quote_not_in_text"} <= reasons
    e = copy.deepcopy(corpus[0])
    e["turns"][1]["referenced_poi_ids"] = ["nope"]
    assert ("unknown_poi", "turn 2: nope") in dialogue_failures(e, tiny_kb)
    assert dialogue_failures({"dialogue_id": "x"}, tiny_kb)[0][0] == "schema"
    assert summarize([], tiny_kb)["n"] == 0


def test_kb_missing_a_cited_review_is_reported(corpus, tiny_kb):
    d = corpus[0]
    cite = next(c for t in d["turns"] for c in t["citations"])
    tid = next(t["turn_id"] for t in d["turns"] if cite in t["citations"])
    kb = KB(pois=tiny_kb.pois, reviews={k: v for k, v in tiny_kb.reviews.items() if k != cite["review_id"]})
    assert ("unknown_review", f"turn {tid}: {cite['review_id']}") in dialogue_failures(d, kb)


def test_the_corpus_holds_negated_and_either_preferences(corpus):
    """The gold check above is not vacuous: some dialogues avoid a value or accept either of two."""
    hidden = [d["scenario"]["hidden_preferences"] for d in corpus]
    assert sum(bool(h["avoid"]) for h in hidden) >= 2
    assert all(set(h["avoid"]) <= {"style", "noise", "ambience", "features"} for h in hidden)
