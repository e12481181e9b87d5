"""The flags many commands share are declared once, in :mod:`trace_crs.cli.arguments`, and each
command still gets the flag it had: name, dest, type, default, required, metavar and help text
(golden tuples read off ``trace-crs <command> --help``; the whole surface is compared with
``tests/cli/parser_surface.py``)."""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import pytest

from trace_crs.cli import build_parser
from trace_crs.cli.arguments import RUN_HELP

sys.path.insert(0, str(Path(__file__).resolve().parent))  # a script, not the package
from parser_surface import walk

CLI = Path(__file__).resolve().parents[2] / "src" / "trace_crs" / "cli"
SHARED = ("--kb", "--dialogues", "--out", "--quiet", "--seed", "--n", "--n-boot", "--baselines", "--yelp-dir", "--set",
          "--config")


def _literal_flags(path: Path) -> list[tuple[int, str]]:
    """(line, flag) of each ``….add_argument("--flag", …)`` in ``path`` that names a shared flag."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and first.value in SHARED:
                dest = next((k.value for k in node.keywords if k.arg == "dest"), None)
                if not (first.value == "--quiet" and isinstance(dest, ast.Constant) and dest.value == "global_quiet"):
                    found.append((node.lineno, first.value))
    return found


@pytest.mark.parametrize("path", sorted(p for p in CLI.glob("*.py") if p.name != "arguments.py"), ids=lambda p: p.name)
def test_shared_flags_are_declared_only_in_arguments(path):
    # the global `trace-crs --quiet` (dest global_quiet) is the one shared spelling declared elsewhere
    assert _literal_flags(path) == [], f"{path.name}: use the helper of trace_crs.cli.arguments"


def _action(command: str, flag: str) -> argparse.Action:
    parsers = {" ".join(path): p for path, p in walk(build_parser())}
    return next(a for a in parsers[command]._actions if flag in a.option_strings)


# (command, flag, dest, type, default, required, metavar, help) as before the helpers existed
GOLDEN = [
    ("kb build", "--seed", "seed", int, 42, False, None, None),
    ("kb build", "--out", "out", None, None, True, None, "output KB directory"),
    ("kb build", "--yelp-dir", "yelp_dir", None, None, False, None,
     "directory with the Yelp Open Dataset business/review JSON files"),
    ("kb realism", "--kb", "kb", None, None, True, None, "KB directory"),
    ("kb stats", "--out", "json", None, None, False, None, "also write the statistics as JSON to this path"),
    ("dialogues generate", "--kb", "kb", None, None, True, None, None),
    ("dialogues generate", "--n", "n", int, None, True, None, None),
    ("dialogues generate", "--out", "out", None, None, True, None, None),
    ("dialogues generate", "--set", "set", None, None, False, "KEY=VALUE",
     "override a field of the local generator's LM config, e.g. lm.timeout_s=3600 lm.max_tokens=3000"),
    ("dialogues validate", "--dialogues", "file_flag", None, None, False, None, "dialogues JSON-lines file"),
    ("dialogues validate", "--kb", "kb", None, None, True, None, "KB directory the dialogues were generated from"),
    ("dialogues unsolvable", "--n", "n", int, 300, False, None, "items, split evenly over the four reasons"),
    ("dialogues leakage", "--seed", "seed", int, 42, False, None, "seed of the shuffled-persona control (default 42)"),
    ("evaluate", "--kb", "kb", None, None, False, None, "KB directory (pois.jsonl, reviews.jsonl)"),
    ("evaluate", "--baselines", "baselines", None, None, False, None,
     "all | non-llm | llm | comma-separated registry keys"),
    ("evaluate", "--seed", "seed", int, None, False, None, "run seed (pool shuffles, subsets, LLM sampling) (default 42)"),
    ("evaluate", "--quiet", "quiet", None, False, False, None, "no progress bars"),
    ("converse", "--baselines", "baselines", None, None, False, None,
     "all | non-llm | llm | comma-separated registry keys (default non-llm)"),
    ("converse", "--dialogues", "dialogues", None, None, False, None,
     "dialogues JSON-lines file (the users' hidden preferences and pools)"),
    ("converse", "--out", "out", None, None, True, None, "output directory, e.g. results/<profile>/live/<run>"),
    ("score", "--dialogues", "dialogues", None, None, True, None, "dialogues JSON lines"),
    ("judge core", "--set", "set", None, None, False, "lm.KEY=VALUE", "LM setting, e.g. lm.model=openai/gpt-4o-mini"),
    ("judge transcripts", "--kb", "kb", None, None, False, None, "KB directory (names items, resolves citations)"),
    ("stats bootstrap", "--out", "out", Path, None, True, None, None),
    ("stats abstention-llm", "--config", "config", None, None, True, None,
     "a run config (its evaluate: section: LLM baselines, lm)"),
    ("human sample", "--baselines", "baselines", None, "tfidf,rag_citation,llm_zero_shot", False, None,
     "comma-separated (default tfidf,rag_citation,llm_zero_shot)"),
    ("human sample", "--n", "n", int, 30, False, None, "dialogues (default 30)"),
    ("release import", "--yelp-dir", "yelp_dir", None, None, True, None,
     "Yelp Open Dataset bundle (yelp_academic_dataset_{business,review}.json)"),
    ("release export", "--dialogues", "dialogues", None, None, True, None, "dialogues JSON-lines file"),
]


@pytest.mark.parametrize("command, flag, dest, type_, default, required, metavar, help_", GOLDEN,
                         ids=[f"{g[0]} {g[1]}" for g in GOLDEN])
def test_each_command_keeps_its_flag(command, flag, dest, type_, default, required, metavar, help_):
    a = _action(command, flag)
    assert (a.dest, a.type, a.default, a.required, a.metavar, a.help) == (dest, type_, default, required, metavar, help_)


def test_every_seed_says_its_default_or_nothing():
    seeds = [a for _, p in walk(build_parser()) for a in p._actions if "--seed" in a.option_strings]
    assert len(seeds) == 20
    for a in seeds:
        assert a.type is int and a.default in (42, None)
        assert a.help is None or a.help.endswith("(default 42)"), a.help


def test_every_command_quiet_is_a_switch_the_global_quiet_also_sets():
    quiets = [a for path, p in walk(build_parser()) if path for a in p._actions if "--quiet" in a.option_strings]
    assert len(quiets) == 8
    assert all(isinstance(a, argparse._StoreTrueAction) and a.dest == "quiet" for a in quiets)


def test_run_help_has_a_row_per_run_command():
    assert set(RUN_HELP) == {"evaluate", "converse"}
    for command, texts in RUN_HELP.items():
        assert _action(command, "--config").help == texts.config
        assert _action(command, "--dialogues").help == texts.dialogues
