"""kill -9 at every rename of ``score``, ``dialogues generate`` and ``kb build`` (Done-when of the
transactional-writer contract, trace_crs.atomic): a child process runs the command with
``os.replace`` patched to ``os._exit(137)`` at its N-th call, for N = 1, 2, … until the command
completes.  After each kill the output is the previous complete one, the new complete one, or
(only inside the final renames of a multi-file commit) absent — never a mixture; after
:func:`trace_crs.atomic.clean_stale` no staging leftovers remain."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from hostile import tree_hash  # noqa: E402

from trace_crs.atomic import clean_stale  # noqa: E402
from trace_crs.cli import main  # noqa: E402

CHILD = """
import os, sys
n, real, calls = int(sys.argv[1]), os.replace, [0]
def replace(src, dst):
    calls[0] += 1
    if calls[0] == n:
        os._exit(137)
    real(src, dst)
os.replace = replace
from trace_crs.cli import main
sys.exit(main(["--quiet", *sys.argv[2:]]))
"""


def run_killed(n: int, argv: list[str]) -> int:
    return subprocess.run([sys.executable, "-c", CHILD, str(n), *argv], env={**os.environ, "TQDM_DISABLE": "1"},
                          capture_output=True, timeout=300).returncode


def kill_everywhere(argv: list[str], state, limit: int = 12) -> list:  # noqa: ANN001
    """States seen after a kill at each rename 1, 2, … (the last entry: the completed run)."""
    seen = []
    for n in range(1, limit):
        code = run_killed(n, argv)
        seen.append(state())
        if code == 0:
            return seen
        assert code == 137, f"kill at rename {n}: exit {code}"
    raise AssertionError(f"{argv[0]} did not complete within {limit} renames")


@pytest.fixture(scope="module")
def preds(corpus, tmp_path_factory):
    """Two different prediction files for the corpus: gold first / gold last."""
    w = tmp_path_factory.mktemp("kill")
    _, dialogues = corpus
    rows_a, rows_b = [], []
    for line in dialogues.read_text().splitlines():
        d = json.loads(line)
        for t in d["turns"]:
            if t["role"] == "system" and t["action"] in ("recommend", "compare"):
                key = {"dialogue_id": d["dialogue_id"], "turn_id": t["turn_id"], "text": ""}
                rows_a.append({**key, "ranked_poi_ids": t["gold_poi_ids"]})
                rows_b.append({**key, "ranked_poi_ids": []})
    for name, rows in (("a.jsonl", rows_a), ("b.jsonl", rows_b)):
        (w / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return w / "a.jsonl", w / "b.jsonl"


def test_score_killed_at_every_rename(corpus, preds, tmp_path):
    kb, dialogues = corpus
    out = tmp_path / "s" / "x.score.json"

    def argv(p: Path) -> list[str]:
        return ["score", "--kb", str(kb), "--dialogues", str(dialogues), "--predictions", str(p), "--out", str(out)]

    def state() -> dict:
        return tree_hash(out.parent) if out.exists() else {"absent": ""}
    assert main(["--quiet", *argv(preds[0])]) == 0
    previous = state()
    assert main(["--quiet", *argv(preds[1])]) == 0
    new = state()
    assert previous != new and len(previous) == 3
    for n in range(1, 8):
        assert main(["--quiet", *argv(preds[0])]) == 0  # back to the previous complete output
        code = run_killed(n, argv(preds[1]))
        clean_stale(out)
        for sib in (out.with_name(out.stem + ".per_turn.parquet"), out.with_name(out.stem + ".per_dialogue.parquet")):
            clean_stale(sib)
        got = state()
        assert got in (previous, new, {"absent": ""}), f"kill at rename {n}: mixed output"
        if code == 0:
            assert got == new
            break
        assert code == 137
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]


def test_dialogues_generate_killed_at_every_rename(corpus, tmp_path):
    kb, _ = corpus
    out = tmp_path / "g" / "dialogues.jsonl"

    def argv(n: int, seed: int) -> list[str]:
        return ["dialogues", "generate", "--kb", str(kb), "--n", str(n), "--seed", str(seed), "--out", str(out)]

    def state() -> dict:
        return tree_hash(out.parent) if out.exists() else {"absent": ""}
    assert main(["--quiet", *argv(4, 7)]) == 0
    new = state()
    assert main(["--quiet", *argv(3, 42)]) == 0
    previous = state()
    for n in range(1, 10):
        assert main(["--quiet", *argv(3, 42)]) == 0
        code = run_killed(n, argv(4, 7))
        clean_stale(out)
        clean_stale(out.with_name(out.stem + ".splits"))
        got = state()
        assert got in (previous, new, {"absent": ""}), f"kill at rename {n}: mixed output"
        if code == 0:
            assert got == new
            break


def test_kb_build_killed_at_every_rename_then_next_run_cleans(tmp_path):
    out = tmp_path / "kb"

    def argv(seed: int) -> list[str]:
        return ["kb", "build", "--per-cell", "2", "--seed", str(seed), "--out", str(out)]

    def state() -> dict:
        return tree_hash(out) if out.exists() else {"absent": ""}
    assert main(["--quiet", *argv(1)]) == 0
    new = state()
    assert main(["--quiet", *argv(42)]) == 0
    previous = state()
    assert previous != new
    for n in range(1, 10):
        assert main(["--quiet", *argv(42)]) == 0
        code = run_killed(n, argv(1))
        clean_stale(out)  # what the next run does first: restores a directory left aside
        assert state() in (previous, new), f"kill at rename {n}: mixed or missing KB"
        assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".kb.")]
        if code == 0:
            assert state() == new
            break
