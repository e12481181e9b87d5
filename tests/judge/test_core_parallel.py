"""The per-factor judge's concurrent path (a local LM in parallel slots): every factor rated once,
results in factor order; other LMs stay serial."""
from dspy.utils import DummyLM

from trace_crs.judge.core import factor_workers, rate_transcript
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.transcript import parse_transcript
from trace_crs.lm.config import LMConfig

T = parse_transcript({"dialogue_id": "d", "turns": [{"role": "user", "text": "A quiet cafe?"},
                                                    {"role": "assistant", "text": "Try Cafe A.", "items": ["Cafe A"]}]})


def _slotted(slots: int, **kw) -> DummyLM:
    lm = DummyLM([{"rationale": "same", "rating": "3"}] * len(FACTORS))
    lm.trace_config = LMConfig(slots=slots, **kw)
    return lm


def test_factor_workers():
    assert factor_workers({n: DummyLM([]) for n in FACTORS}) == 1            # no Trace config: serial
    assert factor_workers({n: _slotted(0) for n in FACTORS}) == 1            # distinct LMs: serial
    lm = _slotted(0)
    assert factor_workers({n: lm for n in FACTORS}) == 1                     # slots off
    lm = _slotted(4)
    assert factor_workers({n: lm for n in FACTORS}) == 4
    lm = _slotted(3, servers=2)
    assert factor_workers({n: lm for n in FACTORS}) == 6
    api = _slotted(4, model="openai/gpt-4o-mini")
    assert factor_workers({n: api for n in FACTORS}) == 1                    # API models: unchanged


def test_concurrent_factor_calls_keep_factor_order():
    lm = _slotted(4)
    got = rate_transcript(T, lm)
    assert list(got) == list(FACTORS)
    assert [got[n].rating for n in FACTORS] == [3] * len(FACTORS)
    assert len(lm.history) == len(FACTORS)                                    # one call per factor


def test_concurrent_calls_count_in_the_callers_usage_tally(monkeypatch):
    from trace_crs.judge import core
    from trace_crs.lm.usage import _TALLY, recording_usage

    def fake_rate(t, n, lm, retries, predict):
        for tally in _TALLY.get():  # what a TraceLM call does: add to every open tally
            tally.add({"prompt_tokens": 10, "completion_tokens": 1, "cost_usd": 0.0, "latency_s": 0.5}, False, False)
        return core.FactorResult(factor=n, rating=3, rationale=n, attempts=1)

    monkeypatch.setattr(core, "rate_factor", fake_rate)
    with recording_usage() as tally:
        got = rate_transcript(T, _slotted(4))
    assert list(got) == list(FACTORS)
    assert (tally.calls, tally.prompt_tokens) == (12, 120)                   # 12 calls x 10 tokens
