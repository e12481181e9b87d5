"""Personas (Appendix I) and tier allocation (Table 3 mix)."""
import numpy as np
import pytest

from trace_crs.dialogues.personas import archetypes, sample_persona, scenario_cycle, type_pool
from trace_crs.dialogues.tiers import allocate_tiers

APPENDIX_I = """accessibility_needs, architecture_buff, brunch_enthusiast, budget_traveler, business, celebration,
conference_attendee, couple, date_night, dietary_restricted, digital_nomad, eco_tourist, eco_traveler, event_group,
event_planner, extended_stay, family, fitness_traveler, food_explorer, foodie_explorer, friends_group, group_event,
health_conscious, history_buff, international_tourist, late_night, layover_traveler, local_experience, luxury_couple,
luxury_traveler, medical_traveler, music_lover, nightlife_seeker, pet_owner, relocation, remote_worker, road_tripper,
senior, solo_traveler, sports_fan, street_art_seeker, thrill_seeker, traveling_nurse, urban_explorer, volunteer_tourist,
wellness_seeker, wine_enthusiast"""


def test_archetypes_are_appendix_i_exactly():
    expected = tuple(a.strip() for a in APPENDIX_I.replace("\n", " ").split(","))
    assert len(expected) == 47
    assert archetypes() == expected


@pytest.mark.parametrize("poi_type", ["restaurant", "hotel", "attraction"])
def test_type_pools_have_38(poi_type):
    assert len(type_pool(poi_type)) == 38


def test_hotel_pool_has_conference_and_layover():  # Appendix I's example
    assert {"conference_attendee", "layover_traveler"} <= set(type_pool("hotel"))


def test_unknown_persona_and_type_raise():
    with pytest.raises(ValueError, match="unknown persona archetype 'pirate'"):
        sample_persona("pirate", np.random.default_rng(0))
    with pytest.raises(ValueError, match="unknown POI type"):
        type_pool("spa")


def test_modifier_probability_about_30_percent():
    rng = np.random.default_rng(42)
    # persona text is "Name, age, about" plus " who ..." when a modifier is drawn
    about = "a solo traveller"
    hits = sum(sample_persona("solo_traveler", rng).text.endswith(about) is False for _ in range(4000))
    assert 0.27 < hits / 4000 < 0.33


def test_scenario_cycle_order():
    cities = ["Reno", "Tampa"]
    # type fastest, then city, then the type's pool (alphabetical; restaurant pool starts with accessibility_needs)
    assert scenario_cycle(0, cities) == ("accessibility_needs", "Reno", "restaurant")
    assert scenario_cycle(1, cities) == ("accessibility_needs", "Reno", "hotel")
    assert scenario_cycle(3, cities) == ("accessibility_needs", "Tampa", "restaurant")
    assert scenario_cycle(6, cities) == ("brunch_enthusiast", "Reno", "restaurant")
    with pytest.raises(ValueError):
        scenario_cycle(0, [])


def test_tier_allocation_paper_mix():
    tiers = allocate_tiers(10000, np.random.default_rng(42))
    # 10000 × (0.248, 0.348, 0.306, 0.098) is integral
    assert [tiers.count(t) for t in ("easy", "medium", "hard", "expert")] == [2480, 3480, 3060, 980]


def test_tier_allocation_rounding_and_ties():
    # 10 × mix = 2.48, 3.48, 3.06, 0.98 -> floors 2,3,3,0 (8); remainders .48,.48,.06,.98 -> expert, easy
    tiers = allocate_tiers(10, np.random.default_rng(0))
    assert [tiers.count(t) for t in ("easy", "medium", "hard", "expert")] == [3, 3, 3, 1]
    assert allocate_tiers(1, np.random.default_rng(0), {"easy": 0.5, "medium": 0.5}) == ["easy"]  # tie -> tier order
    assert allocate_tiers(0, np.random.default_rng(0)) == []
    with pytest.raises(ValueError, match="bad tier mix"):
        allocate_tiers(5, np.random.default_rng(0), {"trivial": 1.0})
