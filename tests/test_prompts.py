"""The LLM prompts as data (:mod:`trace_crs.prompts`): every signature renders the same bytes as
the class statements it replaced, because users' LM caches are keyed by the exact messages.

``render`` writes, for one signature, what DSPy would send with fixed sample inputs (chat and
JSON adapter, with and without a demo, the lenient chat adapter of :mod:`trace_crs.lm.adapter`),
the messages' SHA-256 (the fake LM server's request hash) and DSPy's own cache key, the
structured-output schema of the JSON adapter, the instructions, and every field's name, order,
type and ``json_schema_extra``.  ``PINNED`` holds the SHA-256 of that text computed with the old
code, main at c9e7451 (``PYTHONPATH=<checkout of c9e7451>/src python tests/test_prompts.py``),
before the signatures moved to YAML; the same script under the new code prints the same table.
Re-pinned once on purpose: ``rank_and_respond`` (LLM Zero-Shot's generative call) got prompt
``zero-shot v2``, its place cards before the conversation, so its LM records are new calls; and
``rate_persuasiveness`` (``persuasive-v2``: the rating alone, the unread rationale dropped).
Added later, pinned by the code that added it: ``cite_and_respond`` (RAG-Citation's logprob-mode
reply, ``rag-respond v1``).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import pickle
import re
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import dspy
import pytest

from trace_crs.errors import DataError

# the module under test is imported inside the tests: the ``__main__`` table runs on the old code too

# the signature's module and class name -> its prompt file (src/trace_crs/prompts/<file>.yaml)
SIGNATURES: dict[str, tuple[str, str]] = {
    "judge_response": ("trace_crs.metrics.judge", "JudgeResponse"),
    "nli_verdict": ("trace_crs.metrics.entailment", "NLIVerdict"),
    "fits_request": ("trace_crs.lm.ranking", "FitsRequest"),
    "rank_and_respond": ("trace_crs.baselines.llm_zero_shot", "RankAndRespond"),
    "respond": ("trace_crs.baselines.llm_zero_shot", "Respond"),
    "extract_state_delta": ("trace_crs.baselines.dst", "ExtractStateDelta"),
    "respond_with_state": ("trace_crs.baselines.dst", "RespondWithState"),
    "synthesize_aspects": ("trace_crs.baselines.mrs", "SynthesizeAspects"),
    "cite_and_recommend": ("trace_crs.baselines.rag_citation", "CiteAndRecommend"),
    "cite_and_respond": ("trace_crs.baselines.rag_citation", "CiteAndRespond"),
    "generate_dialogue": ("trace_crs.dialogues.llm", "GenerateDialogue"),
    "generate_dialogue_compact": ("trace_crs.dialogues.llm", "GenerateDialogueCompact"),
    "rewrite_turn": ("trace_crs.live.llm_user", "RewriteTurn"),
    "rate_factor": ("trace_crs.judge.core", "RateFactor"),
    "rate_factor_score": ("trace_crs.judge.geval", "RateFactorScore"),
    "rate_all_factors": ("trace_crs.judge.core", "RateAllFactors"),
    "rate_persuasiveness": ("trace_crs.judge.persuasive", "RatePersuasiveness"),
    "debate_turn": ("trace_crs.judge.debate", "DebateTurn"),
}

PINNED: dict[str, str] = {
    "judge_response": "eb1a65a7fe8cf9a1fad47078e15c70c7fb63e46991a7c4ec025a618f86767059",
    "nli_verdict": "e423a9dc6aa027cd8ab1f7b772c2c03b91314e9a84924876b21ba5f6595b7717",
    "fits_request": "7b8ce72359d28ba5ebb6c8626abaf1928bc2fb45ec2c44d9ad0e6ac542c86520",
    "rank_and_respond": "e16ea948713415865731d976a6678dab34a113279dc025e81cbf95a99f07e764",
    "respond": "624a5e52356a3629c306aae4e4874d1d2b96a827598bcf284efa32726a00875f",
    "extract_state_delta": "bebe61e6545348f8aa62cadd217e054d70cfb4ab1c0f8c70e414cb704ddcb4e5",
    "respond_with_state": "93367dfac1373fc1db8b48d92ebecda347bf362a452f77531664780176aad0a9",
    "synthesize_aspects": "00c2ce5b5523a8545f0f1159f13d0d68b5faf1c52894df880d8cfdb0eaa42f49",
    "cite_and_recommend": "968c58e89e2847b93df654643cac2e68e6aefb3174f9f361d8f7e3916af584eb",
    "cite_and_respond": "e03df0109542eae481ce6c416f89a7ea7b7f4087eb862fe66d05b8633390cd19",
    "generate_dialogue": "fa630a7412ee7a4cd87629c8500aeef31fad14fa3270eb3389b0e181d7cab546",
    "generate_dialogue_compact": "837b668151bb82bb145be01f44d63fb48931e9ca09af9b83ed52aa7d0d9825b5",
    "rewrite_turn": "bb498bff882057c6b0ccd4fb3554702ea500cbd5da9457cf4ed5abc7f3042a88",
    "rate_factor": "fb290cb4cbd8a26728f2b1e0fc012d44dae3d8f7e5bed7bb03b54356d60d1fd0",
    "rate_factor_score": "27366868988e6f0fcc0a125243a7d13b757d418be5ff1e56c087b3317adbe4ca",
    "rate_all_factors": "603448e1f04e5b5f6bbcbf84d94e7436b82ae46269a2b876585fbbcafb7aed1d",
    "rate_persuasiveness": "7d5a4352a2b29758afe210d81a1768bcbfb5f818f4821aa36d2ab19f0929f3f9",
    "debate_turn": "80695e27e74abd0e7295c9f13f48c006263ba3f17a480e5efa3d6d20740bc0c3",
}


def load(key: str) -> type[dspy.Signature]:
    module, name = SIGNATURES[key]
    return getattr(importlib.import_module(module), name)


def render(sig: type[dspy.Signature]) -> str:
    """Everything a signature puts into a request or a saved program, as one text."""
    from dspy.adapters.json_adapter import _get_structured_outputs_response_format

    from trace_crs.lm.adapter import LenientChatAdapter

    inputs = {name: f"<sample {name}>\nsecond line" for name in sig.input_fields}
    demo = {name: f"<demo {name}>" for name in sig.fields}
    out: dict[str, Any] = {
        "name": [sig.__name__, sig.__qualname__, sig.__module__, sig.signature],
        "instructions": sig.instructions,
        "doc": sig.__doc__,
        "fields": [
            [name, "input" if name in sig.input_fields else "output", repr(f.annotation), repr(f.json_schema_extra)]
            for name, f in sig.fields.items()
        ],
        "state": dspy.Predict(sig).dump_state(),
    }
    for adapter in (dspy.ChatAdapter(), dspy.JSONAdapter(), LenientChatAdapter()):
        for demos in ([], [demo]):
            messages = adapter.format(sig, demos=demos, inputs=inputs)
            request = {"model": "openai/m", "messages": messages}
            out[f"{type(adapter).__name__} demos={len(demos)}"] = {
                "messages": messages,
                "sha256": hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest(),
                "cache_key": dspy.cache.cache_key(request, []) if dspy.cache else None,
            }
    try:
        schema = _get_structured_outputs_response_format(sig).model_json_schema()
    except ValueError as exc:  # a signature DSPy cannot express as a schema: keep the message
        schema = f"{type(exc).__name__}: {exc}"
    out["response_format"] = schema
    return json.dumps(out, indent=1, sort_keys=True, default=repr)


def digest(key: str) -> str:
    return hashlib.sha256(render(load(key)).encode()).hexdigest()


@pytest.mark.parametrize("key", sorted(SIGNATURES))
def test_prompt_bytes_unchanged(key):
    assert digest(key) == PINNED[key]


def test_every_prompt_file_is_a_signature_of_its_module():
    from trace_crs.prompts import signature

    files = {p.stem for p in resources.files("trace_crs.prompts").iterdir() if p.name.endswith(".yaml")}
    assert files == set(SIGNATURES)
    for key, (module, name) in SIGNATURES.items():
        sig = load(key)
        assert sig is signature(key, module) and (sig.__name__, sig.__module__) == (name, module)
        assert issubclass(sig, dspy.Signature) and pickle.loads(pickle.dumps(sig)) is sig


def test_an_extending_prompt_is_a_subclass_with_its_base_fields():
    base, compact = load("generate_dialogue"), load("generate_dialogue_compact")
    assert issubclass(compact, base) and list(compact.fields) == list(base.fields)
    assert compact.instructions != base.instructions


GOOD = {
    "name": "Ask",
    "instructions": "Ask. [t-v1]",
    "inputs": [{"name": "question", "type": "str", "desc": "the question"}, {"name": "hint", "type": "str"}],
    "outputs": [{"name": "answer", "type": "int | None", "desc": "the answer"}],
}


def test_build_declares_fields_in_order_with_their_types_and_descs():
    from trace_crs.prompts import build

    sig = build(GOOD, "prompts/ask.yaml", __name__)
    assert (sig.__name__, sig.instructions, list(sig.fields)) == ("Ask", "Ask. [t-v1]", ["question", "hint", "answer"])
    assert sig.output_fields["answer"].annotation == int | None
    assert sig.input_fields["question"].json_schema_extra["desc"] == "the question"
    assert sig.input_fields["hint"].json_schema_extra["desc"] == "${hint}"  # no desc: DSPy's placeholder


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"outputs": [{"name": "answer", "type": "integer"}]}, "field 'answer': unknown type 'integer'"),
        ({"outputs": [{"name": "answer", "type": ["int"]}]}, "field 'answer': unknown type"),
        ({"outputs": [{"name": "answer"}]}, "field 'answer': unknown type None"),
        ({"outputs": [{"type": "int"}]}, "field 'outputs[0]': missing or invalid field name"),
        ({"outputs": [{"name": "answer", "type": "int", "help": "x"}]}, "field 'answer': unknown keys ['help']"),
        ({"outputs": [{"name": "question", "type": "int"}]}, "field 'question': declared twice"),
        ({"outputs": None}, "field 'outputs': missing or not a list"),
        ({"instructions": ""}, "field 'instructions': missing"),
        ({"prompt": "x"}, "unknown keys ['prompt']"),
        ({"extends": "other"}, "field 'extends'"),
    ],
)
def test_a_bad_prompt_file_names_the_file_and_field(change, where):
    from trace_crs.prompts import build

    with pytest.raises(DataError, match=re.escape(f"prompts/ask.yaml: {where}")):
        build({**GOOD, **change}, "prompts/ask.yaml", __name__)


def test_a_missing_prompt_file_is_named():
    from trace_crs.prompts import signature

    with pytest.raises(DataError, match=re.escape("prompts/nope.yaml: no such prompt file")):
        signature("nope", __name__)


if __name__ == "__main__":
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    for key in SIGNATURES:
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / f"{key}.json").write_text(render(load(key)))
        print(f'    "{key}": "{digest(key)}",')
