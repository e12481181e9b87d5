"""The KV stash's reuse rules (lm.kv_stash, played without llama.cpp by bench/bench_kv_stash.py),
checked on hand-worked call sequences."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_kv_stash as bench  # noqa: E402

REPLY = list(range(1000, 1200))  # a 200-token reply prompt
FIT = list(range(5000, 5150))  # a 150-token fit prompt sharing nothing with it
MORE = list(range(9000, 9050))


def test_a_reply_prompt_that_returns_after_a_fit_question_is_restored():
    calls = [("gen", REPLY, 30), ("fit", FIT, 1), ("gen", REPLY + MORE, 30)]
    off, on = bench.play(calls, 0), bench.play(calls, 8)
    # off: each prompt is read whole (no common prefix with the one before it): 200 + 150 + 250
    assert off["gen"]["evaluated_tokens"] == 450 and off["fit"]["evaluated_tokens"] == 150
    # on: the third call gets the first prompt's rows back, cut to whole 16-token blocks (192 of 200)
    assert on["gen"]["evaluated_tokens"] == 200 + 250 - 192 and on["gen"]["restored_tokens"] == 200
    assert on["fit"]["evaluated_tokens"] == 150 and on["fit"]["restored_tokens"] == 0


def test_the_next_card_of_a_turn_does_not_stash_and_a_fit_prompt_returns_after_a_short_reply():
    card_a, card_b = list(range(7000, 7040)), list(range(7100, 7140))
    short = REPLY[:40] + MORE  # 90 tokens: under MIN_ROWS, never stashed itself
    calls = [("fit", FIT + card_a, 1), ("fit", FIT + card_b, 1), ("gen", short, 30), ("gen", short + [1], 30),
             ("fit", FIT + card_a, 1)]
    on = bench.play(calls, 8)
    # fit 1 reads 190; fit 2 keeps FIT's 144 aligned rows (more than half of 190: nothing stashed)
    # and reads 46; reply 1 discards the 190 fit rows (≥ 128): stashed; it reads 90, reply 2 keeps
    # 64 of its 91 (one whole block left to read: 91 - 16 = 75 → 64) and reads 27; fit 3 gets
    # FIT + card_b back (144 aligned rows shared) and reads 46
    assert on["fit"]["evaluated_tokens"] == 190 + 46 + 46 and on["fit"]["restored_tokens"] == 190
    assert on["gen"]["evaluated_tokens"] == 90 + 27 and on["gen"]["restored_tokens"] == 0
    off = bench.play(calls, 0)
    assert off["fit"]["evaluated_tokens"] == 190 + 46 + 190


def test_a_stashed_prompt_is_replaced_by_the_same_conversation_further_on():
    card_a, card_b = list(range(7000, 7040)), list(range(7100, 7140))
    cache, stash = bench.Tokens(), bench.CountingStash(8)
    for prompt in (FIT + card_a, REPLY, FIT + card_b, REPLY + MORE):
        stash.prepare(cache, prompt)
        cache.read(prompt, 1)
    # call 2 stashed FIT + card_a, call 3 the reply; call 4 stashed FIT + card_b, which shares 150 of
    # FIT + card_a's 190 tokens (≥ half): the older one is dropped; call 4 restored the reply
    assert [len(e.tokens) for e in stash.entries] == [190, 200]
    assert list(stash.entries[0].tokens) == FIT + card_b and stash.restored == 200


def test_the_unbounded_floor_keeps_every_earlier_prompt():
    calls = [("gen", REPLY, 30), ("fit", FIT, 1), ("fit", FIT[:100] + MORE, 1), ("gen", REPLY + MORE, 30)]
    least = bench.unbounded(calls)
    # fit 2 shares FIT's first 100 tokens (96 in whole blocks); reply 2 shares REPLY's 200 (192)
    assert least["fit"]["evaluated_tokens"] == 150 + (150 - 96)
    assert least["gen"]["evaluated_tokens"] == 200 + (250 - 192)
