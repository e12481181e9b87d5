"""Hostile calls to the Python API (trace_crs.api) and hostile counts on the command line: the
API checks what the CLI checks (overlapping out, unknown or mistyped keyword arguments, empty
inputs), counts are bounded (trace_crs.cli.COUNT_BOUNDS); inputs stay byte-identical."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "baselines"))
from hostile import tree_hash  # noqa: E402
from tinykb import DIALOGUES, tiny_kb  # noqa: E402

import trace_crs  # noqa: E402
from trace_crs.cli import main  # noqa: E402
from trace_crs.errors import UsageError  # noqa: E402
from trace_crs.kb.store import dump_jsonl  # noqa: E402


@pytest.fixture()
def data(tmp_path):
    tiny_kb(tmp_path / "kb")
    dump_jsonl(DIALOGUES, tmp_path / "d" / "dialogues.jsonl")
    return tmp_path


@pytest.mark.parametrize("out", ["kb", "kb/run", "d/dialogues.jsonl", "d", "."])
def test_api_evaluate_refuses_an_out_overlapping_an_input(data, out):
    before = tree_hash(data)
    with pytest.raises(UsageError, match="would overwrite the input"):
        trace_crs.evaluate(data / "kb", data / "d" / "dialogues.jsonl", data / out, baselines="popularity")
    assert tree_hash(data) == before


@pytest.mark.parametrize("kwargs,message", [
    ({"pol": "closed"}, "unknown key"), ({"subset": 0}, "subset"), ({"seed": -1}, "seed"),
    ({"subset": "two"}, "expected an integer"), ({"chunk_size": 2.5}, "expected an integer"),
    ({"pool": "closd"}, "pool"), ({"max_cost_usd": -1.0}, "max_cost_usd"), ({"executor": "gpu"}, "executor"),
])
def test_api_evaluate_bad_keywords(data, kwargs, message):
    before = tree_hash(data)
    with pytest.raises(UsageError, match=message):
        trace_crs.evaluate(data / "kb", data / "d" / "dialogues.jsonl", data / "run", baselines="popularity", **kwargs)
    assert tree_hash(data) == before and not (data / "run" / "records.parquet").exists()


@pytest.mark.parametrize("kwargs,message", [
    ({"strict": "no"}, "expected true/false"), ({"strict": 1}, "expected true/false"),
    ({"fuzzy_threshold": float("nan")}, "expected a number"), ({"fuzzy_threshold": 2.0}, "fuzzy_threshold"),
    ({"fuzzy_treshold": 0.8}, "unknown key"), ({"pc_window": -5}, "pc_window"), ({"cd_gate": "high"}, "expected a number"),
    ({"judge_n": 1.5}, "expected an integer"), ({"spatial_km": 0}, "spatial_km"), ({"citation": "x"}, "unknown key"),
])
def test_api_score_bad_keywords(data, kwargs, message):
    with pytest.raises(UsageError, match=message):
        trace_crs.score(data / "kb", data / "d" / "dialogues.jsonl", [], **kwargs)


@pytest.mark.parametrize("dialogues,preds,message", [
    ([], [{"dialogue_id": "x"}], "no dialogues"),
    (None, [], "predictions is empty"),
    (None, iter(()), "predictions is empty"),
])
def test_api_score_empty_inputs(data, dialogues, preds, message):
    with pytest.raises(UsageError, match=message):
        trace_crs.score(data / "kb", data / "d" / "dialogues.jsonl" if dialogues is None else dialogues, preds)


COUNTS = [
    ("dialogues generate --kb {w}/kb --n -4 --out {w}/o.jsonl", "--n -4"),
    ("dialogues generate --kb {w}/kb --n 0 --out {w}/o.jsonl", "--n 0"),
    ("dialogues generate --kb {w}/kb --n 5 --seed -1 --out {w}/o.jsonl", "--seed -1"),
    ("dialogues generate --kb {w}/kb --n 99999999 --out {w}/o.jsonl", "--n 99999999"),
    ("kb build --per-cell 1000000 --out {w}/newkb", "--per-cell 1000000"),
    ("kb build --per-cell 0 --out {w}/newkb", "--per-cell 0"),
    ("kb build --per-cell -3 --out {w}/newkb", "--per-cell -3"),
    ("dialogues unsolvable --dialogues {w}/d/dialogues.jsonl --kb {w}/kb --n -1 --out {w}/u.jsonl", "--n -1"),
    ("evaluate --kb {w}/kb --dialogues {w}/d/dialogues.jsonl --subset 0 --out {w}/run", "--subset 0"),
    ("evaluate --kb {w}/kb --dialogues {w}/d/dialogues.jsonl --workers 0 --out {w}/run", "--workers 0"),
    ("evaluate --kb {w}/kb --dialogues {w}/d/dialogues.jsonl --chunk-size -2 --out {w}/run", "--chunk-size -2"),
    ("score --kb {w}/kb --dialogues {w}/d/dialogues.jsonl --predictions {w}/d/dialogues.jsonl --judge-n -1 "
     "--out {w}/s.json", "--judge-n -1"),
    ("score --kb {w}/kb --dialogues {w}/d/dialogues.jsonl --predictions {w}/d/dialogues.jsonl --pc-window -1 "
     "--out {w}/s.json", "pc_window=-1"),
    ("stats bootstrap --scores {w}/d --n-boot 0 --out {w}/b.csv", "--n-boot 0"),
    ("stats oracle --scores {w}/d --records {w}/d/dialogues.jsonl --budgets 0 --out {w}/o.csv", "--budgets 0"),
    ("judge core --transcripts {w}/d/dialogues.jsonl --n 0 --out {w}/j.jsonl", "--n 0"),
    ("judge core --transcripts {w}/d/dialogues.jsonl --retries -1 --out {w}/j.jsonl", "--retries -1"),
    ("judge transcripts --dialogues {w}/d/dialogues.jsonl --kb {w}/kb --n -2 --out {w}/t.jsonl", "--n -2"),
    ("converse --kb {w}/kb --dialogues {w}/d/dialogues.jsonl --max-turns 0 --out {w}/live", "--max-turns 0"),
]


@pytest.mark.parametrize("argv,message", COUNTS)
def test_counts_out_of_range_exit_2(data, capsys, argv, message):
    before = tree_hash(data)
    assert main(argv.format(w=data).split()) == 2
    err = capsys.readouterr().err
    assert message in err and "must be" in err and err.count("\n") == 1
    assert tree_hash(data) == before


def _pred(**extra):  # noqa: ANN003
    d = DIALOGUES[0]
    t = next(t for t in d["turns"] if t["role"] == "system" and t["action"] in ("recommend", "compare"))
    return {"dialogue_id": d["dialogue_id"], "turn_id": t["turn_id"], "text": "",
            "ranked_poi_ids": list(d["candidate_poi_ids"][:2]), **extra}


@pytest.mark.parametrize("extra,field,message", [
    ({"citation": [{"label": "R1", "review_id": "x"}]}, "citation", "did you mean 'citations'"),
    ({"Citations": []}, "Citations", "did you mean 'citations'"),
    ({"citatons": []}, "citatons", "did you mean 'citations'"),
    ({"ranked_poi_ids": ["P?"]}, "ranked_poi_ids", "unknown POI"),
])
def test_prediction_field_typos_are_data_errors(data, extra, field, message):
    from trace_crs.errors import DataError
    with pytest.raises(DataError, match=f"field '{field}': .*{message}"):
        trace_crs.score(data / "kb", data / "d" / "dialogues.jsonl", [_pred(**extra)])


def test_repeated_ids_in_a_ranking_are_refused(data):
    from trace_crs.errors import DataError
    d = DIALOGUES[0]
    twice = [d["candidate_poi_ids"][0], d["candidate_poi_ids"][1], d["candidate_poi_ids"][0]]
    with pytest.raises(DataError, match="ranked twice"):
        trace_crs.score(data / "kb", data / "d" / "dialogues.jsonl", [_pred(ranked_poi_ids=twice)])


def test_repeated_ids_through_the_cli_exit_3(data, capsys):
    import json as _json
    d = DIALOGUES[0]
    p = data / "p.jsonl"
    p.write_text(_json.dumps(_pred(ranked_poi_ids=[d["candidate_poi_ids"][0]] * 2)) + "\n")
    before = tree_hash(data)
    assert main(["score", "--kb", str(data / "kb"), "--dialogues", str(data / "d" / "dialogues.jsonl"),
                 "--predictions", str(p), "--out", str(data / "o" / "s.json")]) == 3
    assert "p.jsonl:1: field 'ranked_poi_ids'" in capsys.readouterr().err
    assert tree_hash(data) == before


@pytest.mark.parametrize("argv,code,message", [
    ("dialogues validate {w}/empty.jsonl --kb {w}/kb", 3, "empty.jsonl: field '<file>': no dialogues"),
    ("dialogues stats {w}/empty.jsonl", 3, "no dialogues"),
    ("dialogues leakage {w}/empty.jsonl --kb {w}/kb", 3, "no dialogues"),
    ("kb stats {w}/emptykb", 3, "no POIs"),
    ("dialogues generate --kb {w}/emptykb --n 2 --out {w}/g.jsonl", 3, "no POIs"),
    ("score --kb {w}/emptykb --dialogues {w}/d/dialogues.jsonl --predictions {w}/empty.jsonl --out {w}/s.json", 3,
     "no POIs"),
    ("score --kb {w}/kb --dialogues {w}/empty.jsonl --predictions {w}/empty.jsonl --out {w}/s.json", 3,
     "no dialogues"),
    ("evaluate --kb {w}/kb --dialogues {w}/empty.jsonl --baselines popularity --out {w}/run", 3, "no dialogues"),
])
def test_empty_inputs_are_errors(data, capsys, argv, code, message):
    (data / "empty.jsonl").write_text("")
    (data / "emptykb").mkdir()
    for f in ("pois.jsonl", "reviews.jsonl"):
        (data / "emptykb" / f).write_text("")
    before = tree_hash(data)
    assert main(["--quiet", *argv.format(w=data).split()]) == code
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert tree_hash(data) == before
    assert not (data / "run" / "records.parquet").exists()


def _dialogue(**change):  # noqa: ANN003
    import copy
    d = copy.deepcopy(DIALOGUES[0])
    for path, value in change.items():
        node = d
        keys = path.split("__")
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = value
    return d


ANCHOR = {"name": "x", "latitude": 27.9, "longitude": -82.4, "max_km": 2.0}


@pytest.mark.parametrize("change,field", [
    ({"dialogue_id": "\u200b"}, "dialogue_id"),
    ({"dialogue_id": "   "}, "dialogue_id"),
    ({"dialogue_id": "crs_yelp_00001\u200b"}, "dialogue_id"),
    ({"dialogue_id": "crs\u0007"}, "dialogue_id"),
    ({"scenario__hidden_preferences__anchor": {**ANCHOR, "latitude": float("nan")}}, "anchor/latitude"),
    ({"scenario__hidden_preferences__anchor": {**ANCHOR, "latitude": 999}}, "anchor/latitude"),
    ({"scenario__hidden_preferences__anchor": {**ANCHOR, "longitude": -181}}, "anchor/longitude"),
    ({"scenario__hidden_preferences__anchor": {**ANCHOR, "longitude": float("inf")}}, "anchor/longitude"),
    ({"scenario__hidden_preferences__anchor": {**ANCHOR, "max_km": float("nan")}}, "anchor/max_km"),
])
def test_invisible_ids_and_impossible_anchors_are_data_errors(data, capsys, change, field):
    import json as _json
    path = data / "bad.jsonl"
    path.write_text(_json.dumps(_dialogue(**change)) + "\n")
    before = tree_hash(data)
    assert main(["dialogues", "stats", str(path)]) == 3
    err = capsys.readouterr().err
    assert "bad.jsonl:1" in err and field in err
    assert tree_hash(data) == before


@pytest.mark.parametrize("yaml_text,message", [
    ("score:\n  fuzzy_treshold: 0.9\n", "unknown key(s) ['fuzzy_treshold']"),
    ("score:\n  set: [fuzzy_treshold=0.9]\n", "unknown key(s) ['fuzzy_treshold']"),
    ("scroe:\n  fuzzy_threshold: 0.9\nevaluate:\n  pool: closed\n", "unknown key(s) ['evaluate', 'scroe']"),
    ("score:\n  strict: 'no'\n", "expected true/false"),
    ("score:\n  fuzzy_threshold: .nan\n", "expected a number"),
    ("score:\n  pc_window: 1.5\n", "expected an integer"),
    ("score:\n  cd_gate: 7\n", "cd_gate=7.0 must be"),
    ("- a\n- list\n", "expected a mapping"),
    ("score: [unclosed\n", "not valid YAML"),
])
def test_config_files_reject_unknown_and_mistyped_keys(data, capsys, yaml_text, message):
    cfg = data / "c.yaml"
    cfg.write_text(yaml_text)
    before = tree_hash(data)
    d = str(data / "d" / "dialogues.jsonl")
    assert main(["score", "--kb", str(data / "kb"), "--dialogues", d, "--predictions", d, "--config", str(cfg),
                 "--out", str(data / "o" / "s.json")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert tree_hash(data) == before
