"""``Dialogue``/``Turn``/``Citation`` name the keys ``dialogue.schema.json`` requires (ARCHITECTURE §2).
(Postponed annotations: ``NotRequired`` is read from the resolved hints.)"""
from typing import NotRequired, get_origin, get_type_hints

from trace_crs.dialogues.schema import Citation, Dialogue, Turn, dialogue_schema


def split(td) -> tuple[set[str], set[str]]:
    optional = {k for k, v in get_type_hints(td, include_extras=True).items() if get_origin(v) is NotRequired}
    return set(td.__annotations__) - optional, optional


def test_typed_dicts_match_the_json_schema():
    schema = dialogue_schema()
    turn = schema["$defs"]["turn"]
    citation = turn["properties"]["citations"]["items"]
    assert split(Dialogue) == (set(schema["required"]), set(schema["properties"]) - set(schema["required"]))
    assert split(Turn) == (set(turn["required"]), {"gold_poi_ids", "acceptable_alternative_poi_ids"})
    assert split(Citation) == (set(citation["required"]), set())
