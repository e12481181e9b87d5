"""The official book's pages (release.pages): every chapter declared, notes from the mapping
report, a toc without the left-out chapters and a page that lists them."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from trace_crs.release import pages
from trace_crs.release.official import FIELDS

ROOT = Path(__file__).resolve().parents[2]
TOC = yaml.safe_load((ROOT / "book" / "_toc.yml").read_text())
STATUS = {f["field"]: f["status"] for f in FIELDS}


def report(n: int = 3) -> dict:
    """A mapping report as the importer writes it (its ``fields`` rows: FIELDS + counts)."""
    rows = [{**f, "units": n, "present": 0 if f["status"] in ("absent", "kb") else n} for f in FIELDS]
    return {"counts": {"dialogues": n}, "fields": rows, "unconsumed_release_keys": {"turn.mood": 2}}


def test_every_notebook_is_declared():
    # a superset: a chapter of a branch not merged yet (human_eval) may be declared ahead of it
    notebooks = {p.stem for p in (ROOT / "notebooks").glob("*.py")}
    assert notebooks <= set(pages.PAGES) and set(pages.toc_notebooks(TOC)) <= set(pages.PAGES)
    assert set(pages.PAGES) - notebooks <= {"human_eval"}


@pytest.mark.parametrize("page", sorted(pages.PAGES))
def test_declared_fields_are_the_releases_non_copied_fields(page):
    for field in pages.PAGES[page]["reads"]:
        assert STATUS[field] in ("derived", "kb", "absent"), field


def test_the_book_pages_link_only_to_built_chapters():
    # intro/datacard/reproduce are copied into the official book: a {doc} or glue link to a
    # chapter it leaves out would fail the -W build
    built = set(pages.built(TOC))
    for md in (ROOT / "book").glob("*.md"):
        for name in re.findall(r"content/([A-Za-z0-9_]+)", md.read_text()):
            if name not in ("build_time", "kb_realism"):
                assert name in built, (md.name, name)


def test_note_names_each_unused_field_with_its_counts():
    note = pages.page_note("t27_multi_reference", report(5))
    assert note.startswith(":::{note} On the paper's release\n") and note.endswith(":::\n")
    assert "`turns.acceptable_alternative_poi_ids`: not in the release (present in 0 of 5;" in note
    assert "MR-R@1 equals R@1" in note and "5 dialogues" in note


def test_note_of_a_page_reading_only_copied_fields():
    assert "Every field this page reads is copied from the release" in pages.page_note("t05_headline", report())


def test_note_goes_below_the_title():
    nb = {"cells": [{"cell_type": "code", "source": "x = 1"}, {"cell_type": "markdown", "source": ["# Table 5\n", "text"]},
                    {"cell_type": "code", "source": "y"}], "metadata": {}}
    out = pages.insert_note(nb, "NOTE")
    assert [c["source"] for c in out["cells"]] == ["x = 1", ["# Table 5\n", "text"], "NOTE", "y"]
    assert out["cells"][2]["id"] == "release-note"  # nbformat 4.5 cell id
    assert len(nb["cells"]) == 3  # the input is not changed


def test_toc_keeps_built_chapters_in_order_and_lists_the_others():
    toc = pages.official_toc(TOC)
    assert pages.toc_notebooks(toc) == pages.built(TOC)
    assert toc["parts"][-1]["chapters"] == [{"file": pages.MISSING_PAGE}]
    text = pages.missing_page(TOC, report())
    left_out = [n for n in pages.toc_notebooks(TOC) if pages.PAGES[n]["missing"]]
    assert left_out and all(f"| `{n}` |" in text for n in left_out)
    assert all(f"| `{n}` |" not in text for n in pages.built(TOC))
    assert "`turn.mood` (2)" in text and text.count("| `scenario.") >= 6


def test_undeclared_chapter_is_an_error():
    toc = {"parts": [{"chapters": [{"file": "content/t99_new"}]}]}
    with pytest.raises(KeyError, match="t99_new"):
        pages.built(toc)


def test_assemble_and_note_commands(tmp_path):
    rep = tmp_path / "mapping_report.json"
    rep.write_text(json.dumps(report()))
    out = tmp_path / "book"
    (out / "content").mkdir(parents=True)
    (out / "content" / "kept.ipynb").write_text("{}")
    assert pages.main(["assemble", "--src", str(ROOT / "book"), "--report", str(rep), "--out", str(out)]) == 0
    assert (out / "content" / "kept.ipynb").read_text() == "{}"  # executed pages are left alone
    assert yaml.safe_load((out / "_toc.yml").read_text()) == pages.official_toc(TOC)
    assert (out / "_config.yml").read_text() == (ROOT / "book" / "_config.yml").read_text()
    assert (out / "not_available.md").exists() and (out / "_ext" / "trace_reader.py").exists()
    nb = tmp_path / "p.ipynb"
    nb.write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": "# T\n"}], "metadata": {}}))
    assert pages.main(["note", "--page", "t05_headline", "--report", str(rep), "--notebook", str(nb),
                       "--out", str(tmp_path / "q.ipynb")]) == 0
    cells = json.loads((tmp_path / "q.ipynb").read_text())["cells"]
    assert cells[1]["source"] == pages.page_note("t05_headline", report())
    with pytest.raises(SystemExit):
        pages.main(["note", "--page", "t05_headline", "--report", str(rep), "--notebook", str(nb), "--out", str(nb)])


def test_links_to_left_out_pages_point_at_the_page_that_lists_them():
    from trace_crs.release.pages import MISSING_PAGE, relink_missing

    text = ("See [the validity page](../content/judge_validity.ipynb) and [Table 5](../content/t05_headline.ipynb);\n"
            "{doc}`content/judge_validity` and {doc}`content/t05_headline`; "
            "{glue:text}`content/t05_headline.ipynb::x` stays.")
    out = relink_missing(text, {"t05_headline"})
    assert out == (f"See [the validity page](../{MISSING_PAGE}.md) and [Table 5](../content/t05_headline.ipynb);\n"
                   f"{{doc}}`{MISSING_PAGE}` and {{doc}}`content/t05_headline`; "
                   "{glue:text}`content/t05_headline.ipynb::x` stays.")
