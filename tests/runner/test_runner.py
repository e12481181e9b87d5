"""The evaluation runner: records, predictions, manifest, resume, workers, fallbacks, CLI."""
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from tinykb import DIALOGUES, RESTAURANTS, dialogue

from trace_crs.baselines.tfidf import TfidfBaseline
from trace_crs.cli import main
from trace_crs.dialogues.schema import DialogueFormatError
from trace_crs.kb.store import dump_jsonl, sha256_file
from trace_crs.runner.run import RunConfig, evaluate
from trace_crs.dialogues.subset import select_subset
from trace_crs.runner.tasks import load_evaluated, shuffled_pool

FAST = "popularity,tfidf,knowledge"


def run(inputs, out, baselines=FAST, workers=1, **kw):
    cfg = RunConfig(kb=inputs[0], dialogues=inputs[1], baselines=baselines, chunk_size=1, **kw)
    return evaluate(cfg, out, workers=workers, clock=lambda: 0.0, progress=False)


def test_records_predictions_manifest(inputs, tmp_path):
    out = tmp_path / "run"
    manifest = run(inputs, out)
    table = pq.read_table(out / "records.parquet")
    assert table.num_rows == 3 * 2 * 3 == manifest["n_records"]   # dialogues × rec turns × baselines
    rows = table.to_pylist()
    keys = [(r["dialogue_id"], r["turn_id"], r["baseline"]) for r in rows]
    assert keys == sorted(keys) and keys[0] == ("crs_test_00001", 4, "knowledge")
    assert {r["turn_id"] for r in rows} == {4, 6} and all(r["pool"] == "closed" for r in rows)
    assert all(sorted(r["ranked_poi_ids"]) == RESTAURANTS and not r["fallback"] for r in rows)
    preds = [json.loads(x) for x in (out / "predictions" / "tfidf.jsonl").read_text().splitlines()]
    assert [(p["dialogue_id"], p["turn_id"]) for p in preds] == [(d["dialogue_id"], t) for d in DIALOGUES for t in (4, 6)]
    assert set(preds[0]) == {"dialogue_id", "turn_id", "ranked_poi_ids", "text", "citations"}
    assert all(set(c) == {"label", "review_id"} for p in preds for c in p["citations"])
    for rel, sha in manifest["outputs"].items():
        assert sha256_file(out / rel) == sha
    assert manifest["inputs"]["dialogues"] == sha256_file(inputs[1])
    assert manifest["counts"]["tfidf"] == {"records": 6, "fallbacks": 0}
    assert json.loads((out / "MANIFEST.json").read_text()) == manifest


def test_kill_and_resume_gives_identical_records(inputs, tmp_path):
    ref, cut = tmp_path / "ref", tmp_path / "cut"
    run(inputs, ref)
    run(inputs, cut)
    # simulate a kill: some chunks never written, a half-written temp file, no consolidation yet
    (cut / "records" / "tfidf" / "00002.parquet").unlink()
    (cut / "records" / "knowledge" / "00000.parquet").unlink()
    (cut / "records" / "knowledge" / ".00001.parquet.123.tmp").write_bytes(b"PAR1 truncated")
    (cut / "records.parquet").unlink()
    for p in (cut / "predictions").iterdir():
        p.unlink()
    kept = cut / "records" / "popularity" / "00001.parquet"
    before = kept.stat().st_mtime_ns
    run(inputs, cut)
    assert kept.stat().st_mtime_ns == before                       # done chunks are skipped
    assert (cut / "records.parquet").read_bytes() == (ref / "records.parquet").read_bytes()
    for name in FAST.split(","):
        assert (cut / "predictions" / f"{name}.jsonl").read_bytes() == (ref / "predictions" / f"{name}.jsonl").read_bytes()


def test_other_config_into_same_dir_is_refused(inputs, tmp_path):
    run(inputs, tmp_path / "run")
    with pytest.raises(ValueError, match="different configuration"):
        run(inputs, tmp_path / "run", seed=7)


def test_two_workers_match_serial_except_latency(inputs, tmp_path):
    # persona learns from the whole corpus (see_corpus): the workers must get the parent's prior
    run(inputs, tmp_path / "a", baselines="popularity,tfidf,spatial,persona")
    cfg = RunConfig(kb=inputs[0], dialogues=inputs[1], baselines="popularity,tfidf,spatial,persona", chunk_size=1)
    evaluate(cfg, tmp_path / "b", workers=2, progress=False)
    a = pq.read_table(tmp_path / "a" / "records.parquet").drop(["latency_s"])
    b = pq.read_table(tmp_path / "b" / "records.parquet").drop(["latency_s"])
    assert a.equals(b)


def test_failure_becomes_recorded_fallback(inputs, tmp_path, monkeypatch):
    def boom(self, ctx):
        raise RuntimeError("index exploded")
    monkeypatch.setattr(TfidfBaseline, "predict", boom)
    manifest = run(inputs, tmp_path / "run", baselines="popularity,tfidf")
    rows = pq.read_table(tmp_path / "run" / "records.parquet").to_pylist()
    tf = [r for r in rows if r["baseline"] == "tfidf"]
    pop = [r for r in rows if r["baseline"] == "popularity"]
    assert all(r["fallback"] and r["error"] == "RuntimeError: index exploded" for r in tf)
    assert [r["ranked_poi_ids"] for r in tf] == [r["ranked_poi_ids"] for r in pop]
    assert manifest["counts"]["tfidf"]["fallbacks"] == 6


def test_shuffle_is_a_seeded_permutation():
    d = DIALOGUES[0]
    one, again = shuffled_pool(d, "closed", 42), shuffled_pool(d, "closed", 42)
    assert one == again and sorted(one) == RESTAURANTS
    assert len({shuffled_pool(d, "closed", s) for s in range(10)}) > 1
    with pytest.raises(ValueError, match="unknown pool"):
        shuffled_pool(d, "64", 42)


def test_subset_is_seeded_and_keeps_file_order():
    items = [dialogue(f"crs_test_{i:05d}", ["a", "b", "c"], ["r1", "r2"]) for i in range(10)]
    sub = select_subset(items, 4, 42)
    ids = [d["dialogue_id"] for d in sub]
    assert len(ids) == 4 and ids == sorted(ids) and sub == select_subset(items, 4, 42)
    assert select_subset(items, None, 42) == items and select_subset(items, 99, 1) == items
    assert select_subset([], 3, 42) == []
    with pytest.raises(ValueError):
        select_subset(items, 0, 42)


def test_only_the_evaluated_dialogues_are_validated(tmp_path):
    items = [dialogue(f"crs_test_{i:05d}", ["a", "b", "c"], ["r1", "r2"]) for i in range(5)]
    left_out = next(i for i, d in enumerate(items) if d not in select_subset(items, 4, 42))
    path = tmp_path / "d.jsonl"
    dump_jsonl([dict(d, split="nope") if i == left_out else d for i, d in enumerate(items)], path)
    assert load_evaluated(path, 4, 42) == select_subset(items, 4, 42)   # the invalid one is not evaluated
    with pytest.raises(DialogueFormatError, match=rf"d.jsonl:{left_out + 1}: .*field 'split'"):
        load_evaluated(path, None, 42)


def test_cli_evaluate(inputs, tmp_path, capsys):
    out = tmp_path / "cli"
    code = main(["evaluate", "--kb", inputs[0], "--dialogues", inputs[1], "--baselines", "popularity",
                 "--pool", "16", "--workers", "1", "--quiet", "--out", str(out)])
    assert code == 0 and json.loads(capsys.readouterr().out)["n_records"] == 6
    assert pq.read_table(out / "records.parquet").column("pool").to_pylist() == ["16"] * 6
    assert main(["evaluate", "--kb", str(tmp_path / "none"), "--dialogues", inputs[1], "--out", str(out)]) == 2
    assert "not found" in capsys.readouterr().err
    assert main(["evaluate", "--kb", inputs[0], "--dialogues", inputs[1], "--baselines", "bogus",
                 "--out", str(tmp_path / "x")]) == 2


def test_bad_dialogue_line_names_file_and_line(inputs, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(DIALOGUES[0]) + "\n{not json\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:2"):
        evaluate(RunConfig(kb=inputs[0], dialogues=str(bad), baselines="popularity"), tmp_path / "r",
                 workers=1, progress=False)




def test_workers_use_a_fixed_mmap_threshold():
    import platform

    from trace_crs.runner.execute import fixed_mmap_threshold

    assert fixed_mmap_threshold() is (platform.libc_ver()[0] == "glibc")
