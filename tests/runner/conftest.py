import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "baselines"))
from tinykb import DIALOGUES, tiny_kb  # noqa: E402

from trace_crs.kb.store import dump_jsonl  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
import runhelpers  # noqa: E402


@pytest.fixture(scope="session")
def kb(tmp_path_factory):
    return tiny_kb(tmp_path_factory.mktemp("kb"))


@pytest.fixture()
def inputs(tmp_path):
    """A tiny KB directory and three hand-written dialogues on disk: ``(kb_dir, dialogues_path)``."""
    path = tmp_path / "dialogues.jsonl"
    dump_jsonl(DIALOGUES, path)
    kb_dir = tmp_path / "kb"
    tiny_kb(kb_dir)
    return str(kb_dir), str(path)


@pytest.fixture()
def corpus(tmp_path):
    """The tiny KB and 12 dialogues (two personas, varied requests): ``(kb_dir, dialogues_path)``."""
    from tinykb import RESTAURANTS, dialogue

    rows = [dialogue(f"crs_conc_{i:05d}", [f"Hi, dinner {i}?", runhelpers.TEXTS[i % 6], "Not that one." if i % 2 else "Nice."],
                     [RESTAURANTS[i % 8], RESTAURANTS[(i + 3) % 8]], reject_first=bool(i % 2),
                     persona_type="date_night" if i % 3 else "budget_traveler") for i in range(12)]
    path = tmp_path / "dialogues.jsonl"
    dump_jsonl(rows, path)
    kb_dir = tmp_path / "kb"
    tiny_kb(kb_dir)
    return str(kb_dir), str(path)


@pytest.fixture()
def llm_env(monkeypatch):
    """No MiniLM (hash embeddings for Memory-Aug.), a fake API key, no DSPy cache carried over."""
    import dspy

    from trace_crs.baselines import memory

    monkeypatch.setattr(memory, "embed", runhelpers.hash_embed)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-not-a-key")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    yield
