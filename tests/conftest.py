"""Suite-wide fixtures: shared on-disk caches go to a temporary directory, never the work tree."""
import pytest


@pytest.fixture(autouse=True, scope="session")
def _cache_dir(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("TRACE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    yield
    mp.undo()
