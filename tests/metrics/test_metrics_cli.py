import json

import pandas as pd
import pytest

from trace_crs.cli import main
from trace_crs.kb.store import dump_jsonl

D1, D2 = "crs_yelp_00001", "crs_yelp_00002"


@pytest.fixture()
def files(tmp_path, dialogues):
    dump_jsonl(dialogues, tmp_path / "dialogues.jsonl")
    preds = [{"dialogue_id": D1, "turn_id": 2, "ranked_poi_ids": ["P1", "P2"], "text": 'P1: "the pasta was fantastic" [R1]'},
             {"dialogue_id": D2, "turn_id": 2, "ranked_poi_ids": ["P2", "P1"], "text": "P2 or P1."}]
    dump_jsonl(preds, tmp_path / "base.jsonl")
    return tmp_path


def test_score_cli_writes_fixed_keys(kb_dir, files, capsys):
    argv = ["score", "--kb", str(kb_dir), "--dialogues", str(files / "dialogues.jsonl"),
            "--predictions", str(files / "base.jsonl"), "--per-turn", str(files / "t.csv")]
    assert main(argv) == 0
    out = files / "base.score.json"
    captured = capsys.readouterr()
    assert captured.out.strip() == str(out)
    # the summary names each metric with its registry label and direction
    assert "recall@1             R@1        ↑ 0.5000" in captured.err and "t2r                  T2R        ↓ 1.0000" in captured.err
    agg = json.loads(out.read_text())
    assert (agg["n_dialogues"], agg["n_turns"], agg["n_missing"]) == (2, 3, 1)
    keys = ("recall@1 recall@3 hit@1 hit@3 mrr mr_recall@1 mr_recall@3 bleu4 rouge_l gs cd pc cgs spatial_coherence "
            "route_km price_alignment itinerary_diversity tsr t2r rejection_recovery").split()
    assert set(keys) <= set(agg["metrics"]) and "entailment" not in agg["metrics"]
    # D1 t2 hits (P1 top-1), D1 t4 missing, D2 t2 compare recommends P2+P1 -> recall@1 = (1 + 0 + 0.5) / 3
    assert agg["metrics"]["recall@1"] == pytest.approx(0.5)
    assert agg["metrics"]["tsr"] == 1.0 and agg["metrics"]["t2r"] == 1.0
    assert len(pd.read_csv(files / "t.csv")) == 3
    assert len(pd.read_parquet(files / "base.score.per_dialogue.parquet")) == 2
    first = out.read_bytes()
    assert main(argv + ["--out", str(files / "again.json")]) == 0
    assert (files / "again.json").read_bytes() == first  # deterministic


def test_score_cli_errors(kb_dir, files, capsys):
    base = ["score", "--kb", str(kb_dir), "--dialogues", str(files / "dialogues.jsonl")]
    # exit 3: the data is wrong (a missing turn under --strict, an invalid record); 2: usage
    assert main(base + ["--predictions", str(files / "base.jsonl"), "--strict"]) == 3
    assert "no prediction" in capsys.readouterr().err
    (files / "bad.jsonl").write_text('{"dialogue_id": "crs_yelp_00001", "turn_id": 2, "ranked_poi_ids": ["X"], "text": ""}\n')
    assert main(base + ["--predictions", str(files / "bad.jsonl")]) == 3
    assert "bad.jsonl:1: field 'ranked_poi_ids'" in capsys.readouterr().err
    assert main(base + ["--predictions", str(files / "nope.jsonl")]) == 2
    assert main(base + ["--predictions", str(files / "base.jsonl"), "--entailment", "bogus"]) == 2


def test_score_reads_the_score_section_of_a_run_config(kb_dir, files, capsys):
    """configs/<profile>/<run>.yaml is read directly: defaults < score: section < its set: list <
    --set < explicit flags; an unknown key is a usage error (exit 2)."""
    cfg = files / "run.yaml"
    cfg.write_text("run: r\nevaluate:\n  pool: closed\nscore:\n  pool: closed\n  fuzzy_threshold: 0.9\n"
                   "  set:\n    - cd_gate=0.1\n")
    base = ["score", "--kb", str(kb_dir), "--dialogues", str(files / "dialogues.jsonl"),
            "--predictions", str(files / "base.jsonl"), "--config", str(cfg)]
    assert main(base + ["--out", str(files / "a.json")]) == 0
    config = json.loads((files / "a.json").read_text())["config"]
    assert (config["fuzzy_threshold"], config["cd_gate"], config["pc_window"]) == (0.9, 0.1, 80)
    assert main(base + ["--set", "cd_gate=0.2", "--fuzzy-threshold", "0.7", "--out", str(files / "b.json")]) == 0
    config = json.loads((files / "b.json").read_text())["config"]
    assert (config["fuzzy_threshold"], config["cd_gate"]) == (0.7, 0.2)
    cfg.write_text("score:\n  fuzzy_treshold: 0.9\n")
    assert main(base + ["--out", str(files / "c.json")]) == 2
    assert "fuzzy_treshold" in capsys.readouterr().err
