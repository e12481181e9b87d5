"""Reader mode of the book: code cells hidden by tag and figures captioned
(`book/tools/pipeline.py reader`), and the smoke banner (book/_ext/trace_reader.py)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

BOOK = Path(__file__).parents[2] / "book"
sys.path[:0] = [str(BOOK / "tools"), str(BOOK / "_ext")]
import pipeline  # noqa: E402
import trace_reader  # noqa: E402


def _notebook(path: Path) -> None:
    cells = [
        {"cell_type": "code", "metadata": {"tags": ["parameters", "remove-cell"]}, "outputs": [], "source": ""},
        {"cell_type": "code", "metadata": {"tags": ["injected-parameters"]}, "outputs": [], "source": ""},
        {"cell_type": "markdown", "metadata": {}, "source": "# Title"},
        {"cell_type": "code", "metadata": {}, "source": "plot(df);", "outputs": [
            {"output_type": "display_data", "data": {"image/svg+xml": "<svg/>"},
             "metadata": {"trace_figure": {"caption": "Ours vs paper", "alt": "Chart t05: y against x",
                                           "name": "fig-t05"}}}]},
        {"cell_type": "code", "metadata": {"tags": ["hide-output"]}, "outputs": [], "source": ""},
    ]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_reader_hides_code_and_captions_figures(tmp_path):
    nb = tmp_path / "page.ipynb"
    _notebook(nb)
    assert pipeline.reader_mode(nb) == 4     # injected parameters (tag, moved), the plot cell (tag + caption)
    cells = json.loads(nb.read_text())["cells"]
    assert [c["metadata"].get("tags") for c in cells] == [   # the title first, then the parameters
        ["parameters", "remove-cell"], [], ["injected-parameters", "hide-input"], ["hide-input"], ["hide-output"]]
    assert cells[3]["metadata"]["mystnb"] == {"figure": {"caption": "Ours vs paper", "name": "fig-t05"},
                                              "image": {"alt": "Chart t05: y against x"}}
    before = nb.read_bytes()
    pipeline.reader_mode(nb)                  # idempotent: tags are not added twice
    assert json.loads(nb.read_bytes())["cells"][3]["metadata"]["tags"] == ["hide-input"]
    assert json.loads(before)["cells"][2]["metadata"]["tags"] == ["injected-parameters", "hide-input"]


def test_smoke_pages_carry_the_banner(tmp_path):
    assert trace_reader.profile(tmp_path) is None and trace_reader.banner(None) == ""
    (tmp_path / "_build").mkdir()
    (tmp_path / "_build" / ".content-profile").write_text("smoke\n")
    assert trace_reader.profile(tmp_path) == "smoke"
    assert "not meaningful" in trace_reader.banner("smoke")
    assert trace_reader.banner("default") == "" and trace_reader.banner("paper") == ""
