"""The book on the paper's release (profile ``official``, mk/official.mk): which pages its data
can feed, and on each page the release fields it could not use (paper §2.1 Release, App. H).

:data:`PAGES` holds every notebook of ``book/_toc.yml``: the fields of
:data:`~trace_crs.release.official.FIELDS` that are not copied from the release (status
``derived``, ``kb`` or ``absent``) and that the page's numbers read, what that does to the page,
and — for a page the official book leaves out — why (``missing``).  The official book is a
separate jupyter-book source directory (``assemble``: the book's own pages, a toc without the
left-out pages, and one page listing them with their reasons and the mapping report's field
table), so a smoke or default build and an official build never share a file.  ``note`` puts the
page's field note below the title of an executed notebook.

    python -m trace_crs.release.pages list                       # pages of the official book
    python -m trace_crs.release.pages assemble --src book --report R --out DIR
    python -m trace_crs.release.pages note --page P --report R --notebook NB --out NB2
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

import yaml

from trace_crs.atomic import write_json, write_text


class Page(TypedDict):
    """What one book page reads of the non-copied fields, and why the official book omits it."""

    reads: dict[str, str]  # field -> what its release status does to this page
    missing: str  # "" when the official book builds the page; else the reason it does not


def _p(missing: str = "", reads: dict[str, str] | None = None) -> Page:
    return {"reads": dict(reads or {}), "missing": missing}


_LLM = "needs LLM runs ({}); the official profile runs the non-LLM baselines only (configs/official/)"
_SENS = "a re-scoring analysis of `make sensitivity` ({}), not wired for the official profile"
_PREFS = "scenario.hidden_preferences"
_ALTS = "turns.acceptable_alternative_poi_ids"
PAGES: dict[str, Page] = {
    "f01_overview": _p(),
    "t01_benchmarks": _p(reads={_PREFS: "the multi-aspect share is 0: the release carries no hidden preferences"}),
    "t02_gap_map": _p(),
    "t04_release": _p(),
    "f03_pipeline": _p(),
    "t07_metrics": _p(),
    "t08_baselines": _p(),
    "t20_spreads": _p(),
    "performance": _p(),
    "t03_dataset": _p(
        reads={
            _PREFS: "the decoder-recall, price-recall and persona-slice rows have nothing to compare with",
            _ALTS: "the share of turns with an acceptable alternative is 0 by construction",
        }
    ),
    "t05_headline": _p(),
    "t06_per_axis": _p(reads={"open_set_poi_ids": "the open-set column ranks the imported KB's city x type slice"}),
    "f02_gap": _p(reads={"open_set_poi_ids": "the open-set side ranks the imported KB's city x type slice"}),
    "t09_practical": _p(),
    "t16_fuzzy_threshold": _p(_SENS.format("fuzzy-threshold sweep")),
    "t17_entailment_vs_fuzzy": _p("needs an entailment (NLI) model; the official profile scores with entailment off"),
    "t18_spatial_threshold": _p(_SENS.format("spatial-threshold sweep")),
    "t19_antigaming": _p(),
    "t21_bootstrap": _p(_LLM.format("the seeded closed_llm subset")),
    "t22_cgs_variants": _p(),
    "grounding_independence": _p(),
    "nli_threshold": _p(_SENS.format("NLI threshold sweep")),
    "t23_difficulty": _p(),
    "t24_pool_size": _p(
        "the release carries no 16- and 32-POI pools (expanded_pool_poi_ids); pools re-drawn from the "
        "imported KB would not be the paper's"
    ),
    "t25_open_set": _p(_LLM.format("open_llm, open_llm_dense")),
    "t26_test_split": _p(),
    "t27_multi_reference": _p(reads={_ALTS: "MR-R@1 equals R@1 and the alternative-only columns are empty"}),
    "t29_judge": _p(_LLM.format("an LLM judge")),
    "t28_cross_judge": _p(_LLM.format("two LLM judges")),
    "core_judge": _p(_LLM.format("the CoRE judges")),
    "core_fig5_debate_agreement": _p(_LLM.format("the CoRE multi-agent debate")),
    "core_fig9_factor_tau": _p(_LLM.format("the CoRE judges' per-factor ratings")),
    "judge_validity": _p(_LLM.format("the CoRE judge on CRSArena-Eval's human-rated conversations")),
    "f06_error_analysis": _p(_SENS.format("error analysis")),
    "oracle_knapsack": _p(_LLM.format("closed_llm: the oracle trades LLM rows' cost against accuracy")),
    "live_vs_replayed": _p(
        "the live simulated user answers from hidden preferences (scenario.hidden_preferences), "
        "which the release does not carry"
    ),
    "travelbench_abstention": _p(
        "the unsolvable set is generated from hidden preferences; the release carries neither"
    ),
    "deviations": _p(
        "the official run appears on the main book's Deviations page, as its column "
        "'reproduced on the paper's corpus'"
    ),
    "human_eval": _p(
        "the human-evaluation labels are collected on our own corpus (trace-crs human); the release has none"
    ),
    "provenance": _p(reads={"metadata.kb_sha256": "the KB identity is the imported KB's, not the paper's"}),
}
STATUS_WORDS = {"derived": "derived", "kb": "computed from the imported KB", "absent": "not in the release"}
NOTE_TITLE = "On the paper's release"
MISSING_PAGE = "not_available"


def toc_notebooks(toc: Mapping[str, Any]) -> list[str]:
    """The notebook names (``content/<name>``) of a jupyter-book toc, in book order."""
    files = [c["file"] for part in toc.get("parts", []) for c in part.get("chapters", [])]
    return [f.removeprefix("content/") for f in files if f.startswith("content/")]


def built(toc: Mapping[str, Any]) -> list[str]:
    """The notebooks of ``toc`` the official book builds (an undeclared page is an error)."""
    names = toc_notebooks(toc)
    undeclared = [n for n in names if n not in PAGES]
    if undeclared:
        raise KeyError(f"release.pages.PAGES does not declare the book pages {undeclared}")
    return [n for n in names if not PAGES[n]["missing"]]


def _fields(report: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["field"]: row for row in report["fields"]}


def page_note(page: str, report: Mapping[str, Any]) -> str:
    """The MyST note of ``page``: each release field it could not use, with the mapping report's
    status and counts, and what that does to the page (or that every field it reads is mapped)."""
    rows = _fields(report)
    n = report["counts"]["dialogues"]
    lines = []
    for field, effect in PAGES[page]["reads"].items():
        row = rows[field]
        lines.append(
            f"- `{field}`: {STATUS_WORDS[row['status']]} (present in {row['present']} of {row['units']}; "
            f"{row['note']}). Here: {effect}."
        )
    body = (
        "This page could not use these fields of the release (mapping report of the import, "
        f"{n} dialogues):\n\n" + "\n".join(lines)
        if lines
        else f"Every field this page reads is copied from the release (mapping report of the import, {n} dialogues)."
    )
    return f":::{{note}} {NOTE_TITLE}\n{body}\n:::\n"


def insert_note(nb: dict[str, Any], text: str) -> dict[str, Any]:
    """``nb`` with a markdown cell ``text`` right after its title cell (first ``# `` heading)."""
    cells = nb["cells"]
    title = next(
        (
            i
            for i, c in enumerate(cells)
            if c["cell_type"] == "markdown" and "".join(c["source"]).lstrip().startswith("# ")
        ),
        -1,
    )
    cell = {"cell_type": "markdown", "id": "release-note", "metadata": {"tags": ["release-note"]}, "source": text}
    return {**nb, "cells": [*cells[: title + 1], cell, *cells[title + 1 :]]}


def missing_page(toc: Mapping[str, Any], report: Mapping[str, Any]) -> str:
    """The page listing the book pages this dataset cannot feed, and the mapping report's fields."""
    out = [
        "# Not available for this dataset",
        "",
        "The book built on the paper's release (`make paper DATASET=official`) has the pages its data "
        "can feed. These pages are left out, and why:",
        "",
        "| Page | Why it is not built |",
        "|---|---|",
    ]
    out += [f"| `{n}` | {PAGES[n]['missing']} |" for n in toc_notebooks(toc) if PAGES[n]["missing"]]
    out += [
        "",
        "## The import's field mapping",
        "",
        f"Every field of our dialogue schema and where it came from "
        f"(`mapping_report.json`, {report['counts']['dialogues']} dialogues).",
        "",
        "| Field | Release source | Status | Present | Of | Note |",
        "|---|---|---|---|---|---|",
    ]
    out += [
        f"| `{r['field']}` | `{r['source']}` | {r['status']} | {r['present']} | {r['units']} | {r['note']} |"
        for r in report["fields"]
    ]
    keys = report.get("unconsumed_release_keys") or {}
    out += [
        "",
        "Release keys the mapping did not read: "
        + (", ".join(f"`{k}` ({v})" for k, v in keys.items()) or "none")
        + ".",
    ]
    return "\n".join(out) + "\n"


def official_toc(toc: Mapping[str, Any]) -> dict[str, Any]:
    """``toc`` without the left-out pages, plus the page that lists them (last part)."""
    keep = set(built(toc))
    parts = []
    for part in toc.get("parts", []):
        chapters = [c for c in part["chapters"] if not c["file"].startswith("content/") or c["file"][8:] in keep]
        if chapters:
            parts.append({**part, "chapters": chapters})
    parts.append({"caption": "On the paper's release", "chapters": [{"file": MISSING_PAGE}]})
    return {**toc, "parts": parts}


# a Markdown link or {doc} role to a page: ``](../content/x.ipynb)``, ``{doc}`content/x` ``
_PAGE_LINK = re.compile(r"(\]\(|\{doc\}`)((?:\.\./)*)content/([\w-]+)(\.ipynb\)|`)")


def relink_missing(text: str, keep: set[str]) -> str:
    """``text`` with every link to a page the official book leaves out pointed at the page that
    lists the left-out pages and why (a dangling link fails ``jupyter-book build -W``)."""

    def repl(m: re.Match[str]) -> str:
        if m[3] in keep:
            return m[0]
        return f"{m[1]}{m[2]}{MISSING_PAGE}{'.md)' if m[4].endswith(')') else '`'}"

    return _PAGE_LINK.sub(repl, text)


def assemble(src: Path, report_path: Path, out: Path) -> None:
    """Write the official book's source directory ``out`` from the book ``src`` (its pages,
    configuration, extensions and static files; ``content/`` and ``_build/`` are left alone);
    links to pages it leaves out point at the page that lists them (:func:`relink_missing`)."""
    report = json.loads(report_path.read_text())
    toc = yaml.safe_load((src / "_toc.yml").read_text())
    keep = set(built(toc))
    for item in sorted(src.iterdir()):
        if item.name in ("_toc.yml", "_build", "content", "tools") or item.name.startswith("."):
            continue
        if item.is_dir():
            shutil.copytree(item, out / item.name, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
            for page in sorted((out / item.name).rglob("*.md")):
                page.write_text(relink_missing(page.read_text(), keep))
        elif item.suffix == ".md":
            write_text(out / item.name, relink_missing(item.read_text(), keep))
        else:
            write_text(out / item.name, item.read_text())
    write_text(out / f"{MISSING_PAGE}.md", missing_page(toc, report))
    write_text(out / "_toc.yml", yaml.safe_dump(official_toc(toc), sort_keys=False))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m trace_crs.release.pages", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list", help="the notebooks the official book builds, one per line")
    ls.add_argument("--toc", type=Path, default=Path("book/_toc.yml"))
    asm = sub.add_parser("assemble", help="write the official book's source directory")
    asm.add_argument("--src", type=Path, default=Path("book"))
    note = sub.add_parser("note", help="put a page's release-field note below its title")
    note.add_argument("--page", required=True)
    note.add_argument("--notebook", type=Path, required=True)
    for s in (asm, note):
        s.add_argument("--report", type=Path, required=True, help="the import's mapping_report.json")
        s.add_argument("--out", type=Path, required=True)
    a = p.parse_args(argv)
    if a.cmd == "list":
        print("\n".join(built(yaml.safe_load(a.toc.read_text()))))
    elif a.cmd == "assemble":
        assemble(a.src, a.report, a.out)
    else:
        if a.out.resolve() == a.notebook.resolve():
            p.error(f"--out {a.out} would overwrite the input --notebook")
        nb = json.loads(a.notebook.read_text())
        write_json(insert_note(nb, page_note(a.page, json.loads(a.report.read_text()))), a.out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
