"""The canonical facet vocabulary shared by both KB sources, the dialogue simulator and
the attribute-aware baselines.

Every ``POI.attributes`` dict carries these keys (values drawn from the tuples below):

* ``style``    – one value of ``STYLES[poi_type]`` (cuisine / hotel style / attraction kind)
                 or ``None`` when the source does not say;
* ``noise``    – one of ``NOISE_LEVELS`` or ``None``;
* ``ambience`` – a sorted list of ``AMBIENCES``;
* ``features`` – a sorted list of ``FEATURES``.

Sources may add further keys (the Yelp loader keeps the raw Yelp attributes under
``"yelp"``); consumers must ignore keys they do not know.  Price is ``POI.price`` (1–4).
"""

from __future__ import annotations

STYLES: dict[str, tuple[str, ...]] = {
    "restaurant": (
        "american",
        "italian",
        "mexican",
        "chinese",
        "japanese",
        "thai",
        "indian",
        "french",
        "mediterranean",
        "cajun",
        "seafood",
        "steakhouse",
        "bbq",
        "vegetarian",
        "cafe",
        "pizza",
        "burgers",
        "southern",
        "vietnamese",
        "korean",
    ),
    "hotel": ("boutique", "business", "resort", "budget", "historic", "luxury", "extended_stay", "bed_and_breakfast"),
    "attraction": (
        "museum",
        "park",
        "tour",
        "historic_site",
        "art_gallery",
        "music_venue",
        "zoo_aquarium",
        "sports",
        "shopping",
        "nightlife",
        "theater",
        "garden",
    ),
}
NOISE_LEVELS: tuple[str, ...] = ("quiet", "average", "loud")
AMBIENCES: tuple[str, ...] = ("romantic", "casual", "trendy", "classy", "cozy", "lively", "historic", "touristy")
FEATURES: tuple[str, ...] = (
    "parking",
    "wifi",
    "outdoor_seating",
    "wheelchair_accessible",
    "pet_friendly",
    "family_friendly",
    "vegan_options",
    "late_hours",
    "reservations",
    "pool",
    "gym",
    "breakfast_included",
    "free_cancellation",
    "guided_tours",
)
FACET_KEYS: tuple[str, ...] = ("style", "noise", "ambience", "features")  # the canonical facets (ARCHITECTURE §1)
LIST_FACETS: tuple[str, ...] = ("ambience", "features")  # the facets whose value is a list
