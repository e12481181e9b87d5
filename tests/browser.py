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
from pathlib import Path
from typing import Any, Iterator
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


NUMBER = re.compile(r"^-?[\d,]*\.(\d+)$")


def too_precise(cell: str) -> bool:
    """A cell that is one number with more than 3 decimals, unless it is below 0.01 with at most
    3 significant digits (``0.00123``): what report.present never prints."""
    match = NUMBER.match(cell.strip())
    if not match or len(match.group(1)) <= 3:
        return False
    whole = cell.strip().lstrip("-").split(".")[0].replace(",", "")
    return whole.strip("0") != "" or len(match.group(1).lstrip("0")) > 3


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
    cells = page.eval_on_selector_all("main table td", "cs => cs.map(c => c.innerText)")
    precise = [c for c in cells if too_precise(c)]
    if precise:
        problems.append(f"{len(precise)} table cell(s) with more than 3 decimals, e.g. {precise[0]}")
    index = page.locator("main table th.row_heading").count()
    if index:
        problems.append(f"{index} index cell(s) shown in a table")
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


def tables_fit(page: Any, url: str) -> list[str]:
    """Every table of ``url`` that must fit (``.trace-fit``: a comparison, e.g. one axis of
    Table 5) shows whole, without sideways scrolling, at this width."""
    page.goto(url, wait_until="load")
    sizes = page.eval_on_selector_all(".trace-fit", "ws => ws.map(w => [w.scrollWidth, w.clientWidth])")
    return [f"table {i + 1} needs {s} px in a {c} px column" for i, (s, c) in enumerate(sizes) if s > c + 1]


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
