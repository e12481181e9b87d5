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


@pytest.fixture
def fake_openai(monkeypatch):
    """The one fake OpenAI-compatible endpoint of the suite (``trace_crs.lm.fake_server`` on
    127.0.0.1), as a factory: ``srv = fake_openai(reply)`` starts a server answering each request's
    messages with ``reply(messages)`` and returns ``srv.url`` (for ``lm.api_base``) and ``srv.calls``
    (every request's messages, in order).  Servers stop and DSPy's cache is reset to memory-only
    when the test ends; ``OPENAI_API_KEY`` is set to a dummy (the server ignores it)."""
    from contextlib import ExitStack
    from types import SimpleNamespace

    import dspy

    from trace_crs.lm.fake_server import serve

    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-server")
    with ExitStack() as stack:

        def start(reply):
            calls: list = []

            def answer(messages):
                calls.append(messages)
                return reply(messages)

            srv = stack.enter_context(serve(reply=answer))
            return SimpleNamespace(url=srv.api_base, calls=calls)

        yield start
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)


@pytest.fixture
def hashed_word_embeddings(monkeypatch):
    """MiniLM's stand-in for Memory-Aug.'s retrieval (``trace_crs.baselines.memory.embed``): a
    hashed bag of words of unit length, deterministic and without a model."""
    import zlib

    import numpy as np

    import trace_crs.baselines.memory as mem

    def embed(texts):
        out = []
        for text in texts:
            v = np.zeros(32)
            for w in text.lower().split():
                v[zlib.crc32(w.encode()) % 32] += 1.0
            out.append(v / max(np.linalg.norm(v), 1e-9))
        return out

    monkeypatch.setattr(mem, "embed", embed)


@pytest.fixture
def recording_lm():
    """``recording_lm(reply)``: a DSPy ``DummyLM`` answering every call with ``reply`` and keeping
    each request's messages as sorted JSON in ``.sent`` (what a system showed the model)."""
    import json

    from dspy.utils import DummyLM

    class RecordingLM(DummyLM):
        def __init__(self, reply: dict) -> None:
            super().__init__([reply] * 1000)
            self.sent: list[str] = []

        def __call__(self, prompt=None, messages=None, **kwargs):
            self.sent.append(json.dumps(messages, sort_keys=True))
            return super().__call__(prompt, messages=messages, **kwargs)

    return RecordingLM
