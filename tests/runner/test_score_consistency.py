"""ARCHITECTURE §4/§5 contract: ``trace-crs score`` on the runner's prediction files reproduces the
runner's own aggregates (``evaluate --score``) exactly — also for a seeded subset run (scored on its
dialogue ids) and with the settings of a project config's ``score:`` section."""
import json

import pytest
import yaml

from tinykb import DIALOGUES

from trace_crs.cli import main
from trace_crs.config import ScoreConfig
from trace_crs.errors import UsageError
from trace_crs.runner.run import RunConfig, evaluate


def test_cli_score_on_predictions_equals_runner_scores(inputs, tmp_path, capsys):
    out = tmp_path / "run"
    cfg = RunConfig(kb=inputs[0], dialogues=inputs[1], baselines="popularity,tfidf", subset=2, chunk_size=1)
    evaluate(cfg, out, workers=1, clock=lambda: 0.0, progress=False, score=ScoreConfig(pool=cfg.pool, seed=cfg.seed))
    ids = json.loads((out / "dialogue_ids.json").read_text())
    assert len(ids) == 2 and set(ids) < {d["dialogue_id"] for d in DIALOGUES}
    for name in ("popularity", "tfidf"):
        own = json.loads((out / "scores" / f"{name}.json").read_text())
        cli_out = tmp_path / f"{name}.json"
        assert main(["score", "--kb", inputs[0], "--dialogues", inputs[1],
                     "--predictions", str(out / "predictions" / f"{name}.jsonl"),
                     "--dialogue-ids", str(out / "dialogue_ids.json"), "--out", str(cli_out)]) == 0
        cli = json.loads(cli_out.read_text())
        assert cli["metrics"] == own["metrics"]
        assert (cli["n_dialogues"], cli["n_turns"], cli["n_missing"]) == (2, 4, 0) == \
            (own["n_dialogues"], own["n_turns"], own["n_missing"])
    capsys.readouterr()


def test_dialogue_ids_naming_an_unknown_dialogue_is_an_error(inputs, tmp_path, capsys):
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(["crs_nope_00001"]))
    preds = tmp_path / "p.jsonl"
    preds.write_text("")
    assert main(["score", "--kb", inputs[0], "--dialogues", inputs[1], "--predictions", str(preds),
                 "--dialogue-ids", str(ids), "--out", str(tmp_path / "s.json")]) == 3  # bad data
    assert "crs_nope_00001" in capsys.readouterr().err


def test_evaluate_score_reads_the_config_score_section(inputs, tmp_path, capsys):
    """A project config (``evaluate:`` and ``score:`` sections): ``evaluate --score`` scores with
    the ``score:`` settings (here a fuzzy threshold of 0.5, not the default 0.80) and agrees with
    ``trace-crs score --config`` on the same file."""
    config = tmp_path / "closed.yaml"
    config.write_text(yaml.safe_dump({
        "evaluate": {"kb": inputs[0], "dialogues": inputs[1], "baselines": "tfidf", "pool": "closed"},
        "score": {"pool": "closed", "fuzzy_threshold": 0.5},
    }))
    out = tmp_path / "run"
    assert main(["--quiet", "evaluate", "--config", str(config), "--workers", "1", "--score", "--out", str(out)]) == 0
    own = json.loads((out / "scores" / "tfidf.json").read_text())
    assert own["config"]["fuzzy_threshold"] == 0.5 and "fuzzy:0.50" in own["signature"]
    cli_out = tmp_path / "tfidf.json"
    assert main(["--quiet", "score", "--kb", inputs[0], "--dialogues", inputs[1], "--config", str(config),
                 "--predictions", str(out / "predictions" / "tfidf.jsonl"),
                 "--dialogue-ids", str(out / "dialogue_ids.json"), "--out", str(cli_out)]) == 0
    cli = json.loads(cli_out.read_text())
    assert (cli["metrics"], cli["signature"], cli["config"]) == (own["metrics"], own["signature"], own["config"])
    capsys.readouterr()


def test_evaluate_score_on_another_pool_is_refused(inputs, tmp_path):
    cfg = RunConfig(kb=inputs[0], dialogues=inputs[1], baselines="popularity", pool="closed")
    with pytest.raises(UsageError, match="not the run's pool"):
        evaluate(cfg, tmp_path / "run", workers=1, progress=False, score=ScoreConfig(pool="16"))
