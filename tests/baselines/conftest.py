import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from tinykb import tiny_kb  # noqa: E402


@pytest.fixture(scope="session")
def kb(tmp_path_factory):
    return tiny_kb(tmp_path_factory.mktemp("kb"))

