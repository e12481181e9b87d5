"""Counts above what the input holds are never cut without a word: ``dialogues unsolvable --n``
beyond what a corpus can give is exit 2 (nothing written); the seeded subsets of the paper's
procedure (``evaluate --subset``, ``stats abstention --n-solvable``, ``judge transcripts --n``)
use every item and warn with both numbers; ``judge transcripts --generic --n`` draws its subset."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from hostile import tree_hash

from trace_crs.cli import main
from trace_crs.cli.guard import warn_capped


@pytest.mark.parametrize("asked,available,warned", [(None, 5, False), (5, 5, False), (4, 5, False), (6, 5, True)])
def test_warn_capped(capsys, asked, available, warned):
    assert warn_capped("--n", asked, available, "items of x") is warned
    err = capsys.readouterr().err
    assert (f"--n {asked} is above the {available} items of x; all {available} are used" in err) is warned


def test_unsolvable_n_beyond_the_corpus_is_refused(corpus, tmp_path, capsys):
    kb, dialogues = corpus
    before = tree_hash(tmp_path)
    code = main(["dialogues", "unsolvable", "--dialogues", str(dialogues), "--kb", str(kb), "--n", "100000",
                 "--out", str(tmp_path / "u.jsonl")])
    err = capsys.readouterr().err
    assert code == 2 and "--n 100000" in err and "12 dialogues gives at most 60" in err
    assert tree_hash(tmp_path) == before


def test_unsolvable_n_within_the_corpus_writes_n_or_warns(corpus, tmp_path, capsys):
    kb, dialogues = corpus
    out = tmp_path / "u.jsonl"
    assert main(["dialogues", "unsolvable", "--dialogues", str(dialogues), "--kb", str(kb), "--n", "60",
                 "--out", str(out)]) == 0
    written = len(out.read_text().splitlines())
    err = capsys.readouterr().err
    assert written == 60 or f"--n 60 asked, {written} built" in err


def test_evaluate_subset_above_the_corpus_warns(corpus, tmp_path, capsys):
    kb, dialogues = corpus
    assert main(["--quiet", "evaluate", "--kb", str(kb), "--dialogues", str(dialogues), "--baselines", "popularity",
                 "--workers", "1", "--subset", "500", "--out", str(tmp_path / "run")]) == 0
    err = capsys.readouterr().err
    assert "--subset 500 is above the 12 dialogues" in err
    assert len(json.loads((tmp_path / "run" / "dialogue_ids.json").read_text())) == 12


def test_stats_abstention_n_solvable_above_the_corpus_warns(corpus, tmp_path, capsys):
    kb, dialogues = corpus
    assert main(["dialogues", "unsolvable", "--dialogues", str(dialogues), "--kb", str(kb), "--n", "10",
                 "--out", str(tmp_path / "u.jsonl")]) == 0
    capsys.readouterr()
    assert main(["stats", "abstention", "--kb", str(kb), "--dialogues", str(dialogues), "--unsolvable",
                 str(tmp_path / "u.jsonl"), "--n-solvable", "300", "--out", str(tmp_path / "abst")]) == 0
    assert "--n-solvable 300 is above the 12 dialogues" in capsys.readouterr().err


def _generic_log(path: Path, n: int) -> Path:
    rows = [{"dialogue_id": f"g{i}", "turns": [{"role": "user", "text": "hi"}, {"role": "system", "text": "hello"}]}
            for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_judge_transcripts_generic_n_draws_a_subset(tmp_path, capsys):
    log = _generic_log(tmp_path / "log.jsonl", 8)
    out = tmp_path / "t.jsonl"
    assert main(["judge", "transcripts", "--generic", str(log), "--n", "5", "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 5
    assert main(["judge", "transcripts", "--generic", str(log), "--n", "50", "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 8
    assert "--n 50 is above the 8 transcripts" in capsys.readouterr().err
