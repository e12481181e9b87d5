"""Suite-wide fixtures: shared on-disk caches go to a temporary directory, never the work tree."""
import pytest


@pytest.fixture(autouse=True, scope="session")
def _cache_dir(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("TRACE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    yield
    mp.undo()


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium through Playwright (tests/browser.py); skipped where it is not
    installed (``make test`` installs it first: mk/browser.mk)."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location("trace_browser", Path(__file__).with_name("browser.py"))
    launcher = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(launcher)
    if not launcher.CHROMIUM.exists():
        pytest.skip(f"{launcher.CHROMIUM} not installed (make browser installs it)")
    with launcher.chromium() as b:
        yield b
