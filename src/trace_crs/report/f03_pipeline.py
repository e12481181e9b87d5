"""Figure 3 (Appendix C): the dialogue-generation pipeline, and the ``make paper`` chain that
runs it, drawn from the real build.

Panel (a) is the paper's five-stage pipeline (§2.1: scenario construction, candidate POI
selection, dialogue generation, quality validation, difficulty annotation), each stage with the
module of ours that implements it (:data:`STAGES`; checked to exist).  Panel (b) is not drawn by
hand: it is make's own dependency database for ``make paper`` on this profile
(``make -pnq -R PROFILE=<profile> paper``, which evaluates the makefiles and runs nothing),
restricted to the files the book depends on and collapsed to one node per kind of file
(:data:`NODES`; source code, tests and make's bookkeeping files are left out).  Each node says how
many files it stands for.  Editing a makefile re-executes this page (mk/paper.mk).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import textwrap
from collections import defaultdict
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import networkx as nx
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import figures

NAME = "f03_pipeline"
GOAL = "paper"
ROOT_FILE = "book/_build/html/index.html"
# §2.1's five stages (App. C) -> the module that implements each
STAGES: tuple[tuple[str, str], ...] = (
    ("1 Scenario construction", "trace_crs.dialogues.personas"),
    ("2 Candidate POI selection", "trace_crs.dialogues.pools"),
    ("3 Dialogue generation", "trace_crs.dialogues.simulator"),
    ("4 Quality validation", "trace_crs.dialogues.validate"),
    ("5 Difficulty annotation", "trace_crs.dialogues.tiers"),
)
# file path pattern -> node of panel (b) (first match wins; None: left out)
NODES: tuple[tuple[str, str | None], ...] = (
    (r"^(src|tests|mk|params|\.venv)/|^Makefile$|^FORCE$|^requirements|^pyproject", None),
    (r"^results/[^/]+/(params|timings)/", None),
    (r"_build/\.content-profile$", None),
    (r"(^|/)(crs_dataset|poi_knowledge_base)\.json$|(^|/)splits/", "paper's release"),
    (r"(^|/)yelp_academic_dataset_", "Yelp bundle"),
    (r"^data/kb/", "KB"),
    (r"^data/dialogues/", "dialogues"),
    (r"^models/", "model weights"),
    (r"^configs/", "run configs"),
    (r"^results/[^/]+/runs/", "baseline runs"),
    (r"^results/[^/]+/(scores/|\.done$)", "scores"),
    (r"^results/[^/]+/kb_realism", "KB realism"),
    (r"^results/[^/]+/([^/.]+)", r"\1"),
    (r"(^|/)content/.*\.ipynb$", "notebooks (papermill)"),
    (r"(^|/)content/build_time\.md$", "build time"),
    (r"_build/html/index\.html$", "book (HTML)"),
    (r"^book/|^build/[^/]*book/", "book pages"),
    (r"^notebooks/", "notebook sources"),
    (r"^figures/", "figures"),
)
RULE_RE = re.compile(r"^([^#\s][^:=]*?)\s*:(?![=:])\s*(.*)$")


def make_database(profile: str, goal: str = GOAL, cwd: str | Path = ".") -> str:
    """make's database for ``goal`` (nothing is run: ``-n``; exit 1 only says "out of date")."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    proc = subprocess.run(
        ["make", "-pnq", "-R", f"PROFILE={profile}", goal], cwd=cwd, env=env, capture_output=True, text=True
    )
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"make -pnq {goal} failed ({proc.returncode}): {proc.stderr.strip()[:500]}")
    return proc.stdout


def file_rules(database: str) -> dict[str, list[str]]:
    """``{target: prerequisites}`` (order-only included) of every file the database names: its
    explicit rule plus, with the stem substituted, the first pattern rule (``a/%.json: b/%``)
    whose target matches it.  Unexpanded ``$(...)`` words (second expansion) are dropped."""
    explicit: dict[str, list[str]] = {}
    patterns: list[tuple[re.Pattern[str], list[str]]] = []
    section = ""
    for line in database.splitlines():
        if line.startswith("# ") and line[2:3].isupper() and len(line.split()) <= 3:
            section = line[2:].strip()
        if section not in ("Files", "Implicit Rules") or line.startswith(("#", "\t")):
            continue
        m = RULE_RE.match(line)
        if not m or " " in m.group(1).strip():
            continue
        target = m.group(1).strip()
        deps = [d for d in m.group(2).replace("|", " ").split() if "$" not in d and "(" not in d]
        if "%" in target:
            head, _, tail = target.partition("%")
            patterns.append((re.compile(f"^{re.escape(head)}(.+){re.escape(tail)}$"), deps))
        else:
            explicit[target] = deps
    names = set(explicit) | {d for deps in explicit.values() for d in deps}
    rules: dict[str, list[str]] = {}
    for name in names:
        deps = list(explicit.get(name, []))
        for pattern, pdeps in patterns:
            m = pattern.match(name)
            if m:
                deps += [d.replace("%", m.group(1)) for d in pdeps]
                break
        rules[name] = deps
    return rules


def node_of(path: str) -> str | None:
    for pattern, node in NODES:
        m = re.search(pattern, path)
        if m:
            return m.expand(node) if node else None
    return "other inputs"


def book_root(rules: dict[str, list[str]], goal: str = GOAL) -> str:
    """The book's HTML index the goal builds (``book/…`` or a profile's own book directory)."""
    found = [d for d in rules.get(goal, []) if d.endswith("_build/html/index.html")]
    return found[0] if found else ROOT_FILE


def collapse(rules: dict[str, list[str]], root: str = ROOT_FILE) -> pd.DataFrame:
    """Edges ``source → target`` between nodes, over the files ``root`` depends on, with counts."""
    seen, stack = {root}, [root]
    while stack:
        for dep in rules.get(stack.pop(), []):
            if dep not in seen:
                seen.add(dep)
                stack.append(dep)
    files: dict[str, set[str]] = defaultdict(set)
    edges: set[tuple[str, str]] = set()
    for target in seen:
        t = node_of(target)
        if t is None:
            continue
        files[t].add(target)
        for dep in rules.get(target, []):
            s = node_of(dep)
            if s is not None and s != t:
                edges.add((s, t))
    for f in seen:
        n = node_of(f)
        if n is not None:
            files[n].add(f)
    frame = pd.DataFrame(sorted(edges), columns=["source", "target"])
    frame["source_files"] = [len(files[s]) for s in frame["source"]]
    frame["target_files"] = [len(files[t]) for t in frame["target"]]
    return frame


def stages() -> pd.DataFrame:
    """Panel (a): the paper's stage and our module (ValueError for a module that is gone)."""
    for _, module in STAGES:
        if importlib.util.find_spec(module) is None:
            raise ValueError(f"{module} does not exist")
    return pd.DataFrame(STAGES, columns=["stage", "module"])


def load(results_dir: str | Path, cwd: str | Path = ".") -> pd.DataFrame:
    """The collapsed ``make paper`` graph of the profile ``results_dir`` belongs to."""
    profile = Path(results_dir).name
    rules = file_rules(make_database(profile, cwd=cwd))
    root = book_root(rules)
    frame = collapse(rules, root)
    if frame.empty:
        raise RuntimeError(f"make's database for PROFILE={profile} has no dependency of {root}")
    frame.attrs["profile"] = profile
    return frame


def _layers(df: pd.DataFrame) -> list[list[str]]:
    g = nx.DiGraph()
    g.add_edges_from(zip(df["source"], df["target"], strict=False))
    if not nx.is_directed_acyclic_graph(g):
        raise ValueError("the collapsed make graph has a cycle")
    return [sorted(layer) for layer in nx.topological_generations(g)]


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """(a) the five stages with our modules; (b) the collapsed make graph, sources on top."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 8.5), gridspec_kw={"height_ratios": [1, 4]})
    for ax in (top, bottom):
        ax.set_axis_off()
        ax.set(xlim=(0, 1), ylim=(0, 1))
    box = {"boxstyle": "round,pad=0.3", "ec": "0.4"}
    boxes = []
    for i, (stage, module) in enumerate(STAGES):
        text = textwrap.fill(stage, 14) + f"\n({module.rsplit('.', 1)[-1]}.py)"
        boxes.append(
            top.text(0.1 + i * 0.2, 0.45, text, ha="center", va="center", fontsize=9, bbox=box | {"fc": "#e8eef9"})
        )
    for a, b in zip(boxes, boxes[1:], strict=False):
        top.annotate(
            "",
            xy=(0, 0.5),
            xycoords=b,
            xytext=(1, 0.5),
            textcoords=a,
            arrowprops={"arrowstyle": "->", "shrinkA": 4, "shrinkB": 4},
        )
    top.set_title("(a) the paper's five stages (App. C) and the module of each")
    counts = dict(zip(df["source"], df["source_files"], strict=False)) | dict(
        zip(df["target"], df["target_files"], strict=False)
    )
    layers = _layers(df)
    pos: dict[str, tuple[float, float]] = {}
    for j, layer in enumerate(layers):
        y = 0.95 - j * (0.9 / max(1, len(layers) - 1))
        stagger = 0.035 if len(layer) > 4 else 0.0  # a wide layer alternates up and down
        for i, node in enumerate(layer):
            pos[node] = ((i + 1) / (len(layer) + 1), y + (stagger if i % 2 else -stagger))
    label = {n: textwrap.fill(f"{n} ({counts[n]})", 14) for n in pos}
    texts = {
        n: bottom.text(x, y, label[n], ha="center", va="center", fontsize=9, bbox=box | {"fc": "#fdf3dc"})
        for n, (x, y) in pos.items()
    }
    for _, r in df.iterrows():
        bottom.annotate(
            "",
            xy=(0.5, 1),
            xycoords=texts[r["target"]],
            xytext=(0.5, 0),
            textcoords=texts[r["source"]],
            arrowprops={"arrowstyle": "->", "color": "0.55", "lw": 0.8, "shrinkA": 4, "shrinkB": 4},
        )
    bottom.set_title(f"(b) make paper, PROFILE={df.attrs.get('profile', '?')}: make's own graph (files per node)")
    fig.suptitle("Figure 3: the generation pipeline and the build that runs it")
    return figures.save(fig, NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    nodes = set(df["source"]) | set(df["target"])
    return {"n_nodes": len(nodes), "n_edges": len(df), "n_layers": len(_layers(df))}
