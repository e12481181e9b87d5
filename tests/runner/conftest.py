import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "baselines"))
from tinykb import DIALOGUES, tiny_kb  # noqa: E402

from trace_crs.kb.store import dump_jsonl  # noqa: E402


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
