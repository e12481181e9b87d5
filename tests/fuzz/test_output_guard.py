"""Every command refuses an output that is, contains or lies inside one of its inputs (exit 2,
"would overwrite the input"), and leaves every input byte-identical (trace_crs.atomic.refuse_overlap
through trace_crs.cli.guard.guard_paths).  The guard runs before any input is read, so the inputs here
only need to exist."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from hostile import tree_hash  # noqa: E402

from trace_crs.cli import INPUT_FLAGS, OTHER_FLAGS, OUTPUT_FLAGS, build_parser, main  # noqa: E402
from trace_crs.cli.io_paths import RUN_NAME_FLAGS  # noqa: E402


@pytest.fixture()
def ws(tmp_path):
    """A workspace holding one of every kind of input."""
    w = tmp_path / "ws"
    for d in ("kb", "yelp", "scores", "results/runs/r1", "d"):
        (w / d).mkdir(parents=True)
    for f in ("kb/pois.jsonl", "kb/reviews.jsonl", "kb/MANIFEST.json", "yelp/yelp_academic_dataset_business.json",
              "d/dialogues.jsonl", "preds.jsonl", "scores/a.per_turn.parquet", "records.parquet",
              "results/runs/r1/config.yaml", "transcripts.jsonl", "human.csv", "unsolvable.jsonl", "ids.json",
              "c.yaml"):
        (w / f).write_text(f"content of {f}\n")
    return w


K, D, P = "{w}/kb", "{w}/d/dialogues.jsonl", "{w}/preds.jsonl"
# (argv with {w} for the workspace, the output flag's value)
CASES = [
    ("kb build --source yelp --yelp-dir {w}/yelp --out {o}", ["{w}/yelp", "{w}/yelp/sub", "{w}"]),
    ("kb stats {w}/kb --out {o}", ["{w}/kb/pois.jsonl", "{w}/kb/MANIFEST.json", "{w}/kb"]),
    ("kb stats --kb {w}/kb --json {o}", ["{w}/kb/reviews.jsonl"]),
    ("kb calibrate --yelp-dir {w}/yelp --out {o}", ["{w}/yelp/rates.json", "{w}/yelp/yelp_academic_dataset_business.json"]),
    (f"dialogues generate --kb {K} --n 2 --out {{o}}", ["{w}/kb/pois.jsonl", "{w}/kb/new.jsonl"]),
    (f"dialogues stats --dialogues {D} --out {{o}}", [D, "{w}/d"]),
    (f"dialogues stats {D} --json {{o}}", [D]),
    (f"dialogues leakage --dialogues {D} --kb {K} --out {{o}}", ["{w}/kb/MANIFEST.json", D]),
    (f"dialogues unsolvable --dialogues {D} --kb {K} --out {{o}}", [D, "{w}/kb/u.jsonl"]),
    (f"dialogues release --dialogues {D} --kb {K} --out {{o}}", [D, "{w}/kb/reviews.jsonl"]),
    (f"dialogues hydrate --dialogues {D} --kb {K} --out {{o}}", [D, "{w}/kb/reviews.jsonl", "{w}/kb"]),
    (f"evaluate --kb {K} --dialogues {D} --out {{o}}", ["{w}/kb", "{w}/kb/run", "{w}", "{w}/d"]),
    (f"evaluate --kb {K} --dialogues {D} --out {{w}}/run --cache-dir {{o}}", ["{w}/kb", "{w}/kb/cache"]),
    (f"score --kb {K} --dialogues {D} --predictions {P} --out {{o}}", [P, D, "{w}/kb/score.json"]),
    (f"score --kb {K} --dialogues {D} --predictions {P} --dialogue-ids {{w}}/ids.json --out {{o}}", ["{w}/ids.json"]),
    (f"score --kb {K} --dialogues {D} --predictions {P} --out {{w}}/s.json --per-turn {{o}}", [D, P, "{w}/kb/t.csv"]),
    ("stats bootstrap --scores {w}/scores --out {o}", ["{w}/scores/a.per_turn.parquet", "{w}/scores/boot.csv"]),
    ("stats oracle --scores {w}/scores --records {w}/records.parquet --out {o}", ["{w}/records.parquet", "{w}/scores/o.csv"]),
    (f"stats abstention --kb {K} --dialogues {D} --unsolvable {{w}}/unsolvable.jsonl --out {{o}}",
     ["{w}/kb", "{w}/d", "{w}/unsolvable.jsonl", "{w}"]),
    ("stats sensitivity fuzzy --results {w}/results --runs r1 --out {o}",
     ["{w}/results/runs/r1/config.yaml", "{w}/results/runs/s.parquet"]),
    (f"converse --kb {K} --dialogues {D} --out {{o}}", ["{w}/kb", D, "{w}/kb/live"]),
    ("judge core --transcripts {w}/transcripts.jsonl --out {o}", ["{w}/transcripts.jsonl"]),
    ("judge validity --candidates {w}/c.yaml --arena {w}/preds.jsonl --face {w}/human.csv --out {o}",
     ["{w}/c.yaml", "{w}/preds.jsonl", "{w}/human.csv", "{w}"]),
    (f"judge transcripts --dialogues {D} --kb {K} --predictions {P} --out {{o}}", [P, D, "{w}/kb/t.jsonl"]),
    ("judge agree --pred {w}/preds.jsonl --human {w}/human.csv --out {o}", ["{w}/human.csv", "{w}/preds.jsonl"]),
    ("judge agree --pred {w}/preds.jsonl --human {w}/human.csv --select {w}/transcripts.jsonl --mixture-out {o}",
     ["{w}/transcripts.jsonl", "{w}/human.csv"]),
    ("kb realism --kb {w}/kb --reference {w}/yelp --out {o}", ["{w}/kb/MANIFEST.json", "{w}/yelp/r.json"]),
    ("kb realism --kb {w}/kb --reference {w}/yelp --markdown {o}", ["{w}/kb/pois.jsonl", "{w}/yelp/t.md"]),
    ("kb degrade --kb {w}/kb --out {o}", ["{w}/kb", "{w}/kb/degraded", "{w}"]),
    (f"stats abstention-llm --config {{w}}/c.yaml --kb {K} --dialogues {D} --unsolvable {{w}}/unsolvable.jsonl --out {{o}}",
     ["{w}/kb", "{w}/d", "{w}"]),
    ("stats diagnose --results {w}/results --run r1 --out {o}",
     ["{w}/results/runs/r1/config.yaml", "{w}/results/runs/d.parquet"]),
    ("release import --dataset {w}/d/dialogues.jsonl --pois {w}/kb/pois.jsonl --splits {w}/d --yelp-dir {w}/yelp --out {o}",
     ["{w}/d", "{w}/yelp", "{w}/yelp/out", "{w}"]),
    (f"release export --kb {K} --dialogues {D} --out {{o}}", ["{w}/kb", "{w}/kb/rel", "{w}/d"]),
    (f"release export --kb {K} --dialogues {D} --out {{w}}/rel --yelp-bundle {{o}}", ["{w}/kb", "{w}/kb/bundle", "{w}"]),
    ("human agree --labels {w}/human.csv --key {w}/ids.json --out {o}", ["{w}/human.csv", "{w}/ids.json", "{w}"]),
    (f"human sample --run {{w}}/results/runs/r1 --kb {K} --dialogues {D} --out {{o}} --key-out {{w}}/k.jsonl",
     ["{w}/results/runs/r1/records.parquet", "{w}/kb/items.jsonl", D]),
    (f"human sample --run {{w}}/results/runs/r1 --kb {K} --dialogues {D} --out {{w}}/i.jsonl --key-out {{o}}",
     ["{w}/results/runs/r1", "{w}/kb/pois.jsonl", D]),
    ("human serve --items {w}/preds.jsonl --db {o} --annotators A1", ["{w}/preds.jsonl"]),
    ("human export --items {w}/preds.jsonl --labels-db {w}/records.parquet --out {o}",
     ["{w}/preds.jsonl", "{w}/records.parquet"]),
    ("human export --items {w}/preds.jsonl --labels-db {w}/records.parquet --out {w}/l.jsonl --csv {o}",
     ["{w}/records.parquet"]),
    ("lm records verify --dir {w}/d --out {o}", ["{w}/d", "{w}/d/default.verify.json", "{w}"]),
]
PARAMS = [(argv, o) for argv, outs in CASES for o in outs]


@pytest.mark.parametrize("argv,out", PARAMS, ids=[f"{a.split(' --')[0]}:{o}" for a, o in PARAMS])
def test_output_overlapping_an_input_is_refused(ws, capsys, argv, out):
    before = tree_hash(ws)
    args = argv.format(w=ws, o=out.format(w=ws)).split()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "would overwrite the input" in err and err.count("\n") == 1
    assert tree_hash(ws) == before


def _command(argv: str) -> str:
    words = argv.split()
    if words[0] in ("evaluate", "score", "converse"):
        return words[0]
    return " ".join(words[:3] if words[:2] == ["lm", "records"] else words[:2])  # `lm records verify`


def test_every_command_with_an_input_and_an_output_is_covered():
    covered = {_command(a) for a, _ in CASES}
    leaves = []

    def walk(p: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        for a in subs:
            for name, sp in a.choices.items():
                walk(sp, path + (name,))
        dests = {a.dest for a in p._actions}
        if not subs and dests & set(OUTPUT_FLAGS) and dests & set(INPUT_FLAGS):
            leaves.append(" ".join(path))
    walk(build_parser(), ())
    assert len(leaves) >= 19 and sorted(set(leaves) - covered) == []


def test_every_flag_is_classified():
    known = set(INPUT_FLAGS) | set(OUTPUT_FLAGS) | set(OTHER_FLAGS) | set(RUN_NAME_FLAGS)
    found = set()

    def walk(p: argparse.ArgumentParser) -> None:
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for sp in a.choices.values():
                    walk(sp)
            elif not a.dest.endswith("_command"):
                found.add(a.dest)
    walk(build_parser())
    assert found - known == set(), "classify new flags in trace_crs.cli (INPUT/OUTPUT/OTHER_FLAGS, io_paths.RUN_NAME_FLAGS)"


@pytest.mark.parametrize("argv", [
    "dialogues stats --dialogues {w}/d/dialogues.jsonl --out {w}/scores",
    "kb stats {w}/kb --out {w}/scores",
    "score --kb {w}/kb --dialogues {w}/d/dialogues.jsonl --predictions {w}/preds.jsonl --out {w}/scores",
    "kb build --out {w}/preds.jsonl",
    "evaluate --kb {w}/kb --dialogues {w}/d/dialogues.jsonl --out {w}/human.csv",
])
def test_file_where_a_directory_is_expected_and_back(ws, capsys, argv):
    before = tree_hash(ws)
    assert main(argv.format(w=ws).split()) == 2
    err = capsys.readouterr().err
    assert "is a directory" in err or "is a file" in err
    assert tree_hash(ws) == before


def test_symlinked_output_to_an_input_is_refused(ws, capsys):
    (ws / "link.json").symlink_to(ws / "d" / "dialogues.jsonl")
    before = tree_hash(ws)
    assert main(["dialogues", "stats", "--dialogues", str(ws / "d" / "dialogues.jsonl"), "--out", str(ws / "link.json")]) == 2
    assert "would overwrite the input" in capsys.readouterr().err
    assert tree_hash(ws) == before


def test_hard_link_to_an_input_is_refused(ws, capsys):
    import os
    os.link(ws / "kb" / "pois.jsonl", ws / "hard.jsonl")
    assert main(["kb", "stats", str(ws / "kb"), "--out", str(ws / "hard.jsonl")]) == 2
    assert "would overwrite the input" in capsys.readouterr().err
