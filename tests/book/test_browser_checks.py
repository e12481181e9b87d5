"""The book's reader checks (tests/browser.py) fail on the mutations they exist for: a raw
DataFrame display, a glued NaN in prose, a page wider than a phone, a figure without caption,
a broken link and a console error; and pass on a page built the way report.present builds one."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trace_crs.report import present

spec = importlib.util.spec_from_file_location("trace_browser", Path(__file__).parents[1] / "browser.py")
checks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(checks)

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="720" height="300"><rect width="720" height="300" '
       'fill="#ccc"/></svg>')
FRAME = pd.DataFrame({"baseline": ["tfidf", "dst"], "recall@1": [0.25, np.nan]})


def page(body: str, head: str = "") -> str:
    return (f'<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<link rel="stylesheet" href="trace.css">{head}</head><body><main>{body}</main></body></html>')


GOOD = page(f"""<h1>Table 5</h1><p>Ours 0.250 against the paper's 0.257 (n = 2).</p>
{present.table(FRAME, "Recall")._repr_html_()}
<figure><img src="fig.svg" alt="Chart t05: this run against paper"><figcaption>Figure 1: this run vs paper</figcaption></figure>
<p><a href="other.html">next</a> <a href="#top">top</a></p>""")

MUTATIONS = {
    "raw DataFrame display": (page(FRAME.to_html()), ["raw DataFrame", "leak 'NaN'"]),
    "raw Styler with an index and 6 decimals": (page(pd.DataFrame({"x": [0.1234567]}).style.format("{:.6f}").to_html()),
                                                ["more than 3 decimals", "an index column is shown"]),
    "glued NaN in prose": (page("<p>At its best τ, ours nan reaches the paper.</p>"), ["leak 'nan'"]),
    "IPython object in prose": (page("<p>At its best, &lt;IPython.core.display.Markdown object&gt; reaches</p>"),
                                ["leak '<IPython'"]),
    "page wider than a phone": (page('<div style="width:1200px">wide</div>'), ["scrolls sideways at 390 px"]),
    "figure without caption": (page('<div class="cell_output"><img src="fig.svg" alt="3f2a9c1b5d7e8f90aa"></div>'),
                               ["figure without a caption", "figure without real alt text"]),
    "broken link and image": (page('<a href="missing.html">x</a><img src="gone.png" alt="x">'),
                              ["broken link to /missing.html", "broken image gone.png"]),
}


@pytest.fixture
def site(tmp_path):
    (tmp_path / "trace.css").write_text((Path(__file__).parents[2] / "book/_static/trace.css").read_text())
    (tmp_path / "fig.svg").write_text(SVG)
    (tmp_path / "other.html").write_text(page("<p>other</p>"))
    (tmp_path / "good.html").write_text(GOOD)
    for i, (html, _) in enumerate(MUTATIONS.values()):
        (tmp_path / f"m{i}.html").write_text(html)
    return tmp_path


def test_a_present_page_passes_and_every_mutation_is_caught(browser, site):
    with checks.serve(site) as base:
        pg = browser.new_page(viewport=checks.PHONE)
        assert checks.check_page(pg, base + "good.html", site, base) == []
        for i, (name, (_, expected)) in enumerate(MUTATIONS.items()):
            problems = checks.check_page(pg, base + f"m{i}.html", site, base)
            for want in expected:
                assert any(want in p for p in problems), (name, want, problems)
        pg.close()


def test_console_errors_are_heard(browser, site):
    (site / "err.html").write_text(page("<p>x</p>", "<script>throw new Error('boom')</script>"))
    with checks.serve(site) as base:
        pg = browser.new_page()
        errors = checks.listen(pg)
        pg.goto(base + "err.html", wait_until="load")
        assert any("boom" in e for e in errors)
        pg.close()


def test_a_table_too_wide_for_its_column_is_reported(browser, site):
    wide = present.table(pd.DataFrame({f"metric_{i}": [0.123456] * 2 for i in range(30)}), lift=False)
    wide.fit = True
    (site / "wide.html").write_text(page(wide._repr_html_()))
    with checks.serve(site) as base:
        pg = browser.new_page(viewport=checks.PHONE)
        assert checks.check_page(pg, base + "wide.html", site, base) == []   # it scrolls in its wrapper only
        assert checks.tables_fit(pg, base + "wide.html")                        # but does not fit
        assert checks.tables_fit(pg, base + "good.html") == []
        pg.close()


def test_a_figure_shrunk_below_its_drawn_size_is_reported(browser, site):
    (site / "small.html").write_text(page('<figure style="width:300px"><img src="fig.svg" alt="Chart x" '
                                          'style="max-width:100%"><figcaption>Fig. 1</figcaption></figure>'))
    with checks.serve(site) as base:
        pg = browser.new_page(viewport=checks.LAPTOP)
        assert checks.figures_unscaled(pg, base + "small.html")      # 720 px drawn, 300 px shown
        assert checks.figures_unscaled(pg, base + "good.html") == []
        pg.close()


def _svg(font_px: float, rotate: bool = False, paths: bool = False) -> str:
    """A figure as matplotlib writes it (svg.fonttype "none"): 540 pt wide, text sized in user units."""
    turn = ' transform="rotate(-90 30 100)"' if rotate else ""
    text = ('<g id="text_2"><use xlink:href="#DejaVuSans-30" transform="scale(0.09)"/></g>' if paths else
            f'<g id="text_2"><text style="font: {font_px}px \'DejaVu Sans\'" x="30" y="100"{turn}>0.25</text></g>')
    return ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="540pt" '
            'height="200pt" viewBox="0 0 540 200"><g id="text_1"><text style="font: 12px \'DejaVu Sans\'" x="200" '
            f'y="20">Title</text></g>{text}</svg>')


@pytest.mark.parametrize("svg, width, problem", [
    (_svg(9), "", None),                               # 9 user units in a 540 pt figure shown at 720 px = 9 pt
    (_svg(9, rotate=True), "", None),                  # a rotated axis label keeps its size
    (_svg(10), "width:600px", "is 8.3 pt < 9 pt"),     # drawn at 10 pt, shown at 600 of 720 px: 8.3 pt
    (_svg(7), "", "is 7.0 pt < 9 pt"),
    (_svg(9), "width:500px", "is 6.2 pt < 9 pt"),      # 9 × 500/720 shown smaller than drawn
    (_svg(9, paths=True), "", "drawn as paths"),
])
def test_figure_text_is_measured_at_its_displayed_size(browser, site, svg, width, problem):
    (site / "f.svg").write_text(svg)
    style = f' style="{width}"' if width else ""
    (site / "f.html").write_text(page(f'<figure><img src="f.svg" alt="Chart f"{style}><figcaption>Fig.</figcaption></figure>'))
    with checks.serve(site) as base:
        pg = browser.new_page(viewport=checks.LAPTOP)
        problems = checks.figure_text(pg, base + "f.html")
        pg.close()
    if problem is None:
        assert problems == []
    else:
        assert any(problem in p for p in problems), problems


def test_raster_and_inline_figures(browser, site):
    from PIL import Image
    Image.new("RGB", (40, 20), "white").save(site / "r.png")
    inline = _svg(7).replace("<svg ", '<svg style="width:720px" ', 1)
    (site / "r.html").write_text(page(f'<figure><img src="r.png" alt="Chart r"><figcaption>Fig.</figcaption></figure>'
                                      f'<div class="cell_output">{inline}</div>'))
    with checks.serve(site) as base:
        pg = browser.new_page(viewport=checks.LAPTOP)
        problems = checks.figure_text(pg, base + "r.html")
        pg.close()
    assert any("raster image" in p for p in problems) and any("inline svg" in p and "7.0 pt" in p for p in problems)


@pytest.mark.parametrize("cell, bad", [
    ("0.250", False), ("0.250 [0.18, 0.31]", False), ("< 0.001", False), ("1,234", False), ("v0.1.2", False),
    ("2026-11-23", False), ("kb:ab12cd34|fuzzy:0.80", False), ("3.2e-05", False),
    ("0.1234", True), ("0.250 [0.1834, 0.31]", True), ("-0.00542", True), ("1.2345e-05", True), ("−0.1234", True),
])
def test_decimals_are_counted_in_every_number_of_a_cell(cell, bad):
    assert checks.too_precise(cell) is bad


def test_an_index_is_caught_however_it_is_shown(browser, site):
    frame = pd.DataFrame({"Baseline": ["TF-IDF", "DST", "Dense"], "R@1": [0.25, 0.5, 0.125]})
    shown = {"styler": frame.style.format(precision=3).to_html(),                 # row headers in the body
             "reset": present.table(frame.reset_index(), lift=False)._repr_html_(),  # 0…n-1 as a column "index"
             "good": present.table(frame)._repr_html_(),
             "rank": present.table(frame.assign(Baseline=["0", "1", "2"]).rename(columns={"Baseline": "k"}))._repr_html_()}
    for name, html in shown.items():
        (site / f"{name}.html").write_text(page(html))
    with checks.serve(site) as base:
        pg = browser.new_page(viewport=checks.LAPTOP)
        found = {}
        for name in shown:
            pg.goto(base + f"{name}.html", wait_until="load")
            found[name] = [p for p in checks.check_tables(pg) if "index column" in p]
        pg.close()
    assert found["styler"] and found["good"] == [] and found["rank"] == []   # a named column of 0, 1, 2 is data
    assert found["reset"]


def test_fit_counts_the_tables_a_page_must_show_whole(browser, site):
    long = pd.DataFrame({"Baseline": ["TF-IDF"] * 2, "column": ["R@1", "MRR"], "paper": [0.257, 0.289],
                         "ours": [0.25, 0.3]})
    (site / "fit.html").write_text(page(present.comparison(long, "Table 5")._repr_html_()))
    with checks.serve(site) as base:
        pg = browser.new_page(viewport=checks.LAPTOP)
        assert checks.tables_fit(pg, base + "fit.html", at_least=1) == []
        assert any("expected at least 4" in p for p in checks.tables_fit(pg, base + "fit.html", at_least=4))
        assert checks.tables_fit(pg, base + "fit.html", column=100)      # a column narrower than the table
        pg.close()


@pytest.mark.parametrize("css, problem", [
    ("", None),
    ("table.trace-table th:first-child, table.trace-table td:first-child { position: static !important; }", "not sticky"),
    (".trace-table-wrap { overflow-x: visible !important; }", "does not scroll"),
    # a first column wider than the phone cannot stay put: long labels must wrap (trace.css)
    ("table.trace-table td:first-child, table.trace-table th:first-child { white-space: nowrap !important; }",
     "not sticky"),
])
def test_a_wide_table_scrolls_in_its_wrapper_with_its_first_column_kept(browser, site, css, problem):
    long_label = "KB: POIs per type (restaurant / hotel / attraction, each), as the paper counts them"
    wide = present.table(pd.DataFrame({"Baseline": ["TF-IDF", long_label],
                                       **{f"metric_{i}": [0.25, 0.5] for i in range(20)}}), lift=False)
    (site / "w.html").write_text(page(wide._repr_html_(), f"<style>{css}</style>"))
    with checks.serve(site) as base:
        pg = browser.new_page(viewport=checks.PHONE)
        problems = checks.tables_scroll_in_place(pg, base + "w.html")
        pg.close()
    assert problems == [] if problem is None else any(problem in p for p in problems), problems
