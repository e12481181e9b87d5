"""Choosing each factor's judge by QWK against human labels (CoRE §7.2), and the mixture table
it writes, on hand-built labels: judge A agrees with the humans on some factors, B on others."""
from __future__ import annotations

import json
import math

import pytest
import yaml

from trace_crs.cli import main
from trace_crs.judge.aggregate import load_mixture
from trace_crs.judge.factors import FACTORS

HUMAN = [0, 1, 2, 3, 4, 2]          # six dialogues
A_GOOD = {"coherence", "novelty"}   # A copies the humans on these, else rates 4 - label
CONSTANT = "diversity"              # everyone (humans too) says 2: QWK undefined


def ratings(copy: set[str], flip: int) -> list[dict[str, int]]:
    out = []
    for h in HUMAN:
        out.append({f: (2 if f == CONSTANT else h if f in copy else (h + flip) % 5) for f in FACTORS})
    return out


def write(path, rows, judge=None):
    lines = []
    for i, factors in enumerate(rows):
        rec = {"dialogue_id": f"d{i}", "factors": factors}
        if judge:
            rec |= {"judge": judge, "system": "s", "core_avg": 2.0, "usage": {}}
        else:
            rec["overall"] = 3
        lines.append(json.dumps(rec))
    path.write_text("\n".join(lines) + "\n")


def test_select_by_qwk_and_write_mixture(tmp_path):
    human = tmp_path / "human.jsonl"
    write(human, [{f: (2 if f == CONSTANT else h) for f in FACTORS} for h in HUMAN])
    write(tmp_path / "a.jsonl", ratings(A_GOOD, 1), judge="openai/model-a")
    write(tmp_path / "b.jsonl", ratings(set(FACTORS) - A_GOOD, 2), judge="openai/model-b")
    out, mix = tmp_path / "agree.json", tmp_path / "mixture.yaml"
    assert main(["--quiet", "judge", "agree", "--pred", str(tmp_path / "a.jsonl"), "--human", str(human),
                 "--select", str(tmp_path / "b.jsonl"), "--mixture-out", str(mix), "--out", str(out)]) == 0
    rows = {r["factor"]: r for r in json.loads(out.read_text())["selection"]}
    for f in FACTORS:
        if f == CONSTANT:   # undefined everywhere: the first candidate, flagged
            assert rows[f]["judge"] == "a" and rows[f]["qwk"] is None and rows[f]["defined"] is False
        else:               # the copying judge agrees perfectly: QWK 1
            assert rows[f]["judge"] == ("a" if f in A_GOOD else "b") and rows[f]["qwk"] == 1.0 and rows[f]["n"] == 6
    judges, choice = load_mixture(mix)
    assert judges == {"a": {"model": "openai/model-a"}, "b": {"model": "openai/model-b"}}
    assert choice["novelty"] == "a" and choice["groundness"] == "b"
    assert yaml.safe_load(mix.read_text())["qwk"][CONSTANT] is None
    assert not math.isnan(rows["coherence"]["qwk_b"])


def test_select_needs_human_labels(tmp_path):
    write(tmp_path / "a.jsonl", ratings(A_GOOD, 1), judge="m")
    assert main(["--quiet", "judge", "agree", "--pred", str(tmp_path / "a.jsonl"),
                 "--select", str(tmp_path / "a.jsonl")]) == 2


def test_coupling_matrix_hand_worked():
    import pandas as pd
    from trace_crs.judge.agree import coupling, coupling_matrix
    base = {f: [2, 2, 2, 2] for f in FACTORS}                 # constant: undefined
    base |= {"coherence": [0, 1, 2, 3], "novelty": [0, 1, 2, 3], "diversity": [3, 2, 1, 0], "naturalness": [0, 1, 3, 2]}
    m = coupling_matrix(pd.DataFrame(base)).set_index("factor")
    assert m.loc["coherence", "novelty"] == 1.0 and m.loc["novelty", "diversity"] == -1.0
    assert m.loc["coherence", "naturalness"] == pytest.approx(4 / 6)     # 5 concordant, 1 discordant of 6 pairs
    assert m.loc["diversity", "coherence"] == m.loc["coherence", "diversity"] and m.loc["groundness", "groundness"] == 1.0
    assert math.isnan(m.loc["coherence", "groundness"])
    c = coupling(pd.DataFrame(base))
    assert c["n_pairs"] == 6 and c["mean_abs_tau_b"] == pytest.approx((1 + 1 + 1 + 4 / 6 * 3) / 6)


def test_transcript_recall_and_table7_row():
    import pandas as pd
    from trace_crs.judge.agree import overall_agreement
    from trace_crs.judge.transcript import Transcript
    t = Transcript(dialogue_id="d", turns=[{"role": "user", "text": "hi"},
                                           {"role": "assistant", "text": "A or B", "items": ["A", "B"]},
                                           {"role": "assistant", "text": "C", "items": ["C", "A"]}],
                   ground_truth=["A", "D"])
    assert t.recall == 0.5 and Transcript(dialogue_id="e", turns=[{"role": "user", "text": "x"},
                                                                          {"role": "assistant", "text": "y"}]).recall is None
    judge = pd.DataFrame({"dialogue_id": list("abcde"), "overall": [1, 2, 3, 4, 0], "debate": [10, 20, 30, 40, 0],
                          "recall": [0.0, 0.5, 0.5, 1.0, 0.0]})
    human = pd.DataFrame({"dialogue_id": list("abcde"), "overall": [1, 2, 3, 4, 0]})
    rows = overall_agreement(judge, human).set_index("score")
    assert list(rows.index) == ["core_avg", "debate", "recall"] and rows.loc["core_avg", "spearman"] == pytest.approx(1.0)
    assert rows.loc["recall", "n"] == 5 and 0 < rows.loc["recall", "spearman"] < 1
    assert "recall" not in overall_agreement(judge.assign(recall=float("nan")), human)["score"].tolist()


def test_mixture_and_agreement_are_one_commit(tmp_path, monkeypatch):
    """A failure while the agreement JSON is made leaves no mixture table either (cli.judge_agree)."""
    from trace_crs.cli import judge_agree

    human = tmp_path / "human.jsonl"
    write(human, [{f: (2 if f == CONSTANT else h) for f in FACTORS} for h in HUMAN])
    write(tmp_path / "a.jsonl", ratings(A_GOOD, 1), judge="openai/model-a")
    write(tmp_path / "b.jsonl", ratings(set(FACTORS) - A_GOOD, 2), judge="openai/model-b")
    out, mix = tmp_path / "agree.json", tmp_path / "mixture.yaml"

    def broken(value):  # noqa: ANN001, ANN202
        raise OSError("disk full")

    monkeypatch.setattr(judge_agree, "_plain", broken)
    assert main(["--quiet", "judge", "agree", "--pred", str(tmp_path / "a.jsonl"), "--human", str(human),
                 "--select", str(tmp_path / "b.jsonl"), "--mixture-out", str(mix), "--out", str(out)]) == 2
    assert not mix.exists() and not out.exists()
