"""trace-crs stats abstention end to end on the tiny KB (TravelBench's abstention, seed 003)."""
import pandas as pd

from trace_crs.cli import main
from trace_crs.dialogues.generate import generate_simulated
from trace_crs.kb.store import dump_jsonl


def test_stats_abstention_cli(tmp_path, tiny_kb, tiny_kb_dir):
    tiny_corpus_file = tmp_path / "d.jsonl"
    dump_jsonl(generate_simulated(tiny_kb, 12, seed=42), tiny_corpus_file)
    unsolvable = tmp_path / "u.jsonl"
    assert main(["dialogues", "unsolvable", str(tiny_corpus_file), "--kb", str(tiny_kb_dir), "--n", "8",
                 "--out", str(unsolvable)]) == 0
    out = tmp_path / "abst"
    argv = ["stats", "abstention", "--kb", str(tiny_kb_dir), "--dialogues", str(tiny_corpus_file),
            "--unsolvable", str(unsolvable), "--n-solvable", "6", "--out", str(out)]
    assert main(argv) == 0
    sweep, conf = pd.read_csv(out / "tau_sweep.csv"), pd.read_parquet(out / "confidence.parquet")
    assert set(sweep["baseline"]) == {"tfidf", "spatial"} and (sweep["n_solvable"] == 6).all()
    assert len(conf) == 2 * (8 + 6) and set(conf["reason"]) >= {"solvable"}
    # the largest tau declines every finite score: recall 1 wherever an unsolvable item exists
    last = sweep.sort_values("tau").groupby("baseline").tail(1)
    assert (last["recall"] == 1.0).all() and (last["false_abstention_rate"] == 1.0).all()
    first = (out / "tau_sweep.csv").read_bytes()
    assert main(argv) == 0 and (out / "tau_sweep.csv").read_bytes() == first   # deterministic
    before = tiny_corpus_file.read_bytes()
    assert main(argv[:-1] + [str(tiny_corpus_file)]) == 2                       # never over an input
    assert tiny_corpus_file.read_bytes() == before
