"""Table 8 (Appendix A): the baseline catalogue, generated from the baseline registry.

The paper's 14 rows (``report/paper/table8_baselines.csv``: capability, LLM, retrieval signal
— S sparse, A aspect, D dense, G geographic, KB attributes, P persona — and dialogue state) sit
beside our registry entry of each (:data:`trace_crs.baselines.registry.SPECS`): label, family,
whether it calls a language model, the class it is built from, the first line of that class's
docstring (read from the source with :mod:`ast`, so listing the catalogue imports neither torch
nor an LLM backend), whether it is session-isolated (§4), and the runs of this profile that
scored it (``scores/<run>/<baseline>.json`` under ``results_dir``).  Registry entries the paper
does not list (Itinerary-LLM, of Tables 17 and 22) close the table.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs.baselines.registry import SESSION_ISOLATED, SPECS
from trace_crs.report import compare, paper

NAME = "t08_baselines"
PAPER = "table8_baselines"
PAPER_COLUMNS = ["#", "Baseline", "Key Capability", "LLM", "Retrieval", "State"]


# The page shows the catalogue in two tables that each fit the text column (present.split),
# both led by the paper's row number and our label.
GROUPS: dict[str, list[str]] = {
    "the paper's catalogue": ["paper Baseline", "paper Key Capability", "paper LLM", "paper Retrieval", "paper State"],
    "this compendium's registry": ["family", "uses LLM", "class", "what it does here", "session-isolated", "scored in"],
}
FIRST = ("#", "label")


def summary(target: str) -> str:
    """First docstring line of the class ``module:Class`` (from the source, not imported)."""
    module, _, cls = target.partition(":")
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ValueError(f"{target}: module not found")
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            doc = ast.get_docstring(node) or ""
            return " ".join(doc.split("\n\n")[0].split()) or "—"
    raise ValueError(f"{target}: class {cls} not found in {spec.origin}")


def scored_in(results_dir: str | Path, key: str) -> str:
    """The runs under ``results_dir/scores`` with a score file of baseline ``key``."""
    runs = sorted(p.parent.name for p in Path(results_dir, "scores").glob(f"*/{key}.json"))
    return ", ".join(runs) or "not run"


def ours(results_dir: str | Path, key: str) -> dict[str, Any]:
    spec = SPECS[key]
    return {
        "key": key,
        "label": spec.label,
        "family": spec.family.replace("_", "-"),
        "uses LLM": "✓" if spec.uses_llm else "—",
        "class": f"`{spec.target.removeprefix('trace_crs.baselines.')}`",
        "what it does here": summary(spec.target),
        "session-isolated": "✓" if key in SESSION_ISOLATED else "— (§4)",
        "scored in": scored_in(results_dir, key),
    }


def load(results_dir: str | Path) -> pd.DataFrame:
    """Paper rows (printed order) with our registry entry, then entries the paper omits."""
    printed = paper.table(PAPER)
    rows, seen = [], set()
    for _, r in printed.iterrows():
        key = compare.key_of(r["Baseline"])
        if key is None or key not in SPECS:
            raise ValueError(f"paper baseline {r['Baseline']!r} has no registry entry")
        seen.add(key)
        rows.append({f"paper {c}" if c != "#" else "#": r[c] for c in PAPER_COLUMNS} | ours(results_dir, key))
    for key in SPECS:
        if key not in seen:
            blank = {f"paper {c}" if c != "#" else "#": "" for c in PAPER_COLUMNS} | {
                "paper Baseline": "not in Table 8"
            }
            rows.append(blank | ours(results_dir, key))
    return pd.DataFrame(rows)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    return {
        "n_paper": int((df["paper Baseline"] != "not in Table 8").sum()),
        "n_registry": len(SPECS),
        "n_llm": int((df["uses LLM"] == "✓").sum()),
    }
