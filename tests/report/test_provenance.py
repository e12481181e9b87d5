import json

import pandas as pd
import yaml

from trace_crs.kb.store import sha256_file
from trace_crs.lm.weights import WEIGHTS
from trace_crs.report import provenance


def test_signature_fields():
    assert provenance.signature_fields("trace|v:0.1.0|kb:1a2b3c4d|pool:8|nli:none|seed:42") == {
        "v": "0.1.0", "kb": "1a2b3c4d", "pool": "8", "nli": "none", "seed": "42"}
    assert provenance.signature_fields("") == {}


def test_runs_reads_lm_identity_from_config_and_records(tmp_path, scores):
    scores(tmp_path, "closed_llm", "llm_zero_shot", {"recall@1": 0.5}, n_dialogues=4, n_turns=9)
    run = tmp_path / "runs" / "closed_llm"
    run.mkdir(parents=True)
    name = sorted(WEIGHTS)[0]
    (run / "config.yaml").write_text(yaml.safe_dump({"lm": {"model": "local", "weights": name}}))
    pd.DataFrame({"model": ["m-a", "m-a", None], "latency_s": [0.5, 1.25, 0.0]}).to_parquet(
        run / "records.parquet")
    row = provenance.runs(tmp_path, ["closed_llm"]).iloc[0]
    assert (row["n_dialogues"], row["n_turns"], row["pool"], row["nli"]) == (4, 9, "8", "none")
    assert row["weights_sha256"] == WEIGHTS[name].sha256
    assert row["models_in_records"] == "m-a" and row["summed_latency_s"] == "1.8"


def test_runs_without_run_directory_say_not_recorded(tmp_path, scores):
    scores(tmp_path, "closed", "tfidf", {"recall@1": 0.5})
    row = provenance.runs(tmp_path, ["closed"]).iloc[0]
    assert row["lm_model"] == row["weights_sha256"] == row["models_in_records"] == "not recorded"


def test_inputs_hashes(tmp_path):
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "pois.jsonl").write_text("{}\n")
    (kb / "reviews.jsonl").write_text("")
    empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"  # sha256 of b""
    (kb / "MANIFEST.json").write_text(json.dumps({"files": {"pois.jsonl": {"sha256": "x"},
                                                            "reviews.jsonl": {"sha256": empty}}}))
    corpus = tmp_path / "d.jsonl"
    corpus.write_text("")
    out = provenance.inputs(kb, corpus)
    assert out["kb/reviews.jsonl"] == empty and out["dialogues"] == empty
    assert out["kb/pois.jsonl"].endswith("(manifest says x)")
    assert out["kb/pois.jsonl"].startswith(sha256_file(kb / "pois.jsonl"))
    shown = provenance.inputs_section(kb, corpus)
    assert shown.body.data["file"].tolist() == ["kb/pois.jsonl", "kb/reviews.jsonl", "dialogues"]
    assert shown.body.data["sha256"].iloc[2] == empty and provenance.INPUTS_CAPTION in shown._repr_html_()
    assert shown._repr_html_().startswith("<details")   # collapsed: one click opens it


def test_timings_lists_every_recorded_step_sorted(tmp_path):
    timings_dir = tmp_path / "timings"
    timings_dir.mkdir()
    (timings_dir / "run-closed.json").write_text(
        '{"finished": "2026-11-23T13:00:00+00:00", "returncode": 0, "seconds": 87.5, "step": "run/closed"}\n')
    (timings_dir / "notebook-t05.json").write_text(
        '{"finished": "2026-11-23T13:05:00+00:00", "returncode": 0, "seconds": 12.0, "step": "notebook/t05"}\n')
    df = provenance.timings(tmp_path)
    assert df["step"].tolist() == ["notebook/t05", "run/closed"]
    assert df["seconds"].tolist() == [12.0, 87.5]
    assert df["attempts"].tolist() == [1, 1] and df["earlier_s"].tolist() == [0.0, 0.0]
    assert provenance.timings(tmp_path / "absent").empty
    (timings_dir / "run-closed.json").write_text(
        '{"finished": "2026-11-23T13:00:00+00:00", "returncode": 0, "seconds": 87.5, "step": "run/closed", '
        '"build": "b2", "earlier_attempts": [{"seconds": 30.0, "finished": "2026-11-23T12:00:00+00:00", '
        '"returncode": null, "build": "b1"}, {"seconds": 2.5, "finished": "2026-11-23T12:30:00+00:00", '
        '"returncode": 1, "build": "b2"}]}\n')
    row = provenance.timings(tmp_path).set_index("step").loc["run/closed"]
    assert row["attempts"] == 3 and row["earlier_s"] == 32.5 and row["build"] == "b2"


def test_section_is_runs_with_its_caption(tmp_path, scores):
    scores(tmp_path, "closed", "tfidf", {"recall@1": 0.5})
    shown = provenance.section(tmp_path, ["closed"])
    runs = provenance.runs(tmp_path, ["closed"])
    assert shown.body.data.to_numpy().tolist() == runs.to_numpy().tolist()   # one run: nothing lifted
    assert provenance.SECTION_CAPTION in shown._repr_html_() and shown._repr_html_().startswith("<details")
