import math

import dspy
import numpy as np
import pytest
from dspy.utils import DummyLM

from trace_crs.metrics import entailment as en
from trace_crs.metrics import errors as er
from trace_crs.metrics.judge import LikertJudge, cross_judge_agreement, dialogue_context

@pytest.fixture(autouse=True)
def _reset_dspy():
    with dspy.context(lm=None):
        yield


def test_claim_sentences():
    text = 'Try P1 now. "Great pasta" [R1] and a quiet patio! Ok. Really good food here?'
    assert en.claim_sentences(text) == ["Try P1 now.", '"Great pasta"  and a quiet patio!', "Really good food here?"]
    assert en.claim_sentences("") == []


def test_llm_backend_verdicts_and_turn_fraction():
    # pairs are asked in sorted order: (R, c1), (R, c2), (R, c3)
    lm = DummyLM([{"verdict": "yes"}, {"verdict": "maybe"}, {"verdict": "no"}])
    b = en.make_backend("llm", lm)
    text = "c1 claim here. c2 claim here. c3 claim here."
    got = en.entailment_scores([text], [["R"]], b)
    assert got[0] == pytest.approx(1 / 3)  # only "yes" reaches 0.5 ("maybe" = 1/3)
    np.testing.assert_allclose(b.probabilities([("R", "c2 claim here."), ("R", "c1 claim here.")]), [1 / 3, 1.0])


def test_embedding_backend_proxy():
    b = en.make_backend("embedding")
    review = "The pasta was great. Parking is impossible downtown."
    p = b.probabilities([(review, "The pasta was great."), (review, "The pasta was great"), (review, "zzz qqq")])
    assert p[0] == pytest.approx(1.0, abs=1e-5)  # identical sentence: cosine 1
    assert p[1] > 0.9 and p[2] < 0.5


def test_judge_program_and_range_check():
    ok = {"relevance": 5, "informativeness": 4, "grounding_quality": 3, "natural_flow": 2, "justification": 1}
    with dspy.context(lm=DummyLM([ok, {**ok, "relevance": 7}])):
        r = LikertJudge()(dialogue="User: hi", response="Try P1.", cited_reviews="(none)")
        assert (r.relevance, r.justification) == (5, 1)
        with pytest.raises(ValueError, match="outside 1-5"):
            LikertJudge()(dialogue="User: hi", response="Try P2.", cited_reviews="(none)")


def test_dialogue_context():
    turns = [{"turn_id": 1, "role": "user", "text": "hi"}, {"turn_id": 2, "role": "system", "text": "yo"}]
    assert dialogue_context(turns, 2) == "User: hi" and dialogue_context(turns, 3) == "User: hi\nSystem: yo"


def test_cross_judge_agreement_hand_values():
    a = {"x": 1.0, "y": 2.0, "z": 3.0, "w": 4.0}
    assert cross_judge_agreement(a, {"x": 2.0, "y": 3.0, "z": 4.0, "w": 5.0}) == \
        {"kendall_tau": pytest.approx(1.0), "spearman_rho": pytest.approx(1.0), "n_systems": 4}
    # one swapped adjacent pair among 4: tau = (5 - 1) / 6, rho = 1 - 6*2/(4*15) = 0.8
    got = cross_judge_agreement(a, {"x": 1.0, "y": 3.0, "z": 2.0, "w": 4.0})
    assert got["kendall_tau"] == pytest.approx(4 / 6) and got["spearman_rho"] == pytest.approx(0.8)
    assert math.isnan(cross_judge_agreement(a, {"x": 1.0})["kendall_tau"])


def test_error_flags():
    cited = {"R1": "The pasta was fantastic."}
    texts = ['"The pasta was fantastic" [R1]', '"made up words here" [R1]', "no quotes"]
    np.testing.assert_array_equal(er.grounding_errors(texts, [cited] * 3), [0, 1, 0])
    np.testing.assert_array_equal(er.recommendation_errors([["A"], ["A"], ["A", "B"]], [["A"], [], ["C", "A"]]), [0, 1, 1])
    hist = [["A quiet italian place"], ["A quiet italian place"], ["hello"]]
    resp = ["Calm and peaceful pasta spot.", "Quiet trattoria.", "anything"]
    # 1: noise quiet ok (peaceful), style italian ok (pasta) -> 0; 2: quiet + trattoria -> 0; 3: nothing stated -> 0
    np.testing.assert_array_equal(er.relevance_errors(resp, hist), [0, 0, 0])
    np.testing.assert_array_equal(er.relevance_errors(["A loud bar."], [["A quiet italian place"]]), [1])


def test_error_table_on_dialogues(kb, dialogues):
    preds = {("crs_yelp_00001", 2): {"dialogue_id": "crs_yelp_00001", "turn_id": 2, "ranked_poi_ids": ["P1"],
                                     "text": '"the pasta was fantastic" [R1] and "invented" [R1]', "citations": []}}
    t = er.error_table(kb, dialogues, preds)
    assert list(zip(t["dialogue_id"], t["turn_id"])) == [("crs_yelp_00001", 2), ("crs_yelp_00001", 4), ("crs_yelp_00002", 2)]
    # turn 2: second quote not in review ra -> grounding error; top-1 P1 is gold; user said nothing from the lexicon
    assert list(t["grounding_error"]) == [1.0, 0.0, 0.0]
    assert list(t["recommendation_error"]) == [0.0, 1.0, 1.0]  # missing predictions -> empty ranking
    assert list(t["relevance_error"]) == [0.0, 0.0, 0.0]


def test_embedding_backend_reuses_sentence_vectors_from_disk(monkeypatch, tmp_path):
    import trace_crs.lm.embeddings as emb

    monkeypatch.setenv("TRACE_CACHE_DIR", str(tmp_path))   # an empty cache of its own

    review = "Quiet rooms with a view. Breakfast was cold."
    pairs = [(review, "The rooms were quiet with a view."), (review, "Breakfast was cold today.")]
    written: list[str] = []
    real_savez = np.savez
    monkeypatch.setattr(np, "savez", lambda f, **kw: written.append(str(getattr(f, "name", f))) or real_savez(f, **kw))
    first = en.make_backend("embedding").probabilities(pairs[:1])   # writes one shard
    # the shard is written under a name other readers' "*.npz" glob cannot see until it is complete
    assert len(written) == 1 and not written[0].endswith(".npz")
    embedded: list[str] = []
    real_embed = emb.embed
    monkeypatch.setattr(emb, "embed", lambda texts, **kw: embedded.extend(texts) or real_embed(texts, **kw))
    second = en.make_backend("embedding").probabilities(pairs)   # a new process-level cache
    assert embedded == [pairs[1][1]]                             # only the unseen claim is embedded
    np.testing.assert_allclose(second[:1], first, atol=1e-6)
    embedded.clear()
    third = en.make_backend("embedding").probabilities(pairs)    # both shards read, nothing embedded
    assert embedded == [] and len(list((tmp_path / en.SENTENCE_CACHE).glob("*.npz"))) == 2
    np.testing.assert_allclose(third, second, atol=1e-6)
    # p is the best cosine over the review's sentences (worked out directly here)
    v = real_embed(["Quiet rooms with a view.", "Breakfast was cold.", pairs[1][1]])
    assert second[1] == pytest.approx(max(float(v[0] @ v[2]), float(v[1] @ v[2])), abs=1e-5)


def test_empty_embedding_has_model_width():
    import trace_crs.lm.embeddings as emb

    assert emb.embed([]).shape == (0, 384)   # all-MiniLM-L6-v2 is 384-dimensional
