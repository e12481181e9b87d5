"""The built book as a reader sees it, in headless Chromium (issue "the book as a reader sees it").

Runs against a built book only when ``TRACE_BOOK_HTML`` names its HTML directory (``make
browser-check``, the last step of ``make test``, after the smoke book); screenshots of Table 5
and the Deviations page go to ``TRACE_SCREENS`` (``results/<profile>/screens/``, CI artifacts).
The checks themselves are tests/browser.py (and fail on mutations: test_browser_checks.py).
The default-book criteria, page by page: every table ≤ 3 decimals and no index; every figure's
smallest text ≥ 9 pt as shown on a laptop; every comparison table (each axis of Table 5, at least
one per axis) fits the 757 px column; on a phone a wide table scrolls in its wrapper, first column kept.
"""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from trace_crs.report.t05_headline import AXES

spec = importlib.util.spec_from_file_location("trace_browser", Path(__file__).parents[1] / "browser.py")
checks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(checks)
shape_spec = importlib.util.spec_from_file_location("trace_default_shape", Path(__file__).parents[2] / "book/tools/default_shape.py")
shape = importlib.util.module_from_spec(shape_spec)
shape_spec.loader.exec_module(shape)

BOOK = Path(os.environ["TRACE_BOOK_HTML"]) if os.environ.get("TRACE_BOOK_HTML") else None
SCREENS = Path(os.environ.get("TRACE_SCREENS", "results/smoke/screens"))
SKIP = ("genindex.html", "search.html")
pytestmark = pytest.mark.skipif(BOOK is None, reason="set TRACE_BOOK_HTML to a built book (make browser-check)")


def pages() -> list[str]:
    if BOOK is None:
        return []
    return sorted(str(p.relative_to(BOOK)) for p in BOOK.rglob("*.html")
                  if not p.relative_to(BOOK).parts[0].startswith("_") and p.name not in SKIP
                  and 'http-equiv="Refresh"' not in p.read_text()[:2000])   # index.html: a redirect to the root page


@pytest.fixture(scope="module")
def site():
    with checks.serve(BOOK) as base:
        yield base


@pytest.mark.parametrize("rel", pages())
def test_page_reads_on_a_phone(browser, site, rel):
    """No sideways page scroll, leak, raw frame, broken image or link, console error; a table
    wider than the phone scrolls in its wrapper with its first column kept in view."""
    page = browser.new_page(viewport=checks.PHONE)
    errors = checks.listen(page)
    problems = checks.check_page(page, site + rel, BOOK, site) + checks.tables_scroll_in_place(page, site + rel)
    page.close()
    assert problems + errors == []


@pytest.mark.parametrize("rel", pages())
def test_page_meets_the_default_book_criteria_on_a_laptop(browser, site, rel):
    """Every table ≤ 3 decimals and no index; every comparison table fits the 757 px column;
    every figure shown at its drawn size, its smallest text ≥ 9 pt as shown."""
    page = browser.new_page(viewport=checks.LAPTOP)
    problems = checks.figures_unscaled(page, site + rel) + checks.figure_text(page, site + rel)
    problems += checks.tables_fit(page, site + rel) + checks.check_tables(page)
    page.close()
    assert problems == []


@pytest.mark.parametrize("viewport", [checks.PHONE, checks.LAPTOP], ids=["phone", "laptop"])
def test_sidebar_toggle_opens_the_navigation(browser, site, viewport):
    page = browser.new_page(viewport=viewport)
    problems = checks.check_sidebar(page, site + "intro.html")
    page.close()
    assert problems == []


def test_table5_axes_fit_a_laptop_column_and_screenshots(browser, site):
    SCREENS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport=checks.LAPTOP)
    problems = checks.tables_fit(page, site + "content/t05_headline.html", at_least=len(AXES))
    for name in ("t05_headline", "deviations"):
        for label, viewport in (("laptop", checks.LAPTOP), ("phone", checks.PHONE)):
            page.set_viewport_size(viewport)
            page.goto(site + f"content/{name}.html", wait_until="load")
            page.screenshot(path=str(SCREENS / f"{name}-{label}.png"), full_page=True)
    page.close()
    assert problems == []


def test_default_shaped_tables_read_in_the_book_s_own_theme(browser, site, tmp_path):
    """The default book's per-baseline tables (book/tools/default_shape.py: 15 baselines, no LLM
    run needed) in place of Table 5's article, with the built book's theme and CSS: on a laptop
    every table fits the column, ≤ 3 decimals, no index; on a phone nothing but a table wrapper
    scrolls sideways, with the first column kept in view."""
    html = (BOOK / "content" / "t05_headline.html").read_text()
    start = html.index(">", html.index('<article class="bd-article"')) + 1
    shown = shape.tables()
    body = "\n".join(f"<section><h2>{title}</h2>\n{s._repr_html_()}</section>" for title, s in shown)
    (tmp_path / "shape.html").write_text(html[:start].replace("<head>", f'<head><base href="{site}content/">', 1)
                                         + body + html[html.index("</article>", start):])
    with checks.serve(tmp_path) as other:
        page = browser.new_page(viewport=checks.LAPTOP)
        problems = checks.tables_fit(page, other + "shape.html", at_least=sum(len(s.tables) for _, s in shown),
                                     selector=".trace-table-wrap") + checks.check_tables(page)
        page.set_viewport_size(checks.PHONE)
        problems += checks.tables_scroll_in_place(page, other + "shape.html")
        overflow = page.evaluate(checks._OVERFLOW)
        page.close()
    assert problems == [] and overflow["scroll"] <= overflow["client"] + 1, (problems, overflow)
