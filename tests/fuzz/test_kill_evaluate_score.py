"""kill -9 at 20 seeded points of `trace-crs evaluate` and of `trace-crs score`: afterwards an
output either does not exist or equals the uninterrupted run's, and re-running completes it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parents[1] / "baselines"))
from trace_crs.kb.store import sha256_file  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "TQDM_DISABLE": "1"}
TIMING = ["latency_s"]  # wall-clock columns differ between any two runs


def evaluate_cmd(kb: Path, dialogues: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "trace_crs", "evaluate", "--kb", str(kb), "--dialogues", str(dialogues),
            "--baselines", "popularity,tfidf,aspect", "--chunk-size", "2", "--workers", "1", "--quiet", "--out", str(out)]


def records(run: Path) -> pd.DataFrame:
    return pd.read_parquet(run / "records.parquet").drop(columns=TIMING)


def killed(cmd: list[str], delay: float) -> None:
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def test_kill_9_evaluate_resumes_to_identical_records(corpus, tmp_path):
    kb, dialogues = corpus
    start = time.perf_counter()
    subprocess.run(evaluate_cmd(kb, dialogues, tmp_path / "ref"), env=ENV, check=True, capture_output=True)
    span = time.perf_counter() - start
    ref = records(tmp_path / "ref")
    for i, delay in enumerate(np.random.default_rng(42).uniform(0.0, span, size=20)):
        out = tmp_path / f"run{i}"
        killed(evaluate_cmd(kb, dialogues, out), delay)
        if (out / "records.parquet").exists():  # whatever claims to be finished must equal the reference
            pd.testing.assert_frame_equal(records(out), ref)
        subprocess.run(evaluate_cmd(kb, dialogues, out), env=ENV, check=True, capture_output=True)  # resume
        pd.testing.assert_frame_equal(records(out), ref)


def test_kill_9_score_never_leaves_a_partial_score(corpus, tmp_path):
    kb, dialogues = corpus
    subprocess.run(evaluate_cmd(kb, dialogues, tmp_path / "run"), env=ENV, check=True, capture_output=True)
    preds = tmp_path / "run" / "predictions" / "tfidf.jsonl"
    cmd = [sys.executable, "-m", "trace_crs", "score", "--kb", str(kb), "--dialogues", str(dialogues), "--quiet",
           "--predictions", str(preds)]
    before = sha256_file(preds)
    start = time.perf_counter()
    subprocess.run(cmd + ["--out", str(tmp_path / "zzref.json")], env=ENV, check=True, capture_output=True)
    span = time.perf_counter() - start
    ref = (tmp_path / "zzref.json").read_text()  # a stem no key contains ("ref" is in "text_reference")
    for i, delay in enumerate(np.random.default_rng(7).uniform(0.0, span, size=20)):
        out = tmp_path / f"s{i}.json"
        killed(cmd + ["--out", str(out)], delay)
        if out.exists():  # the JSON is renamed into place last: present means complete
            assert out.read_text().replace(out.stem, "X") == ref.replace("zzref", "X")
            assert out.with_name(out.stem + ".per_turn.parquet").exists()
    assert sha256_file(preds) == before  # the input is never touched
