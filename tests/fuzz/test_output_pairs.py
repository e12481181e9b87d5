"""Two outputs of one command never share a path (one would be lost), a directory output never
holds another output, and a flag that names a run is an input like any path flag
(trace_crs.cli.guard.guard_paths with trace_crs.cli.io_paths).  Every case exits 2 before any
input is read, and the workspace is byte-identical afterwards."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from hostile import tree_hash

from trace_crs.cli import OUTPUT_FLAGS, build_parser, main


@pytest.fixture()
def ws(tmp_path):
    w = tmp_path / "ws"
    for d in ("kb", "d", "results/runs/r1/predictions", "other/kb"):
        (w / d).mkdir(parents=True)
    for f in ("kb/pois.jsonl", "d/dialogues.jsonl", "preds.jsonl", "items.jsonl", "labels.sqlite", "human.csv",
              "results/runs/r1/predictions/tfidf.jsonl", "other/d.jsonl", "other/kb/pois.jsonl"):
        (w / f).write_text(f"content of {f}\n")
    (w / "results/runs/r1/config.yaml").write_text(f"kb: {w}/other/kb\ndialogues: {w}/other/d.jsonl\n")
    return w


K, D, P = "{w}/kb", "{w}/d/dialogues.jsonl", "{w}/preds.jsonl"
# (command, argv with {w}) where two outputs collide
PAIRS = [
    ("score", f"score --kb {K} --dialogues {D} --predictions {P} --out {{w}}/s.json --per-turn {{w}}/s.json"),
    ("score", f"score --kb {K} --dialogues {D} --predictions {P} --out {{w}}/s.json "
              "--per-turn {w}/s.per_turn.parquet"),
    ("score", f"score --kb {K} --dialogues {D} --predictions {P} --per-turn {{w}}/preds.score.json"),
    ("human export", "human export --items {w}/items.jsonl --labels-db {w}/labels.sqlite --out {w}/x --csv {w}/x"),
    ("human sample", f"human sample --run {{w}}/results/runs/r1 --kb {K} --dialogues {D} "
                     "--out {w}/i.jsonl --key-out {w}/i.jsonl"),
    ("kb realism", "kb realism --kb {w}/kb --out {w}/r.json --markdown {w}/r.json"),
    ("evaluate", f"evaluate --kb {K} --dialogues {D} --out {{w}}/run --cache-dir {{w}}/run/cache"),
    ("evaluate", f"evaluate --kb {K} --dialogues {D} --out {{w}}/c/run --cache-dir {{w}}/c"),
    ("judge agree", "judge agree --pred {w}/preds.jsonl --human {w}/human.csv --out {w}/a.json "
                    "--mixture-out {w}/a.json"),
    ("release export", f"release export --kb {K} --dialogues {D} --out {{w}}/rel --yelp-bundle {{w}}/rel/b"),
    ("release export", f"release export --kb {K} --dialogues {D} --out {{w}}/rel --yelp-bundle {{w}}/rel"),
]


def _run(ws, argv: str) -> list[str]:
    return argv.format(w=ws).split()


@pytest.mark.parametrize("command,argv", PAIRS, ids=[f"{c}:{i}" for i, (c, _) in enumerate(PAIRS)])
def test_two_outputs_on_one_path_are_refused(ws, capsys, command, argv):
    before = tree_hash(ws)
    code = main(_run(ws, argv))
    err = capsys.readouterr().err
    assert code == 2, err
    assert "two outputs of one command" in err and err.count("\n") == 1
    assert tree_hash(ws) == before


def test_dialogues_generate_out_colliding_with_its_split_lists_is_refused(ws, capsys):
    before = tree_hash(ws)
    # the split lists of corpus c.splits go to <stem>.splits/ = c.splits itself
    argv = ["dialogues", "generate", "--kb", str(ws / "kb"), "--n", "2", "--out", str(ws / "c.splits")]
    assert main(argv) == 2
    assert "two outputs of one command" in capsys.readouterr().err
    assert tree_hash(ws) == before


def test_every_command_with_two_outputs_is_covered():
    covered = {c for c, _ in PAIRS}
    leaves = []

    def walk(p: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        for a in subs:
            for name, sp in a.choices.items():
                walk(sp, path + (name,))
        if not subs and len({a.dest for a in p._actions} & set(OUTPUT_FLAGS)) >= 2:
            leaves.append(" ".join(path))

    walk(build_parser(), ())
    assert len(leaves) >= 7 and sorted(set(leaves) - covered) == []


@pytest.mark.parametrize("argv", [
    # the probe's case: --run given a path, --out onto that run's predictions
    "stats diagnose --results {w}/results --run {w}/results/runs/r1 --out {w}/results/runs/r1/predictions/tfidf.jsonl",
    "stats diagnose --results {w}/results --run r1 --out {w}/results/runs/r1/predictions/tfidf.jsonl",
    # the KB and dialogues the run's config names are inputs too
    "stats diagnose --results {w}/results --run r1 --out {w}/other/d.jsonl",
    "stats diagnose --results {w}/results --run r1 --out {w}/other/kb/x.parquet",
    "stats diagnose --results {w}/results --corpus-runs kb_missingness={w}/kb --out {w}/kb/pois.jsonl",
    "stats sensitivity fuzzy --results {w}/results --runs r1,{w}/d --out {w}/d/dialogues.jsonl",
])
def test_a_run_named_by_a_flag_is_an_input(ws, capsys, argv):
    before = tree_hash(ws)
    assert main(_run(ws, argv)) == 2
    assert "would overwrite the input" in capsys.readouterr().err
    assert tree_hash(ws) == before


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_two_outputs_that_are_one_file_through_a_link_are_refused(ws, capsys, link):
    import os

    (ws / "x.jsonl").write_text("old\n")
    (os.symlink if link == "symlink" else os.link)(ws / "x.jsonl", ws / "x.csv")
    before = tree_hash(ws)
    argv = ["human", "export", "--items", str(ws / "items.jsonl"), "--labels-db", str(ws / "labels.sqlite"),
            "--out", str(ws / "x.jsonl"), "--csv", str(ws / "x.csv")]
    assert main(argv) == 2
    assert "two outputs of one command" in capsys.readouterr().err
    assert tree_hash(ws) == before
