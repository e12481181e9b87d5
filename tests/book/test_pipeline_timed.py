"""`book/tools/pipeline.py timed`: the step record, its build name, and the time of attempts that
were killed (heartbeat) or failed, carried into the run that finishes the step."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "book" / "tools"
sys.path.insert(0, str(TOOLS))  # a script, not the package
import pipeline  # noqa: E402


def _timed(out: Path, cmd: list[str], build: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "TRACE_BUILD": build}
    return subprocess.Popen([sys.executable, str(TOOLS / "pipeline.py"), "timed", str(out), "run/x", "--", *cmd],
                            env=env, **kw)


def test_record_names_the_build_and_a_success_supersedes(tmp_path):
    out = tmp_path / "timings" / "run-x.json"
    assert _timed(out, [sys.executable, "-c", "pass"], "b1").wait() == 0
    rec = json.loads(out.read_text())
    assert rec["step"] == "run/x" and rec["returncode"] == 0 and rec["build"] == "b1"
    assert rec["earlier_attempts"] == [] and rec["seconds"] >= 0
    assert _timed(out, [sys.executable, "-c", "pass"], "b2").wait() == 0
    assert json.loads(out.read_text())["earlier_attempts"] == []                  # a rebuild, not a retry


def test_failed_attempts_are_carried_until_the_step_finishes(tmp_path):
    out = tmp_path / "run-x.json"
    assert _timed(out, [sys.executable, "-c", "raise SystemExit(3)"], "b1").wait() == 3
    assert _timed(out, [sys.executable, "-c", "raise SystemExit(4)"], "b2").wait() == 4
    assert _timed(out, [sys.executable, "-c", "pass"], "b3").wait() == 0
    rec = json.loads(out.read_text())
    assert [(a["returncode"], a["build"]) for a in rec["earlier_attempts"]] == [(3, "b1"), (4, "b2")]
    assert (rec["returncode"], rec["build"]) == (0, "b3")


def test_a_killed_attempt_leaves_its_heartbeat(tmp_path, monkeypatch):
    out = tmp_path / "run-x.json"
    monkeypatch.setattr(pipeline, "HEARTBEAT_S", 0.05)
    code = ("import sys, time; sys.path.insert(0, %r); import pipeline; from pathlib import Path; "
            "pipeline.HEARTBEAT_S = 0.05; pipeline.timed(Path(%r), 'run/x', ['sleep', '30'])") % (str(TOOLS), str(out))
    proc = subprocess.Popen([sys.executable, "-c", code], env={**os.environ, "TRACE_BUILD": "b1"},
                            start_new_session=True)
    partial = out.with_name(out.name + ".partial")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (partial.exists() and json.loads(partial.read_text())["seconds"] >= 0.3):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)                                            # no chance to clean up
    proc.wait()
    beat = json.loads(partial.read_text())
    assert beat["returncode"] is None and beat["build"] == "b1" and beat["seconds"] >= 0.3
    assert not out.exists()
    monkeypatch.setenv("TRACE_BUILD", "b2")
    assert pipeline.timed(out, "run/x", [sys.executable, "-c", "pass"]) == 0
    rec = json.loads(out.read_text())
    assert rec["earlier_attempts"] == [{"seconds": beat["seconds"], "finished": beat["finished"],
                                        "returncode": None, "build": "b1"}]
    assert rec["build"] == "b2" and not partial.exists()


def test_sigterm_stops_the_command_and_records_the_attempt(tmp_path):
    out = tmp_path / "run-x.json"
    proc = _timed(out, ["sleep", "30"], "b1")
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 130
    beat = json.loads(out.with_name(out.name + ".partial").read_text())
    assert beat["returncode"] is None and beat["seconds"] >= 0.5 and not out.exists()


def test_llm_lookups_of_every_process_are_summed_into_the_record(tmp_path):
    """Two child processes look up the LM records (one hit, one miss each way); the step record
    carries their sums, the tally folder is gone, and the step name reaches the children."""
    from trace_crs.lm.records import Records

    records = tmp_path / "records"
    store = Records(records)
    store.append({"key": "k1", "model": "m", "step": "s", "response": {}, "usage": {}})
    store.close()
    child = (
        "import os; from trace_crs.lm.records import active_records; r = active_records(); "
        "[r.get(k) for k in ('k1', 'k1', 'nope')]; assert os.environ['TRACE_LM_STEP'] == 'run/x'"
    )
    out = tmp_path / "run-x.json"
    cmd = ["bash", "-c", f"{sys.executable} -c \"{child}\" && {sys.executable} -c \"{child}\""]
    env = {**os.environ, "TRACE_BUILD": "b1", "TRACE_LM_RECORDS": str(records)}
    env.pop("TRACE_LM_STEP", None)
    proc = subprocess.run([sys.executable, str(TOOLS / "pipeline.py"), "timed", str(out), "run/x", "--", *cmd], env=env)
    assert proc.returncode == 0
    assert json.loads(out.read_text())["lm_calls"] == {"replayed": 4, "computed": 2}
    assert not (tmp_path / "run-x.json.lm").exists()


def test_a_step_without_llm_lookups_has_no_count(tmp_path):
    out = tmp_path / "run-x.json"
    assert _timed(out, [sys.executable, "-c", "pass"], "b1").wait() == 0
    assert "lm_calls" not in json.loads(out.read_text())


def test_cpu_seconds_count_the_step_and_its_descendants(tmp_path):
    burn = "import time\nwhile time.process_time() < 0.3: pass"                   # 0.3 s of CPU, whatever the load
    parent = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {burn!r}], check=True)\n{burn}"
    out = tmp_path / "run-x.json"
    assert _timed(out, [sys.executable, "-c", parent], "b1").wait() == 0
    assert json.loads(out.read_text())["cpu_seconds"] >= 0.6                      # child 0.3 + grandchild 0.3
