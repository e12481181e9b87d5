"""``trace-crs stats abstention-llm`` end to end: LLM Zero-Shot through the real LM backend against
the fake OpenAI-compatible server, which declines everything: recall 1, false-abstention rate 1,
precision = unsolvable / all items; a config without LLM baselines is a usage error."""
from __future__ import annotations

import json

import dspy
import pandas as pd
import pytest

from trace_crs.cli import main
from trace_crs.dialogues.generate import generate_simulated
from trace_crs.dialogues.unsolvable import build_unsolvable
from trace_crs.kb.store import KB, dump_jsonl, write_kb
from trace_crs.kb.synthetic import build_synthetic
from trace_crs.lm.fake_server import serve

DECLINE = '[[ ## ranked_ids ## ]]\n["[Unsolved]"]\n\n[[ ## response ## ]]\n[Unsolved] Not possible.\n\n[[ ## completed ## ]]'


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("abst_llm")
    pois, reviews, _ = build_synthetic(per_cell=12, seed=42)
    kb = KB({p.business_id: p for p in pois}, {r.review_id: r for r in reviews})
    dialogues = generate_simulated(kb, 10, seed=42)
    write_kb(pois, reviews, root / "kb", {"source": "test"})
    dump_jsonl(dialogues, root / "d.jsonl")
    dump_jsonl(build_unsolvable(kb, dialogues, 5, seed=42), root / "u.jsonl")
    return root


def config(root, baselines, url):
    path = root / f"{baselines}.yaml"
    path.write_text(json.dumps({"evaluate": {"baselines": baselines, "set": [
        "lm.model=openai/fake", f"lm.api_base={url}", "lm.retries=0", "lm.mode=generative",
        f"lm.cache_dir={root / 'lm'}"]}}))
    return path


def run(root, cfg, out):
    return main(["--quiet", "stats", "abstention-llm", "--config", str(cfg), "--kb", str(root / "kb"),
                 "--dialogues", str(root / "d.jsonl"), "--unsolvable", str(root / "u.jsonl"),
                 "--n-solvable", "3", "--out", str(out)])


def test_declining_everything(files, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    with serve(reply=lambda messages: DECLINE) as srv:
        assert run(files, config(tmp_path, "llm_zero_shot", srv.api_base), tmp_path / "out") == 0
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)
    [row] = pd.read_csv(tmp_path / "out" / "llm_abstention.csv").to_dict("records")
    assert (row["tp"], row["fp"], row["fn"], row["n_unsolvable"], row["n_solvable"]) == (5, 3, 0, 5, 3)
    assert row["recall"] == 1.0 and row["false_abstention_rate"] == 1.0 and row["precision"] == pytest.approx(5 / 8)
    decisions = pd.read_parquet(tmp_path / "out" / "llm_decisions.parquet")
    assert decisions["declined"].all() and not decisions["fallback"].any() and len(decisions) == 8


def test_no_llm_baseline_is_a_usage_error(files, tmp_path):
    assert run(files, config(tmp_path, "tfidf", "http://127.0.0.1:9"), tmp_path / "out") == 2
