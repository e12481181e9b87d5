"""The `hf` entailment backend on a tiny randomly initialised BERT NLI checkpoint built here."""
import numpy as np
import pytest

from trace_crs.metrics import entailment as en

WORDS = ["the", "pasta", "was", "great", "and", "quiet", "patio", "cheap", "tacos", "loud", "music", "."]


def tiny_nli(tmp_path, labels=("entailment", "neutral", "contradiction")):
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS) + "\n")
    BertTokenizer(str(vocab)).save_pretrained(tmp_path / "nli")
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(WORDS) + 5, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=32, num_labels=3, id2label=dict(enumerate(labels)),
                     label2id={n: i for i, n in enumerate(labels)})
    BertForSequenceClassification(cfg).save_pretrained(tmp_path / "nli")
    return tmp_path / "nli"


def test_hf_backend_loads_local_checkpoint_and_matches_manual_softmax(tmp_path):
    import torch
    from transformers import BertForSequenceClassification, BertTokenizer

    d = tiny_nli(tmp_path)
    b = en.make_backend(f"hf:{d}")
    assert b.name == "hf:nli"
    pairs = [("the pasta was great", "quiet patio"), ("cheap tacos", "loud music .")]
    got = b.probabilities(pairs)
    tok, model = BertTokenizer.from_pretrained(d), BertForSequenceClassification.from_pretrained(d).eval()
    for (p, h), g in zip(pairs, got):  # independent path: one pair at a time, no padding
        ids = [2] + tok.convert_tokens_to_ids(p.split()) + [3] + tok.convert_tokens_to_ids(h.split()) + [3]
        types = [0] * (len(p.split()) + 2) + [1] * (len(h.split()) + 1)
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([ids]), token_type_ids=torch.tensor([types])).logits[0].numpy()
        want = np.exp(logits[0]) / np.exp(logits).sum()
        assert g == pytest.approx(float(want), abs=1e-5)
    assert en.entailment_scores(["pasta was great. loud music ."], [[]], b)[0] == 0.0  # no cited review


def test_hf_backend_bad_inputs(tmp_path):
    with pytest.raises(FileNotFoundError):
        en.make_backend(f"hf:{tmp_path / 'missing'}")
    d = tiny_nli(tmp_path, labels=("a", "b", "c"))
    with pytest.raises(ValueError, match="entailment"):
        en.make_backend(f"hf:{d}")
    for spec in ("hf", "nli", "embedding:x"):
        with pytest.raises(ValueError):
            en.make_backend(spec)
    with pytest.raises(ValueError, match="LM"):
        en.make_backend("llm")
    assert en.make_backend("none") is None


