"""Rejected POIs are the ones the user turned down (hand-worked turns)."""
import pytest

from trace_crs.baselines.negation import pseudo_spans
from trace_crs.baselines.rejection import rejected_in_turn

OFFERED = ["a", "b"]
NAMES = ["Blue Door Cafe", "No. 5 Bistro"]


@pytest.mark.parametrize("text, expected", [
    ("I'll take Blue Door Cafe, not No. 5 Bistro.", {"b"}),
    ("Not Blue Door Cafe, but No. 5 Bistro sounds great.", {"a"}),
    ("Hmm, No. 5 Bistro won't work for me. It should be quiet.", {"b"}),
    ("I'd rather skip Blue Door Cafe. Somewhere with outdoor seating?", {"a"}),
    ("Blue Door Cafe isn't what I had in mind.", {"a"}),
    ("No. 5 Bistro sounds perfect, thanks!", set()),            # the name's "No" is not a cue
    ("Great, I'll go with Blue Door Cafe.", set()),
    ("Neither, really. Something quieter?", {"a", "b"}),
    ("None of those. We don't want to shout over music.", {"a", "b"}),
    ("Not quite. I'd love to see a museum.", {"a", "b"}),       # no POI referred to: first cue
    ("Sounds perfect, but is it open late?", set()),
    ("The second one, please; not the first.", {"a"}),
    ("I'll take the latter.", set()),
    ("Blue Door Cafe? Hmm, no.", {"a"}),                        # named, the turn's cue decides
    ("Tell me more about the area.", set()),                    # no cue: nothing turned down
    ("Been there already, honestly.", {"a", "b"}),              # no negation word, still a "no"
    ("Blue Door Cafe is a bit pricey for us.", {"a"}),          # a price complaint about one place
    ("Blue Door Cafe is out of our price range; No. 5 Bistro sounds great.", {"a"}),
    ("Blue Door Cafe sounds great and it's not pricey.", set()),  # accepted first; "not" later
    ("Is No. 5 Bistro expensive?", set()),                      # a question, no degree word
    ("nah, something else", {"a", "b"}),
    ("we stayed there last year, anything new?", {"a", "b"}),    # been/ate/stayed there: a "no"
    ("No. 5 Bistro? my wife hates bistros", {"b"}),             # the turn's cue decides for the name
    ("Blue Door Cafe is out of the way for us", {"a"}),
    ("hmm anything a little closer to the river?", {"a", "b"}),  # asking for one closer: a distance complaint
    ("anything a bit calmer?", set()),                           # a refinement, not a "no"
    ("that one's out of our price range", {"a", "b"}),           # "that one" points, it does not accept
    ("is there anything more central?", {"a", "b"}),
    ("ok that one sounds great", set()),
    ("Is Blue Door Cafe far from the river?", set()),           # a question about distance, no complaint
    ("looks lovely but a bit far for us", {"a", "b"}),           # what follows "but" decides
    ("sounds great, though anything cheaper?", {"a", "b"}),
    ("ok sounds great, but how far is it?", set()),             # no cue after "but": the first cue
    # pseudo-cues (NegEx's pseudo-negations): a cue word that turns nothing down
    ("No worries! Blue Door Cafe works for us.", set()),
    ("no rush, we'll head to No. 5 Bistro later", set()),
    ("Can't complain, that's a fair price", set()),
    ("not too bad, and not too far either", set()),
    ("No wonder everyone likes it.", set()),
    ("no problem, but anything cheaper?", {"a", "b"}),           # the real cue after "but" still decides
    ("Not bad, but No. 5 Bistro is out of the way.", {"b"}),     # a pseudo-cue next to a real one
    ("No worries, not Blue Door Cafe though.", {"a"}),
    # "too" ending its clause is "also"; before a complaint it is a "no"
    ("that works too!", set()),
    ("No. 5 Bistro sounds great too, we'll book it", set()),
    ("Blue Door Cafe is too far, sadly", {"a"}),
    ("too pricey for us", {"a", "b"}),
])
def test_rejected_in_turn(text, expected):
    assert rejected_in_turn(text, OFFERED, NAMES) == expected


def test_nothing_offered_nothing_rejected():
    assert rejected_in_turn("No, not that.", [], []) == set()


@pytest.mark.parametrize("text", [
    "we'd love to eat there tonight",            # wanting to eat there is no "ate there"
    "one more question, is Blue Door Cafe open late?",
    "perfect, we'll go there for lunch",
])
def test_no_rejection_without_a_no(text):
    assert rejected_in_turn(text, OFFERED, NAMES) == set()


@pytest.mark.parametrize("text, spans", [
    ("no worries, thanks", [(0, 10)]),
    ("Not too bad. Not too far.", [(0, 11), (13, 24)]),
    ("cant complain", [(0, 13)]),                              # as typed on a phone
    ("no thanks", []),                                         # a real "no"
    ("nothing", []),
])
def test_pseudo_spans(text, spans):
    assert pseudo_spans(text) == spans
