"""`trace-crs lm` commands that need no server: config resolution, weights listing, errors."""
from __future__ import annotations

import json

from trace_crs.cli import main


def test_lm_config_prints_resolved_block_and_model_id(capsys):
    assert main(["lm", "config", "--set", "model=openai/gpt-5.4-mini"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["model_id"], out["temperature"], out["max_tokens"], out["mode"]) == (
        "openai/gpt-5.4-mini", 1.0, 16000, "generative")


def test_lm_config_bad_value_exits_2(capsys):
    assert main(["lm", "config", "--set", "mode=beam"]) == 2
    assert "lm.mode" in capsys.readouterr().err


def test_lm_weights_lists_the_three_hashes(capsys, tmp_path):
    assert main(["lm", "weights", "--models-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(" absent " in line for line in lines)
    assert any("1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32" in line for line in lines)
