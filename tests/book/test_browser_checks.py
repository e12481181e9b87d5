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
                                                ["more than 3 decimals", "index cell"]),
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


def test_too_precise_follows_the_presentation_rule():
    assert [checks.too_precise(c) for c in ("0.123", "0.00123", "12.3456", "0.1234", "0.000012345", "1,234",
                                             "2026-11-23", "-0.0012")] == [
        False, False, True, True, True, False, False, False]


def test_a_figure_shrunk_below_its_drawn_size_is_reported(browser, site):
    (site / "small.html").write_text(page('<figure style="width:300px"><img src="fig.svg" alt="Chart x" '
                                          'style="max-width:100%"><figcaption>Fig. 1</figcaption></figure>'))
    with checks.serve(site) as base:
        pg = browser.new_page(viewport=checks.LAPTOP)
        assert checks.figures_unscaled(pg, base + "small.html")      # 720 px drawn, 300 px shown
        assert checks.figures_unscaled(pg, base + "good.html") == []
        pg.close()
