"""Can a classifier tell synthetic reviews from real ones, and by what (realism report, paper
App. D: the synthetic KB stands in for Yelp, whose text is truncated at 500 characters).

Both sides get the same treatment: a seeded balanced sample of ``n`` texts per class (``n`` =
the smaller corpus or ``n_per_class``), every text already at most 500 characters (the KB
schema caps synthetic reviews; :func:`trace_crs.kb.realism.yelp_corpus` truncates real ones).

* :func:`discriminator_auc` — TF-IDF word 1–2-grams (sublinear tf, ``min_df=2``, l2-normalised
  rows, so a text's length is not itself a feature) + logistic regression, 5-fold stratified
  cross-validated ROC AUC (scikit-learn; the vectoriser is fitted inside each fold);
* :func:`length_only_auc` — the same cross-validation with the character length as the only
  feature: how much length alone gives away (≈ 0.5 when the length distributions match);
* :func:`real_vs_real_auc` — the same discriminator between two random halves of the real
  corpus, the chance level it reaches at this sample size;
* :func:`feature_categories` — the classifier fitted once on the whole sample; its ``top``
  largest coefficients towards each class, grouped into word *categories* (personal pronouns,
  other function words, facet-lexicon words, numbers, other words).  The only words it names are synthetic features
  and, on the real side, single English function words: no real review text leaves it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from trace_crs import DEFAULT_SEED

N_PER_CLASS = 2_000  # reviews per class
FOLDS = 5
TOP = 100  # features per side grouped by category
CATEGORIES = ("personal pronouns", "other function words", "facet-lexicon words", "numbers", "other words")
PRONOUNS = frozenset(
    "i me my mine myself we us our ours ourselves you your yours yourself he him his himself she her hers herself "
    "they them their theirs themselves it its itself".split()
)
SHOWN_FUNCTION_WORDS = 20  # real-side function words named in the report, at most


def balanced_sample(
    synthetic: Sequence[str], real: Sequence[str], seed: int = DEFAULT_SEED, n_per_class: int = N_PER_CLASS
) -> tuple[list[str], list[int]]:
    """``n`` seeded texts of each side (synthetic first, label 1; real label 0), ``n`` the
    smaller of the two corpora and ``n_per_class``."""
    rng = np.random.default_rng(seed)
    n = min(n_per_class, len(synthetic), len(real))
    if n < FOLDS:
        raise ValueError(f"discriminator needs >= {FOLDS} texts per class, got {n}")
    syn = [synthetic[i] for i in sorted(rng.choice(len(synthetic), n, replace=False))]
    ref = [real[i] for i in sorted(rng.choice(len(real), n, replace=False))]
    return syn + ref, [1] * n + [0] * n


def _model(seed: int) -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    return make_pipeline(
        TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True),
        LogisticRegression(max_iter=1000, C=1.0, random_state=seed),
    )


def _cv_auc(model: Any, x: Any, y: list[int], seed: int, folds: int) -> dict[str, Any]:
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    scores = cross_val_score(model, x, y, cv=cv, scoring="roc_auc")
    return {"auc": float(scores.mean()), "auc_sd": float(scores.std(ddof=1)), "auc_folds": [float(s) for s in scores]}


def discriminator_auc(
    synthetic: Sequence[str],
    real: Sequence[str],
    seed: int = DEFAULT_SEED,
    n_per_class: int = N_PER_CLASS,
    folds: int = FOLDS,
) -> dict[str, Any]:
    """Cross-validated ROC AUC of TF-IDF + logistic regression telling ``synthetic`` (1) from
    ``real`` (0) on :func:`balanced_sample` (module docstring)."""
    texts, y = balanced_sample(synthetic, real, seed, n_per_class)
    return {
        **_cv_auc(_model(seed), texts, y, seed, folds),
        "n_per_class": len(y) // 2,
        "folds": folds,
        "features": "tfidf word 1-2-grams",
        "model": "logistic regression",
    }


def length_only_auc(
    synthetic: Sequence[str], real: Sequence[str], seed: int = DEFAULT_SEED, n_per_class: int = N_PER_CLASS
) -> float:
    """Cross-validated ROC AUC of logistic regression on the character length alone (same
    sample and folds as :func:`discriminator_auc`)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    texts, y = balanced_sample(synthetic, real, seed, n_per_class)
    x = np.array([[len(t)] for t in texts], dtype=float)
    return float(_cv_auc(make_pipeline(StandardScaler(), LogisticRegression()), x, y, seed, FOLDS)["auc"])


def real_vs_real_auc(real: Sequence[str], seed: int = DEFAULT_SEED, n_per_class: int = N_PER_CLASS) -> float:
    """The discriminator's AUC between two seeded random halves of the real corpus: what the
    same classifier reaches when there is nothing to find (near one half)."""
    order = np.random.default_rng(seed).permutation(len(real))
    half = len(order) // 2
    a, b = [real[i] for i in order[:half]], [real[i] for i in order[half : 2 * half]]
    return float(discriminator_auc(a, b, seed, n_per_class)["auc"])


def category(feature: str, lexicon_words: frozenset[str], function_words: frozenset[str]) -> str:
    """The word category of a TF-IDF feature (a word or a two-word phrase): a facet-lexicon
    word if any of its words is one, else numbers if any is a number, else — when all its
    words are function words — personal pronouns if any is one, other function words if not;
    else other words."""
    words = feature.split()
    if any(w in lexicon_words for w in words):
        return "facet-lexicon words"
    if any(re.fullmatch(r"\d+", w) for w in words):
        return "numbers"
    if all(w in function_words or w in PRONOUNS for w in words):
        return "personal pronouns" if any(w in PRONOUNS for w in words) else "other function words"
    return "other words"


def lexicon_words() -> frozenset[str]:
    """Every lower-cased content word of the facet lexicon's keywords and the price vocabulary
    (the function words of multi-word keywords, "the" of "the bar", are left out)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from trace_crs.kb.lexicon import facet_lexicon
    from trace_crs.kb.price import price_words

    phrases = [w for values in facet_lexicon().values() for ws in values.values() for w in ws] + list(price_words())
    words = {t for p in phrases for t in re.findall(r"\w+", p.lower())}
    return frozenset(words - ENGLISH_STOP_WORDS - PRONOUNS)


def feature_categories(
    synthetic: Sequence[str],
    real: Sequence[str],
    seed: int = DEFAULT_SEED,
    n_per_class: int = N_PER_CLASS,
    top: int = TOP,
) -> dict[str, Any]:
    """What tells the two sides apart (module docstring): per side, the number of its ``top``
    features in each category and that category's share of their absolute coefficient mass (None
    when their mass is zero: the classifier found nothing that tells the sides apart);
    ``synthetic_examples`` the ten strongest synthetic features, ``real_function_words`` at
    most :data:`SHOWN_FUNCTION_WORDS` single function words among the real side's ``top``
    (strongest first)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    texts, y = balanced_sample(synthetic, real, seed, n_per_class)
    model = _model(seed).fit(texts, y)
    names = model[0].get_feature_names_out()
    coef = model[1].coef_[0]
    lex, stop = lexicon_words(), frozenset(ENGLISH_STOP_WORDS)
    out: dict[str, Any] = {"top": top}
    for side, order in (("synthetic", np.argsort(-coef, kind="stable")), ("real", np.argsort(coef, kind="stable"))):
        chosen = order[:top]
        cats = [category(str(names[i]), lex, stop) for i in chosen]
        mass = np.abs(coef[chosen])
        out[side] = {
            # no coefficient mass (the two sides are the same texts: nothing tells them apart): no share
            c: {
                "features": cats.count(c),
                "coef_share": float(mass[[k == c for k in cats]].sum() / mass.sum()) if mass.sum() > 0 else None,
            }
            for c in CATEGORIES
        }
    out["synthetic_examples"] = [str(names[i]) for i in np.argsort(-coef, kind="stable")[:10]]
    real_top = [str(names[i]) for i in np.argsort(coef, kind="stable")[:top]]
    out["real_function_words"] = [f for f in real_top if " " not in f and f in stop][:SHOWN_FUNCTION_WORDS]
    return out
