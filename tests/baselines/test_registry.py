import pytest

from trace_crs.baselines import registry

ALL = ["popularity", "tfidf", "aspect", "dense", "spatial", "hybrid_rrf", "itinerary", "knowledge", "persona",
       "llm_zero_shot", "dst", "rag_citation", "mrs", "memory", "itinerary_llm"]


def test_fifteen_keys_labels_groups():
    assert list(registry.BASELINES) == ALL
    assert set(registry.LABELS) == set(ALL) and registry.LABELS["hybrid_rrf"] == "Hybrid-RRF"
    assert registry.LABELS["mrs"] == "Multi-Rev. Synth." and registry.LABELS["knowledge"] == "Knowledge-Enh."
    assert [k for k in ALL if registry.FAMILY[k] == "non_llm"] == ALL[:9] == list(registry.NON_LLM)
    assert [k for k in ALL if registry.FAMILY[k] == "llm"] == ALL[9:] == list(registry.LLM)
    assert set(registry.FAMILY.values()) == set(registry.FAMILIES)
    assert all(":" in v for v in registry.BASELINES.values())


@pytest.mark.parametrize("name", ALL[:9])
def test_non_llm_classes_match_registry(name):
    obj = registry.create(name)
    assert obj.name == name and obj.label == registry.LABELS[name] and obj.uses_llm is False


@pytest.mark.parametrize("name", ALL)
def test_every_class_reads_its_registry_entry(name):
    """Every class (LLM ones included, without building an LM) carries its own entry."""
    cls = registry.baseline_class(name)
    assert (cls.name, cls.label, cls.uses_llm) == (name, registry.LABELS[name], name in ALL[9:])
    assert registry.uses_llm(name) is (name in ALL[9:])


def test_registered_without_key_keeps_defaults():
    class Plain(registry.Registered):
        pass

    assert (Plain.name, Plain.label, Plain.uses_llm) == ("", "", False)
    with pytest.raises(KeyError):
        type("Bogus", (registry.Registered,), {}, key="bogus")


@pytest.mark.parametrize("spec, expected", [
    ("all", ALL), ("non-llm", ALL[:9]), ("LLM", ALL[9:]), ("tfidf, dense,tfidf", ["tfidf", "dense"]),
])
def test_resolve(spec, expected):
    assert registry.resolve(spec) == expected


@pytest.mark.parametrize("spec", ["", "tfidf,bogus", " , "])
def test_resolve_rejects_unknown_or_empty(spec):
    with pytest.raises(ValueError, match="unknown baseline"):
        registry.resolve(spec)


def test_create_unknown():
    with pytest.raises(ValueError, match="nope"):
        registry.create("nope")
