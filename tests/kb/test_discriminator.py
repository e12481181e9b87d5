"""kb.discriminator: word categories (hand-worked), the length-only control, the feature
explanation on disjoint vocabularies, and on the Yelp sample that only single function words
of the real side are named (skipped where ../shared is absent)."""
from pathlib import Path

import numpy as np
import pytest

from trace_crs.kb.discriminator import (CATEGORIES, balanced_sample, category, feature_categories, length_only_auc,
                                        lexicon_words)

YELP = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "yelp-sample"
LEX = frozenset({"quiet", "patio"})
STOP = frozenset({"the", "and", "of", "we"})


@pytest.mark.parametrize("feature,expected", [
    ("quiet", "facet-lexicon words"), ("the patio", "facet-lexicon words"),   # any lexicon word wins
    ("15", "numbers"), ("about 15", "numbers"),
    ("the", "other function words"), ("and the", "other function words"),
    ("we", "personal pronouns"), ("we and", "personal pronouns"), ("she", "personal pronouns"),
    ("risotto", "other words"), ("the risotto", "other words"),              # not all function words
])
def test_category_golden(feature, expected):
    assert category(feature, LEX, STOP) == expected


def test_lexicon_words_holds_facet_and_price_words():
    words = lexicon_words()
    assert "quiet" in words and all(w == w.lower() and " " not in w for w in words)
    assert not words & {"the", "and", "of", "a", "we"}  # function words of multi-word keywords are left out


def test_balanced_sample_is_equal_per_side_and_seeded():
    texts, y = balanced_sample([f"s{i}" for i in range(30)], [f"r{i}" for i in range(12)], seed=1, n_per_class=20)
    assert y == [1] * 12 + [0] * 12 and len(texts) == 24 and all(t.startswith("s") for t in texts[:12])
    assert balanced_sample([f"s{i}" for i in range(30)], [f"r{i}" for i in range(12)], seed=1, n_per_class=20)[0] == texts
    with pytest.raises(ValueError, match=">= 5 texts"):
        balanced_sample(["a"] * 3, ["b"] * 3)


def test_length_only_auc_chance_when_lengths_match_and_one_when_they_do_not():
    rng = np.random.default_rng(0)
    same_a = ["".join(rng.choice(list("abc"), 8)) for _ in range(40)]
    same_b = ["".join(rng.choice(list("xyz"), 8)) for _ in range(40)]
    # every text has 8 characters: every score ties, so the ROC AUC is exactly one half
    assert length_only_auc(same_a, same_b, seed=1, n_per_class=40) == pytest.approx(0.5)
    longer = ["a" * int(n) for n in rng.integers(50, 60, 40)]
    shorter = ["b" * int(n) for n in rng.integers(5, 15, 40)]
    assert length_only_auc(longer, shorter, seed=1, n_per_class=40) == pytest.approx(1.0)


def test_feature_categories_on_disjoint_vocabularies():
    rng = np.random.default_rng(0)
    syn = [" ".join(rng.choice(["the", "and", "of"], 6)) for _ in range(60)]       # function words only
    real = [" ".join(rng.choice(["quiet", "loud", "romantic"], 6)) for _ in range(60)]  # facet words only
    out = feature_categories(syn, real, seed=1, n_per_class=50, top=10)
    assert set(out["synthetic"]) == set(CATEGORIES) == set(out["real"])
    assert out["synthetic"]["other function words"] == {"features": 10, "coef_share": pytest.approx(1.0)}
    assert out["real"]["facet-lexicon words"] == {"features": 10, "coef_share": pytest.approx(1.0)}
    assert set(" ".join(out["synthetic_examples"]).split()) <= {"the", "and", "of"}
    assert out["real_function_words"] == []


@pytest.mark.skipif(not (YELP / "yelp_academic_dataset_review.json").is_file(), reason="no ../shared Yelp sample")
def test_only_single_function_words_of_real_text_are_named():
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from trace_crs.kb.realism import yelp_corpus

    real = yelp_corpus(YELP)["texts"]
    syn = [f"We went at about noon. Tip: the {w} was better than the other place." for w in
           ("soup", "pie", "stew", "cake", "tart", "roast") * 60]
    out = feature_categories(syn, real, seed=42, n_per_class=300, top=50)
    assert out["real_function_words"] and all(w in ENGLISH_STOP_WORDS for w in out["real_function_words"])
    assert sum(c["features"] for c in out["real"].values()) == 50


def test_real_vs_real_auc_is_near_chance_on_one_source_and_seeded():
    from trace_crs.kb.discriminator import real_vs_real_auc

    rng = np.random.default_rng(0)
    one_source = [" ".join(rng.choice(["alpha", "beta", "gamma", "delta", "omega"], 12)) for _ in range(400)]
    auc = real_vs_real_auc(one_source, seed=1, n_per_class=200)
    assert abs(auc - 0.5) < 0.1 and real_vs_real_auc(one_source, seed=1, n_per_class=200) == auc


def test_identical_sides_have_no_coefficient_mass_and_no_share():
    """The same texts on both sides: the classifier learns nothing (zero coefficients), so no
    category has a share — None, which JSON writes as null (a NaN would not be valid JSON)."""
    import json

    from trace_crs.kb.discriminator import feature_categories

    texts = ["the soup was great and the staff friendly"] * 30
    out = feature_categories(texts, texts, n_per_class=30)
    assert {v["coef_share"] for side in ("synthetic", "real") for v in out[side].values()} == {None}
    json.dumps(out, allow_nan=False)
