"""The artifact map of ARCHITECTURE.md: paper artifact → notebook → report module → CSV → runs → configs.

Built from the sources (the book's toc, each notebook's title, the ``report.<module>.load`` calls,
the modules whose constant names a ``write_table`` call, and the parameters of its notebook in the default profile (``params/default/`` overrides), each
module's ``NAME``/``NAMES``), so it cannot drift:
``tests/test_artifact_map.py`` fails when ARCHITECTURE.md's copy differs.

    python book/tools/artifacts.py           print the map (Markdown)
    python book/tools/artifacts.py --write   rewrite it in ARCHITECTURE.md
"""
from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import yaml

from pipeline import notebook_defaults

ROOT = Path(__file__).resolve().parents[2]
START, END = "<!-- artifact-map:start -->", "<!-- artifact-map:end -->"
PROFILE = "default"


def chapters() -> list[str]:
    toc = yaml.safe_load((ROOT / "book" / "_toc.yml").read_text())
    return [ch["file"].removeprefix("content/") for part in toc.get("parts", []) for ch in part["chapters"]
            if ch["file"].startswith("content/")]


def outputs(module: str) -> list[str]:
    mod = importlib.import_module(f"trace_crs.report.{module}")
    names = getattr(mod, "NAMES", None) or {"": getattr(mod, "NAME", "")}
    return [f"{n}.csv" for n in names.values() if n]


def effective_params(name: str) -> dict:
    """The notebook's parameters in the map's profile: its defaults, overridden by ``params/<profile>/``."""
    over = ROOT / "params" / PROFILE / f"{name}.yaml"
    return notebook_defaults(ROOT / "notebooks" / f"{name}.py") | (yaml.safe_load(over.read_text()) or {} if over.is_file() else {})


def runs_of(defaults: dict) -> list[str]:
    found: list[str] = []
    for key, value in defaults.items():
        if key.endswith(("run", "runs")) and value:
            found += [v for v in _strings(value)]
    return list(dict.fromkeys(found))


def _strings(value: object) -> list[str]:
    """String leaves of a parameter value (``[[8, 'closed'], [16, 'pool16']]`` → closed, pool16)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


def rows() -> list[list[str]]:
    out = []
    for name in chapters():
        source = (ROOT / "notebooks" / f"{name}.py").read_text()
        title = re.search(r"(?m)^# # (.+)$", source).group(1).strip()
        # the modules the page loads, then those that name a table it writes (write_table(..., m.NAME))
        used = re.findall(r"\b(\w+)\.load\(", source) + re.findall(r"write_table\([^\n]*\b(\w+)\.[A-Z][A-Z0-9_]*\)", source)
        modules = [m for m in dict.fromkeys(used) if (ROOT / "src" / "trace_crs" / "report" / f"{m}.py").is_file()]
        csvs = [c for m in modules for c in outputs(m)]
        runs = runs_of(effective_params(name))
        configs = [f"`configs/{PROFILE}/{r}.yaml`" for r in runs if (ROOT / "configs" / PROFILE / f"{r}.yaml").is_file()]
        out.append([title, f"`notebooks/{name}.py`", ", ".join(f"`report/{m}.py`" for m in modules) or "—",
                    ", ".join(f"`{c}`" for c in csvs) or "—", ", ".join(runs) or "—", ", ".join(configs) or "—"])
    return out


def markdown() -> str:
    head = ["Artifact", "Notebook", "Report module(s)", "Table CSV(s)", "Runs", "Configs"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows()]
    return "\n".join(lines)


def current() -> str:
    text = (ROOT / "ARCHITECTURE.md").read_text()
    return text[text.index(START) + len(START):text.index(END)].strip()


def write() -> None:
    path = ROOT / "ARCHITECTURE.md"
    text = path.read_text()
    path.write_text(text[:text.index(START) + len(START)] + "\n" + markdown() + "\n" + text[text.index(END):])


if __name__ == "__main__":
    write() if "--write" in sys.argv[1:] else print(markdown())
