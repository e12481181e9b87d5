"""bench/bench_prompt_layout.py's per-turn accounting on hand-worked token sequences (the worker's
reuse rules: a shared prefix is kept in whole blocks of the worker's reuse block, 16 unless
measured, and at least one block of the prompt is read)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_prompt_layout as bench  # noqa: E402


def test_a_later_turn_reads_what_its_prompt_adds_and_its_new_text_is_the_conversation_delta():
    turns = [
        {"dialogue": "d", "conversation": "A" * 10, "sent": [list(range(1, 65))]},            # 64 tokens, cache empty
        {"dialogue": "d", "conversation": "A" * 10 + "B" * 5, "sent": [list(range(1, 97))]},  # shares 64 = 4 blocks
        {"dialogue": "e", "conversation": "C" * 4, "sent": [list(range(200, 240))]},          # shares nothing
    ]
    rows = bench.per_turn(turns, lambda tokens: tokens, len, entries=0)
    assert rows == [
        {"first": True, "calls": 1, "prompt": 64, "evaluated": 64, "new": 10},
        {"first": False, "calls": 1, "prompt": 96, "evaluated": 32, "new": 5},   # 96 - 64
        {"first": True, "calls": 1, "prompt": 40, "evaluated": 40, "new": 4},
    ]
    later = bench.summary([r for r in rows if not r["first"]])
    assert later["ratio_of_means"] == 6.4 and later["ratio_median"] == 6.4 and later["share_within_1_5"] == 0.0
    first = bench.summary([r for r in rows if r["first"]])
    assert first["mean_evaluated"] == 52.0 and first["mean_new"] == 7.0   # (64 + 40) / 2, (10 + 4) / 2
    assert bench.summary([]) == {"turns": 0}


def test_a_prefix_cut_inside_a_block_is_read_again_from_the_block_start():
    turns = [
        {"dialogue": "d", "conversation": "x", "sent": [list(range(1, 41))]},
        {"dialogue": "d", "conversation": "xy", "sent": [list(range(1, 41)) + [999]]},  # shares 40 of 41
    ]
    rows = bench.per_turn(turns, lambda tokens: tokens, len, entries=0)
    assert [r["evaluated"] for r in rows] == [40, 41 - 16]   # a block is read: min(40, 41 - 16) = 25 → 16 kept
    rows = bench.per_turn(turns, lambda tokens: tokens, len, entries=0, block=8)
    assert [r["evaluated"] for r in rows] == [40, 41 - 32]   # min(40, 41 - 8) = 33 → 32 kept
