"""kb.realism: hand-worked statistics on tiny corpora, the discriminator on small samples and
the comparison against the Yelp sample in ../shared (skipped where it is absent)."""
import json
from pathlib import Path

import numpy as np
import pytest

from trace_crs.kb.realism import (compare, discriminator_auc, kb_corpus, review_tokens, text_stats, window_rates,
                                  yelp_corpus)

YELP = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "yelp-sample"
needs_yelp = pytest.mark.skipif(not (YELP / "yelp_academic_dataset_review.json").is_file(), reason="no ../shared Yelp sample")


@pytest.mark.parametrize("tokens,window,ttr,bigram,windows", [
    (["a", "b", "a", "b"], 4, 2 / 4, 2 / 3, 1),          # bigrams ab, ba, ab -> 2 distinct of 3
    (["a", "a", "b", "c"], 2, (1 / 2 + 2 / 2) / 2, 1.0, 2),  # windows [a a] and [b c]
    (["x"], 10, float("nan"), float("nan"), 0),           # too short for a bigram
])
def test_window_rates_golden(tokens, window, ttr, bigram, windows):
    out = window_rates(tokens, window)
    assert out["windows"] == windows
    np.testing.assert_allclose([out["type_token_ratio"], out["distinct_bigram_rate"]], [ttr, bigram])


def test_window_rates_do_not_count_bigrams_across_reviews():
    # reviews [a b] [a b]: pairs ab, (b|a across the boundary: skipped), ab -> 1 distinct of 2
    out = window_rates(["a", "b", "a", "b"], 4, review_of=[0, 0, 1, 1])
    assert out["distinct_bigram_rate"] == pytest.approx(1 / 2) and out["type_token_ratio"] == pytest.approx(2 / 4)


def test_review_tokens_leave_out_the_last_word_of_a_capped_text():
    assert review_tokens("Nice room. Quiet.") == ["nice", "room", "quiet"]
    capped = ("word " * 99 + "cutoff")[:500]  # 495 characters of words, then "cutof" cut at the cap
    assert len(capped) == 500 and review_tokens(capped) == ["word"] * 99


def test_text_stats_golden():
    corpus = {"texts": ["Hi there. Bye.", "Hi there. Bye.", "Quiet room."], "business_ids": ["p1", "p2", "p1"]}
    s = text_stats(corpus)
    assert s["n_reviews"] == 3 and s["length_mean"] == pytest.approx(13.0) and s["length_median"] == 14.0
    assert s["sentences_per_review"] == pytest.approx(5 / 3)
    assert s["facet_sentence_share"] == pytest.approx(1 / 5)        # "Quiet room." names noise=quiet
    assert s["distinct_text_rate"] == pytest.approx(2 / 3) and s["texts_shared_by_pois"] == 1
    assert s["share_at_cap"] == 0.0


def test_text_stats_empty_corpus_is_an_error():
    with pytest.raises(ValueError, match="no review texts"):
        text_stats({"texts": [], "business_ids": []})


def test_compare_without_reference_has_only_the_synthetic_side():
    out = compare({"texts": ["A b c.", "D e f."], "business_ids": ["1", "2"]}, None)
    assert set(out) == {"seed", "synthetic"}


def test_discriminator_separates_disjoint_vocabularies_and_is_seeded():
    rng = np.random.default_rng(0)
    a = [" ".join(rng.choice(["alpha", "beta", "gamma"], 8)) for _ in range(60)]
    b = [" ".join(rng.choice(["delta", "omega", "sigma"], 8)) for _ in range(60)]
    out = discriminator_auc(a, b, seed=1, n_per_class=50)
    assert out["auc"] == pytest.approx(1.0) and out["n_per_class"] == 50 and len(out["auc_folds"]) == 5
    assert discriminator_auc(a, b, seed=1, n_per_class=50) == out


@needs_yelp
def test_discriminator_cannot_tell_real_from_real():
    """Two random halves of the real sample: the AUC must be near chance (0.5 ± 0.1)."""
    texts = yelp_corpus(YELP)["texts"]
    order = np.random.default_rng(3).permutation(len(texts))
    half = len(order) // 2
    out = discriminator_auc([texts[i] for i in order[:half]], [texts[i] for i in order[half:]], seed=3, n_per_class=400)
    assert abs(out["auc"] - 0.5) < 0.1


@needs_yelp
def test_yelp_reference_statistics_and_stored_length_profile():
    """The stored length profile is what the calibration function computes from the sample
    (aggregates only), and the reference corpus is truncated at 500 characters."""
    import yaml
    from importlib import resources
    from trace_crs.kb.calibration import yelp_length_quantiles
    ref = yelp_corpus(YELP)
    assert max(len(t) for t in ref["texts"]) <= 500
    stored = yaml.safe_load(resources.files("trace_crs.kb").joinpath("data/review_lengths.yaml").read_text())
    assert stored == yelp_length_quantiles(YELP)
    assert stored["mean"] == pytest.approx(np.mean([len(t) for t in ref["texts"]]), abs=0.01)


@needs_yelp
def test_cli_realism_on_a_small_kb_writes_aggregates_only(tmp_path):
    from trace_crs.cli import main
    from trace_crs.kb.kbstats import cell_counts
    from trace_crs.kb.store import write_kb
    from trace_crs.kb.synthetic import build_synthetic
    pois, reviews, manifest = build_synthetic(per_cell=3, seed=42)
    manifest.update(counts=cell_counts(pois), n_pois=len(pois), n_reviews=len(reviews))
    write_kb(pois, reviews, tmp_path / "kb", manifest)
    out = tmp_path / "realism.json"
    assert main(["kb", "realism", "--kb", str(tmp_path / "kb"), "--reference", str(YELP), "--out", str(out),
                 "--n-per-class", "150"]) == 0
    report = json.loads(out.read_text())
    assert report["synthetic"]["n_reviews"] == len(reviews) and report["reference"]["n_reviews"] == 5000
    assert 0 <= report["length_ks"] <= 1 and 0 <= report["discriminator"]["auc"] <= 1
    real = yelp_corpus(YELP)["texts"]
    dumped = out.read_text()
    assert not any(len(t) > 30 and t[:30] in dumped for t in real[:500])   # no Yelp text leaks
    assert 0 <= report["discriminator"]["length_only_auc"] <= 1
    assert abs(report["discriminator"]["real_vs_real_auc"] - 0.5) < 0.1  # two halves of the Yelp sample
    cats = report["discriminator"]["categories"]
    assert sum(c["features"] for c in cats["real"].values()) == cats["top"]


@needs_yelp
def test_cli_calibrate_lengths_reproduces_the_stored_profile(tmp_path):
    import yaml
    from importlib import resources
    from trace_crs.cli import main
    out = tmp_path / "lengths.json"
    assert main(["kb", "calibrate", "--yelp-dir", str(YELP), "--lengths", "--out", str(out)]) == 0
    stored = yaml.safe_load(resources.files("trace_crs.kb").joinpath("data/review_lengths.yaml").read_text())
    assert json.loads(out.read_text()) == stored and len(stored["quantiles"]) == 101
