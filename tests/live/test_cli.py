"""``trace-crs converse`` end to end on the synthetic world: outputs, byte-identical re-runs,
resume, and refusals."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from trace_crs.cli import main
from trace_crs.dialogues.schema import check_dialogue
from trace_crs.kb.store import iter_jsonl


def run(kb_dir, dialogues, out, *extra):
    return main(["--quiet", "converse", "--kb", kb_dir, "--dialogues", dialogues, "--baselines", "popularity,tfidf",
                 "--subset", "12", "--max-turns", "3", "--out", str(out), *extra])


def files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_converse_end_to_end(world_files, tmp_path, capsys):
    kb_dir, dialogues = world_files
    assert run(kb_dir, dialogues, tmp_path / "a") == 0
    summary = json.loads(capsys.readouterr().out)
    out = tmp_path / "a"
    scores = json.loads((out / "live_scores.json").read_text())
    assert set(scores["baselines"]) == {"popularity", "tfidf"} and scores["config"]["max_turns"] == 3
    for name in ("popularity", "tfidf"):
        transcripts = [r for _, r in iter_jsonl(out / "transcripts" / f"{name}.jsonl")]
        assert len(transcripts) == 12
        for t in transcripts:
            check_dialogue(t)
            assert sum(x["role"] == "system" for x in t["turns"]) <= 3
        outcomes = pd.read_parquet(out / "outcomes" / f"{name}.parquet")
        m = scores["baselines"][name]["metrics"]
        assert m["tsr"] == outcomes["tsr"].mean() == summary["baselines"][name]["tsr"]
        assert 1 <= m["t2r"] <= 4
    table = pd.read_parquet(out / "live_scores.parquet")
    assert len(table) == 24 and {"tsr", "t2r", "cgs", "baseline"} <= set(table.columns)
    # same inputs → byte-identical outputs
    assert run(kb_dir, dialogues, tmp_path / "b") == 0
    assert files(out) == files(tmp_path / "b")


def test_converse_resumes_per_baseline(world_files, tmp_path):
    kb_dir, dialogues = world_files
    out = tmp_path / "r"
    assert run(kb_dir, dialogues, out) == 0
    before = files(out)
    (out / "outcomes" / "tfidf.parquet").unlink()
    mtime = (out / "outcomes" / "popularity.parquet").stat().st_mtime_ns
    assert run(kb_dir, dialogues, out) == 0  # tfidf is redone, popularity (finished) is not
    assert (out / "outcomes" / "popularity.parquet").stat().st_mtime_ns == mtime
    assert files(out) == before
    # a different configuration in the same directory is refused
    assert run(kb_dir, dialogues, out, "--seed", "7") == 2


def test_converse_refuses_bad_usage(world_files, tmp_path, capsys):
    kb_dir, dialogues = world_files
    assert run(kb_dir, dialogues, kb_dir) == 2
    assert "would overwrite the input" in capsys.readouterr().err
    assert run(kb_dir, dialogues, Path(dialogues)) == 2
    assert run(kb_dir, dialogues, tmp_path / "m", "--set", "max_turns=0") == 2
    assert "max_turns" in capsys.readouterr().err
    assert run(kb_dir, dialogues, tmp_path / "m", "--set", "simulator=gpt") == 2
    assert "simulator" in capsys.readouterr().err
    assert run(kb_dir, str(tmp_path / "missing.jsonl"), tmp_path / "x") == 2
    assert not (tmp_path / "m").exists()


def test_a_preference_the_simulator_cannot_state_is_a_data_error(world, tmp_path, capsys):
    from trace_crs.kb.store import dump_jsonl, write_kb
    kb, dialogues, (pois, reviews) = world
    bad = json.loads(json.dumps(dialogues[0]))
    bad["scenario"]["hidden_preferences"]["price_max"] = 4  # the price words stop at 3
    write_kb(pois, reviews, tmp_path / "kb", {"source": "test"})
    dump_jsonl([bad], tmp_path / "d.jsonl")
    assert main(["converse", "--kb", str(tmp_path / "kb"), "--dialogues", str(tmp_path / "d.jsonl"),
                 "--baselines", "popularity", "--out", str(tmp_path / "o")]) == 3
    err = capsys.readouterr().err
    assert bad["dialogue_id"] in err and "price_max=4" in err and "d.jsonl" in err
    assert not (tmp_path / "o" / "config.yaml").exists()


def test_a_run_config_evaluate_section_configures_the_live_run(world_files, tmp_path, capsys):
    kb_dir, dialogues = world_files
    cfg = tmp_path / "closed.yaml"
    cfg.write_text("run: closed\nweights: x\nevaluate:\n  baselines: popularity\n  pool: closed\n  subset: 3\n"
                   "  seed: 42\nscore:\n  pool: closed\n")
    out = tmp_path / "o"
    assert main(["--quiet", "converse", "--config", str(cfg), "--kb", kb_dir, "--dialogues", dialogues,
                 "--out", str(out)]) == 0
    scores = json.loads((out / "live_scores.json").read_text())
    assert list(scores["baselines"]) == ["popularity"] and scores["baselines"]["popularity"]["n_dialogues"] == 3
