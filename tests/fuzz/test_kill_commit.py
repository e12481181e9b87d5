"""kill -9 at every rename and unlink of ``score``, ``dialogues generate``, ``kb build`` and the
consolidation of ``evaluate`` (Done-when of the transactional-writer contract,
trace_crs.atomic): a child process runs the command with ``os.replace`` and ``os.unlink``
patched to ``os._exit(137)`` at their N-th call, for N = 1, 2, … until the command completes.
After each kill, what a reader sees (after :func:`trace_crs.atomic.recover`, which every loader
calls) is the previous complete output or the new complete output — never absent, never a
mixture; the next run of the writer leaves no staging leftovers."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from hostile import tree_hash  # noqa: E402

from trace_crs.atomic import recover  # noqa: E402
from trace_crs.cli import main  # noqa: E402

CHILD = """
import os, sys
n, calls = int(sys.argv[1]), [0]
def patched(real):
    def call(*a, **k):
        calls[0] += 1
        if calls[0] == n:
            os._exit(137)
        return real(*a, **k)
    return call
os.replace, os.unlink = patched(os.replace), patched(os.unlink)
from trace_crs.cli import main
sys.exit(main(["--quiet", *sys.argv[2:]]))
"""


def run_killed(n: int, argv: list[str]) -> int:
    return subprocess.run([sys.executable, "-c", CHILD, str(n), *argv], env={**os.environ, "TQDM_DISABLE": "1"},
                          capture_output=True, timeout=300).returncode


def visible(root: Path) -> dict:
    """The tree hash without hidden (staging) names: what a reader opens."""
    return {k: v for k, v in tree_hash(root).items() if not any(part.startswith(".") for part in Path(k).parts)}


def hidden(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob(".*"))


def kill_everywhere(argv_prev: list[str], argv_new: list[str], marker: Path, root: Path, limit: int = 60,
                    reset=None) -> int:  # noqa: ANN001
    """Kill ``argv_new`` at its n-th rename/unlink over the complete output of ``argv_prev``
    (``reset()`` restores it, default: run ``argv_prev``), for n = 1, 2, … until it
    completes; returns the number of kill points tried."""
    reset = reset or (lambda: main(["--quiet", *argv_prev]) == 0)
    assert main(["--quiet", *argv_new]) == 0
    new = visible(root)
    assert reset()
    previous = visible(root)
    assert previous != new
    for n in range(1, limit):
        assert reset()  # back to the previous complete output
        assert not hidden(root), f"the writer's run before kill {n} left {hidden(root)}"
        code = run_killed(n, argv_new)
        recover(marker)  # what every reader does first
        got = visible(root)
        assert got in (previous, new), f"kill at call {n}: {'absent' if not marker.exists() else 'mixed'} output"
        if code == 0:
            assert got == new
            return n
        assert code == 137, f"kill at call {n}: exit {code}"
    raise AssertionError(f"{argv_new} did not complete within {limit} renames/unlinks")


@pytest.fixture(scope="module")
def preds(corpus, tmp_path_factory):
    """Two different prediction files for the corpus: gold first / nothing."""
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
        return ["score", "--kb", str(kb), "--dialogues", str(dialogues), "--predictions", str(p), "--out", str(out),
                "--per-turn", str(tmp_path / "elsewhere" / "per_turn.csv")]  # a second directory: two journals
    n = kill_everywhere(argv(preds[0]), argv(preds[1]), out, tmp_path)
    assert n >= 6  # journal x2, unlink marker, 4 renames … each one a kill point


def test_dialogues_generate_killed_at_every_rename(corpus, tmp_path):
    kb, _ = corpus
    out = tmp_path / "g" / "dialogues.jsonl"

    def argv(n: int, seed: int) -> list[str]:
        return ["dialogues", "generate", "--kb", str(kb), "--n", str(n), "--seed", str(seed), "--out", str(out)]
    assert kill_everywhere(argv(3, 42), argv(4, 7), out, out.parent) >= 4


def test_kb_build_killed_at_every_rename(tmp_path):
    out = tmp_path / "kb"

    def argv(seed: int) -> list[str]:
        return ["kb", "build", "--per-cell", "2", "--seed", str(seed), "--out", str(out)]
    assert kill_everywhere(argv(42), argv(1), out, tmp_path) >= 2


@pytest.mark.slow  # one evaluate subprocess per kill point: > 25 min on the shared 2-core machine
def test_evaluate_consolidation_killed_at_every_rename(corpus, tmp_path):
    """The same run re-consolidated with scores added (``--score``): records, predictions,
    scores and manifest move together."""
    kb, dialogues = corpus
    out = tmp_path / "run"
    base = ["evaluate", "--kb", str(kb), "--dialogues", str(dialogues), "--baselines", "popularity,tfidf",
            "--workers", "1", "--out", str(out)]

    def reset() -> bool:  # the outputs of a run without --score (the chunks stay: only consolidation reruns)
        code = main(["--quiet", *base])
        shutil.rmtree(out / "scores", ignore_errors=True)
        return code == 0
    n = kill_everywhere(base, [*base, "--score"], out / "MANIFEST.json", out, limit=80, reset=reset)
    assert n >= 5


def test_commit_journal_rolls_forward_in_the_next_process(tmp_path):
    """Hand-made case: a journal and temporaries as a killed writer (pid of a finished
    process) leaves them; the next reader completes the commit and removes the journal."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    (tmp_path / "a.json").write_text("old a")
    (tmp_path / "b.parquet").write_text("old b")
    (tmp_path / f".a.json.{pid}.tmp").write_text("new a")  # b already renamed, marker a not yet
    (tmp_path / "b.parquet").write_text("new b")
    journal = {"renames": [[f".b.parquet.{pid}.tmp", "b.parquet"], [f".a.json.{pid}.tmp", "a.json"]],
               "journals": [f".a.json.commit-{pid}"]}
    (tmp_path / f".a.json.commit-{pid}").write_text(json.dumps(journal))
    recover(tmp_path / "a.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.parquet"]
    assert (tmp_path / "a.json").read_text() == "new a" and (tmp_path / "b.parquet").read_text() == "new b"
