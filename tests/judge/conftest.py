"""Fixtures for the CoRE judge tests: the hand-built Tampa KB and dialogues of the baseline tests,
the hand-written movie-CRS fixture, and a DSPy settings reset around every test."""
from __future__ import annotations

import sys
from pathlib import Path

import dspy
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "baselines"))
from tinykb import DIALOGUES, tiny_kb

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def _reset_dspy():
    with dspy.context(lm=None, adapter=None):
        yield


@pytest.fixture(scope="session")
def kb_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("kb")
    tiny_kb(d)
    return d


@pytest.fixture(scope="session")
def kb(kb_dir):
    from trace_crs.kb import load_kb
    return load_kb(kb_dir)


@pytest.fixture
def dialogues():
    import copy
    return copy.deepcopy(DIALOGUES)
