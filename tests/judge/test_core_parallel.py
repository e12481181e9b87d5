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
