"""The book's structure: toc ↔ notebooks, execution off, no typed numbers in prose, run configs."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml

from trace_crs.baselines.registry import BASELINES

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "book" / "tools"))  # a script, not the package
from pipeline import notebook_defaults  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
PROFILES = ("default", "smoke")
RUNS = {"closed", "closed_llm", "closed_nli", "pool16", "pool32", "open", "open_llm", "open_llm_dense"}


def toc_files() -> list[str]:
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [ch["file"] for ch in part["chapters"]]
    return files


def chapters() -> list[str]:
    return [f.removeprefix("content/") for f in toc_files() if f.startswith("content/")]


def test_config_executes_nothing():
    cfg = yaml.safe_load((BOOK / "_config.yml").read_text())
    assert cfg["execute"]["execute_notebooks"] == "off"
    assert cfg["only_build_toc_files"] is True
    assert "execute_notebooks: 'off'" in (BOOK / "_config.yml").read_text()  # quoted: YAML 1.1 'off' is False


def test_toc_pages_exist():
    for f in toc_files():
        if not f.startswith("content/"):
            assert (BOOK / f"{f}.md").is_file(), f


def test_toc_lists_every_notebook_once():
    names = chapters()
    assert len(names) == len(set(names))
    assert sorted(names) == sorted(p.stem for p in (ROOT / "notebooks").glob("*.py"))


@pytest.mark.parametrize("profile", PROFILES)
def test_params_files_only_override_declared_parameters(profile):
    """Defaults live in each notebook's parameters cell; params/<profile>/ holds overrides only."""
    for path in sorted((ROOT / "params" / profile).glob("*.yaml")):
        assert path.stem in chapters(), f"{path}: no chapter of that name"
        defaults = notebook_defaults(ROOT / "notebooks" / f"{path.stem}.py")
        overrides = yaml.safe_load(path.read_text()) or {}
        assert overrides and set(overrides) <= set(defaults), path
        assert all(defaults[k] != v for k, v in overrides.items()), f"{path}: repeats a default"


def test_every_chapter_declares_its_parameters():
    for name in chapters():
        assert "results_dir" in notebook_defaults(ROOT / "notebooks" / f"{name}.py"), name


# Digits are allowed only in code, glue roles, cross-references, citations and references to
# the paper's own numbered parts (Table 5, Appendix D, §2.1, [Q:N]).
ALLOWED = [r"```.*?```", r"`[^`\n]*`", r"\{[a-z:]+\}`[^`]*`", r"\[[^\]]*\]\([^)]*\)",
           r"\b(?:Tables?|Figures?|Appendix|Appendices|Sections?|Findings?)\s+[\dA-Z][\w.–-]*(?:\s*(?:,|and|–)\s*[\dA-Z][\w.]*)*",
           r"§\s?[\d.]+", r"\[Q:N\]"]


def typed_numbers(text: str) -> list[str]:
    for pattern in ALLOWED:
        text = re.sub(pattern, " ", text, flags=re.S)
    text = re.sub(r"(?m)^\s*\d+\.\s", " ", text)  # ordered-list markers
    # a number standing alone (not part of an identifier such as SHA256, T2R or Recall@k)
    return re.findall(r"[^\n]{0,20}(?<![\w@])\d+(?:[.,]\d+)*%?(?!\w)[^\n]{0,20}", text)


@pytest.mark.parametrize("page", sorted(p.name for p in BOOK.glob("*.md")))
def test_no_typed_numbers_in_prose(page):
    assert typed_numbers((BOOK / page).read_text()) == []


def test_typed_numbers_detector():
    assert typed_numbers("Recall@1 reaches 0.53 here") != []
    assert typed_numbers("a corpus of 10,000 dialogues") != []
    assert typed_numbers("hashed with SHA256, scored by T2R and Recall@1") == []
    assert typed_numbers("see Table 5 and {glue:text}`t05_headline.ipynb::r1:.3f`, `make -j2`") == []


def run_config(profile: str, run: str) -> dict:
    return yaml.safe_load((ROOT / "configs" / profile / f"{run}.yaml").read_text())


@pytest.mark.parametrize("profile", PROFILES)
def test_one_config_per_run(profile):
    assert {p.stem for p in (ROOT / "configs" / profile).glob("*.yaml")} == RUNS


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("run", sorted(RUNS))
def test_run_config_is_consistent(profile, run):
    cfg = run_config(profile, run)
    assert cfg["run"] == run
    baselines = cfg["evaluate"]["baselines"].split(",")
    assert set(baselines) <= set(BASELINES), set(baselines) - set(BASELINES)
    assert cfg["score"]["pool"] == cfg["evaluate"]["pool"]
    sets = cfg["evaluate"].get("set", [])
    if "weights" in cfg:  # the weights the run depends on (Make) are the weights it uses
        assert f"lm.weights={cfg['weights']}" in sets


@pytest.mark.parametrize("config", sorted((ROOT / "configs").glob("*/*.yaml")), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_run_config_is_read_by_its_commands(config):
    """ALCE-style: the tool itself reads each table cell's config (no translation into flags)."""
    from trace_crs.config import ScoreConfig, load_config
    from trace_crs.runner.run import RunConfig
    run = load_config(RunConfig, config, section="evaluate")
    score = load_config(ScoreConfig, config, section="score")
    assert run.baselines and score.pool == run.pool


def test_pipeline_params(tmp_path):
    import subprocess
    import sys
    tool = [sys.executable, str(BOOK / "tools" / "pipeline.py")]
    nb, over, eff = tmp_path / "nb.py", tmp_path / "p.yaml", tmp_path / "eff.yaml"
    nb.write_text("# %% tags=[\"parameters\"]\npool = 8\nseed = 42\nruns = ['a']\n\n# %%\nprint(pool)\n")
    over.write_text("seed: 7\n")
    subprocess.run(tool + ["params", str(nb), str(over), "pool=32 other=1", str(eff)], check=True)
    assert yaml.safe_load(eff.read_text()) == {"pool": 32, "seed": 7, "runs": ["a"]}
    subprocess.run(tool + ["params", str(nb), "", "", str(eff)], check=True)
    assert yaml.safe_load(eff.read_text()) == {"pool": 8, "seed": 42, "runs": ["a"]}
    over.write_text("undeclared: 1\n")
    bad = subprocess.run(tool + ["params", str(nb), str(over), "", str(eff)], capture_output=True, text=True)
    assert bad.returncode != 0 and "undeclared" in bad.stderr
    bad = subprocess.run(tool + ["check-params", "nokey=1", str(nb)], capture_output=True, text=True)
    assert bad.returncode != 0 and "nokey" in bad.stderr


def test_environment_matches_requirements():
    reqs = [l.strip() for l in (ROOT / "requirements.txt").read_text().splitlines()
            if l.strip() and not l.startswith("#")]
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert pip[0] == "torch==2.13.0"
    assert set(reqs) <= set(pip), set(reqs) - set(pip)
    assert "python=3.11" in env["dependencies"]


def test_pipeline_check_flags_errors_and_stderr(tmp_path):
    import json
    import subprocess
    import sys
    tool = [sys.executable, str(BOOK / "tools" / "pipeline.py"), "check"]

    def notebook(name: str, outputs: list[dict]) -> str:
        path = tmp_path / f"{name}.ipynb"
        path.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "source": "x",
                                               "outputs": outputs}]}))
        return str(path)

    clean = notebook("clean", [{"output_type": "stream", "name": "stdout", "text": ["ok\n"]}])
    noisy = notebook("noisy", [{"output_type": "stream", "name": "stderr", "text": ["UserWarning: x\n"]}])
    broken = notebook("broken", [{"output_type": "error", "ename": "KeyError", "evalue": "'k'", "traceback": []}])
    assert subprocess.run(tool + [clean], capture_output=True, text=True).returncode == 0
    out = subprocess.run(tool + [noisy, broken], capture_output=True, text=True)
    assert out.returncode == 1
    assert "noisy.ipynb: cell 0: stderr: UserWarning: x" in out.stdout
    assert "broken.ipynb: cell 0: KeyError: 'k'" in out.stdout
