import numpy as np
import pytest

from trace_crs.metrics import grounding as gr
RA = "The pasta was fantastic and the patio is quiet at night. Service was slow."  # review ra of conftest's KB
RB = "Great cocktails and a cozy bar."  # review rb
T = 'Try P1: "the pasta was fantastic" [R1] and it is quiet. "free parking everywhere" [R2]'
CITED = {"R1": RA, "R2": RB}


def test_seed_list_has_41_terms_in_four_families():
    assert len(gr.ASPECT_SEEDS) == 4
    terms = [t for ts in gr.ASPECT_SEEDS.values() for t in ts]
    assert len(terms) == len(set(terms)) == 41


def test_gs_one_real_one_fabricated_quote():
    # quote 1 is verbatim in ra; quote 2 has no close span in rb -> 1 of 2
    assert gr.grounding_score([T], [CITED])[0] == pytest.approx(0.5)


def test_gs_no_quotes_is_vacuous_one_and_unresolved_label_fails():
    assert gr.grounding_score(["A quiet place."], [{}])[0] == 1.0
    assert gr.grounding_score(['"the pasta was fantastic" [R3]'], [CITED])[0] == 0.0
    assert gr.grounding_score([], []).shape == (0,)


def test_gs_fuzzy_typo_passes_but_cd_does_not_count_it():
    text = '"the pasta was fantastc" [R1]'  # one deletion: 1 - 1/(22+23) > 0.8
    assert gr.grounding_score([text], [CITED])[0] == 1.0
    assert gr.grounding_score([text], [CITED], threshold=0.99)[0] == 0.0
    assert gr.citation_density([text], [CITED])[0] == 0.0


def test_cd_hand_count():
    # tokens without labels: Try P1 the pasta was fantastic and it is quiet free parking everywhere = 13;
    # verbatim quote tokens: the pasta was fantastic = 4
    assert gr.citation_density([T], [CITED])[0] == pytest.approx(4 / 13)
    assert gr.citation_density([""], [{}])[0] == 0.0


def test_pc_window():
    q, p = T.index("quiet"), T.index("parking")
    r1, r2 = T.index("[R1]"), T.index("[R2]")
    dq, dp = min(abs(q - r1), abs(q - r2)), min(abs(p - r1), abs(p - r2))
    assert (dq, dp) == (15, 20)
    assert gr.provenance_coverage([T], window=15)[0] == 0.5
    assert gr.provenance_coverage([T], window=14)[0] == 0.0
    assert gr.provenance_coverage([T], window=20)[0] == 1.0
    assert gr.provenance_coverage([T])[0] == 1.0  # default 80


def test_pc_no_aspect_duplicates_overlaps_whole_words():
    assert gr.provenance_coverage(["Nothing to see."])[0] == 1.0
    assert gr.provenance_coverage(["quietly, a viewpoint"])[0] == 1.0  # no whole-word mention
    assert gr.provenance_coverage(["Quiet, quiet, QUIET."])[0] == 0.0  # one term, no label
    far = "family-friendly cafe" + " " * 100 + "[R1]"
    assert gr.aspect_mentions(far).keys().__len__() == 2
    assert gr.provenance_coverage([far])[0] == 0.0
    near = "a cafe [R1]" + " " * 100 + "cheap"
    assert gr.provenance_coverage([near])[0] == 0.5


def test_cgs_gate_and_floor():
    gs, cd, pc = np.array([0.5, 1.0, 1.0, 0.8]), np.array([0.3, 0.0, 0.05, 0.2]), np.array([1.0, 1.0, 0.0, 0.6])
    np.testing.assert_allclose(gr.composite(gs, cd, pc), [0.5, 0.0, 0.5, 0.48])
    np.testing.assert_allclose(gr.composite(gs, cd, pc, cd_gate=0.1, pc_floor=0.0), [0.5, 0.0, 0.0, 0.48])


@pytest.mark.parametrize("gs,cd,pc,cgs", [  # Table 22 rows (published): Dense, Popularity, TF-IDF, Spatial, Itinerary
    (0.997, 0.393, 0.733, 0.864), (0.998, 0.411, 0.608, 0.802), (0.998, 0.377, 0.555, 0.776),
    (0.997, 0.437, 0.458, 0.727), (0.997, 0.310, 0.373, 0.684)])
def test_table22_reading_pc_zero_one_per_turn(gs, cd, pc, cgs):
    n = 1000
    pc_turn = (np.arange(n) < round(pc * n)).astype(float)  # PC is 0 or 1 per turn
    got = gr.composite(np.full(n, gs), np.full(n, cd), pc_turn).mean()
    assert got == pytest.approx(cgs, abs=1.5e-3)


def test_no_seed_term_contains_another_as_whole_word():
    import re

    terms = [t for ts in gr.ASPECT_SEEDS.values() for t in ts]
    assert not [(a, b) for a in terms for b in terms if a != b and re.search(rf"\b{re.escape(b)}\b", a)]


# --- the GS rule: quote-in-review, minimum length, each sentence found (module docstring) ---
REVIEW = ("We came for the oysters and stayed for the view over the harbour. The staff remembered "
          "our names on the second night. Parking is a nightmare on weekends, so take a cab.")
INVENTED = " They also gave us free champagne and a private tour of the kitchen."


def test_superset_quote_whole_review_plus_invented_sentence_fails():
    text = f'"{REVIEW}{INVENTED}" [R1]'
    assert gr.quote_match(REVIEW + INVENTED, REVIEW) == 0.0  # longer than the review: not inside it
    assert gr.grounding_score([text], [{"R1": REVIEW}])[0] == 0.0
    assert gr.citation_density([text], [{"R1": REVIEW}])[0] == 0.0


def test_superset_predictions_score_gs_at_most_half():
    # every quote is a whole review plus an invented sentence; one honest quote per turn at most
    honest = '"The staff remembered our names on the second night." [R1]'
    sup = f'"{REVIEW}{INVENTED}" [R1]'
    texts = [sup, f"{sup} and {sup}", f"{honest} {sup}"]
    gs = gr.grounding_score(texts, [{"R1": REVIEW}] * 3)
    np.testing.assert_allclose(gs, [0.0, 0.0, 0.5])
    assert gs.mean() <= 0.5


def test_invented_sentence_inside_a_shorter_real_span_fails():
    # real span (~150 chars) + invented sentence (~40 chars): whole quote shorter than the review
    long_review = REVIEW + " " + REVIEW.replace("oysters", "mussels")
    quote = REVIEW[:REVIEW.index(" Parking")] + " The chef sent out free desserts."
    assert gr.quote_match(quote, long_review) >= 0.8  # condition 2 alone would accept it
    assert not gr.quote_grounded(quote, long_review, 0.8)  # condition 3: the invented sentence


@pytest.mark.parametrize("quote", ["the", "the view", "for the view"])
def test_short_quotes_never_grounded_and_do_not_raise_cgs(quote):
    text = f'Go there. "{quote}" [R1]'
    cited = [{"R1": REVIEW}]
    assert quote.lower() in REVIEW.lower()  # verbatim, yet too short to be evidence
    assert gr.grounding_score([text], cited)[0] == 0.0
    assert gr.citation_density([text], cited)[0] == 0.0
    cgs = gr.composite(gr.grounding_score([text], cited), gr.citation_density([text], cited),
                       gr.provenance_coverage([text]))
    assert cgs[0] == 0.0


def test_four_word_quote_is_the_minimum():
    assert gr.quote_grounded("stayed for the view", REVIEW, 0.8)
    assert not gr.quote_grounded("for the view", REVIEW, 0.8)


def test_stitched_quote_from_distant_sentences_fails():
    s1 = "We came for the oysters and stayed for the view over the harbour."
    s2 = "Parking is a nightmare on weekends, so take a cab."
    assert gr.quote_grounded(s1, REVIEW, 0.8) and gr.quote_grounded(s2, REVIEW, 0.8)
    assert not gr.quote_grounded(f"{s1} {s2}", REVIEW, 0.8)
    adjacent = REVIEW[:REVIEW.index(" Parking")]  # two neighbouring sentences: a real span
    assert gr.quote_grounded(adjacent, REVIEW, 0.8)


def test_per_quote_credit_counts_each_quote():
    good = '"The staff remembered our names" [R1]'
    bad = '"the" [R1]'
    assert gr.grounding_score([f"{good} {good} {bad}"], [{"R1": REVIEW}])[0] == pytest.approx(2 / 3)
