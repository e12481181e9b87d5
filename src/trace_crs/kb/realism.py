"""How far synthetic reviews are from real ones, by their statistics (paper §2.1, App. D: the
synthetic KB stands in for Yelp, whose review text is truncated at 500 characters).

:func:`text_stats` summarises one corpus of review texts, with the same definitions on both
sides: length distribution; sentences per review (``trace_crs.segment``, the one splitter);
type-token ratio and distinct-bigram rate per 10k tokens — ``segment.terms`` tokens of the
reviews in a seeded shuffle, cut into consecutive 10,000-token windows, each rate averaged over
the full windows, so a 34k-review corpus and a 5k one are compared on equal-size samples
(bigrams never span two reviews; a text at the cap leaves out its last, possibly cut, token);
the share of sentences that name a facet value or price (``kb.review_grammar.facet_hits``, the
one detector, over the public lexicon); the duplicate-text rate and the number of texts shared
by two or more POIs.  :func:`compare` adds the two-sample Kolmogorov–Smirnov statistic of the
lengths (scipy) and the discriminator of :mod:`trace_crs.kb.discriminator` (its AUC, a
length-only control and the word categories that tell the sides apart).  Only aggregate
statistics leave this module — never a review text.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from trace_crs import DEFAULT_SEED
from trace_crs.kb.discriminator import (
    N_PER_CLASS,
    discriminator_auc,
    feature_categories,
    length_only_auc,
    real_vs_real_auc,
)
from trace_crs.kb.review_grammar import facet_hits
from trace_crs.kb.schema import REVIEW_MAX_CHARS, KBFormatError
from trace_crs.kb.store import iter_jsonl
from trace_crs.segment import sentence_spans, terms

WINDOW = 10_000  # tokens per window of the type-token and bigram rates


class Corpus(TypedDict):
    """Review texts and the POI each belongs to (parallel lists)."""

    texts: list[str]
    business_ids: list[str]


def kb_corpus(kb_dir: str | Path) -> Corpus:
    """The reviews of a KB directory (``reviews.jsonl``)."""
    return _corpus(Path(kb_dir) / "reviews.jsonl", None)


def _corpus(path: Path, max_chars: int | None) -> Corpus:
    """Texts and business ids of a JSON-lines review file; a record without a string ``text`` or
    ``business_id`` is a :class:`KBFormatError` (never an empty review), and so are no review at
    all and reviews without a single word."""
    from trace_crs.kb.yelp import _field

    texts, ids = [], []
    for line, rec in iter_jsonl(path):
        ids.append(_field(rec, "business_id", (str,), str(path), line))
        texts.append(_field(rec, "text", (str,), str(path), line)[:max_chars])
    if not texts:
        raise KBFormatError(str(path), None, "<file>", "no reviews to compare")
    if not any(terms(t) for t in texts):  # every statistic would divide by zero words (mean length 0)
        raise KBFormatError(str(path), None, "text", f"none of the {len(texts)} reviews has a word to compare")
    return {"texts": texts, "business_ids": ids}


def yelp_corpus(yelp_dir: str | Path, max_chars: int = REVIEW_MAX_CHARS) -> Corpus:
    """The reviews of a Yelp bundle, truncated at ``max_chars`` as the Yelp KB loader does."""
    from trace_crs.kb.yelp import REVIEW_FILE

    path = Path(yelp_dir) / REVIEW_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: Yelp review file not found")
    return _corpus(path, max_chars)


def window_rates(
    tokens: Sequence[str], window: int = WINDOW, review_of: Sequence[int] | None = None
) -> dict[str, float | int]:
    """Distinct unigrams per token and distinct bigrams per bigram in each ``window`` tokens,
    averaged over the consecutive full windows of ``tokens`` (one partial window if the corpus
    is shorter).  With ``review_of`` (the review index of each token) a bigram is two
    consecutive tokens of the same review: pairs across a review boundary are not counted."""
    same = (
        [True] * max(len(tokens) - 1, 0)
        if review_of is None
        else [a == b for a, b in zip(review_of, review_of[1:], strict=False)]
    )
    starts = list(range(0, max(len(tokens) - window + 1, 1), window)) if len(tokens) >= window else [0]
    ttr, big = [], []
    for s in starts:
        chunk = tokens[s : s + window]
        pairs = [(chunk[i], chunk[i + 1]) for i in range(len(chunk) - 1) if same[s + i]]
        if not pairs:
            continue
        ttr.append(len(set(chunk)) / len(chunk))
        big.append(len(set(pairs)) / len(pairs))
    return {
        "type_token_ratio": float(np.mean(ttr)) if ttr else float("nan"),
        "distinct_bigram_rate": float(np.mean(big)) if big else float("nan"),
        "windows": len(ttr),
    }


def review_tokens(text: str) -> list[str]:
    """``segment.terms`` of a review; a text at the 500-character cap may end in a cut word
    (real reviews are truncated there), so its last token is left out — on both sides."""
    tokens = terms(text)
    return tokens[:-1] if len(text) >= REVIEW_MAX_CHARS else tokens


def text_stats(corpus: Corpus, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """Aggregate statistics of one corpus (see the module docstring)."""
    texts, ids = corpus["texts"], corpus["business_ids"]
    if not texts:
        raise ValueError("no review texts to summarise")
    lengths = np.array([len(t) for t in texts])
    n_sent, n_facet = [], 0
    for t in texts:
        spans = sentence_spans(t, quote_aware=False)
        n_sent.append(len(spans))
        n_facet += sum(bool(facet_hits(t[a:b])) for a, b in spans)
    order = np.random.default_rng(seed).permutation(len(texts))
    per_review = [review_tokens(texts[i]) for i in order]
    tokens = [tok for toks in per_review for tok in toks]
    review_of = [k for k, toks in enumerate(per_review) for _ in toks]
    owners: dict[str, set[str]] = defaultdict(set)
    for t, b in zip(texts, ids, strict=False):
        owners[t].add(b)
    return {
        "n_reviews": len(texts),
        "length_mean": float(lengths.mean()),
        "length_median": float(np.median(lengths)),
        "length_quartiles": [float(q) for q in np.percentile(lengths, [25, 50, 75])],
        "share_at_cap": float((lengths >= REVIEW_MAX_CHARS).mean()),
        "sentences_per_review": float(np.mean(n_sent)),
        "facet_sentence_share": n_facet / max(sum(n_sent), 1),
        **window_rates(tokens, WINDOW, review_of),
        "distinct_text_rate": len(owners) / len(texts),
        "duplicate_rate": 1 - len(owners) / len(texts),
        "texts_shared_by_pois": sum(len(b) > 1 for b in owners.values()),
    }


def compare(
    synthetic: Corpus, reference: Corpus | None, seed: int = DEFAULT_SEED, n_per_class: int = N_PER_CLASS
) -> dict[str, Any]:
    """Synthetic and reference statistics side by side, the length KS statistic and the
    discriminator; only the synthetic side when ``reference`` is ``None``."""
    out: dict[str, Any] = {"seed": seed, "synthetic": text_stats(synthetic, seed)}
    if reference is None:
        return out
    from scipy.stats import ks_2samp

    out["reference"] = text_stats(reference, seed)
    ks = ks_2samp([len(t) for t in synthetic["texts"]], [len(t) for t in reference["texts"]])
    out["length_ks"] = float(ks.statistic)
    out["length_ks_pvalue"] = float(ks.pvalue)
    out["mean_length_ratio"] = out["synthetic"]["length_mean"] / out["reference"]["length_mean"]
    out["discriminator"] = discriminator_auc(synthetic["texts"], reference["texts"], seed, n_per_class)
    out["discriminator"]["length_only_auc"] = length_only_auc(synthetic["texts"], reference["texts"], seed, n_per_class)
    out["discriminator"]["real_vs_real_auc"] = real_vs_real_auc(reference["texts"], seed, n_per_class)
    out["discriminator"]["categories"] = feature_categories(synthetic["texts"], reference["texts"], seed, n_per_class)
    return out


def flatten(report: dict[str, Any], sides: Iterable[str] = ("synthetic", "reference")) -> list[dict[str, Any]]:
    """One row per statistic with a column per side (for the data card's table)."""
    keys = [k for k, v in report["synthetic"].items() if isinstance(v, (int, float))]
    return [{"statistic": k, **{s: report[s][k] for s in sides if s in report}} for k in keys]


LABELS = {
    "n_reviews": "reviews (n)",
    "length_mean": "mean length (chars)",
    "length_median": "median length (chars)",
    "share_at_cap": "share at the 500-char cap",
    "sentences_per_review": "sentences per review",
    "type_token_ratio": "type-token ratio per 10k tokens",
    "distinct_bigram_rate": "distinct bigrams per 10k tokens",
    "facet_sentence_share": "share of sentences naming a facet",
    "distinct_text_rate": "distinct texts",
    "texts_shared_by_pois": "texts shared by 2+ POIs",
}


def definitions() -> str:
    """How each statistic of the table is computed (Markdown list; the data card shows it)."""
    return (
        "Definitions (the same code on both sides):\n\n"
        f"- *length*: characters of the review text, real texts truncated at {REVIEW_MAX_CHARS} as the Yelp "
        "loader does;\n"
        "- *sentences*: the project's one sentence splitter (`trace_crs.segment`);\n"
        f"- *type-token ratio* and *distinct bigrams per {WINDOW:,} tokens*: lower-cased word tokens of the reviews "
        f"in a seeded random order, cut into consecutive {WINDOW:,}-token windows; per window, distinct words / "
        "tokens and distinct word pairs / word pairs (a pair never spans two reviews), averaged over the full "
        "windows — equal-size samples, so a large and a small corpus compare; a text at the cap leaves out its "
        "last, possibly cut, word;\n"
        "- *sentences naming a facet*: sentences in which the public facet lexicon or price vocabulary matches "
        "(`kb.review_grammar.facet_hits`);\n"
        "- *distinct texts*, *texts shared by 2+ POIs*: exact text identity;\n"
        "- *discriminator*: equal numbers of texts per side (seeded sample), TF-IDF word 1–2-grams with "
        "l2-normalised rows + logistic regression, stratified cross-validated ROC AUC; the *length-only* "
        "control is the same cross-validation with the character length as the only feature, the *real vs real* "
        "control the same discriminator between two random halves of the real sample.\n"
    )


def categories_markdown(cats: dict[str, Any]) -> str:
    """The word categories of the discriminator's strongest features per side (Markdown)."""
    from trace_crs.kb.discriminator import CATEGORIES

    rows = [
        f"What tells them apart: the classifier's {cats['top']} largest coefficients towards each side, by word "
        "category (features of that category, and their share of the coefficient mass).",
        "",
        "| word category | towards synthetic | towards real |",
        "|---|---:|---:|",
    ]
    for c in CATEGORIES:
        a, b = cats["synthetic"][c], cats["real"][c]
        rows.append(
            f"| {c} | {a['features']} ({_share(a['coef_share'])}) | {b['features']} ({_share(b['coef_share'])}) |"
        )
    rows.append("")
    rows.append("Strongest synthetic features: " + ", ".join(f"`{f}`" for f in cats["synthetic_examples"]) + ".")
    if cats["real_function_words"]:
        rows.append(
            "Function words among the real side's strongest: "
            + ", ".join(f"`{f}`" for f in cats["real_function_words"])
            + "."
        )
    return "\n".join(rows) + "\n"


def to_markdown(report: dict[str, Any]) -> str:
    """The data card's table (Markdown, ≤ 3 decimals) and its one-line summary, from a report
    of :func:`compare`; aggregate statistics only."""
    sides = [s for s in ("synthetic", "reference") if s in report]
    head = {"synthetic": "synthetic KB", "reference": "Yelp sample (truncated at 500)"}
    rows = ["| statistic | " + " | ".join(head[s] for s in sides) + " |", "|---|" + "---:|" * len(sides)]
    for key, label in LABELS.items():
        cells = [report[s][key] for s in sides]
        rows.append(f"| {label} | " + " | ".join(f"{v:,}" if isinstance(v, int) else f"{v:.3f}" for v in cells) + " |")
    if "reference" not in report:
        return "\n".join(rows) + (
            "\n\nNo reference corpus was given, so no side-by-side comparison was computed.\n\n" + definitions()
        )
    d = report["discriminator"]
    return "\n".join(rows) + (
        f"\n\nLength distribution: two-sample Kolmogorov–Smirnov statistic {report['length_ks']:.3f}; "
        f"mean length ratio (synthetic / real) {report['mean_length_ratio']:.3f}. "
        f"Discriminator ({d['features']} + {d['model']}, {d['folds']}-fold cross-validated, "
        f"{d['n_per_class']:,} reviews per class, seed {report['seed']}): ROC AUC {d['auc']:.3f} "
        f"(SD over folds {d['auc_sd']:.3f}; 0.5 = indistinguishable, 1.0 = always told apart); "
        f"on the character length alone: ROC AUC {d['length_only_auc']:.3f}; between two random halves of "
        f"the real sample (nothing to find): ROC AUC {d['real_vs_real_auc']:.3f}.\n\n"
        + (categories_markdown(d["categories"]) + "\n" if "categories" in d else "")
        + definitions()
    )


def _share(value: float | None) -> str:
    return "no coefficient mass" if value is None else f"{value:.3f}"
