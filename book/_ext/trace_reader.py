"""Sphinx extension of the book: the smoke-build banner (reader mode, book/_config.yml).

A smoke build (`make smoke-book`: a tiny KB and a few dialogues, what CI runs) looks like the
real book, so every page of it carries the theme's announcement bar saying its numbers are not
meaningful.  Which profile the pages were executed on is read from
``_build/.content-profile`` (written by mk/paper.mk before the notebooks run).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

# Profiles whose numbers mean something; any other profile's pages get the banner.
MEANINGFUL = ("default", "paper")
BANNER = ("Smoke build ({profile} profile): a tiny knowledge base and a few dialogues that test the "
          "pipeline. The numbers on these pages are not meaningful; <code>make paper</code> builds the "
          "real book.")


def profile(confdir: str | Path) -> str | None:
    """The profile the book's notebooks were executed on, or None when no build recorded one."""
    path = Path(confdir) / "_build" / ".content-profile"
    return path.read_text().strip() or None if path.exists() else None


def banner(name: str | None) -> str:
    """The announcement for pages executed on profile ``name`` ("" when meaningful or unknown)."""
    return "" if name is None or name in MEANINGFUL else BANNER.format(profile=name)


# sphinx-book-theme 1.3 hides pydata-sphinx-theme 0.17's header, keeping that header's hidden
# `.primary-toggle` button first in the page, and both themes bind `querySelector(".primary-toggle")`:
# the visible toggle of the book theme then does nothing. Dropping the hidden duplicate before the
# themes' ready handlers run (when parsing ends: readyState "interactive" comes before the deferred
# theme scripts execute) binds the visible one.
TOGGLE_FIX = """document.addEventListener("readystatechange", () => {
  if (document.readyState !== "interactive") return;
  document.querySelectorAll(".pst-navbar-icon.primary-toggle, .pst-navbar-icon.secondary-toggle").forEach(b => {
    if (b.offsetParent === null && document.querySelectorAll("." + [...b.classList].find(c => c.endsWith("-toggle") && c !== "sidebar-toggle")).length > 1) b.remove();
  });
});"""


def _announce(app: Any, config: Any) -> None:
    text = banner(profile(app.confdir))
    if text:
        config.html_theme_options = {**config.html_theme_options, "announcement": text}


def _dedupe_scripts(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Each script once per page: sphinx-thebe adds its inline configuration on every
    env-before-read-docs, which jupyter-book fires twice, and the second copy throws
    ("THEBE_JS_URL has already been declared") in the console."""
    seen, kept = set(), []
    for js in context.get("script_files", []):
        key = (getattr(js, "filename", None) or None, tuple(sorted((getattr(js, "attributes", None) or {}).items())))
        if key not in seen:
            seen.add(key)
            kept.append(js)
    context["script_files"] = kept


def setup(app: Any) -> dict[str, Any]:
    app.connect("config-inited", _announce)
    app.add_js_file(None, body=TOGGLE_FIX, priority=100)
    app.connect("html-page-context", _dedupe_scripts, priority=100)   # before any handler that returns
    return {"parallel_read_safe": True, "parallel_write_safe": True}
