"""Small helpers for the `make paper` pipeline (mk/paper.mk); standard library + PyYAML only
(`timed` needs only the standard library: it also times the set-up steps, before .venv exists).

    pipeline.py params NOTEBOOK OVERRIDES PARAMS OUT
                                              write the notebook's defaults ⊕ OVERRIDES file ⊕ PARAMS
                                              (only keys the notebook declares) to OUT
    pipeline.py check-params PARAMS NOTEBOOK...  fail if a PARAMS key is declared by no NOTEBOOK
    pipeline.py check NOTEBOOK...             fail if an executed notebook holds an error or stderr output
    pipeline.py reader NOTEBOOK               reader mode: tag every code cell not already removed
                                              `hide-input` (papermill's injected parameters too), in place
    pipeline.py timed OUT STEP -- CMD...      run CMD, write {"step", "seconds", "finished", "returncode",
                                              "build", "earlier_attempts"[, "lm_calls"]} to OUT (see `timed`)

A run config (`configs/<profile>/<run>.yaml`) has one mapping per command (`evaluate`, `score`),
read by the command itself (`trace-crs evaluate|score --config FILE`), not translated here.
A notebook's parameters and their defaults live in one place, its `parameters` cell
(`notebooks/<name>.py`); `params/<profile>/<name>.yaml` holds only a profile's overrides and
may be absent. PARAMS is the notebook ablation string `"n_boot=200 seed=7"`; SET is the run ablation string
`"score.fuzzy_threshold=0.9 evaluate.subset=50"` (section.key=value, passed by mk/paper.mk as
`--set key=value` to that command of every run).
Files are written only when their content changes, so Make re-runs only what is affected.
"""
from __future__ import annotations

import ast
import json
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path



def parse_params(text: str) -> dict:
    """`"a=1 b=x"` → `{"a": 1, "b": "x"}` (YAML scalars); a token without `=` is an error."""
    import yaml

    out = {}
    for token in shlex.split(text or ""):
        key, sep, raw = token.partition("=")
        if not sep or not key:
            raise SystemExit(f"PARAMS: {token!r} is not key=value")
        out[key] = yaml.safe_load(raw)
    return out


def write_if_changed(path: Path, text: str) -> None:
    if path.exists() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def notebook_defaults(notebook: Path) -> dict:
    """Names and literal values assigned in the jupytext cell tagged ``parameters``."""
    lines = notebook.read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("# %%") and "parameters" in line), None)
    if start is None:
        raise SystemExit(f"{notebook}: no '# %% tags=[\"parameters\"]' cell")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("# %%")), len(lines))
    out = {}
    for node in ast.parse("\n".join(lines[start + 1:end])).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            raise SystemExit(f"{notebook}: the parameters cell may hold only `name = literal` lines")
        out[node.targets[0].id] = ast.literal_eval(node.value)
    return out


def effective_params(notebook: Path, overrides: Path | None, params: str, out: Path) -> None:
    """Notebook parameters = its defaults, then the profile's overrides, then PARAMS (declared keys only)."""
    import yaml

    data = notebook_defaults(notebook)
    extra = yaml.safe_load(overrides.read_text()) or {} if overrides and overrides.is_file() else {}
    unknown = sorted(set(extra) - set(data))
    if unknown:
        raise SystemExit(f"{overrides}: {unknown} not declared by {notebook}'s parameters cell")
    data.update(extra)
    data.update({k: v for k, v in parse_params(params).items() if k in data})
    write_if_changed(out, yaml.safe_dump(data, sort_keys=True))


def check_params(params: str, notebooks: list[Path]) -> None:
    declared = set().union(*[set(notebook_defaults(f)) for f in notebooks])
    unknown = sorted(set(parse_params(params)) - declared)
    if unknown:
        raise SystemExit(f"PARAMS: {unknown} is declared by no notebook; known: {sorted(declared)}")


def notebook_errors(path: Path) -> list[str]:
    """Error outputs, stderr text (warnings on a rendered page are noise a reader must not see)
    and papermill's error marker of an executed notebook."""
    nb = json.loads(path.read_text())
    found = []
    for i, cell in enumerate(nb.get("cells", [])):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                found.append(f"{path}: cell {i}: {out.get('ename')}: {out.get('evalue')}")
            elif out.get("output_type") == "stream" and out.get("name") == "stderr":
                text = "".join(out.get("text", ""))
                found.append(f"{path}: cell {i}: stderr: {text.strip()[:200]}")
        if "papermill-error-cell-tag" in cell.get("metadata", {}).get("tags", []):
            found.append(f"{path}: cell {i}: papermill error marker")
    return found


HEARTBEAT_S = 15


# Reader mode (the book shows results; code is one click away): myst-nb collapses the source of
# a cell tagged hide-input behind a "Show code cell source" toggle; remove-* tags win.
HIDE_TAG = "hide-input"
FIGURE_KEY = "trace_figure"  # trace_crs.report.figures.META_KEY (this tool runs without the package)


def reader_mode(path: Path) -> int:
    """Tag every code cell of the executed notebook ``path`` ``hide-input`` unless a tag already
    removes or hides it, and give a cell showing a figure its caption and alt text (myst-nb
    ``mystnb.figure`` / ``mystnb.image`` metadata), and move papermill's injected-parameters cell
    below the page's title; rewrite the file only if something changed;
    return how many cells changed."""
    nb = json.loads(path.read_text())
    added = 0
    for cell in nb.get("cells", []):
        tags = cell.setdefault("metadata", {}).setdefault("tags", [])
        if cell.get("cell_type") == "code" and not any(t.startswith(("remove-", "hide-")) for t in tags):
            tags.append(HIDE_TAG)
            added += 1
        for output in cell.get("outputs", []):  # trace_crs.report.figures.show: caption and alt text
            info = output.get("metadata", {}).get(FIGURE_KEY)
            if info:
                cell["metadata"]["mystnb"] = {"figure": {"caption": info["caption"], "name": info["name"]},
                                              "image": {"alt": info["alt"]}}
                added += 1
    cells = nb.get("cells", [])
    injected = [i for i, c in enumerate(cells) if "injected-parameters" in c.get("metadata", {}).get("tags", [])]
    title = next((i for i, c in enumerate(cells) if c.get("cell_type") == "markdown"
                  and "".join(c.get("source", "")).lstrip().startswith("# ")), None)
    if injected and title is not None and injected[0] < title:   # executed already: order no longer matters
        cells.insert(title, cells.pop(injected[0]))                # the page opens with its title
        added += 1
    if added:
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return added


def _attempt(record: dict) -> dict:
    return {k: record.get(k) for k in ("seconds", "finished", "returncode", "build")}


def earlier_attempts(out: Path) -> list[dict]:
    """The attempts at ``out``'s step that did not finish the step: a failed last run (its file,
    with its own earlier attempts) and a killed one (``OUT.partial``, the heartbeat of a run that
    never finished). A successful last run is superseded, not carried."""
    earlier: list[dict] = []
    if out.exists():
        last = json.loads(out.read_text())
        if last.get("returncode") != 0:
            earlier = [*last.get("earlier_attempts", []), _attempt(last)]
    partial = out.with_name(out.name + ".partial")
    if partial.exists():
        earlier.append(_attempt(json.loads(partial.read_text())))
    return earlier


def _write(path: Path, record: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record, sort_keys=True) + "\n")
    tmp.replace(path)


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def timed(out: Path, step: str, cmd: list[str]) -> int:
    """Run ``cmd``; record its wall time and CPU seconds (results/<profile>/timings/, read by the
    Reproduce and provenance pages).

    The record names the build (``TRACE_BUILD``, set once per top-level ``make``), so a page can
    tell one build from nothing from steps left by several builds. While ``cmd`` runs, its elapsed
    time is rewritten every ``HEARTBEAT_S`` seconds to ``OUT.partial``; a run that is killed (even
    by SIGKILL) or fails leaves that time behind, and the next run of the step carries it in
    ``earlier_attempts``, so a resumed step's total time is still on record.

    LLM calls: ``cmd`` runs with ``TRACE_LM_TALLY`` = a fresh ``OUT.lm/`` folder, where every
    process that looked up the LM records writes its counts at exit (``trace_crs.lm.records``);
    the record gets ``lm_calls`` = their sums ``{"replayed", "computed"}`` when any process made
    a look-up. ``TRACE_LM_STEP`` is set to STEP unless the caller set it, so the records name
    the pipeline step that made them.
    """
    partial = out.with_name(out.name + ".partial")
    tally = out.with_name(out.name + ".lm")
    shutil.rmtree(tally, ignore_errors=True)
    env = {**os.environ, "TRACE_LM_TALLY": str(tally.resolve())}
    env.setdefault("TRACE_LM_STEP", step)
    earlier = earlier_attempts(out)
    record = {"step": step, "build": os.environ.get("TRACE_BUILD") or None, "earlier_attempts": earlier}
    start = time.perf_counter()
    cpu_start = _children_cpu()

    def snapshot(code: int | None) -> dict:
        return {**record, "seconds": round(time.perf_counter() - start, 3), "returncode": code,
                "finished": datetime.now(timezone.utc).isoformat(timespec="seconds")}

    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        with subprocess.Popen(cmd, env=env) as proc:
            try:
                while True:
                    try:
                        code = proc.wait(timeout=HEARTBEAT_S)
                        break
                    except subprocess.TimeoutExpired:
                        _write(partial, snapshot(None))
            except KeyboardInterrupt:
                proc.terminate()
                proc.wait()
                _write(partial, snapshot(None))
                return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    final = snapshot(code)
    final["cpu_seconds"] = round(_children_cpu() - cpu_start, 3)
    calls = lm_calls(tally)
    if calls is not None:
        final["lm_calls"] = calls
    _write(out, final)
    partial.unlink(missing_ok=True)
    shutil.rmtree(tally, ignore_errors=True)
    return code


def _children_cpu() -> float:
    """CPU seconds (user + system) of every finished child process and its reaped descendants:
    on a shared machine a step's wall time says little, its CPU time what it costs."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def lm_calls(tally: Path) -> dict | None:
    """``{"replayed", "computed"}`` summed over the tally files of ``tally`` (None when none)."""
    files = sorted(tally.glob("*.json")) if tally.is_dir() else []
    if not files:
        return None
    counts = [json.loads(f.read_text()) for f in files]
    return {k: sum(int(c.get(k, 0)) for c in counts) for k in ("replayed", "computed")}


def main(argv: list[str]) -> int:
    cmd, rest = argv[0], argv[1:]
    if cmd == "params":
        effective_params(Path(rest[0]), Path(rest[1]) if rest[1] else None, rest[2], Path(rest[3]))
    elif cmd == "check-params":
        check_params(rest[0], [Path(f) for f in rest[1:]])
    elif cmd == "check":
        errors = [e for f in rest for e in notebook_errors(Path(f))]
        print("\n".join(errors) or f"{len(rest)} notebooks, no error outputs")
        return 1 if errors else 0
    elif cmd == "reader":
        print(f"{rest[0]}: {reader_mode(Path(rest[0]))} code cells hidden (hide-input)")
    elif cmd == "timed":
        sep = rest.index("--")
        return timed(Path(rest[0]), rest[1], rest[sep + 1:])
    else:
        raise SystemExit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
