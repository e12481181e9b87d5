"""The README's generated benchmark block: rendered from the JSON files, "not run" without them,
and the README rewritten only between its markers."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import measured_table as mt  # noqa: E402

def _arm(warm_s, ratio, first_s=100.0):
    keys = ("prompt_tokens", "evaluated_prompt_tokens", "completion_tokens", "calls")
    return {"first": {"model_s": first_s, **dict.fromkeys(keys, 1)}, "warm": {"model_s": warm_s, **dict.fromkeys(keys, 1)},
            "warm_evaluated_over_log_tokens": ratio, "wall_s": 1.0}


JUDGE = {"weights": "w", "threads": 1, "repeats": 1, "n": 3, "before_mode": "--mode per-factor",
         "after_mode": "--mode logprob --rating expected", "date": "2026-12-02", "ratings_equal": 3,
         "ratings_compared": 36, "summary": {"before": _arm(90.0, 8.5), "after": _arm(15.0, 1.25)},
         "warm_model_s_before_over_after": 6.0, "workers": {"servers": 2, "records_equal": 3, "records_compared": 3}}


def test_rows_from_json_and_not_run(tmp_path):
    (tmp_path / "judge_core.json").write_text(json.dumps(JUDGE))
    (tmp_path / "kb.json").write_text(json.dumps({"cli_build_seconds": 12.34, "cli_within_budget": True,
                                                  "cli_budget_seconds": 60.0, "cli_load_1min": 1.0}))
    text = mt.block(tmp_path)
    assert "model s 90.0 ÷ 15.0 = **6.00×**" in text      # 90 / 15 by hand
    assert "8.50 vs **1.25**" in text and "3 of 36 ratings equal" in text
    assert "records with 2 servers: 3 of 3 identical" in text
    assert "12.3 s (within the 60 s budget)" in text
    assert text.count("not run") == 12  # throughput, both draft rows, batch slots, llama build, kv stash, prompt
    # layout, fit layout, choice layout, choice replies, paper build, profile
    assert text.startswith(mt.BEGIN) and text.endswith(mt.END)


def test_llama_build_row(tmp_path):
    d = {"model": "m", "n_prefill": 1500, "n_decode": 48, "reps": 2, "load_avg": [9.6, 9.4, 9.0], "date": "2026-11-27",
         "portable": {"prefill_tps_median": 33.3, "decode_tps_median": 13.0},
         "native": {"prefill_tps_median": 47.5, "decode_tps_median": 14.0},
         "native_over_portable": {"prefill": {"median": 1.425, "min": 1.17, "max": 1.66},
                                  "decode": {"median": 1.0, "min": 0.9, "max": 1.2}},
         "same_continuation": False}
    (tmp_path / "llama_build.json").write_text(json.dumps(d))
    row = next(r for r in mt.block(tmp_path).splitlines() if "bench_llama_build.py" in r)
    assert "47.5 vs 33.3 tokens/s, **1.43×** (pairs 1.17–1.66)" in row
    assert "decoding **1.00×** (0.90–1.20)" in row and "continuation: no" in row and "n = 2 alternating" in row


def test_readme_block_replaced_between_markers_only(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"before\n{mt.BEGIN}\nold\n{mt.END}\nafter\n")
    assert mt.main(["--bench", str(tmp_path), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith("before\n") and text.endswith("\nafter\n") and "old" not in text
    readme.write_text("no markers\n")
    with pytest.raises(SystemExit, match="no <!-- bench"):
        mt.main(["--bench", str(tmp_path), "--readme", str(readme)])
    assert readme.read_text() == "no markers\n"        # untouched on error


def test_batch_slots_row_lists_every_arm_and_run(tmp_path):
    runs = {"slots3_private_concurrent": [{"differing_replies": 1, "differing_messages": 0},
                                          {"differing_replies": 0, "differing_messages": 0}],
            "slots3_shared_concurrent": [{"differing_replies": 12, "differing_messages": 3},
                                         {"differing_replies": 11, "differing_messages": 2}]}
    (tmp_path / "batch_slots.json").write_text(json.dumps({"weights": "w", "slots": 3, "repeats": 2, "requests": 14,
                                                           "load_1min_start": 1.0, "load_1min_end": 2.0,
                                                           "date": "2026-11-27", "arms": runs}))
    row = mt.slots_row(json.loads((tmp_path / "batch_slots.json").read_text()))
    assert "slots3_private_concurrent: 1, 0 of 14 (messages 0, 0)" in row
    assert "slots3_shared_concurrent: 12, 11 of 14 (messages 3, 2)" in row and "n = 2 run(s)" in row


def test_differing_records_read_as_counts_per_arm():
    # one later run per arm: 0 records differ for the pool, 7 for the slots; two runs: both counts
    assert mt.differing({"pool": [0], "slots": [7]}) == "pool 0; slots 7"
    assert mt.differing({"slots": [7, 6]}) == "slots 7 and 6"


def test_draft_rows_name_the_draft_arm_and_old_files_read_as_not_run():
    judge = {**JUDGE, "after_mode": "--mode per-factor", "workers": None, "warm_model_s_before_over_after": 1.25,
             "summary": {"before": _arm(300.0, 9.0), "after": _arm(240.0, 9.0)}}
    row = mt.judge_row(judge, "prompt-lookup drafts")
    assert "(prompt-lookup drafts)" in row and "model s 300.0 ÷ 240.0 = **1.25×**" in row  # 300 / 240
    assert "servers" not in row
    old = {"median": {}, "ratio_before_over_after": {}}              # the layout before the warm/cold split
    assert "not run" in mt.judge_row(old)
    runs = [{"load_1min": 2.0, "turns": 5}]
    # sorted keys, as the JSON is written: pool, named in the ratio's key, is still the reference
    tp = {"configs": {"draft": [], "pool": []}, "ratios": {"draft_over_pool": {"turns_per_s": 1.1}},
          "pool": {"median_turns_per_s": 0.02, "runs": runs}, "draft": {"median_turns_per_s": 0.022, "runs": runs},
          "weights": "w", "subset": 2, "threads": 2, "n_slots": 4, "date": "2026-11-27",
          "differing_records": {"pool": [0], "draft": [2]}}
    row = mt.throughput_row(tp, "draft", "prompt-lookup drafts")
    assert "1.32 ÷ 1.20 turns/min = **1.1×**" in row and "pool 0; draft 2 of 5" in row and "slots" not in row
    assert mt.throughput_row(tp, "slots").count("not run") == 1


def test_kv_stash_row(tmp_path):
    arm = {"fit": {"calls": 4, "prompt_tokens": 800, "evaluated_tokens": 400, "restored_tokens": 0}}
    on = {"fit": {"calls": 4, "prompt_tokens": 800, "evaluated_tokens": 200, "restored_tokens": 300}}
    d = {"records": "data/lm-records/x", "assumption": "one worker", "entries": 8, "date": "2026-12-02",
         "steps": {"run/a (m)": {"off": arm, "on": on, "unbounded": {"fit": {**on["fit"], "evaluated_tokens": 160}}}}}
    (tmp_path / "kv_stash.json").write_text(json.dumps(d))
    row = next(r for r in mt.block(tmp_path).splitlines() if "bench_kv_stash.py" in r)
    # 400/800, 200/800 and 160/800
    assert "run/a (m), fit (4 calls): 0.50 → **0.25** of 800 prompt tokens (every earlier prompt kept: 0.20)" in row


@pytest.mark.parametrize("local_mode", ["logprob", "auto"])
def test_prompt_layout_row(tmp_path, monkeypatch, local_mode):
    from trace_crs.lm.config import PRESETS

    monkeypatch.setitem(PRESETS["local"], "mode", local_mode)  # auto: LLM Zero-Shot's choice layout
    def turns(n, evaluated, new, median, share):
        return {"turns": n, "mean_evaluated": evaluated, "mean_new": new, "ratio_of_means": round(evaluated / new, 2),
                "ratio_median": median, "share_within_1_5": share}

    arm = {"date": "2026-12-02", "baseline": "llm_zero_shot", "dialogues": 3, "profile": "p", "seed": 42,
           "weights": "w", "stash_entries": 32, "commit": "abc123",
           "modes": {"logprob": {"first_turns": turns(3, 900.0, 90.0, 10.0, 0.0),
                                 "later_turns": turns(5, 300.0, 100.0, 2.5, 0.2)}}}
    from trace_crs.baselines.llm_common import PROMPT_VERSION
    from trace_crs.lm.ranking import PROMPT_VERSION as FITS_VERSION

    current = f"{PROMPT_VERSION}, {FITS_VERSION}"
    from trace_crs.baselines.choice import PROMPT_VERSION as CHOICE_VERSION

    measured = {**arm, "reuse_block": 8, "reuse_block_measured": True}
    layouts = {"v0, fits-v0": arm, current: arm, CHOICE_VERSION: measured}
    (tmp_path / "prompt_layout.json").write_text(json.dumps({"layouts": layouts}))
    row = next(r for r in mt.block(tmp_path).splitlines() if "bench_prompt_layout.py" in r)
    default = "; LLM Zero-Shot's local default"
    choice_label, current_label = ("", default) if local_mode == "logprob" else (default, "")
    assert f"{CHOICE_VERSION} (current `choice` mode{choice_label}; KV reuse block 8, measured), logprob: later turns" in row
    # 300 / 100 = 3.0
    assert "v0, fits-v0 (commit abc123), logprob: later turns (n = 5) 300 evaluated for 100 new, **3.00×** (median " \
           "2.50×, 20% of turns" in row
    assert f"{current} (current{current_label}), logprob: later turns" in row
    assert "first turns (n = 3) 900 evaluated" in row and row.endswith("≤ 1.5× (issue 44) |")


def test_fit_layout_row(tmp_path):
    rows = [{"dialogue": "a", "turn": 1, "v1": {"rank": 1, "evaluated": 10}, "v2": {"rank": 2, "evaluated": 4}},
            {"dialogue": "b", "turn": 1, "v1": {"rank": 2, "evaluated": 30}, "v2": {"rank": 1, "evaluated": 6}}]
    import bench_fit_layout

    summary = bench_fit_layout.summarize(rows, reps=50)
    # R@1 1/2 in both; MRR (1 + 1/2)/2 = 0.75 in both; tokens (10+30)/2 = 20 → (4+6)/2 = 5
    assert summary["v1"] == summary["v2"] == {"r_at_1": 0.5, "mrr": 0.75}
    assert summary["evaluated_tokens_per_turn"] == {"v1": 20.0, "v2": 5.0}
    d = {"date": "d", "weights": "w", "summary": summary,
         "sample": {"turns": 2, "dialogues": 2, "excluded": "the 20-dialogue subset of seed 42"}}
    (tmp_path / "fit_layout.json").write_text(json.dumps(d))
    row = next(r for r in mt.block(tmp_path).splitlines() if "bench_fit_layout.py" in r)
    assert "R@1 0.50 → 0.50 (v2 − v1 +0.00" in row and "tokens evaluated per turn 20 → 5" in row


def test_choice_layout_row(tmp_path):
    rows = [{"dialogue": "a", "turn": 1, "fits-v1": {"rank": 1, "evaluated": 10}, "choice": {"rank": 3, "evaluated": 4}},
            {"dialogue": "b", "turn": 1, "fits-v1": {"rank": 2, "evaluated": 30}, "choice": {"rank": 1, "evaluated": 2}}]
    import bench_choice_layout

    summary = bench_choice_layout.summarize(rows, reps=50)
    # fits: R@1 1/2, MRR (1 + 1/2)/2 = 0.75; choice: R@1 1/2, MRR (1/3 + 1)/2 = 2/3; tokens 20 → 3
    assert summary["fits-v1"] == {"r_at_1": 0.5, "mrr": 0.75}
    assert summary["choice"]["mrr"] == pytest.approx(2 / 3) and summary["mrr_diff"]["estimate"] == pytest.approx(-1 / 12)
    d = {"date": "d", "weights": "w", "summary": summary, "choice_prompt": "choice-v9",
         "sample": {"turns": 2, "dialogues": 2, "excluded": "the 20-dialogue subset of seed 42"}}
    (tmp_path / "choice_layout.json").write_text(json.dumps(d))
    row = next(r for r in mt.block(tmp_path).splitlines() if "bench_choice_layout.py" in r)
    assert "R@1 0.50 → 0.50 (choice − fits +0.00" in row and "MRR 0.75 → 0.67 (-0.08" in row
    assert "tokens evaluated per turn 20 → 3" in row and "prompt `choice-v9`" in row


@pytest.mark.parametrize(("local_mode", "fits", "choice"), [("logprob", "default", "opt-in"),
                                                            ("choice", "opt-in", "default"),
                                                            ("auto", "opt-in", "default")])
def test_choice_rows_name_the_local_presets_default(monkeypatch, local_mode, fits, choice):
    from trace_crs.lm.config import PRESETS
    from trace_crs.report.bench_layout_rows import choice_layout_row, choice_replies_row

    monkeypatch.setitem(PRESETS["local"], "mode", local_mode)  # auto: LLM Zero-Shot's choice layout
    assert f"`fits-v1` fit questions ({fits}) vs `choice` (one shared" in choice_layout_row(None)
    assert f"`logprob` mode ({fits}) vs `choice` ({choice}):" in choice_replies_row(None)
    assert f"card letters; {choice}):" in choice_layout_row(None)


def test_judge_row_shows_a_later_workers_only_recheck():
    recheck = {"date": "2026-12-02", "commit": "abc1234", "workers": {"servers": 2, "records_equal": 3,
                                                                     "records_compared": 3}}
    row = mt.judge_row(JUDGE, recheck=recheck)
    assert "records with 2 servers: 3 of 3 identical; re-checked 2026-12-02 (commit abc1234, `--workers-only`): " \
           "3 of 3 identical with 2 servers" in row
    assert "re-checked" not in mt.judge_row(JUDGE)


def test_committed_results_show_at_most_3_decimals_in_every_cell():
    """The Performance page shows these rows; the book's browser check fails a cell with more than 3 decimals
    (stop 56's CI failed on ``0.0345 ÷ 0.0315 turns/s``), so the rows built from the committed results are held to it."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("trace_browser", Path(__file__).parents[1] / "browser.py")
    checks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checks)
    rows = [line for line in mt.block(Path(__file__).parents[2] / "bench" / "results").splitlines()
            if line.startswith("| ") and "---" not in line]
    assert len(rows) > 5
    cells = [cell.strip() for row in rows for cell in row.strip("|").split(" | ")]
    assert [cell for cell in cells if checks.too_precise(cell)] == []


def test_paper_build_row_reads_busy_wall_in_minutes():
    d = {"profile": "default", "commit": "abc", "machine": "2 cores", "cpu": "Xeon", "conditions": "idle",
         "date": "2026-12-03", "busy_s": 2700.0, "cpu_s": 4500.0, "steps": 135, "failed": 0,
         "lm_calls": {"replayed": 10, "computed": 0}, "make": {"wall_s": 2760.0},
         "slowest_steps": [{"step": "run/closed", "seconds": 600.0}, {"step": "score/x", "seconds": 90.0}]}
    row = mt.paper_build_row(d)
    assert "busy wall **45.0 min**; the whole `make`: 46.0 min wall; CPU 75.0 min" in row  # 2700 s / 60 by hand
    assert "slowest: run/closed 10.0 min, score/x 1.5 min" in row and "replayed 10, computed 0" in row


def test_choice_replies_summary_and_row(tmp_path):
    import pandas as pd

    import bench_choice_replies

    def table(cgs, r1, cited, bare):
        return pd.DataFrame({"dialogue_id": ["a", "b"], "turn_id": [2, 4], "cgs": cgs, "gs": [1.0, 1.0], "recall@1": r1,
                             "mrr": r1, "cited": cited, "bare": bare, "prompt_tokens": [100, 300],
                             "completion_tokens": [40, 60]})

    tables = {"logprob": table([0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]),
              "choice": table([1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 0.0])}
    s = bench_choice_replies.summarize(tables, "logprob", "choice", reps=50)
    # by hand: CGS 0.5 → 1.0, R@1 0.5 → 1.0, citing 0.5 → 1.0, bare 0 → 0.5, reply tokens 50
    assert s["logprob"]["cgs"] == 0.5 and s["choice"]["cgs"] == 1.0 and s["cgs_diff"]["estimate"] == 0.5
    assert s["recall@1_diff"]["estimate"] == 0.5 and s["choice"]["bare"] == 0.5
    assert 0.0 <= s["cgs_diff"]["ci95"][0] <= s["cgs_diff"]["ci95"][1] <= 1.0 and s["n_dialogues"] == 2
    d = {"date": "d", "weights": "w", "summary": s, "choice_prompt": "choice-v9",
         "sample": {"dialogues": 2, "excluded": "the 20-dialogue subset of seed 42"}}
    (tmp_path / "choice_replies.json").write_text(json.dumps(d))
    row = next(r for r in mt.block(tmp_path).splitlines() if "bench_choice_replies.py" in r)
    assert "CGS 0.50 → 1.00 (choice − logprob +0.50" in row and "bare replies (≤ 3 words) 0% → 50%" in row
    assert "prompt `choice-v9`" in row and "2 turns of 2 dialogues" in row
