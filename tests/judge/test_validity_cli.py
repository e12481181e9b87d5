"""`trace-crs judge validity --judge none` on a hand-built development set: the report reads the
judged candidates, chooses on the selection half, copies the chosen records and leaves a
candidate that was not judged visible; judge_all's records do not depend on its workers."""
import json

import pytest

from trace_crs.cli import main
from trace_crs.judge.core import FactorResult
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.records import judged_record


def _arena(path, overall):
    convs = []
    for i, o in enumerate(overall):
        system = "alpha_kg" if i % 2 else "beta_kg"
        convs.append({
            "conv_id": f"{system}_{i:03d}",
            "dialogue": [{"turn_ind": 0, "role": "USER", "utterance": f"any film like number {i}?"},
                         {"turn_ind": 1, "role": "ASST", "utterance": "word " * (i + 1),
                          "turn_level_aggregated": {"relevance": o % 4}}],
            "dial_level_aggregated": {"dialogue_overall": o, "understanding": o % 3},
        })
    path.write_text(json.dumps(convs, indent=1))
    return [c["conv_id"] for c in convs]


def _judged(path, ids, scores):
    with open(path, "w") as fh:
        for cid, s in zip(ids, scores):
            results = {n: FactorResult(n, s, None, 1) for n in FACTORS}
            rec = judged_record(cid, None, results, None, {"judge": "fake", "mode": "logprob"}, {"calls": 12})
            fh.write(json.dumps(rec) + "\n")


@pytest.fixture
def devset(tmp_path):
    overall = [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 2, 1]
    ids = _arena(tmp_path / "arena.json", overall)
    cfg = tmp_path / "cands.yaml"
    cfg.write_text("seed: 42\nn_boot: 50\nchosen: wrong\ncandidates:\n  wrong: [--mode, logprob]\n"
                   "  right: [--mode, logprob]\n  never: [--mode, logprob]\n")
    out = tmp_path / "out"
    out.mkdir()
    _judged(out / "judged_wrong.jsonl", ids, [4 - o for o in overall])      # reversed: rho = -1
    _judged(out / "judged_right.jsonl", ids, [o * 0.75 for o in overall])    # monotone: rho = 1
    return tmp_path, out, overall


def test_report_chooses_on_evidence_and_keeps_every_candidate(devset):
    tmp, out, overall = devset
    assert main(["--quiet", "judge", "validity", "--candidates", str(tmp / "cands.yaml"), "--arena",
                 str(tmp / "arena.json"), "--out", str(out), "--judge", "none"]) == 0
    v = json.loads((out / "validity.json").read_text())
    assert v["chosen"] == "wrong" and v["chosen_by_evidence"] == "right"        # the page shows the mismatch
    assert v["judged"]["never"] is None and not v["all_candidates_judged"]
    rows = {(r["score"], r["half"]): r for r in v["table"] if r["aspect"] == "dialogue_overall"}
    assert rows[("right", "all")]["rho"] == pytest.approx(1.0) and rows[("wrong", "all")]["rho"] == pytest.approx(-1.0)
    assert rows[("right", "all")]["n"] == len(overall)
    assert v["split"]["n_selection"] + v["split"]["n_reporting"] == len(overall)
    assert (out / "chosen.jsonl").read_text() == (out / "judged_wrong.jsonl").read_text()
    import pandas as pd

    frame = pd.read_parquet(out / "scores.parquet")
    assert len(frame) == len(overall) and "score:length floor" in frame


def test_a_chosen_that_is_no_candidate_is_a_data_error(devset):
    tmp, out, _ = devset
    (tmp / "bad.yaml").write_text("chosen: nope\ncandidates:\n  a: [--mode, logprob]\n")
    assert main(["judge", "validity", "--candidates", str(tmp / "bad.yaml"), "--arena", str(tmp / "arena.json"),
                 "--out", str(out), "--judge", "none"]) == 3


def test_judge_all_records_do_not_depend_on_workers(tmp_path):
    import math

    from trace_crs.judge.run import judge_all, settings_of
    from trace_crs.judge.transcript import parse_transcript

    class LM:  # a 1-token logprob answer that depends on the conversation only
        def __call__(self, messages, **kw):
            d = str(len(messages[1]["content"]) % 5)
            top = [{"token": d, "logprob": math.log(0.7)}, {"token": "2", "logprob": math.log(0.2)}]
            return [{"text": d, "logprobs": {"content": [{"token": d, "logprob": math.log(0.7), "top_logprobs": top}]}}]

    ts = [parse_transcript({"dialogue_id": f"d{i}", "turns": [{"role": "user", "text": "x" * i},
                                                              {"role": "assistant", "text": "y"}]}) for i in range(1, 9)]
    lm = LM()
    settings = settings_of({n: "fake" for n in FACTORS} | {"debate": "fake"}, "logprob", "avg", 0, 4)
    one = judge_all(ts, {n: lm for n in FACTORS}, settings, tmp_path / "a.partial", workers=1)
    two = judge_all(ts, {n: lm for n in FACTORS}, settings, tmp_path / "b.partial", workers=3)
    assert one == two and [r["dialogue_id"] for r in two] == [t.dialogue_id for t in ts]
