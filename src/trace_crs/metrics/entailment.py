"""Entailment grounding (paper §3, Finding 2b, Appendix L Table 17/22) behind one interface.

Entailment(turn) = (# claim sentences c with max_r p(r ⊨ c) ≥ 0.5) / (# claim sentences),
where r ranges over the turn's resolved cited reviews (:mod:`~trace_crs.metrics.quotes`).
Claim sentences: the response split after ``. ! ?``, every label removed (``[Rn]`` and groups
``[R1, R2]``, as :mod:`trace_crs.dialogues.quote_reader` reads labels), sentences of at least
three word tokens kept.  No claim sentence, or no resolved citation → 0.0 (nothing
is supported; unlike GS there is no vacuous pass).

Backends (every score names the one that produced it, ``backend.name``):

* ``hf:DIR`` — any local sequence-classification NLI checkpoint directory (the paper's
  DeBERTa-v3-base MNLI when a user has it); p = softmax probability of the label whose
  ``id2label`` name contains "entail"; premise = review, hypothesis = claim.
* ``llm`` — zero-shot yes/maybe/no through a DSPy LM (:class:`NLIVerdict`); p(yes) = 1,
  p(no) = 0, and "maybe" = 1/3 (mass spread evenly over entail/neutral/contradict), so only
  "yes" passes the 0.5 threshold.
* ``embedding`` — a MiniLM support proxy, not NLI: p = max(0, max cosine between the claim
  and the sentences of the review) via :func:`trace_crs.lm.embeddings.embed`.

All backends cache p per (premise, hypothesis) pair within the process.  The embedding
backend also keeps sentence vectors on disk (:func:`sentence_vectors`): every baseline of a
run cites largely the same reviews (scoring the first baseline of the paper-scale closed run
embeds ~50k review sentences, the next ones mostly reuse them), and re-scoring a baseline
after a metric change re-embeds none of its ~18k claim sentences.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import dspy
import numpy as np

from trace_crs.cache import disk_cache_dir
from trace_crs.metrics.quotes import ANY_LABEL_RE
from trace_crs.prompts import signature
from trace_crs.segment import split_sentences, words

THRESHOLD = 0.5


def claim_sentences(text: str) -> list[str]:
    """Sentences of ``text`` with labels (``[Rn]``, ``[R1, R2]``) stripped and at least three word tokens."""
    parts = (ANY_LABEL_RE.sub("", s).strip() for s in split_sentences(text))
    return [s for s in parts if len(words(s)) >= 3]


class Backend:
    """Base: ``probabilities(pairs)`` with a per-process cache; subclasses fill ``_compute``."""

    name = "base"

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], float] = {}

    def _compute(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        raise NotImplementedError

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """p(premise ⊨ hypothesis) for each ``(premise, hypothesis)`` pair."""
        todo = sorted({p for p in pairs if p not in self._cache})
        if todo:
            self._cache.update(zip(todo, (float(x) for x in self._compute(todo)), strict=False))
        return np.array([self._cache[p] for p in pairs], dtype=float)


class HFBackend(Backend):
    """A local sequence-classification NLI checkpoint directory."""

    def __init__(self, directory: str | Path, batch_size: int = 16) -> None:
        super().__init__()
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        directory = Path(directory)
        if not directory.is_dir():
            raise FileNotFoundError(f"entailment hf: checkpoint directory {directory} not found")
        self.tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
        self.model = AutoModelForSequenceClassification.from_pretrained(directory, local_files_only=True).eval()
        labels = {i: str(n).lower() for i, n in self.model.config.id2label.items()}
        hits = [i for i, n in labels.items() if "entail" in n and not n.startswith("not")]
        if len(hits) != 1:
            raise ValueError(
                f"entailment hf: {directory}: need exactly one 'entailment' label in id2label, got {labels}"
            )
        self.entail_index, self.batch_size = int(hits[0]), batch_size
        self.name = f"hf:{directory.name}"

    def _compute(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        import torch

        out = []
        with torch.no_grad():
            for i in range(0, len(pairs), self.batch_size):
                chunk = pairs[i : i + self.batch_size]
                enc = self.tokenizer(
                    [p for p, _ in chunk],
                    [h for _, h in chunk],
                    padding=True,
                    truncation=True,
                    max_length=512,
                    return_tensors="pt",
                )
                logits = self.model(**enc).logits
                out.append(torch.softmax(logits, dim=-1)[:, self.entail_index].numpy())
        return np.concatenate(out)


NLIVerdict = signature("nli_verdict", __name__)


VERDICT_PROB = {"yes": 1.0, "maybe": 1.0 / 3.0, "no": 0.0}


class LLMBackend(Backend):
    """Zero-shot yes/maybe/no entailment through a DSPy LM (passed in, never global)."""

    def __init__(self, lm: dspy.BaseLM, name: str = "llm") -> None:
        super().__init__()
        self.lm, self.predict = lm, dspy.Predict(NLIVerdict)
        self.name = f"llm:{getattr(lm, 'model', name)}"

    def _compute(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        with dspy.context(lm=self.lm):
            return np.array([VERDICT_PROB[self.predict(premise=p, hypothesis=h).verdict] for p, h in pairs])


class EmbeddingBackend(Backend):
    """MiniLM support proxy: max cosine between the claim and the review's sentences."""

    name = "embedding:all-MiniLM-L6-v2"

    def _compute(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        sents = {p: split_sentences(p, quote_aware=False) or [p] for p, _ in pairs}
        vec = sentence_vectors(sorted({s for ss in sents.values() for s in ss} | {h for _, h in pairs}))
        return np.array([max(0.0, max(float(vec[s] @ vec[h]) for s in sents[p])) for p, h in pairs])


SENTENCE_CACHE = "entailment_minilm_sentences"


def sentence_vectors(texts: list[str]) -> dict[str, np.ndarray]:
    """MiniLM vectors of review and claim sentences, through an on-disk cache keyed by the
    SHA1 of each text: ``disk_cache_dir()/SENTENCE_CACHE/`` holds one ``.npz`` shard per call
    that embedded something new (named by the SHA1 of its keys, written atomically), and every
    call reads all shards — so scorers running at once never overwrite each other's vectors."""
    from trace_crs.lm.embeddings import embed

    folder = disk_cache_dir() / SENTENCE_CACHE
    folder.mkdir(parents=True, exist_ok=True)
    keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
    found: dict[str, np.ndarray] = {}
    wanted = set(keys)
    for shard in sorted(folder.glob("*.npz")):
        with np.load(shard) as npz:
            found.update((k, v) for k, v in zip(npz["keys"].tolist(), npz["vecs"], strict=False) if k in wanted)
    missing = sorted({(k, t) for k, t in zip(keys, texts, strict=False) if k not in found})
    if missing:
        new_keys = np.array([k for k, _ in missing], dtype="U40")
        new = embed([t for _, t in missing])
        found.update(zip(new_keys.tolist(), new, strict=False))
        name = hashlib.sha1("".join(new_keys.tolist()).encode()).hexdigest()
        tmp = folder / f"{name}.{os.getpid()}.tmp"  # not *.npz: readers never see a half-written shard
        with open(tmp, "wb") as fh:
            np.savez(fh, keys=new_keys, vecs=new)
        tmp.replace(folder / f"{name}.npz")
    return {t: found[k] for k, t in zip(keys, texts, strict=False)}


BACKENDS: dict[str, Callable[..., Backend]] = {
    "hf": lambda arg, lm=None: HFBackend(arg),
    "llm": lambda arg, lm=None: LLMBackend(lm),
    "embedding": lambda arg, lm=None: EmbeddingBackend(),
}


def make_backend(spec: str, lm: dspy.BaseLM | None = None) -> Backend | None:
    """``none`` → None; ``embedding``; ``llm`` (needs ``lm``); ``hf:DIR``."""
    name, _, arg = spec.partition(":")
    if name == "none":
        return None
    if name not in BACKENDS or (name == "hf") != bool(arg):
        raise ValueError(f"--entailment {spec!r}: expected none, embedding, llm or hf:DIR")
    if name == "llm" and lm is None:
        raise ValueError("--entailment llm needs a configured LM")
    return BACKENDS[name](arg, lm=lm)


def entailment_scores(
    texts: Sequence[str], cited: Sequence[Sequence[str]], backend: Backend, threshold: float = THRESHOLD
) -> np.ndarray:
    """Per turn: fraction of claim sentences entailed (p ≥ threshold) by some cited review."""
    claims = [claim_sentences(t) for t in texts]
    pairs = sorted({(r, c) for cs, rs in zip(claims, cited, strict=False) for c in cs for r in rs})
    prob = dict(zip(pairs, backend.probabilities(pairs), strict=False)) if pairs else {}
    out = np.zeros(len(texts))
    for i, (cs, rs) in enumerate(zip(claims, cited, strict=False)):
        if cs and rs:
            out[i] = np.mean([max(prob[(r, c)] for r in rs) >= threshold for c in cs])
    return out
