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


def _announce(app: Any, config: Any) -> None:
    text = banner(profile(app.confdir))
    if text:
        config.html_theme_options = {**config.html_theme_options, "announcement": text}


def setup(app: Any) -> dict[str, Any]:
    app.connect("config-inited", _announce)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
