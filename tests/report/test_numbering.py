"""Every paper table and figure the book shows carries the paper's number, as one list says
(``trace_crs.report.numbering``): page titles, section headings and table captions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from trace_crs.report import numbering

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
NAMED = re.compile(r"\b(Table|Figure) (\d+)\b(?!\s*[a-z]\b)")
HEADING = re.compile(r"^# (#+) (.*)$", re.M)
CAPTION = re.compile(r"""(?:caption=|present\.table\([^\n]*?,\s*)["']([^"']*)["']""")
APPENDIX = re.compile(r"\((?:Appendix|App\.) ([A-Z])\)")


def chapters() -> list[str]:
    toc = yaml.safe_load((ROOT / "book" / "_toc.yml").read_text())
    files = [ch["file"] for part in toc["parts"] for ch in part["chapters"]]
    return [f.removeprefix("content/") for f in files if f.startswith("content/")]


def headings(page: str) -> list[str]:
    return [m.group(2) for m in HEADING.finditer((NOTEBOOKS / f"{page}.py").read_text())]


def captions(page: str) -> list[str]:
    return CAPTION.findall((NOTEBOOKS / f"{page}.py").read_text())


def test_list_is_the_papers_numbering():
    tables = sorted(a.number for a in numbering.ARTEFACTS if a.kind == "Table")
    figures = sorted(a.number for a in numbering.ARTEFACTS if a.kind == "Figure")
    assert tables == list(range(1, 30))
    assert figures == [1, 2, 3, 6]
    assert len(numbering.BY_NAME) == len(numbering.ARTEFACTS)


@pytest.mark.parametrize("art", numbering.ARTEFACTS, ids=lambda a: a.name)
def test_every_artefact_has_a_heading_on_its_page(art):
    assert art.page in chapters(), f"{art.name}: page {art.page} is not in book/_toc.yml"
    named = {f"{k} {n}" for h in headings(art.page) for k, n in NAMED.findall(h)}
    assert art.name in named, f"{art.name}: no heading of notebooks/{art.page}.py names it"


@pytest.mark.parametrize("page", sorted(p.stem for p in NOTEBOOKS.glob("*.py")))
def test_every_heading_and_caption_names_the_listed_number(page):
    for text in headings(page) + captions(page):
        for kind, number in NAMED.findall(text):
            name = f"{kind} {number}"
            assert name in numbering.BY_NAME, f"{page}: {text!r} names {name}, which the paper does not have"
            art = numbering.BY_NAME[name]
            assert art in numbering.of_page(page), f"{page}: {text!r} — {name} belongs to {art.page}"


@pytest.mark.parametrize("art", numbering.ARTEFACTS, ids=lambda a: a.name)
def test_title_appendix_matches_the_list(art):
    for text in headings(art.page):
        if art.name in text and (m := APPENDIX.search(text)):
            assert (
                f"App. {m.group(1)}" in art.section
            ), f"{art.name}: heading says {m.group(0)}, list says {art.section}"


def test_detector():
    assert NAMED.findall("Table 13b — x") == []
    assert NAMED.findall("Tables 10–15") == []
    assert NAMED.findall("Agreement, Table 12 and Table 13") == [("Table", "12"), ("Table", "13")]
    assert CAPTION.findall('present.table(x, "Paper, Table 11")') == ["Paper, Table 11"]
