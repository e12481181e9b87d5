"""Helpers of the concurrent-LLM runner tests (imported by test_concurrency / test_faults)."""
from __future__ import annotations


LLM_BASELINES = "llm_zero_shot,dst,rag_citation,mrs,memory,itinerary_llm"
TEXTS = ["I want sushi and ramen, somewhere quiet.", "Italian pasta for a romantic date night.",
         "Somewhere near Ybor City with smoked ribs.", "Cheap tacos with friends, loud is fine.",
         "A classy French dinner for our anniversary.", "Spicy curry and warm naan please."]


def hash_embed(texts):
    """A deterministic stand-in for MiniLM (unit vectors from a hash of the text)."""
    import hashlib

    import numpy as np

    vecs = np.array([[b - 127.5 for b in hashlib.sha256(t.encode()).digest()[:16]] for t in texts], dtype=np.float32)
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True).clip(1e-9) if len(texts) else np.zeros((0, 16))


def llm_config(inputs, api_base, cache_dir, baselines=LLM_BASELINES, **kw):
    """A RunConfig of the LLM baselines against an OpenAI-compatible ``api_base``."""
    from trace_crs.runner.run import RunConfig

    lm = {"model": "openai/gpt-4o-mini", "api_base": api_base, "mode": "generative", "cache_dir": str(cache_dir),
          "backoff_s": 0.0, "timeout_s": 5.0, **kw.pop("lm", {})}
    return RunConfig(kb=inputs[0], dialogues=inputs[1], baselines=baselines, chunk_size=kw.pop("chunk_size", 3),
                     lm=lm, **kw)
