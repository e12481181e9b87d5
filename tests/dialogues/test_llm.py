"""The LLM generator end to end with dspy.utils.DummyLM (no network, no model)."""
import copy

import dspy
import pytest
from dspy.utils import DummyLM

from trace_crs.dialogues.generate import generate_simulated
from trace_crs.dialogues.llm import DialogueGenerator, GenerateDialogue, generate_llm, generate_one, to_dialogue


@pytest.fixture(autouse=True)
def reset_dspy():
    dspy.configure(lm=None, adapter=None)
    yield
    dspy.configure(lm=None, adapter=None)


@pytest.fixture(scope="module")
def reference(tiny_kb):
    return generate_simulated(tiny_kb, 3, seed=42)[2]


def answer(d, mangle=False):
    """The model's JSON output for a dialogue: turns without citations/gold, plus multi-reference."""
    keys = ("turn_id", "role", "text", "action", "referenced_poi_ids", "referenced_review_ids")
    turns = [{k: t[k] for k in keys} for t in d["turns"]]
    if mangle:  # a fabricated, non-verbatim quote in the first recommend turn
        i = next(i for i, t in enumerate(d["turns"]) if t["action"] == "recommend")
        quote = d["turns"][i]["citations"][0]["quote"]
        turns[i]["text"] = turns[i]["text"].replace(quote, "Honestly the best meal of my entire life, zero complaints", 1)
    multi = {str(t["turn_id"]): t["acceptable_alternative_poi_ids"] for t in d["turns"] if "gold_poi_ids" in t}
    return {"turns": turns, "multi_reference": multi}


def base_of(d):
    b = copy.deepcopy(d)
    del b["turns"]
    b["metadata"] = {**b["metadata"], "generator": "llm", "model": "dummy"}
    return b


def test_signature_carries_v2_rules():
    doc = GenerateDialogue.__doc__
    for rule in ("6-12 turns", "strict user/system alternation", "greet_and_seek", "farewell", "ask_preference",
                 "reject_and_refine", "at least 3 distinct", "compare", "EXACT verbatim", "[Rn]"):
        assert rule in doc


def test_valid_output_accepted_and_equal_to_reference(tiny_kb, reference):
    rejections = sum(t["action"] == "reject_and_refine" for t in reference["turns"])
    with dspy.context(lm=DummyLM([answer(reference)])):
        d, log = generate_one(DialogueGenerator(), tiny_kb, base_of(reference), rejections, max_retries=2)
    assert log == {"dialogue_id": reference["dialogue_id"], "tier": reference["scenario"]["difficulty"], "retries": 0}
    assert d["turns"] == reference["turns"]  # citations re-derived from the text match the simulator's exactly


def test_invalid_output_retried_then_accepted(tiny_kb, reference):
    rejections = sum(t["action"] == "reject_and_refine" for t in reference["turns"])
    with dspy.context(lm=DummyLM([answer(reference, mangle=True), answer(reference)])):
        d, log = generate_one(DialogueGenerator(), tiny_kb, base_of(reference), rejections, max_retries=2)
    assert d is not None and d["metadata"]["retries"] == 1 and log["retries"] == 1


def test_invalid_output_retried_then_recorded_failed(tiny_kb, reference):
    rejections = sum(t["action"] == "reject_and_refine" for t in reference["turns"])
    with dspy.context(lm=DummyLM([answer(reference, mangle=True)] * 2)):
        d, log = generate_one(DialogueGenerator(), tiny_kb, base_of(reference), rejections, max_retries=1)
    assert d is None and log["failed"] is True and log["retries"] == 1
    assert len(log["reasons"]) == 2 and any(r.startswith("quote_mismatch") for r in log["reasons"][0])


def test_wrong_rejection_count_is_a_failure(tiny_kb, reference):
    with dspy.context(lm=DummyLM([answer(reference)])):
        d, log = generate_one(DialogueGenerator(), tiny_kb, base_of(reference), 5, max_retries=0)
    assert d is None and any(r.startswith("rejections:") for r in log["reasons"][0])


def test_generate_llm_records_failures(tiny_kb, reference):
    # the dummy answer references another scenario's candidates -> every attempt fails validation
    accepted, failures = generate_llm(tiny_kb, 1, "dummy", max_retries=1, lm=DummyLM([answer(reference)] * 2))
    assert accepted == [] and len(failures) == 1 and failures[0]["dialogue_id"] == "crs_yelp_00001"


def test_near_verbatim_quote_is_snapped_to_the_review_span(tiny_kb):
    from trace_crs.dialogues.llm_turns import parse_citations as _citations
    # review r00_r0 = "Great pasta here. The room was quiet all evening."; one typo in the quote
    text, cites = _citations('Try it: "The room was quite all evening." [R1]', ["r00_r0"], tiny_kb)
    assert cites == [{"label": "R1", "review_id": "r00_r0", "quote": "The room was quiet all evening.",
                      "start": 18, "end": 49}]
    assert text == 'Try it: "The room was quiet all evening." [R1]'
    _, none = _citations("no quotes at all", [], tiny_kb)
    assert none == []


# --- prompt v2-compact, constrained decoding, acceptance report -------------------------------
import jsonschema  # noqa: E402

from trace_crs.cli.dialogues_generate import acceptance, reason_key  # noqa: E402
from trace_crs.dialogues.llm import PROMPTS, _inputs, excerpt  # noqa: E402
from trace_crs.dialogues.llm_turns import parse_citations as _citations  # noqa: E402
from trace_crs.dialogues.llm_schema import (SchemaJSONAdapter, output_schema, position_actions,  # noqa: E402
                                            response_format, turn_schema)


@pytest.mark.parametrize("text, chars, want", [
    ("Short.", 160, "Short."),                                         # fits: unchanged
    ("One two. Three four five six seven.", 20, "One two. Three four"),  # sentence end at 8 < 10: last space
    ("Aaaa bbbb cccc. Dddd eeee ffff.", 20, "Aaaa bbbb cccc."),         # cut after the full sentence
    ("x" * 30, 20, "x" * 20),                                          # no space at all: hard cut
    ("ab cdefghijklmnopqrstuvwxyz", 20, "ab cdefghijklmnopqrs"),       # only space in first half: hard cut
    ("Good food. Great view", None, "Good food. Great view"),           # None: full text
])
def test_excerpt_is_a_short_verbatim_prefix(text, chars, want):
    got = excerpt(text, chars)
    assert got == want and text.startswith(got)


def test_compact_inputs_label_two_excerpts_per_candidate(tiny_kb, reference):
    inp = _inputs(tiny_kb, reference, 1, "v2-compact")
    cands = __import__("json").loads(inp.candidates)
    first = reference["candidate_poi_ids"][0]
    poi = tiny_kb.pois[first]
    assert cands[0] == {"label": "P1", "name": poi.name, "stars": poi.stars, "price": poi.price,
                        "categories": poi.categories,
                        "reviews": [{"label": "R1", "text": tiny_kb.reviews[f"{first}_r0"].text},
                                    {"label": "R2", "text": tiny_kb.reviews[f"{first}_r1"].text}]}
    assert inp.poi_handles == [f"P{k}" for k in range(1, 9)] and inp.review_handles == [f"R{k}" for k in range(1, 17)]
    assert [inp.labels[f"P{k}"] for k in range(1, 9)] == reference["candidate_poi_ids"]
    assert inp.labels["R16"] == f"{reference['candidate_poi_ids'][7]}_r1" and len(inp.labels) == 24
    assert "business_id" not in inp.candidates and "review_id" not in inp.candidates
    full = _inputs(tiny_kb, reference, 1, "v2")
    assert full.labels is None and full.poi_handles == reference["candidate_poi_ids"]
    assert len(full.review_handles) == 24 and '"label"' not in full.candidates  # 8 POIs x 3 reviews, by id
    assert "rejections: 1" in inp.scenario


def test_excerpt_labels_resolve_and_are_renumbered_per_turn(tiny_kb):
    # r00_r0 = "Great pasta here. The room was quiet all evening."; r00_r1 = "Very romantic feel! They have patio too."
    labels = {"R3": "r00_r0", "R4": "r00_r1"}
    text, cites = _citations('See "They have patio too." [R4]; also "The room was quiet" [R3], again [R4].', [],
                             tiny_kb, labels)
    assert text == 'See "They have patio too." [R1]; also "The room was quiet" [R2], again [R1].'
    assert cites == [{"label": "R1", "review_id": "r00_r1", "quote": "They have patio too.", "start": 20, "end": 40},
                     {"label": "R2", "review_id": "r00_r0", "quote": "The room was quiet", "start": 18, "end": 36}]
    # a label the prompt never showed resolves to no review (the validator then reports unknown_review)
    _, bad = _citations('"Great pasta here." [R9]', [], tiny_kb, labels)
    assert bad[0]["review_id"] == "" and bad[0]["label"] == "R1"


def test_labels_in_id_lists_map_to_ids(tiny_kb, reference):
    labels = {"P1": "r00", "P2": "r01", "R1": "r00_r0", "R2": "r00_r1"}
    raw = {"turn_id": 2, "role": "system", "action": "recommend", "referenced_poi_ids": ["P1"],
           "text": 'Go: "Very romantic feel!" [R2]', "referenced_review_ids": ["R2", "R7", "r00_r0"]}
    d = to_dialogue(dspy.Prediction(turns=[raw], multi_reference={"2": ["P2", "P1", "P9"]}), base_of(reference),
                    tiny_kb, labels)
    # shown labels become ids; an unknown label or a plain id is kept as written (the validator judges it)
    assert d["turns"][0]["referenced_review_ids"] == ["r00_r1", "R7", "r00_r0"]
    assert d["turns"][0]["referenced_poi_ids"] == d["turns"][0]["gold_poi_ids"] == ["r00"]
    assert d["turns"][0]["acceptable_alternative_poi_ids"] == ["r01", "P9"]
    assert d["turns"][0]["citations"] == [{"label": "R1", "review_id": "r00_r1", "quote": "Very romantic feel!",
                                           "start": 0, "end": 19}]


@pytest.mark.parametrize("turn_id, n, want", [
    (1, 6, ("greet_and_seek",)),
    (6, 6, ("farewell",)),
    (6, 8, ("ask_preference", "recommend", "compare")),
    (3, 8, ("provide_preference", "reject_and_refine", "accept")),
    (12, 12, ("farewell",)),
])
def test_position_actions(turn_id, n, want):
    assert position_actions(turn_id, n) == want


def test_turn_schema_bounds_ids_per_action():
    compare = turn_schema(4, 8, ["p1", "p2"], ["r1"])["anyOf"][2]
    assert compare["properties"]["action"] == {"const": "compare"}
    assert compare["properties"]["turn_id"] == {"const": 4} and compare["properties"]["role"] == {"const": "system"}
    assert compare["properties"]["referenced_poi_ids"] == {"type": "array", "items": {"enum": ["p1", "p2"]},
                                                           "minItems": 2, "maxItems": 2}
    assert list(compare["properties"]) == ["turn_id", "role", "action", "referenced_poi_ids", "text",
                                           "referenced_review_ids"]
    greet = turn_schema(1, 8, ["p1"], ["r1"])
    assert greet["properties"]["referenced_review_ids"]["maxItems"] == 0


def test_output_schema_accepts_reference_form_and_rejects_broken_ones(tiny_kb, reference):
    inp = _inputs(tiny_kb, reference, 1, "v2")
    schema = output_schema(reference["candidate_poi_ids"], inp.review_handles, cite_pattern=False)
    good = answer(reference)
    for t in good["turns"]:  # user turns of the simulator cite nothing; keep at most 1 POI there
        if t["role"] == "user":
            t["referenced_poi_ids"] = t["referenced_poi_ids"][:1]
    jsonschema.validate(good, schema)
    broken = [("turn_id", "1"), ("role", "system"), ("action", "farewell")]
    for key, value in broken:  # on turn 1
        bad = copy.deepcopy(good)
        bad["turns"][0][key] = value
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
    bad = copy.deepcopy(good)
    bad["turns"] = bad["turns"][:5]  # odd length: cannot close with a system farewell
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    bad = copy.deepcopy(good)
    bad["turns"][1]["referenced_poi_ids"] = ["not_a_candidate"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    assert response_format(schema) == {"type": "json_object", "schema": schema}


@pytest.mark.parametrize("text, ok", [
    ('Try X: a guest wrote "The staff checked." [R3] ok', True),
    ('"q" [R1]', True),
    ('Two "a" [R1] and "b" [R12].', True),
    ("No quote here", False),
    ('"q"[R1]', False),           # no space before the label
    ('x "q" (R1)', False),        # not a [Rn] label
    ('x "" [R1]', False),         # empty quote
])
def test_cited_text_pattern_over_json_encoded_text(text, ok):
    import json
    import re

    from trace_crs.dialogues.llm_schema import CITED_TEXT
    assert bool(re.fullmatch(CITED_TEXT, json.dumps(text)[1:-1])) is ok


def test_only_recommend_and_compare_texts_carry_the_pattern():
    from trace_crs.dialogues.llm_schema import CITED_TEXT
    variants = turn_schema(4, 8, ["p"], ["r"])["anyOf"]
    texts = {v["properties"]["action"]["const"]: v["properties"]["text"] for v in variants}
    assert texts == {"ask_preference": {"type": "string"}, "recommend": {"type": "string", "pattern": CITED_TEXT},
                     "compare": {"type": "string", "pattern": CITED_TEXT}}


def test_output_schema_compiles_to_a_llama_grammar(tiny_kb, reference):
    llama_grammar = pytest.importorskip("llama_cpp.llama_grammar")
    schema = output_schema(reference["candidate_poi_ids"], _inputs(tiny_kb, reference, 1, "v2-compact").review_handles)
    gbnf = llama_grammar.json_schema_to_gbnf(__import__("json").dumps(schema))
    assert '"\\"greet_and_seek\\""' in gbnf and "turns-3" in gbnf  # four turn-count alternatives (6/8/10/12)
    assert '"\\\\\\" [" "R" [0-9]+ "]"' in gbnf  # the citation syntax: \" [Rn]


def compact_answer(d, labels):
    """``answer(d)`` rewritten for prompt v2-compact: POIs and reviews named by their prompt
    labels (P1.., R1..) in id lists, multi-reference and after quotes."""
    out = answer(d)
    label_of = {rid: label for label, rid in labels.items()}
    for raw, turn in zip(out["turns"], d["turns"]):
        for c in turn["citations"]:
            raw["text"] = raw["text"].replace(f'[{c["label"]}]', f'[{label_of[c["review_id"]]}]')
        raw["referenced_review_ids"] = [label_of[r] for r in raw["referenced_review_ids"]]
        raw["referenced_poi_ids"] = [label_of[b] for b in raw["referenced_poi_ids"]]
    out["multi_reference"] = {k: [label_of[b] for b in v] for k, v in out["multi_reference"].items()}
    return out


@pytest.fixture(scope="module")
def compact_reference(tiny_kb):
    # the first simulated dialogue that cites only first reviews, which prompt v2-compact shows
    only_first = [d for d in generate_simulated(tiny_kb, 40, seed=42)
                  if all(c["review_id"].endswith("_r0") for t in d["turns"] for c in t["citations"])]
    assert only_first
    return only_first[0]


def test_constrained_compact_output_accepted_with_schema_in_request(tiny_kb, compact_reference):
    ref = compact_reference
    rejections = sum(t["action"] == "reject_and_refine" for t in ref["turns"])
    inp = _inputs(tiny_kb, ref, rejections, "v2-compact")
    lm = DummyLM([compact_answer(ref, inp.labels)], adapter=dspy.JSONAdapter())
    lm.kwargs["seed"] = 42
    with dspy.context(lm=lm, adapter=SchemaJSONAdapter()):
        d, log = generate_one(DialogueGenerator("v2-compact"), tiny_kb, base_of(ref), rejections, max_retries=0,
                              prompt="v2-compact", decoding="constrained")
    assert log == {"dialogue_id": ref["dialogue_id"], "tier": ref["scenario"]["difficulty"], "retries": 0}
    assert d["turns"] == ref["turns"]  # excerpt labels mapped back and renumbered R1.. per turn
    sent = lm.history[-1]["kwargs"]
    assert sent["response_format"] == response_format(output_schema([f"P{k}" for k in range(1, 9)],
                                                                     [f"R{k}" for k in range(1, 17)]))
    assert sent["seed"] == 42 and sent["rollout_id"] == 0
    messages = lm.history[-1]["messages"]
    assert "where Rn is the label of the quoted excerpt" in messages[0]["content"]
    # the worked example (user + assistant message) has the scenario's number of rejections
    assert f"rejections: {rejections}; suggested actions" in messages[1]["content"]
    assert messages[2]["role"] == "assistant" and messages[2]["content"].count("reject_and_refine") == rejections


def test_retries_change_the_seed(tiny_kb, compact_reference):
    ref = compact_reference
    lm = DummyLM([{"turns": [], "multi_reference": {}}] * 3, adapter=dspy.JSONAdapter())
    lm.kwargs["seed"] = 7
    with dspy.context(lm=lm, adapter=SchemaJSONAdapter()):
        d, log = generate_one(DialogueGenerator("v2-compact"), tiny_kb, base_of(ref), 3, max_retries=2,
                              prompt="v2-compact", decoding="constrained")
    assert d is None and [h["kwargs"]["seed"] for h in lm.history[-3:]] == [7, 8, 9]
    assert [h["kwargs"]["rollout_id"] for h in lm.history[-3:]] == [0, 1, 2]


def test_generate_llm_labels_mode_and_reports_logs(tiny_kb):
    logs = []
    accepted, failures = generate_llm(tiny_kb, 1, "dummy", max_retries=0, prompt="v2-compact", decoding="constrained",
                                      lm=DummyLM([{"turns": [], "multi_reference": {}}], adapter=dspy.JSONAdapter()),
                                      on_log=logs.append)
    assert accepted == [] and logs == failures and logs[0]["seconds"] >= 0
    with pytest.raises(ValueError, match="decoding"):
        generate_llm(tiny_kb, 1, "dummy", decoding="grammar", lm=DummyLM([]))
    assert set(PROMPTS) == {"v2", "v2-compact"}


def test_generated_metadata_names_prompt_and_decoding(tiny_kb, monkeypatch):
    import trace_crs.dialogues.llm as llm

    def fake_one(program, kb, base, rejections, max_retries, prompt, decoding):
        return copy.deepcopy(base), {"dialogue_id": base["dialogue_id"], "tier": base["scenario"]["difficulty"],
                                     "retries": 0}
    monkeypatch.setattr(llm, "generate_one", fake_one)
    monkeypatch.setattr(llm, "assign_splits", lambda ds, seed: None)
    accepted, _ = generate_llm(tiny_kb, 1, "dummy", prompt="v2-compact", decoding="constrained", lm=DummyLM([]))
    assert accepted[0]["metadata"]["generator_mode"] == "constrained"
    assert accepted[0]["metadata"]["prompt_version"] == "v2-compact"


@pytest.mark.parametrize("reason, key", [
    ("quote_mismatch: turn 4: R1", "quote_mismatch"),
    ("no_compare", "no_compare"),
    ("rejections: 0 != 2", "rejections"),
    ("parse: LMTimeoutError: [m] litellm.Timeout: ...", "parse: LMTimeoutError"),
])
def test_reason_key(reason, key):
    assert reason_key(reason) == key


def test_acceptance_per_tier_by_hand():
    logs = [{"dialogue_id": "a", "tier": "easy", "retries": 0},
            {"dialogue_id": "b", "tier": "easy", "retries": 2, "reasons": [["no_compare", "length: 4 turns"],
                                                                           ["no_compare"]]},
            {"dialogue_id": "c", "tier": "hard", "retries": 1, "failed": True,
             "reasons": [["no_compare", "quote_mismatch: turn 2: R1", "quote_mismatch: turn 4: R1"],
                         ["parse: AdapterParseError: x"]]}]
    rep = acceptance(logs)
    assert rep["easy"] == {"attempted": 2, "accepted": 2, "rate": 1.0, "calls": 4}
    assert rep["hard"] == {"attempted": 1, "accepted": 0, "rate": 0.0, "calls": 2}
    assert rep["all"] == {"attempted": 3, "accepted": 2, "rate": 2 / 3, "calls": 6}
    # counted once per attempt: quote_mismatch twice in one attempt counts 1
    assert rep["reasons"] == {"no_compare": 3, "length": 1, "parse: AdapterParseError": 1, "quote_mismatch": 1}
    assert list(rep["reasons"])[:2] == ["no_compare", "length"]


# --- CLI: the local generator's LM config and the acceptance report ---------------------------
def test_local_generator_lm_config_defaults_and_overrides():
    import argparse

    from trace_crs.cli.dialogues_generate import _llm_lm_config
    args = argparse.Namespace(model="local:qwen2.5-coder-0.5b-instruct-q4_k_m",
                              set=["lm.timeout_s=3600", "max_tokens=3000"])
    cfg = _llm_lm_config(args)
    assert (cfg.weights, cfg.timeout_s, cfg.max_tokens) == ("qwen2.5-coder-0.5b-instruct-q4_k_m", 3600.0, 3000)
    assert (cfg.n_ctx, cfg.temperature, cfg.mode, cfg.is_local) == (6144, 0.2, "generative", True)
    default = _llm_lm_config(argparse.Namespace(model="local", set=None))
    assert (default.weights, default.timeout_s, default.max_tokens) == \
        ("qwen2.5-coder-1.5b-instruct-q4_k_m", 1800.0, 2048)


def test_cli_llm_writes_acceptance_report(tmp_path, tiny_kb_dir, monkeypatch, capsys):
    import json

    import trace_crs.dialogues.llm as llm
    from trace_crs.cli import main
    seen = {}

    def fake(kb, n, model, seed, **kw):
        seen.update(kw)
        logs = [{"dialogue_id": "crs_yelp_00001", "tier": "easy", "retries": 1, "failed": True,
                 "reasons": [["no_compare"], ["no_compare", "rejections: 0 != 1"]], "seconds": 1.0}]
        for log in logs:
            kw["on_log"](log)
        return [], logs
    monkeypatch.setattr(llm, "generate_llm", fake)
    out = tmp_path / "g.jsonl"
    assert main(["dialogues", "generate", "--kb", str(tiny_kb_dir), "--n", "1", "--generator", "llm", "--model", "m/x",
                 "--max-retries", "1", "--out", str(out)]) == 0
    assert (seen["prompt"], seen["decoding"], seen["max_retries"]) == ("v2", "free", 1)
    report = json.loads(out.with_suffix(".acceptance.json").read_text())
    assert {k: report[k] for k in ("model", "prompt", "decoding", "n", "seed", "max_retries")} == \
        {"model": "m/x", "prompt": "v2", "decoding": "free", "n": 1, "seed": 42, "max_retries": 1}
    rep = report["acceptance"]
    assert rep["easy"] == {"attempted": 1, "accepted": 0, "rate": 0.0, "calls": 2}
    assert rep["reasons"] == {"no_compare": 2, "rejections": 1}
    assert out.with_suffix(".failures.jsonl").exists() and "accepted 0/1" in capsys.readouterr().err
    assert main(["dialogues", "generate", "--kb", str(tiny_kb_dir), "--n", "1", "--generator", "llm", "--model", "m/x",
                 "--set", "lm.timeout_s=1", "--out", str(out)]) == 2
    assert "--set configures the local" in capsys.readouterr().err


@pytest.mark.parametrize("rejections", [1, 2, 3])
def test_demo_is_a_valid_v2_dialogue(tmp_path, rejections):
    """The compact prompt's worked example obeys its own schema and passes the validator
    (its 4 candidates padded to the pool size 8 with 4 unreferenced POIs)."""
    import json
    import re

    from trace_crs.dialogues.llm_schema import CITED_TEXT, action_plan, demo
    from trace_crs.dialogues.validate import dialogue_failures
    from trace_crs.kb.schema import POI, Review
    from trace_crs.kb.store import load_kb, write_kb
    DEMO = demo(rejections)
    cands = json.loads(DEMO["candidates"])
    fillers = [{"label": f"F{k}", "name": f"Filler {k}", "categories": ["Restaurants"], "stars": 3.0,
                "price": 1, "reviews": []} for k in range(4)]
    labels = {c["label"]: f"demo-poi-{c['label']}" for c in cands + fillers}
    labels.update({r["label"]: f"demo-rev-{r['label']}" for c in cands for r in c["reviews"]})
    pois = [POI(labels[c["label"]], c["name"], "1 Main St", "Tucson", "AZ", 32.2, -110.9, "restaurant",
                c["categories"], c["stars"], 2, c["price"],
                {"style": "x", "noise": None, "ambience": [], "features": []})
            for c in cands + fillers]
    reviews = [Review(labels[r["label"]], labels[c["label"]], 5, r["text"], "2020-01-01")
               for c in cands for r in c["reviews"]]
    write_kb(pois, reviews, tmp_path, {"source": "demo"})
    kb = load_kb(tmp_path)
    ids = [labels[c["label"]] for c in cands + fillers]
    jsonschema.validate({"turns": DEMO["turns"], "multi_reference": DEMO["multi_reference"]},
                        output_schema([c["label"] for c in cands], [f"R{k}" for k in range(1, 9)], cite_pattern=False))
    assert all(re.fullmatch(CITED_TEXT, json.dumps(t["text"])[1:-1]) for t in DEMO["turns"]
               if t["action"] in ("recommend", "compare"))
    base = {"dialogue_id": "crs_yelp_00001", "candidate_poi_ids": ids, "open_set_poi_ids": ids,
            "expanded_pool_poi_ids": {"16": ids, "32": ids}, "split": "train",
            "scenario": {"persona_type": "foodie", "persona": "Dana", "context": "weekend", "city": "Tucson",
                         "poi_type": "restaurant", "difficulty": "medium",
                         "hidden_preferences": {"style": None, "price_max": None, "noise": None, "ambience": [],
                                                "features": [], "anchor": None}},
            "metadata": {"generator": "llm", "model": "demo", "seed": 42, "kb_sha256": kb.sha256, "retries": 0}}
    d = to_dialogue(dspy.Prediction(turns=DEMO["turns"], multi_reference=DEMO["multi_reference"]), base, kb, labels)
    assert dialogue_failures(d, kb) == []
    assert [t["action"] for t in d["turns"]] == action_plan(rejections)
    assert f"rejections: {rejections}; suggested actions: greet_and_seek" in DEMO["scenario"]
    assert d["turns"][-3]["citations"] == [
        {"label": "R1", "review_id": "demo-rev-R3", "quote": "A quiet, candlelit room that is perfect for a date.",
         "start": 0, "end": 51},
        {"label": "R2", "review_id": "demo-rev-R7", "quote": "Great steaks and a calm dining room.",
         "start": 0, "end": 36}]
    assert d["turns"][-3]["gold_poi_ids"] == ["demo-poi-P2", "demo-poi-P4"]
    assert d["turns"][5]["acceptable_alternative_poi_ids"] == ["demo-poi-P2"]
    assert d["turns"][-3]["text"].endswith('"Great steaks and a calm dining room." [R2]')


@pytest.mark.parametrize("rejections, want", [
    (1, ["greet_and_seek", "ask_preference", "provide_preference", "recommend", "reject_and_refine", "recommend",
         "provide_preference", "compare", "accept", "farewell"]),
    (2, ["greet_and_seek", "ask_preference", "provide_preference", "recommend", "reject_and_refine", "recommend",
         "reject_and_refine", "recommend", "provide_preference", "compare", "accept", "farewell"]),
    (3, ["greet_and_seek", "ask_preference", "provide_preference", "recommend", "reject_and_refine", "recommend",
         "reject_and_refine", "recommend", "reject_and_refine", "compare", "accept", "farewell"]),
])
def test_action_plan_fits_the_grammar(rejections, want):
    from trace_crs.dialogues.llm_schema import action_plan, suggested_actions
    plan = action_plan(rejections)
    assert plan == want
    assert all(a in position_actions(i, len(plan)) for i, a in enumerate(plan, 1))  # the grammar admits it
    text = suggested_actions(rejections)
    assert text.count("reject_and_refine") == rejections and text.count("(POI ") == plan.count("recommend")


def test_compact_scenario_suggests_actions_v2_does_not(tiny_kb, reference):
    assert "suggested actions: greet_and_seek, ask_preference" in _inputs(tiny_kb, reference, 2, "v2-compact").scenario
    assert "suggested" not in _inputs(tiny_kb, reference, 2, "v2").scenario
