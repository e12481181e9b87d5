import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from tinykb import tiny_kb  # noqa: E402


@pytest.fixture(scope="session")
def kb(tmp_path_factory):
    return tiny_kb(tmp_path_factory.mktemp("kb"))


@pytest.fixture(autouse=True, scope="session")
def _cache_dir(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("TRACE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    yield
    mp.undo()
