"""Every example command of the README and the book's "Using Trace" pages still runs as far as it
can without data: a ``trace-crs`` line parses with the real command-line parser (subcommand,
flags and their values), a ``make`` line names targets the makefiles define, a Python block
compiles and names only attributes ``trace_crs`` has.  So a renamed flag or target fails here,
not in a reader's terminal.  The pages must also type no measured duration or speed ratio outside
a code span: those are generated (Performance, Reproduce)."""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

import trace_crs
from trace_crs.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    ROOT / "README.md",
    ROOT / "book" / "reproduce.md",
    ROOT / "book" / "api.md",
    *sorted((ROOT / "book" / "guides").glob("*.md")),
]
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```[ \t]*$", re.S | re.M)
ENV = {"KB": "data/kb/paper", "D": "data/dialogues/paper/dialogues.jsonl", "OPENAI_API_KEY": "x"}


def blocks(page: Path, kinds: tuple[str, ...]) -> list[str]:
    return [body for kind, body in FENCE.findall(page.read_text()) if kind in kinds]


def commands(body: str) -> list[list[str]]:
    """Shell lines of a block (continuations joined, comments dropped, ``$VAR`` filled), as argv."""
    out = []
    for line in body.replace("\\\n", " ").splitlines():
        words = shlex.split(re.sub(r"\$(\w+)", lambda m: ENV.get(m.group(1), m.group(0)), line), comments=True)
        while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):  # VAR=value prefixes
            words = words[1:]
        if words:
            out.append(words)
    return out


def shell_lines() -> list[tuple[str, list[str]]]:
    return [(p.name, argv) for p in PAGES for b in blocks(p, ("bash", "", "sh")) for argv in commands(b)]


@pytest.fixture(scope="module")
def make_targets() -> set[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    db = subprocess.run(["make", "-pnq", "-R", "help"], cwd=ROOT, env=env, capture_output=True, text=True).stdout
    return {m.group(1) for m in re.finditer(r"^([A-Za-z0-9_.-]+):(?!=)", db, re.M)}


CLI = [(page, argv) for page, argv in shell_lines() if Path(argv[0]).name == "trace-crs"]
MAKE = [(page, argv) for page, argv in shell_lines() if argv[0] == "make"]


def test_pages_have_examples():
    assert len(CLI) >= 15 and len(MAKE) >= 10


@pytest.mark.parametrize(("page", "argv"), CLI, ids=lambda x: x if isinstance(x, str) else " ".join(x[1:3]))
def test_trace_crs_example_parses(page, argv):
    try:
        args = build_parser().parse_args(argv[1:])
    except SystemExit as exc:  # argparse's usage error
        pytest.fail(f"{page}: `{' '.join(argv)}` does not parse (exit {exc.code})")
    assert callable(getattr(args, "func", None)), f"{page}: `{' '.join(argv)}` names no command"


@pytest.mark.parametrize(("page", "argv"), MAKE, ids=lambda x: x if isinstance(x, str) else " ".join(x))
def test_make_example_names_real_targets(page, argv, make_targets):
    targets = [w for w in argv[1:] if "=" not in w and not w.startswith("-")]
    missing = [t for t in targets if t not in make_targets]
    assert not missing, f"{page}: `{' '.join(argv)}` names undefined make target(s) {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_python_examples_compile_and_name_real_api(page):
    for body in blocks(page, ("python",)):
        tree = ast.parse(body)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "trace_crs":
                assert hasattr(trace_crs, node.attr), f"{page.name}: trace_crs.{node.attr} does not exist"


MEASURED = re.compile(r"(?<![\w.])\d[\d,.]*\s?(?:s|ms|min|h|hours?|minutes?|seconds?)\b|\d×")


def measured(text: str) -> list[str]:
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", " ", text)
    return [text[max(0, m.start() - 30) : m.end() + 10] for m in MEASURED.finditer(text)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_measured_duration_typed(page):
    assert measured(page.read_text()) == []


def test_measured_detector():
    assert measured("export 186 s + import 259 s wall") and measured("= **2.50×**")
    assert not measured("a 12 × 12 matrix, `--timeout 5s`, Table 5")


def test_readme_is_a_front_door():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 250
    for guide in sorted((ROOT / "book" / "guides").glob("*.md")):
        assert f"book/guides/{guide.name}" in text, f"README links no {guide.name}"
    toc = (ROOT / "book" / "_toc.yml").read_text()
    for guide in sorted((ROOT / "book" / "guides").glob("*.md")):
        assert f"file: guides/{guide.stem}" in toc, f"{guide.name} is not in the book's toc"
