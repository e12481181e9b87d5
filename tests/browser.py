"""The one headless-browser launcher of the test suite, and the book's reader checks.

Debian's Chromium (``/usr/bin/chromium``; ``make test`` installs it, mk/browser.mk) driven by
Playwright, never a browser Playwright downloads.  :func:`chromium` starts it (use it in a
``with``); the ``browser`` fixture of tests/conftest.py wraps it for any test (a web app test
opens ``browser.new_page()``).  :func:`serve` serves a directory over HTTP on a free local port.

:func:`check_page` is what a reader would notice on one page of the built book, as a list of
problems (empty = fine): horizontal scrolling on a phone, ``<IPython``/``nan``/``NaN`` in the
prose or a table, a raw DataFrame display, broken images or links, console errors and figures
without a caption or real alt text.  :func:`check_sidebar` clicks the theme's sidebar toggle.
"""
from __future__ import annotations

import contextlib
import functools
import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlparse

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 900}
# Leaks of Python objects or missing values into what a reader sees.
LEAK = re.compile(r"<IPython|\bNaN\b|\bnan\b|<pandas\.|<matplotlib\.|<Figure size")
HASH_ALT = re.compile(r"^[0-9a-f]{16,}$")


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A headless Debian Chromium (Playwright ``Browser``), closed on exit."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def serve(root: Path) -> Iterator[str]:
    """Serve ``root`` on ``http://127.0.0.1:<free port>/`` (quietly) for the ``with`` block."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


# Text a reader sees as prose and tables (code, its output streams and scripts left out).
_VISIBLE_TEXT = """() => {
  const root = document.querySelector('main') || document.body;
  const clone = root.cloneNode(true);
  clone.querySelectorAll('script, style, pre, code, .cell_input, .highlight, .MathJax, mjx-container, svg')
       .forEach(e => e.remove());
  return clone.innerText;
}"""

_OVERFLOW = """() => {
  const w = document.documentElement.clientWidth;
  const wide = document.documentElement.scrollWidth;
  const culprits = [];
  if (wide > w + 1) {
    for (const e of document.querySelectorAll('main *')) {
      const r = e.getBoundingClientRect();
      if (r.right > w + 1 && !e.closest('.trace-table-wrap') && r.width > 0) {
        culprits.push(e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined ?
                      '.' + String(e.className).trim().split(/\\s+/).join('.') : ''));
        if (culprits.length >= 3) break;
      }
    }
  }
  return {client: w, scroll: wide, culprits};
}"""

_FIGURES = """() => Array.from(document.querySelectorAll('main img')).map(img => {
  const fig = img.closest('figure');
  const cap = fig ? fig.querySelector('figcaption') : null;
  return {src: img.getAttribute('src'), alt: img.getAttribute('alt') || '', ok: img.complete && img.naturalWidth > 0,
          in_output: !!img.closest('.cell_output, figure'), caption: cap ? cap.innerText.trim() : '',
          shown: img.getBoundingClientRect().width, natural: img.naturalWidth};
})"""


# A number in a cell (alone or within ``0.250 [0.18, 0.31]``): its decimals, exponent aside;
# never part of a version, a date or an identifier (``v0.1.2``, ``kb:ab12.3``).
NUMBER = re.compile(r"(?<![\w.:])[-−]?\d[\d,]*\.(\d+)(?:[eE][-+]?\d+)?(?![\w.])")
INDEX_HEADERS = ("", "index", "level_0", "unnamed: 0")

# Every table of the page: its cells as text (hidden ones too: a closed <details>), the row
# headers of its body (an index) and its first column under its last header row.
_TABLES = """() => Array.from(document.querySelectorAll('main table')).map(t => {
  const heads = t.querySelectorAll('thead tr'); const last = heads.length ? heads[heads.length - 1] : null;
  const cap = t.querySelector('caption');
  return {caption: cap ? cap.textContent.trim().slice(0, 60) : '',
          cells: Array.from(t.querySelectorAll('td, tbody th')).map(c => c.textContent.trim()),
          row_headers: t.querySelectorAll('tbody th').length,
          first_header: last && last.cells.length ? last.cells[0].textContent.trim() : null,
          first_column: Array.from(t.querySelectorAll('tbody tr')).map(r => r.cells.length ? r.cells[0].textContent.trim() : '')};
})"""


def too_precise(cell: str) -> bool:
    """A cell showing a number with more than 3 decimals (the book shows at most 3: report.present)."""
    return any(len(m.group(1)) > 3 for m in NUMBER.finditer(cell))


def shows_index(table: dict[str, Any]) -> bool:
    """A table showing an index: row headers in its body (pandas, a Styler without
    ``hide(axis="index")``), or a first column of row numbers 0…n-1 under no name or ``index``."""
    rows = table["first_column"]
    numbered = len(rows) >= 2 and rows == [str(i) for i in range(len(rows))]
    return table["row_headers"] > 0 or (numbered and (table["first_header"] or "").lower() in INDEX_HEADERS)


def check_tables(page: Any) -> list[str]:
    """Every table of the loaded page shows at most 3 decimals and no index (the book's rule)."""
    problems = []
    for i, table in enumerate(page.evaluate(_TABLES)):
        name = f"table {i + 1}" + (f" ({table['caption']})" if table["caption"] else "")
        precise = [c for c in table["cells"] if too_precise(c)]
        if precise:
            problems.append(f"{name}: {len(precise)} cell(s) with more than 3 decimals, e.g. {precise[0]!r}")
        if shows_index(table):
            problems.append(f"{name}: an index column is shown")
    return problems


def _internal_links(page: Any, url: str) -> list[str]:
    hrefs = page.eval_on_selector_all("a[href]", "as => as.map(a => a.getAttribute('href'))")
    out = []
    for href in hrefs:
        target = urlparse(urljoin(url, href))
        if target.scheme in ("http", "https") and target.netloc == urlparse(url).netloc:
            out.append(unquote(target.path))
    return sorted(set(out))


def check_page(page: Any, url: str, root: Path, base: str) -> list[str]:
    """Problems a reader would meet on ``url`` (served from ``root`` at ``base``), loaded in
    ``page`` at its current viewport.  Console errors are collected by the caller's listener."""
    problems = []
    page.goto(url, wait_until="load")
    width = page.viewport_size["width"]
    overflow = page.evaluate(_OVERFLOW)
    if overflow["scroll"] > overflow["client"] + 1:
        problems.append(f"scrolls sideways at {width} px ({overflow['scroll']} > {overflow['client']}): "
                        f"{', '.join(overflow['culprits'])}")
    text = page.evaluate(_VISIBLE_TEXT)
    for match in LEAK.finditer(text):
        snippet = text[max(0, match.start() - 40):match.end() + 20].replace("\n", " ")
        problems.append(f"leak {match.group(0)!r} in the page text: …{snippet}…")
    problems += check_tables(page)
    raw = page.locator("main table.dataframe").count()
    if raw:
        problems.append(f"{raw} raw DataFrame display(s) (not through trace_crs.report.present)")
    for fig in page.evaluate(_FIGURES):
        name = fig["src"]
        if not fig["ok"]:
            problems.append(f"broken image {name}")
        if fig["in_output"] and not fig["caption"]:
            problems.append(f"figure without a caption: {name}")
        if fig["in_output"] and (not fig["alt"] or HASH_ALT.match(fig["alt"])):
            problems.append(f"figure without real alt text: {name} (alt={fig['alt']!r})")
    for path in _internal_links(page, url):
        rel = path[len(urlparse(base).path):] if path.startswith(urlparse(base).path) else path.lstrip("/")
        target = root / rel
        if not (target.is_file() or (target / "index.html").is_file()):
            problems.append(f"broken link to {path}")
    return problems


_SIDEBAR_VISIBLE = """() => {
  const shown = e => { if (!e) return false; const r = e.getBoundingClientRect(); const st = getComputedStyle(e);
    return st.visibility !== 'hidden' && st.display !== 'none' && r.width > 0 && r.right > 0 && r.left < window.innerWidth; };
  const dialog = document.querySelector('#pst-primary-sidebar-modal');   // the phone's navigation
  return (dialog && dialog.open && shown(dialog)) || shown(document.querySelector('#pst-primary-sidebar'));
}"""


def check_sidebar(page: Any, url: str) -> list[str]:
    """The theme's sidebar toggle works: clicking the visible toggle flips whether the navigation
    is on screen (a phone starts closed and must open; a laptop starts open and collapses)."""
    page.goto(url, wait_until="load")
    width = page.viewport_size["width"]
    before = page.evaluate(_SIDEBAR_VISIBLE)
    if before == (width < 992):
        return [f"the navigation is {'open' if before else 'closed'} before any click at {width} px"]
    toggles = page.locator(".primary-toggle")
    visible = [toggles.nth(i) for i in range(toggles.count()) if toggles.nth(i).is_visible()]
    if not visible:
        return [f"no visible sidebar toggle at {width} px"]
    visible[0].click()
    page.wait_for_timeout(400)
    return [] if page.evaluate(_SIDEBAR_VISIBLE) != before else [
        f"the sidebar toggle does not {'close' if before else 'open'} the navigation at {width} px"]


COLUMN_PX = 757  # the book's text column at 1366 px (sphinx-book-theme: article 821 px less its padding)

# Each table a comparison must show whole (``.trace-fit``): its width against its column's.
_FIT = """sel => Array.from(document.querySelectorAll('main ' + sel)).map(w => {
  const t = w.querySelector('table'); const cap = t && t.querySelector('caption');
  return {needs: t ? Math.max(t.scrollWidth, t.getBoundingClientRect().width) : w.scrollWidth, column: w.clientWidth,
          caption: cap ? cap.textContent.trim().slice(0, 60) : ''};
})"""


def tables_fit(page: Any, url: str, at_least: int = 0, column: int = COLUMN_PX, selector: str = ".trace-fit") -> list[str]:
    """Every table of ``url`` that must fit (``selector``; ``.trace-fit``: a comparison, e.g. one
    axis of Table 5) shows whole, without sideways scrolling, in its column and in ``column`` px
    (the book's column on a laptop); ``at_least`` such tables are on the page (Table 5: one per axis)."""
    page.goto(url, wait_until="load")
    sizes = page.evaluate(_FIT, selector)
    problems = [f"{len(sizes)} table(s) that must fit the column, expected at least {at_least}"] if len(sizes) < at_least else []
    return problems + [f"table {i + 1} ({s['caption']}) needs {s['needs']:.0f} px in a {min(s['column'], column)} px column"
                       for i, s in enumerate(sizes) if s["needs"] > min(s["column"], column) + 1]


def listen(page: Any) -> list[str]:
    """Collect ``page``'s console errors and uncaught exceptions into the returned list."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    return errors


def figures_unscaled(page: Any, url: str) -> list[str]:
    """At this width every figure of ``url`` is shown at (≥ 95 % of) the size it was drawn, so
    its text keeps the ≥ 9 pt it was drawn with (trace_crs.report.figures)."""
    page.goto(url, wait_until="load")
    return [f"figure {f['src']} shown at {f['shown']:.0f} px of its {f['natural']} px: its text shrinks"
            for f in page.evaluate(_FIGURES) if f["in_output"] and f["natural"] and f["shown"] < 0.95 * f["natural"]]


SCREENSHOT_ALT = "Screenshot"  # alt text that marks a raster figure as a screenshot (report.human_eval)
MIN_PT = 9.0  # the smallest text of a figure, at the size it is shown (STYLE "Presentation")

# Each figure of the page (an <img> of an output or figure, or an inline <svg>): its SVG laid
# out at the size the figure is shown, off-screen; every text's computed font size times the
# scale of its screen transform (viewBox, transforms, rotation) is its size on the page, in CSS
# px (× 0.75 = pt).  Text drawn as glyph paths (matplotlib's svg.fonttype "path") and raster
# images cannot be measured and say so.
_TEXT_SIZES = """async () => {
  const sandbox = document.createElement('div');
  sandbox.style.cssText = 'position:absolute;left:-30000px;top:0;opacity:0;pointer-events:none';
  document.body.appendChild(sandbox);
  const out = [];
  const figures = Array.from(document.querySelectorAll('main img')).filter(i => i.closest('.cell_output, figure'))
    .map(i => ({name: i.getAttribute('src'), src: i.currentSrc || i.src, alt: i.getAttribute('alt') || '', box: i.getBoundingClientRect()}));
  for (const svg of document.querySelectorAll('main .cell_output svg, main figure svg'))
    if (!svg.parentElement.closest('svg')) figures.push({name: 'inline svg ' + (svg.id || ''), svg});
  for (const f of figures) {
    let svg = f.svg;
    if (!svg) {
      if (!/\\.svg([?#]|$)/i.test(f.src) && !f.src.startsWith('data:image/svg')) { out.push({name: f.name, raster: true, alt: f.alt}); continue; }
      const doc = new DOMParser().parseFromString(await (await fetch(f.src)).text(), 'image/svg+xml');
      svg = document.importNode(doc.documentElement, true);
      svg.setAttribute('width', f.box.width); svg.setAttribute('height', f.box.height);
      sandbox.appendChild(svg);
    }
    let min = Infinity, smallest = '', n = 0;
    for (const t of svg.querySelectorAll('text, tspan')) {
      const own = Array.from(t.childNodes).some(c => c.nodeType === 3 && c.textContent.trim());
      const m = own && getComputedStyle(t).display !== 'none' ? t.getScreenCTM() : null;
      if (!m) continue;
      const pt = parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) * 0.75;
      n++;
      if (pt < min) { min = pt; smallest = t.textContent.trim().slice(0, 30); }
    }
    const paths = Array.from(svg.querySelectorAll('g[id^="text_"]')).filter(g => !g.querySelector('text')).length;
    out.push({name: f.name, min: n ? min : null, smallest, n, paths, shown: f.box ? f.box.width : svg.getBoundingClientRect().width});
  }
  sandbox.remove();
  return out;
}"""


def figure_text(page: Any, url: str, min_pt: float = MIN_PT) -> list[str]:
    """Every figure of ``url``'s smallest text is at least ``min_pt`` at the size the figure is
    shown at this width (measured in the browser; a 0.01 pt rounding tolerance)."""
    page.goto(url, wait_until="load")
    problems = []
    for f in page.evaluate(_TEXT_SIZES):
        if f.get("raster") and f.get("alt", "").startswith(SCREENSHOT_ALT):
            continue  # a screenshot of a UI: its text is the app's own, kept unshrunk by shrunk_figures
        if f.get("raster"):
            problems.append(f"figure {f['name']} is a raster image: its text size cannot be measured (show the SVG)")
            continue
        if f["paths"]:
            problems.append(f"figure {f['name']}: {f['paths']} text(s) drawn as paths, their size cannot be measured")
        if f["min"] is not None and f["min"] < min_pt - 0.01:
            problems.append(f"figure {f['name']} shown at {f['shown']:.0f} px: its smallest text "
                            f"({f['smallest']!r}) is {f['min']:.1f} pt < {min_pt:g} pt")
    return problems


# Each table wider than its wrapper: the wrapper scrolls (not the page) and, scrolled to its
# end, every row's first cell still sits at the wrapper's left edge (sticky first column).
_SCROLLS = """() => Array.from(document.querySelectorAll('main .trace-table-wrap')).filter(w => w.scrollWidth > w.clientWidth + 1)
  .map(w => {
    const cap = w.querySelector('caption'); const overflow = getComputedStyle(w).overflowX;
    w.scrollLeft = w.scrollWidth; const left = w.getBoundingClientRect().left;
    const drift = Math.max(0, ...Array.from(w.querySelectorAll('tr')).filter(r => r.cells.length)
      .map(r => Math.abs(r.cells[0].getBoundingClientRect().left - left)));
    const scrolled = w.scrollLeft; w.scrollLeft = 0;
    return {caption: cap ? cap.textContent.trim().slice(0, 60) : '', overflow, scrolled, drift};
  })"""


def tables_scroll_in_place(page: Any, url: str) -> list[str]:
    """At this width (a phone) a table wider than the column scrolls inside its own wrapper,
    with its first column (the row labels) kept in view."""
    page.goto(url, wait_until="load")
    problems = []
    for i, t in enumerate(page.evaluate(_SCROLLS)):
        name = f"table {i + 1}" + (f" ({t['caption']})" if t["caption"] else "")
        if t["overflow"] not in ("auto", "scroll") or t["scrolled"] <= 0:
            problems.append(f"{name} is wider than the column but its wrapper does not scroll")
        elif t["drift"] > 1:
            problems.append(f"{name}: scrolled sideways, its first column moves {t['drift']:.0f} px (not sticky)")
    return problems
