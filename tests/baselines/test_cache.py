"""The per-process memo tables shared by the baselines."""
from trace_crs.cache import memo, memo_call


def test_memo_call_computes_once_and_is_bounded(kb):
    calls = []

    def compute(key):
        calls.append(key)
        return key * 10

    assert [memo_call(kb, "t_bounded", k, lambda k=k: compute(k), cap=3) for k in (1, 2, 1, 3)] == [10, 20, 10, 30]
    assert calls == [1, 2, 3]                        # the repeated key was a hit
    assert memo_call(kb, "t_bounded", 4, lambda: compute(4), cap=3) == 40
    assert sorted(memo(kb, "t_bounded")) == [4]      # full table emptied before storing the 4th key
    assert memo_call(kb, "t_bounded", 1, lambda: compute(1), cap=3) == 10 and calls == [1, 2, 3, 4, 1]


def test_memo_call_does_not_store_failures(kb):
    def boom():
        raise ValueError("no")

    for _ in range(2):
        try:
            memo_call(kb, "t_fail", "k", boom)
        except ValueError:
            pass
    assert "k" not in memo(kb, "t_fail")
