"""Hostile inputs to `trace-crs score` (and the CLI conventions it shares): each case checks the
exit code (2 usage, 3 bad data), a message naming where the problem is, and that no input file
changed and no output appeared where it must not."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from trace_crs.cli import main
from trace_crs.errors import UsageError
from trace_crs.kb.store import dump_jsonl, sha256_file
from trace_crs.metrics.score import ScoreConfig

D1, D2 = "crs_yelp_00001", "crs_yelp_00002"
GOOD = [{"dialogue_id": D1, "turn_id": 2, "ranked_poi_ids": ["P1", "P2"], "text": 'P1: "the pasta was fantastic" [R1]'},
        {"dialogue_id": D1, "turn_id": 4, "ranked_poi_ids": ["P2"], "text": "P2."},
        {"dialogue_id": D2, "turn_id": 2, "ranked_poi_ids": ["P2", "P1"], "text": "P2 or P1."}]


@pytest.fixture()
def env(tmp_path, kb_dir, dialogues):
    dump_jsonl(dialogues, tmp_path / "dialogues.jsonl")
    dump_jsonl(GOOD, tmp_path / "preds.jsonl")
    return tmp_path, kb_dir


def run(env, preds_text: str | bytes | None = None, extra: list[str] = (), out: str | None = "o.json"):
    tmp, kb_dir = env
    if preds_text is not None:
        path = tmp / "preds.jsonl"
        path.write_bytes(preds_text if isinstance(preds_text, bytes) else preds_text.encode())
    argv = ["score", "--kb", str(kb_dir), "--dialogues", str(tmp / "dialogues.jsonl"),
            "--predictions", str(tmp / "preds.jsonl"), *extra]
    if out is not None:
        argv += ["--out", str(tmp / out) if "/" not in out else out]
    before = {p: sha256_file(p) for p in [tmp / "dialogues.jsonl", tmp / "preds.jsonl", *kb_dir.iterdir()] if p.is_file()}
    code = main(argv)
    after = {p: sha256_file(p) for p in before if p.exists()}
    assert after == before, "an input changed"
    return code


def line(rec: dict) -> str:
    return json.dumps(rec) + "\n"


BAD_DATA = [  # (predictions file content, text the error must contain)
    ("", "preds.jsonl: field '<file>': no predictions"),
    (line(GOOD[0]) + "{not json\n", "preds.jsonl:2: field '<json>'"),
    (b'{"dialogue_id": "\xff\xfe"}\n', "preds.jsonl:1: field '<bytes>': not UTF-8"),
    ("[" * 100000 + "]" * 100000 + "\n", "preds.jsonl:1: field '<json>'"),
    (line({**GOOD[0], "ranked_poi_ids": ["NOPE"]}), "preds.jsonl:1: field 'ranked_poi_ids': unknown POI id"),
    (line({**GOOD[0], "dialogue_id": "crs_other_00009"}), "preds.jsonl:1: field 'dialogue_id': unknown dialogue"),
    (line({**GOOD[0], "turn_id": 3}), "preds.jsonl:1: field 'turn_id'"),
    (line(GOOD[0]) + line(GOOD[0]), "preds.jsonl:2: field 'turn_id': duplicate prediction"),
    (line({**GOOD[0], "text": 7}), "preds.jsonl:1: field 'text': expected str"),
    (line({**GOOD[0], "turn_id": True}), "preds.jsonl:1: field 'turn_id': expected int"),
    (line({**GOOD[0], "citations": {"R1": "ra"}}), "preds.jsonl:1: field 'citations': expected a list"),
    (line({**GOOD[0], "citations": [{"label": "R1", "review_id": "zz"}]}), "field 'citations': unknown review id"),
    (line({k: v for k, v in GOOD[0].items() if k != "text"}), "preds.jsonl:1: field 'text': missing"),
    ("[1, 2]\n", "preds.jsonl:1: field '<record>': expected a JSON object"),
]


@pytest.mark.parametrize("content,message", BAD_DATA, ids=[m[:40] for _, m in BAD_DATA])
def test_bad_prediction_files_exit_3_and_name_the_place(env, capsys, content, message):
    assert run(env, content) == 3
    assert message in capsys.readouterr().err
    assert not (env[0] / "o.json").exists()


def test_ranked_id_outside_the_turns_pool_is_rejected(env, capsys):
    assert run(env, extra=["--pool", "16"]) == 3  # the 16-pools of these dialogues are empty
    assert "field 'ranked_poi_ids': 'P1' is not a candidate of crs_yelp_00001's pool" in capsys.readouterr().err


@pytest.mark.parametrize("extra,message", [
    (["--fuzzy-threshold", "5"], "fuzzy_threshold=5.0 must be in (0, 1]"),
    (["--pc-window", "-1"], "pc_window=-1 must be >= 0"),
    (["--spatial-km", "0"], "spatial_km=0.0 must be > 0"),
    (["--entailment", "bogus"], "bogus"),
])
def test_bad_settings_exit_2(env, capsys, extra, message):
    assert run(env, extra=extra) == 2
    assert message in capsys.readouterr().err


def test_unknown_pool_is_an_argparse_usage_error(env, capsys):
    with pytest.raises(SystemExit) as stop:
        run(env, extra=["--pool", "bogus"])
    assert stop.value.code == 2 and "invalid choice: 'bogus'" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["preds.jsonl", "dialogues.jsonl", "KB", "DIR"])
def test_output_over_an_input_is_refused(env, capsys, target):
    tmp, kb_dir = env
    out = {"preds.jsonl": str(tmp / "preds.jsonl"), "dialogues.jsonl": str(tmp / "dialogues.jsonl"),
           "KB": str(kb_dir / "scores.json"), "DIR": str(tmp)}[target]
    assert run(env, out=out) == 2
    err = capsys.readouterr().err
    assert "would overwrite the input" in err or "is a directory" in err


def test_missing_turn_scores_zero_and_is_warned(env, capsys):
    tmp, _ = env
    assert run(env, line(GOOD[0]) + line(GOOD[2])) == 0
    err = capsys.readouterr().err
    assert "warning: 1 reference turns have no prediction; they score 0" in err and "scored 3 turns" in err
    agg = json.loads((tmp / "o.json").read_text())
    assert agg["n_missing"] == 1
    assert run(env, extra=["--strict"], out="strict.json") == 3 and not (tmp / "strict.json").exists()


def test_citing_an_unrelated_poi_is_off_target_and_ungrounded(env, capsys):
    tmp, _ = env
    honest = dict(GOOD[0], citations=[{"label": "R1", "review_id": "ra"}])
    # the same quote of P1's review, but the turn presents P2, P3, P4 (P1 only at rank 4)
    gamed = dict(honest, ranked_poi_ids=["P2", "P3", "P4", "P1"])
    assert run(env, line(honest) + line(GOOD[1]) + line(GOOD[2]), out="honest.json") == 0
    assert run(env, line(gamed) + line(GOOD[1]) + line(GOOD[2]), out="gamed.json") == 0
    h, g = (json.loads((tmp / f).read_text()) for f in ("honest.json", "gamed.json"))
    assert h["n_off_target_citations"] == 0 and g["n_off_target_citations"] == 1
    assert g["metrics"]["gs"] < h["metrics"]["gs"] and g["metrics"]["cgs"] < h["metrics"]["cgs"]


def test_dialogue_ids_filter_skips_and_counts_other_dialogues(env, capsys):
    tmp, _ = env
    (tmp / "ids.json").write_text(json.dumps([D1]))
    assert run(env, extra=["--dialogue-ids", str(tmp / "ids.json")]) == 0
    agg = json.loads((tmp / "o.json").read_text())
    assert (agg["n_dialogues"], agg["n_ignored_predictions"]) == (1, 1)
    (tmp / "ids.json").write_text("{not a list")
    assert run(env, extra=["--dialogue-ids", str(tmp / "ids.json")], out="x.json") == 3
    assert "ids.json: not a JSON list" in capsys.readouterr().err


def test_missing_input_is_a_usage_error(env, capsys):
    tmp, kb_dir = env
    assert main(["score", "--kb", str(kb_dir), "--dialogues", str(tmp / "nope.jsonl"),
                 "--predictions", str(tmp / "preds.jsonl"), "--out", str(tmp / "o.json")]) == 2


def test_score_config_validates_in_python():
    with pytest.raises(UsageError, match="pool='closd'"):
        ScoreConfig(pool="closd")
    with pytest.raises(ValueError, match="fuzzy_threshold"):  # UsageError is a ValueError too
        ScoreConfig(fuzzy_threshold=5)


def test_version_and_closed_pipe(env, monkeypatch):
    out = subprocess.run([sys.executable, "-m", "trace_crs", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("trace-crs ")

    class ClosedPipe:  # what `trace-crs … | head` leaves behind once head has exited
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            pass

        def fileno(self):
            return sys.__stdout__.fileno()

    tmp, _ = env
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["dialogues", "stats", "--dialogues", str(tmp / "dialogues.jsonl")]) == 0


def test_metrics_package_exports_its_api():
    import trace_crs.metrics as metrics
    assert set(metrics.__all__) >= {"score_predictions", "ScoreConfig", "read_predictions", "METRICS"}
    assert metrics.ScoreConfig().pool == "closed" and "recall@1" in metrics.METRICS


def test_global_quiet_and_json(env, capsys):
    tmp, kb_dir = env
    base = ["score", "--kb", str(kb_dir), "--dialogues", str(tmp / "dialogues.jsonl"),
            "--predictions", str(tmp / "preds.jsonl"), "--out", str(tmp / "g.json")]
    assert main(["--quiet", "--json", *base]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["metrics"]["recall@1"] is not None and "scored" not in err  # summary suppressed
    assert main(["--json", "dialogues", "stats", "--dialogues", str(tmp / "dialogues.jsonl")]) == 0
    assert json.loads(capsys.readouterr().out)["dialogues"] == 2
