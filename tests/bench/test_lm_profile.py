"""The LM profile's sums (bench/bench_lm_profile.py): one summing rule for the worker's timing
lines and for the replies of a judge mode, checked on two hand-made replies."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_lm_profile as prof  # noqa: E402


def test_sum_lines_by_hand():
    lines = [
        {"timings": {"prompt_n": 10, "predicted_n": 5, "prompt_ms": 1000.0, "predicted_ms": 500.0},
         "usage": {"prompt_tokens": 12, "completion_tokens": 5}, "finish_reason": "length"},
        {"timings": {"prompt_n": 4, "predicted_n": 1, "prompt_ms": 200.0, "predicted_ms": 100.0},
         "usage": {"prompt_tokens": 6, "completion_tokens": 1}, "finish_reason": "length"},
    ]
    got = prof.sum_lines(lines, 3.0, 0.5)
    # 12 + 6 prompt tokens; 10 + 4 evaluated; 5 + 1 decoded; 1.0 + 0.2 s and 0.5 + 0.1 s; only the
    # 5-token reply counts as cut at max_tokens (a 1-token reply ends at "length" by design)
    assert got == {"calls": 2, "prompt_tokens": 18, "prefill_tokens": 14, "decode_tokens": 6, "prefill_s": 1.2,
                   "decode_s": 0.6, "hit_max_tokens": 1, "wall_s": 3.0, "load_1min": 0.5}
