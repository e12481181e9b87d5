import pytest

from trace_crs.report import t03_dataset


def test_compare_stats_maps_rows():
    kb = {"pois": 24, "pois_per_type": {"restaurant": 8, "hotel": 8, "attraction": 8}, "reviews": 48,
          "reviews_per_poi_mean": 2.0, "stars_mean_poi": 4.0, "unique_categories": 10,
          "cities": ["Reno", "Tampa"]}
    corpus = {"dialogues": 20, "turns_mean": 10.0, "turns_sd": 2.0, "pois_recommended_mean": 3.0,
              "persona_archetypes": 5, "candidates_per_dialogue": 8.0, "rejection_rate": 0.25,
              "tiers": {"easy": 5, "medium": 7, "hard": 6, "expert": 2}}
    df = t03_dataset.compare_stats(kb, corpus).set_index("statistic")
    assert df.at["KB: POIs", "diff"] == 24 - 2400
    assert df.at["KB: POIs per type (restaurant / hotel / attraction, each)", "ours"] == 8
    assert df.at["Dialogues: Rejection rate (%)", "ours"] == 25.0
    assert df.at["Dialogues: Rejection rate (%)", "diff"] == pytest.approx(25.0 - 29.4)
    assert df.at["Difficulty (generation-time): Expert (dialogues)", "ours"] == 2
    assert df.at["KB: Cities (U.S., Yelp Academic)", "ours"] == 2
    price = df.loc["KB: Price range (restaurants, hotels)"]
    assert price["paper_printed"] == "$–$$$$" and price.isna()["ours"]
    assert t03_dataset.facts(df.reset_index())["turns_mean"] == 10.0




def test_generator_inputs_are_marked_and_exist():
    from trace_crs.report import paper

    inputs = t03_dataset.inputs()
    printed = set(paper.table(t03_dataset.PAPER)["statistic"])
    assert set(inputs["statistic"]) <= printed  # every marked row is a row of the printed table
    assert {"KB: Avg. reviews per POI", "KB: Avg. stars"} <= set(inputs["statistic"])
    assert sum(s.startswith("Difficulty") for s in inputs["statistic"]) == 4
    frame = t03_dataset.compare_stats(
        {"pois": 10, "pois_per_type": {"a": 1}, "reviews": 1, "reviews_per_poi_mean": 1.0, "stars_mean_poi": 1.0,
         "unique_categories": 1, "cities": ["x"]},
        {"dialogues": 1, "turns_mean": 1.0, "turns_sd": 0.0, "pois_recommended_mean": 1.0, "persona_archetypes": 1,
         "candidates_per_dialogue": 8, "rejection_rate": 0.1, "tiers": {t: 0 for t in ("easy", "medium", "hard", "expert")}},
    ).set_index("statistic")
    assert frame.loc["KB: Avg. stars", "input"] == "input (targeted)"
    assert frame.loc["Dialogues: Total dialogues", "input"] == "input (set)"
    assert frame.loc["Dialogues: Rejection rate (%)", "input"] == ""
